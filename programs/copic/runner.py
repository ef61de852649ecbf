"""One CoPiC run on a named environment, shared by ``pddlkit run copic``, the ``copic``
bench agent and ``benchmarks/copic.py``.

Environments: ``sc2-build`` (``difficulty`` easy, medium or hard), ``household`` (``difficulty``
a task type, ``receptacles``), ``alfworld`` (``task``: pick, look, clean, heat, cool,
pick_two) and ``nethack-drink``, ``nethack-open-box``, ``nethack-exp-level-3``.

Protocol (seed 000, Appendix D): learn on training seeds ``seed, seed+1, ...`` (rounds of N
episodes, evolving below the threshold), then freeze programs and critic and evaluate on
held-out seeds with no LLM call and no critic update. The seeds come from
:class:`pddlkit.envs.instance_sets.SeedSplit`: held-out from ``1000 + seed``, or right after the
last training seed when learning takes more, so they never overlap (NetHack's held-out games
used to start at index 50 while learning played 0..119). Learning's seeds are cycled when a
run takes more episodes than its rounds (mixed task types count rounds per type), within the
training range.

LLM specs: any pddlkit spec (``openai:gpt-4o-mini``, ``hf:...``, ``replay:...``), or
``standin`` / ``standin:copic:A,B;;C`` for the offline writer (:mod:`.standin`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from pddlkit.llm.usage import is_decision, split_usage

from .loop import Copic, CopicConfig, CopicEpisode, success_rate
from .worlds import env_ids, kind_of, with_world_model

ENV_IDS = env_ids()


def seed_split(seed: int, config: CopicConfig, evaluate: int):
    """The run's training and held-out seeds (disjoint by construction)."""
    from pddlkit.envs.instance_sets import SeedSplit

    rounds = config.episodes_per_round * (config.max_rounds + 1) \
        if config.max_rounds >= 0 and config.episodes_per_round > 0 else 0
    return SeedSplit(seed, rounds, evaluate)


def make_world(env_id: str, options: Optional[dict] = None,
               make_env: Optional[Callable[..., Any]] = None, world_model: bool = False,
               derived_tree: bool = False):
    """The :class:`~.world.ProgramWorld` of ``env_id`` with its options, built by its kind
    (:mod:`.worlds`). Every environment is made by the registry (``make(env_id,
    **options)``), or by ``make_env`` (a job's :meth:`~pddlkit.agents.Job.make_env`, which
    carries the environment's flags), and wrapped in CoPiC's view of it; CoPiC's own
    settings (``budget``, ``max_keys``, ``nethack_seeds``) are taken out first and given
    where they belong (the household's and ALFWorld's step limit is the budget)."""
    kind = kind_of(env_id)
    if world_model and not kind.world_model:
        raise ValueError(f"plan(goal) in the program API (world_model) needs a world model "
                         f"({with_world_model()} have one); {env_id} has none")
    if derived_tree and not kind.derived_tree:
        raise ValueError(f"the derived tech tree is SC2's (its example program's tech_tree); "
                         f"{env_id} has none")
    if make_env is None:
        from pddlkit.envs import make

        make_env = lambda **given: make(env_id, **given)  # noqa: E731
    return kind.build(env_id, {**dict(kind.defaults), **(options or {})}, make_env,
                      world_model, derived_tree)


def make_llm(spec: Any, kind: str, ledger: Any = None):
    """(the LLM, the stand-in writer or None). A spec is loaded, and a stand-in made, with a
    ledger of the run's own (its counts, LLM and critic, per task type, are this run's) whose
    parent is ``ledger`` (the job's: every call counts there too, :mod:`pddlkit.llm.usage`).
    An LLM object comes back as it is (a job's, loaded by ``Job.make_llm(own_ledger=True)``)."""
    from pddlkit.agents.standins import parse_stand_in
    from pddlkit.llm import UsageLedger

    from .standin import STAND_INS, program_sets

    stand_in = parse_stand_in(spec, STAND_INS, "copic")   # a StandInError names a bad mistake
    if stand_in is not None:
        from .standin import CopicWriter

        writer = CopicWriter(kind, program_sets(stand_in[1]))
        return writer.llm(UsageLedger(parent=ledger)), writer
    if isinstance(spec, str):
        from pddlkit.llm import load_llm

        return load_llm(spec, ledger=UsageLedger(parent=ledger)), None
    return spec, None


