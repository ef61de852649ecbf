"""A learned domain carries what each of its predicates was written for, and plays by it when
reused (issue 75): learning saves the aspects (``learning.json``), the library reads them
back, and over the entry frozen ``place_goals`` and ``refused_steps`` act; over an entry
saved without them, nothing changes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from pddlkit.agents import get_agent, run_job
from pddlkit.formalizers.library import DomainLibrary

REPO = Path(__file__).resolve().parent.parent
ENTRY = REPO / "domains" / "learned" / "household" / "c38cd3aeac63"
SLOTTED = ("where the player is: (player ?p1 - receptacle)\n"
           "which doors or containers are closed: (closed ?r - receptacle)\n"
           "what the player holds: (holds ?p1 - receptacle) (holds ?o - obj)\n"
           "other states of a thing, such as clean, hot, cold or turned on: (gone ?o - obj)")


def test_learning_saves_the_aspect_of_each_predicate_of_the_domain_it_keeps():
    """The last predicates answer used, read for the predicates the kept domain declares
    (``gone`` is not one of them); no slotted answer, no aspects."""
    from pddlkit.formalizers.learn import _aspects

    events = [{"type": "parts", "parts": [{"part": "predicates", "outcome": "used",
                                           "answer": "(at ?r - receptacle)"}]},
              {"type": "parts", "parts": [{"part": "predicates", "outcome": "used",
                                           "answer": SLOTTED},
                                          {"part": "facts", "outcome": "used", "answer": ""}]}]
    domain = (ENTRY / "domain.pddl").read_text()
    assert _aspects(events, domain) == {"player": "where the player is",
                                        "closed": "which doors or containers are closed",
                                        "holds": "what the player holds"}
    assert _aspects(events[:1], domain) == {}
    assert _aspects([], domain) == {}


def test_the_library_reads_an_entrys_aspects_for_its_own_predicates(tmp_path):
    """``DomainEntry.aspects``: the shipped household entry (backfilled from its learning
    record) says which predicate is the player's place; a name its domain does not declare
    is dropped, and an entry saved without aspects has none."""
    entry = DomainLibrary(REPO / "domains" / "learned").get("household/c38cd3aeac63")
    assert entry.aspects()["player"] == "where the player is"
    assert entry.aspects()["thing"] == "where each thing is"
    copy = _library_copy(tmp_path, {"player": "where the player is", "nowhere": "x"})
    assert copy.get("household/c38cd3aeac63").aspects() == {"player": "where the player is"}
    bare = _library_copy(tmp_path / "bare", None)
    assert bare.get("household/c38cd3aeac63").aspects() == {}


def test_a_learned_entry_reused_with_its_aspects_plays_by_them(tmp_path):
    """The same random answers over the same entry, frozen (dev seed 2): with its aspects,
    place_goals offers places to look and refused_steps guards the plans (both act); with
    the aspects taken out of ``learning.json``, both are on and act nowhere, and the episode
    plays as the frozen rows measured before this did."""
    with_aspects = _played(_library_copy(tmp_path / "with", _shipped_aspects()), tmp_path)
    without = _played(_library_copy(tmp_path / "without", None), tmp_path)
    assert with_aspects["place-goals"] > 0 and with_aspects["refused-steps"] > 0
    assert without["place-goals"] == 0 and without["refused-steps"] == 0


def test_the_openings_offered_over_a_frozen_entry_are_read_from_its_own_actions():
    """``place_goals``' openings over a learned entry reused: the actions whose effect
    deletes a closed-aspect fact are the frozen domain's (openobject), not the (empty)
    schemas the model wrote this episode."""
    from types import SimpleNamespace

    from pddlkit.formalizers.helps.place_goals import deleted_by, openings
    from pddlkit.formalizers.atoms import atom_of
    from pddlkit.pddl.reader import read_domain

    domain = (ENTRY / "domain.pddl").read_text()
    frozen = SimpleNamespace(
        fixed_domain=domain, bodies={}, _aspects=_shipped_aspects,
        _domain_model=lambda: read_domain(domain)[0],
        _facts=lambda: [atom_of("(player drawer_1)"), atom_of("(closed drawer_1)"),
                        atom_of("(closed cabinet_1)")],
        evidence=SimpleNamespace(transitions=[], episode_start=0))
    assert deleted_by(frozen, {"closed"})["openobject"] == {"closed"}
    here, elsewhere = openings(frozen, {"player"})
    assert [g for _o, _c, g in here] == ["(not (closed drawer_1))"]
    assert [g for _o, _c, g in elsewhere] == ["(not (closed cabinet_1))"]


def test_a_sentence_over_a_frozen_entry_cannot_state_an_aspect_it_does_not_say():
    """Over the entry reused with its aspects, a sentence that says no "closed" gives no
    ``closed`` fact (its facts grammar leaves the predicate out), as while learning: Qwen
    read "The cabinet 1 is open." as ``(closed cabinet_1)`` over it frozen (dev seed 2).
    Over a frozen domain with no aspects, the grammar is as it was."""
    from pddlkit.formalizers.modular import ModularFormalizer
    from pddlkit.llm.scripted import ScriptedLLM

    playing = ModularFormalizer(ScriptedLLM(["none"]), "household")
    playing.fixed_domain = (ENTRY / "domain.pddl").read_text()
    playing._sentence = "You open the cabinet 1. The cabinet 1 is open."
    assert playing._unstated_predicates() == set()
    playing.reused_aspects = _shipped_aspects()
    # (nor what the player holds: only a sentence that says a thing was taken states it)
    assert playing._unstated_predicates() == {"closed", "holds"}
    playing._sentence = "You arrive at the cabinet 1. The cabinet 1 is closed."
    assert playing._unstated_predicates() == {"holds"}


def test_the_listed_commands_close_their_types_over_an_entry_reused_with_its_aspects():
    """As while learning, a type the game's complete list of commands fills may name only
    the names it gives (``alfred`` of the banner is no receptacle): over a learned entry
    with its aspects without ``--listed-types``; over a frozen domain without aspects, only
    with it; never where the list is not complete."""
    from types import SimpleNamespace

    from pddlkit.formalizers.helps.listed_types import closes_listed

    complete, partial = SimpleNamespace(commands_complete=True), \
        SimpleNamespace(commands_complete=False)
    learned = SimpleNamespace(fixed_domain="(define ...)", reused_aspects=_shipped_aspects())
    reference = SimpleNamespace(fixed_domain="(define ...)", reused_aspects={})
    assert closes_listed(learned, complete) and not closes_listed(learned, partial)
    assert not closes_listed(reference, complete)
    reference.listed_types = True
    assert closes_listed(reference, complete)


def test_place_goals_and_refused_steps_are_refused_with_a_domain_file_alone():
    """``--domain FILE`` carries no aspects: asked for by name with it, each is refused
    naming what it does; with ``--reuse-domain`` they need no writing help."""
    import pytest

    from pddlkit.agents import AgentError

    spec = get_agent("pddlego")
    domain = str(REPO / "domains" / "household" / "domain.pddl")
    for name, said in (("place_goals", "offers goals of where the player is"),
                       ("refused_steps", "keeps the commands the world refused")):
        with pytest.raises(AgentError, match=f"--{name.replace('_', '-')} {said}.*--domain"):
            run_job(spec, env="household", llm="local:x", options=spec.make_options(
                {"small_model": True, name: True, "domain": domain}))


def _shipped_aspects() -> dict:
    return json.loads((ENTRY / "learning.json").read_text())["aspects"]


def _library_copy(root: Path, aspects) -> DomainLibrary:
    """A library holding the shipped household entry, its ``learning.json`` with
    ``aspects`` (None: without the key)."""
    folder = root / "household" / ENTRY.name
    shutil.copytree(ENTRY, folder)
    learning = json.loads((folder / "learning.json").read_text())
    learning.pop("aspects", None)
    if aspects is not None:
        learning["aspects"] = aspects
    (folder / "learning.json").write_text(json.dumps(learning, indent=2) + "\n")
    return DomainLibrary(root)


def _played(library: DomainLibrary, tmp_path: Path) -> dict[str, int]:
    """helps label -> times acted, for one frozen episode of random answers (dev seed 2)."""
    spec = get_agent("pddlego")
    options = spec.make_options({"small_model": True, "constrained": True,
                                 "reuse_domain": True, "library": str(library.root)})
    rows = run_job(spec, env="household", llm="random:0", seeds=[2], options=options,
                   env_options={"receptacles": 8, "difficulty": "basic&use"})
    acted = rows[0].as_dict()["helps_acted"]
    return {label: int(n) for label, n in (part.rsplit(" ", 1) for part in acted.split(", "))}


def test_an_exit_walked_is_not_read_again_as_a_place_unvisited():
    """Over CoinCollector's learned entry reused with its aspects, a connection read to a
    placeholder where the facts already connect the same place the same way to a named
    one names that place (TextWorld's "that entranceway is unguarded", read again at each
    return); another direction, or the entry without aspects, is read as written."""
    from pddlkit.formalizers.atoms import atom_of
    from pddlkit.formalizers.modular import ModularFormalizer
    from pddlkit.llm.scripted import ScriptedLLM

    entry = REPO / "domains" / "learned" / "coin-collector" / "7bbe41a16326"
    playing = ModularFormalizer(ScriptedLLM(["none"]), "coin-collector")
    playing.fixed_domain = (entry / "domain.pddl").read_text()
    playing.base = [atom_of("(player cellar)"), atom_of("(connected cellar shower west)")]
    read = [atom_of("(connected cellar unknown_entranceway west)"),
            atom_of("(connected cellar unknown_north north)")]
    assert playing._known_exits(read) == read
    playing.reused_aspects = json.loads((entry / "learning.json").read_text())["aspects"]
    assert playing._known_exits(read) == [atom_of(f) for f in (
        "(connected cellar shower west)", "(connected cellar unknown_north north)")]


def test_a_thing_seen_in_a_map_of_rooms_is_where_the_player_is():
    """Over CoinCollector's learned entry with its aspects, a sentence's ``thing`` fact has
    the player's room as its place (TextWorld's "a coin on the floor"); over the household's
    entry (a connection of two places: the player at one receptacle may see another), or
    without aspects, nothing more is pinned."""
    from pddlkit.formalizers.modular import ModularFormalizer
    from pddlkit.llm.scripted import ScriptedLLM

    entry = REPO / "domains" / "learned" / "coin-collector" / "7bbe41a16326"
    pins = {"connected": {0: "studio"}}
    rooms = ModularFormalizer(ScriptedLLM(["none"]), "coin-collector")
    rooms.fixed_domain = (entry / "domain.pddl").read_text()
    assert rooms._things_here(pins) == {}
    rooms.reused_aspects = json.loads((entry / "learning.json").read_text())["aspects"]
    assert rooms._things_here(pins) == {"thing": {1: "studio"}}
    house = ModularFormalizer(ScriptedLLM(["none"]), "household")
    house.fixed_domain = (ENTRY / "domain.pddl").read_text()
    house.reused_aspects = _shipped_aspects()
    assert house._things_here({"connects": {0: "drawer_1"}}) == {}


def test_a_listed_move_is_an_exit_the_facts_have():
    """Over CoinCollector's learned entry with its aspects, a listed ``go north`` from the
    cellar, which no known fact connects northwards, gives a connection to a placeholder;
    ``go west``, already known, gives none; without aspects, or before the player's place
    has a name, nothing is added."""
    from pddlkit.formalizers.atoms import atom_of
    from pddlkit.formalizers.modular.rooms import listed_exits
    from pddlkit.formalizers.modular import ModularFormalizer
    from pddlkit.llm.scripted import ScriptedLLM
    from pddlkit.pddl.reader import read_domain

    entry = REPO / "domains" / "learned" / "coin-collector" / "7bbe41a16326"
    playing = ModularFormalizer(ScriptedLLM(["none"]), "coin-collector")
    playing.fixed_domain = (entry / "domain.pddl").read_text()
    move = read_domain(playing.fixed_domain)[0].action("move")
    read = [(move, {"?dir": "north"}), (move, {"?dir": "west"})]
    playing.base = [atom_of("(player cellar)"), atom_of("(connected cellar shower west)")]
    known = set(playing.base)
    assert listed_exits(playing, read, known) == []
    playing.reused_aspects = json.loads((entry / "learning.json").read_text())["aspects"]
    assert listed_exits(playing, read, known) == [
        atom_of("(connected cellar unknown_north_of_cellar north)")]
    playing.base = [atom_of("(player unknown_west_of_cellar)")]
    assert listed_exits(playing, read, set(playing.base)) == []


def _rooms_formalizer(aspects: bool):
    """A modular formalizer over CoinCollector's learned entry, reused with its aspects
    (or without them)."""
    from pddlkit.formalizers.modular import ModularFormalizer
    from pddlkit.llm.scripted import ScriptedLLM

    entry = REPO / "domains" / "learned" / "coin-collector" / "7bbe41a16326"
    playing = ModularFormalizer(ScriptedLLM(["none"]), "coin-collector")
    playing.fixed_domain = (entry / "domain.pddl").read_text()
    if aspects:
        playing.reused_aspects = json.loads((entry / "learning.json").read_text())["aspects"]
    return playing


def test_the_heading_names_the_room_the_player_is_in():
    """In a room map over the entry with its aspects, "-= Dish-Pit =-" puts the player in
    ``dish-pit`` (of the player's place type); a welcome banner names no room; without
    aspects, or over the household's entry, nothing is read."""
    from types import SimpleNamespace

    from pddlkit.formalizers.atoms import atom_of
    from pddlkit.formalizers.modular.rooms import heading_place

    def said(text):
        return SimpleNamespace(memory=SimpleNamespace(observation=text))

    arrived = said("-= Dish-Pit =-\nYou find yourself in a dish-pit. A typical one.")
    assert heading_place(_rooms_formalizer(False), arrived) is None
    rooms = _rooms_formalizer(True)
    assert heading_place(rooms, arrived) == (atom_of("(player dish-pit)"), "room")
    assert heading_place(rooms, said("-= Welcome to TextWorld =-\nHi.")) is None
    assert heading_place(rooms, said("You can't go that way.")) is None
    from pddlkit.formalizers.modular import ModularFormalizer
    from pddlkit.llm.scripted import ScriptedLLM

    house = ModularFormalizer(ScriptedLLM(["none"]), "household")
    house.fixed_domain = (ENTRY / "domain.pddl").read_text()
    house.reused_aspects = _shipped_aspects()
    assert heading_place(house, said("-= Kitchen =-\nYou are in the kitchen.")) is None


def test_a_doorway_walked_through_is_not_believed_closed_in_a_room_map():
    """The entry's move adds ``(closed-door ?from ?to ?dir)``; in a room map over it with
    its aspects, a closed fact a plan's steps added (and no sentence said) is not kept; one
    believed before the plan is; without aspects, the plan's state is kept whole."""
    from pddlkit.formalizers.atoms import atom_of

    before = {atom_of("(closed-door hall attic up)")}
    state = [atom_of("(closed-door cellar shower west)"), atom_of("(closed-door hall attic up)"),
             atom_of("(player shower)")]
    assert _rooms_formalizer(False)._unsaid_closed_dropped(state, before) == state
    assert _rooms_formalizer(True)._unsaid_closed_dropped(state, before) == state[1:]


def test_a_second_placeholder_of_a_named_exit_is_that_place():
    """Two placeholders read for one exit, one reached and named: once the chunk is whole,
    the other, in the known facts, is the named place too (no second place to visit)."""
    from pddlkit.formalizers.atoms import atom_of

    rooms = _rooms_formalizer(True)
    rooms.base = [atom_of("(player cellar)"), atom_of("(connected cellar shower west)"),
                  atom_of("(connected cellar unknown_west west)")]
    rooms.chunk, rooms._sentence = [], ""
    facts = rooms._facts()
    assert atom_of("(connected cellar unknown_west west)") not in facts
    assert atom_of("(connected cellar shower west)") in facts


def test_where_the_player_is_is_not_read_from_a_sentence_once_a_heading_said_it():
    """In a room map over the entry with its aspects, an observation with a heading leaves
    the player's predicate out of a sentence's facts ("A typical kind of place." is no
    room); with no heading, it stays in."""
    from types import SimpleNamespace

    rooms = _rooms_formalizer(True)
    rooms._sentence = "A typical kind of place."
    rooms._context_now = SimpleNamespace(memory=SimpleNamespace(
        observation="-= Studio =-\nYou are in a studio. A typical kind of place."))
    assert "player" in rooms._unstated_predicates()
    rooms._context_now = SimpleNamespace(memory=SimpleNamespace(observation="Nothing."))
    assert "player" not in rooms._unstated_predicates()


def test_a_room_reached_under_a_name_no_heading_gave_is_the_heading_s_room():
    """A plan reached ``exit`` (a room named from the prose); the heading says basement:
    every fact of ``exit`` is of the basement. A room a heading named before keeps its
    name (the player is believed elsewhere only by a plan that moved it)."""
    from pddlkit.formalizers.atoms import atom_of
    from pddlkit.formalizers.modular.rooms import renamed_reached

    base = [atom_of("(player exit)"), atom_of("(connected lounge exit west)")]
    assert renamed_reached(base, atom_of("(player basement)"), {"lounge"}) == [
        atom_of("(player basement)"), atom_of("(connected lounge basement west)")]
    assert renamed_reached(base, atom_of("(player basement)"), {"lounge", "exit"}) == base


def test_a_closed_door_a_sentence_states_is_asked_for_over_an_entry_reused_with_aspects():
    """Over CoinCollector's entry reused with its aspects, "To the West you see a closed
    glass door." states the closed aspect (and the connection) by its words, as while the
    entry was learnt: a facts answer that holds no closed-door fact gets it asked for once
    more (``_stated_predicates``). Found on 3-room test seeds (at 5a16a67: the connection
    alone, 4 of 5 losses). Without aspects (a frozen domain as the rows were read), nothing
    is stated."""
    sentence = "To the West you see a closed glass door."
    rooms = _rooms_formalizer(True)
    rooms._sentence = sentence
    stated, words = rooms._stated_predicates()
    assert (stated, words) == (["closed-door"], ["closed"])   # the closed aspect alone
    rooms._sentence = "To the West you see the pantry."
    assert "closed-door" not in rooms._stated_predicates()[0]
    bare = _rooms_formalizer(False)
    bare._sentence = sentence
    assert bare._stated_predicates() == ([], [])
