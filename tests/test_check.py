"""Static checks: each kind of mistake is found, with a hint that says what to change."""

from __future__ import annotations

import pytest

from pddlkit.check import check

BASE = """(define (domain d)
  (:requirements :strips :typing :negative-preconditions)
  (:types room item)
  (:constants hall - room)
  (:predicates (at ?r - room) (in ?i - item ?r - room) (holding ?i - item))
  ACTIONS)"""
GOOD_ACTION = """(:action take :parameters (?i - item ?r - room)
    :precondition (and (at ?r) (in ?i ?r)) :effect (and (holding ?i) (not (in ?i ?r))))"""
PROBLEM = """(define (problem p) (:domain d) (:objects kitchen - room apple - item)
  (:init (at kitchen) (in apple kitchen)) (:goal GOAL))"""


def domain(actions=GOOD_ACTION):
    return BASE.replace("ACTIONS", actions)


def problem(goal="(holding apple)"):
    return PROBLEM.replace("GOAL", goal)


def test_good_files_have_no_diagnostics():
    report = check(domain(), problem())
    assert report.ok and report.diagnostics == []


def _one(report, code):
    found = [d for d in report.diagnostics if d.code == code]
    assert found, report.format()
    return found[0]


@pytest.mark.parametrize("action,code,hint_part", [
    ("(:action a :parameters (?r - room) :precondition (at ?loc) :effect (at ?r))",
     "undeclared-variable", "declare ?loc in :parameters of a"),
    ("(:action a :parameters (?r - room) :precondition (att ?r) :effect (at ?r))",
     "undeclared-predicate", "did you mean 'at'?"),
    ("(:action a :parameters (?r - room) :precondition (in ?r) :effect (at ?r))",
     "arity", "pass exactly 2 argument(s)"),
    ("(:action a :parameters (?r - place) :precondition (at ?r) :effect (at ?r))",
     "undeclared-type", "(:types"),
    ("(:action a :parameters (?r - room) :precondition (at garden) :effect (at ?r))",
     "undeclared-constant", "(:constants"),
    ("(:action a :parameters (?r ?r - room) :precondition (at ?r) :effect (at ?r))",
     "duplicate-parameter", "rename"),
    (GOOD_ACTION + GOOD_ACTION, "duplicate-action", "remove one"),
])
def test_domain_errors(action, code, hint_part):
    report = check(domain(action))
    d = _one(report, code)
    assert d.is_error and hint_part in d.hint and d.line > 0


def test_type_mismatch_is_a_warning_that_says_the_atom_never_holds():
    report = check(domain("(:action a :parameters (?i - item) :precondition (at ?i) :effect (holding ?i))"))
    d = _one(report, "type-mismatch")
    assert not d.is_error and "never hold" in d.message


@pytest.mark.parametrize("action,code", [
    ("(:action a :parameters (?r - room) :precondition (and) :effect (at ?r))", "empty-precondition"),
    ("(:action a :parameters (?r - room) :precondition (at ?r) :effect (and))", "empty-effect"),
    ("(:action a :parameters (?r - room) :precondition (or (at ?r) (at hall)) :effect (at ?r))",
     "undeclared-requirement"),
])
def test_domain_warnings(action, code):
    report = check(domain(action))
    assert not _one(report, code).is_error and report.ok


def test_unsupported_requirement():
    report = check(domain().replace(":strips", ":strips :durative-actions"))
    assert _one(report, "unsupported-requirement").is_error


@pytest.mark.parametrize("prob,code,error", [
    (problem().replace("(:domain d)", "(:domain other)"), "domain-name-mismatch", False),
    (problem().replace("(in apple kitchen)", "(in apple garden)"), "undeclared-constant", True),
    (problem().replace("apple - item", "apple - fruit"), "undeclared-type", True),
    (problem().replace("apple - item", "apple - item apple - item"), "duplicate-object", True),
    (problem().replace("kitchen - room", "kitchen hall - room"), "object-shadows-constant", True),
    (problem("(at apple)"), "type-mismatch", False),
    (problem("(in apple hall)"), "unreachable-goal", False),
])
def test_problem_checks(prob, code, error):
    d = _one(check(domain(), prob), code)
    assert d.is_error == error and d.hint


def test_diagnostics_point_into_the_right_file(tmp_path):
    dom = tmp_path / "domain.pddl"
    prob = tmp_path / "problem.pddl"
    dom.write_text(domain())
    prob.write_text(problem().replace("(in apple kitchen)", "(in apple garden)"))
    d = _one(check(dom, prob), "undeclared-constant")
    assert d.file == str(prob) and d.line == 2 and "garden" in d.source_line


def test_check_never_raises_on_garbage():
    report = check("}{ not pddl at all", "(((")
    assert not report.ok and report.errors
