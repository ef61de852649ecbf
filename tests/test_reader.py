"""The reader: what it accepts, and the errors it reports for what it does not."""

from __future__ import annotations

import pytest

import pddlkit
from pddlkit import PDDLError, parse_domain, parse_problem, read_domain, read_problem
from pddlkit.pddl.model import And, Atom, Exists, ForallEffect, Literal, Not, NumericEffect, When

DOMAIN = """; a comment
(define (domain Rooms)
  (:requirements :strips :typing :adl :action-costs)
  (:types room door - object  heavy-door - door)
  (:constants hall - room)
  (:predicates (At ?r - room) (door-between ?d - door ?a ?b - room) (open ?d - door)
               (lit ?r - (either room door)))
  (:functions (total-cost) - number)
  (:action MOVE
    :parameters (?from ?to - room ?d - door)
    :precondition (and (at ?from) (door-between ?d ?from ?to)
                       (or (open ?d) (= ?to hall))
                       (exists (?x - room) (lit ?x)))
    :effect (and (not (at ?from)) (at ?to)
                 (forall (?r - room) (when (= ?r ?to) (lit ?r)))
                 (increase (total-cost) 1))))
"""


def test_reads_typing_either_constants_quantifiers_and_costs():
    d = parse_domain(DOMAIN)
    assert d.name == "rooms" and d.action("move").name == "move"
    assert [t.name for t in d.types] == ["room", "door", "heavy-door"]
    assert d.type_parents["heavy-door"] == ("door",)
    assert d.predicate("lit").parameters[0].types == ("room", "door")
    a = d.action("MOVE")
    assert [p.name for p in a.parameters] == ["?from", "?to", "?d"]
    assert isinstance(a.precondition, And)
    assert isinstance(a.precondition.parts[3], Exists)
    assert isinstance(a.effects[0], Literal) and not a.effects[0].positive
    assert isinstance(a.effects[2], ForallEffect) and isinstance(a.effects[2].effects[0], When)
    assert isinstance(a.effects[3], NumericEffect)


def test_atoms_glued_to_variables_are_split_like_fast_downward():
    d = parse_domain("(define (domain z) (:predicates (aircraft?a)) "
                     "(:action a :parameters (?a) :precondition (aircraft?a) :effect (not (aircraft?a))))")
    assert d.actions[0].precondition == Atom("aircraft", ("?a",))


def _codes(diags):
    return [d.code for d in diags if d.is_error]


@pytest.mark.parametrize("text", ["", "   \n\n", "; a comment and nothing else\n"])
def test_a_file_with_no_define_at_all_names_its_first_line(text):
    """An empty or all-comment file has no form to point at; its start is the place (a
    random 50 MB line that happened to hold no '(' printed no place before)."""
    for read, kind in ((read_domain, "domain"), (read_problem, "problem")):
        _, diags = read(text)
        [missing] = [d for d in diags if d.code == "missing-define"]
        assert (missing.line, missing.column) == (1, 1) and f"(define ({kind}" in missing.hint


def test_missing_paren_names_the_open_construct_and_where_it_began():
    text = """(define (domain d)
  (:predicates (p) (q))
  (:action a
    :parameters ()
    :precondition (and (p)
    :effect (q))
  (:action b :parameters () :effect (p))
"""
    d, diags = read_domain(text)
    msgs = [x.message for x in diags if x.code == "unclosed-paren"]
    assert "expected ')' to close (and opened at line 5 before :effect at line 6" in msgs[0]
    assert any("(define (domain d)" in m and "file ends" in m for m in msgs)
    assert d is not None and [a.name for a in d.actions] == ["a", "b"]  # recovered


def test_missing_paren_before_next_action_is_reported_there():
    text = """(define (domain d) (:predicates (p))
  (:action a :parameters () :effect (p)
  (:action b :parameters () :effect (p)))
"""
    _, diags = read_domain(text)
    err = next(x for x in diags if x.code == "unclosed-paren")
    assert err.line == 3 and "(:action a opened at line 2 before (:action at line 3" in err.message
    assert err.source_line.strip().startswith("(:action b") and err.column == 3


