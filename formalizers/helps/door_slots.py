"""``door_slots`` (issue 75; not in the preset): with ``--predicate-slots``, one more labelled
line among the predicates asked for, "which doors or containers there are, open or
closed", before the line of which are closed. A predicate of that line is static (no schema
may change it: a door or a container does not appear or vanish when a command is given),
and a sentence that names no door and no closed or open thing states none of it, so a
sentence about an open doorway ("To the East you see the pantry.") gives no door fact.

Why: the learned CoinCollector domain (``domains/learned/coin-collector/7bbe41a16326``,
Qwen2.5-Coder 1.5B on dev seeds 1-3 at 1886144) has ``connected`` and ``closed-door`` and
nothing that says a door is there, so its ``close-door`` holds at every open doorway: of the
156 transitions of its 3-room test row, 46 were ``close door`` the world refused where that
precondition held (``benchmarks/learned_transitions.py``), and with ``--unlisted-refusals``
every right close-door over those predicates was refuted too (1d74daa). Asked for "which
doors there are, open or closed" with any number of arguments (935b8e3), Qwen wrote
``(door-opened-to ?d1 - direction)``: a door over a direction alone, no place; so this line
takes two arguments at least (a door is somewhere, and on some side of it), and is asked
only while a learning run opts in. The household's containers are one argument each
(``(openable ?r - receptacle)``), so the help is for CoinCollector's doors, not the household
(where it would force a second argument nothing needs): written down here rather than
guessed at run time.

This file holds the line's data; :mod:`.predicate_slots` reads answers with it and
:mod:`..modular.prompting` asks with it (:func:`slots`).
"""

from __future__ import annotations

#: the aspect this help's line asks for: which doors (or containers) exist, whatever their state
DOORS_ASPECT = "which doors or containers there are, open or closed"
#: the fewest arguments of its predicates: a place, and the side of it (see the module)
DOORS_LEAST = 2
#: the words by which a sentence states a door or a container: a text game names the door
#: it shows ("a closed front door", "an open front door, leading to the corridor") and says
#: a container is closed or open ("The cabinet 1 is closed."), never a doorway's door
DOOR_WORDS = ("door", "closed", "open")


def slots(predicate_slots: tuple, on: bool, before: str) -> tuple:
    """The labelled lines the predicates are asked for under: ``predicate_slots``' own, with
    this help's line before the line labelled ``before`` (which doors or containers are
    closed; at the end if none is) where ``on``."""
    if not on:
        return tuple(predicate_slots)
    labels = [label for label, _least in predicate_slots]
    at = labels.index(before) if before in labels else len(labels)
    return (*predicate_slots[:at], (DOORS_ASPECT, DOORS_LEAST), *predicate_slots[at:])
