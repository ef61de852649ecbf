"""Which action makes a goal's predicate true, when none of the model's does (issue 75, with
``schema_check`` while the model writes the domain).

Why: measured with Qwen2.5-Coder 1.5B learning the household's domain (dev seed 0 at
e99f859), every receptacle was visited and opened, both credit cards the task names were
seen, and the episode ended at the solver's retry limit: the goal the model drew, ``(holds
creditcard_1)``, could never be reached, and the planner said why ("no action adds holds"),
but nothing asked for a schema: no action "can never fire" (its pickupobject fired, adding
only ``(clean ?o)``), and no transition refuted a take that was never run. The goal was
drawn again four times a step until the retries ran out.

So, once per predicate an episode, when a predicate the model wrote for what the player
holds (``predicate_slots``) is added by none of its schemas, before the goal is chosen
(seed 1 there held the ladle, its pickupobject adding only ``(clean ?o)``), or when the planner's
why-no-plan says no action adds a predicate of the model's that commands change, the model
is asked
which action makes it true (a choice among the actions whose parameters fit the predicate's
arguments, each shown with its command), and then that action's schema is asked again
with the reason, under a slot grammar whose line of that predicate lists its atom after
(``must_list`` of :func:`pddlkit.pddl.grammars.action_slots_grammar`; where the action's
parameters fill the predicate two ways, the line only may not say ``same``). The rewrite is
checked against every transition like any other; one that no draw gets past is set aside
as any rewrite is. The model chooses the action and writes every literal; code says only
that some action must make the goal's fact true (the planner's finding) and which line of
the chosen action's schema that is.
"""

from __future__ import annotations

import re
from itertools import product

from ..base import Context


class Achievers:
    """The achiever methods of :class:`~.formalizer.ModularFormalizer`."""

    def _unadded_predicate(self, error: str) -> str:
        """The predicate the planner's why-no-plan ``error`` says no action adds, when it is
        one of the model's that commands change and not asked about this episode; "" else."""
        static = self._static_predicates()
        names = {s.name.lower() for s in self.predicates}
        for m in re.finditer(r"no action adds ([\w\-]+)", error or ""):
            name = m.group(1).lower()
            if name in names and name not in static \
                    and name not in self._achiever_asked \
                    and self._achiever_candidates(name, self._signatures_seen):
                return name
        return ""

    def _unadded_fluent(self) -> str:
        """A predicate the model wrote for what the player holds (``predicate_slots``) that
        no schema of its adds, fitting some action, not asked about this episode; "" when
        none. Asked before the goal: a thing is held only once a command made it so. Not
        other aspects: a thing's place, in CoinCollector, is never made true by a command
        (taking the coin only ends it), and asked there, the model's take would be made to
        put the coin back (measured: every CoinCollector learning record replays otherwise).
        Not with ``try_untried``: a take run once shows what it does, where the model's
        answer is a guess (at bb67ced Qwen named putobject)."""
        from pddlkit.pddl.model import iter_effect_literals

        from ..helps.predicate_slots import HELD_ASPECT

        dom = self._domain_model() if self.schema_check and self.fixed_domain is None \
            and self.bodies and self.predicate_aspects and not self.try_untried else None
        if dom is None:   # (try_untried: the world shows what a take does; no guess asked)
            return ""
        added = {literal.atom.predicate.lower() for action in dom.actions
                 for literal in iter_effect_literals(action.effects) if literal.positive}
        for signature in self.predicates:
            name = signature.name.lower()
            if self.predicate_aspects.get(name) == HELD_ASPECT and name not in added \
                    and name not in self._achiever_asked \
                    and self._achiever_candidates(name, self._signatures_seen):
                return name
        return ""

    def _achiever_candidates(self, predicate: str, signatures: dict) -> list[str]:
        """The actions whose parameters can fill every argument of ``predicate`` (and are
        not set aside), in the environment's order."""
        from pddlkit.pddl.grammars import argument_fits

        types = self._kinds().get(predicate)
        if types is None:
            return []
        return [name for name, (params, _command) in signatures.items()
                if name not in self.evidence.set_aside
                and all(argument_fits(types, dict((v, t or None) for v, t in params)))]

    def _achieved_atoms(self, predicate: str, action: str, signatures: dict) -> set[str]:
        """The one atom of ``predicate`` over ``action``'s parameters, as a set; empty
        when its parameters fill the predicate more than one way."""
        from pddlkit.pddl.grammars import argument_fits

        params = dict((v, t or None) for v, t in signatures[action][0])
        fits = argument_fits(self._kinds()[predicate], params)
        atoms = ["(" + " ".join((predicate, *args)) + ")" for args in product(*fits)]
        return set(atoms) if len(atoms) == 1 else set()

    def _achiever_goal(self) -> str:
        """The goal atom the why-no-plan blames, for the request ("" when none is named)."""
        m = re.search(r"goal (\([^()]*\)) can never", self._planner_error or "")
        return m.group(1) if m else ""

    def _achiever_prompt(self, predicate: str, common: str, signatures: dict) -> str:
        label = next(iter(self._labeled_of({predicate})), f"({predicate})")
        actions = "\n".join(f"{name}: {signatures[name][1]}"
                            for name in self._achiever_candidates(predicate, signatures))
        goal = self._achiever_goal()
        return self.templates["achiever"].substitute(
            context=common, predicate=predicate, form=label, actions=actions,
            goal=f"the goal {goal}" if goal else "the goal")

    def _achiever_grammar(self, predicate: str, signatures: dict):
        from pddlkit.llm.grammar import Grammar
        from pddlkit.llm.lark_subset import choice

        return Grammar(f"start: {choice(self._achiever_candidates(predicate, signatures))}\n",
                       "the action that makes it true", 4)

    def _read_achiever(self, predicate: str, text: str, signatures: dict):
        from .reading import _one_of

        return _one_of(text, self._achiever_candidates(predicate, signatures), "actions")

    def _write_achiever(self, part: str, context: Context, signatures: dict) -> None:
        """Ask which action makes the predicate true, then that action's schema again, its
        line of the predicate listing the atom after (see the module)."""
        predicate = part.split(" ", 1)[1]
        self._achiever_asked.add(predicate)
        self.acted["schema-check"] += 1
        if not self._write(part, context, signatures):
            return   # no action named: the goal is asked again, as before
        self._written_last.append(part)
        action = self._achiever_chosen   # the answer just kept (a candidate's name)
        self._achieving[action] = (predicate, self._achieved_atoms(predicate, action,
                                                                   signatures))
        goal = self._achiever_goal()
        self.evidence.asking[action] = (
            f"{goal + ' can never be reached: ' if goal else ''}no action makes a fact of "
            f"{predicate} true, and {action} is the action that does; rewrite {action} so "
            f"that its effect makes it true")
        self._write_target(f"action {action}", context, signatures)

    def _achiever_rules(self, action: str) -> tuple[dict, set]:
        """For ``action``'s slot grammar: (``must_list`` additions, ``must_change``
        additions) from the achiever asked of it this episode."""
        predicate, atoms = self._achieving.get(action, ("", set()))
        if not predicate:
            return {}, set()
        return ({predicate: set(atoms)} if atoms else {}), ({predicate} if not atoms else set())
