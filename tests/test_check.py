"""Static checks: each kind of mistake is found, with a hint that says what to change."""

from __future__ import annotations

import pytest

from pddlkit.checks import check

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
    assert _one(report, "temporal-unsupported").is_error


TEMPORAL = """(define (domain t) (:requirements :durative-actions)
 (:predicates (p) (q))
 (:durative-action go :parameters () :duration (= ?duration 2)
  :condition (at start (p)) :effect (at end (q))))"""


def test_a_temporal_domain_is_said_once():
    """Issue 71: a durative action got "unknown section ... did you mean ':action'?", the
    requirement a stale "classical planning only", and the goal it adds an unreachable-goal
    warning; now one error says no planner here plans temporal domains, and what to do."""
    report = check(TEMPORAL, "(define (problem tp) (:domain t) (:init (p)) (:goal (q)))")
    assert [d.code for d in report.diagnostics] == ["temporal-unsupported"], report.format()
    only = report.diagnostics[0]
    assert "durative action" in only.message and "no planner in pddlkit" in only.message
    assert only.line == 3 and "did you mean" not in (only.hint or "")
    assert "temporal planner" in only.hint


def test_functions_other_than_total_cost_are_numeric_not_costs():
    """Issue 71: ``(:functions (energy) (samples))`` was "costs features" needing
    :action-costs; and numbers used with no :numeric-fluents passed the Fast Downward check
    that refuses them when it is declared."""
    numeric = """(define (domain r) (:requirements :strips)
 (:predicates (done)) (:functions (energy) (samples))
 (:action sample :parameters () :precondition (>= (energy) 3)
  :effect (and (decrease (energy) 3) (increase (samples) 1) (done))))"""
    task = "(define (problem p) (:domain r) (:init (= (energy) 5) (= (samples) 0)) (:goal (done)))"
    for_pddl = check(numeric, task, planner=None)
    assert for_pddl.ok and "numeric" in for_pddl.features and "costs" not in for_pddl.features
    assert not any("costs" in d.message for d in for_pddl.diagnostics), for_pddl.format()
    for_fd = check(numeric, task)
    assert [d.code for d in for_fd.errors] == ["unsupported-requirement"]
    assert "numeric" in for_fd.errors[0].message and for_fd.errors[0].line == 3
    costs = numeric.replace("(energy) (samples)", "(total-cost)").replace(
        ":precondition (>= (energy) 3)", ":precondition (and)").replace(
        "(decrease (energy) 3) (increase (samples) 1)", "(increase (total-cost) 1)")
    assert check(costs, planner=None).features & {"costs", "numeric"} == {"costs"}


@pytest.mark.parametrize("prob,code,error", [
    # Fast Downward refuses a problem for another domain (its translator exits 31)
    (problem().replace("(:domain d)", "(:domain other)"), "domain-name-mismatch", True),
    (problem().replace("(in apple kitchen)", "(in apple garden)"), "undeclared-object", True),
    (problem().replace("apple - item", "apple - fruit"), "undeclared-type", True),
    (problem().replace("apple - item", "apple - item apple - item"), "duplicate-object", True),
    (problem().replace("kitchen - room", "kitchen hall - room"), "object-shadows-constant", True),
    (problem("(at apple)"), "type-mismatch", False),
    (problem("(in apple hall)"), "unreachable-goal", False),
])
def test_problem_checks(prob, code, error):
    d = _one(check(domain(), prob), code)
    assert d.is_error == error and d.hint


@pytest.mark.parametrize("negated, code", [
    ("(not (in apple garden))", "undeclared-object"),
    ("(not (on apple kitchen))", "undeclared-predicate"),
])
def test_a_negated_init_atom_is_checked_like_the_translator_reads_it(negated, code):
    """`(not ...)` in :init is only a warning, but Fast Downward's translator still reads the
    atom and rejects an undeclared object in it (a 1.5B model wrote `(not (in Room r1))`,
    2026-11-29): `check` names it as an error, where it is, and the planner agrees."""
    import pddlkit

    prob = problem().replace("(in apple kitchen))", f"(in apple kitchen) {negated})")
    report = check(domain(), prob)
    found = _one(report, code)
    assert found.is_error and found.hint and found.line == 2, report.format()
    assert not _one(report, "negated-init-atom").is_error
    raw = pddlkit.plan(domain(), prob, cache=False, check=False, explain=False)
    assert not raw.solved, raw.format()


def test_a_derived_predicate_listed_in_init_is_a_warning_and_a_negated_one_is_not_read_as_it():
    dom = BASE.replace("(holding ?i - item))", "(holding ?i - item) (busy))").replace(
        "(:requirements :strips", "(:requirements :strips :derived-predicates").replace(
        "ACTIONS", "(:derived (busy) (exists (?i - item) (holding ?i))) " + GOOD_ACTION)
    listed = check(dom, problem().replace("(at kitchen)", "(at kitchen) (busy)"))
    assert not _one(listed, "derived-in-init").is_error
    negated = check(dom, problem().replace("(at kitchen)", "(at kitchen) (not (busy))"))
    assert "derived-in-init" not in {d.code for d in negated.diagnostics}, negated.format()


