"""Evaluating formulas and effects in a state, and explaining why a formula is false.

The explanation is what makes a failed step actionable: for ``(and (at ?t ?from) (not
(locked ?d)))`` it lists the ground literals that are false (``(at truck1 depot)``), not just
"precondition not satisfied".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Protocol

from ..pddl.model import (
    And, Atom, BinaryOp, Comparison, Exists, Forall, ForallEffect, Formula, FunctionTerm, Imply,
    Literal, Not, Number, NumericEffect, NumericExpr, Or, When,
)
from ..pddl.writer import write_formula
from .state import State, format_atom

class World(Protocol):
    """What evaluating a formula asks of the world it is evaluated in (a
    :class:`~.world.World` is one): the bindings of typed variables, the type test, and the
    domain. A protocol here, so this module needs nothing from ``world`` (which imports
    this one): no import cycle, not even one hidden behind TYPE_CHECKING."""

    domain: Any

    def bindings(self, variables) -> Any: ...

    def is_of_type(self, obj: str, types: tuple) -> bool: ...


def bind_arguments(args: tuple, binding: dict) -> tuple:
    return tuple(binding.get(a, a) for a in args)


def holds(f: Formula, state: State, binding: dict, world: "World") -> bool:
    if isinstance(f, Atom):
        args = bind_arguments(f.args, binding) if binding else f.args
        if f.predicate == "=":
            return len(args) == 2 and args[0] == args[1]
        return (f.predicate, *args) in state.atoms
    if isinstance(f, And):
        return all(holds(p, state, binding, world) for p in f.parts)
    if isinstance(f, Not):
        return not holds(f.formula, state, binding, world)
    if isinstance(f, Or):
        return any(holds(p, state, binding, world) for p in f.parts)
    if isinstance(f, Imply):
        return (not holds(f.condition, state, binding, world)) or holds(f.consequence, state, binding, world)
    if isinstance(f, Exists):
        return any(holds(f.body, state, {**binding, **b}, world)
                   for b in candidate_bindings(f.variables, f.body, state, binding, world))
    if isinstance(f, Forall):
        return all(holds(f.body, state, {**binding, **b}, world) for b in world.bindings(f.variables))
    if isinstance(f, Comparison):
        left, right = evaluate(f.left, state, binding), evaluate(f.right, state, binding)
        if left is None or right is None:
            return False
        return {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right,
                "=": left == right}[f.op]
    raise TypeError(f"not a formula: {f!r}")


def compile_formula(f: Formula) -> "Callable[[State, dict, World], bool]":
    """``check(state, binding, world)``, equal to ``holds(f, state, binding, world)``, with the
    formula's structure walked once instead of at every call: atoms, equality, ``not``,
    ``and``, ``or`` and ``imply`` become closures; quantifiers and comparisons are left to
    :func:`holds`. For checks repeated over many bindings (admissible commands)."""
    if isinstance(f, Atom):
        name, args = f.predicate, f.args
        if name == "=":
            if len(args) != 2:
                return lambda state, binding, world: False
            left, right = args
            return lambda state, binding, world: (binding.get(left, left)
                                                  == binding.get(right, right))
        if not any(a.startswith("?") for a in args):
            ground_atom = (name, *args)
            return lambda state, binding, world: ground_atom in state.atoms
        return lambda state, binding, world: (name, *[binding.get(a, a) for a in args]) \
            in state.atoms
    if isinstance(f, Not):
        inner = compile_formula(f.formula)
        return lambda state, binding, world: not inner(state, binding, world)
    if isinstance(f, (And, Or)):
        parts = [compile_formula(p) for p in f.parts]
        if isinstance(f, And):
            return lambda state, binding, world: all(p(state, binding, world) for p in parts)
        return lambda state, binding, world: any(p(state, binding, world) for p in parts)
    if isinstance(f, Imply):
        condition, consequence = compile_formula(f.condition), compile_formula(f.consequence)
        return lambda state, binding, world: (not condition(state, binding, world)
                                              or consequence(state, binding, world))
    return lambda state, binding, world: holds(f, state, binding, world)


def evaluate(e: NumericExpr, state: State, binding: dict) -> Optional[float]:
    if isinstance(e, Number):
        return e.value
    if isinstance(e, FunctionTerm):
        return state.value((e.name, *bind_arguments(e.args, binding)))
    if isinstance(e, BinaryOp):
        a, b = evaluate(e.left, state, binding), evaluate(e.right, state, binding)
        if a is None or b is None:
            return None
        if e.op == "+":
            return a + b
        if e.op == "-":
            return a - b
        if e.op == "*":
            return a * b
        return a / b if b else None
    raise TypeError(f"not a numeric expression: {e!r}")


def candidate_bindings(variables, body: Formula, state, binding: dict, world: "World"):
    """Bindings of ``variables`` that may satisfy ``body``: a superset of the true ones.

    When ``body`` is a conjunction with a positive atom over some of the variables (and
    otherwise bound arguments), only the state's atoms of that predicate can satisfy it, so the
    variables are read off those atoms instead of enumerating every object of their types. An
    ``(or ...)`` conjunct whose every disjunct has such an atom gives the union of theirs, which
    is used when it binds more arguments than the best plain atom (recursive derived rules such
    as PSR's ``upstream`` hide their selective atoms in disjunctions).
    """
    names = {v.name: v for v in variables}
    result = _candidates(names, body, state, binding, world)
    return world.bindings(variables) if result is None else result


def _atom_score(p: Atom, names: dict, binding: dict) -> int:
    if not any(a in names for a in p.args):
        return -1
    if not all(a in names or a in binding or not a.startswith("?") for a in p.args):
        return -1
    return sum(1 for a in p.args if a not in names) * 4 + len({a for a in p.args if a in names})


def _candidates(names: dict, body: Formula, state, binding: dict, world: "World"):
    """Candidate bindings (list of dicts over ``names``), or None when nothing narrows them."""
    parts = body.parts if isinstance(body, And) else (body,)
    chosen, best = None, -1
    equality = None
    ors = []
    for p in parts:
        if isinstance(p, Atom) and p.predicate == "=" and len(p.args) == 2:
            a, b = p.args
            if a in names and b not in names and (b in binding or not b.startswith("?")):
                equality = (a, binding.get(b, b))
        elif isinstance(p, Atom):
            score = _atom_score(p, names, binding)
            if score > best:
                chosen, best = p, score
        elif isinstance(p, Or) and p.parts:
            ors.append(p)
    if best < 4 and ors:  # no atom with a bound argument: try the disjunctions
        for disj in ors:
            union: dict = {}
            for d in disj.parts:
                cands = _candidates(names, d, state, binding, world)
                if cands is None:
                    union = None
                    break
                for c in cands:
                    union.setdefault(tuple(sorted(c.items())), c)
            if union is not None:
                return list(union.values())
    if chosen is None:
        if equality is None:
            return None
        var, value = equality
        if not world.is_of_type(value, names[var].types):
            return []
        rest_vars = [v for n, v in names.items() if n != var]
        return [{var: value, **extra} for extra in world.bindings(rest_vars)]
    out = []
    rest = [names[n] for n in names if n not in chosen.args]
    fixed = [(i, binding.get(a, a)) for i, a in enumerate(chosen.args, start=1) if a not in names]
    slots = [(i, a) for i, a in enumerate(chosen.args, start=1) if a in names]
    if fixed and hasattr(state, "atoms_with"):
        pool = min((state.atoms_with(chosen.predicate, i, v) for i, v in fixed), key=len)
    else:
        pool = state.by_predicate.get(chosen.predicate, ())
    for atom in list(pool):
        if len(atom) != len(chosen.args) + 1:
            continue
        if any(atom[i] != v for i, v in fixed):
            continue
        b: dict = {}
        ok = True
        for i, var in slots:
            val = atom[i]
            if b.get(var, val) != val or not world.is_of_type(val, names[var].types):
                ok = False
                break
            b[var] = val
        if not ok:
            continue
        if rest:
            # narrow the other variables by the body's other atoms, now that these are bound
            narrowed = _candidates({v.name: v for v in rest}, body, state, {**binding, **b},
                                   world)
            for extra in world.bindings(rest) if narrowed is None else narrowed:
                out.append({**b, **extra})
        else:
            out.append(b)
    return out


@dataclass(frozen=True)
class Unsatisfied:
    """One reason a condition is false: a ground literal (``atom``, ``negated`` when it must be
    false), a numeric condition on a fluent (``fluent``: its ground function term, the left
    side of the comparison), or a compound condition as text only."""

    text: str
    atom: Optional[tuple] = None
    negated: bool = False
    fluent: Optional[tuple] = None

    def __str__(self) -> str:
        return self.text


def unsatisfied(f: Formula, state: State, binding: dict, world: "World",
                _explain_derived: bool = True) -> list[Unsatisfied]:
    """The parts of ``f`` that are false in ``state`` (empty when ``f`` holds).

    A false derived atom is explained one level deep by its rule's false parts (deeper would
    loop on recursive rules and drown the message).
    """
    if holds(f, state, binding, world):
        return []
    if isinstance(f, Atom):
        atom = (f.predicate, *bind_arguments(f.args, binding))
        reason = _derived_reason(atom, state, world) if _explain_derived else ""
        return [Unsatisfied(format_atom(atom) + reason, atom, False)]
    if isinstance(f, Not) and isinstance(f.formula, Atom):
        atom = (f.formula.predicate, *bind_arguments(f.formula.args, binding))
        return [Unsatisfied(f"(not {format_atom(atom)})", atom, True)]
    if isinstance(f, And):
        out: list[Unsatisfied] = []
        for p in f.parts:
            out.extend(unsatisfied(p, state, binding, world, _explain_derived))
        return out
    if isinstance(f, Forall):
        for b in world.bindings(f.variables):
            inner = {**binding, **b}
            if not holds(f.body, state, inner, world):
                return unsatisfied(f.body, state, inner, world, _explain_derived)
    if isinstance(f, Comparison) and isinstance(f.left, FunctionTerm):
        fluent = (f.left.name, *bind_arguments(f.left.args, binding))
        return [Unsatisfied(ground_text(f, binding), fluent=fluent)]
    return [Unsatisfied(ground_text(f, binding))]


def _derived_reason(atom: tuple, state: State, world: "World") -> str:
    """For a false derived atom: ' (derived; false because ...)' naming its rule's false parts."""
    for rule in world.domain.derived:
        if rule.predicate.name == atom[0] and rule.predicate.arity == len(atom) - 1:
            inner = {p.name: v for p, v in zip(rule.predicate.parameters, atom[1:])}
            parts = unsatisfied(rule.condition, state, inner, world, False)
            if parts:
                shown = ", ".join(u.text for u in parts[:5])
                return f" (derived; false because {shown})"
    return ""


