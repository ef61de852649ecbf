"""The selector (seed 003, §3.3): among goals that can run now and do not depend on one another,
sample one by a softmax over the negative predicted horizon, so that a nearer goal goes first.

Candidates. The paper's plans are linear and the order-free set is left unstated (and the public
code's selector is a stub); here a remaining goal is a candidate when its recipe can be applied
now and it shares nothing with the earlier remaining goals: its object is not one they make,
use or consume, and its materials and tool are none of theirs (so running it first neither
starves them nor is undone by them; goal counts are absolute, so a repeated object keeps its
order). The first remaining goal is always a candidate, so plan order is the fallback.

Predictors of the horizon (recipe applications until the goal's count is held):

- :class:`ExactHorizon`: the shortest plan's length from the PDDL model (Fast Downward,
  optimal search), :func:`pddlkit.envs.craft.horizon`;
- :class:`LearnedHorizon`: a least-squares fit per item, ``h = a * missing + b`` (``missing`` =
  count wanted minus count held), on horizons recorded from trajectories
  (:meth:`LearnedHorizon.fit`); items never seen use the fit over all items;
- :class:`PlanOrder` and :class:`RandomOrder`: the ablations (no prediction).

``sample=False`` takes the smallest horizon (ties in plan order) instead of sampling.

What it cannot show in the crafting world: there are no positions, so every recipe application
costs one action in any order of independent goals; the selector saves travel in the paper's
Minecraft, and here its success and action counts equal plan order's by construction (the
Table 2 layout of ``benchmarks/deps.py`` says so under its rows).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Mapping, Optional, Protocol, Sequence

from pddlkit.envs.craft import choose_recipe, horizon, recipe_failure

from .goals import Goal


def _needs(goal: Goal) -> set[str]:
    recipe = choose_recipe(goal.kind, goal.item)
    if not hasattr(recipe, "materials"):
        return set()
    return {m for m, _ in recipe.materials} | ({recipe.tool} if recipe.tool else set())


def candidates(goals: Sequence[Goal], inventory: Mapping[str, int]) -> list[int]:
    """Indices of the remaining goals that may run now (the first one always)."""
    out = [0] if goals else []
    touched: set[str] = set()   # what earlier remaining goals make, use or consume
    for i, g in enumerate(goals):
        recipe = choose_recipe(g.kind, g.item)
        mine = _needs(g)
        if i and (hasattr(recipe, "materials") and not recipe_failure(recipe, inventory)
                  and g.item not in touched and not (mine & touched)):
            out.append(i)
        touched |= mine | {g.item}
    return out


class Predictor(Protocol):
    name: str

    def horizon(self, goal: Goal, inventory: Mapping[str, int]) -> Optional[float]: ...


class ExactHorizon:
    name = "exact"

    def horizon(self, goal: Goal, inventory: Mapping[str, int]) -> Optional[float]:
        return horizon(goal.item, goal.count, inventory)


@dataclass
class LearnedHorizon:
    """``h = a_item * missing + b_item`` fitted by least squares on recorded horizons."""

    name: str = "learned"
    per_item: dict = field(default_factory=dict)     # item -> (a, b)
    overall: tuple = (1.0, 0.0)

    @staticmethod
    def _fit(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
        n = len(points)
        mx = sum(x for x, _ in points) / n
        my = sum(y for _, y in points) / n
        var = sum((x - mx) ** 2 for x, _ in points)
        if var == 0:
            return (my / mx if mx else 0.0, 0.0) if mx else (0.0, my)
        a = sum((x - mx) * (y - my) for x, y in points) / var
        return a, my - a * mx

    def fit(self, records: Sequence[tuple[str, int, float]]) -> "LearnedHorizon":
        """``records``: (item, missing count, recipe applications it took)."""
        by_item: dict[str, list] = {}
        for item, missing, took in records:
            by_item.setdefault(item, []).append((float(missing), float(took)))
        self.per_item = {i: self._fit(p) for i, p in by_item.items()}
        every = [p for ps in by_item.values() for p in ps]
        if every:
            self.overall = self._fit(every)
        return self

    def horizon(self, goal: Goal, inventory: Mapping[str, int]) -> Optional[float]:
        missing = max(0, goal.count - inventory.get(goal.item, 0))
        a, b = self.per_item.get(goal.item, self.overall)
        return max(0.0, a * missing + b)


class PlanOrder:
    name = "order"

    def horizon(self, goal: Goal, inventory: Mapping[str, int]) -> Optional[float]:
        return None


class RandomOrder:
    name = "random"

    def horizon(self, goal: Goal, inventory: Mapping[str, int]) -> Optional[float]:
        return 0.0   # every candidate equally likely


PREDICTORS = {"exact": ExactHorizon, "learned": LearnedHorizon, "order": PlanOrder,
              "random": RandomOrder}


def select(goals: Sequence[Goal], inventory: Mapping[str, int], predictor: Predictor,
           rng: random.Random, sample: bool = True) -> int:
    """The index of the remaining goal to run next."""
    options = candidates(goals, inventory)
    if len(options) <= 1 or isinstance(predictor, PlanOrder):
        return 0
    horizons = [predictor.horizon(goals[i], inventory) for i in options]
    scored = [(i, h) for i, h in zip(options, horizons) if h is not None]
    if not scored:
        return 0
    if not sample:
        return min(scored, key=lambda ih: ih[1])[0]
    low = min(h for _, h in scored)
    weights = [math.exp(-(h - low)) for _, h in scored]
    return rng.choices([i for i, _ in scored], weights)[0]
