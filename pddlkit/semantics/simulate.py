"""The world-model service: try one action in a state and get the successor, or why not.

Environments with a PDDL model of their own (a native simulator beside it: MiniGrid, the
crafting world, SC2's tech tree, PLAP's skill annotations) ask the same question at every
step: *would this action do anything here, and if not, which precondition is false?*
:func:`simulate` answers it for a ground action, and :func:`first_applicable` for an action
named only by its schema (what a program or a skill line gives: "MOVE", not "(forward c1_1
c2_1 right)"), so each front end stops writing its own join and first-false-literal search.
The false parts come back in the precondition's own order (:func:`.formulas.unsatisfied`), so
the first is the one a message should name; :class:`MessageBook` turns it into the sentence an
environment prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

from ..pddl.model import And, Atom, Not, Or
from .formulas import Unsatisfied, holds
from .grounding import GroundAction, ground
from .state import State
from .world import World


@dataclass(frozen=True)
class Simulated:
    """One action tried in one state: the ``successor`` when it applies, else the
    ``unsatisfied`` precondition parts in order, or the ``problem`` that makes it no action
    of the domain at all (an unknown name, a wrong arity, an unknown or mistyped object)."""

    action: str
    successor: Optional[State]
    unsatisfied: tuple[Unsatisfied, ...] = ()
    problem: Optional[str] = None
    ground: Optional[GroundAction] = None

    @property
    def applicable(self) -> bool:
        return self.successor is not None

    @property
    def first(self) -> Optional[Unsatisfied]:
        """The first false precondition part (the one a message names), or None."""
        return self.unsatisfied[0] if self.unsatisfied else None


def _as_ground(world: World, action: Union[str, Sequence[str], GroundAction]
               ) -> Union[GroundAction, str]:
    if isinstance(action, GroundAction):
        return action
    parts = action.strip().strip("()").split() if isinstance(action, str) else list(action)
    if not parts:
        return "an empty action"
    name, args = parts[0].lower(), tuple(a.lower() for a in parts[1:])
    schema = world.domain.action_map.get(name)
    if schema is None:
        return f"the domain has no action '{name}'"
    if len(args) != len(schema.parameters):
        return f"{name} takes {len(schema.parameters)} argument(s), got {len(args)}"
    for arg, param in zip(args, schema.parameters):
        if arg not in world.object_types:
            return f"unknown object '{arg}'"
        if not world.is_of_type(arg, param.types):
            return f"'{arg}' is not of type {' or '.join(param.types)} required by {param.name}"
    return ground(schema, args)


def simulate(world: World, state: State, action: Union[str, Sequence[str], GroundAction]
             ) -> Simulated:
    """Try ``action`` ("(move a b)", ("move", "a", "b") or a GroundAction) in ``state``."""
    g = _as_ground(world, action)
    if isinstance(g, str):
        return Simulated(str(action), None, (), g)
    if g.applicable(state, world):
        return Simulated(str(g), g.apply(state, world), (), None, g)
    return Simulated(str(g), None, tuple(g.unsatisfied(state, world)), None, g)


def first_applicable(world: World, state: State, schemas: Iterable[str],
                     fixed: Optional[Mapping[str, str]] = None) -> Optional[GroundAction]:
    """The first ground action of the named ``schemas`` (in the order given, then in the
    world's binding order) that applies in ``state``, with ``fixed`` parameters bound; None
    when none does. This is what "the agent pressed MOVE" means in a model whose actions
    carry the cells and headings as parameters."""
    actions = world.domain.action_map
    for name in schemas:
        schema = actions[name]
        free = [p for p in schema.parameters if not fixed or p.name not in fixed]
        for binding in world.bindings(free):
            binding = {**(fixed or {}), **binding}
            g = ground(schema, tuple(binding[p.name] for p in schema.parameters))
            if g.applicable(state, world):
                return g
    return None


Template = Union[str, Callable[[tuple, Any], str]]


class MessageBook:
    """The sentences an environment prints for a false precondition: ``(predicate, True)``
    is the template when a needed atom is false, ``(predicate, False)`` when an atom that must
    be false is true. A template's ``{0}``, ``{1}``, ... are the atom's arguments as shown to
    the player (``show``); a callable gets ``(arguments, context)`` and returns the sentence.
    An atom with no template has no sentence (None): the caller decides what to say."""

    def __init__(self, templates: Mapping[tuple[str, bool], Template]) -> None:
        self.templates = dict(templates)

    def __contains__(self, key: tuple[str, bool]) -> bool:
        return key in self.templates

    def get(self, key: tuple[str, bool], default: Any = None) -> Any:
        return self.templates.get(key, default)

    def sentence(self, failed: Unsatisfied, show: Callable[[str], str] = lambda s: s,
                 context: Any = None) -> Optional[str]:
        key = failed.atom if failed.atom is not None else failed.fluent
        if key is None:
            return None
        predicate, args = key[0], tuple(key[1:])
        template = self.templates.get((predicate, not failed.negated))
        if template is None:
            return None
        if callable(template):
            return template(args, context)
        return template.format(*(show(a) for a in args))

    def first_sentence(self, simulated: Simulated, show: Callable[[str], str] = lambda s: s,
                       context: Any = None) -> Optional[str]:
        """The sentence for the first false part that has a template, or None."""
        for failed in simulated.unsatisfied:
            text = self.sentence(failed, show, context)
            if text:
                return text
        return None


def first_false_literal(formula: Any, state: State, binding: Mapping[str, str], world: World,
                        prefer: Optional[MessageBook] = None) -> Optional[Unsatisfied]:
    """The first literal that makes ``formula`` false under ``binding``, or None (it holds, or
    only a quantifier or a numeric part is false). Inside a disjunction no alternative is the
    first: the one ``prefer`` has a sentence for wins, positive requirements first (a closed
    door, rather than "there is a door"). This is what a text world blames for a refused
    command (:class:`~pddlkit.envs.pddl_world.PDDLWorldEnv`)."""
    if holds(formula, state, dict(binding), world):
        return None
    if isinstance(formula, Atom):
        return _literal(formula, binding, negated=False)
    if isinstance(formula, Not) and isinstance(formula.formula, Atom):
        return _literal(formula.formula, binding, negated=True)
    if isinstance(formula, And):
        for part in formula.parts:
            found = first_false_literal(part, state, binding, world, prefer)
            if found is not None:
                return found
        return None
    if isinstance(formula, Or):
        options = [x for x in (first_false_literal(p, state, binding, world, prefer)
                               for p in formula.parts) if x is not None]
        options.sort(key=lambda x: (x.negated, prefer is None
                                    or (x.atom[0], not x.negated) not in prefer))
        return options[0] if options else None
    return None


def _literal(atom: Atom, binding: Mapping[str, str], negated: bool) -> Unsatisfied:
    args = tuple(binding.get(a) if a.startswith("?") else a for a in atom.args)
    text = "(" + " ".join([atom.predicate, *(a or "?" for a in args)]) + ")"
    return Unsatisfied(f"(not {text})" if negated else text, (atom.predicate, *args), negated)
