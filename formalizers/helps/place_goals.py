"""``place_goals``: while the model writes the domain, and no goal offered names a thing the
task names, only goals of where the player is are offered: the next place to look.

Why: measured with Qwen2.5-Coder 1.5B writing CoinCollector's domain (dev seed 1 at abe5bba,
3 rooms): the coin was not seen yet, so no goal could name it, and the goals offered were
every atom the model's own predicates could reach: it chose ``(closed front corridor
open_door)``, then ``(cleaned front_door)`` (a predicate copied from the prompt's example
game), then ``(cleaned unknown_corridor)``, and the plans ("take front door", "take unknown
corridor") were refused until the simulation retries ran out; no move to an unseen room was
ever a goal. Over a frozen domain nothing changes (the predicates' aspects are known only
from ``--predicate-slots``), so the frozen-domain rows and their records are as they were.

Which predicates say where the player is comes from the line the model wrote them under
(``predicate_slots``' first aspect). When no candidate is of such a predicate, the list is
left as it was.
"""

from __future__ import annotations

from ..modular.parts import _words
from .task_focus import task_things


def offer(formalizer, reached: list) -> list:
    player = set(formalizer._player_predicates())
    if not player or formalizer.fixed_domain is not None:
        return reached
    if any(task_things(formalizer, atom) for _old, _cost, atom in reached):
        return reached
    places = [r for r in reached if _words(r[2])[0] in player]
    return places or reached