def test_collects_all_errors_not_only_the_first():
    text = """(define (domain d)
  (:predicates (p ?x))
  (:action a :parameters (?x) :preconditions (p ?x) :effect (p ?x))
  (:action b :parameters (x) :precondition (p ?x) :effect (p ?x))
  (:actions (c))
)"""
    _, diags = read_domain(text)
    codes = _codes(diags)
    assert {"unknown-field", "expected-variable", "unknown-section"} <= set(codes)
    unknown = next(x for x in diags if x.code == "unknown-field")
    assert "did you mean ':precondition'" in unknown.hint
    assert ":actions" in next(x for x in diags if x.code == "unknown-section").message


def test_parse_raises_one_pddl_error_with_every_diagnostic_and_a_caret():
    text = "(define (domain d) (:predicates (p)) (:action a :effect (p))) )"
    with pytest.raises(PDDLError) as info:
        parse_domain(text)
    err = info.value
    assert [d.code for d in err.diagnostics] == ["unexpected-close-paren"]
    d = err.diagnostics[0]
    assert (d.line, d.column) == (1, text.rindex(")") + 1)
    assert d.caret().splitlines()[1].index("^") == 4 + text.rindex(")")
    assert "hint:" in str(err)


@pytest.mark.parametrize("text,code", [
    ("(define (domain d) (:predicates (p)) (:action a :effect (p)) (:types t))", "section-order"),
    ("(define (domain d) (:predicates (p)) (:action a :effect (p) :precondition (p)))", "field-order"),
    ("(define (domain d) (:requirements :strips :fancy) (:predicates (p)))", "unknown-requirement"),
    ("(define (domain d) (:predicates (p)) (:action a :parameters () :precondition (p)))", "missing-effect"),
    ("(define (domain d) (:predicates (p ?x)) (:action a :parameters (?x) :effect (p (f ?x))))", "nested-term"),
    ("(define (domain d) (:types t) (:types u) (:predicates (p)))", "duplicate-section"),
    ("(define (problem p) (:domain d) (:goal (p)))", "wrong-file-kind"),
    ("```json\n(define (domain d) (:predicates (p)))\n}", "outside-define"),
    ("(define (domain d) (:predicates (p)) (:action a :effect (and (p) (or (p) (p)))))", "condition-in-effect"),
])
def test_specific_domain_errors(text, code):
    _, diags = read_domain(text)
    assert code in _codes(diags)
    assert all(d.hint for d in diags if d.code == code)


@pytest.mark.parametrize("text,code,severity", [
    ("(define (problem p) (:domain d) (:objects a) (:init (p a)) (:goal ()))", "empty-goal", "error"),
    ("(define (problem p) (:objects a) (:init (p a)) (:goal (p a)))", "missing-domain-ref", "error"),
    ("(define (problem p) (:domain d) (:objects a) (:init (p a) (not (p a))) (:goal (p a)))", "contradictory-init", "error"),
    ("(define (problem p) (:domain d) (:objects a) (:init (not (q a))) (:goal (p a)))", "negated-init-atom", "warning"),
    ("(define (problem p) (:domain d) (:objects a) (:init (p ?x)) (:goal (p a)))", "variable-in-init", "error"),
    ("(define (problem p) (:domain d) (:objects a) (:init) (:goal (p a) (p a)))", "bad-goal", "error"),
])
def test_specific_problem_diagnostics(text, code, severity):
    _, diags = read_problem(text)
    found = [d for d in diags if d.code == code]
    assert found and found[0].severity.value == severity


def test_missing_file_is_a_pddl_error():
    with pytest.raises(PDDLError) as info:
        parse_domain("no/such/domain.pddl")
    assert info.value.diagnostics[0].code == "file-not-found"


