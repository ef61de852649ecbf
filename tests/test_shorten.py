"""Greedy action elimination (``pddlkit.semantics.shorten``): a walk away and back is taken
out of a plan, a plan that needs every step is returned as it is, and what is left is valid
and reaches the goal."""

from pddlkit.pddl.plan import parse_plan
from pddlkit.semantics.shorten import without_needless_steps
from pddlkit.semantics.validate import validate_plan
from pddlkit.pddl.reader import read_domain, read_problem

DOMAIN = """(define (domain walk) (:requirements :strips :typing) (:types place thing)
  (:predicates (at ?p - place) (on ?t - thing ?p - place) (holding ?t - thing))
  (:action go :parameters (?from ?to - place) :precondition (at ?from)
     :effect (and (at ?to) (not (at ?from))))
  (:action take :parameters (?t - thing ?p - place) :precondition (and (at ?p) (on ?t ?p))
     :effect (and (holding ?t) (not (on ?t ?p))))
  (:action put :parameters (?t - thing ?p - place) :precondition (and (at ?p) (holding ?t))
     :effect (and (on ?t ?p) (not (holding ?t)))))"""
PROBLEM = """(define (problem p) (:domain walk) (:objects a b c - place vase - thing)
  (:init (at b) (on vase b)) (:goal (on vase c)))"""


def test_a_walk_away_and_back_is_taken_out_of_the_plan():
    """The household's lama-first plans (dev seeds 2-3): "go to a, go to b" with the player
    at b, then the take; the walk goes, the rest is still a plan to the goal."""
    plan = parse_plan(["(go b a)", "(go a b)", "(take vase b)", "(go b c)", "(put vase c)"])
    short = without_needless_steps(DOMAIN, PROBLEM, plan)
    assert [str(s) for s in short.steps] == ["(take vase b)", "(go b c)", "(put vase c)"]
    checked = validate_plan(read_domain(DOMAIN)[0], read_problem(PROBLEM)[0], short)
    assert checked.valid and checked.goal_satisfied


def test_a_plan_that_needs_every_step_is_returned_as_it_is():
    plan = parse_plan(["(take vase b)", "(go b c)", "(put vase c)"])
    assert without_needless_steps(DOMAIN, PROBLEM, plan) is plan
    assert without_needless_steps("(define (domain", PROBLEM, plan) is plan   # unreadable
