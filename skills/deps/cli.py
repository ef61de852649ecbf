"""DEPS as an agent of :mod:`pddlkit.agents` (entry point ``deps``): ``pddlkit run deps``,
``pddlkit bench`` cells and ``run_job`` all go through :data:`DEPS`.

    pddlkit run deps --env craft --task iron_pickaxe
    pddlkit run deps --env craft --task MT6 --replan-rounds 3 --explainer llm
    pddlkit run deps --env craft --task diamond --llm openai:gpt-4o --check-plan
    pddlkit run deps --env crafter --task iron_pickaxe --episodes 5 --hostile

``--task`` (an environment option) takes an object (``stone_pickaxe``) or a group (``MT1`` ..
``MT8``); without it all 69 tasks run; on Crafter it is the target item (default
stone_pickaxe), in peaceful mode unless ``--hostile``. ``--llm standin:deps[:rate]`` (the
default, ``standin``) is the offline planner with recipe mistakes at that rate
(``standin:deps:off[:rate]``: mistakes off the explainer's templates, see the stand-in module).

An episode plays every chosen task once with the episode's seed; its row's trials are the
tasks, ``success_rate`` the share won and ``won`` whether all were; the per-group rates,
re-plans, failures and explanations are columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from pddlkit.agents import AgentError, AgentSpec, option
from pddlkit.agents.helps import Help, helps_column, helps_on, helps_summary, options_with_helps
from pddlkit.agents.standins import knows

from .standin import STAND_INS

from .worlds import ENVS


def _rounds(text: str):
    """``--replan-rounds``: a whole number of re-plans, 0 or more, or inf (no limit); a
    ValueError says so (argparse shows it as the flag's error)."""
    if str(text).strip().lower() in ("inf", "none", "unlimited"):
        return None
    try:
        value = int(str(text).strip())
    except ValueError:
        value = -1
    if value < 0:
        raise ValueError(f"re-plans must be a whole number, 0 or more, or inf (e.g. 3); got "
                         f"{text!r}")
    return value


@dataclass
class _LoopOptions:
    """The options of the paper's loop; the helps beyond it come from :data:`DEPS_HELPS`."""

    replan_rounds: Optional[int] = option(None, "re-plans at most (Table 4: 0, 1, 3, 5, inf; "
                                                "default inf)", parse=_rounds, metavar="N|inf",
                                          aliases=("rounds",), minimum=0)
    explainer: str = option("symbolic", "the world model's explanation, or Listing 1 sent to "
                                        "the LLM", choices=("symbolic", "llm"))
    selector: str = option("order", "how order-free goals are chosen (default: plan order)",
                           choices=("exact", "learned", "order", "random"))
    max_actions: int = option(200, "recipe applications per episode (craft)", minimum=1)
    hostile: bool = option(False, "Crafter with zombies and skeletons (default: peaceful)")


#: DEPS's helps beyond the paper's loop, one line each (:mod:`pddlkit.agents.helps`): their
#: options, the rows' helps column and summary come from here
DEPS_HELPS: tuple[Help, ...] = (
    Help("check_plan", "check each plan on the world model before acting"),
    Help("complete_plan", "complete each plan with the world model before it runs: the goals "
                          "a plan lacks are planned and inserted, marked as the world model's; "
                          "unknown items and unreachable goals are left out, saying why (craft, "
                          "crafter)"),
    Help("constrained", "decode plans under the goal-plan grammar (mine / craft / smelt lines "
                        "over the world's items), where the LLM's server takes grammars"),
)
#: ``pddlkit run deps``'s options: the paper's loop's, then one per help of :data:`DEPS_HELPS`
DepsOptions = options_with_helps("DepsOptions", _LoopOptions, DEPS_HELPS, __name__)


def stand_in(llm: Optional[str]) -> Optional[str]:
    """What the stand-in planner knows, for row labels and summaries; None for an LLM."""
    return knows(llm, STAND_INS, "deps")


def _task(env_options: dict) -> Optional[str]:
    """The task the environment options name: ``task``, else Crafter's ``target`` (DEPS sets
    the target from the task); both is an AgentError."""
    task, target = env_options.get("task"), env_options.get("target")
    if task and target:
        raise AgentError(f"--task {task} and --target {target}: DEPS sets Crafter's target "
                         f"from --task; give one of them")
    return task or target


def check_env(env: str, env_options: dict) -> None:
    """A cell's task, checked by the run's own check (:func:`.runner.chosen_tasks`), so a
    sweep refuses ``task = "stone_pickax"`` before its first episode with the line ``pddlkit
    run deps --task stone_pickax`` gives."""
    from .runner import chosen_tasks

    task = _task(env_options)
    if task:
        chosen_tasks(env, [str(task)])


def play(job):
    from .loop import DepsConfig
    from .runner import run_deps

    o = job.options
    task = _task(job.env_options)
    crafter = {}
    if job.env == "crafter" and job.env_options.get("peaceful") is None:
        crafter["peaceful"] = not o.hostile
    llm = job.make_llm() or "standin"   # after the checks: loading may start a server
    for seed in job.seeds:
        episode = job.episode(seed)

        def show(e):
            last = e.failures[-1].explanation if e.failures and not e.won else ""
            for done in e.completions:   # the world model's steps, live and in the record
                episode.emit("completed", task=e.task, **done)
            episode.emit("task", group=e.group, task=e.task, won=e.won, rounds=e.rounds,
                         actions=e.actions, explanation=last)

        config = DepsConfig(max_rounds=o.replan_rounds, selector=o.selector,
                            check_plan=o.check_plan, seed=seed, constrained=o.constrained,
                            complete_plan=o.complete_plan)
        outcome = run_deps([task] if task else None, llm, env=job.env,
                           env_options=crafter if job.env == "crafter" else None,
                           seed=seed, config=config, explainer=o.explainer,
                           max_actions=o.max_actions, on_episode=show, ledger=job.ledger,
                           make_env=job.make_env)
        metrics = outcome.metrics()
        n = metrics.pop("episodes")
        metrics.pop("success")
        groups = "  ".join(f"{g} {100 * r:.1f}" for g, r in metrics["by_group"].items())
        summary = (f"{groups}; {metrics['rounds']:.2f} re-plans per task; "
                   f"{metrics['failures']} failures, {metrics['explained']} explanations naming "
                   f"the false precondition")
        if o.complete_plan:
            summary += (f"; the world model inserted {metrics['goals_inserted']} goals and "
                        f"left out {metrics['goals_refused']}")
        used = helps_on(DEPS_HELPS, o)
        summary += helps_summary(used)
        source = world_model_source(job.env, o.check_plan or o.complete_plan)
        summary += f"; world model: {source}"
        yield episode.row(all(e.won for e in outcome.episodes) and n > 0, outcome.rate(),
                          max(1, n), summary, helps=helps_column(used),
                          domain_source=source, **metrics)


def world_model_source(env: str, used: bool) -> str:
    """Where the world model that checks or completes plans came from (issue 73), named as
    PDDLego+'s rows name their domain: ``reference (...)`` for pddlkit's hand-written tables of
    the world's recipes; ``none`` when no help reads it (the LLM's plans run as written)."""
    if not used:
        return "none"
    return ("reference (the crafting world's recipes, domains/craft/recipes.json, by hand)"
            if env == "craft" else "reference (Crafter's own data.yaml, read as recipes by "
                                   "pddlkit.envs.crafter_world)")


def describe(kind: str, data: dict) -> Optional[str]:
    if kind == "completed":
        said = [f"inserted {', '.join(i['goal'] for i in data['inserted'])}"] \
            if data["inserted"] else []
        said += [f"left out {r['goal']} ({r['why']})" for r in data["refused"]]
        return f"{data['task']} round {data['round']}: the world model " + "; ".join(said)
    if kind == "task":
        return (f"{data['group']} {data['task']}: {'won' if data['won'] else 'lost'} after "
                f"{data['rounds']} re-plans, {data['actions']} actions"
                + (f"; {data['explanation']}" if data["explanation"] else ""))
    return None


DEPS = AgentSpec(
    "deps", "DEPS: describe, explain, plan, select over a crafting world's skills",
    DepsOptions, play, stand_in=stand_in, envs=ENVS, default_env="craft", describe=describe,
    step_budget="max_actions", stand_ins=STAND_INS, check_env=check_env,
    env_options={"task": "craft: an item or a group MT1..MT8; crafter: an item (its target)"})
