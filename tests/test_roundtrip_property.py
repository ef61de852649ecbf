"""Property: for generated domains and problems, parse(write(x)) == x."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pddlkit import parse_domain, parse_problem, write_domain, write_problem
from pddlkit.pddl.model import (
    Action, And, Atom, Domain, Exists, Forall, ForallEffect, Imply, Literal, Not, Or, Predicate,
    Problem, TypedName, TypeDecl, When,
)

NAMES = st.sampled_from(["a", "b", "room", "door-1", "x_y", "item2"])
TYPES = ["object", "room", "item"]
VARS = ["?x", "?y", "?z"]
PREDICATES = {"p": 0, "q": 1, "r": 2}


def atoms(variables):
    def build(pred):
        n = PREDICATES[pred]
        return st.tuples(*[st.sampled_from(variables + ["c1"])] * n).map(lambda a: Atom(pred, a))
    return st.sampled_from(sorted(PREDICATES)).flatmap(build)


def formulas(variables):
    base = atoms(variables)
    return st.recursive(base, lambda inner: st.one_of(
        inner.map(Not),
        st.lists(inner, min_size=0, max_size=3).map(lambda p: And(tuple(p))),
        st.lists(inner, min_size=1, max_size=3).map(lambda p: Or(tuple(p))),
        st.tuples(inner, inner).map(lambda t: Imply(*t)),
        inner.map(lambda b: Exists((TypedName("?w", ("room",)),), b)),
        inner.map(lambda b: Forall((TypedName("?w", ("item",)),), b)),
    ), max_leaves=6)


def effects(variables):
    lit = st.tuples(atoms(variables), st.booleans()).map(lambda t: Literal(*t))
    return st.lists(st.one_of(
        lit,
        st.tuples(formulas(variables), st.lists(lit, min_size=1, max_size=2)).map(
            lambda t: When(t[0], tuple(t[1]))),
        st.lists(lit, min_size=1, max_size=2).map(
            lambda e: ForallEffect((TypedName("?v", ("object",)),), tuple(e))),
    ), min_size=1, max_size=4).map(tuple)


@st.composite
def domains(draw):
    params = tuple(TypedName(v, (draw(st.sampled_from(TYPES)),)) for v in VARS[:draw(st.integers(0, 3))])
    names = [p.name for p in params]
    actions = []
    for i in range(draw(st.integers(1, 3))):
        actions.append(Action(f"act{i}", params, draw(formulas(names + ["?w"])), draw(effects(names))))
    preds = tuple(Predicate(n, tuple(TypedName(f"?a{k}", ("object",)) for k in range(ar)))
                  for n, ar in sorted(PREDICATES.items()))
    return Domain(draw(NAMES), (":adl",), (TypeDecl("room", ("object",)), TypeDecl("item", ("object",))),
                  (TypedName("c1", ("room",)),), preds, (), tuple(actions))


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(domains())
def test_domain_round_trip(domain):
    assert parse_domain(write_domain(domain)) == domain


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(NAMES, st.sampled_from(TYPES)), max_size=5, unique_by=lambda t: t[0]),
       formulas([]))
def test_problem_round_trip(objects, goal):
    objs = tuple(TypedName(n, (t,)) for n, t in objects)
    init = tuple(Atom("q", (n,)) for n, _ in objects)
    problem = Problem("prob", "dom", (), objs, init, (), goal)
    assert parse_problem(write_problem(problem)) == problem
