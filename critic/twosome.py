"""A TWOSOME-style agent for any pddlkit text environment with admissible commands.

At each step the critic scores every admissible command given the rendered prompt (task,
observation, the last few steps, the candidates) and samples one from its policy; the
environment's reward trains it with PPO every ``steps_per_update`` steps (Tan et al. 2024,
"True Knowledge Comes from Practice"). Evaluation plays greedily (``sample=False``) with the
adapters frozen.

Choices written down here: the candidate list is the environment's admissible commands with
duplicates removed, in the environment's order; the history holds the last ``history`` steps as
"command -> observation" lines (1 by default: TWOSOME's prompts describe the present only, and
longer histories make every prompt new, which a small model learns from far more slowly: on the
8-receptacle household with the toy model, three steps of history kept the training success at
0.04-0.16 over 150 episodes, where one step learned); an episode cut by its step budget counts
as ended for GAE (see
:mod:`pddlkit.critic.ppo`); the reward is the environment's own (1 on a win for the PDDL worlds)
minus ``step_penalty`` per step (0 by default).

Sparse rewards: a PDDL world (an environment with ``world`` and ``state``, as every
:class:`~pddlkit.envs.pddl_world.PDDLWorldEnv` has) can shape the reward with its own model:
``shaping=c`` adds ``c * (gamma * phi(s') - phi(s))`` with ``phi = -h_add`` (the relaxed number
of actions left, :mod:`pddlkit.semantics.heuristic`; 0 once won). Shaping of this form leaves
the optimal policies unchanged (Ng et al. 1999) and turns "won or not" into a signal at every
step; the reported episode reward stays the environment's own.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

from .model import Critic
from .ppo import PPOConfig, PPOTrainer, Transition, UpdateStats


@dataclass
class TwosomeEpisode:
    """One TWOSOME episode: what the critic chose (``commands``) and how it went (named apart
    from PDDLego+'s ``EpisodeResult``: a different record)."""

    seed: Optional[int]
    won: bool
    steps: int
    reward: float
    commands: list[str] = field(default_factory=list)


@dataclass
class TrainingLog:
    episodes: list[TwosomeEpisode] = field(default_factory=list)
    updates: list[UpdateStats] = field(default_factory=list)

    def success_rate(self, first: int = 0, last: Optional[int] = None) -> float:
        chosen = self.episodes[first:last]
        return sum(e.won for e in chosen) / len(chosen) if chosen else 0.0

    def write(self, path) -> None:
        """One JSON line per episode and per update, in the order they happened."""
        with open(path, "w") as out:
            for e in self.episodes:
                out.write(json.dumps({"kind": "episode", **asdict(e)}) + "\n")
            for u in self.updates:
                out.write(json.dumps({"kind": "update", **u.as_dict()}) + "\n")


class TwosomeAgent:
    """``TwosomeAgent(critic, PPOConfig(policy_lr=1e-4))``; ``agent.train(make_env, 50)``."""

    def __init__(self, critic: Critic, config: Optional[PPOConfig] = None, *, history: int = 1,
                 step_penalty: float = 0.0, shaping: float = 0.0, seed: int = 0,
                 ledger=None) -> None:
        import torch

        #: the policy is an LLM: each decision is counted in ``ledger`` (when given) as one
        #: call of model ``policy:<name>``, the prompt's tokens in and the candidates' out
        self.ledger = ledger
        self.critic = critic
        self.trainer = PPOTrainer(critic, config)
        self.history = history
        self.step_penalty = step_penalty
        self.shaping = shaping
        self._distance = None  # (world, RelaxedDistance) of the current episode
        self.generator = torch.Generator().manual_seed(seed)
        self.log = TrainingLog()

    def prompt(self, env, observation: str, candidates: Sequence[str],
               past: Sequence[tuple[str, str]]) -> str:
        lines = [f"{cmd} -> {' '.join(obs.split())}" for cmd, obs in past[-self.history:]] \
            if self.history else []
        return self.critic.template.render(task=env.task, observation=observation,
                                           history=lines, candidates=candidates)

    def potential(self, env) -> float:
        """-h_add of the environment's true state (0 when won); see the module docstring."""
        from pddlkit.semantics.heuristic import RelaxedDistance

        world, state = getattr(env, "world", None), getattr(env, "state", None)
        if world is None or state is None:
            raise TypeError(f"reward shaping needs a PDDL world (an environment with world and "
                            f"state); {type(env).__name__} has none: use shaping=0")
        if self._distance is None or self._distance[0] is not world:
            self._distance = (world, RelaxedDistance(world))
        h = self._distance[1](state)
        return -min(h, 100.0)  # an unreachable goal: a large finite distance

    def play(self, env, seed: Optional[int] = None, budget: int = 50, *,
             learn: bool = True, sample: Optional[bool] = None) -> TwosomeEpisode:
        """One episode; ``learn`` adds its steps to the PPO buffer and updates every K steps;
        ``sample`` defaults to ``learn`` (greedy when evaluating)."""
        sample = learn if sample is None else sample
        observation, _ = env.reset(seed=seed)
        past: list[tuple[str, str]] = []
        total, won, steps = 0.0, False, 0
        shaped = learn and self.shaping > 0
        phi = self.potential(env) if shaped else 0.0
        gamma = self.trainer.config.gamma
        for steps in range(1, budget + 1):
            candidates = list(dict.fromkeys(env.admissible_commands()))
            if not candidates:
                break
            prompt = self.prompt(env, observation, candidates, past)
            if learn and self.trainer.ready:  # bootstrap from the state the buffer stopped in
                self._update(self.critic.value(prompt))
            decision = self.critic.act(prompt, candidates, sample=sample,
                                       generator=self.generator)
            self._count(prompt, candidates)
            command = candidates[decision.index]
            outcome = env.step(command)
            reward = float(outcome.reward) - self.step_penalty
            done = outcome.terminated or outcome.truncated or steps == budget
            total += reward
            if shaped:
                after = 0.0 if outcome.won else self.potential(env)
                reward += self.shaping * (gamma * after - phi)
                phi = after
            won = outcome.won
            past.append((command, outcome.observation))
            observation = outcome.observation
            if learn:
                self.trainer.add(Transition(prompt, candidates, decision.index, decision.logprob,
                                            decision.value, reward, done, decision.features))
            if done:
                break
        if learn and self.trainer.ready:
            self._update(0.0)
        result = TwosomeEpisode(seed, won, steps, total, [c for c, _ in past])
        if learn:
            self.log.episodes.append(result)
        return result

    def _count(self, prompt: str, candidates: Sequence[str]) -> None:
        if self.ledger is None:
            return
        from pddlkit.llm.base import Completion

        tok = self.critic.tokenizer
        read = len(tok(prompt).input_ids)
        scored = sum(len(tok(" " + c, add_special_tokens=False).input_ids) for c in candidates)
        self.ledger.record(Completion("", read, scored,
                                      model=f"policy:{self.critic.model_name}"))

    def _update(self, next_value: float) -> None:
        self.log.updates.append(self.trainer.update(next_value))

    def train(self, make_env: Callable[[], object], episodes: int, *, budget: int = 50,
              seeds: Optional[Sequence[int]] = None,
              on_episode: Optional[Callable[[int, TwosomeEpisode], None]] = None) -> TrainingLog:
        """``episodes`` learning episodes on ``make_env()``, seeds cycling through ``seeds``
        (default: seed i for episode i)."""
        env = make_env()
        for i in range(episodes):
            seed = seeds[i % len(seeds)] if seeds else i
            result = self.play(env, seed, budget, learn=True)
            if on_episode:
                on_episode(i, result)
        return self.log

    def evaluate(self, make_env: Callable[[], object], seeds: Sequence[int], *,
                 budget: int = 50, sample: bool = False) -> list[TwosomeEpisode]:
        env = make_env()
        return [self.play(env, seed, budget, learn=False, sample=sample) for seed in seeds]

    def save(self, folder) -> Path:
        folder = Path(self.critic.save(folder))
        self.log.write(folder / "training.jsonl")
        return folder
