"""The additive delete-relaxation heuristic (pddlkit.semantics.heuristic): zero at the goal,
falling along a plan, infinite when even the relaxed goal is out of reach."""

from __future__ import annotations

import math

from pddlkit import parse_domain, parse_problem
from pddlkit.semantics.heuristic import RelaxedDistance
from pddlkit.semantics.world import World


def test_relaxed_distance_guides_the_household():
    from pddlkit.envs import make
    from pddlkit.semantics.heuristic import RelaxedDistance

    env = make("household", receptacles=8, difficulty="pick_and_place")
    env.reset(seed=0)  # put a creditcard (in the closed fridge) on the countertop
    h = RelaxedDistance(env.world)
    seen = [h(env.state)]
    for command in ["go to fridge 1", "open fridge 1", "take creditcard 1 from fridge 1",
                    "go to countertop 1", "put creditcard 1 in countertop 1"]:
        assert env.step(command).error is None, command
        seen.append(h(env.state))
    assert env.won and seen[-1] == 0
    assert all(a > b for a, b in zip(seen, seen[1:])), seen  # every step of the plan is progress
    env.reset(seed=0)
    detour = env.step("go to sofa 1") if "go to sofa 1" in env.admissible_commands() else \
        env.step("go to desk 1")
    assert detour.error is None and h(env.state) >= seen[0]


DOMAIN = """(define (domain keys) (:requirements :strips :negative-preconditions)
  (:predicates (at ?r) (link ?a ?b) (has-key) (key-at ?r) (open))
  (:action move :parameters (?a ?b) :precondition (and (at ?a) (link ?a ?b))
    :effect (and (at ?b) (not (at ?a))))
  (:action take :parameters (?r) :precondition (and (at ?r) (key-at ?r) (not (has-key)))
    :effect (has-key))
  (:action unlock :parameters (?r) :precondition (and (at ?r) (has-key)) :effect (open)))"""


def _world(init: str) -> World:
    problem = parse_problem(f"""(define (problem p) (:domain keys) (:objects a b c)
      (:init {init}) (:goal (open)))""")
    return World(parse_domain(DOMAIN), problem)


def test_relaxed_distance_counts_and_detects_dead_ends():
    world = _world("(at a) (link a b) (link b c) (key-at c)")
    h = RelaxedDistance(world)
    # at b: 1, at c: 2, has-key: take at c = 1 + 2 = 3; open: unlock where the agent already is
    # (at a: 0) = 1 + 0 + 3 = 4, the length of the real plan (move, move, take, unlock)
    assert h(world.initial_state) == 4
    blocked = _world("(at a) (link a b) (key-at c)")  # c is out of reach
    assert math.isinf(RelaxedDistance(blocked)(blocked.initial_state))
    done = _world("(at a) (open)")
    assert RelaxedDistance(done)(done.initial_state) == 0
