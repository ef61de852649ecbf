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

The same, the other way (part ``achiever not P``): when the why-no-plan says a precondition
needs a fact of the model's false that holds initially and no action deletes (``(move
pantry unknown_north north), which needs (not (closed-door pantry unknown_north north)), but
(closed-door pantry unknown_north north) holds initially and no action deletes
closed-door``), the model is asked which action makes it false, and that action's line of
the predicate then requires the atom before and leaves it out after (``must_drop``). Why:
measured with Qwen2.5-Coder 1.5B writing CoinCollector's domain (dev seed 1 at 1e00f75),
its open-door came to add ``(closed-door ?loc1 ?loc1 ?dir)`` and delete nothing, no place
could be reached, and the request went to move's precondition, the action the line names,
whose rewrite cannot make a closed door open; the episode ended at the solver's retry
limit.
"""

from __future__ import annotations

import re
from itertools import product

from ..base import Context

#: an achiever part about what makes a predicate's fact false: ``achiever not closed-door``
NEGATED = "not "


def _polarity(subject: str) -> tuple[str, bool]:
    """(the predicate an achiever part is about, True when it asks what makes it false)."""
    return (subject[len(NEGATED):], True) if subject.startswith(NEGATED) else (subject, False)


class Achievers:
    """The achiever methods of :class:`~.formalizer.ModularFormalizer`."""

    def _unadded_predicate(self, error: str) -> str:
        """The predicate the planner's why-no-plan ``error`` says no action adds (see
        :meth:`_blamed_predicate`)."""
        return self._blamed_predicate(error, "adds", "")

    def _undeleted_predicate(self, error: str) -> str:
        """The predicate the planner's why-no-plan ``error`` says holds initially where a
        precondition needs it false and no action deletes (see :meth:`_blamed_predicate`)."""
        return self._blamed_predicate(error, "deletes", NEGATED)

    def _blamed_predicate(self, error: str, verb: str, polarity: str) -> str:
        """The first predicate ``error`` says "no action {verb}", with ``schema_check``,
        when it is one of the model's that commands change, some action's parameters fit,
        and its achiever part (``polarity`` + name) was not asked this episode; "" else."""
        if not self.schema_check:
            return ""
        static = self._static_predicates()
        names = {s.name.lower() for s in self.predicates}
        for m in re.finditer(rf"no action {verb} ([\w\-]+)", error or ""):
            name = m.group(1).lower()
            if name in names and name not in static \
                    and polarity + name not in self._achiever_asked \
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

    def _achieved_atoms(self, predicate: str, action: str, signatures: dict,
                        ground: tuple = ()) -> set[str]:
        """The one atom of ``predicate`` over ``action``'s parameters, as a set; empty
        when its parameters fill the predicate more than one way. With the ``ground``
        arguments the planner named (``(closed-door pantry corridor north)``), the ways
        are first narrowed to those that repeat a variable where it repeats a name, then,
        if more than one is left, to the one that takes the parameters in their order
        (``(closed-door ?loc1 ?loc2 ?dir)``, not ``?loc2 ?loc1``): the door between two
        places is named as the command's parameters name them."""
        from pddlkit.pddl.grammars import argument_fits

        order = [v for v, _t in signatures[action][0]]
        params = dict((v, t or None) for v, t in signatures[action][0])
        fits = list(product(*argument_fits(self._kinds()[predicate], params)))
        if ground and len(fits) > 1 and all(len(args) == len(ground) for args in fits):
            same = [args for args in fits
                    if all((a == b) == (x == y) for a, x in zip(args, ground)
                           for b, y in zip(args, ground))]
            ordered = [args for args in same
                       if [order.index(a) for a in args] == sorted(order.index(a) for a in args)]
            fits = same if len(same) == 1 else ordered
        atoms = ["(" + " ".join((predicate, *args)) + ")" for args in fits]
        return set(atoms) if len(atoms) == 1 else set()

    def _blamed_atom(self, predicate: str, negated: bool) -> tuple:
        """The arguments of the ``predicate`` atom the why-no-plan blames: the goal's (an
        achiever), or the one that "holds initially" where it is needed false; () when
        none is named."""
        pattern = (rf"but \(({re.escape(predicate)}(?: [^()]*)?)\) holds initially" if negated
                   else rf"goal \(({re.escape(predicate)}(?: [^()]*)?)\) can never")
        m = re.search(pattern, self._planner_error or "", re.IGNORECASE)
        return tuple(m.group(1).split()[1:]) if m else ()

    def _achiever_goal(self) -> str:
        """The goal atom the why-no-plan blames, for the request ("" when none is named)."""
        m = re.search(r"goal (\([^()]*\)) can never", self._planner_error or "")
        return m.group(1) if m else ""

    def _achiever_prompt(self, subject: str, common: str, signatures: dict) -> str:
        predicate, negated = _polarity(subject)
        label = next(iter(self._labeled_of({predicate})), f"({predicate})")
        actions = "\n".join(f"{name}: {signatures[name][1]}"
                            for name in self._achiever_candidates(predicate, signatures))
        goal = self._achiever_goal()
        return self.templates["achiever"].substitute(
            context=common, predicate=predicate, actions=actions,
            form=label + (" to be false" if negated else ""),
            truth="false" if negated else "true",
            goal=f"the goal {goal}" if goal else "the goal")

    def _achiever_grammar(self, subject: str, signatures: dict):
        from pddlkit.llm.grammar import Grammar
        from pddlkit.llm.lark_subset import choice

        predicate, negated = _polarity(subject)
        return Grammar(f"start: {choice(self._achiever_candidates(predicate, signatures))}\n",
                       f"the action that makes it {'false' if negated else 'true'}", 4)

    def _read_achiever(self, subject: str, text: str, signatures: dict):
        from .reading import _one_of

        return _one_of(text, self._achiever_candidates(_polarity(subject)[0], signatures),
                       "actions")

    def _write_achiever(self, part: str, context: Context, signatures: dict) -> None:
        """Ask which action makes the predicate true, then that action's schema again, its
        line of the predicate listing the atom after (see the module)."""
        subject = part.split(" ", 1)[1]
        predicate, negated = _polarity(subject)
        self._achiever_asked.add(subject)
        self.acted["schema-check"] += 1
        if not self._write(part, context, signatures):
            return   # no action named: the goal is asked again, as before
        self._written_last.append(part)
        action = self._achiever_chosen   # the answer just kept (a candidate's name)
        atoms = self._achieved_atoms(predicate, action, signatures,
                                     self._blamed_atom(predicate, negated))
        self._achieving[action] = (predicate, atoms, negated)
        goal, truth = self._achiever_goal(), "false" if negated else "true"
        self.evidence.asking[action] = (
            f"{goal + ' can never be reached: ' if goal else ''}no action makes a fact of "
            f"{predicate} {truth}, and {action} is the action that does; rewrite {action} so "
            f"that its effect makes it {truth}")
        self._write_target(f"action {action}", context, signatures)

    def _achiever_rules(self, action: str) -> tuple[dict, set, dict]:
        """For ``action``'s slot grammar: (``must_list`` additions, ``must_change``
        additions, ``must_drop`` additions) from the achiever asked of it this episode."""
        predicate, atoms, negated = self._achieving.get(action, ("", set(), False))
        if not predicate:
            return {}, set(), {}
        one = {predicate: set(atoms)} if atoms else {}
        changing = {predicate} if not atoms else set()
        return ({} if negated else one), changing, (one if negated else {})
