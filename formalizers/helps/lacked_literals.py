"""``lacked_literals``: what a refused command lacked, when the model's schema let it (issue 75: the
``lacked_literals`` help, with ``schema_check`` and ``schema_slots`` while the model writes
the domain; not in the preset: built from the household's records, and every CoinCollector
learning record replays otherwise with it, so it is opt-in until measured there).

Why: measured with Qwen2.5-Coder 1.5B learning the household's domain (dev seed 0 at
cc0aa5e), "clean creditcard 2 with cabinet 1" was refused three times, each where
cleanobject's precondition held; asked to rewrite it "with what the refused step lacked",
four draws required nothing new, and the domain, which then explains every transition but
that one, was not saved. And "close desk 1" ("The desk 1 cannot be opened or closed.")
was refused where no literal over the model's predicates was false that held whenever a
close worked: its four draws could not succeed.

So, for a precondition-too-weak finding of a command the agent ran, code lists the literals
over the action's parameters (of the model's predicates, either sign; the player's place
only as true; no place joined to itself) that were false before the refused command and
true before every command of the action the world took. With some, the model is asked which
one the refused command lacked (part ``lacked A``, a choice among them), and the rewrite's
slot grammar then requires it first in that predicate's line (``must_require`` of
:func:`pddlkit.pddl.grammars.action_slots_grammar`); the model chooses the literal and
writes the rest of the schema, checked against every transition as any rewrite. With none,
no precondition over these predicates can tell the refused command from the ones the world
took, so no draw is spent: the schema stays and is set aside for the episode, as after
draws that all failed (the predicates may be asked again, as then).
"""

from __future__ import annotations

from itertools import product
from typing import Iterable, Sequence


def lacked_literals(kinds: dict, params: Sequence[tuple], player: Iterable[str],
                    refused: tuple[dict, set], took: Sequence[tuple[dict, set]]) -> list[str]:
    """The lifted literals over ``params`` ((variable, type) pairs) of the predicates
    ``kinds`` (name -> argument types) that are false in the ``refused`` (binding, atoms
    before) and true in each of ``took``; those of ``player`` only as true, none naming a
    variable twice (see the module)."""
    from pddlkit.pddl.grammars import argument_fits

    player = set(player)
    out = []
    for name, types in kinds.items():
        for args in product(*argument_fits(types, dict(params))):
            if len(set(args)) < len(args):
                continue   # no place joined to itself
            atom = "(" + " ".join((name, *args)) + ")"
            for literal in [atom] + ([] if name in player else [f"(not {atom})"]):
                if not _holds(literal, *refused) and all(_holds(literal, *s) for s in took):
                    out.append(literal)
    return out


def _holds(literal: str, binding: dict, before: set) -> bool:
    """Whether the lifted ``literal``, its variables bound, holds in ``before``."""
    negated = literal.startswith("(not ")
    atom = literal[len("(not "):-1] if negated else literal
    ground = "(" + " ".join(binding.get(w, w) for w in atom.strip("()").split()) + ")"
    return (ground in before) != negated
