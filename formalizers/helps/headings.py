"""The heading names the room: over a learned entry reused with its aspects, in a map of
rooms joined by exits (a connection of three or more arguments: the places and a direction),
an observation headed ``-= Shower =-`` (TextWorld's and CoinCollector's room heading) says
the player is in ``shower``: code writes that fact of the predicate written for where the
player is (replacing the other value of that single-valued slot), and types the name as the
player's place, as :mod:`.command_facts` does for what the listed commands say.

Why: measured with Qwen2.5-Coder 1.5B over CoinCollector's learned ``7bbe41a16326`` on
TextWorld's coin games (dev seeds 0-1 at 3bbe1be and fd73d9f), TextWorld words its rooms
freely ("You arrive in a shower. A standard kind of place."; "You arrive in a typical kind
of place. That is to say, you're in a chamber."): the model typed ``shower`` a thing and put
the player at ``place``, ``standard`` or ``typical``, two rooms were one name, the map joined
rooms that do not touch, and no place was left to look though the game listed exits never
taken. The heading is what the agent is shown (no hidden state); the fact is counted in the
row's helps column (``command-facts``) and said in the ``facts-from-commands`` event.

Only there: while the model writes the domain, over a reference domain, an entry saved
without aspects, or the household (two places per connection), nothing is added.
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
