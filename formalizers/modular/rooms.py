"""Room maps: over a learned entry reused with its aspects whose connection has three or more
arguments (the places and a direction: CoinCollector's, played on TextWorld's coin games;
the household's connects two receptacles and none of this acts there), what code reads of
the game's own structure. Two parts of ``command_facts`` (what the agent is shown of the
game beside its prose, read in code):

**The heading names the room.** An observation headed ``-= Shower =-`` (TextWorld's and
CoinCollector's room heading) says the player is in ``shower``: code writes that fact of the
predicate written for where the player is (replacing the other value of that single-valued
slot), and types the name as the player's place, as :mod:`..helps.command_facts` does for
what the listed commands say.

Why: measured with Qwen2.5-Coder 1.5B over CoinCollector's learned ``7bbe41a16326`` on
TextWorld's coin games (dev seeds 0-1 at 3bbe1be and fd73d9f), TextWorld words its rooms
freely ("You arrive in a shower. A standard kind of place."; "You arrive in a typical kind
of place. That is to say, you're in a chamber."): the model typed ``shower`` a thing and put
the player at ``place``, ``standard`` or ``typical``, two rooms were one name, the map
joined rooms that do not touch, and no place was left to look though the game listed exits
never taken. The heading is what the agent is shown (no hidden state); the fact is counted
in the row's helps column (``command-facts``) and said in the ``facts-from-commands`` event.

**Listed exits.** Where the environment lists every command it would take now
(``admissible_complete``), a listed move's exit is one the facts have: a listed ``go north``
whose action needs a connection from where the player is that way, when no known fact
connects here that way, gives ``(connected cellar unknown_north_of_cellar north)``: a place
not yet seen, a goal the place goals offer. The placeholder is renamed to the place's name
once the player is there (``ModularFormalizer._merge_placeholders``), as
:mod:`..helps.here_facts`' are.

Why: measured with Qwen2.5-Coder 1.5B over CoinCollector's learned ``7bbe41a16326`` on
TextWorld's coin games (dev seeds 0-1 at 3bbe1be), the exits its prose words freely ("You
don't like doors? Why not try going west, that entranceway is unguarded.") were read into
connections to rooms named after adjectives of the prose (``room``, ``ordinary_one``) or not
at all: no place to look was left to offer though the list named exits never taken, the
place goals offered every reachable atom instead (``(holding ordinary_one)``, ``(cleaned
ordinary_one)``), and both episodes ended at the solver's retry limit. The game's list of
commands is what the agent is shown (no hidden state): what it says is written by code, and
the row's helps column counts it (``command-facts``).

Only there: while the model writes the domain, or over a reference domain or an entry saved
without aspects, nothing is added (their records replay as they were).
"""

from __future__ import annotations

import re
from typing import Optional

from pddlkit.pddl.model import Atom

#: a room's heading line
HEADING = re.compile(r"^\s*-= (.+?) =-\s*$", re.M)


def heading_place(formalizer, context) -> Optional[tuple[Atom, str]]:
    """(the player's place fact the latest observation's heading gives, the place's type),
    or None where it does not apply (see the module)."""
    if context is None or not formalizer._room_map():
        return None
    kinds = formalizer._kinds()
    player = [p for p in formalizer._player_predicates() if len(kinds.get(p, ())) == 1]
    found = HEADING.search(context.memory.observation or "")
    if not player or found is None:
        return None
    name = "_".join(re.sub(r"[^a-z0-9_\- ]", "", found.group(1).lower()).split())
    if not re.fullmatch(r"[a-z][a-z0-9_\-]*", name) or "welcome" in name.split("_"):
        return None
    kind = kinds[player[0]][0]
    return Atom(player[0], (name,)), kind


def renamed_reached(base: list[Atom], fact: Atom, headed: set) -> list[Atom]:
    """``base`` with the place the player was believed to have reached renamed to the one
    the heading names (``fact``), when no heading named that place before (``headed``): a
    room the model named from the prose ("exit" of "There is an exit to the west"), reached
    by a plan, was the room the player arrived in, as a placeholder is
    (``ModularFormalizer._merge_placeholders``). Why: measured with Qwen2.5-Coder 1.5B on
    TextWorld's coin game (the first test row after 5af66b3: measured on no seed yet), the
    lounge's way west was read as ``(connected lounge exit west)``: each move there arrived
    in the basement, ``exit`` stayed a place never visited, and the goal to reach it walked
    the same doorway back and forth."""
    name = fact.args[0]
    reached = {f.args[0] for f in base if f.predicate == fact.predicate and len(f.args) == 1}
    wrong = {r for r in reached if r != name and r not in headed}
    if not wrong:
        return base
    return [Atom(f.predicate, tuple(name if a in wrong else a for a in f.args)) for f in base]


def listed_exits(formalizer, read: list, known: set, here: Optional[str] = None
                 ) -> list[Atom]:
    """The connections the listed moves in ``read`` ((action, binding) of each listed
    command, :meth:`..helps.command_facts.CommandFacts._commands_read`) need from where the
    player is and ``known`` lacks, each to a placeholder; [] where they do not apply (see
    the module)."""
    from .parts import _conjuncts

    connects = formalizer._exit_predicates()
    if not connects:
        return []
    here = here or formalizer._here()
    player = set(formalizer._player_predicates())
    if here is None or here.startswith("unknown_") or not player:
        return []   # (a place not yet named: its exits wait for its name)
    out: list[Atom] = []
    for action, binding in read:
        conj = list(_conjuncts(action.precondition))
        at = {a.args[0].lower() for a in conj if a.predicate.lower() in player
              and len(a.args) == 1}
        for atom in conj:
            if atom.predicate.lower() in connects:
                exit_ = _exit(atom, at, binding, here, [*known, *out])
                out += [exit_] if exit_ is not None else []
    return out


def _exit(atom, at: set, binding: dict, here: str, facts: list) -> Optional[Atom]:
    """``atom`` (a connection a listed move needs, over the player's place ``at``, the
    command's ``binding`` and one argument neither fills) from ``here`` to a placeholder,
    unless ``facts`` already connect here that way; None when it is not such a connection."""
    args = [a.lower() for a in atom.args]
    free = [i for i, a in enumerate(args) if a not in at and a not in binding]
    if len(free) != 1 or not at & set(args):
        return None
    ground = [here if a in at else binding.get(a, a) for a in args]
    (i,) = free
    name = atom.predicate.lower()
    if any(f.predicate == name and len(f.args) == len(ground)
           and all(f.args[k] == g for k, g in enumerate(ground) if k != i) for f in facts):
        return None
    rest = [g for k, g in enumerate(ground) if k != i and g != here]
    ground[i] = "unknown_" + "_".join([*rest, "of", here])
    return Atom(name, tuple(ground))
