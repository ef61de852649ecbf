"""``planner="auto"``: the first available planner that supports what the task uses.

The order is pddlkit's built-in Fast Downward, then run-time and plug-in planners that declare
what they support, then unified-planning's engines; a planner that declares nothing is not
chosen (it might not read the task). The result names the planner that ran, and its note says
that auto chose it.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Optional

from .calling import solve_within
from .capabilities import describe, install_hints
from .result import PlanResult, PlanStatus, error_result
from .task import PlanningTask


class AutoPlanner:
    """``AutoPlanner(candidates, build)``: ``candidates()`` lists the usable planners' infos
    (name and what each supports) in the order above, ``build(name)`` makes the chosen one
    (the registry passes its own functions, so this module does not import it)."""

    name = "auto"
    #: auto holds its pick to the limit as plan() holds a plug-in
    #: (:func:`~pddlkit.planners.calling.solve_within`), so a time out names the planner that ran
    limits_itself = True

    def __init__(self, candidates: Callable[[], list], build: Callable[[str], object]) -> None:
        self.candidates = candidates
        self.build = build

    def config(self) -> dict:
        return {"auto": True}

    def choose(self, features: frozenset) -> tuple[Optional[object], list[str]]:
        """The first candidate supporting ``features``, built, and why each one before it was
        not chosen."""
        passed = []
        for info in self.candidates():
            if info.supports is not None and features <= info.supports:
                return self.build(info.name), passed
            passed.append(f"{info.name}: {describe(info.supports)}")
        return None, passed

    def solve(self, task: PlanningTask, timeout: Optional[float] = None,
              memory_limit: Optional[int] = None) -> PlanResult:
        from ..checks import check

        features = check(task.domain, task.problem, planner=None).features
        planner, passed = self.choose(features)
        if planner is None:
            extra = "".join(f"; {h}" for h in install_hints(features, []))
            return error_result("auto", "no-capable-planner",
                                f"no planner here supports everything the task uses "
                                f"({', '.join(sorted(features)) or 'plain STRIPS'})",
                                hint="the planners here: " + "; ".join(passed) + extra)
        result = solve_within(planner, task, timeout, memory_limit)
        if not isinstance(result, PlanResult):
            return PlanResult(PlanStatus.ERROR, planner.name, note="auto: not a PlanResult")
        note = f"auto chose {planner.name}" + (f"; {result.note}" if result.note else "")
        return dataclasses.replace(result, planner=result.planner or planner.name, note=note,
                                   config={"auto": planner.name, **(result.config or {})})
