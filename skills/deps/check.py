"""Checking a plan before it runs (pddlkit's addition to DEPS): the goals are run on a copy of
the world, and each goal's stated recipe (the materials and tool the LLM wrote) is compared with
the world model's. The first goal that cannot succeed is reported with the false precondition,
so it is explained before any action is spent.

A goal's stated materials are totals for the goal, as in the paper's lines ("craft 12 planks
from 3 log"): with ``apps`` applications of the recipe needed to reach the goal's count from the
inventory the goal starts with, a stated amount below ``apps * n`` (a material left out counts
as 0) is ``understated``; a
recipe's tool left out of the goal is ``unstated-tool``. Both would make the LLM's own counting
go wrong later in the plan even where this goal happens to succeed, which is why they are
reported first: a failure further on would otherwise be explained by its symptom (too few
planks) rather than its cause (the table costs 4 planks, not 3).
"""

from __future__ import annotations

import copy
import math
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


def check_plan(world: CraftWorld, goals: list[Goal]) -> Optional[tuple[int, Goal, CraftFailure]]:
    """(step, goal, failure) of the first goal that cannot succeed as written, or None."""
    trial = copy.deepcopy(world)
    for step, g in enumerate(goals, 1):
        stated = stated_failure(g, trial.inventory.get(g.item, 0))
        if stated:
            return step, g, stated
        outcome = trial.run_goal(g.kind, g.item, g.count)
        if not outcome.ok:
            return step, g, outcome.failure
    if not trial.won:
        last = goals[-1] if goals else Goal("craft", world.target, 1)
        return len(goals), last, CraftFailure(
            "incomplete", f"the plan ends without {world.target} in my inventory",
            missing=world.target)
    return None
