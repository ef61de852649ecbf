"""One pass of the PDDLego+ loop's inner loop: ask for the files, let code fix what it can,
plan, and map the plan to the environment's commands (:func:`attempt`); split from
:mod:`.loop` (issue 74: one job a file), which runs the passes, and used by
:func:`.api.formalize_and_plan` for its one step.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, Optional, Sequence

from pddlkit.planners import PlanStatus

from .answer import AnswerError, Files
from .base import (Context, GuardsItsPlans, KeepsOneValue, Memory, ShortensItsPlans,
                   TriesCommands)


@dataclass
class Attempt:
    """One pass of the inner loop: the files written (None if the answer was unreadable), the
    plan as commands, or the solver-level error to feed back."""

    files: Optional[Files]
    commands: Optional[list[str]]
    plan: Any
    error: Optional[str]
    planner_seconds: float = 0.0
    #: what code's passes changed in the files before planning (:mod:`.passes`): (the pass,
    #: its lines), in the order they ran
    edits: list = field(default_factory=list)
    repeated: bool = False  # identical to files already refused: not planned
    #: the planner ran out of time (or memory): no verdict on the files, so not "refused"
    unfinished: bool = False


def answer_key(files: Files) -> tuple[str, str]:
    """Two answers are the same when their files differ only in whitespace and case."""
    def norm(text: str) -> str:
        return " ".join(text.replace("(", " ( ").replace(")", " ) ").split()).lower()
    return norm(files.domain), norm(files.problem)


def observed_text(memory: Memory, pairs=()) -> str:
    """Every observation of the episode so far (and of ``pairs``, (command, observation)) as
    one text: what fact memory holds a placeholder's name against (:mod:`.helps.fact_memory`).
    Failed commands' messages are left out: the loop adds the model's own terms to them
    (the facts ``refuted_facts`` refuted), which would make a placeholder look seen."""
    return "\n".join(str(obs) for _, obs in [*memory.history, *pairs])


def repeated_message(why: Optional[str]) -> str:
    """What a model is told when its answer is one already refused: the refusal in full (a
    planner's heading alone, "fast-downward: error ...", would drop the diagnostics that say
    what to change)."""
    why = (why or "").strip() or "it did not work"
    return ("Your answer is the same as one you gave before, which was refused. It was not "
            f"tried again. Why it was refused:\n{why}\nWrite different files that fix that "
            "problem.")


def attempt(formalizer, context: Context, env, planner: Any, timeout: float,
            domain: Optional[str] = None, *, passes: Sequence[Any] = (),
            refused: Optional[dict] = None) -> Attempt:
    """Ask for the files (``domain`` frozen if given), let code's ``passes`` edit them (the
    helps' hooks, :mod:`.passes`), then plan and map the plan to commands, unless the files
    are ones already ``refused`` (files -> why)."""
    import pddlkit

    from .passes import run_passes

    try:
        files = formalizer.propose(context)
    except AnswerError as exc:
        return Attempt(None, None, None, f"Your answer could not be read: {exc.problem}")
    if domain is not None:
        files = Files(domain, files.problem)
    if isinstance(formalizer, KeepsOneValue):   # what the passes must not add a value to
        context = replace(context, one_value=frozenset(formalizer.one_value()))
    files, edits = run_passes(passes, files, context)
    probe = formalizer.probe() if isinstance(formalizer, TriesCommands) else None
    if probe is not None:   # a command the formalizer runs itself: its plan, unplanned
        from pddlkit.pddl.plan import parse_plan

        return Attempt(files, [probe[0]], parse_plan([probe[1]]), None, 0.0, edits)
    if refused is not None and answer_key(files) in refused:
        return Attempt(files, None, None, repeated_message(refused[answer_key(files)]), 0.0,
                       edits, repeated=True)
    t0 = time.monotonic()
    given = formalizer.planning_files(files, context) \
        if isinstance(formalizer, GuardsItsPlans) \
        else files   # a guard of code's for the planner alone (refused_steps)
    planned = pddlkit.plan(given.domain, given.problem, planner=planner, timeout=timeout)
    if planned.solved and planned.plan is not None and isinstance(formalizer, ShortensItsPlans):
        short = formalizer.shortened(given, planned.plan)
        if short is not planned.plan:
            planned = replace(planned, plan=short, cost=float(len(short.steps)))
    seconds = time.monotonic() - t0
    commands, error = _commands(env, planned)
    return Attempt(files, commands, planned.plan if commands is not None else None, error,
                   seconds, edits,
                   unfinished=planned.status in (PlanStatus.TIMEOUT, PlanStatus.OUT_OF_MEMORY))


def _commands(env, planned) -> tuple[Optional[list[str]], Optional[str]]:
    """Commands for a solved plan, or the solver-level error to feed back."""
    if not planned.solved:
        return None, planned.format(timings=False)
    if not planned.plan.steps:
        return None, ("The goal already holds in the initial state, so the plan is empty. Choose "
                      "a new sub-goal that is not yet true (for example a place not visited).")
    try:
        if hasattr(env, "commands_for_plan"):
            return env.commands_for_plan(planned.plan), None
        from pddlkit.envs.api import plan_commands

        return plan_commands(env.action_schema, planned.plan), None
    except (KeyError, IndexError, ValueError) as exc:
        names = sorted({t.action for t in env.action_schema})
        return None, (f"The plan cannot be run: {exc}. The only actions are: {', '.join(names)}, "
                      "with the parameters given above.")
