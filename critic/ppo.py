"""PPO for a policy over candidate sets: the critic's LoRA actor and its value head.

A rollout is a list of :class:`Transition` (prompt, candidates, chosen index, reward, done, and
what the critic said when it chose: log-probability, value, value features). Every
``steps_per_update`` transitions (K = 128, CoPiC's Table 7) :meth:`PPOTrainer.update` computes
GAE advantages, then runs the clipped policy objective with an entropy bonus over the LoRA
parameters and the clipped value loss over the value head, each with its own optimizer and
learning rate, and empties the buffer (on-policy, as CoPiC's Algorithm 1 resets D).

Defaults are TWOSOME's (WeihaoTan/TWOSOME, read only; see ``shared/specs/copic.md`` §6), which
CoPiC builds on and leaves unstated: gamma 0.99, lambda 0.95, clip 0.2 (policy and value),
entropy 0.01, value coefficient 0.5, gradient norm 0.5, one epoch, target KL 0.02 (the policy
stops for this update once the approximate KL passes it), advantages normalized per minibatch,
policy learning rate 1e-6 (AdamW, eps 1e-5) and value 5e-5 (Adam, eps 1e-5). TWOSOME's policy
step accumulates 8 minibatches of 4 (32 transitions) and its value step uses 4 minibatches of
32: here ``policy_batch = 32`` transitions per optimizer step (one candidate set at a time, so
memory does not grow with it) and ``value_batch = 32``. Those learning rates were set for a 7B
model; small models learn at larger ones (the TWOSOME agent's command line exposes both).

An episode cut by its step budget is treated as ended (no bootstrap), as TWOSOME's environments
end at their horizon. Logged per update: policy and value loss, entropy, approximate KL, clip
fraction, explained variance (of the rollout's values against the returns, as cleanRL does),
the number of policy steps taken and whether the KL stopped them, and the wall time.
"""

from __future__ import annotations

import logging
import math
import random
import time
from dataclasses import asdict, dataclass
from typing import Any, Optional, Sequence

log = logging.getLogger("pddlkit.critic.ppo")


