"""Write the object model back to PDDL text.

The output is canonical and indented for people (and LLM prompts): one section per block,
one action field per line, conjunctions split over lines when they are long. Reading the
output gives back an equal model: ``parse(write(x)) == x``.
"""

from __future__ import annotations

from .model import (
    Action, And, Atom, Comparison, DerivedPredicate, Domain, Effect, Exists, Forall,
    ForallEffect, Formula, FunctionTerm, Imply, Literal, Not, Number, NumericEffect, NumericExpr,
    Or, Problem, TypedName, When,
)

_WRAP = 72


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def write_typed(names, *, force_types: bool = False) -> str:
    """``a b - t c - u``: consecutive names of the same type share one '- t'."""
    names = list(names)
    # An untyped group followed by a typed one would inherit its type: be explicit then.
    force_types = force_types or any(tn.types != ("object",) for tn in names)
    parts: list[str] = []
    group: list[str] = []
    current = None
    for tn in names:
        types = tn.types
        if types != current and group:
            parts.append(_group(group, current, force_types))
            group = []
        current = types
        group.append(tn.name)
    if group:
        parts.append(_group(group, current, force_types))
    return " ".join(parts)


def _group(names: list[str], types, force: bool) -> str:
    if types == ("object",) and not force:
        return " ".join(names)
    if len(types) == 1:
        return " ".join(names) + " - " + types[0]
    return " ".join(names) + " - (either " + " ".join(types) + ")"


def write_expr(e: NumericExpr) -> str:
    if isinstance(e, Number):
        return _num(e.value)
    if isinstance(e, FunctionTerm):
        return "(" + " ".join((e.name, *e.args)) + ")"
    return f"({e.op} {write_expr(e.left)} {write_expr(e.right)})"


def write_atom(a: Atom) -> str:
    return "(" + " ".join((a.predicate, *a.args)) + ")"


def write_formula(f: Formula, indent: int = 0) -> str:
    if isinstance(f, Atom):
        return write_atom(f)
    if isinstance(f, Not):
        return f"(not {write_formula(f.formula, indent + 5)})"
    if isinstance(f, (And, Or)):
        word = "and" if isinstance(f, And) else "or"
        if not f.parts:
            return f"({word})"
        inner = [write_formula(p, indent + 2) for p in f.parts]
        flat = f"({word} " + " ".join(inner) + ")"
        if len(flat) + indent <= _WRAP and "\n" not in flat:
            return flat
        pad = " " * (indent + 2)
        return f"({word}\n" + "\n".join(pad + x for x in inner) + ")"
    if isinstance(f, Imply):
        return f"(imply {write_formula(f.condition, indent + 2)} {write_formula(f.consequence, indent + 2)})"
    if isinstance(f, (Exists, Forall)):
        word = "exists" if isinstance(f, Exists) else "forall"
        return (f"({word} ({write_typed(f.variables)})\n" + " " * (indent + 2)
                + write_formula(f.body, indent + 2) + ")")
    if isinstance(f, Comparison):
        return f"({f.op} {write_expr(f.left)} {write_expr(f.right)})"
    raise TypeError(f"not a formula: {f!r}")


def write_effect(e: Effect, indent: int = 0) -> str:
    if isinstance(e, Literal):
        return write_atom(e.atom) if e.positive else f"(not {write_atom(e.atom)})"
    if isinstance(e, When):
        return (f"(when {write_formula(e.condition, indent + 6)}\n" + " " * (indent + 2)
                + write_effects(e.effects, indent + 2) + ")")
    if isinstance(e, ForallEffect):
        return (f"(forall ({write_typed(e.variables)})\n" + " " * (indent + 2)
                + write_effects(e.effects, indent + 2) + ")")
    if isinstance(e, NumericEffect):
        return f"({e.op} {write_expr(e.target)} {write_expr(e.value)})"
    raise TypeError(f"not an effect: {e!r}")


def write_effects(effects, indent: int = 0) -> str:
    if len(effects) == 1:
        return write_effect(effects[0], indent)
    return write_formula_like("and", [write_effect(e, indent + 2) for e in effects], indent)


def write_formula_like(word: str, inner: list[str], indent: int) -> str:
    flat = f"({word} " + " ".join(inner) + ")" if inner else f"({word})"
    if len(flat) + indent <= _WRAP and "\n" not in flat:
        return flat
    pad = " " * (indent + 2)
    return f"({word}\n" + "\n".join(pad + x for x in inner) + ")"


def write_action(a: Action) -> str:
    lines = [f"  (:action {a.name}", f"    :parameters ({write_typed(a.parameters)})"]
    lines.append(f"    :precondition {write_formula(a.precondition, 18)}")
    lines.append(f"    :effect {write_effects(a.effects, 12) if a.effects else '(and)'})")
    return "\n".join(lines)


def _signature(name: str, parameters) -> str:
    """``(name ?a - t ?b)``: the head of a predicate, function or derived-predicate declaration."""
    return "(" + " ".join([name] + ([write_typed(parameters)] if parameters else [])) + ")"


def write_derived(d: DerivedPredicate) -> str:
    head = _signature(d.predicate.name, d.predicate.parameters)
    return f"  (:derived {head}\n    {write_formula(d.condition, 4)})"


def write_domain(domain: Domain) -> str:
    out = [f"(define (domain {domain.name})"]
    if domain.requirements:
        out.append(f"  (:requirements {' '.join(domain.requirements)})")
    if domain.types:
        decls = [TypedName(t.name, t.parents) for t in domain.types]
        out.append(f"  (:types {write_typed(decls)})")
    if domain.constants:
        out.append(f"  (:constants {write_typed(domain.constants)})")
    # (:predicates) is written even when empty: Fast Downward expects it
    preds = ["    " + _signature(p.name, p.parameters)
             for p in domain.predicates]
    out.append("  (:predicates" + ("\n" + "\n".join(preds) if preds else "") + ")")
    if domain.functions:
        funcs = []
        for f in domain.functions:
            sig = _signature(f.name, f.parameters)
            funcs.append(f"    {sig} - {f.type}")
        out.append("  (:functions\n" + "\n".join(funcs) + ")")
    for d in domain.derived:
        out.append(write_derived(d))
    for a in domain.actions:
        out.append(write_action(a))
    return "\n".join(out) + ")\n"


def write_problem(problem: Problem) -> str:
    out = [f"(define (problem {problem.name})", f"  (:domain {problem.domain_name})"]
    if problem.requirements:
        out.append(f"  (:requirements {' '.join(problem.requirements)})")
    if problem.objects:
        out.append(f"  (:objects {write_typed(problem.objects)})")
    init = [write_atom(a) for a in problem.init]
    init += [f"(= {write_expr(t)} {_num(v)})" for t, v in problem.numeric_init]
    out.append("  (:init" + "".join("\n    " + x for x in init) + ")")
    out.append(f"  (:goal {write_formula(problem.goal, 9)})")
    if problem.metric is not None:
        out.append(f"  (:metric {problem.metric.direction} {write_expr(problem.metric.expression)})")
    return "\n".join(out) + ")\n"
