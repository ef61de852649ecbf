"""What a part's request says and what its grammar allows: the prompt from the bundled
templates, the names and types offered, and the GBNF grammar of each part.

A part of :class:`~.formalizer.ModularFormalizer` (issue 74: the 2,102-line module split by job).
"""

from __future__ import annotations

from typing import Optional

from ..base import SIMULATION_ERROR, SOLVER_ERROR, Context
from .parts import MISSING_FACTS, _types, observed_names
from pddlkit.pddl.model import Atom

from ..atoms import Signature, fact_text, facts_text
from ..helps.schema_slots import (SCHEMA_SLOTS_FORM, form_lines, ruled_out, self_joined,
                                  slot_predicates, slots_of_body)


class Prompting:
    """The prompting methods of :class:`~.formalizer.ModularFormalizer`."""

    # -- prompts and grammars --------------------------------------------------------------
    def _prompt(self, part: str, context: Context, signatures: dict) -> str:
        """The request for ``part``: the shared context, then the part's own template."""
        history = context.memory.history
        shown = "\n".join(f"> {a}\n{o}" for a, o in history[:self.seen]) or "(nothing yet)"
        values = {"task": context.memory.task, "domain_part": self._domain_part(),
                  "known": facts_text(self._facts()) or "(none yet)"}
        if self._predicates_why:   # asked again: the refused ones and facts over them invite
            values.update(domain_part="", known="(none yet)")   # echoes (measured: copied)
        common = self.templates["context"].substitute(values).strip()
        last = self.answers.get(self._answer_key(part))
        revision = _revision(context, last)
        kind = part.split()[0]
        if kind == "action":
            text = self._action_prompt(part.split(" ", 1)[1], context, common, last, revision,
                                       signatures)
        elif kind == "predicates":
            text = self.templates["predicates"].substitute(
                context=common, types=", ".join(_types(signatures)),
                signatures=context.signatures, history=shown, form=self._predicates_form(),
                layout="one line per aspect below," if self.predicate_slots else "one per line,",
                revision=self._predicates_why or revision)
        elif kind == "correction":
            named = list(dict.fromkeys(self._predicate_of(c) for c in self._corrections()))
            text = self.templates["correction"].substitute(
                context=common, command=context.failed_action or "", step=self.failed_step,
                message=(context.error or "").strip(),
                predicates=", ".join(named[:-1]) + (" or " if len(named) > 1 else "")
                + named[-1])
        elif kind == "types":
            text = self.templates["types"].substitute(
                context=common, sentence=self._sentence, revision=revision,
                types=", ".join(t.upper() for t in self._type_names()))
        elif kind == "missing":
            text = self._missing_prompt(part.split(" ", 1)[1], context, common, shown)
        elif kind == "achiever":
            text = self._achiever_prompt(part.split(" ", 1)[1], common, signatures)
        elif kind == "lacked":
            text = self._lacked_prompt(part.split(" ", 1)[1], common)
        elif kind == "facts":
            text = self.templates["facts"].substitute(
                context=common, revision=self._stating_revision() or revision,
                sentence=self._sentence)
        else:
            text = self._goal_prompt(context, common, revision)
        return text.strip() + "\n"

    def _action_prompt(self, name: str, context: Context, common: str, last: Optional[str],
                       revision: str, signatures: dict) -> str:
        """An action's request: its schema (``schema_slots``: a line per predicate), with
        what the evidence says of it (``schema_check``), or why it is asked (the planner's
        line: it can never fire, or no action makes a goal's fact true)."""
        params, command = signatures[name]
        if self.schema_check and (self.evidence.any or name in self.evidence.asking):
            revision = self._schema_revision(name, last, revision, params)
        values = dict(context=common, action=name, command=command,
                      signatures=context.signatures, revision=revision,
                      parameters=" ".join(f"{v} - {t}" if t else v for v, t in params))
        if self.schema_slots:
            return self.templates["action_slots"].substitute(
                values, form=SCHEMA_SLOTS_FORM, lines=form_lines(self._slot_schema(params)[1]))
        return self.templates["action"].substitute(values)

    def _stating_revision(self) -> str:
        """``predicate_slots``: while a sentence's fact of an aspect it states by a word is
        asked for once more (:meth:`.predicates.PredicateRevision._write_stated`), what the
        request says of it; "" otherwise."""
        if not self._stating:
            return ""
        return ("The sentence says " + " and ".join(f'"{w}"' for w in self._stating_words)
                + ": write the fact of " + " or ".join(self._labeled_of(self._stating))
                + " it states.")

    def _labeled_of(self, predicates) -> list[str]:
        """The lines of :meth:`_labeled_lines` of ``predicates``, in the domain's order."""
        return [line for line, (name, _params) in zip(self._labeled_lines(),
                                                      self._signature_list())
                if name in predicates]

    def _missing_prompt(self, predicate: str, context: Context, common: str,
                        shown: str) -> str:
        """The ``missing`` part's request: the facts of one predicate, and why they are
        asked for (the planner's line naming it, or every place visited)."""
        label = next(iter(self._labeled_of({predicate})), f"({predicate})")
        one = predicate in self._single_valued()
        if context.kind == SOLVER_ERROR:
            message = "The planner found no plan: " + next(
                (line.strip(" -") for line in (context.error or "").splitlines()
                 if f"({predicate}" in line and "never true" in line),
                (context.error or "").strip())
        else:
            message = "Every place known has been visited, and the task is not done."
        return self.templates["missing"].substitute(
            context=common, history=shown, predicate=predicate, form=label,
            message=message, wanted="fact" if one else "facts",
            hold="holds" if one else "hold", only="the fact" if one else "the facts")

    def _goal_prompt(self, context: Context, common: str, revision: str) -> str:
        """The goal part's request: the candidates offered, in the order they are."""
        candidates = self._goal_candidates()
        commands = ", ".join(a for a, _ in context.memory.history) or "(none)"
        order = ("those naming the task's things first, then those never reached before, "
                 "then nearest first") if self.task_goals else \
            "those never reached before first, then nearest first"
        return self.templates["goal"].substitute(
            context=common, guidance=self.guidance, revision=revision, commands=commands,
            order=order,
            candidates="\n".join(candidates) if candidates else (
                "(none: from the known facts no action makes a new fact true, so the facts "
                "miss something; write the goal the task needs, and the planner will say what "
                "is missing)"))

    def _schema_revision(self, name: str, last: Optional[str], revision: str,
                         params=()) -> str:
        """The action's observed uses, what a transition says against its last schema, and
        the schemas refuted before (measured: Qwen2.5-Coder 1.5B drew a refuted one again)."""
        uses = self.evidence.uses(name)
        out = ("What the game did when this action's command was given:\n"
               + "\n".join(uses) + "\n") if uses else ""
        refuted = self.evidence.refuted_bodies(name)
        if refuted and self.schema_slots:   # shown as the model writes a schema
            params, shown = self._slot_schema(params)
            refuted = [slots_of_body(body, shown) for body in refuted]
            rules = ruled_out(self.evidence.refutations.get(name, ()), params).said()
            if rules:
                out += "What the game did rules out, in these lines:\n" + "\n".join(rules) + "\n"
        if refuted:
            out += ("These schemas for it were refuted already; write a different one:\n"
                    + "\n".join(refuted) + "\n")
        finding = self.evidence.asking.get(name)
        if finding and last:
            return (out + f"Your last answer for this action was:\n{last.strip()}\n"
                    f"It is wrong: {finding}\nWrite this action again, fixed.")
        if finding:
            return out + f"A schema for it was wrong: {finding}\nWrite it fixed."
        return out + revision

    def _predicates_form(self) -> str:
        """How the predicates are to be written: an example, or (``predicate_slots``) one
        labelled line per aspect of a state to fill in."""
        from ..helps.predicate_slots import PREDICATES_FORM, SLOTS_FORM

        if not self.predicate_slots:
            return PREDICATES_FORM
        return SLOTS_FORM + "\n".join(f"{label}: ..." for label, _least in self._slots())

    def _slots(self) -> tuple:
        """The labelled lines the predicates are asked for under (``predicate_slots``), with
        ``door_slots``' line where that help is on."""
        from ..helps.door_slots import slots
        from ..helps.predicate_slots import CLOSED_ASPECT, PREDICATE_SLOTS

        return slots(PREDICATE_SLOTS, getattr(self, "door_slots", False), CLOSED_ASPECT)

    def _domain_part(self) -> str:
        if self.fixed_domain is None and not self.predicates:
            return ""
        lines = self._labeled_lines()
        if self.predicate_aspects:   # predicate_slots: what each one is for
            lines = [f"{line}   ; {self.predicate_aspects[name]}"
                     if name in self.predicate_aspects else line
                     for line, (name, _params) in zip(lines, self._signature_list())]
        return "The domain's predicates, each parameter with its type:\n" + "\n".join(lines)

    def _signature_list(self) -> list[tuple[str, list[tuple[str, Optional[str]]]]]:
        """(predicate, [(parameter, type)]) for every predicate of the domain."""
        return [(s.name, list(s.params)) for s in self._signatures()]

    def _labeled_lines(self) -> list[str]:
        """``(connected ?from=ROOM ?to=ROOM ?dir=DIRECTION)``: a fact is written with its
        parameters named (measured with Qwen2.5-Coder 1.5B: it orders arguments right when
        each is labelled, and wrong far more often when they are bare)."""
        return ["(" + " ".join([name] + [f"{v}={(t or 'object').upper()}" for v, t in params])
                + ")" for name, params in self._signature_list()]

    def _typed_names(self, context: Context) -> dict[str, list[str]]:
        """type -> the names a fact may give a parameter of that type: names the known facts
        give that type, and names no fact has typed yet (None: untyped parameters)."""
        typed = self._fact_types()
        for word, kind in self.name_types.items():
            if kind != "NONE":
                typed.setdefault(word, (kind, "the types part"))
        names = [n for n in self._fact_names(context) if self.name_types.get(n) != "NONE"]
        if self._sentence:   # a placeholder only where the sentence mentions what it does
            unnamed = any(self.name_types.get(w) == "NONE"   # not name ("a closed door")
                          for w in observed_names([self._sentence]))
            names = [n for n in names if unnamed or not n.startswith("unknown_")
                     or any(n in f.args for f in self._facts())]
        types = {t for _p, params in self._signature_list() for _v, t in params}
        closed, command_typed = self._closed_types, self._command_typed
        return {t: [n for n in names if (n not in typed or t is None or typed[n][0] == t)
                    and (t not in closed or command_typed.get(n) == t)]
                for t in types}

    def _fact_types(self) -> dict:
        """name -> (its type, the fact that gave it) for the names the known facts and the new
        ones use (see :meth:`_type_of`)."""
        kinds = self._kinds()
        typed: dict = {}
        for fact in self._facts() + self.chunk:
            self._type_of(fact, kinds, typed)
        return typed

    def _held_predicates(self) -> set[str]:
        """The predicates the known facts and the new ones hold a fact of."""
        return {f.predicate for f in self._facts() + self.chunk}

    def _type_names(self) -> list[str]:
        """The types the domain's predicates use (the types part's choices)."""
        return list(dict.fromkeys(t for _p, params in self._signature_list()
                                  for _v, t in params if t)) or ["object"]

    def _signatures(self) -> list[Signature]:
        """The domain's predicates: those the model wrote, or the frozen domain's (read once
        per frozen domain)."""
        if self.fixed_domain is None:
            return list(self.predicates)
        if getattr(self, "_frozen_signatures", (None,))[0] != self.fixed_domain:
            from pddlkit.pddl.reader import read_domain

            dom, _ = read_domain(self.fixed_domain)
            found = [] if dom is None else [
                Signature(p.name.lower(), tuple((v.name, v.types[0] if v.types else None)
                                                for v in p.parameters))
                for p in dom.predicates]
            self._frozen_signatures = (self.fixed_domain, found)
        return list(self._frozen_signatures[1])

    def _kinds(self) -> dict[str, list]:
        """predicate -> the type of each parameter (None: untyped)."""
        return {name: [t for _v, t in params] for name, params in self._signature_list()}

    @staticmethod
    def _type_of(atom: Atom, kinds: dict, typed: dict) -> str:
        """Record the types ``atom`` gives its names (name -> (type, the fact's text)); why
        not, when one already has another type (a name used at two types is refused, not
        guessed)."""
        fact = fact_text(atom)
        types = kinds.get(atom.predicate, [])
        mine: dict = {}
        for arg, kind in zip(atom.args, types):
            if kind is None:
                continue
            before = typed.get(arg) or mine.get(arg)
            if before and before[0] != kind:
                return (f"{arg} is a {before[0]} in {before[1]}, and a name has one type; "
                        f"here it would be a {kind}")
            mine.setdefault(arg, (kind, fact))
        for arg, value in mine.items():
            typed.setdefault(arg, value)
        return ""

    def _arities(self, signatures: dict) -> dict[str, int]:
        return {name: len(params) for name, params in self._signature_list()}

    def _fact_names(self, context: Context) -> list[str]:
        if self._sentence:   # one sentence: its names, and the names already in facts
            facts = self._facts()   # the chunk's too, of one slot the later
            facts = self._slot("sentence_facts", facts)   # local_facts: where the agent is
            known = [a for f in facts for a in f.args]
            return list(dict.fromkeys(known + observed_names([self._sentence], unknown=True)))
        task = context.memory.task.strip()
        texts = [o.replace(task, " ") if task else o for _, o in context.memory.history]
        texts += [a for a, _ in context.memory.history]
        texts += [str(c) for c in context.valid_actions]
        known = [a for f in self._facts() for a in f.args]
        return list(dict.fromkeys(known + observed_names(texts, unknown=True)))

    def _slot_schema(self, params) -> tuple[list, dict]:
        """``schema_slots``: (the action's parameters as (variable, type or None), the
        predicates its lines are for, :func:`.schema_slots.slot_predicates`)."""
        params = [(v, t or None) for v, t in params]
        return params, slot_predicates(self._kinds(), params)

    def _action_grammar(self, action: str, signatures: dict):
        """An action's schema under a grammar: its body, or (``schema_slots``) its lines, less
        what the evidence rules out of them (:func:`.schema_slots.ruled_out`)."""
        from pddlkit.pddl import grammars

        params = [(v, t or None) for v, t in signatures[action][0]]
        if not self.schema_slots:
            return grammars.action_body_grammar(self._kinds(), params)
        rules = ruled_out(self.evidence.refutations.get(action, ()), params)
        pairs = self._place_pairs(signatures)   # no place joined to itself, before or after
        joined = self_joined(sorted({*self._static_predicates(), *pairs}), self._kinds(), params)
        not_after = {name: set(rules.after.get(name, set()))
                     | {a for a in joined.get(name, set()) if not a.startswith("(not ")}
                     for name in {*rules.after, *(n for n in pairs if n in joined)}}
        not_before = {name: rules.before.get(name, set()) | joined.get(name, set())
                      for name in {*rules.before, *joined}}
        here = self._in_place_predicates(params, signatures)
        listed, changing, dropped = self._achiever_rules(action)   # .achievers
        must_drop = {name: set(rules.drop.get(name, set())) | set(dropped.get(name, set()))
                     | ({here[name]} if here.get(name) else set())
                     for name in {*rules.drop, *here, *dropped}}
        return grammars.action_slots_grammar(
            self._kinds(), params, not_before=not_before, not_after=not_after,
            must_change=rules.change | changing, positive_before=self._player_predicates(),
            must_keep=rules.keep, must_add=sorted(self._must_add.get(action, ())),
            must_list={n: rules.add.get(n, set()) | listed.get(n, set())
                       for n in {*rules.add, *listed}}, must_drop=must_drop,
            must_stay=sorted({*self._static_predicates(), *here}),
            must_require=self._lacked_rules(action))   # .lacking

    def _grammar(self, part: str, context: Context, signatures: dict):
        from pddlkit.pddl import grammars

        if part == "predicates" and self.predicate_slots:
            from ..helps.predicate_slots import MOST_ARGUMENTS, PLAYER_ASPECT, place_types

            return grammars.predicate_slots_grammar(
                _types(signatures), self._slots(),
                slot_types={PLAYER_ASPECT: place_types(signatures)}, most=MOST_ARGUMENTS)
        if part == "predicates":   # as many as the actions' parameter types, at least
            return grammars.predicates_grammar(_types(signatures),
                                               at_least=len(_types(signatures)))
        arities = self._arities(signatures)
        if part.startswith("action "):
            return self._action_grammar(part.split(" ", 1)[1], signatures)
        if part == "correction":
            from pddlkit.llm.grammar import Grammar
            from pddlkit.llm.lark_subset import choice

            named = {self._predicate_of(c) for c in self._corrections()}
            return Grammar(f"start: {choice(named)}\n", "the message's predicate", 4)
        if part == "types":
            from pddlkit.llm.grammar import Grammar
            from pddlkit.llm.lark_subset import choice, literal

            kinds = [t.upper() for t in self._type_names()] + ["NONE"]
            closed, command_typed = self._closed_types, self._command_typed
            open_kinds = [k for k in kinds if k.lower() not in closed]
            words = " ".join(f"{literal(w + '=')} "
                             + ("kind" if open_kinds == kinds or w in command_typed
                                else "open_kind") for w in self._untyped_words())
            return Grammar(f"start: {words}\nkind: {choice(kinds)}\n"
                           + f"open_kind: {choice(open_kinds)}\n"
                           + "WS: /[ \\t\\r\\n]+/\n%ignore WS\n", "word types", 4)
        if part.startswith("missing "):
            return self._missing_grammar(part.split(" ", 1)[1], context)
        if part.startswith("achiever "):
            return self._achiever_grammar(part.split(" ", 1)[1], signatures)
        if part.startswith("lacked "):
            return self._lacked_grammar(part.split(" ", 1)[1])
        if part == "facts":
            return self._facts_grammar(context)
        candidates = self._goal_candidates()
        if candidates:
            from pddlkit.llm.grammar import Grammar
            from pddlkit.llm.lark_subset import choice

            lines = ['start: "(" ":goal" goal ")"', f"goal: {choice(candidates)}",
                     r"WS: /[ \t\r\n]+/", "%ignore WS"]
            return Grammar("\n".join(lines) + "\n", "goal (reachable atoms)", 24)
        typed = self._typed_names(context)   # free goal: each argument of its type
        for word in observed_names([context.memory.task]):
            for kind in typed:
                if word not in typed[kind] and self.name_types.get(word, kind) == kind:
                    typed[kind].append(word)
        return grammars.goal_grammar(arities, [], typed=(self._kinds(), typed))

    def _facts_grammar(self, context: Context):
        """The facts of the sentence being read (or of the whole chunk), labelled, over the
        predicates it may state: those asked for alone (``_stating``), less those of an
        aspect it does not say (:meth:`_unstated_predicates`)."""
        from pddlkit.pddl import grammars

        unstated = self._unstated_predicates()
        return grammars.labeled_facts_grammar(
            [(n, ps) for n, ps in self._signature_list()
             if (not self._stating or n in self._stating) and n not in unstated],
            self._typed_names(context),
            mentioned=observed_names([self._sentence]) if self._sentence else None,
            pinned=self._pins())

    def _missing_grammar(self, predicate: str, context: Context):
        """A fact of ``predicate`` (up to :data:`MISSING_FACTS` of them, one for a
        single-valued predicate), each parameter named and filled with a name of its type
        (:meth:`_missing_names`), or ``none``."""
        from pddlkit.llm.grammar import Grammar
        from pddlkit.llm.lark_subset import choice, literal

        params = dict(self._signature_list()).get(predicate, [])
        allowed = self._missing_names(context, predicate)
        if any(not names for names in allowed):
            return Grammar('start: "none"\n', f"{predicate}: no names of its types", 4)
        slots = " ".join(f"{literal(v + '=')} name_{i}" for i, (v, _t) in enumerate(params))
        many = "fact" if predicate in self._single_valued() else \
            " ".join(["fact"] + ["fact?"] * (MISSING_FACTS - 1))
        lines = [f'start: {many} | "none"', f'fact: "(" {literal(predicate)} {slots} ")"']
        lines += [f"name_{i}: {choice(names)}" for i, names in enumerate(allowed)]
        lines += [r"WS: /[ \t\r\n]+/", "%ignore WS"]
        return Grammar("\n".join(lines) + "\n", f"one fact of {predicate}", 4)


def _revision(context: Context, last: Optional[str]) -> str:
    """What a rewrite request says after an error: the part's last answer, the planner's
    or the game's message, and to write the part again."""
    if context.kind not in (SOLVER_ERROR, SIMULATION_ERROR) or not context.error:
        return ""
    what = (f"The command '{context.failed_action}' failed in the game: "
            if context.kind == SIMULATION_ERROR else "The planner reported: ")
    revision = what + context.error.strip()
    if last:
        revision = (f"Your last answer for this part was:\n{last.strip()}\n"
                    + revision + "\nWrite this part again, fixed.")
    return revision
