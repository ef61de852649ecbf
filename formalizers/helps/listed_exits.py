"""Listed exits: over a learned entry reused with its aspects, where the environment lists
every command it would take now (``admissible_complete``), a listed move's exit is one the
facts have: a listed ``go north`` whose action needs a connection from where the player is
that way, when no known fact connects here that way, gives ``(connected cellar
unknown_north_of_cellar north)``: a place not yet seen, a goal the place goals offer. The
placeholder is renamed to the place's name once the player is there
(``ModularFormalizer._merge_placeholders``), as :mod:`.here_facts`' are.

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

from typing import Optional

from pddlkit.pddl.model import Atom


def listed_exits(formalizer, read: list, known: set, here: Optional[str] = None
                 ) -> list[Atom]:
    """The connections the listed moves in ``read`` ((action, binding) of each listed
    command, :meth:`.command_facts.CommandFacts._commands_read`) need from where the player
    is and ``known`` lacks, each to a placeholder; [] where they do not apply (see the
    module)."""
    from ..modular.parts import _conjuncts
    from .predicate_slots import CONNECT_ASPECT

    if not formalizer._plays_learned():
        return []
    here = here or formalizer._here()
    kinds = formalizer._kinds()
    connects = {n for n, a in formalizer._aspects().items()
                if a == CONNECT_ASPECT and len(kinds.get(n, ())) >= 3}
    player = set(formalizer._player_predicates())
    if here is None or here.startswith("unknown_") or not connects or not player:
        return []   # (a place not yet named: its exits wait for its name)
    out: list[Atom] = []
    for action, binding in read:
        conj = list(_conjuncts(action.precondition))
        at = {a.args[0].lower() for a in conj if a.predicate.lower() in player
              and len(a.args) == 1}
        for atom in conj:
            if atom.predicate.lower() not in connects:
                continue
            args = [a.lower() for a in atom.args]
            free = [i for i, a in enumerate(args) if a not in at and a not in binding]
            if len(free) != 1 or not at & set(args):
                continue
            ground = [here if a in at else binding.get(a, a) for a in args]
            (i,) = free
            if any(f.predicate == atom.predicate.lower() and len(f.args) == len(ground)
                   and all(f.args[k] == g for k, g in enumerate(ground) if k != i)
                   for f in [*known, *out]):
                continue
            rest = [g for k, g in enumerate(ground) if k != i and g != here]
            ground[i] = "unknown_" + "_".join([*rest, "of", here])
            out.append(Atom(atom.predicate.lower(), tuple(ground)))
    return out
