"""What a planner call returns: a status, the plan, timings, and everything needed to act on it.

Modelled on unified-planning's result enums: one status that callers branch on, never an
exception for "no plan" or "too slow". The raw planner log is kept (``log``) but out of
``repr`` and of the short text, because it is for people debugging the planner, not for the
LLM repairing the model; the LLM gets ``diagnostics`` and ``explanation``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Optional

from ..diagnostics import Diagnostic, Severity
from ..pddl.plan import Plan, PlanStep

if TYPE_CHECKING:  # pragma: no cover
    from .explain import NoPlanExplanation


class PlanStatus(str, Enum):
    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    TIMEOUT = "timeout"
    OUT_OF_MEMORY = "out-of-memory"
    ERROR = "error"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Timings:
    """Wall-clock seconds. ``translate`` is 0 for planners without a separate translation."""

    translate: float = 0.0
    search: float = 0.0
    total: float = 0.0


@dataclass(frozen=True)
class PlanResult:
    status: PlanStatus
    planner: str
    plan: Optional[Plan] = None
    cost: Optional[float] = None
    timings: Timings = Timings()
    config: dict = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()
    explanation: Optional["NoPlanExplanation"] = None
    log: str = field(default="", repr=False)
    cached: bool = False
    note: str = ""

    @property
    def solved(self) -> bool:
        return self.status is PlanStatus.SOLVED

    @property
    def actions(self) -> list[str]:
        """The plan as '(action arg ...)' strings (empty when there is no plan)."""
        return [str(s) for s in self.plan.steps] if self.plan is not None else []

    def format(self, timings: bool = True) -> str:
        """A short report for people and LLMs: status, plan or reasons, never the raw log.
        ``timings=False`` leaves out the times, so the text is the same on every run (what
        is fed back to an LLM must be, or a recorded run cannot be replayed)."""
        head = f"{self.planner}: {self.status}"
        if self.note:
            head += f" ({self.note})"
        lines = [head]
        if self.plan is not None:
            cost = f", cost {self.cost:g}" if self.cost is not None else ""
            lines.append(f"plan: {len(self.plan)} steps{cost}")
            lines.extend("  " + a for a in self.actions)
        for d in self.diagnostics:
            lines.append(d.format())
        if self.explanation is not None:
            lines.append(self.explanation.text())
        if not timings:
            return "\n".join(lines)
        t = self.timings
        lines.append(f"time: translate {t.translate:.3f}s, search {t.search:.3f}s, "
                     f"total {t.total:.3f}s" + (" (cached)" if self.cached else ""))
        return "\n".join(lines)

    def to_dict(self, include_log: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": self.status.value,
            "planner": self.planner,
            "config": self.config,
            "plan": self.actions if self.plan is not None else None,
            "cost": self.cost,
            "timings": {"translate": self.timings.translate, "search": self.timings.search,
                        "total": self.timings.total},
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "explanation": self.explanation.to_dict() if self.explanation else None,
            "cached": self.cached,
            "note": self.note,
        }
        if include_log:
            out["log"] = self.log
        return out

    def to_json(self, include_log: bool = False) -> str:
        return json.dumps(self.to_dict(include_log), indent=2)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "PlanResult":
        from .explain import NoPlanExplanation

        plan = None
        if data.get("plan") is not None:
            steps = []
            for text in data["plan"]:
                name, *args = text.strip("()").split()
                steps.append(PlanStep(name, tuple(args)))
            plan = Plan(tuple(steps), data.get("cost"))
        diags = tuple(
            Diagnostic(**{**d, "severity": Severity(d["severity"]),
                          "expected": tuple(d.get("expected") or ())})
            for d in data.get("diagnostics", ()))
        t = data.get("timings") or {}
        return cls(
            status=PlanStatus(data["status"]),
            planner=data["planner"],
            plan=plan,
            cost=data.get("cost"),
            timings=Timings(t.get("translate", 0.0), t.get("search", 0.0), t.get("total", 0.0)),
            config=data.get("config") or {},
            diagnostics=diags,
            explanation=(NoPlanExplanation.from_dict(data["explanation"])
                         if data.get("explanation") else None),
            log=data.get("log", ""),
            cached=data.get("cached", False),
            note=data.get("note", ""),
        )


def error_result(planner: str, code: str, message: str, hint: Optional[str] = None,
                 config: Optional[dict] = None, log: str = "", total: float = 0.0,
                 status: PlanStatus = PlanStatus.ERROR, file: Optional[str] = None) -> PlanResult:
    """A result carrying one diagnostic: how planner failures reach the caller as data."""
    diag = Diagnostic(code, Severity.ERROR, message, file=file, hint=hint)
    return PlanResult(status, planner, config=config or {}, diagnostics=(diag,), log=log,
                      timings=Timings(total=total))
