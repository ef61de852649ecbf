"""``pddlkit.plan``: one call from PDDL (models, text or paths) to a checked, validated answer.

The order of work is chosen so that the common cases are cheap and every failure is data:
a cache hit on the raw text returns before any parsing; unreadable or statically wrong PDDL
returns its diagnostics without starting a planner; a planner's plan is validated with
pddlkit's own semantics before it is returned (an invalid plan becomes an error result); and
an unsolvable task comes back with :func:`~pddlkit.planners.explain.why_no_plan`'s reasons.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any, Optional, Union

from ..diagnostics import Diagnostic, PDDLError, Severity
from .calling import answer, solve_within
from .cache import CACHEABLE, DEFAULT_CACHE, MemoryPlanCache, PlanCache, SQLitePlanCache, \
    config_key, entry_key
from .protocol import Planner, StartedSolve, check_timeout, parse_memory
from .registry import get_planner
from .result import PlanResult, PlanStatus, Timings
from .task import DomainInput, ProblemInput, TaskSource, load_task, raw_key, source_text

DEFAULT_TIMEOUT = 60.0
_SQLITE: dict[str, SQLitePlanCache] = {}

CacheSpec = Union[bool, None, str, Path, PlanCache]


#: the canonical entry's key suffix: its result holds no text's warnings
TEXT_FREE = ":text-free"
#: the keys' format: an older cache's entries (a canonical entry with the warnings of the text
#: that filled it, and raw entries copied from one) are not read; the raw key of a text
#: already canonical was the old canonical key
KEY_VERSION = "v2:"


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
    rkey = KEY_VERSION + entry_key(raw_key(dtext, ptext), pkey)
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
        # the canonical entry holds the planner's answer without the warnings of the text
        # that first asked (their lines and excerpts are that text's): a hit gets this
        # text's own (before, a reformatted problem was told another file's line numbers)
        ckey = KEY_VERSION + entry_key(task.canonical_key(), pkey) + TEXT_FREE
        if store is not None:
            hit = store.get(ckey)
            if hit is not None:
                hit = dataclasses.replace(hit, diagnostics=hit.diagnostics + warnings)
                store.put([rkey], hit)
                return dataclasses.replace(hit, cached=True,
                                           timings=Timings(total=time.monotonic() - start))
        remaining = None if timeout is None else max(0.001, timeout - (time.monotonic() - start))
        if running is not None:
            started, running = running, None
            result = answer(chosen, lambda: started.finish(task))
        else:
            result = solve_within(chosen, task, remaining, memory)
    finally:
        if running is not None:
            running.cancel()
    if not result.config:  # third-party planners need not repeat their configuration
        result = dataclasses.replace(result, config=chosen.config())
    result = _validated(result, task)
    if result.status is PlanStatus.UNSOLVABLE and explain:
        from .explain import why_no_plan

        result = dataclasses.replace(result, explanation=why_no_plan(task.domain, task.problem))
    if store is not None and result.status in CACHEABLE:
        store.put([ckey], result)   # before this text's warnings join it (see above)
    result = dataclasses.replace(
        result, diagnostics=result.diagnostics + warnings,
        timings=dataclasses.replace(result.timings, total=time.monotonic() - start))
    if store is not None and result.status in CACHEABLE:
        store.put([rkey], result)
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
