"""Run DEPS on the crafting world's tasks: ``run_deps(tasks=["MT2"], llm="standin")``.

``llm``: ``"standin"`` or ``"standin:deps[:off][:<error rate>]"`` (a fresh
:class:`~.standin.StandinDeps` per episode, its recipe mistakes drawn from the episode's seed
and the task), or any LLM spec (``openai:gpt-4o-mini``, ``hf:gemma-3-270m``,
``replay:run.jsonl``) or LLM object. The
explainer is ``"symbolic"`` (the world model's) or ``"llm"`` (Listing 1 sent to the same LLM).
Token and dollar costs go to one ledger, per episode (named ``<task>#<seed>``).
"""

from __future__ import annotations

import difflib
import time
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from pddlkit.agents.standins import parse_stand_in
from pddlkit.llm.usage import usage_since, usage_snapshot
from pddlkit.envs.craft import DEFAULT_MAX_ACTIONS, task as find_task, tasks

from .worlds import ENVS

from .explain import LLMExplainer, SymbolicExplainer
from .loop import Deps, DepsConfig, DepsEpisode
from .standin import MISTAKES, OFF_TEMPLATE, STAND_INS, StandinDeps

EXPLAINERS = ("symbolic", "llm")


def select_tasks(names: Optional[Sequence[str]] = None) -> list:
    """Tasks by object name or group (``MT1`` .. ``MT8``); all 69 when empty."""
    if not names:
        return list(tasks())
    out = []
    groups = {t.group for t in tasks()}
    for name in names:
        if name.upper() in groups:
            out += [t for t in tasks() if t.group == name.upper()]
        else:
            out.append(find_task(name))   # ValueError naming the closest object
    return out


@dataclass
class DepsOutcome:
    episodes: list[DepsEpisode] = field(default_factory=list)
    seconds: float = 0.0
    ledger: Any = None
    #: the ledger's run totals when this run began (a shared ledger holds earlier runs too)
    before: Optional[dict] = None

    def rate(self, group: Optional[str] = None) -> float:
        eps = [e for e in self.episodes if group is None or e.group == group]
        return sum(e.won for e in eps) / len(eps) if eps else 0.0

    def by_group(self) -> dict[str, float]:
        return {g: self.rate(g) for g in sorted({e.group for e in self.episodes})}

    def metrics(self) -> dict:
        eps = self.episodes
        failures = [f for e in eps for f in e.failures if f.code not in ("unreadable",)]
        # this run's usage only, the one scope (pddlkit.llm.usage.usage_since)
        usage = usage_since(self.ledger, self.before) if self.ledger is not None else None
        return {"success": self.rate(), "by_group": self.by_group(), "episodes": len(eps),
                "rounds": sum(e.rounds for e in eps) / max(1, len(eps)),
                "actions": sum(e.actions for e in eps),
                "steps": sum(e.actions for e in eps) / max(1, len(eps)),
                "failures": len(failures),
                "explained": sum(f.named for f in failures),
                "checked": sum(f.checked for f in failures),
                # complete_plan: goals the world model inserted, and goals it refused
                "goals_inserted": sum(e.goals_inserted for e in eps),
                "goals_refused": sum(e.goals_refused for e in eps),
                # planner answers (the first plan and each re-plan) and those with goal lines
                # that could not be read: what a real model's answers look like
                "plans": sum(e.rounds + 1 for e in eps),
                "unreadable": sum(f.code == "unreadable" for e in eps for f in e.failures),
                "llm_calls": usage.calls if usage else 0,
                "llm_tokens": usage.total_tokens if usage else 0,
                "cost_usd": usage.cost_usd if usage else 0.0,
                "seconds": self.seconds}


CRAFTER_TARGETS = ("wood_pickaxe", "stone_pickaxe", "iron_pickaxe", "wood_sword", "stone_sword",
                   "iron_sword", "diamond", "table", "furnace", "coal", "iron", "stone")


def _crafter_targets(names: Optional[Sequence[str]]) -> list:
    from pddlkit.envs.craft import CraftTask

    out = []
    for name in names or ["stone_pickaxe"]:
        if name not in CRAFTER_TARGETS:
            close = difflib.get_close_matches(str(name), CRAFTER_TARGETS, n=1, cutoff=0.6)
            raise ValueError(f"Crafter has no task {name!r}"
                             + (f" (did you mean {close[0]!r}?)" if close else "")
                             + f"; use one of {', '.join(CRAFTER_TARGETS)}")
        out.append(CraftTask("crafter", name, 10000))
    return out


