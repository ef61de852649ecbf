"""Training and evaluating the TWOSOME agent on a registered environment: what the command line
(``pddlkit run twosome``) and the benchmark harness (``agent = "twosome"``) share.

The run: evaluate the untrained critic on the evaluation seeds (sampling from its policy, as it
acts while learning; ``greedy=True`` takes the most probable command instead, which on a policy
still learning can repeat a loop until the budget runs out), train for ``episodes``
episodes (seeds ``seed, seed+1, ...``, or always ``seed`` with ``fixed_seed``), evaluate again
on the same seeds. Evaluation seeds follow the training ones (held out), or are ``seed`` with
``fixed_seed``. Model ``"auto"`` is TinyLlama (the paper's) where the local Hugging Face cache
has it, else Gemma 3 270M where its package is installed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from pddlkit.llm.usage import split_usage

from .errors import CriticError
from .twosome import TwosomeEpisode, TwosomeAgent


@dataclass
class TwosomeOutcome:
    env: str
    model: str
    before: list[TwosomeEpisode]
    after: list[TwosomeEpisode]
    agent: TwosomeAgent
    seconds: float
    saved: Optional[Path] = None

    @staticmethod
    def _rate(results: list[TwosomeEpisode]) -> float:
        return sum(r.won for r in results) / len(results) if results else 0.0

    @property
    def before_rate(self) -> float:
        return self._rate(self.before)

    @property
    def after_rate(self) -> float:
        return self._rate(self.after)

    def metrics(self) -> dict:
        log = self.agent.log
        n = len(log.episodes)
        last = log.updates[-1] if log.updates else None
        calls, decisions = split_usage(self.agent.ledger)
        return {"improved": self.after_rate > self.before_rate,
                "steps": sum(e.steps for e in log.episodes), "actions": 0,
                # the policy scores candidates, it generates nothing: its choices are critic
                # decisions, not LLM calls (pddlkit.llm.usage's one definition)
                "llm_calls": calls.calls, "prompt_tokens": calls.prompt_tokens,
                "completion_tokens": calls.completion_tokens, "cost_usd": calls.cost_usd,
                "critic_decisions": decisions.calls,
                "critic_tokens": decisions.prompt_tokens + decisions.completion_tokens,
                "model": self.model, "episodes": n, "updates": len(log.updates),
                "untrained_success": self.before_rate, "trained_success": self.after_rate,
                "train_success_first_half": log.success_rate(0, n // 2),
                "train_success_second_half": log.success_rate(n // 2),
                "explained_variance": last.explained_variance if last else None,
                "seconds": self.seconds}


def run_twosome(env_id: str, *, env_options: Optional[dict] = None, model: str = "auto",
                seed: int = 0, episodes: int = 50, evaluate: int = 10, budget: int = 50,
                fixed_seed: bool = False, ppo: Optional[dict] = None, shaping: float = 0.0,
                history: int = 1, device: str = "auto", load: Optional[str] = None,
                greedy: bool = False,
                save: Optional[str] = None, template: Optional[str] = None,
                on_episode: Optional[Callable[[int, TwosomeEpisode], None]] = None,
                make_env: Optional[Callable[[], Any]] = None,
                ledger: Any = None) -> TwosomeOutcome:
    """``make_env`` builds each environment (``pddlkit run`` gives its job's, so the
    environment's flags and ``--max-steps`` reach it); by default the registry's
    ``make(env_id, **env_options)``. ``ledger``: the job's, where the policy's decisions
    count too (a row's usage reads it; see :mod:`pddlkit.llm.usage`)."""
    from pddlkit.envs import make

    from . import model as critic_model
    from .ppo import PPOConfig

    start = time.monotonic()
    if make_env is None:
        make_env = lambda: make(env_id, **(env_options or {}))  # noqa: E731
    probe = make_env()
    if not callable(getattr(probe, "admissible_commands", None)):
        raise CriticError(f"environment {env_id!r} lists no admissible commands",
                          hint="the TWOSOME agent chooses among admissible commands; use a "
                               "text environment that lists them")
    if load:
        critic = critic_model.Critic.load(load, model=None if model == "auto" else model,
                                          device=device)  # auto: the model it was saved with
    else:
        critic = critic_model.load(model, device=device, template=template, seed=seed)
    from pddlkit.llm.usage import UsageLedger

    # the run's own ledger (its decisions are this run's figures) inside ``ledger`` (a job's:
    # every decision counts there too, pddlkit.llm.usage)
    agent = TwosomeAgent(critic, PPOConfig(seed=seed, **(ppo or {})), history=history,
                         shaping=shaping, seed=seed, ledger=UsageLedger(parent=ledger))
    from pddlkit.envs.instance_sets import SeedSplit

    split = SeedSplit(seed, episodes, evaluate, held_out_from=0)   # right after training
    eval_seeds = [seed] * evaluate if fixed_seed else list(split.held_out)
    before = agent.evaluate(make_env, eval_seeds, budget=budget, sample=not greedy)
    agent.train(make_env, episodes, budget=budget,
                seeds=[seed] if fixed_seed else list(range(seed, seed + episodes)),
                on_episode=on_episode)
    after = agent.evaluate(make_env, eval_seeds, budget=budget, sample=not greedy)
    saved = agent.save(save) if save else None
    return TwosomeOutcome(env_id, critic.model_name, before, after, agent,
                          time.monotonic() - start, saved)
