"""What a refused command lacked (``formalizers/modular/lacking.py``, issue 75): built from
the household's dev seed 0 at cc0aa5e (Qwen2.5-Coder 1.5B learning the domain), where
"clean creditcard 2 with cabinet 1" was refused three times with cleanobject's
precondition holding, four rewrites required nothing new, and "close desk 1" ("cannot be
opened or closed") could be told by no literal over the model's predicates."""

from __future__ import annotations

from pddlkit.formalizers.atoms import Signature
from pddlkit.formalizers.modular import ModularFormalizer
from pddlkit.llm.scripted import ScriptedLLM
from pddlkit.semantics.transitions import Transition, check_transitions

SIGNATURES = {
    "openobject": ([("?r", "receptacle")], "open {r}"),
    "closeobject": ([("?r", "receptacle")], "close {r}"),
    "cleanobject": ([("?o", "obj"), ("?r", "receptacle")], "clean {o} with {r}")}
PREDICATES = ["(player ?r - receptacle)", "(closed ?r - receptacle)",
              "(thing ?o - obj ?r - receptacle)", "(holds ?o - obj)", "(hot ?o - obj)"]
ASPECTS = {"player": "where the player is", "closed": "which doors or containers are closed",
           "thing": "where each thing is", "holds": "what the player holds",
           "hot": "other states of a thing, such as clean, hot, cold or turned on"}
OBJECTS = {"creditcard_2": "obj", "cabinet_1": "receptacle", "desk_1": "receptacle",
           "sinkbasin_1": "receptacle", "ladle_1": "obj"}


def _context():
    from pddlkit.formalizers.base import Context, Memory

    memory = Memory("put two creditcard on countertop")
    memory.history.append(("", "You arrive at the cabinet 1. The cabinet 1 is closed."))
    return Context("simulation_error", "household", memory, [], "", 10)


def _writing(answers: list[str]) -> ModularFormalizer:
    formalizer = ModularFormalizer(ScriptedLLM(answers), "household", schema_check=True,
                                   schema_slots=True, predicate_slots=True,
                                   lacked_literals=True)
    formalizer._signatures_seen = SIGNATURES
    formalizer.predicates = [Signature.read(p) for p in PREDICATES]
    formalizer.predicate_aspects = dict(ASPECTS)
    formalizer.bodies = {
        "openobject": ":precondition (and (player ?r) (closed ?r))\n    "
                      ":effect (and (not (closed ?r)))",
        "closeobject": ":precondition (and (player ?r) (not (closed ?r)))\n    "
                       ":effect (and (closed ?r))",
        "cleanobject": ":precondition (and (player ?r))\n    :effect (and (hot ?o))"}
    return formalizer


def _finding(formalizer, transitions: list[Transition]):
    formalizer.evidence.add(transitions)
    found = check_transitions(formalizer._domain_text(SIGNATURES), formalizer.evidence.transitions)
    return [f for f in found if f.kind == "precondition-too-weak"][-1]


def test_the_literals_a_refused_command_lacked_are_offered_and_the_chosen_one_required():
    """The refused cleaning: false before it, and (no cleaning taken yet) nothing else to
    hold; the model's choice is required first in its line of the rewrite."""
    formalizer = _writing(["(holds ?o)"])
    refused = Transition("(cleanobject creditcard_2 cabinet_1)",
                         frozenset({"(player cabinet_1)", "(closed cabinet_1)"}), False,
                         objects=OBJECTS, where="step 10: clean creditcard 2 with cabinet 1")
    finding = _finding(formalizer, [refused])
    offered = formalizer._lacked_candidates(finding, SIGNATURES)
    assert "(holds ?o)" in offered and "(not (closed ?r))" in offered
    assert "(player ?r)" not in offered and "(not (player ?r))" not in offered
    assert formalizer._ask_lacked(finding, _context(), SIGNATURES)
    assert formalizer._lacking == {"cleanobject": {"holds": {"(holds ?o)"}}}
    grammar = formalizer._action_grammar("cleanobject", SIGNATURES)
    lines = ("player: before (player ?r) after same\nclosed: before none after same\n"
             "thing: before none after same\nholds: before {holds} after same\n"
             "hot: before none after (hot ?o)")
    assert grammar.accepts(lines.format(holds="(holds ?o)"))
    assert not grammar.accepts(lines.format(holds="none"))
    # a cleaning the world took narrows what the refused one can have lacked
    took = Transition("(cleanobject ladle_1 sinkbasin_1)",
                      frozenset({"(player sinkbasin_1)", "(holds ladle_1)",
                                 "(closed sinkbasin_1)"}), True, objects=OBJECTS,
                      where="step 4: clean ladle 1 with sinkbasin 1")
    again = _writing([])
    finding = _finding(again, [took, refused])
    assert again._lacked_candidates(finding, SIGNATURES) == ["(holds ?o)"]