@dataclass
class PPOConfig:
    steps_per_update: int = 128
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    value_clip: Optional[float] = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: Optional[float] = 0.02
    epochs: int = 1
    policy_batch: int = 32
    value_batch: int = 32
    value_epochs: Optional[int] = None  # None: as many as ``epochs``
    policy_lr: float = 1e-6
    value_lr: float = 5e-5
    normalize_advantages: bool = True
    anneal_over: Optional[int] = None  # linear LR annealing to 0 over this many updates
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("steps_per_update", "epochs", "policy_batch", "value_batch"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"PPOConfig.{name} must be at least 1, got {getattr(self, name)}")
        for name in ("policy_lr", "value_lr", "ent_coef", "vf_coef"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise ValueError(f"PPOConfig.{name} must be a finite number >= 0, got {value!r}")
        if not 0 <= self.gamma <= 1 or not 0 <= self.gae_lambda <= 1:
            raise ValueError("PPOConfig.gamma and gae_lambda must lie in [0, 1]")


@dataclass
class Transition:
    prompt: str
    candidates: list[str]
    choice: int
    logprob: float
    value: float
    reward: float
    done: bool
    features: Any = None  # the value head's input when the choice was made


@dataclass
class UpdateStats:
    update: int
    transitions: int
    mean_reward: float
    policy_loss: float
    value_loss: float
    entropy: float
    approx_kl: float
    clipfrac: float
    explained_variance: float
    policy_steps: int
    kl_stopped: bool
    wall_s: float

    def as_dict(self) -> dict:
        return asdict(self)


def gae(rewards: Sequence[float], values: Sequence[float], dones: Sequence[bool],
        next_value: float, gamma: float, lam: float) -> tuple[list[float], list[float]]:
    """Advantages and returns (generalized advantage estimation, Schulman et al. 2016):
    ``dones[t]`` means the episode ended with step t, so nothing after it is bootstrapped."""
    n = len(rewards)
    advantages = [0.0] * n
    running = 0.0
    for t in reversed(range(n)):
        following = next_value if t == n - 1 else values[t + 1]
        alive = 0.0 if dones[t] else 1.0
        delta = rewards[t] + gamma * following * alive - values[t]
        running = delta + gamma * lam * alive * running
        advantages[t] = running
    return advantages, [a + v for a, v in zip(advantages, values)]


def explained_variance(predicted: Sequence[float], target: Sequence[float]) -> float:
    """1 - Var(target - predicted) / Var(target); NaN when the targets do not vary."""
    n = len(target)
    mean = sum(target) / n
    var = sum((y - mean) ** 2 for y in target) / n
    if var == 0:
        return float("nan")
    diff = [y - p for y, p in zip(target, predicted)]
    dmean = sum(diff) / n
    return 1.0 - (sum((d - dmean) ** 2 for d in diff) / n) / var


class PPOTrainer:
    """``trainer.add(transition)``; when ``trainer.ready``, ``trainer.update(next_value)``."""

    def __init__(self, critic, config: "Optional[PPOConfig | dict]" = None) -> None:
        import dataclasses

        import torch

        self._torch = torch
        self.critic = critic
        if isinstance(config, dict):   # PPOConfig's fields by name, as a CLI or a TOML gives them
            known = {f.name for f in dataclasses.fields(PPOConfig)}
            unknown = sorted(set(config) - known)
            if unknown:
                raise ValueError(f"unknown PPO setting(s) {', '.join(unknown)}; PPOConfig has "
                                 f"{', '.join(sorted(known))}")
            config = PPOConfig(**config)
        self.config = config or PPOConfig()
        self.buffer: list[Transition] = []
        self.history: list[UpdateStats] = []
        self.policy_optimizer = torch.optim.AdamW(critic.policy_parameters(),
                                                  lr=self.config.policy_lr, eps=1e-5,
                                                  weight_decay=0.0)
        self.value_optimizer = torch.optim.Adam(critic.value_parameters(),
                                                lr=self.config.value_lr, eps=1e-5)
        self.rng = random.Random(self.config.seed)

    @property
    def ready(self) -> bool:
        return len(self.buffer) >= self.config.steps_per_update

    def add(self, transition: Transition) -> None:
        self.buffer.append(transition)

    def _anneal(self) -> None:
        if not self.config.anneal_over:
            return
        frac = max(0.0, 1.0 - len(self.history) / self.config.anneal_over)
        self.policy_optimizer.param_groups[0]["lr"] = frac * self.config.policy_lr
        self.value_optimizer.param_groups[0]["lr"] = frac * self.config.value_lr

    def update(self, next_value: float = 0.0) -> UpdateStats:
        """One PPO update on the buffer, which is then emptied. ``next_value`` is the value of
        the state after the last transition (ignored when that transition ended its episode)."""
        if not self.buffer:
            raise ValueError("PPO update with an empty buffer: add transitions first")
        start = time.monotonic()
        cfg = self.config
        batch, self.buffer = self.buffer, []
        self._anneal()
        values = [t.value for t in batch]
        advantages, returns = gae([t.reward for t in batch], values, [t.done for t in batch],
                                  next_value, cfg.gamma, cfg.gae_lambda)
        ev = explained_variance(values, returns)
        policy = self._policy_epochs(batch, advantages)
        value_loss = self._value_epochs(batch, returns)
        stats = UpdateStats(
            update=len(self.history) + 1, transitions=len(batch),
            mean_reward=sum(t.reward for t in batch) / len(batch), value_loss=value_loss,
            explained_variance=ev, wall_s=time.monotonic() - start, **policy)
        self.history.append(stats)
        log.info("ppo update %d: %s", stats.update, {k: round(v, 4) if isinstance(v, float)
                                                     else v for k, v in stats.as_dict().items()})
        return stats

    def _policy_epochs(self, batch: list[Transition], advantages: list[float]) -> dict:
        torch = self._torch
        cfg = self.config
        params = self.critic.policy_parameters()
        losses, entropies, kls, clips = [], [], [], []
        steps, stopped = 0, False
        for _ in range(cfg.epochs):
            order = list(range(len(batch)))
            self.rng.shuffle(order)
            for first in range(0, len(order), cfg.policy_batch):
                chunk = order[first:first + cfg.policy_batch]
                adv = torch.tensor([advantages[i] for i in chunk])
                if cfg.normalize_advantages and len(chunk) > 1:
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                self.policy_optimizer.zero_grad(set_to_none=True)
                chunk_kl = []
                for a, i in zip(adv.tolist(), chunk):
                    t = batch[i]
                    if len(t.candidates) == 1:
                        # no choice: the log-probability is 0 whatever the adapters are, the
                        # ratio 1 and the gradient exactly zero; only the loss is counted
                        chunk_kl.append(0.0)
                        clips.append(0.0)
                        losses.append(-a)
                        entropies.append(0.0)
                        continue
                    logits, _, _, _ = self.critic.policy_logits(t.prompt, t.candidates)
                    log_probs = torch.log_softmax(logits, dim=-1)
                    new = log_probs[t.choice]
                    entropy = -(log_probs.exp() * log_probs).sum()
                    ratio = torch.exp(new - t.logprob)
                    loss = torch.max(-a * ratio,
                                     -a * torch.clamp(ratio, 1 - cfg.clip, 1 + cfg.clip))
                    loss = (loss - cfg.ent_coef * entropy) / len(chunk)
                    loss.backward()
                    with torch.no_grad():
                        log_ratio = new.detach() - t.logprob
                        chunk_kl.append(float((torch.exp(log_ratio) - 1) - log_ratio))
                        clips.append(float(abs(float(ratio) - 1) > cfg.clip))
                    losses.append(float(loss.detach()) * len(chunk))
                    entropies.append(float(entropy.detach()))
                torch.nn.utils.clip_grad_norm_(params, cfg.max_grad_norm)
                self.policy_optimizer.step()
                steps += 1
                kls.extend(chunk_kl)
                if cfg.target_kl is not None and sum(chunk_kl) / len(chunk_kl) > cfg.target_kl:
                    stopped = True
                    break
            if stopped:
                break
        mean = lambda xs: sum(xs) / len(xs) if xs else 0.0  # noqa: E731
        return {"policy_loss": mean(losses), "entropy": mean(entropies), "approx_kl": mean(kls),
                "clipfrac": mean(clips), "policy_steps": steps, "kl_stopped": stopped}

    def _value_epochs(self, batch: list[Transition], returns: list[float]) -> float:
        torch = self._torch
        cfg = self.config
        head = self.critic.value_head
        device = next(head.parameters()).device
        features = torch.stack([t.features for t in batch]).to(device)
        old = torch.tensor([t.value for t in batch], device=device)
        target = torch.tensor(returns, device=device)
        losses = []
        for _ in range(cfg.value_epochs or cfg.epochs):
            order = list(range(len(batch)))
            self.rng.shuffle(order)
            for first in range(0, len(order), cfg.value_batch):
                idx = torch.tensor(order[first:first + cfg.value_batch], device=device)
                new = head(features[idx]).squeeze(-1)
                unclipped = (new - target[idx]) ** 2
                if cfg.value_clip is not None:
                    clipped = old[idx] + torch.clamp(new - old[idx], -cfg.value_clip,
                                                     cfg.value_clip)
                    loss = 0.5 * torch.max(unclipped, (clipped - target[idx]) ** 2).mean()
                else:
                    loss = 0.5 * unclipped.mean()
                self.value_optimizer.zero_grad(set_to_none=True)
                (cfg.vf_coef * loss).backward()
                torch.nn.utils.clip_grad_norm_(head.parameters(), cfg.max_grad_norm)
                self.value_optimizer.step()
                losses.append(float(loss.detach()))
        return sum(losses) / len(losses)
