"""Interval relaxation of numeric fluents: the values each fluent can possibly take, for
why-no-plan on numeric tasks too large to search (issue 49).

Each ground fluent keeps an interval ``[lo, hi]``, starting at its initial value. An action runs
in the relaxation when its preconditions on facts hold in the delete relaxation
(:func:`~pddlkit.planners.explain.action_bindings`) and every numeric comparison of its
top-level conjunction can hold for some values inside the current intervals. A running action
can run again and again, so an ``increase`` by an amount that can be positive lifts ``hi`` to
infinity, a ``decrease`` lowers ``lo`` to minus infinity, an ``assign`` widens the interval to
the assigned value's, and a ``scale-up``/``scale-down`` widens it to infinity on every side
its sign allows. This repeats until no interval and no action changes (a few rounds: a bound
moves at most once, to infinity). The intervals over-approximate every reachable value, so a
goal comparison that cannot hold within them can never hold: that is a proof, and
:func:`why_comparison_fails` says it with the chain behind it (the fluent's interval, the
actions that would move it the way the goal needs, and why each never runs: a fact never
reached, or a numeric condition of its own that cannot hold, whose fluent is explained the same
way, two levels down by default).

Kept coarse on purpose: comparisons under ``or``/``not``/quantifiers count as satisfiable (the
relaxation stays sound), a fluent with no initial value has no interval (a comparison reading
it counts as satisfiable, as ``check`` reports it uninitialised), and the work is capped
(:data:`MAX_BINDINGS` bindings per round; past it the intervals are widened to infinity and
nothing is claimed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

from ..pddl.model import (And, BinaryOp, Comparison, FunctionTerm, NumericEffect, Number, When,
                          iter_numeric_terms)
from ..semantics.formulas import bind_arguments, ground_text
from ..semantics.world import World

INF = math.inf
#: bindings tried per round before the relaxation gives up (every interval then unbounded)
MAX_BINDINGS = 200_000
MAX_ROUNDS = 50

Span = tuple[float, float]


def _mul(a: Span, b: Span) -> Span:
    products = [x * y for x in a for y in b if not (math.isinf(x) and y == 0)
                and not (math.isinf(y) and x == 0)] or [0.0]
    return min(products), max(products)


def span_of(expr, bounds: dict, binding: dict) -> Optional[Span]:
    """The interval of a numeric expression under ``bounds``; None when it reads a fluent with
    no value (then nothing is claimed about it)."""
    if isinstance(expr, Number):
        return expr.value, expr.value
    if isinstance(expr, FunctionTerm):
        return bounds.get((expr.name, *bind_arguments(expr.args, binding)))
    if isinstance(expr, BinaryOp):
        a, b = span_of(expr.left, bounds, binding), span_of(expr.right, bounds, binding)
        if a is None or b is None:
            return None
        if expr.op == "+":
            return a[0] + b[0], a[1] + b[1]
        if expr.op == "-":
            return a[0] - b[1], a[1] - b[0]
        if expr.op == "*":
            return _mul(a, b)
        if b[0] <= 0 <= b[1]:      # a divisor that can be 0: anything
            return -INF, INF
        return _mul(a, (1 / b[1], 1 / b[0]))
    return None


def can_hold(comparison: Comparison, bounds: dict, binding: dict) -> bool:
    """Whether some values inside the intervals make ``comparison`` true."""
    left, right = span_of(comparison.left, bounds, binding), \
        span_of(comparison.right, bounds, binding)
    if left is None or right is None:
        return True
    op = comparison.op
    if op == ">=":
        return left[1] >= right[0]
    if op == ">":
        return left[1] > right[0]
    if op == "<=":
        return left[0] <= right[1]
    if op == "<":
        return left[0] < right[1]
    return left[0] <= right[1] and right[0] <= left[1]     # =


def _comparisons(formula) -> list[Comparison]:
    if isinstance(formula, Comparison):
        return [formula]
    if isinstance(formula, And):
        return [c for p in formula.parts for c in _comparisons(p)]
    return []


def _numeric_effects(effects) -> list[NumericEffect]:
    out: list[NumericEffect] = []
    for e in effects:
        if isinstance(e, NumericEffect):
            out.append(e)
        elif isinstance(e, When):        # may fire: counted as firing (sound)
            out.extend(_numeric_effects(e.effects))
        else:
            out.extend(_numeric_effects(getattr(e, "effects", ())))
    return out


@dataclass
class NumericReach:
    """What the interval relaxation found: each ground fluent's interval, which schemas
    changed which fluents and why others never ran, and whether the work cap was hit (then
    ``bounds`` are all unbounded and nothing is proven)."""

    bounds: dict = field(default_factory=dict)
    #: (schema, ground fluent it would change) -> (its first numeric condition that failed,
    #: the binding), for the bindings whose facts could hold but that never ran
    blocked: dict = field(default_factory=dict)
    #: (schema, ground fluent) pairs that ran
    moved: set = field(default_factory=set)
    capped: bool = False


def numeric_reachability(world: World, reach, bindings) -> NumericReach:
    """The intervals of every fluent (see the module docstring); ``reach`` is the delete
    relaxation's :class:`~pddlkit.planners.explain.Reachability` and ``bindings`` its
    :func:`~pddlkit.planners.explain.action_bindings` (passed in: that module calls this one)."""

    bounds: dict = {k: (v, v) for k, v in world.initial_state.fluents.items()}
    out = NumericReach(bounds)
    numeric = [(a, _comparisons(a.precondition), _numeric_effects(a.effects))
               for a in world.domain.actions]
    for _ in range(MAX_ROUNDS):
        changed = False
        tried = 0
        for action, conditions, effects in numeric:
            if action.name not in reach.fired:
                continue
            for b in bindings(action, reach.reached, reach.by_pred, world):
                tried += 1
                if tried > MAX_BINDINGS:
                    out.bounds = {k: (-INF, INF) for k in bounds}
                    out.capped = True
                    return out
                targets = [(e, (e.target.name, *bind_arguments(e.target.args, b)))
                           for e in effects]
                failed = next((c for c in conditions if not can_hold(c, bounds, b)), None)
                if failed is not None:
                    for _, key in targets:
                        out.blocked.setdefault((action.name, key), (failed, b))
                    continue
                for e, key in targets:
                    out.moved.add((action.name, key))
                    now = bounds.get(key)
                    value = span_of(e.value, bounds, b)
                    wider = _widened(e.op, now, value)
                    if wider != now:
                        bounds[key] = wider
                        changed = True
        if not changed:
            break
    for pair in out.moved:
        out.blocked.pop(pair, None)
    return out


def _widened(op: str, now: Optional[Span], value: Optional[Span]) -> Span:
    lo, hi = now if now is not None else (INF, -INF)
    if value is None:
        return -INF, INF
    if op == "assign":
        return min(lo, value[0]), max(hi, value[1])
    if now is None:              # changing a fluent with no value: it has none after either
        return -INF, INF
    if op == "decrease":
        value = (-value[1], -value[0])
        op = "increase"
    if op == "increase":
        return (-INF if value[0] < 0 else lo), (INF if value[1] > 0 else hi)
    # scale-up / scale-down: the value moves away from or toward 0, on its own side
    return (-INF if lo < 0 else min(lo, 0.0)), (INF if hi > 0 else max(hi, 0.0))


def _fmt(span: Optional[Span]) -> str:
    if span is None:
        return "has no value"
    lo, hi = span
    if lo == hi:
        return f"is always {lo:g}"
    return f"stays within [{lo:g}, {hi:g}]"


def why_comparison_fails(comparison: Comparison, world: World, found: NumericReach,
                         depth: int = 2) -> str:
    """Why ``comparison`` (ground) can never hold: each fluent it reads, its interval, and the
    actions that would move it the needed way with why none of them runs, ``depth`` levels
    down the chain (a blocking condition's own fluent is explained the same way)."""
    need_up = comparison.op in (">=", ">", "=")
    parts = [_fluent_story((t.name, *t.args), up, world, found, depth)
             for expr, up in ((comparison.left, need_up), (comparison.right, not need_up))
             for t in iter_numeric_terms(expr)]
    return "; ".join(parts) or "its terms have no values that make it true"


def _fluent_story(key: tuple, up: bool, world: World, found: NumericReach, depth: int) -> str:
    """``(energy r1) is always 2 (no action that can run increases it: rest never runs: ...)``"""
    text = f"({' '.join(key)}) {_fmt(found.bounds.get(key))}"
    movers = _movers(world, key[0], up)
    verb = "increases" if up else "decreases"
    if not movers:
        return text + f" (no action {verb} {key[0]})"
    reasons = [_why_never_runs(a, key, world, found, depth) for a in movers[:3]]
    return text + f" (what {verb} it: " + "; ".join(reasons) + ")"


def _movers(world: World, function: str, up: bool) -> list:
    """The schemas with an effect that can move ``function`` up (or down)."""
    wanted = {"increase", "assign", "scale-up", "scale-down"} if up else \
        {"decrease", "assign", "scale-up", "scale-down"}
    return [a for a in world.domain.actions
            if any(e.target.name == function and e.op in wanted
                   for e in _numeric_effects(a.effects))]


def _why_never_runs(action, key: tuple, world: World, found: NumericReach, depth: int) -> str:
    """Why ``action`` never changes the ground fluent ``key``."""
    if (action.name, key) in found.moved:
        return f"{action.name} runs, within these bounds"
    if (action.name, key) not in found.blocked:
        return f"{action.name} never runs: its conditions on facts are never met"
    condition, binding = found.blocked[(action.name, key)]
    text = f"{action.name} never runs: it needs {ground_text(condition, binding)}"
    if depth > 0:
        up = condition.op in (">=", ">", "=")
        stories = [_fluent_story((t.name, *bind_arguments(t.args, binding)), up, world, found,
                                 depth - 1) for t in iter_numeric_terms(condition.left)]
        if stories:
            text += ", and " + ", ".join(stories[:2])
    return text
