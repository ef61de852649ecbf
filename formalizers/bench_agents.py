"""The PDDLego+ loop and PlanGen as benchmark agents (entry points of ``pddlkit.agents``).

Each takes a cell (a dict: ``env``, ``env_options``, ``llm``, ``seed``, ``rng_seed``,
``options``, ``record``) and returns the episode's metrics. Cell options:

* ``retries`` (both retry limits), or ``solver_retries`` / ``simulation_retries``: 5 in the
  paper; 0 and 0 give the paper's PDDLego baseline (no refine loops);
* ``budget`` (environment actions, 50), ``planner`` (a planner name, "fast-downward"),
  ``planner_timeout`` (seconds);
* ``goal_style`` ("detailed" or "simple"), ``prompts`` (a folder), ``temperature``;
* ``repair``, ``fact_memory`` (the options beyond the paper).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Optional

from pddlkit.envs import make

from .api import make_formalizer
from .loop import Limits, run_episode

LLM_OPTIONS = ("goal_style", "prompts", "temperature")


def _limits(options: dict) -> Limits:
    retries = options.get("retries", 5)
    return Limits(max_solver_retries=options.get("solver_retries", retries),
                  max_simulation_retries=options.get("simulation_retries", retries),
                  action_budget=options.get("budget", 50),
                  planner_timeout=options.get("planner_timeout", 30.0))


def _offline(llm: str) -> bool:
    return llm in ("", "observation") or llm.startswith("noisy")


def stand_in(llm: str) -> Optional[str]:
    """What a stand-in formalizer knows, for row labels and summaries; None for a real LLM."""
    return {"": "stand-in (PDDL from the environment's own observations)",
            "observation": "stand-in (PDDL from the environment's own observations)",
            "noisy": "stand-in (observation PDDL with injected slips)"}.get(
        (llm or "").split(":")[0])


def pddlego(cell: dict) -> dict:
    options = cell.get("options") or {}
    env = make(cell["env"], **cell.get("env_options", {}))
    llm = cell.get("llm") or "observation"
    extra = {} if _offline(llm) else {k: options[k] for k in LLM_OPTIONS if k in options}
    formalizer = make_formalizer(llm, env.id, **extra)
    if hasattr(formalizer, "rng"):
        formalizer.rng.seed(cell["rng_seed"])
    result = run_episode(env, formalizer, seed=cell["seed"],
                         planner=options.get("planner", "fast-downward"),
                         limits=_limits(options), record=cell.get("record"),
                         repair=bool(options.get("repair")),
                         fact_memory=bool(options.get("fact_memory")))
    return {**asdict(result.metrics), "stand_in": stand_in(llm)}


def plangen(cell: dict) -> dict:
    from .plangen import PlanGenAgent, run_plangen

    options = cell.get("options") or {}
    if _offline(cell.get("llm") or ""):
        raise ValueError("the plangen agent needs an LLM spec (openai:..., hf:..., replay:..., "
                         "scripted:...)")
    env = make(cell["env"], **cell.get("env_options", {}))
    agent = PlanGenAgent(cell["llm"], env.id, prompts=options.get("prompts"),
                         temperature=options.get("temperature", 0.0))
    result = run_plangen(env, agent, seed=cell["seed"], limits=_limits(options),
                         record=cell.get("record"))
    return asdict(result.metrics)
