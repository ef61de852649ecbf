"""What the world said was wrong, made into the parts to ask again: the corrections a failed
step's precondition allows (the ``correction`` part), the aspect a refusal states; the helps
that correct in code are their own files (``world_literals``, ``command_facts``,
``ask_missing`` in :mod:`pddlkit.formalizers.helps`), reached from here.

A part of :class:`~.formalizer.ModularFormalizer` (issue 74: the 2,102-line module split by job).
"""

from __future__ import annotations

import re
from typing import Optional

from ..atoms import fact_text
from .roles import AsksForMissing, CorrectsFromRefusal


class Corrections:
    """The corrections methods of :class:`~.formalizer.ModularFormalizer`."""

    def _missing_predicate(self, error: str) -> Optional[str]:
        """``ask_missing`` (:mod:`pddlkit.formalizers.helps.ask_missing`): the predicate to
        ask for after the planner's why-no-plan ``error``, or None (off, or none)."""
        return next(filter(None, (ask.after_no_plan(self, error)
                                  for ask in self._roles(AsksForMissing))), None)

    def _apply_world_corrections(self) -> bool:
        """``world_literals`` (:mod:`pddlkit.formalizers.helps.world_literals`): the known
        facts corrected from what the world said of the failed step; False when off or it
        implies nothing."""
        applied = [world.apply(self) for world in self._roles(CorrectsFromRefusal)]
        return any(applied)   # every one applies what it heard

    def _failed_step_action(self):
        """(the failed step's action in the model's domain, a function grounding one of its
        atoms over the step's arguments); None when the step cannot be read against it."""
        from ..helps.refuted_facts import bind_step

        dom = self._domain_model() if self.failed_step else None
        bound = bind_step(dom, self.failed_step) if dom is not None else None
        if bound is None:
            return None
        action, binding = bound

        def ground(atom) -> str:
            return "(" + " ".join([atom.predicate.lower(),
                                   *(binding.get(a.lower(), a.lower()) for a in atom.args)]) + ")"
        return action, ground

    def _refusal_states_an_aspect(self) -> bool:
        """``predicate_slots``, while the model writes the domain: whether the world's answer
        to the refused command states an aspect the predicates have by its word
        (:meth:`_state_words`: "The door to the north is closed."); then no ``(not F)`` is a
        correction: over that aspect it contradicts the answer, over another the answer is
        not about it, and the schema that let the command be planned is what is wrong (the
        schema check refutes it). Measured with Qwen2.5-Coder 1.5B writing CoinCollector's
        domain, dev seed 1: its close-door needed the door closed, "close door to north" was
        refused with that sentence, and the correction took the closed door out of the
        facts (at df8c5ea), then, that one ruled out, the connection (at a3d7b69); each time
        the rewritten schema was fitted to the wrong facts. An answer that states no such
        aspect ("You can't move west: there is no exit in that direction.") keeps its
        corrections: a fact the model read wrong goes."""
        if self.fixed_domain is not None:
            return False
        return bool(set(re.findall(r"[a-z]+", self._refusal_message.lower()))
                    & self._state_words())

    def _corrections(self) -> list[str]:
        """What could have been wrong when the failed step's command failed: for each
        literal of its precondition (in the model's domain, over the step's arguments),
        ``(not F)`` for a fact ``F`` the known facts hold (it is false in the world), ``F``
        for a fact they lack (the world has it: a door the precondition says is not there)."""
        failed = self._failed_step_action()
        if failed is None:
            return []
        action, ground = failed
        from pddlkit.pddl.model import Atom, Not, Or, And

        known = {fact_text(f) for f in self._facts()}   # as ground() writes a fact
        no_removal = self._refusal_states_an_aspect()
        out: list[str] = []

        def visit(f) -> None:
            if isinstance(f, (And, Or)):
                for part in f.parts:
                    visit(part)
            elif isinstance(f, Not) and isinstance(f.formula, Atom):
                fact = ground(f.formula)
                if fact not in known and f.formula.predicate != "=":
                    out.append(fact)
            elif isinstance(f, Atom) and f.predicate != "=":
                fact = ground(f)
                if fact not in known:
                    out.append(fact)
                elif not no_removal:
                    out.append(f"(not {fact})")

        visit(action.precondition)
        # facts the model lacks first: a small model leaves facts out far more often than it
        # invents them (its measured fact recall is below its precision)
        return sorted(dict.fromkeys(out), key=lambda c: c.startswith("(not "))
