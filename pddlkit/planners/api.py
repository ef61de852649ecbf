"""``pddlkit.plan``: one call from PDDL (models, text or paths) to a checked, validated answer.

The order of work is chosen so that the common cases are cheap and every failure is data:
a cache hit on the raw text returns before any parsing; unreadable or statically wrong PDDL
returns its diagnostics without starting a planner; a planner's plan is validated with
pddlkit's own semantics before it is returned (an invalid plan becomes an error result); and
an unsolvable task comes back with :func:`~pddlkit.planners.explain.why_no_plan`'s reasons.
"""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from pathlib import Path
from typing import Any, Optional, Union

from ..diagnostics import Diagnostic, PDDLError, PlanFormatError, Severity
from ..pddl.plan import Plan, PlanStep, parse_plan
from .cache import CACHEABLE, DEFAULT_CACHE, MemoryPlanCache, PlanCache, SQLitePlanCache, \
    config_key, entry_key
from .protocol import Planner, StartedSolve, check_timeout, parse_memory
from .registry import get_planner
from .result import PlanResult, PlanStatus, Timings, error_result
from .task import DomainInput, ProblemInput, TaskSource, load_task, raw_key, source_text

DEFAULT_TIMEOUT = 60.0
_SQLITE: dict[str, SQLitePlanCache] = {}

CacheSpec = Union[bool, None, str, Path, PlanCache]


def _resolve_cache(cache: CacheSpec) -> Optional[PlanCache]:
    if cache is True:
        return DEFAULT_CACHE
    if cache is False or cache is None:
        return None
    if isinstance(cache, (str, Path)):
        key = str(Path(cache).resolve())
        if key not in _SQLITE:
            _SQLITE[key] = SQLitePlanCache(key)
        return _SQLITE[key]
    return cache


def plan(domain: DomainInput, problem: ProblemInput, planner: Union[str, Planner] = "fast-downward",
         timeout: Optional[float] = DEFAULT_TIMEOUT, memory_limit: Union[int, str, None] = None,
         cache: CacheSpec = True, check: bool = True, explain: bool = True,
         **options: Any) -> PlanResult:
    """Plan for ``problem`` in ``domain`` and return a :class:`PlanResult` (never raises for bad
    PDDL or planner failures; an unknown planner name raises UnknownPlannerError).

    ``timeout`` is wall-clock seconds for the whole call; ``memory_limit`` bytes or '4G';
    ``cache`` is True (this process's memory), a path (an SQLite file shared by processes), a
    cache object, or False; ``options`` go to the planner (``alias="lama"`` for Fast Downward).
    A limit that is not one (zero, negative, NaN, infinite) raises LimitError (a ValueError)
    before anything starts; a cache path that is not an SQLite file raises PlanCacheError.
    """
    start = time.monotonic()
    timeout = check_timeout(timeout)
    memory = parse_memory(memory_limit)
    chosen = get_planner(planner, **options)
    pkey = config_key(chosen.name, chosen.config())
    store = _resolve_cache(cache)
    try:
        dtext, dpath = source_text(domain)
        ptext, ppath = source_text(problem)
    except PDDLError as exc:
        return _input_error(chosen, exc, start)
    rkey = entry_key(raw_key(dtext, ptext), pkey)
    if store is not None:
        hit = store.get(rkey)
        if hit is not None:
            return dataclasses.replace(hit, cached=True,
                                       timings=Timings(total=time.monotonic() - start))
    # A planner that can start from the raw text (Fast Downward: the translation) runs while
    # pddlkit reads and checks the task; it is cancelled if the checks or the cache decide.
    running = _start_early(chosen, TaskSource(dtext, ptext, dpath, ppath), timeout, memory)
    try:
        try:
            task = load_task(domain, problem)
        except PDDLError as exc:
            return _input_error(chosen, exc, start)
        warnings: tuple[Diagnostic, ...] = task.warnings
        if check:
            from ..checks import check as static_check

            # Fast Downward's own limits (either types, negative costs) are errors for it only
            report = static_check(task.domain, task.problem, planner=chosen.name)
            if not report.ok:
                return PlanResult(PlanStatus.ERROR, chosen.name, config=chosen.config(),
                                  diagnostics=tuple(report.diagnostics),
                                  note="the PDDL has errors; the planner was not run",
                                  timings=Timings(total=time.monotonic() - start))
            warnings += tuple(report.warnings)
            refused = _unsupported(chosen, report.features, start)
            if refused is not None:
                return refused
        ckey = entry_key(task.canonical_key(), pkey)
        if store is not None:
            hit = store.get(ckey)
            if hit is not None:
                store.put([rkey], hit)
                return dataclasses.replace(hit, cached=True,
                                           timings=Timings(total=time.monotonic() - start))
        remaining = None if timeout is None else max(0.001, timeout - (time.monotonic() - start))
        if running is not None:
            started, running = running, None
            result = _answer(chosen, lambda: started.finish(task))
        else:
            result = _solve_within(chosen, task, remaining, memory)
    finally:
        if running is not None:
            running.cancel()
    if not result.config:  # third-party planners need not repeat their configuration
        result = dataclasses.replace(result, config=chosen.config())
    result = _validated(result, task)
    if result.status is PlanStatus.UNSOLVABLE and explain:
        from .explain import why_no_plan

        result = dataclasses.replace(result, explanation=why_no_plan(task.domain, task.problem))
    result = dataclasses.replace(
        result, diagnostics=result.diagnostics + warnings,
        timings=dataclasses.replace(result.timings, total=time.monotonic() - start))
    if store is not None and result.status in CACHEABLE:
        store.put([rkey, ckey], result)
    return result


