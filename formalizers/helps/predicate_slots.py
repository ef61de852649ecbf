"""``predicate_slots`` (issue 75): while the model writes the domain, its predicates are asked
for under one labelled line per aspect of a state, and what each predicate was written for is
read back from the answer (:func:`aspects_of`), so the prompts can say it, the schema check can
tell the predicates commands change from the ones they never do, and a sentence that states an
aspect by a word ("a closed front door") has its facts of that aspect asked for.

This file holds the help's data (the aspects, the words that state them, the prompt's forms)
and its reading of an answer; the modular formalizer's predicate part asks under it and keeps
``predicate_aspects`` (:mod:`..modular.predicates`: ``_keep_predicates``,
``_write_stated``), the grammar is :func:`pddlkit.pddl.grammars.predicate_slots_grammar`.
"""

from __future__ import annotations

import re

from ..atoms import _ATOM
from .door_slots import DOOR_WORDS, DOORS_ASPECT, DOORS_LEAST

#: ``predicate_slots``: the aspects of a state the predicates are asked for under, one labelled
#: line each (what the predicates prompt has always listed, in one sentence), with the fewest
#: arguments a predicate of that aspect has (a place relates a thing to where it is; measured
#: with Qwen2.5-Coder 1.5B on the household with none: ``(none)``, ``(thing ?o - obj)``).
#: Doors are asked for as closed, not open (since 2026-12-03): a text game names a closed door
#: ("a closed patio door", "The fridge 1 is closed.") and no door at an open doorway, so a
#: fact that is absent reads right; measured with Qwen2.5-Coder 1.5B on CoinCollector (dev
#: seed 0 at b9943c5), asked "whether they are open" it wrote ``(door-opened ...)``, which no
#: sentence ever stated, so no move schema could tell a closed door from a doorway.
#: Generic to the text games pddlkit plays (CoinCollector's rooms, doors and coin; the
#: household's receptacles, held things and appliances), and no answer is given: the model
#: names and types each predicate, or writes none. No parentheses: a label must not read as a
#: predicate.
PREDICATE_SLOTS = (
    ("where the player is", 1),
    ("which places connect, and in which direction", 2),
    ("which doors or containers are closed", 1),
    ("where each thing is", 2),
    ("what the player holds", 1),
    ("other states of a thing, such as clean, hot, cold or turned on", 1),
)
#: every line an answer may have: :data:`PREDICATE_SLOTS` and ``door_slots``' (see there)
ALL_SLOTS = (*PREDICATE_SLOTS, (DOORS_ASPECT, DOORS_LEAST))
#: the aspect of the player's place: with ``schema_slots``, a schema's line for its predicate
#: requires it only as true (a command is done where the player is; measured with
#: Qwen2.5-Coder 1.5B on CoinCollector, dev seed 0 at 0a66163: ``player: before (not (player
#: ?from)) after (player ?to)`` in move, open-door, close-door and take alike, so no
#: precondition said where a command is done and no fact could be pinned to it)
PLAYER_ASPECT = PREDICATE_SLOTS[0][0]
#: the aspect of how places connect
CONNECT_ASPECT = PREDICATE_SLOTS[1][0]
#: the aspect of which doors or containers are closed
CLOSED_ASPECT = PREDICATE_SLOTS[2][0]
#: the aspect of where each thing is (a thing and its place)
THING_ASPECT = PREDICATE_SLOTS[3][0]
#: the aspect of what the player holds: a thing, never a place (see :func:`held_places`)
HELD_ASPECT = PREDICATE_SLOTS[4][0]
#: the aspect of the other states of a thing (clean, hot, turned on)
STATE_ASPECT = PREDICATE_SLOTS[5][0]
#: ``predicate_slots``: the most arguments a predicate of an aspect has, where the aspect
#: says it (the others take up to four): where the player is, what it holds and a state of a
#: thing each relate one thing, the player being implied (every text game pddlkit plays:
#: CoinCollector's ``(at ?r)``, ``(holding ?i)``; the household's ``(atlocation ?r)``,
#: ``(holds ?o)``, ``(ishot ?o)``). Why: measured with Qwen2.5-Coder 1.5B learning the
#: household's domain (dev seeds 0-1 at 1734ac0), it declared ``(holds ?o - obj ?p1 -
#: receptacle)``, ``(cleaned ?o - obj ?r - receptacle)`` and ``(hot ?o - obj ?r -
#: receptacle)``: a held thing and a thing's state tied to a receptacle, so its pickupobject
#: deleted ``holds``, its sliceobject put a thing at the receptacle, and no schema over those
#: predicates explained what the world did with a held or heated thing elsewhere.
MOST_ARGUMENTS = {PLAYER_ASPECT: 1, HELD_ASPECT: 1, STATE_ASPECT: 1}
#: ``predicate_slots``: the words by which a sentence states a fact of an aspect, so the
#: sentence's facts begin with one of that aspect's predicates (:meth:`PredicateRevision.
#: _stated_predicates`). Measured with Qwen2.5-Coder 1.5B writing CoinCollector's domain (dev
#: seed 1 at aec302f): "To the North you see a closed front door." was read as the
#: connection alone, so the open-door the game listed refuted a right open-door (it needed
#: the door closed), and "move north" was planned through the closed door.
#: And what the player holds, by the words a text game says a thing is taken or carried
#: with (CoinCollector's "You take the coin.", the household's and ALFWorld's "You pick up
#: the creditcard 2 from the cabinet 1.", "You are carrying: ..."): measured with
#: Qwen2.5-Coder 1.5B learning the household's domain (dev seed 0 at 2fcc924), "On the desk
#: 1, you see a butterknife 1, a desklamp 1, a keychain 1, ..." was read as ``(holds
#: butterknife_1)``, ``(holds desklamp_1)``, ...: four things held that were only seen.
STATED_BY = {CLOSED_ASPECT: ("closed",),
             "what the player holds": ("take", "pick", "carrying", "holding"),
             DOORS_ASPECT: DOOR_WORDS}   # ``door_slots`` (its file says why)
