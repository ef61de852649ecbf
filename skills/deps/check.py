"""Checking a plan before it runs (pddlkit's addition to DEPS): the goals are run on a copy of
the world, and each goal's stated recipe (the materials and tool the LLM wrote) is compared with
the world model's. The first goal that cannot succeed is reported with the false precondition,
so it is explained before any action is spent.

A goal's stated materials are totals for the goal, as in the paper's lines ("craft 12 planks
from 3 log"): with ``apps`` applications of the recipe needed to reach the goal's count from the
inventory the goal starts with, a stated amount below ``apps * n`` (a material left out counts
as 0) is ``understated``; a
recipe's tool left out of the goal is ``unstated-tool``.

Errors and warnings: a goal that would fail is an **error** (the plan is not run; it is
explained and re-planned). A misstated recipe is a **warning**: the goal may still succeed (the
world does not run on the LLM's numbers), so a plan whose goals all succeed runs, costing no
re-plan round, with the warnings told to the planner as a note; with an error, the first
warning before it is what is explained, since it is the likely cause (the table costs 4 planks,
not 3, so the planks run short two steps later), and the failing step is named with it.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Optional

from pddlkit.envs.craft import CraftFailure, CraftWorld, choose_recipe

from .goals import Goal


def stated_failure(goal: Goal, have: int) -> Optional[CraftFailure]:
    """Where ``goal``'s stated recipe disagrees with the world's (``have``: the count of the
    goal's object before it runs), or None."""
    recipe = choose_recipe(goal.kind, goal.item)
    if isinstance(recipe, CraftFailure) or goal.count <= have:
        return None
    verb = f"{goal.kind} {goal.item}"
    if recipe.tool and goal.tool != recipe.tool and goal.text:
        return CraftFailure("unstated-tool", f"{verb} needs a {recipe.tool}, but the plan does "
                            f"not use one", recipe, recipe.tool, 1, 0)
    apps = math.ceil((goal.count - have) / recipe.count)
    stated = dict(goal.materials)
    for material, n in recipe.materials:
        if stated.get(material, 0) < apps * n:
            return CraftFailure("understated", f"{verb} needs {n} {material} for each "
                                f"{recipe.count}, but the plan gives {stated.get(material, 0)} "
                                f"{material} for {goal.count - have}", recipe, material,
                                n, stated.get(material, 0))
    return None


@dataclass
class PlanCheck:
    """``error``: (step, goal, failure) of the first goal that cannot succeed, or None;
    ``warnings``: (step, goal, failure) of each misstated recipe up to there."""

    error: Optional[tuple[int, Goal, CraftFailure]] = None
    warnings: list = field(default_factory=list)

    def warning_text(self) -> str:
        """The warnings as one sentence for the planner ("" without any)."""
        return "; ".join(f'step {step} "{goal.call}": {failure.message}'
                         for step, goal, failure in self.warnings)


def check_plan(world: CraftWorld, goals: list[Goal]) -> PlanCheck:
    """Run the plan on a copy of the world: the first failing goal (an error) and the
    misstated recipes before it (warnings)."""
    trial = copy.deepcopy(world)
    found = PlanCheck()
    for step, g in enumerate(goals, 1):
        stated = stated_failure(g, trial.inventory.get(g.item, 0))
        if stated:
            found.warnings.append((step, g, stated))
        outcome = trial.run_goal(g.kind, g.item, g.count)
        if not outcome.ok:
            found.error = (step, g, outcome.failure)
            return found
    if not trial.won:
        last = goals[-1] if goals else Goal("craft", world.target, 1)
        found.error = (len(goals), last, CraftFailure(
            "incomplete", f"the plan ends without {world.target} in my inventory",
            missing=world.target))
    return found
