"""Semantics: applicability, effects (conditional, universal, costs), derived predicates and
plan validation results."""

from __future__ import annotations

from pddlkit import World, parse_domain, parse_plan, parse_problem, validate_plan
from pddlkit.semantics.grounding import ground, ground_actions

DOMAIN = parse_domain("""(define (domain lights)
  (:requirements :adl :derived-predicates :action-costs)
  (:types room switch)
  (:predicates (at ?r - room) (wired ?s - switch ?r - room) (on ?s - switch)
               (lit ?r - room) (adjacent ?a ?b - room) (all-lit))
  (:functions (total-cost) - number)
  (:derived (all-lit) (forall (?r - room) (lit ?r)))
  (:action go :parameters (?a ?b - room)
    :precondition (and (at ?a) (adjacent ?a ?b) (not (= ?a ?b)))
    :effect (and (not (at ?a)) (at ?b) (increase (total-cost) 2)))
  (:action flip :parameters (?s - switch ?r - room)
    :precondition (and (at ?r) (exists (?x - room) (wired ?s ?x)))
    :effect (and (on ?s) (increase (total-cost) 1)
                 (forall (?x - room) (when (wired ?s ?x) (lit ?x))))))""")

PROBLEM = parse_problem("""(define (problem p) (:domain lights)
  (:objects r1 r2 - room s1 s2 - switch)
  (:init (at r1) (adjacent r1 r2) (adjacent r2 r1) (wired s1 r1) (wired s2 r2) (= (total-cost) 0))
  (:goal (all-lit)) (:metric minimize (total-cost)))""")


def test_conditional_universal_effects_costs_and_derived_goal():
    result = validate_plan(DOMAIN, PROBLEM, parse_plan("(flip s1 r1)\n(go r1 r2)\n(flip s2 r2)\n"))
    assert result.valid and result.goal_satisfied and result.cost == 4
    assert ("all-lit",) in result.final_state


def test_failing_step_lists_the_false_precondition_atoms():
    result = validate_plan(DOMAIN, PROBLEM, ["(go r1 r2)", "(go r1 r2)"])
    assert not result.valid and result.failure.index == 1
    assert [u.text for u in result.failure.unsatisfied] == ["(at r1)"]
    assert "step 2 (go r1 r2)" in result.explain()


def test_goal_not_reached_lists_missing_goal():
    result = validate_plan(DOMAIN, PROBLEM, ["(flip s1 r1)"])
    assert not result.valid and result.failure is None and not result.goal_satisfied
    [missing] = result.unsatisfied_goal
    assert missing.atom == ("all-lit",) and "because (lit r2)" in missing.text


def test_malformed_steps_are_reported_not_raised():
    for plan, reason in [(["(jump r1)"], "unknown-action"), (["(go r1)"], "arity"),
                         (["(go r1 r9)"], "unknown-object"), (["(go s1 r2)"], "type")]:
        result = validate_plan(DOMAIN, PROBLEM, plan)
        assert result.failure.reason == reason


def test_equality_in_preconditions():
    world = World(DOMAIN, PROBLEM)
    assert not ground(DOMAIN.action("go"), ("r1", "r1")).applicable(world.initial_state, world)


def test_grounding_prunes_on_static_facts():
    world = World(DOMAIN, PROBLEM)
    names = {str(g) for g in ground_actions(world)}
    assert "(go r1 r2)" in names and "(go r1 r1)" not in names  # adjacent is static
    assert "(flip s1 r2)" in names


def test_states_are_immutable_and_hashable():
    world = World(DOMAIN, PROBLEM)
    s0 = world.initial_state
    s1 = ground(DOMAIN.action("go"), ("r1", "r2")).apply(s0, world)
    assert ("at", "r1") in s0 and ("at", "r2") in s1 and s0 != s1
    assert len({s0, s1, World(DOMAIN, PROBLEM).initial_state}) == 2


def _naive_derived(world, state):
    """The derived atoms by the textbook fixpoint: every typed binding of every rule, all
    rules of a stratum again until nothing changes (no narrowing, no deltas)."""
    from pddlkit.semantics.formulas import holds
    from pddlkit.semantics.state import State

    names = {r.predicate.name for r in world.domain.derived}
    atoms = {a for a in state.atoms if a[0] not in names}
    for stratum in world.derived_strata:
        changed = True
        while changed:
            changed = False
            view = State(frozenset(atoms), state.fluents)
            for rule in stratum:
                params = rule.predicate.parameters
                for b in world.bindings(params):
                    head = (rule.predicate.name, *[b[p.name] for p in params])
                    if head not in atoms and holds(rule.condition, view, b, world):
                        atoms.add(head)
                        changed = True
    return frozenset(atoms)


def test_semi_naive_derived_predicates_equal_the_textbook_fixpoint(ipc_dir):
    """PSR's recursive ``upstream``/``unsafe``/``fed`` on the states along a real plan and on
    random switchings of its devices: the semi-naive evaluation derives exactly the atoms the
    plain fixpoint derives."""
    import random

    from pddlkit.semantics.state import State

    base = ipc_dir / "psr-middle"
    domain = parse_domain((base / "domain.pddl").read_text())
    problem = parse_problem((base / "p02.pddl").read_text())
    world = World(domain, problem)
    state = world.initial_state
    states = [state]
    for step in parse_plan((base / "p02.plan").read_text()).steps:
        state = ground(domain.action_map[step.name], step.args).apply(state, world)
        states.append(state)
    devices = sorted({a[1] for a in world.initial_state.atoms if a[0] == "con"} - {"earth"})
    rng = random.Random(0)
    for _ in range(6):
        closed = {d for d in devices if rng.random() < 0.6}
        atoms = {a for a in world.initial_state.atoms if a[0] != "closed"}
        states.append(State(frozenset(atoms | {("closed", d) for d in closed}), {}))
    derived = {r.predicate.name for r in domain.derived}
    for s in states:
        got = world.with_derived(s).atoms
        assert got == _naive_derived(world, s)
        assert any(a[0] in derived for a in got)