@dataclass
class CopicOutcome:
    env: str
    copic: Copic
    evaluation: list[CopicEpisode]
    seconds: float
    writer: Any = None
    usage: dict = field(default_factory=dict)

    @property
    def train_rate(self) -> float:
        return success_rate(self.copic.episodes)

    @property
    def eval_rate(self) -> float:
        return success_rate(self.evaluation)

    def costs(self) -> dict:
        """Tokens and dollars per task type: the LLM's (learning only) and the critic's."""
        out: dict[str, dict] = {}
        ledger = self.copic.ledger
        if ledger is None:
            return out
        llm_models = [m for m in ledger.models if not is_decision(m)]
        for task_type, usage in ledger.episodes.items():
            out[task_type] = {"tokens": usage.prompt_tokens + usage.completion_tokens,
                              "cost_usd": usage.cost_usd}
        out["llm_calls"] = sum(ledger.models[m].calls for m in llm_models)
        out["llm_tokens"] = sum(ledger.models[m].prompt_tokens + ledger.models[m].completion_tokens
                                for m in llm_models)
        out["critic_tokens"] = sum(u.prompt_tokens + u.completion_tokens
                                   for m, u in ledger.models.items() if is_decision(m))
        return out

    def metrics(self) -> dict:
        """A row for ``pddlkit bench``: the harness's counts plus CoPiC's own figures."""
        ev = self.evaluation
        costs = self.costs()
        # LLM calls and critic decisions apart (pddlkit.llm.usage's one definition): the
        # row's calls, tokens and dollars are the LLM's; the critic's are its own columns
        calls, decisions = split_usage(self.copic.ledger)
        return {"success": self.eval_rate, "steps": sum(e.steps for e in ev) / max(1, len(ev)),
                "actions": sum(e.steps for e in ev),
                "llm_calls": calls.calls,
                "prompt_tokens": calls.prompt_tokens,
                "completion_tokens": calls.completion_tokens,
                "cost_usd": calls.cost_usd,
                "critic_decisions": decisions.calls,
                "llm_tokens": costs.get("llm_tokens", 0),
                "critic_tokens": costs.get("critic_tokens", 0),
                "train_success": self.train_rate, "eval_success": self.eval_rate,
                "rounds": len(self.copic.rounds),
                "evolutions": sum(r.evolved for r in self.copic.rounds),
                "ppo_updates": len(self.copic.updates),
                "avoided_failures": sum(e.avoided for e in self.copic.episodes + ev),
                "program_errors": sum(e.program_errors for e in self.copic.episodes + ev),
                # answers that held no usable program (or LLM failures), told to the LLM
                "answers_without_program": len(self.copic.generation_failures),
                "repaired": list(self.writer.repaired) if self.writer else [],
                "seconds": self.seconds}


def run_copic(env_id: str, llm: Any = "standin", *, env_options: Optional[dict] = None,
              config: Optional[CopicConfig] = None, critic_model: str = "auto",
              critic_device: str = "auto", ppo: Optional[dict] = None, seed: int = 0,
              evaluate: int = 10, critic: Any = None, load_critic: Optional[str] = None,
              save_critic: Optional[str] = None,
              on_episode: Optional[Callable[[CopicEpisode], None]] = None,
              make_env: Optional[Callable[..., Any]] = None,
              world_model: bool = False, derived_tree: bool = False,
              ledger: Any = None) -> CopicOutcome:
    """Learn on training seeds, then evaluate frozen on ``evaluate`` held-out seeds.
    ``make_env``: how the environment is made (see :func:`make_world`); ``ledger``: the
    job's, where the run's calls count too (see :func:`make_llm`)."""
    config = config or CopicConfig(seed=seed)
    world = make_world(env_id, env_options, make_env, world_model=world_model,
                       derived_tree=derived_tree)
    model, writer = make_llm(llm, world.kind, ledger)
    trainer_config = None
    if config.critic != "uniform" and critic is None:
        from pddlkit import critic as critic_pkg

        if load_critic:   # on --critic-model when given: a base moved to another folder
            critic = critic_pkg.Critic.load(load_critic, device=critic_device,
                                            model=None if critic_model == "auto" else
                                            critic_model)
        else:
            critic = critic_pkg.load(critic_model, device=critic_device, template="copic",
                                     seed=seed)
    if config.critic == "ppo":
        from pddlkit.critic.ppo import PPOConfig

        trainer_config = PPOConfig(**(ppo or {}))
    start = time.perf_counter()
    copic = Copic(world, model, critic, config, ppo=trainer_config)
    seeds = seed_split(seed, config, evaluate)
    try:
        if seeds.train:
            copic.learn(seeds.train, on_episode=on_episode)
        evaluation = copic.evaluate(seeds.held_out)
        if save_critic and copic.critic is not None:
            copic.critic.save(save_critic)
    finally:
        copic.close()
    return CopicOutcome(env_id, copic, evaluation, time.perf_counter() - start, writer)