#: ``predicate_slots``: the words by which a sentence states a fact of an aspect, for the
#: facts asked for once more (:meth:`PredicateRevision._write_stated`): the state words
#: above, and a compass direction for how places connect (the text games pddlkit plays name
#: an exit by its direction: "To the North you see a closed front door."). Measured with
#: Qwen2.5-Coder 1.5B (CoinCollector dev seed 1 at 8e69351): it wrote one fact a sentence,
#: the closed door, and the connection was lost. A direction is a name, so only the state
#: words are typed NONE. And where a thing is, by the words a text game says a thing was put
#: somewhere with (the household's "You move the cd 1 to the countertop 1.", ALFWorld's "You
#: put the ..."): measured with Qwen2.5-Coder 1.5B learning the household's domain (dev seed
#: 0 at fb180f2), that sentence was read as ``(hot cd_1) (player countertop_1)``, so the
#: cd was believed held still, the put's schema was never refuted, and the listed "take cd
#: 1 from countertop 1" refuted a take that required the hand free of it. And "you see"
#: (at cc0aa5e, dev seed 0, "In it, you see a creditcard 2, a pillow 1, and a plate 2." was
#: read ``(cleaned creditcard_2)``: where the task's card was, was never known).
SIGNALLED_BY = {**STATED_BY, CONNECT_ASPECT:
                ("north", "south", "east", "west"),
                THING_ASPECT: ("move", "put", "see")}
