"""The plug point every planner implements.

A planner gets a :class:`~pddlkit.planners.task.PlanningTask` (models, text, and files on
request) and limits, and returns a :class:`PlanResult`. It does not validate its plan or
explain a failure: :func:`pddlkit.plan` does both for every planner, so a third-party planner
gets them for free and cannot pass on a wrong plan.
"""

from __future__ import annotations

from typing import Optional, Protocol, runtime_checkable

from .result import PlanResult
from .task import PlanningTask, TaskSource


@runtime_checkable
class Planner(Protocol):
    #: the registry name, also shown in results
    name: str

    def config(self) -> dict:
        """Everything that changes the answer (alias, options): part of the cache key."""
        ...

    # Optional: ``limits_itself = True`` when solve() stops at ``timeout`` on its own (a
    # subprocess killed at the limit). Other planners run in a thread that pddlkit.plan
    # abandons once the limit has passed, since an in-process call cannot be stopped.

    def solve(self, task: PlanningTask, timeout: Optional[float] = None,
              memory_limit: Optional[int] = None) -> PlanResult:
        """Plan for ``task`` within ``timeout`` seconds (wall) and ``memory_limit`` bytes.

        ``PlanResult.plan`` may be a parsed :class:`~pddlkit.pddl.plan.Plan`, a list of
        ``"(action arg ...)"`` or ``"action arg ..."`` strings, or the plan file's text in one
        string: :func:`pddlkit.plan` reads it into a Plan (and validates it) where the
        result enters the core. Any other type comes back as a ``planner-bad-result`` error
        naming it."""
        ...


@runtime_checkable
class StartedSolve(Protocol):
    """A solve that is already running; exactly one of ``finish`` or ``cancel`` is called."""

    def finish(self, task: PlanningTask) -> PlanResult:
        """Wait for the planner and return its result for ``task`` (the parsed source)."""
        ...

    def cancel(self) -> None:
        """Stop the planner and free what it holds; its answer is not wanted."""
        ...


@runtime_checkable
class EarlyStart(Protocol):
    """Optional for planners: start from the raw text, before pddlkit has read and checked it.

    :func:`pddlkit.plan` then overlaps its own parsing and static checks with the planner's
    start-up (for Fast Downward, the translation), and cancels the planner when the checks
    reject the task or the cache already has the answer.
    """

    def start(self, source: TaskSource, timeout: Optional[float] = None,
              memory_limit: Optional[int] = None) -> StartedSolve:
        ...


def availability(planner: object) -> tuple[bool, str]:
    """(usable, why not): planners may define ``available()``; assumed usable otherwise."""
    check = getattr(planner, "available", None)
    if check is None:
        return True, ""
    try:
        return check()
    except Exception as exc:  # a broken plugin must not break `pddlkit planners`
        return False, f"{type(exc).__name__}: {exc}"


#: the longest time limit accepted (a year); above it, say ``timeout=None`` for no limit
MAX_TIMEOUT = 365 * 24 * 3600.0


class LimitError(ValueError):
    """A time or memory limit that is not a limit (zero, negative, NaN, infinite, not a
    number): the caller's mistake, reported before any planner starts, never as a planner
    time-out or a PDDL error."""


def check_timeout(timeout: object, what: str = "timeout",
                  no_limit: str = "pass None for no limit") -> Optional[float]:
    """``timeout`` as float seconds (None: no limit), or LimitError saying what to pass."""
    import math

    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise LimitError(f"{what} must be a number of seconds or None, got "
                         f"{type(timeout).__name__} {timeout!r}")
    value = float(timeout)
    if math.isnan(value) or value <= 0:
        raise LimitError(f"{what} must be a positive number of seconds, got {timeout!r}"
                         + (f"; {no_limit}" if no_limit else ""))
    if value > MAX_TIMEOUT:
        raise LimitError(f"{what} of {timeout!r} seconds is longer than a year"
                         + (f"; {no_limit}" if no_limit else ""))
    return value


def parse_memory(limit: object) -> Optional[int]:
    """Bytes from an int or a string such as '512M', '4G' (None: no limit)."""
    if limit is None or limit == "":
        return None
    if isinstance(limit, (int, float)) and not isinstance(limit, bool):
        if limit != limit or limit <= 0 or limit == float("inf"):
            raise LimitError(f"memory limit must be a positive number of bytes or a size "
                             f"such as 512M or 4G, got {limit!r}")
        return int(limit)
    text = str(limit).strip().upper().rstrip("B")
    factor = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    number = text[:-1] if text[-1:] in "KMG" else text
    try:
        value = float(number) * factor
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise LimitError(f"memory limit {limit!r} is not a size such as 512M or 4G") from None
    return int(value)
