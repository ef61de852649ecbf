"""``refused_steps`` (issue 75): a step the world refused from the very facts a plan starts
from is not that plan's first step; the planner alone sees the guard.

Built from the household's dev seed 0 at 8336b36 (Qwen2.5-Coder 1.5B learning the domain):
``use creditcard 2`` was planned four times from the same five facts, each refused."""

from __future__ import annotations

import pddlkit
from pddlkit.formalizers.answer import Files
from pddlkit.formalizers.helps.refused_steps import START, guarded, refused_here
from pddlkit.semantics.transitions import Transition

DOMAIN = """(define (domain h)
  (:requirements :strips :typing :negative-preconditions)
  (:types receptacle obj)
  (:predicates (player ?r - receptacle) (holds ?o - obj ?r - receptacle))
  (:action gotolocation
    :parameters (?from - receptacle ?to - receptacle)
    :precondition (and (player ?from))
    :effect (and (player ?to) (not (player ?from))))
  (:action toggleobject
    :parameters (?l - obj ?r - receptacle)
    :precondition (and (player ?r))
    :effect (and (holds ?l ?r))))
"""
PROBLEM = """(define (problem p) (:domain h)
  (:objects countertop_1 cabinet_1 - receptacle creditcard_2 - obj)
  (:init (player countertop_1))
  (:goal (holds creditcard_2 countertop_1)))
"""
TOGGLE = "(toggleobject creditcard_2 countertop_1)"


def _plan(domain: str, problem: str) -> list[str]:
    result = pddlkit.plan(domain, problem, timeout=20)
    return [str(step) for step in result.plan.steps] if result.solved else []


def test_a_refused_step_is_kept_out_of_a_plans_first_step_only():
    """With the guard, the refused toggle cannot open the plan (the one-step plan is gone),
    but may follow other steps (leave and come back: the state is not the one refused in);
    without a guard the planner gives the refused step again."""
    assert _plan(DOMAIN, PROBLEM) == [TOGGLE]
    domain, problem = guarded(DOMAIN, PROBLEM, [TOGGLE])
    plan = _plan(domain, problem)
    assert plan and plan[0] != TOGGLE and plan[-1] == TOGGLE, plan
    assert f"({START})" in problem and "(refused-here-toggleobject creditcard_2 " \
        "countertop_1)" in problem
    # a step no action of the domain has (or of another arity) guards nothing
    assert guarded(DOMAIN, PROBLEM, ["(useobject creditcard_2)"]) is None
    assert guarded(DOMAIN, PROBLEM, ["(toggleobject creditcard_2)"]) is None
    assert guarded("(define", PROBLEM, [TOGGLE]) is None


def test_only_a_refusal_from_the_same_facts_is_kept_out():
    before = frozenset({"(player countertop_1)"})
    refused = Transition(TOGGLE, before, False, where="step 8: use creditcard 2")
    taken = Transition("(gotolocation countertop_1 cabinet_1)", before, True)
    elsewhere = Transition("(toggleobject creditcard_2 cabinet_1)",
                           frozenset({"(player cabinet_1)"}), False)
    assert refused_here([refused, taken, elsewhere, refused], before) == [TOGGLE]
    assert refused_here([refused], frozenset({"(player cabinet_1)"})) == []


def test_the_formalizer_gives_the_planner_the_guard_and_keeps_the_models_files():
    """While the model writes the domain, ``planning_files`` guards the files when the facts a
    plan starts from are those a refused command of this episode was tried in, counts the
    help and says the step (a ``steps-kept-out`` event); the files themselves are untouched,
    an earlier episode's refusal is not this one's, and a frozen domain is planned as it is."""
    from pddlkit.formalizers.modular import ModularFormalizer
    from pddlkit.llm.scripted import ScriptedLLM

    writing = ModularFormalizer(ScriptedLLM(["none"]), "household", schema_check=True,
                                refused_steps=True)
    files = Files(DOMAIN, PROBLEM)
    assert writing.planning_files(files) == files            # nothing refused yet
    writing.evidence.add([Transition(TOGGLE, frozenset({"(player countertop_1)"}), False)])
    given = writing.planning_files(files)
    assert given != files and f"({START})" in given.problem
    assert files.problem == PROBLEM                           # the model's, as written
    work = dict(writing.work_done())
    assert work["help-acted"]["counts"] == {"refused-steps": 1}
    assert work["steps-kept-out"]["steps"][0].startswith(TOGGLE)
    writing.evidence.new_episode()                            # another game's refusal
    assert writing.planning_files(files) == files
    off = ModularFormalizer(ScriptedLLM(["none"]), "household", schema_check=True)
    off.evidence.add([Transition(TOGGLE, frozenset({"(player countertop_1)"}), False)])
    assert off.planning_files(files) == files                 # the help off
    frozen = ModularFormalizer(ScriptedLLM(["none"]), "household", schema_check=True,
                               refused_steps=True)
    frozen.fixed_domain = DOMAIN
    frozen.evidence.add([Transition(TOGGLE, frozenset({"(player countertop_1)"}), False)])
    assert frozen.planning_files(files) == files