#: ``predicate_slots``: the words by which the world's answer states a fact of an aspect
#: false ("The cabinet 1 is already open.": not closed), so a correction that takes such a
#: fact out is the world's word, not the model's guess (:meth:`..modular.writing.Writing.
#: _correct_evidence`). Measured with Qwen2.5-Coder 1.5B learning the household's domain
#: (dev seed 0 at 3b48e37): its pickupobject rewrite closed the receptacle taken from, "open
#: cabinet 1" was refused as "already open", the correction took ``(closed cabinet_1)`` out
#: of the facts, yet the refused transition kept it, and the domain, which explained every
#: other transition, was not saved for that one.
STATED_FALSE_BY = {CLOSED_ASPECT: ("open",)}
#: the words of :data:`SIGNALLED_BY` by which a sentence says a thing was put somewhere (what
#: it then reads of where the thing is was the command's doing, not something found)
PUT_WORDS = ("move", "put")
#: the aspect whose predicates no command changes (how places connect); a predicate of any
#: other aspect is one the schema check knows changes (where the player is: measured with
#: Qwen2.5-Coder 1.5B, no move schema changed it, and with no schema changing it the check
#: took it for a static fact and never said so)
STATIC_ASPECTS = frozenset({"which places connect, and in which direction", DOORS_ASPECT})
#: the form the predicates prompt shows, without and with ``predicate_slots``
PREDICATES_FORM = "Example of the form: (at ?r - room)"
SLOTS_FORM = ("Write one line for each of these aspects, its label, then the predicate (or "
              "two) for it, or none if the game has no such thing:\n")



def place_types(signatures: dict) -> list[str]:
    """The types every action has a parameter of (``room`` in CoinCollector, ``receptacle`` in
    the household): a command is done where the player is, so where the player is has such a
    type; the grammar of the predicates gives the player's place only these (``[]``, no
    restriction, when no type, or every type, is one). Why: measured with Qwen2.5-Coder 1.5B
    learning the household's domain (dev seeds 0-1 at 1dacc70), the player's place was
    declared ``(player ?p1 - obj)``, so no action's receptacle could be where a command is
    done, no place goal could be offered, and both episodes ended at the simulation's retry
    limit after 12 commands, every one an ``open`` of a receptacle the player was not at."""
    kinds = [{t for _v, t in params if t} for params, _template in signatures.values()]
    if not kinds:
        return []
    common = set.intersection(*kinds)
    every = set.union(*kinds)
    return sorted(common) if common and common != every else []


def misplaced_players(answer: str, kinds: list[str]) -> list[str]:
    """The declarations on the line of where the player is with an argument of a type not in
    ``kinds`` (:func:`place_types`; none refused when it is empty): the grammar allows no
    other, and a free answer is read the same way."""
    lines = _aspect_lines(answer)
    return [m.group(0) for line in lines.get(PLAYER_ASPECT, []) for m in _ATOM.finditer(line)
            if kinds and not set(_argument_types(m.group(0))) <= set(kinds)]


def named_places(signatures: dict) -> dict[str, list[int]]:
    """action -> the positions of its parameters of a place type (:func:`place_types`) that
    its command's words name (the household's "go to {to}", "open {r}"; none of
    CoinCollector's: "move {dir}"): where such a command is done, after it, is the place it
    names (``schema_check``'s :meth:`SchemaEvidence.place_unstated`)."""
    kinds = set(place_types(signatures))
    out: dict[str, list[int]] = {}
    for name, (params, template) in signatures.items():
        shown = set(re.findall(r"\{(\w+)\}", template))
        found = [k for k, (var, kind) in enumerate(params)
                 if kind in kinds and var.lstrip("?") in shown]
        if found:
            out[name.lower()] = found
    return out


def over_most(answer: str) -> dict[int, tuple[str, int]]:
    """Where in ``answer`` each declaration begins that has, on its aspect's line, more
    arguments than :data:`MOST_ARGUMENTS` lets that aspect have -> (the aspect, that bound):
    the grammar allows none, and a free answer is read the same way. By position, not by
    text: the same declaration on another aspect's line is that line's."""
    out: dict[int, tuple[str, int]] = {}
    for label, start, stop in _aspect_spans(answer):
        most = MOST_ARGUMENTS.get(label)
        for m in _ATOM.finditer(answer, start, stop) if most is not None else ():
            if len(re.findall(r"\?[\w\-]+", m.group(2))) > most:
                out[m.start()] = (label, most)
    return out


