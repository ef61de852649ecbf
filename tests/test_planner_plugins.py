"""A plug-in planner's plan enters the core as a parsed plan, whatever form it came in (#44).

The plug-in here is a real one, written as a third party would (a class with ``name``,
``config()`` and ``solve()``, registered with ``register_planner`` as the README says): it runs
the real Fast Downward and hands its plan back as text, the way planners print plans. Before
the fix, ``PlanResult(plan=[...strings...])`` ended in ``AttributeError: 'list' object has no
attribute 'to_text'`` inside ``pddlkit.plan``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pytest

import pddlkit
from pddlkit.planners import (FastDownward, PlanResult, PlanStatus, PlanningTask,
                              register_planner, unregister_planner)

COIN = Path(__file__).resolve().parent.parent / "domains" / "coin-collector"
DOMAIN, PROBLEM = COIN / "domain.pddl", COIN / "p3.pddl"


class FastDownwardAsText:
    """Fast Downward behind a plug-in that returns its plan in the form ``form`` names."""

    name = "fd-as-text"

    def __init__(self, form: str = "parens") -> None:
        self.form = form

    def config(self) -> dict:
        return {"form": self.form}

    def solve(self, task: PlanningTask, timeout: Optional[float] = None,
              memory_limit: Optional[int] = None) -> PlanResult:
        found = FastDownward().solve(task, timeout, memory_limit)
        steps = [str(s) for s in found.plan.steps]
        bare = [s[1:-1] for s in steps]
        plan: Any = {
            "parens": steps,                                      # ['(move a b)', ...]
            "bare": bare,                                         # ['move a b', ...]
            "numbered": [f"{i}: {s}" for i, s in enumerate(bare)],
            "text": "\n".join(steps) + f"\n; cost = {len(steps)} (unit cost)\n",
            "reversed": list(reversed(steps)),                    # read, then refused
            "count": len(steps),
            "tuples": [tuple(s.split()) for s in bare],
            "unreadable": steps[:1] + ["(move kitchen"],
        }[self.form]
        return PlanResult(found.status, self.name, plan=plan)


@pytest.fixture()
def plugin():
    register_planner("fd-as-text", FastDownwardAsText, replace=True)
    yield "fd-as-text"
    unregister_planner("fd-as-text")


@pytest.mark.parametrize("form", ["parens", "bare", "numbered", "text"])
def test_a_plugin_may_return_its_plan_as_strings_or_text(plugin, form):
    reference = pddlkit.plan(DOMAIN, PROBLEM, cache=False)
    assert reference.solved
    result = pddlkit.plan(DOMAIN, PROBLEM, planner=plugin, form=form, cache=False)
    assert result.status is PlanStatus.SOLVED, result.format()
    assert result.planner == "fd-as-text"
    assert result.actions == reference.actions
    assert result.cost == len(reference.actions)
    text = result.format()
    assert f"plan: {len(reference.actions)} steps" in text
    assert result.to_dict()["plan"] == reference.actions


def test_a_plan_given_as_strings_is_still_validated(plugin):
    result = pddlkit.plan(DOMAIN, PROBLEM, planner=plugin, form="reversed", cache=False)
    assert result.status is PlanStatus.ERROR and result.plan is None
    assert result.diagnostics[0].code == "invalid-plan"
    assert "rejected plan:" in result.log


@pytest.mark.parametrize("form, what", [("count", "an int"),
                                        ("tuples", "a list holding a tuple")])
def test_a_plan_of_another_type_is_a_planner_error_naming_the_type(plugin, form, what):
    result = pddlkit.plan(DOMAIN, PROBLEM, planner=plugin, form=form, cache=False)
    assert result.status is PlanStatus.ERROR and result.plan is None
    [d] = result.diagnostics
    assert d.code == "planner-bad-result"
    assert f"planner fd-as-text returned PlanResult.plan as {what}," in d.message, d.message
    assert "list of '(action arg ...)'" in d.hint and "Plan" in d.hint
    assert "Traceback" not in result.format()


def test_text_that_is_not_a_plan_is_a_planner_error_naming_the_line(plugin):
    result = pddlkit.plan(DOMAIN, PROBLEM, planner=plugin, form="unreadable", cache=False)
    assert result.status is PlanStatus.ERROR
    [d] = result.diagnostics
    assert d.code == "planner-bad-result"
    assert "cannot read (line 2)" in d.message and "(move kitchen" in d.message, d.message