def test_problem_with_numeric_init_and_metric():
    p = parse_problem("(define (problem p) (:domain d) (:objects a b) "
                      "(:init (road a b) (= (dist a b) 5) (= (total-cost) 0)) "
                      "(:goal (and (at b) (not (at a)))) (:metric minimize (total-cost)))")
    assert p.numeric_init[0][1] == 5.0 and p.metric.direction == "minimize"
    assert isinstance(p.goal.parts[1], Not)


def _tree(items) -> list:
    from pddlkit.pddl.sexpr import SList

    return [("L", x.line, x.column, x.end_line, x.end_column, x.closed, _tree(x))
            if isinstance(x, SList) else (str(x), x.type, x.line, x.column) for x in items]


@pytest.mark.slow
def test_the_fast_reader_equals_larks_on_the_corpus_and_on_noise(ipc_dir, llm_pairs):
    """The one-pass reader (a compiled regular expression and the tree in the same pass) gives
    exactly what lark's lexer and the token-by-token builder give: every token's text, type
    and position (those of :init facts placed afterwards), every list's, and every diagnostic
    (code, message, position, hint), on unbalanced, LLM-written and random text."""
    import random

    from pddlkit.diagnostics import DiagnosticSink
    from pddlkit.pddl.sexpr import (SList, lark_tokenize, place_tokens, read_sexpr,
                                    read_sexpr_tokens)

    texts = [p.read_text(errors="replace") for p in sorted(ipc_dir.glob("*/*.pddl"))
             if p.stat().st_size < 60_000]
    texts += [v for pair in llm_pairs[::4] for v in pair.values()
              if isinstance(v, str) and "(" in v]
    rng = random.Random(0)
    pieces = ["(", ")", "?", ";", " ", "\n", "\r", "\t", "\u00a0", "\u2028", "\x85", "a", "-",
              ":", "é", "(:action", "(:effect", ":effect", ":precondition", "(define", "(:init"]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 50)))
              for _ in range(3000)]
    unbalanced = 0
    for text in texts:
        fast, slow = DiagnosticSink(text), DiagnosticSink(text)
        tree = read_sexpr(text, fast)
        for item in tree:  # the :init facts' tokens get their positions
            if isinstance(item, SList):
                place_tokens(item, fast.line_text)
        assert _tree(tree) == _tree(read_sexpr_tokens(lark_tokenize(text), slow))
        assert fast.items == slow.items
        unbalanced += bool(fast.items)
    assert unbalanced > 1000  # the comparison covered recovery, not only clean files


def test_init_fact_tokens_get_positions_only_when_a_diagnostic_needs_them():
    """Inside (:init ...) facts the tree keeps plain strings (no position is computed for most
    of a large problem's tokens); a fact that is not a well-formed ground atom is placed again
    from the text, so its diagnostic points at the exact token."""
    from pddlkit.diagnostics import DiagnosticSink
    from pddlkit.pddl.sexpr import SList, Token, place_tokens, read_sexpr

    text = ("(define (problem p) (:domain d)\n (:objects a b)\n (:init (at a b)\n"
            "   (at ; a comment\n  a ?x) (:weird b))\n (:goal (at a b)))")
    sink = DiagnosticSink(text)
    define = read_sexpr(text, sink)[0]
    init = define[4]
    assert init[0] == ":init" and type(init[0]) is Token  # the section keyword keeps its own
    assert [type(t) for t in init[1]] == [str, str, str]
    place_tokens(init, sink.line_text)
    assert [(t, t.line, t.column) for t in init[2]] == [("at", 4, 5), ("a", 5, 3), ("?x", 5, 5)]
    assert (init[3][0].line, init[3][0].column) == (5, 10)   # ':' words keep a Token anyway
    assert isinstance(init[3], SList) and (init[1][2].line, init[1][2].column) == (3, 15)
    _, diags = read_problem(text)
    bad = [d for d in diags if d.code == "variable-in-init"]
    assert [(d.line, d.column) for d in bad] == [(4, 4)]