def held_places(answer: str, types: set) -> list[str]:
    """``predicate_slots``: the declarations on the line of what the player holds whose every
    argument has a type of the line of where the player is (``what the player holds:
    (holding ?p1 - room) (holding ?p1 - item)`` under ``where the player is: (player ?p1 -
    room)`` -> ``["(holding ?p1 - room)"]``): a place is where the player is, not a thing it
    holds, so such a declaration is refused. None is refused when the player's place has no
    type of its own (every argument ``object``, or the place's type the only one): nothing
    else could be held then.

    Why: measured with Qwen2.5-Coder 1.5B writing CoinCollector's domain (dev seed 1 at
    5f39841), the holds line declared ``(holding ?p1 - room)`` first and ``(holding ?p1 -
    item)`` second; the second was refused as declared twice, the coin was then typed a room
    to fit ``(holding coin)``, move required ``(holding ?from)``, and no rewrite of it could
    move the player: the episode ended at step 2 with the solver's retries spent."""
    lines = _aspect_lines(answer)
    place = {t for line in lines.get(PLAYER_ASPECT, []) for t in _argument_types(line)}
    if not place or not (types - place - {"object"}):
        return []
    return [m.group(0) for line in lines.get(HELD_ASPECT, [])
            for m in _ATOM.finditer(line)
            if (kinds := _argument_types(m.group(0))) and set(kinds) <= place]


def _aspect_lines(answer: str, last_only: bool = False) -> dict[str, list[str]]:
    """Each aspect's label -> the text of its lines in ``answer``, in the order they come
    (:func:`_aspect_spans`)."""
    out: dict[str, list[str]] = {}
    for label, start, stop in _aspect_spans(answer, last_only):
        out.setdefault(label, []).append(answer[start:stop])
    return out


def _aspect_spans(answer: str, last_only: bool = False) -> list[tuple[str, int, int]]:
    """(label, where its line's text begins, where it ends) for each aspect's line in
    ``answer``, in order: a label counts where a line begins with it (any case), and its text
    runs to the next such line; with ``last_only``, only each label's last line counts (a
    model that echoes the template's lines first)."""
    found = [(m.start(), m.end(), label) for label, _least in ALL_SLOTS
             for m in re.finditer(rf"(?im)^[ \t]*{re.escape(label)}[ \t]*:", answer)]
    if last_only:
        last = {label: (start, end) for start, end, label in sorted(found)}
        found = [(start, end, label) for label, (start, end) in last.items()]
    found.sort()
    return [(label, end, found[i + 1][0] if i + 1 < len(found) else len(answer))
            for i, (_start, end, label) in enumerate(found)]


def _argument_types(declaration: str) -> list[str]:
    """``(holding ?p1 - room ?x - item)`` -> ``["room", "item"]`` (typed arguments only)."""
    return re.findall(r"\?[\w\-]+\s+-\s+([\w\-]+)", declaration)


def aspects_of(answer: str, predicates: list) -> dict[str, str]:
    """``predicate_slots``: predicate name -> the aspect whose line declared it, read from the
    answer (``where the player is: (player ?p1 - room)`` -> {"player": "where the player
    is"}), for the predicates kept. The prompts then say what each predicate is for: the
    name a small model gives may not (measured with Qwen2.5-Coder 1.5B: ``(player ?p1 -
    room)`` for where the player is, and a move schema that never changed it)."""
    names = {p.name for p in predicates}
    found: dict[str, str] = {}
    for label, texts in _aspect_lines(answer, last_only=True).items():
        for m in _ATOM.finditer(texts[0]):
            if m.group(1).lower() in names:
                found.setdefault(m.group(1).lower(), label)
    return found
