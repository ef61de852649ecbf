"""Ground actions: instantiate, test and apply them.

``ground_actions`` enumerates every instantiation of every action over the typed objects,
pruning early on static preconditions (predicates no action changes), which keeps it linear in
the number of *useful* groundings for the LLM-sized problems pddlkit mostly sees.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from ..pddl.model import Action, And, Atom
from .formulas import Unsatisfied, effect_changes, holds, unsatisfied
from .state import State
from .world import World


@dataclass(frozen=True)
class GroundAction:
    action: Action
    args: tuple[str, ...]
    binding: dict = field(compare=False, hash=False, repr=False)

    @property
    def name(self) -> str:
        return self.action.name

    def __str__(self) -> str:
        return "(" + " ".join((self.action.name, *self.args)) + ")"

    def applicable(self, state: State, world: World) -> bool:
        return holds(self.action.precondition, state, self.binding, world)

    def unsatisfied(self, state: State, world: World) -> list[Unsatisfied]:
        return unsatisfied(self.action.precondition, state, self.binding, world)

    def apply(self, state: State, world: World) -> State:
        adds, dels, fluents = effect_changes(self.action.effects, state, self.binding, world)
        return world.with_derived(state.with_changes(adds, dels, fluents))


def ground(action: Action, args: tuple[str, ...]) -> GroundAction:
    binding = {p.name: a for p, a in zip(action.parameters, args)}
    return GroundAction(action, tuple(args), binding)


def ground_actions(world: World) -> Iterator[GroundAction]:
    static = {p.name for p in world.domain.predicates} - world.fluent_predicates
    init = world.initial_state.atoms
    for action in world.domain.actions:
        pre = action.precondition
        parts = pre.parts if isinstance(pre, And) else (pre,)
        checks = [p for p in parts if isinstance(p, Atom) and p.predicate in static]
        params = action.parameters
        names = [p.name for p in params]
        domains = [world.objects_of(p.types) for p in params]
        # check each static atom as soon as its last variable is bound
        ready: list[list[Atom]] = [[] for _ in params]
        for atom in checks:
            idx = max((names.index(a) for a in atom.args if a in names), default=-1)
            if idx >= 0:
                ready[idx].append(atom)
        binding: dict = {}

        def rec(i: int):
            if i == len(params):
                yield GroundAction(action, tuple(binding[n] for n in names), dict(binding))
                return
            for obj in domains[i]:
                binding[names[i]] = obj
                if all(_static_ok(a, binding, init) for a in ready[i]):
                    yield from rec(i + 1)
            binding.pop(names[i], None)

        yield from rec(0)


def _static_ok(atom: Atom, binding: dict, init) -> bool:
    args = tuple(binding.get(a, a) for a in atom.args)
    if atom.predicate == "=":
        return args[0] == args[1]
    return (atom.predicate, *args) in init