@pytest.mark.slow
def test_reading_with_lazy_init_positions_equals_reading_with_every_position(ipc_dir, llm_pairs,
                                                                            monkeypatch):
    """The reader gives the same models and diagnostics (positions and hints included) whether
    the :init facts' names come without positions, placed only when a diagnostic needs them,
    or every token is placed before reading, on the corpus's problems, LLM-written problems and
    noise inside a problem's :init."""
    import random

    from pddlkit.pddl import reader
    from pddlkit.pddl.sexpr import SList, place_tokens, read_sexpr

    texts = [p.read_text(errors="replace") for p in sorted(ipc_dir.glob("*/p0*.pddl"))
             if p.stat().st_size < 60_000]
    texts += [v for pair in llm_pairs[::3] for k, v in pair.items()
              if isinstance(v, str) and "(:init" in v]
    rng = random.Random(3)
    pieces = ["(", ")", " ", "\n", "a", "B", "?x", "-", ":", ";c\n", "(not (p a))", "(= (f a) 2)",
              "(at a b)", "(and (p a))", "(p ?y b)", "(:effect", "(:goal", "1x", "(at 5 (p a))"]
    texts += ["(define (problem p) (:domain d) (:objects a b) (:init " +
              "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40))) + ") (:goal (p a)))"
              for _ in range(1500)]

    def placed_first(text, sink):
        tree = read_sexpr(text, sink)
        for item in tree:
            if isinstance(item, SList):
                place_tokens(item, sink.line_text)
        return tree

    def outcome(text):
        model, diags = read_problem(text)
        return repr(model), [(d.code, d.message, d.line, d.column, d.hint) for d in diags]

    lazy = [outcome(t) for t in texts]
    monkeypatch.setattr(reader, "read_sexpr", placed_first)
    assert [outcome(t) for t in texts] == lazy
    assert sum(bool(diags) for _, diags in lazy) > 1000


def test_a_model_built_in_code_writes_and_reads_back_equal_and_plans():
    from pddlkit.pddl.build import ModelBuildError, action, atom, delete, domain, problem, typed
    from pddlkit.pddl.reader import parse_domain, parse_problem
    from pddlkit.pddl.writer import write_domain, write_problem

    move = action("move", typed("?a ?b - room"), ["(at ?a)", atom("door", "?a", "?b")],
                  [delete("(at ?a)"), "(at ?b)"])
    dom = domain("rooms", requirements=(":strips", ":typing"), types=["room"],
                 predicates=["(at ?r - room)", "(door ?a ?b - room)"], actions=[move])
    prob = problem("two", "rooms", objects=typed("r1 r2 - room"),
                   init=["(at r1)", "(door r1 r2)"], goal=["(at r2)"])
    assert parse_domain(write_domain(dom)) == dom
    assert parse_problem(write_problem(prob)) == prob
    result = pddlkit.plan(dom, prob)
    assert result.status == "solved" and [str(s) for s in result.plan.steps] == ["(move r1 r2)"]
    with pytest.raises(ModelBuildError, match="action jump: \\?c used but not a parameter"):
        action("jump", typed("?a - room"), ["(door ?a ?c)"])


def test_a_domain_read_again_shares_its_frozen_model_and_gives_its_own_diagnostics():
    """A loop reads one domain at every step; the second read of the same text is the first's
    model (frozen), with the same diagnostics in a list of its own."""
    from pddlkit.pddl.reader import read_domain

    text = ("(define (domain d) (:requirements :bogus) (:predicates (p ?x))"
            " (:action a :parameters (?x) :effect (p ?x)))")
    first, diags = read_domain(text)
    again, diags_again = read_domain(text)
    assert again is first and diags_again == diags and diags_again is not diags
    assert [d.code for d in diags] == ["unknown-requirement"]
    diags.clear()
    assert read_domain(text)[1] == diags_again
    other, _ = read_domain(text, "named.pddl")   # the file name is part of what was read
    assert other is not first and other.file == "named.pddl"