def test_no_draw_is_spent_when_no_literal_tells_the_refused_command_apart():
    """"close desk 1" refused where "close cabinet 1" was taken from the same kind of facts:
    nothing over the predicates was false before the one and true before the other, so
    the schema is not drawn again (set aside for the episode, as after failed draws)."""
    formalizer = _writing([])
    took = Transition("(closeobject cabinet_1)", frozenset({"(player cabinet_1)"}), True,
                      objects=OBJECTS, where="step 6: close cabinet 1")
    refused = Transition("(closeobject desk_1)", frozenset({"(player desk_1)"}), False,
                         objects=OBJECTS, where="step 12: close desk 1")
    finding = _finding(formalizer, [took, refused])
    assert formalizer._lacked_candidates(finding, SIGNATURES) == []
    formalizer.schema_refuted.append(finding.format())
    assert not formalizer._ask_lacked(finding, _context(), SIGNATURES)
    assert "not drawn again" in formalizer.schema_refuted[-1]
    assert formalizer.last_parts == []


def test_without_the_help_the_rewrite_is_drawn_as_before():
    formalizer = _writing([])
    formalizer.lacked_literals = False
    took = Transition("(closeobject cabinet_1)", frozenset({"(player cabinet_1)"}), True,
                      objects=OBJECTS, where="step 6: close cabinet 1")
    refused = Transition("(closeobject desk_1)", frozenset({"(player desk_1)"}), False,
                         objects=OBJECTS, where="step 12: close desk 1")
    assert formalizer._ask_lacked(_finding(formalizer, [took, refused]), None, SIGNATURES)


def test_a_refusal_that_states_a_fact_false_corrects_the_evidence_before_it():
    """"open cabinet 1" refused as "The cabinet 1 is already open." where the facts believed
    the cabinet closed (the household's dev seed 0 at 3b48e37: Qwen's pickupobject rewrite
    closed the receptacle taken from): the correction ``(not (closed cabinet_1))`` is the
    world's word, so the refused transition's facts before say so, and openobject, which
    needs the cabinet closed, explains it. A ``(not F)`` the refusal does not state stays
    out of the evidence (the model's guess may be its schema's mistake)."""
    formalizer = _writing([])
    refused = Transition("(openobject cabinet_1)",
                         frozenset({"(player cabinet_1)", "(closed cabinet_1)"}), False,
                         objects=OBJECTS, where="step 9: open cabinet 1")
    formalizer.evidence.add([refused])
    formalizer._refusal_message = "Nothing happens."
    formalizer._correct_evidence("(not (closed cabinet_1))")
    assert "(closed cabinet_1)" in formalizer.evidence.transitions[-1].before
    formalizer._refusal_message = "The cabinet 1 is already open."
    formalizer._correct_evidence("(not (closed cabinet_1))")
    assert formalizer.evidence.transitions[-1].before == {"(player cabinet_1)"}
    assert check_transitions(formalizer._domain_text(SIGNATURES),
                             formalizer.evidence.transitions) == []
    assert not formalizer._refusal_says_false("(not (closed desk_1))")
