"""How far a state is from the goal, by the additive delete-relaxation heuristic (h_add).

Why here: agents that learn from reward (the TWOSOME agent, CoPiC's critic) face sparse
rewards, and a PDDL world knows more than "won or not": the estimated number of actions still
needed gives a potential for potential-based reward shaping (Ng, Harada and Russell 1999), which
leaves the optimal policies unchanged. h_add (Bonet and Geffner 2001) is cheap, informative and
needs no planner process.

The relaxation: delete effects are ignored; a negative literal costs nothing, except equality
and static predicates (which are evaluated exactly); ``or`` and ``exists`` take their cheapest
part, ``and`` and ``forall`` add their parts; an implication costs nothing (its condition may be
made false); numeric comparisons cost nothing. Conditional effects are read in the state the
estimate starts from. The result is ``inf`` when even the relaxed problem cannot reach the goal.
"""

from __future__ import annotations

import math
from typing import Optional

from ..pddl.model import And, Atom, Exists, Forall, ForallEffect, Formula, Imply, Not, Or, When
from .formulas import effect_changes
from .grounding import GroundAction, ground_actions
from .state import State
from .world import World

INF = math.inf


class RelaxedDistance:
    """``RelaxedDistance(world)(state)``: h_add of the world's goal from ``state``. The ground
    actions are enumerated once per world and reused for every state."""

    def __init__(self, world: World, goal: Optional[Formula] = None) -> None:
        self.world = world
        self.goal = goal if goal is not None else world.problem.goal
        self.static = {p.name for p in world.domain.predicates} - world.fluent_predicates
        self.actions: list[GroundAction] = list(ground_actions(world))
        # add effects that no state can change are read once (None: conditional, read per state)
        self._fixed_adds: list[Optional[list]] = [
            None if _conditional(a.action.effects) else
            effect_changes(a.action.effects, world.initial_state, a.binding, world)[0]
            for a in self.actions]

    def _cost(self, f: Formula, costs: dict, binding: dict, state: State) -> float:
        if isinstance(f, Atom):
            args = tuple(binding.get(a, a) for a in f.args)
            if f.predicate == "=":
                return 0.0 if len(args) == 2 and args[0] == args[1] else INF
            atom = (f.predicate, *args)
            if f.predicate in self.static:
                return 0.0 if atom in state.atoms else INF
            return costs.get(atom, INF)
        if isinstance(f, And):
            total = 0.0
            for part in f.parts:
                total += self._cost(part, costs, binding, state)
                if total == INF:
                    break
            return total
        if isinstance(f, Or):
            return min((self._cost(p, costs, binding, state) for p in f.parts), default=INF)
        if isinstance(f, Not):
            inner = f.formula
            exact = inner.predicate == "=" or inner.predicate in self.static \
                if isinstance(inner, Atom) else False
            if exact:
                return INF if self._cost(inner, costs, binding, state) == 0.0 else 0.0
            return 0.0
        if isinstance(f, Exists):
            return min((self._cost(f.body, costs, {**binding, **b}, state)
                        for b in self.world.bindings(f.variables)), default=INF)
        if isinstance(f, Forall):
            return sum(self._cost(f.body, costs, {**binding, **b}, state)
                       for b in self.world.bindings(f.variables))
        if isinstance(f, Imply):
            return 0.0
        return 0.0  # numeric comparisons: relaxed away

    def __call__(self, state: State) -> float:
        return self._cost(self.goal, self.costs(state), {}, state)

    def costs(self, state: State) -> dict:
        """Every atom the relaxed problem reaches from ``state``, with its h_add cost (0 for
        the atoms of ``state``); an atom not in the dict cannot be reached even relaxed."""
        costs: dict = {atom: 0.0 for atom in state.atoms}
        adds = [fixed if fixed is not None else
                effect_changes(a.action.effects, state, a.binding, self.world)[0]
                for a, fixed in zip(self.actions, self._fixed_adds)]
        changed = True
        while changed:
            changed = False
            for action, added in zip(self.actions, adds):
                pre = self._cost(action.action.precondition, costs, action.binding, state)
                if pre == INF:
                    continue
                for atom in added:
                    if pre + 1 < costs.get(atom, INF):
                        costs[atom] = pre + 1
                        changed = True
        return costs


def _conditional(effects) -> bool:
    """Whether some effect depends on the state (a ``when``, possibly under a ``forall``)."""
    return any(isinstance(e, When) or (isinstance(e, ForallEffect) and _conditional(e.effects))
               for e in effects)
