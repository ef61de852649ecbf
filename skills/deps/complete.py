"""Completing a goal plan with the world model (issue 48, ``complete_plan``; off by default).

Why: measured with Qwen2.5-Coder 1.5B in the crafting world, DEPS plans a pickaxe without a
crafting table; the explainer names the missing table, and the re-plan repeats the mistake. The
world's PDDL model (:func:`pddlkit.envs.craft.craft_model`) knows every recipe, so what the model
left out can be computed instead of asked for again.

How: the goals are run, in the LLM's order, on a copy of the world. Before a goal whose
prerequisites the inventory lacks, Fast Downward plans that goal on the model from the copy's
inventory (:func:`pddlkit.envs.craft.plan_goals`: the mine, craft and smelt goals with absolute
counts); the planned goals before the LLM's own are inserted, marked as the world model's.
After the last goal, a plan that would end without the target gets the goals that reach it.
The LLM's goals keep their order; a goal already held is kept (it costs nothing).

Refused, with the model's sentence, never run: a goal over an item the world does not have
(``there is no object 'diamond_hoe' in this world``), and a goal no sequence of recipes
reaches from the inventory (the planner's why-no-plan).

Where the paper is silent: the completed plan is what the selector orders (so an inserted goal
is selected like the LLM's), and the dialogue says, before the plan runs, which goals the world
model inserted and which it refused, so the next plan can learn from them.

Crafter: its rules as the same recipe model (:func:`pddlkit.envs.crafter_world.recipes`: collect
is mine, place and make are craft, a make's station its tool), planned with the same planner;
the plan is run ahead on that model (counts only: the map, a station out of reach, the night
are Crafter's own), with the stations standing nearby counted as held.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Optional

from pddlkit.envs.craft import (CraftFailure, CraftWorld, GoalOutcome, choose_recipe, items,
                                plan_goals, unknown_item_message)

from .goals import Goal


@dataclass
class Completion:
    """The completed plan: ``goals`` to run (the LLM's in its order, the model's inserted),
    ``inserted`` ((position in ``goals``, goal) the world model added), ``refused`` ((goal,
    the model's sentence) left out)."""

    goals: list[Goal]
    inserted: list[tuple[int, Goal]] = field(default_factory=list)
    refused: list[tuple[Goal, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.inserted or self.refused)

    def describe(self) -> str:
        """One ``Descriptor:`` sentence for the dialogue ("" when nothing changed)."""
        parts = []
        if self.inserted:
            parts.append("the world model inserted " + ", ".join(
                f'step {k + 1} "{g.call}"' for k, g in self.inserted))
        if self.refused:
            parts.append("it left out " + "; ".join(f'"{g.call}" ({why})'
                                                    for g, why in self.refused))
        return ("Before acting, " + "; ".join(parts) + ".") if parts else ""

    def as_dict(self) -> dict:
        return {"inserted": [{"step": k + 1, "goal": g.call} for k, g in self.inserted],
                "refused": [{"goal": g.call, "why": why} for g, why in self.refused]}


def _world_goal(planned: Any, table: Optional[list] = None) -> Goal:
    """A planned goal as a DEPS goal, with its recipe's materials and tool written out, so the
    dialogue shows the model's line as the LLM would write it."""
    if table is not None:
        recipe = next((r for r in table if r.kind == planned.kind and r.item == planned.item),
                      None)
    else:
        recipe = choose_recipe(planned.kind, planned.item)
    if recipe is None or isinstance(recipe, CraftFailure):
        return Goal(planned.kind, planned.item, planned.count)
    return Goal(planned.kind, planned.item, planned.count, recipe.materials, recipe.tool)


class _ModelTrial:
    """The plan run on a world's recipe model (Crafter: its placed stations count as held),
    for a world that cannot be copied and run ahead: the counts only, no map."""

    def __init__(self, inventory: dict, table: list, target: str) -> None:
        self.inventory, self.table, self.target = dict(inventory), table, target

    @property
    def won(self) -> bool:
        return self.inventory.get(self.target, 0) >= 1

    def run_goal(self, kind: str, item: str, count: int) -> GoalOutcome:
        options = [r for r in self.table if r.item == item and r.kind == kind]
        actions = 0
        while self.inventory.get(item, 0) < count:
            ready = [r for r in options if (not r.tool or self.inventory.get(r.tool, 0) >= 1)
                     and all(self.inventory.get(m, 0) >= n for m, n in r.materials)]
            if not ready:
                return GoalOutcome(False, actions)
            r = ready[0]
            for m, n in r.materials:
                self.inventory[m] -= n
            self.inventory[item] = self.inventory.get(item, 0) + r.count
            actions += 1
        return GoalOutcome(True, actions)


def _start(world: Any):
    """(the trial to run the plan on, the recipe table; None for this world's)."""
    if isinstance(world, CraftWorld):
        return copy.deepcopy(world), None
    if getattr(world, "game", "") == "Crafter":
        from pddlkit.envs.crafter_world import recipes

        table = recipes()
        return _ModelTrial(world.held_and_placed(), table, world.target), table
    raise ValueError(f"{type(world).__name__} has no PDDL model of its recipes: plan "
                     "completion needs the crafting world or Crafter (leave complete_plan off)")


def complete_plan(world: Any, goals: list[Goal]) -> Completion:
    """The plan ``goals`` completed on ``world``'s model (see the module docstring)."""
    trial, table = _start(world)
    state = {"trial": trial}
    known = set(items()) if table is None else \
        {n for r in table for n in (r.item, r.tool, *(m for m, _ in r.materials)) if n}
    done = Completion([])

    def runs(goal: Goal) -> bool:
        """Whether ``goal`` succeeds from the trial's state; if so, the trial moves on."""
        attempt = copy.deepcopy(state["trial"])
        if attempt.run_goal(goal.kind, goal.item, goal.count).ok:
            state["trial"] = attempt
            return True
        return False

    def add(goal: Goal, inserted: bool) -> None:
        if inserted:
            done.inserted.append((len(done.goals), goal))
        done.goals.append(goal)

    def take(goal: Goal, inserted: bool) -> None:
        """Run ``goal`` ahead and put it in the plan."""
        runs(goal)
        add(goal, inserted)

    def reach(item: str, count: int) -> tuple[list[Goal], str]:
        plan = plan_goals({item: count}, dict(state["trial"].inventory), table=table)
        if plan.status != "solved":
            why = " ".join(plan.explanation[:1]) or (f"no sequence of recipes reaches {count} "
                                                     f"{item} from the inventory")
            return [], why
        return [_world_goal(p, table) for p in plan.goals], ""

    for goal in goals:
        if goal.item not in known:
            done.refused.append((goal, unknown_item_message(goal.item) if table is None else
                                 f"there is no object '{goal.item}' in this world"))
            continue
        if runs(goal):
            add(goal, inserted=False)
            continue
        planned, why = reach(goal.item, goal.count)
        if not planned:
            done.refused.append((goal, why))
            continue
        own = planned[-1].kind == goal.kind   # else the LLM's verb is wrong: the model's goes
        for step in planned[:-1] if own else planned:
            take(step, inserted=True)
        if own:
            take(goal, inserted=False)
        else:
            done.refused.append((goal, f"{goal.item} is obtained by {planned[-1].kind}, "
                                       f"not {goal.kind}"))
    if not state["trial"].won:
        planned, _why = reach(world.target, 1)
        for step in planned:
            take(step, inserted=True)
    return done