def test_a_problem_for_another_domain_is_only_a_warning_for_pddl_itself():
    prob = problem().replace("(:domain d)", "(:domain other)")
    assert not _one(check(domain(), prob, planner=None), "domain-name-mismatch").is_error


def test_a_missing_object_says_where_to_add_it_with_its_type_and_counts_its_uses():
    prob = problem().replace("(in apple kitchen)", "(in apple garden) (at garden)")
    d = _one(check(domain(), prob), "undeclared-object")
    assert d.hint.endswith("add garden - room to (:objects ...) of the problem"), d.hint
    assert d.file == "<problem>" and d.source_line[d.column - 1:].startswith("garden")
    assert "(and 1 more use of the same name)" in d.message


def test_diagnostics_point_into_the_right_file(tmp_path):
    dom = tmp_path / "domain.pddl"
    prob = tmp_path / "problem.pddl"
    dom.write_text(domain())
    prob.write_text(problem().replace("(in apple kitchen)", "(in apple garden)"))
    d = _one(check(dom, prob), "undeclared-object")
    assert d.file == str(prob) and d.line == 2 and "garden" in d.source_line


def test_check_never_raises_on_garbage():
    report = check("}{ not pddl at all", "(((")
    assert not report.ok and report.errors


# --------------------------------------------------------------------------- what Fast Downward rejects

COST_DOMAIN = """(define (domain t) (:requirements :strips :typing :action-costs)
 (:types a b)
 (:predicates (p ?x - PTYPE) (q))
 (:functions (total-cost) - number (c) - number)
 (:action go :parameters (?x - a) :precondition (p ?x)
   :effect (and (q) (increase (total-cost) EFFECT))))"""
COST_PROBLEM = """(define (problem pp) (:domain t) (:objects x - a)
 (:init (p x) (= (total-cost) 0) (= (c) VALUE))
 (:goal (q)) (:metric minimize (total-cost)))"""


def _cost_files(value="3", effect="(c)", ptype="a"):
    return (COST_DOMAIN.replace("PTYPE", ptype).replace("EFFECT", effect),
            COST_PROBLEM.replace("VALUE", value))


@pytest.mark.parametrize("value, effect, ptype, code", [
    ("-3", "(c)", "a", "negative-number"),
    ("-0", "(c)", "a", "negative-number"),
    ("1", "-2", "a", "negative-number"),
    ("1.5", "(c)", "a", "fractional-number"),
    ("9" * 5000, "(c)", "a", "number-too-large"),
    ("2147483647", "(c)", "a", "number-out-of-range"),
    ("99999999999", "(c)", "a", "number-out-of-range"),
])
def test_what_fast_downward_rejects_is_an_error_and_the_planner_agrees(value, effect, ptype, code):
    """`check` passes a file only if Fast Downward takes it: each of these is an error for
    the default target, and Fast Downward itself fails on it (run without pddlkit's checks)."""
    import pddlkit

    dom, prob = _cost_files(value, effect, ptype)
    report = check(dom, prob)
    assert code in {d.code for d in report.errors}, report.format()
    located = next(d for d in report.errors if d.code == code)
    assert located.line and located.hint
    raw = pddlkit.plan(dom, prob, cache=False, check=False, explain=False)
    assert not raw.solved, (code, raw.format())
    through = pddlkit.plan(dom, prob, cache=False)  # with the checks: the same error, located
    assert through.status.value == "error" and code in {d.code for d in through.diagnostics}


EITHER = [
    ("(:constants k - (either a b))", "(p ?x)", "(?x - a)"),
    ("", "(exists (?y - (either a b)) (p ?y))", "(?x - a)"),
    ("", "(p ?x)", "(?x - (either a b))"),
]


@pytest.mark.parametrize("constants, pre, params", EITHER)
def test_either_types_fast_downward_refuses_are_errors(constants, pre, params):
    import pddlkit

    dom = (f"(define (domain t) (:requirements :strips :typing) (:types a b) {constants} "
           f"(:predicates (p ?x - object) (q)) (:action go :parameters {params} "
           f":precondition {pre} :effect (q)))")
    prob = "(define (problem pp) (:domain t) (:objects x - a) (:init (p x)) (:goal (q)))"
    report = check(dom, prob)
    assert {"either-type", "either-object"} & {d.code for d in report.errors}, report.format()
    assert not pddlkit.plan(dom, prob, cache=False, check=False, explain=False).solved


def test_either_in_a_predicate_declaration_is_what_fast_downward_takes():
    import pddlkit

    dom, prob = _cost_files(ptype="(either a b)")
    report = check(dom, prob)
    assert report.ok and [d.code for d in report.warnings] == ["either-type"]
    assert pddlkit.plan(dom, prob, cache=False).solved


