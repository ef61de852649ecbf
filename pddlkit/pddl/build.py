"""Building PDDL models in code: small constructors over :mod:`pddlkit.pddl.model`.

Why: the environments that carry a native simulator (the crafting world, SC2's tech tree,
MiniGrid, PLAP's MicroRTS battlefield) also carry a PDDL model of the same world, and those
models used to be f-strings. A typo there (a missing parenthesis, a parameter left untyped)
surfaced only when Fast Downward refused the text, far from the line that wrote it. Built from
the model's dataclasses, a model is checked as it is made (:func:`action` refuses a variable
its parameters do not declare), goes to the planner as an object (``pddlkit.plan`` takes a
:class:`~pddlkit.pddl.model.Domain`), feeds :class:`~pddlkit.semantics.world.World` without a
parse, and prints through :mod:`~pddlkit.pddl.writer` when a person or an LLM should read it.

The names follow PDDL: ``atom("count", "plank", "?n")`` is ``(count plank ?n)``; ``neg(a)``
is a negative precondition, ``delete(a)`` a delete effect; parameters are written the way PDDL
declares them, ``typed("?a ?b - num", "?x")``. Atoms written as text (``"(have-scv)"``) are
read with :func:`parse_atom`, so a short model can stay readable.
"""

from __future__ import annotations

from typing import Iterable, Sequence, Union

from .model import (TRUE, Action, And, Atom, Domain, Effect, Formula, FunctionTerm, Literal,
                    Not, Predicate, Problem, TypeDecl, TypedName)

AtomLike = Union[Atom, str]


class ModelBuildError(ValueError):
    """A model built in code that is not well formed (names the action and the fix)."""


def parse_atom(text: str) -> Atom:
    """``"(count plank ?n)"`` or ``"count plank ?n"`` as an :class:`Atom` (lower-cased)."""
    parts = text.strip().strip("()").split()
    if not parts or "(" in text.strip()[1:-1] or ")" in text.strip()[1:-1]:
        raise ModelBuildError(f"not one atom: {text!r}; write it as '(predicate arg ...)'")
    return Atom(parts[0].lower(), tuple(p.lower() for p in parts[1:]))


def atom(predicate: str, *args: str) -> Atom:
    """``atom("count", "plank", "?n")`` is ``(count plank ?n)``."""
    return Atom(predicate.lower(), tuple(str(a).lower() for a in args))


def _atom(a: AtomLike) -> Atom:
    return a if isinstance(a, Atom) else parse_atom(a)


def neg(a: AtomLike) -> Not:
    """A negative precondition ``(not a)``."""
    return Not(_atom(a))


def delete(a: AtomLike) -> Literal:
    """A delete effect ``(not a)``."""
    return Literal(_atom(a), positive=False)


def add(a: AtomLike) -> Literal:
    """An add effect."""
    return Literal(_atom(a), positive=True)


def typed(*groups: str) -> tuple[TypedName, ...]:
    """Names as PDDL declares them: ``typed("?a ?b - num", "?i - item", "?x")``; a group
    without ``- type`` is of type object."""
    out: list[TypedName] = []
    for group in groups:
        names, _, kind = group.partition(" - ")
        kind = kind.strip().lower() or "object"
        out += [TypedName(n.lower(), (kind,)) for n in names.split()]
    return tuple(out)


def conjunction(parts: Iterable[Union[Formula, str]]) -> Formula:
    """``(and ...)`` of ``parts`` (a lone part stays itself; none is TRUE)."""
    items = tuple(_atom(p) if isinstance(p, str) else p for p in parts)
    if not items:
        return TRUE
    return items[0] if len(items) == 1 else And(items)


def _variables(formula: object) -> set[str]:
    found: set[str] = set()
    stack = [formula]
    while stack:
        f = stack.pop()
        if isinstance(f, Atom):
            found.update(a for a in f.args if a.startswith("?"))
        elif isinstance(f, Literal):
            stack.append(f.atom)
        else:
            for name in ("formula", "body", "condition", "consequence"):
                part = getattr(f, name, None)
                if part is not None:
                    stack.append(part)
            stack.extend(getattr(f, "parts", ()))
            stack.extend(getattr(f, "effects", ()))
    return found


def action(name: str, parameters: Sequence[TypedName] = (),
           precondition: Iterable[Union[Formula, str]] = (),
           effects: Iterable[Union[Effect, str]] = ()) -> Action:
    """One action; a string or an atom as an effect is an add effect. Every ``?variable`` used must be a
    parameter (the error names the action and the variable)."""
    pre = conjunction(precondition)
    effs = tuple(add(e) if isinstance(e, (str, Atom)) else e for e in effects)
    declared = {p.name for p in parameters}
    loose = sorted((_variables(pre) | set().union(*map(_variables, effs))) - declared)
    if loose:
        raise ModelBuildError(f"action {name}: {', '.join(loose)} used but not a parameter; "
                              f"add it to the parameters")
    return Action(name.lower(), tuple(parameters), pre, effs)


def domain(name: str, *, requirements: Sequence[str] = (":strips",),
           types: Sequence[str] = (), constants: Sequence[TypedName] = (),
           predicates: Sequence[Union[str, Predicate]] = (), functions: Sequence = (),
           actions: Sequence[Action] = ()) -> Domain:
    """A domain; ``types`` as PDDL declares them (``"item num"``, ``"door - object"``) and
    ``predicates`` as signatures (``"(count ?i - item ?n - num)"``)."""
    decls = [TypeDecl(t.name, t.types) for t in typed(*types)]
    preds = [p if isinstance(p, Predicate) else _signature(p) for p in predicates]
    return Domain(name.lower(), tuple(requirements), tuple(decls), tuple(constants),
                  tuple(preds), tuple(functions), tuple(actions))


def _signature(text: str) -> Predicate:
    inner = text.strip().strip("()").split(None, 1)
    if not inner:
        raise ModelBuildError(f"empty predicate signature {text!r}")
    params = typed(*_groups(inner[1])) if len(inner) > 1 else ()
    return Predicate(inner[0].lower(), params)


def _groups(text: str) -> list[str]:
    """``"?i - item ?n - num"`` -> ``["?i - item", "?n - num"]``."""
    words, groups, current = text.split(), [], []
    i = 0
    while i < len(words):
        if words[i] == "-" and i + 1 < len(words):
            groups.append(" ".join(current) + " - " + words[i + 1])
            current, i = [], i + 2
            continue
        current.append(words[i])
        i += 1
    if current:
        groups.append(" ".join(current))
    return groups


def problem(name: str, domain_name: str, *, objects: Sequence[TypedName] = (),
            init: Iterable[AtomLike] = (), numeric: Iterable[tuple[str, float]] = (),
            goal: Iterable[Union[Formula, str]] = (),
            requirements: Sequence[str] = ()) -> Problem:
    """A problem; ``numeric`` holds ``("(own worker)", 3)`` pairs for numeric fluents."""
    values = []
    for term, value in numeric:
        a = parse_atom(term)
        values.append((FunctionTerm(a.predicate, a.args), float(value)))
    return Problem(name.lower(), domain_name.lower(), tuple(requirements), tuple(objects),
                   tuple(dict.fromkeys(_atom(a) for a in init)), tuple(values),
                   conjunction(goal))

