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

    def solve(self, task: PlanningTask, timeout: Optional[float] = None,
              memory_limit: Optional[int] = None) -> PlanResult:
        """Plan for ``task`` within ``timeout`` seconds (wall) and ``memory_limit`` bytes."""
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


def parse_memory(limit: object) -> Optional[int]:
    """Bytes from an int or a string such as '512M', '4G' (None: no limit)."""
    if limit is None or limit == "":
        return None
    if isinstance(limit, (int, float)):
        return int(limit)
    text = str(limit).strip().upper().rstrip("B")
    factor = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    number = text[:-1] if text[-1:] in "KMG" else text
    try:
        return int(float(number) * factor)
    except ValueError:
        raise ValueError(f"memory limit {limit!r} is not a size such as 512M or 4G") from None
