"""``ask_missing``: a predicate the planner needs and no known fact holds is asked for alone.

Two moments: after the planner's why-no-plan says an action's precondition is never true
over a predicate no known fact holds (``its precondition (atlocation ?from) is never
true``), and before a goal, when no place is left to go and an action needs a predicate no
action adds and no fact holds (``openable``). The formalizer then writes its ``missing``
part for that predicate (:mod:`pddlkit.formalizers.modular`). Measured with Qwen2.5-Coder
1.5B on the household (dev seeds): "You are in the middle of a room" came out as ``(heater
middle)`` in 7 of 15 problem files, and with no ``atlocation`` fact nothing could move; "The
cabinet 1 is closed." came out as ``(heater cabinet_1)`` at every receptacle, so nothing
could ever be opened.

A strategy of the modular formalizer (its ``strategy`` hook): one object per episode, which
keeps what it asked.
"""

from __future__ import annotations

import re
from typing import Optional

from pddlkit.formalizers.atoms import atom_of
from pddlkit.formalizers.modular.parts import MISSING_ASKS, STALLED_ASKS, _head


class AskMissing:
    """What was asked in this episode: predicate -> missing parts asked after a why-no-plan
    (at most :data:`MISSING_ASKS` each), and the predicates asked with no place left to go
    (at most :data:`STALLED_ASKS`)."""

    def __init__(self) -> None:
        self.asked: dict[str, int] = {}
        self.stalled: list[str] = []

    def after_no_plan(self, formalizer, error: str) -> Optional[str]:
        """The first predicate the planner's why-no-plan (``error``) says an action's
        precondition needs and never has, that no known fact holds and that was asked for
        fewer than :data:`MISSING_ASKS` times, counted as asked once more; None otherwise."""
        held = formalizer._held_predicates()
        arities = {name: len(params) for name, params in formalizer._signature_list()}
        for found in re.finditer(r"precondition \(([\w\-]+)[^)]*\) is never true", error):
            predicate = found.group(1).lower()
            if predicate in arities and predicate not in held \
                    and self.asked.get(predicate, 0) < MISSING_ASKS:
                self.asked[predicate] = self.asked.get(predicate, 0) + 1
                formalizer.acted["ask-missing"] += 1
                return predicate
        return None

    def when_stalled(self, formalizer) -> Optional[str]:
        """Before a goal: when no place is left to go (no atom of a single-valued predicate,
        such as ``atlocation``, is reachable and never true so far), the first predicate an
        action's precondition needs, that no action adds and that no known fact holds; each
        predicate once, counted as asked. None otherwise."""
        predicate = self._stalled_predicate(formalizer)
        if predicate:
            self.stalled.append(predicate)
            formalizer.acted["ask-missing"] += 1
        return predicate

    def _stalled_predicate(self, formalizer) -> Optional[str]:
        dom = formalizer._domain_model()
        if dom is None or len(self.stalled) >= STALLED_ASKS:
            return None
        single = formalizer._single_valued()
        facts = formalizer._facts()
        ever = formalizer.ever | set(facts)
        if not any(f.predicate in single for f in facts) or any(
                _head(atom) in single and atom_of(atom) not in ever
                for atom in formalizer._reachable_goals()):
            return None   # nowhere known to be, or somewhere left to go
        from pddlkit.pddl.model import And, Atom, iter_effect_literals

        added = {lit.atom.predicate.lower() for a in dom.actions
                 for lit in iter_effect_literals(a.effects) if lit.positive}
        held = formalizer._held_predicates()
        for action in dom.actions:
            parts = action.precondition.parts if isinstance(action.precondition, And) \
                else [action.precondition]
            for atom in parts:
                if not isinstance(atom, Atom) or not atom.args:
                    continue
                predicate = atom.predicate.lower()
                if predicate not in added and predicate not in held \
                        and predicate not in self.stalled:
                    return predicate
        return None