def test_fast_downward_only_errors_are_warnings_or_silent_for_any_planner():
    dom = (f"(define (domain t) (:requirements :strips :typing) (:types a b) "
           f"(:predicates (p ?x - object) (q)) (:action go :parameters (?x - (either a b)) "
           f":precondition (p ?x) :effect (q)))")
    report = check(dom, planner=None)
    assert report.ok and [d.code for d in report.warnings] == ["either-type"]
    assert not check(dom).ok
    assert check(*_cost_files("-3"), planner=None).ok
    assert not check(*_cost_files("9" * 5000), planner=None).ok  # not a number for anyone


def test_good_costs_pass_and_plan():
    import pddlkit

    dom, prob = _cost_files("2147483646")
    assert check(dom, prob).ok
    assert check(*_cost_files("0")).ok
    assert pddlkit.plan(*_cost_files("7"), cache=False).solved


def test_the_translator_hint_never_says_check_found_nothing():
    from pddlkit.planners.fast_downward import log_diagnostics
    from pddlkit.planners.task import load_task

    task = load_task(*_cost_files())
    diag = log_diagnostics(31, {"stage": "translate", "translate_log": "Got: (q)"}, task)[0]
    assert "lists every problem" not in diag.hint and "miss" in diag.hint


# --------------------------------------------------------------------------- input that is not PDDL


@pytest.mark.parametrize("bad, words", [(None, "NoneType"), (42, "int"),
                                        (b"\xff\xfe(define", "not UTF-8")])
def test_check_never_raises_on_input_that_is_not_text(bad, words):
    report = check(bad)
    assert not report.ok and report.errors[0].code == "unreadable-input"
    assert words in report.errors[0].message and report.errors[0].hint
    assert bad is None or not check(domain(), bad).ok  # problem=None: no problem given


def test_utf8_bytes_are_read_as_text():
    assert check(domain().encode(), problem().encode()).ok


def test_binary_garbage_is_shown_escaped():
    text = "(define (domain \x00\x1b[31mx) (:predicates (p \x07)))"
    shown = check(text).format()
    assert "\x1b" not in shown and "\x00" not in shown and "\\x1b" in shown
    report = check(b"(define (domain \xff\xfe x))".decode("utf-8", "replace"))
    assert "\ufffd" not in report.format() and "\\ufffd" in report.format()
    d = next(d for d in check(text).diagnostics if d.source_line)
    line, caret = d.caret().splitlines()
    assert caret.index("^") - 4 == len(
        __import__("pddlkit").diagnostics.printable(d.source_line[:d.column - 1]))


def test_input_that_is_not_pddl_is_one_error_and_the_output_stays_small(tmp_path):
    binary = tmp_path / "tool.pddl"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 20)
    report = check(binary)
    assert [d.code for d in report.diagnostics] == ["unreadable-input"]
    assert "byte 7 is 0x00" in report.diagnostics[0].message
    latin = tmp_path / "latin.pddl"
    latin.write_bytes("(define (domain caf\xe9))".encode("latin-1"))
    assert "save it as UTF-8" in check(latin).diagnostics[0].message
    import random

    rng = random.Random(1)
    junk = "".join(rng.choice("abc() :-?\n") for _ in range(4000))
    report = check(junk)
    assert len(report.diagnostics) == 41
    assert report.diagnostics[-1].code == "too-many-diagnostics"
    nested = "(define (domain x) " + "(a " * 200_000
    assert any(d.code == "too-deeply-nested" for d in check(nested).diagnostics)


def test_object_in_the_type_list_is_not_a_self_parent():
    report = check(domain().replace("(:types room item)", "(:types object room item)"))
    assert not [d for d in report.diagnostics if d.code == "self-parent-type"]


def test_numbers_are_pddl_for_validation_and_refused_only_for_fast_downward(tmp_path):
    numeric = """(define (domain t) (:requirements :strips :numeric-fluents :action-costs)
 (:predicates (p) (q)) (:functions (total-cost) - number (fuel) - number)
 (:action a :parameters () :precondition (and (p) (>= (fuel) 1))
   :effect (and (q) (decrease (fuel) 1) (increase (total-cost) 1.5))))"""
    task = """(define (problem tp) (:domain t) (:init (p) (= (fuel) 2) (= (total-cost) 0))
 (:goal (q)) (:metric minimize (total-cost)))"""
    assert check(numeric, task, planner=None).ok
    codes = {d.code for d in check(numeric, task).errors}
    assert codes == {"unsupported-requirement", "fractional-number"}
    for name, text in (("d.pddl", numeric), ("p.pddl", task), ("plan.txt", "(a)\n")):
        (tmp_path / name).write_text(text)
    from cli_runner import run_cli

    out = run_cli("validate", tmp_path / "d.pddl", tmp_path / "p.pddl", tmp_path / "plan.txt")
    assert out.returncode == 0 and "cost 1.5" in out.stdout, out.stdout + out.stderr
