"""Calling one planner and reading its answer: the part of ``pddlkit.plan`` that a planner
which picks another (``auto``) needs as well, so both hold a plug-in to the same rules.

- :func:`answer`: a plug-in's exception or wrong return type comes back as an ERROR result,
  and its plan is parsed from any of :data:`PLAN_FORMS`.
- :func:`solve_within`: a planner that stops itself at the limit (``limits_itself``) is
  called directly; any other runs in a daemon thread and is abandoned ``GRACE_S`` after it.

It imports no registry, so :mod:`pddlkit.planners.auto` can use it without an import cycle.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from typing import Optional

from ..diagnostics import Diagnostic, PlanFormatError, Severity
from ..pddl.plan import Plan, PlanStep, parse_plan
from .protocol import Planner
from .result import PlanResult, PlanStatus, error_result


def answer(chosen: Planner, call) -> PlanResult:
    """``call()``'s PlanResult; a plug-in's exception or a wrong return type as an ERROR."""
    try:
        result = call()
    except Exception as exc:  # a plugin's bug must come back as data, like any failure
        return PlanResult(PlanStatus.ERROR, chosen.name, config=chosen.config(), diagnostics=(
            Diagnostic("planner-crashed", Severity.ERROR,
                       f"planner {chosen.name} raised {type(exc).__name__}: {exc}",
                       hint="a bug in the planner plugin; report it to its authors"),))
    if not isinstance(result, PlanResult):
        return PlanResult(PlanStatus.ERROR, chosen.name, config=chosen.config(), diagnostics=(
            Diagnostic("planner-bad-result", Severity.ERROR,
                       f"planner {chosen.name} returned a {type(result).__name__}, not a "
                       f"PlanResult",
                       hint="a planner's solve() returns pddlkit.planners.PlanResult (see "
                            "pddlkit.planners.protocol); report it to its authors"),))
    return _parsed_plan(result, chosen)


#: what a plug-in's ``PlanResult.plan`` may be, said in every refusal
PLAN_FORMS = ("a pddlkit Plan (pddlkit.pddl.plan.parse_plan), a list of '(action arg ...)' or "
              "'action arg ...' strings, or the plan file's text in one string")
_NUMBERED = re.compile(r"^(\d+(?:\.\d+)?\s*:\s*)?(.*?)(\s*\[[^\]]*\])?$")


def _bracketed(line: str) -> str:
    """``move a b`` as ``(move a b)`` (a step number and a duration kept where they are);
    a line that has its parentheses, a comment or nothing is left as it is."""
    code, sep, comment = line.partition(";")
    code = code.strip()
    if code and "(" not in code and ")" not in code:
        m = _NUMBERED.match(code)
        code = f"{m[1] or ''}({m[2]}){m[3] or ''}"
    return code + sep + comment


def _a(noun: str) -> str:
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def _parsed_plan(result: PlanResult, chosen: Planner) -> PlanResult:
    """``result`` with its plan as a parsed :class:`~pddlkit.pddl.plan.Plan`.

    This is where a plug-in's answer enters the core, which reads ``plan.steps`` (validation,
    ``actions``, ``format``, the cache): a plug-in may return its plan in any of
    :data:`PLAN_FORMS`, since planners print plans as text and a plug-in author should not
    need pddlkit's parser to wrap one. Anything else, or text that is not a plan, is an ERROR
    result (``planner-bad-result``) naming the type received and the forms accepted, never an
    AttributeError in the caller."""
    plan = result.plan
    if plan is None or isinstance(plan, Plan):
        return result
    name = result.planner or chosen.name
    if isinstance(plan, str):
        lines = plan.splitlines()
    elif isinstance(plan, (list, tuple)) and all(isinstance(s, (str, PlanStep)) for s in plan):
        lines = [str(s) for s in plan]
    else:
        inner = next((type(s).__name__ for s in plan if not isinstance(s, (str, PlanStep))),
                     None) if isinstance(plan, (list, tuple)) else None
        what = f"{_a(type(plan).__name__)} holding {_a(inner)}" if inner else \
            _a(type(plan).__name__)
        return error_result(name, "planner-bad-result",
                            f"planner {name} returned PlanResult.plan as {what}, which is "
                            f"not a plan",
                            hint=f"return plan= as {PLAN_FORMS}; report it to the planner's "
                                 f"authors", config=result.config or chosen.config(),
                            log=result.log)
    try:
        parsed = parse_plan([_bracketed(line) for line in lines])
    except PlanFormatError as exc:
        first = exc.diagnostics[0] if exc.diagnostics else None
        where = f" (line {first.line})" if first is not None and first.line else ""
        return error_result(name, "planner-bad-result",
                            f"planner {name} returned a plan pddlkit cannot read{where}: "
                            f"{first.message if first is not None else exc}",
                            hint=f"return plan= as {PLAN_FORMS}, one action per string or "
                                 f"line", config=result.config or chosen.config(),
                            log=result.log)
    cost = result.cost if result.cost is not None else parsed.cost
    return dataclasses.replace(result, plan=parsed, cost=cost)


#: how long past the time limit an in-process plug-in is waited for before it is abandoned
GRACE_S = 1.0


def solve_within(chosen: Planner, task, remaining: Optional[float],
                  memory: Optional[int]) -> PlanResult:
    """The planner's answer within ``remaining`` seconds. Planners that stop themselves at the
    limit (``limits_itself``: ours run in killed subprocesses) are called directly; any other
    plug-in runs in a daemon thread, and one that has not answered ``GRACE_S`` after the limit
    is abandoned with a TIMEOUT (an in-process planner cannot be killed; its late answer is
    discarded)."""
    call = lambda: chosen.solve(task, remaining, memory)  # noqa: E731
    if remaining is None or getattr(chosen, "limits_itself", False):
        return answer(chosen, call)
    box: list[PlanResult] = []
    worker = threading.Thread(target=lambda: box.append(answer(chosen, call)), daemon=True,
                              name=f"pddlkit-plan-{chosen.name}")
    worker.start()
    worker.join(remaining + GRACE_S)
    if box:
        return box[0]
    return error_result(chosen.name, "planner-timeout",
                        f"planner {chosen.name} gave no answer within {remaining:g}s; it runs "
                        f"in this process and cannot be stopped, so its answer is discarded",
                        hint="raise timeout=, or make the plug-in stop at the limit it is given",
                        config=chosen.config(), total=remaining, status=PlanStatus.TIMEOUT)
