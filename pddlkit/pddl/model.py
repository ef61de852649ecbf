"""The PDDL object model: immutable, typed dataclasses.

Names are stored lower-cased (PDDL is case-insensitive). Terms are plain strings: a variable
starts with ``?``, anything else is an object or constant name; this keeps ground atoms cheap
(``("at", "a", "b")`` tuples in states) and models hashable.

Every node that a diagnostic may point at carries ``pos`` = (line, column) of its source. It
is excluded from equality and hashing, so ``parse(write(x)) == x`` compares meaning, not layout.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterator, Optional, Union

Pos = Optional[tuple]


def _pos() -> Pos:
    return field(default=None, compare=False, repr=False)


# --------------------------------------------------------------------------- names


@dataclass(frozen=True, slots=True)
class TypedName:
    """A declared name with its type(s): an object, a constant or a parameter.

    ``types`` has one entry normally and several for ``(either t1 t2)``.
    """

    name: str
    types: tuple[str, ...] = ("object",)
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class TypeDecl:
    """``child - parent`` in :types; several parents for ``(either ...)``."""

    name: str
    parents: tuple[str, ...] = ("object",)
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Predicate:
    name: str
    parameters: tuple[TypedName, ...] = ()
    pos: Pos = _pos()

    @property
    def arity(self) -> int:
        return len(self.parameters)


@dataclass(frozen=True, slots=True)
class Function:
    """A numeric fluent declaration, e.g. ``(total-cost) - number``."""

    name: str
    parameters: tuple[TypedName, ...] = ()
    type: str = "number"
    pos: Pos = _pos()


# --------------------------------------------------------------------------- numeric expressions


@dataclass(frozen=True, slots=True)
class Number:
    value: float


@dataclass(frozen=True, slots=True)
class FunctionTerm:
    name: str
    args: tuple[str, ...] = ()
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class BinaryOp:
    op: str  # + - * /
    left: "NumericExpr"
    right: "NumericExpr"


NumericExpr = Union[Number, FunctionTerm, BinaryOp]


# --------------------------------------------------------------------------- formulas


@dataclass(frozen=True, slots=True)
class Atom:
    """``(pred t1 ... tn)``; equality is the predicate ``=``."""

    predicate: str
    args: tuple[str, ...] = ()
    pos: Pos = _pos()

    def ground(self, binding: dict) -> tuple:
        if not binding:
            return (self.predicate, *self.args)
        return (self.predicate, *[binding.get(a, a) for a in self.args])


@dataclass(frozen=True, slots=True)
class Not:
    formula: "Formula"
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class And:
    parts: tuple["Formula", ...] = ()
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Or:
    parts: tuple["Formula", ...] = ()
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Imply:
    condition: "Formula"
    consequence: "Formula"
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Exists:
    variables: tuple[TypedName, ...]
    body: "Formula"
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Forall:
    variables: tuple[TypedName, ...]
    body: "Formula"
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Comparison:
    """A numeric condition ``(< e1 e2)``; parsed and written, evaluated over known fluents."""

    op: str  # < <= > >= =
    left: NumericExpr
    right: NumericExpr
    pos: Pos = _pos()


Formula = Union[Atom, Not, And, Or, Imply, Exists, Forall, Comparison]

TRUE = And(())


# --------------------------------------------------------------------------- effects


@dataclass(frozen=True, slots=True)
class Literal:
    """An add effect (``positive``) or a delete effect ``(not atom)``."""

    atom: Atom
    positive: bool = True


@dataclass(frozen=True, slots=True)
class When:
    condition: Formula
    effects: tuple["Effect", ...]
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class ForallEffect:
    variables: tuple[TypedName, ...]
    effects: tuple["Effect", ...]
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class NumericEffect:
    """``(increase (total-cost) 1)`` and friends: op is increase/decrease/assign/scale-up/scale-down."""

    op: str
    target: FunctionTerm
    value: NumericExpr
    pos: Pos = _pos()


Effect = Union[Literal, When, ForallEffect, NumericEffect]


# --------------------------------------------------------------------------- actions and files


@dataclass(frozen=True, slots=True)
class Action:
    name: str
    parameters: tuple[TypedName, ...] = ()
    precondition: Formula = TRUE
    effects: tuple[Effect, ...] = ()
    pos: Pos = _pos()

    @property
    def arity(self) -> int:
        return len(self.parameters)


@dataclass(frozen=True, slots=True)
class DerivedPredicate:
    """``(:derived (pred ?x - t) condition)``."""

    predicate: Predicate
    condition: Formula
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Metric:
    direction: str  # minimize | maximize
    expression: NumericExpr


@dataclass(frozen=True)
class Domain:
    name: str
    requirements: tuple[str, ...] = ()
    types: tuple[TypeDecl, ...] = ()
    constants: tuple[TypedName, ...] = ()
    predicates: tuple[Predicate, ...] = ()
    functions: tuple[Function, ...] = ()
    actions: tuple[Action, ...] = ()
    derived: tuple[DerivedPredicate, ...] = ()
    file: Optional[str] = field(default=None, compare=False, repr=False)
    source: Optional[str] = field(default=None, compare=False, repr=False)

    @cached_property
    def predicate_map(self) -> dict[str, Predicate]:
        return {p.name: p for p in self.predicates}

    @cached_property
    def action_map(self) -> dict[str, Action]:
        return {a.name: a for a in self.actions}

    @cached_property
    def function_map(self) -> dict[str, Function]:
        return {f.name: f for f in self.functions}

    @cached_property
    def type_parents(self) -> dict[str, tuple[str, ...]]:
        """Each declared type to its direct parents ('object' is the implicit root)."""
        parents: dict[str, tuple[str, ...]] = {"object": ()}
        for t in self.types:
            if t.name == "object":
                continue
            own = tuple(x for x in t.parents if x != t.name) or ("object",)
            parents[t.name] = tuple(dict.fromkeys(parents.get(t.name, ()) + own))
        for t in self.types:
            for p in t.parents:
                parents.setdefault(p, ("object",) if p != "object" else ())
        for name, ps in parents.items():
            if len(ps) > 1 and "object" in ps:
                parents[name] = tuple(x for x in ps if x != "object")
        return parents

    def action(self, name: str) -> Action:
        return self.action_map[name.lower()]

    def predicate(self, name: str) -> Predicate:
        return self.predicate_map[name.lower()]


@dataclass(frozen=True)
class Problem:
    name: str
    domain_name: str
    requirements: tuple[str, ...] = ()
    objects: tuple[TypedName, ...] = ()
    init: tuple[Atom, ...] = ()
    numeric_init: tuple[tuple[FunctionTerm, float], ...] = ()
    goal: Formula = TRUE
    metric: Optional[Metric] = None
    file: Optional[str] = field(default=None, compare=False, repr=False)
    source: Optional[str] = field(default=None, compare=False, repr=False)
    #: the atoms of ``(not ...)`` entries in ``:init``: false under the closed world, so not
    #: part of the state, but kept so that ``check`` can name an undeclared predicate or
    #: object in them, which Fast Downward's translator rejects
    negated_init: tuple[Atom, ...] = field(default=(), compare=False, repr=False)


# --------------------------------------------------------------------------- walking


def iter_atoms(formula: Formula) -> Iterator[Atom]:
    """Every atom occurrence in a formula (including ``=``), left to right."""
    return (f for f in _iter_parts(formula) if isinstance(f, Atom))


def iter_comparisons(formula: Formula) -> Iterator[Comparison]:
    """Every numeric condition in a formula (``(>= (fuel ?a) 2)``), left to right."""
    return (f for f in _iter_parts(formula) if isinstance(f, Comparison))


def _iter_parts(formula: Formula) -> Iterator[Formula]:
    """Every sub-formula, the formula itself first, left to right."""
    stack = [formula]
    while stack:
        f = stack.pop()
        yield f
        if isinstance(f, (And, Or)):
            stack.extend(reversed(f.parts))
        elif isinstance(f, Not):
            stack.append(f.formula)
        elif isinstance(f, Imply):
            stack.append(f.consequence)
            stack.append(f.condition)
        elif isinstance(f, (Exists, Forall)):
            stack.append(f.body)


def iter_effect_literals(effects: tuple[Effect, ...]) -> Iterator[Literal]:
    return (e for e in _iter_leaf_effects(effects) if isinstance(e, Literal))


def iter_numeric_effects(effects: tuple[Effect, ...]) -> Iterator[NumericEffect]:
    """Every numeric effect, inside conditional and universal effects too."""
    return (e for e in _iter_leaf_effects(effects) if isinstance(e, NumericEffect))


def _iter_leaf_effects(effects: tuple[Effect, ...]) -> Iterator[Effect]:
    """The effects inside conditional and universal effects, and the rest, in order."""
    for e in effects:
        if isinstance(e, (When, ForallEffect)):
            yield from _iter_leaf_effects(e.effects)
        else:
            yield e


def iter_numeric_terms(expr: NumericExpr) -> Iterator[FunctionTerm]:
    if isinstance(expr, FunctionTerm):
        yield expr
    elif isinstance(expr, BinaryOp):
        yield from iter_numeric_terms(expr.left)
        yield from iter_numeric_terms(expr.right)
