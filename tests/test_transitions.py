"""A domain checked against observed transitions (pddlkit.semantics.transitions, issue 75):
the mistakes a small model makes writing schemas are each caught by a named transition, with
the schema and the literal; CoinCollector's reference domain explains a move and a refused
move."""

from __future__ import annotations

from pathlib import Path

from pddlkit.semantics.transitions import Transition, check_transitions, explained

REFERENCE = (Path(__file__).resolve().parents[1] / "domains" / "coin-collector" /
             "domain.pddl").read_text()
OBJECTS = {"kitchen": "room", "corridor": "room", "pantry": "room", "east": "direction",
           "west": "direction", "coin": "item"}
BEFORE = frozenset({"(at kitchen)", "(visited kitchen)", "(connected kitchen corridor east)",
                    "(connected corridor kitchen west)"})
AFTER = frozenset({"(at corridor)", "(visited kitchen)", "(visited corridor)",
                   "(connected kitchen corridor east)", "(connected corridor kitchen west)",
                   "(connected corridor pantry east)"})   # the pantry is seen: learnt, not done
MOVED = Transition("(move kitchen corridor east)", BEFORE, True, AFTER, OBJECTS, "move east")
REFUSED = Transition("(move kitchen pantry east)", BEFORE, False, None, OBJECTS,
                     "move east, refused")


def _with_move(precondition: str, effect: str) -> str:
    start = REFERENCE.index("(:action move")
    end = REFERENCE.index("(:action take")
    return (REFERENCE[:start] + f"(:action move :parameters (?from - room ?to - room ?dir - "
            f"direction) :precondition {precondition} :effect {effect})\n  " + REFERENCE[end:])


def test_the_reference_domain_explains_what_the_world_did():
    assert explained(REFERENCE, [MOVED, REFUSED])


def test_a_missing_effect_is_named_with_its_transition_and_literal():
    domain = _with_move("(and (at ?from) (connected ?from ?to ?dir))",
                        "(and (not (at ?from)) (at ?to))")
    # no action of this domain changes visited, so only a caller who knows it changes (the
    # world made it true) has it checked (see the module)
    assert check_transitions(domain, [MOVED, REFUSED]) == []
    [finding] = check_transitions(domain, [MOVED, REFUSED], fluents=["visited"])
    assert (finding.kind, finding.schema, finding.index, finding.literal) == \
        ("effect-missing", "move", 0, "(visited corridor)")
    assert "add (visited corridor) to move's effect" in finding.format()
    assert "move east" in finding.format()


def test_a_precondition_on_the_wrong_argument_is_too_strong_where_the_world_allowed_it():
    domain = _with_move("(and (at ?to) (connected ?from ?to ?dir))",
                        "(and (not (at ?from)) (at ?to) (visited ?to))")
    findings = check_transitions(domain, [MOVED])
    assert [(f.kind, f.literal) for f in findings] == \
        [("precondition-too-strong", "(at corridor)")]
    assert "its precondition (at corridor) was false" in findings[0].format()


def test_a_precondition_too_weak_lets_a_refused_step_through():
    domain = _with_move("(at ?from)", "(and (not (at ?from)) (at ?to) (visited ?to))")
    findings = check_transitions(domain, [MOVED, REFUSED])
    assert [(f.kind, f.index) for f in findings] == [("precondition-too-weak", 1)]
    assert "the world refused (move kitchen pantry east)" in findings[0].format()
    # it says what held over the command's arguments (Qwen drew close-door again the same
    # four times from "its precondition held" alone: CoinCollector at 156944c)
    assert "but its precondition held (before it: (at kitchen), (visited kitchen)); " \
        in findings[0].format(), findings[0].format()


def test_an_effect_the_world_contradicts_and_a_delete_left_out():
    domain = _with_move("(and (at ?from) (connected ?from ?to ?dir))",
                        "(and (at ?to) (visited ?to) (visited ?from) (not (visited ?from)))")
    kinds = {(f.kind, f.literal) for f in check_transitions(domain, [MOVED])}
    assert ("effect-missing", "(not (at kitchen))") in kinds


def test_facts_of_the_wrong_arity_do_not_fit_and_say_so():
    domain = REFERENCE.replace("(visited ?r - room)", "(visited ?r - room ?d - direction)")
    domain = domain.replace("(visited ?to)", "(visited ?to ?dir)")
    [finding] = check_transitions(domain, [MOVED], schemas=["move"])
    assert finding.kind == "facts-do-not-fit" and "visited" in finding.detail, finding.detail


def test_a_domain_that_does_not_check_is_refused_not_read_as_evidence():
    import pytest

    with pytest.raises(ValueError, match="does not check.*pddlkit check"):
        check_transitions(REFERENCE.replace("(at ?to)", "(at ?to ?to)"), [MOVED])


def test_a_predicate_no_action_changes_is_checked_when_the_caller_names_it():
    domain = _with_move("(and (at ?from) (connected ?from ?to ?dir))",
                        "(and (not (at ?from)) (at ?to))")
    domain = domain.replace("(visited ?r - room)", "(visited ?r - room) (seen ?r - room)")
    seen = Transition(MOVED.action, BEFORE, True, AFTER | {"(seen corridor)"}, OBJECTS)
    assert not any(f.literal == "(seen corridor)" for f in check_transitions(domain, [seen]))
    assert any(f.literal == "(seen corridor)"
               for f in check_transitions(domain, [seen], fluents=["seen"]))


def test_an_episode_records_each_command_as_evidence_the_reference_explains(tmp_path):
    """The loop writes a ``transition`` event per command (the facts believed before it,
    its ground action, whether the world took it); read back, CoinCollector's reference
    domain explains every one, and a move that needs the room visited already is refuted by
    a named transition."""
    import json

    from pddlkit.agents import get_agent, run_job
    from pddlkit.formalizers.evidence import transitions

    spec = get_agent("pddlego")
    record = tmp_path / "record.jsonl"
    rows = run_job(spec, env="coin-collector", llm="standin:pddlego", seeds=[0, 1, 2],
                   options=spec.make_options({"domain": "domains/coin-collector/domain.pddl"}),
                   record=record, env_options={"rooms": 5})
    events = [json.loads(line) for line in record.read_text().splitlines()]
    seen = transitions(events)
    actions = [e for e in events if e["type"] == "action"]
    assert len(seen) == len(actions) > 0 and all(r.won for r in rows)
    assert explained(REFERENCE, seen)
    # a schema that only lets the agent back into rooms it has seen: refuted by the first
    # move into a new room, named with its transition and literal
    homebound = _with_move("(and (at ?from) (connected ?from ?to ?dir) (visited ?to))",
                           "(and (not (at ?from)) (at ?to) (visited ?to))")
    first = check_transitions(homebound, seen)[0]
    assert (first.kind, first.schema) == ("precondition-too-strong", "move")
    assert first.literal.startswith("(visited ") and "seed 0, step 1" in first.where