def _unsupported(chosen: Planner, features: frozenset, start: float) -> Optional[PlanResult]:
    """An ERROR before running when ``chosen`` declares it cannot plan a feature the task
    uses (:mod:`.capabilities`), naming the feature and the planners here that can."""
    from .capabilities import supported

    have = supported(chosen)
    if have is None or features <= have:
        return None
    lacking = sorted(features - have)
    from .registry import available_planners

    able = [i.name for i in available_planners(include_up=True)
            if i.available and i.supports is not None and features <= i.supports]
    return PlanResult(PlanStatus.ERROR, chosen.name, config=chosen.config(), diagnostics=(
        Diagnostic("planner-unsupported", Severity.ERROR,
                   f"planner {chosen.name} cannot plan this task: it uses "
                   f"{', '.join(lacking)} features, which {chosen.name} does not support",
                   hint=(f"use {' or '.join(able[:3])}, or planner='auto'" if able else
                         "no planner here supports them; rewrite the PDDL without them")),),
        note="the planner was not run", timings=Timings(total=time.monotonic() - start))


def _answer(chosen: Planner, call) -> PlanResult:
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


def _solve_within(chosen: Planner, task, remaining: Optional[float],
                  memory: Optional[int]) -> PlanResult:
    """The planner's answer within ``remaining`` seconds. Planners that stop themselves at the
    limit (``limits_itself``: ours run in killed subprocesses) are called directly; any other
    plug-in runs in a daemon thread, and one that has not answered ``GRACE_S`` after the limit
    is abandoned with a TIMEOUT (an in-process planner cannot be killed; its late answer is
    discarded)."""
    call = lambda: chosen.solve(task, remaining, memory)  # noqa: E731
    if remaining is None or getattr(chosen, "limits_itself", False):
        return _answer(chosen, call)
    box: list[PlanResult] = []
    worker = threading.Thread(target=lambda: box.append(_answer(chosen, call)), daemon=True,
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


def _start_early(chosen: Planner, source: TaskSource, timeout: Optional[float],
                 memory: Optional[int]) -> Optional[StartedSolve]:
    starter = getattr(chosen, "start", None)
    if not callable(starter):
        return None
    try:
        return starter(source, timeout, memory)
    except Exception:  # the plain solve path reports the same failure as data
        return None


def _validated(result: PlanResult, task) -> PlanResult:
    if result.status is not PlanStatus.SOLVED:
        return result
    from ..semantics.validate import validate_plan

    if result.plan is None:
        return dataclasses.replace(result, status=PlanStatus.ERROR, diagnostics=result.diagnostics + (
            Diagnostic("missing-plan", Severity.ERROR,
                       f"{result.planner} reported success but returned no plan"),))
    check = validate_plan(task.domain, task.problem, result.plan)
    if check.valid:
        cost = result.cost if result.cost is not None else check.cost
        return dataclasses.replace(result, cost=cost)
    return dataclasses.replace(
        result, status=PlanStatus.ERROR, plan=None, cost=None,
        log=result.log + "\n; rejected plan:\n" + result.plan.to_text(),
        diagnostics=result.diagnostics + (Diagnostic(
            "invalid-plan", Severity.ERROR,
            f"{result.planner} returned a plan that pddlkit's semantics rejects: {check.explain()}",
            hint="the planner and pddlkit disagree on this model; the rejected plan is in "
                 "PlanResult.log"),))


def _input_error(chosen: Planner, exc: PDDLError, start: float) -> PlanResult:
    return PlanResult(PlanStatus.ERROR, chosen.name, config=chosen.config(),
                      diagnostics=tuple(exc.diagnostics),
                      note="the PDDL could not be read; the planner was not run",
                      timings=Timings(total=time.monotonic() - start))


__all__ = ["plan", "MemoryPlanCache", "SQLitePlanCache", "DEFAULT_TIMEOUT"]