def ground_text(f: Formula, binding: dict) -> str:
    text = write_formula(f)
    for var, value in sorted(binding.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(var + ")", value + ")").replace(var + " ", value + " ")
    return " ".join(text.split())


def effect_changes(effects, state: State, binding: dict, world: "World"):
    """(adds, deletes, fluent updates) of ``effects`` evaluated in ``state``."""
    adds: list = []
    dels: list = []
    fluents: dict = {}
    _collect(effects, state, binding, world, adds, dels, fluents)
    return adds, dels, fluents


def _collect(effects, state, binding, world, adds, dels, fluents) -> None:
    for e in effects:
        if isinstance(e, Literal):
            atom = (e.atom.predicate, *bind_arguments(e.atom.args, binding))
            (adds if e.positive else dels).append(atom)
        elif isinstance(e, When):
            if holds(e.condition, state, binding, world):
                _collect(e.effects, state, binding, world, adds, dels, fluents)
        elif isinstance(e, ForallEffect):
            for b in world.bindings(e.variables):
                _collect(e.effects, state, {**binding, **b}, world, adds, dels, fluents)
        elif isinstance(e, NumericEffect):
            key = (e.target.name, *bind_arguments(e.target.args, binding))
            current = fluents.get(key, state.value(key))
            value = evaluate(e.value, state, binding)
            if value is None:
                continue
            if e.op == "assign":
                fluents[key] = value
            else:
                base = current if current is not None else 0.0
                fluents[key] = {
                    "increase": base + value, "decrease": base - value,
                    "scale-up": base * value, "scale-down": base / value if value else base,
                }[e.op]