def chosen_tasks(env: str, names: Optional[Sequence[str]] = None) -> list:
    """The tasks a DEPS run on ``env`` plays for ``names`` (craft: objects or groups MT1-MT8,
    all 69 when empty; crafter: target items, stone_pickaxe when empty). A ValueError names a
    misspelt one with the closest name: the one check, made by :func:`run_deps` before its
    first episode and by a sweep (through ``DEPS.check_env``) before its first cell."""
    if env not in ENVS:
        raise ValueError(f"DEPS runs on {', '.join(ENVS)}, not {env!r}")
    return select_tasks(names) if env == "craft" else _crafter_targets(names)


def _world(env: str, item: str, env_options: dict, max_actions: int,
           make_env: Optional[Callable[..., Any]] = None):
    """The world of one task, made by the registry (``make(env, ...)``) or by ``make_env``
    (a job's, which carries the environment's flags): craft with the task's item and the
    action budget, Crafter with the item as its target."""
    if make_env is None:
        from pddlkit.envs import make

        make_env = lambda **given: make(env, **given)  # noqa: E731
    if env == "craft":
        return make_env(task=item, max_actions=max_actions)
    return make_env(**{**env_options, "target": item})


def run_deps(tasks_or_groups: Optional[Sequence[str]] = None, llm: Any = "standin", *,
             env: str = "craft", env_options: Optional[dict] = None,
             episodes: int = 1, seed: int = 0, config: Optional[DepsConfig] = None,
             explainer: str = "symbolic", max_actions: int = DEFAULT_MAX_ACTIONS,
             on_episode: Optional[Callable[[DepsEpisode], None]] = None,
             ledger: Any = None, make_env: Optional[Callable[..., Any]] = None) -> DepsOutcome:
    """DEPS on ``env`` ("craft": tasks or groups MT1-MT8; "crafter": target items, default
    stone_pickaxe, ``env_options`` such as ``peaceful=False``), ``episodes`` seeds per task;
    usage goes to ``ledger`` (default: a fresh one)."""
    from pddlkit.llm import UsageLedger, load_llm

    if explainer not in EXPLAINERS:
        raise ValueError(f"explainer must be one of {', '.join(EXPLAINERS)}, got {explainer!r}")
    chosen = chosen_tasks(env, tasks_or_groups)
    table = None
    if env == "crafter":
        from pddlkit.envs.crafter_world import recipes as crafter_recipes

        table = crafter_recipes()
    config = config or DepsConfig()
    ledger = ledger if ledger is not None else UsageLedger()
    standin_rate = None
    standin_mistakes = MISTAKES
    stand_in = parse_stand_in(llm, STAND_INS, "deps")   # StandInError (a ValueError) for a bad rate
    if stand_in is not None:
        kind, standin_rate = stand_in
        if kind == "standin-off":
            standin_mistakes = OFF_TEMPLATE
        shared = None
    else:
        shared = load_llm(llm, ledger=ledger) if isinstance(llm, str) else llm
        ledger = getattr(shared, "ledger", ledger)
    outcome = DepsOutcome(ledger=ledger, before=usage_snapshot(ledger))
    start = time.monotonic()
    for t in chosen:
        for k in range(episodes):
            s = seed + k
            model = shared or StandinDeps(seed=s * 1009 + zlib.crc32(t.item.encode()) % 1000,
                                          error_rate=standin_rate, table=table,
                                          mistakes=standin_mistakes).llm(ledger)
            explain = SymbolicExplainer() if explainer == "symbolic" else LLMExplainer(model)
            deps = Deps(model, explain, DepsConfig(**{**config.__dict__, "seed": s}))
            with ledger.episode(f"{t.item}#{s}"):
                episode = deps.run(_world(env, t.item, env_options or {}, max_actions, make_env),
                                   seed=s)
            outcome.episodes.append(episode)
            if on_episode:
                on_episode(episode)
    outcome.seconds = time.monotonic() - start
    return outcome
