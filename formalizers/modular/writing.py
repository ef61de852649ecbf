"""Asking for a part and keeping the answer: the call, the redraw of an answer already refused,
the facts of each sentence, the facts read from the environment's commands
(``command_facts``), and the action schemas checked against the evidence (``schema_check``).

A part of :class:`~.formalizer.ModularFormalizer` (issue 74: the 2,102-line module split by job).
"""

from __future__ import annotations

import re
import time
from typing import Optional

from ..base import SIMULATION_ERROR, Context
from ..llm_formalizer import RETRY_TEMPERATURE
from .parts import (PART_TOKENS, SLOT_LABEL_TOKENS, PartCall, PartUnwritable, REDRAWS, _head,
                    _norm, observed_names)
from ..atoms import atom_of, fact_text
from ..helps.schema_slots import BASE_TOKENS, LINE_TOKENS
from .roles import GuardsPlans, ReadsCommands


class Writing:
    """The writing methods of :class:`~.formalizer.ModularFormalizer`."""

    # -- one part --------------------------------------------------------------------------
    def _write(self, part: str, context: Context, signatures: dict) -> bool:
        """Ask for ``part`` and keep the answer; False when every draw was unreadable or
        the same as an answer already refused for this part."""
        prompt = self._prompt(part, context, signatures)
        try:
            grammar = self._grammar(part, context, signatures) if self.constrained else None
        except ValueError as exc:   # no predicate fits the names known: say so, as data
            raise PartUnwritable(f"the {part} part cannot be written yet: {exc}") from None
        budget = self._answer_tokens(part, signatures)
        max_tokens = min(self.max_tokens, budget) if self.max_tokens else budget
        key = (part, prompt)
        draws = self._asked.get(key, 0)
        chosen: Optional[tuple[str, PartCall]] = None
        asked = prompt
        for attempt in range(REDRAWS + self.samples):
            draw = draws + attempt
            temperature = max(self.temperature, RETRY_TEMPERATURE) if draw else self.temperature
            t0 = time.monotonic()
            extra = {"constraint": grammar} if grammar is not None else {}
            self.last_prompt = asked
            answer = self.llm.complete([{"role": "user", "content": asked}],
                                       temperature=temperature, seed=draw or None,
                                       max_tokens=max_tokens, **extra)
            if grammar is not None:
                self.modes.append(answer.constraint_mode)
            call = PartCall(part, context.kind, answer.text, answer.prompt_tokens,
                            answer.completion_tokens, round(time.monotonic() - t0, 3),
                            draw or None)
            self.calls.append(call)
            self.last_parts.append(call)
            if self._refusal_key(part, answer.text) in self._refused:
                call.outcome = "redrawn: the same as an answer already refused for this part"
                self.redrawn += 1
                refused = [a for (p, a, _rest) in self._refused if p == part][-3:]
                asked = (prompt + "\nThese answers for this part were refused already; write "
                         "a different one:\n" + "\n".join(refused) + "\n")
                continue
            self._rewrites = []
            kept, refused = self._read(part, answer.text, context, signatures)
            call.refused, call.rewritten = refused, self._rewrites
            if kept is None:
                call.outcome = "unreadable: " + (refused[0] if refused else "no part found")
                grammar = self._after_empty_effect(part, answer.text, refused, context,
                                                   signatures, grammar)
                asked, grammar = self._after_unreadable(part, context, signatures, asked,
                                                        grammar)
                continue
            if self.samples > 1 and not self._sample_ok(part, kept, context, signatures):
                call.outcome = "sample not used: the files did not pass check" + \
                    (" and plan" if part == "goal" else "")
                chosen = chosen or (kept, call)
                if attempt + 1 >= self.samples:
                    break
                continue
            chosen = (kept, call)
            break
        self._asked[key] = draws + sum(1 for c in self.last_parts if c.part == part)
        self._must_add = {}
        if chosen is None:
            return False
        kept, call = chosen
        call.outcome = "used"
        self.answers[self._answer_key(part)] = call.answer
        self._store(part, kept, context)
        return True

    def _after_empty_effect(self, part: str, answer: str, refused: list, context: Context,
                            signatures: dict, grammar):
        """``schema_slots``: after a schema refused for an empty effect, the next draws'
        grammar has each line that required an atom false and listed ``none`` after it list
        atoms after when it requires one false (``must_add`` of
        :func:`pddlkit.pddl.grammars.action_slots_grammar`), for the rest of this request.
        Why: measured with Qwen2.5-Coder 1.5B writing CoinCollector's domain (dev seed 1 at
        3bea809): close-door and open-door were each drawn four times with ``closed-door:
        before (not (closed-door ?loc1 ?loc2 ?dir)) after none`` and nothing else changing,
        and set aside; told so in words (d22bf89) it drew the same three more times."""
        if grammar is None or not self.schema_slots or not part.startswith("action ") \
                or not any(r.startswith("the effect is empty") for r in refused):
            return grammar
        names = {m.group(1).lower() for m in re.finditer(
            r"(?m)^\s*([\w\-]+)\s*:\s*before\s*\(\s*not\b.*after\s+none\s*$", answer)}
        action = part.split(" ", 1)[1]
        if not names - self._must_add.get(action, set()):
            return grammar
        self._must_add[action] = self._must_add.get(action, set()) | names
        return self._grammar(part, context, signatures)

    def _after_unreadable(self, part: str, context: Context, signatures: dict, asked: str,
                          grammar):
        """The next draw's request and grammar after an unreadable answer: a schema the
        evidence refused is asked with the newest finding (``schema_check``) and, with
        ``schema_slots``, under a grammar less what it rules out."""
        if part.startswith("action ") and part.split(" ", 1)[1] in self.evidence.asking:
            asked = self._prompt(part, context, signatures)
            if grammar is not None and self.schema_slots:
                grammar = self._grammar(part, context, signatures)
        return asked, grammar

    def read_last(self, context: Context) -> bool:
        """``final_effects``: the world's answer to the command that won the episode, read
        by the facts part, so its schema's effects meet it (:class:`..base.
        ReadsTheLastAnswer`; :mod:`..helps.final_effects` says why); False, and no call,
        when the help does not apply."""
        from ..helps.final_effects import wanted

        if not wanted(self):
            return False
        self.last_parts = []
        signatures = context.signatures.by_name()
        self._signatures_seen, self._context_now = signatures, context
        self._write_facts(context, signatures)
        self.acted["final-effects"] += 1
        return True

    def _write_facts(self, context: Context, signatures: dict) -> bool:
        """The facts part, one call per sentence of the new observations (the task's sentence
        left out): a small model reads one sentence far better than a paragraph."""
        history = context.memory.history
        task = context.memory.task.strip()
        sentences = []
        if self.seen >= len(history):   # a revision: the sentences of the last facts part
            self.seen = self._facts_from
        self._facts_from = self.seen
        for k, (_action, text) in enumerate(history[self.seen:], start=self.seen):
            text = text.replace(task, " ") if task else text
            for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
                sentence = sentence.strip()
                if re.search(r"[a-zA-Z]{2}", sentence) and not sentence.lower().startswith(
                        "your task is"):
                    sentences.append((sentence, k))
        self.chunk = []
        self._fact_origin = {}
        self._put_read = set()   # where things are, read from a sentence that says one was put
        wrote = False
        latest: dict[str, int] = {}   # each sentence once, where it first came, read as of
        for sentence, k in sentences:  # the newest observation that says it
            latest[sentence] = k
        for sentence, k in latest.items():
            self._sentence, self._observation = sentence, k
            for word in set(observed_names([sentence])) & self._withdrawn_names:
                if self._roles(ReadsCommands) and word not in self._command_names():
                    continue   # a command vouches for a thing; a sentence's word may be a verb
                self.name_types.pop(word, None)     # seen now: "not there" was for then
                self._withdrawn_names.discard(word)
            self._untype_template_words(signatures)
            if self._untyped_words():
                self._write("types", context, signatures)
            try:
                before = list(self.chunk)
                wrote = self._write("facts", context, signatures) or wrote
                self._write_stated(context, signatures, before)
                self._put_read |= self._placed_by_sentence(before)
            except PartUnwritable as exc:   # it names nothing a predicate takes: no call
                self.last_parts.append(PartCall("facts", context.kind, "", outcome=(
                    f"skipped, no call: {exc.args[0]} (the sentence: {sentence!r})")))
        self._sentence = ""
        self._keep_unstated_place([text for _action, text in history[self._facts_from:]])
        self.seen = len(history)
        # schema_check: what it did, one value of a single-valued slot (see _single_values);
        # with the player's predicates known (predicate_slots), theirs only (_observable)
        # and the place a command names, when its answer names it (place_named)
        from ..helps.predicate_slots import named_places

        player = self._player_predicates()
        observed = self.evidence.observe_after(
            map(fact_text, self._observable(self.chunk)), player,
            named_places(self._signatures_seen or {}),
            [s.name for s in self.predicates if s.name in player and len(s.params) == 1])
        if observed is not None:
            self.observed_after.append({"where": observed.where,
                                        "observed": sorted(observed.observed)})
            self._keep_place(observed.observed)
        self._from_commands(context, signatures)   # the chunk was written anew
        return wrote

    def _observable(self, chunk: list) -> list:
        """The facts read after a command that are evidence of what it did: one value of
        each single-valued slot (:meth:`_single_values`), and, once the predicates say which
        are where the player is (``predicate_slots``), only theirs: a text game states the
        player's place whenever a command changes it, while another fact read on arriving is
        seen for the first time, not made by the command. Measured with Qwen2.5-Coder 1.5B
        learning the household's domain (dev seeds 0-1 at 8a4e8e9): its gotolocation also
        added and deleted ``closed``, which made ``closed`` look single-valued, so "The
        microwave 1 is closed.", read on arriving, refuted the move as not adding
        ``(closed microwave_1)``; the rewrite then added ``(closed ?to)``, and every place
        gone to was believed closed (4 refused openings).

        What the player holds is evidence too: a held thing is never found on arriving,
        and its facts are read only from a sentence that says a thing is taken or carried
        (``predicate_slots``' ``STATED_BY``), so one read after a command was made by it.
        Measured with Qwen2.5-Coder 1.5B learning the household's domain (dev seed 1 at
        e99f859): "take ladle 1 from desk 1" ran ("You pick up the ladle 1 from the desk
        1."), and pickupobject, which added only ``(clean ?o)``, was not refuted. So is
        where a thing was put, read from a sentence that says so (:meth:`_placed_by_sentence`)."""
        from ..helps.predicate_slots import HELD_ASPECT

        facts = self._single_values(chunk)
        player = set(self._player_predicates())
        held = {n for n, a in self._aspects().items() if a == HELD_ASPECT}
        return [f for f in facts if f.predicate in player | held
                or f in getattr(self, "_put_read", ())] if player else facts

    def _placed_by_sentence(self, before: list) -> set:
        """The facts of where each thing is that the sentence just read added to the chunk
        (past ``before``), when it says a thing was moved or put (``predicate_slots``'
        ``SIGNALLED_BY``: "You move the cd 1 to the countertop 1."): the command's doing, so
        evidence of it (:meth:`_observable`). Only then: a thing seen on arriving was found,
        not put there. Measured with Qwen2.5-Coder 1.5B learning the household's domain (dev
        seed 0 at 12dad66): "move cd 1 to countertop 1" read as ``(thing cd_1
        countertop_1)``, yet a putobject that placed nothing was not refuted."""
        from ..helps.predicate_slots import PUT_WORDS, THING_ASPECT

        stated, words = self._stated_predicates()
        if not set(words) & set(PUT_WORDS):
            return set()
        placed = {n for n in stated if self._aspects().get(n) == THING_ASPECT}
        return {f for f in self.chunk if f.predicate in placed and f not in before}

    def _from_commands(self, context: Context, signatures: dict) -> None:
        """``command_facts`` (:mod:`pddlkit.formalizers.helps.command_facts`): what the
        environment's valid commands say, read in code; nothing when off."""
        for commands in self._roles(ReadsCommands) if signatures else ():
            commands.read(self, context, signatures)

    def _write_correction(self, context: Context, signatures: dict) -> bool:
        """Ask which predicate the world's message is about, among those of the corrections
        (see :meth:`_corrections`), and apply the first correction over it. Measured with
        Qwen2.5-Coder 1.5B on "The door to the south is closed.": asked to pick a correction
        from the list it picked ``(not (at corridor))``; asked yes or no per correction it
        said no to all (or, worded otherwise, yes to all); asked which predicate the message
        is about it said ``has-door``."""
        said = self._write("correction", context, signatures) and self._said
        self.failed_step = None
        return said

    def _against_evidence(self, action: str, body: str, signatures: dict) -> Optional[str]:
        """``schema_check``: why ``body`` is not kept as ``action``'s schema (refused before,
        or refuted by a transition: :meth:`.schema_check.SchemaEvidence.check_body`)."""
        if not (self.schema_check and self.fixed_domain is None and self.predicates):
            return None
        return self.evidence.check_body(action, body, self._domain_with(action, body,
                                                                        signatures))

    def _domain_with(self, action: str, body: str, signatures: dict) -> str:
        """The domain's text with ``body`` as ``action``'s schema (the schemas kept as they
        are), the evidence told which predicates change."""
        saved = self.bodies.get(action)
        self.bodies[action] = body
        try:
            domain = self._domain_text(signatures)
        finally:
            if saved is None:
                del self.bodies[action]
            else:
                self.bodies[action] = saved
        self._tell_evidence_aspects()
        return domain

    def _set_aside(self, action: str, signatures: dict) -> None:
        """``schema_check``: no rewrite of ``action`` got past the evidence, so the schema
        stays and is not asked for again this episode; with ``schema_slots``, a line the
        evidence proves must stay the same (an atom the schema deleted still held after the
        command: ``ruled_out(...).keep``) is made ``same`` in code when the schema so mended
        still changes something and the transitions refute it in fewer ways, none new (it
        need not explain them all; said in the ``schema-refuted`` event). Why: measured
        with Qwen2.5-Coder 1.5B writing CoinCollector's domain (dev seed 1 at 3bea809): close-door moved the player, "You
        close the front door." refuted it, every rewrite had an empty effect, and the
        refuted close-door, set aside, was planned as the way into the next room; open-door
        ended the same way, though its line for the closed door was right."""
        from ..helps.schema_slots import read_slots, ruled_out, slots_of_body

        self.evidence.set_aside.add(action)
        body = self.bodies.get(action)
        if not (self.schema_slots and body and action in signatures):
            return
        params, predicates = self._slot_schema(signatures[action][0])
        kept = ruled_out(self.evidence.refutations.get(action, ()), params).keep
        if not kept:
            return
        lines = [re.sub(r"\bafter\b.*$", "after same", line)
                 if line.split(":", 1)[0] in kept else line
                 for line in slots_of_body(body, predicates).splitlines()]
        mended, _refused = read_slots("\n".join(lines), predicates, params)
        if mended is None or not self._fewer_findings(action, body, mended, signatures):
            return
        self.bodies[action] = mended
        self.schema_refuted.append(f"action {action}: set aside, with "
                                   f"{', '.join(sorted(kept))} made the same in code (the "
                                   "evidence says it stayed; the transitions refute it in "
                                   "fewer ways): " + " ".join(mended.split()))

    def _fewer_findings(self, action: str, body: str, mended: str, signatures: dict) -> bool:
        """Whether the transitions refute ``mended`` in fewer ways than ``body`` (each way
        one of ``body``'s: nothing new), as ``action``'s schema."""
        def found(text: str) -> set:
            try:
                return {(f.kind, f.index, f.literal) for f in self.evidence.findings(
                    self._domain_with(action, text, signatures), schemas=[action])}
            except ValueError:
                return {("unreadable", None, None)}
        return found(mended) < found(body)

    def _answer_key(self, part: str) -> str:
        """Parts written per sentence (types, facts) keep their last answer per sentence."""
        return f"{part}: {self._sentence}" if part in ("types", "facts") and self._sentence \
            else part

    def _keep_place(self, observed) -> None:
        """The state follows the evidence's rule (:meth:`.schema_check.SchemaEvidence.
        observe_after`): when the observation after a command stated no place, the player is
        where it was before the command, whatever the schema that planned it said. Why:
        measured with Qwen2.5-Coder 1.5B writing CoinCollector's domain, dev seed 1 at
        a2b10cc: open-door moved the player; the check refuted it and the rewrite kept the
        player, but the state had been carried through the old schema, so the next plan
        started from the room behind the door ("close door to unknown front")."""
        player = set(self._player_predicates())
        if not player or any(f.predicate in player for f in self.chunk):
            return
        said = sorted(a for a in observed if _head(a) in player)   # the evidence's text
        kept = [atom_of(a) for a in said]
        if kept and not set(kept) <= set(self.base):
            self.base = [f for f in self.base if f.predicate not in player] + kept
            self.command_derived.append(f"{', '.join(said)}: the observation after the "
                                        "command stated no place; the player is where it was")

    def _keep_unstated_place(self, texts: list[str]) -> None:
        """``schema_check``, while the model writes the domain: a place of the player the
        facts part read from observations none of which states a place
        (:func:`..schema_check.states_place`: one sentence, naming no place the player was)
        is dropped, so the player stays where it was. Why: measured with Qwen2.5-Coder 1.5B
        writing CoinCollector's domain, dev seed 1 at 789b2de: "You close the front door."
        read as ``(player front)``; the player left the pantry in the facts, no action could
        fire from "front", and the goals were refused until the retries ran out."""
        from ..helps.schema_check import states_place

        player = set(self._player_predicates())
        if not (self.schema_check and self.fixed_domain is None and player and texts):
            return
        read = [f for f in self.chunk if f.predicate in player]
        known = [f for f in self.base if f.predicate in player]
        places = {arg for f in (*known, *self.ever) if f.predicate in player
                  for arg in f.args} - self._placed_by_schema(player)
        if not read or not known or any(states_place(t, places) for t in texts):
            return
        self.chunk = [f for f in self.chunk if f.predicate not in player]
        self.command_derived.append(f"{', '.join(map(fact_text, read))}: read from words "
                                    "that state no place; the player is where it was")

    def _placed_by_schema(self, player: set) -> set[str]:
        """The places the believed state puts the player at that the facts before the last
        command did not: only the model's schema for it said so, which is no evidence that
        a sentence naming one names where the player is. Why: measured with Qwen2.5-Coder
        1.5B learning CoinCollector's domain (dev seed 4 at 28f7b5c): the door was read as
        leading to "plain" (from "a closed plain door"), open-door moved the player, and
        "You open the plain door, revealing the pantry." was taken to state a place, so
        ``(player plain)`` stayed; nothing could fire from there and the episode ended at
        the solver's retry limit after one command."""
        last = self.evidence.transitions[-1] if self.evidence.transitions else None
        if last is None or not last.succeeded:
            return set()
        before = {arg for f in map(atom_of, last.before) if f.predicate in player
                  for arg in f.args}
        return {arg for f in self.base if f.predicate in player for arg in f.args} - before

    def _untype_template_words(self, signatures: dict) -> None:
        """``command_facts``, while the model writes the domain: the commands' own words
        typed NONE (:meth:`pddlkit.formalizers.helps.command_facts.CommandFacts.untype`)."""
        for commands in self._roles(ReadsCommands) if self.fixed_domain is None else ():
            commands.untype(self, signatures)

    def _state_words(self) -> set[str]:
        """``predicate_slots``: the words by which a sentence states a fact of an aspect the
        predicates have (``closed``: :data:`..helps.predicate_slots.STATED_BY`), typed NONE
        with the template words, and so is a pair of words that begins with one
        (``closed_front``):
        measured with Qwen2.5-Coder 1.5B writing CoinCollector's domain (dev seed 1 at
        aec302f), "a closed front door" typed ``closed`` a room, and at a3d7b69
        ``closed_front`` a room, then a goal."""
        from ..helps.predicate_slots import STATED_BY

        if not self.predicate_slots:
            return set()
        aspects = set(self.predicate_aspects.values())
        return {w for aspect, words in STATED_BY.items() if aspect in aspects for w in words}

    def _untyped_words(self) -> list[str]:
        """The sentence's words no earlier part has typed (see :meth:`_typed_names`)."""
        return [n for n in observed_names([self._sentence]) if n not in self.name_types]

    def _correct_evidence(self, correction: str) -> None:
        """``schema_check``, while the model writes the domain: what the world's refusal
        said held before the refused command joins that transition's facts
        (:meth:`.schema_check.SchemaEvidence.held_before_refusal`), recorded as a
        ``transition-observed`` event. Only a fact the world had and the facts lacked
        (``F``, not ``(not F)``): a small model leaves facts out far more often than it
        invents them, and a ``(not F)`` the model picks may be its schema's mistake, not the
        facts' (measured with Qwen2.5-Coder 1.5B, CoinCollector dev seed 1 at aec302f: its
        close-door needed the door closed, "close door to north" was refused with "The door
        to the north is closed.", and the correction it picked was ``(not (closed-door
        ...))``: taken as evidence, that would have made the wrong schema explain the
        refusal). Unless the refusal itself states the fact false, naming it
        (:meth:`_refusal_says_false`: "The cabinet 1 is already open.")."""
        if not self.schema_check or self.fixed_domain is not None \
                or correction.startswith("(not ") and not self._refusal_says_false(correction):
            return
        where = self.evidence.held_before_refusal(correction)
        if where:
            self.observed_after.append({"where": where, "held before": correction})

    def _refusal_says_false(self, correction: str) -> bool:
        """``predicate_slots``: whether the world's refusal states the fact ``correction``
        takes out false, by a word of its aspect (``STATED_FALSE_BY``: "The cabinet 1 is
        already open." for ``(not (closed cabinet_1))``) and naming its arguments; then it
        is the world's word, and evidence (see :meth:`_correct_evidence`)."""
        from ..helps.predicate_slots import STATED_FALSE_BY

        fact = atom_of(correction[len("(not "):-1])
        words = set(re.findall(r"[a-z]+", self._refusal_message.lower()))
        said = " ".join(re.findall(r"[a-z0-9]+", self._refusal_message.lower()))
        aspect = self.predicate_aspects.get(fact.predicate)
        return bool(words & set(STATED_FALSE_BY.get(aspect, ()))) and fact.args != () and all(
            " ".join(a.lower().split("_")) in said for a in fact.args)

    def _refuse_last_answers(self, context: Context, targets: list[str]) -> None:
        """The answers that led to the error, refused with the rest of their files (not
        the facts, nor a correction). Not the goal after the world refused its plan while
        a strategy guards plans (``refused_steps``) over the domain the model writes: the
        refused step is then kept out of a plan from these facts, so the same goal plans
        another way or the planner says why not. Why: measured with Qwen2.5-Coder 1.5B
        learning CoinCollector's domain (dev seed 1 at 156944c and a21cfd5): its close-door
        moved the player, "close door to north" was refused twice on the way to ``(player
        unknown_north)``, that goal was refused with the files, no other was reachable,
        and the episode ended at the solver's retry limit without trying the door's
        open."""
        guarded = context.kind == SIMULATION_ERROR and self.fixed_domain is None \
            and bool(self._roles(GuardsPlans))
        for part in self._written_last:
            if part in targets and part in self.answers \
                    and part not in ("facts", "correction") and not (guarded and part == "goal"):
                self._refused[self._refusal_key(part, self.answers[part])] = context.error or ""

    def _refusal_key(self, part: str, answer: str, rest: Optional[str] = None
                     ) -> tuple[str, str, str]:
        """An answer is refused together with the rest of the files it was assembled with:
        the same goal over other facts makes other files, which may plan. ``rest``: this
        part's :meth:`_refusal_rest`, when the caller keys many answers at once."""
        return part, _norm(answer), rest if rest is not None else self._refusal_rest(part)

    def _refusal_rest(self, part: str) -> str:
        """The rest of the files an answer of ``part`` is assembled with, as a key."""
        rest = [[*map(str, self.predicates)], sorted(self.bodies.items()),
                [*map(fact_text, self.base)]]
        rest.append([self.goal, self._sentence] if part == "facts"
                    else [*map(fact_text, self.chunk)])
        return _norm(repr(rest))

    def _answer_tokens(self, part: str, signatures: dict) -> int:
        """The part's answer tokens when the run sets no ``max_tokens``; the slotted
        predicates' labels are written too (``predicate_slots``), and a schema written a line
        per predicate takes a line's tokens for each (``schema_slots``)."""
        if part.startswith("action ") and self.schema_slots:   # a line per predicate
            return BASE_TOKENS + LINE_TOKENS * len(self._slot_schema(signatures[part[7:]][0])[1])
        extra = SLOT_LABEL_TOKENS if part == "predicates" and self.predicate_slots else 0
        return PART_TOKENS[part.split()[0]] + extra

    def _sample_ok(self, part: str, kept, context: Context, signatures: dict) -> bool:
        from pddlkit.checks import check

        saved = (list(self.predicates), dict(self.bodies), list(self.chunk), self.goal,
                 dict(self.predicate_aspects))
        self._store(part, kept, context, counting=False)
        try:
            files = self._assemble(context, signatures)
            ok = check(files.domain, files.problem).ok
            if ok and part == "goal":
                import pddlkit

                ok = pddlkit.plan(files.domain, files.problem, timeout=10).solved
        finally:
            (self.predicates, self.bodies, self.chunk, self.goal,
             self.predicate_aspects) = saved
        return ok

    def _store_facts(self, texts: list[str], counting: bool) -> None:
        """A sentence's facts (as the answer was read) join the chunk, each with the
        observation it was read from (see :meth:`.facts.Facts._single_values`)."""
        facts = [atom_of(f) for f in texts]
        self.chunk = self.chunk + [f for f in facts if f not in self.chunk]
        if counting:
            self._fact_origin.update({f: self._observation for f in facts})

    def _store_schema(self, action: str, body: str, counting: bool) -> None:
        """An action's schema kept; ``schema_slots`` counts itself once per schema."""
        self.bodies[action] = body
        if counting and self.schema_slots:
            self.acted["schema-slots"] += 1

    def _store(self, part: str, kept, context: Context, counting: bool = True) -> None:
        if part == "predicates":
            self._keep_predicates(kept, counting)
        elif part.startswith("action "):
            self._store_schema(part.split(" ", 1)[1], kept, counting)
        elif part == "facts":
            self._store_facts(kept, counting)
        elif part == "correction":
            correction = next((c for c in self._corrections()
                               if self._predicate_of(c) == kept), "")
            self._said = bool(correction)
            if not self._said or not counting:
                return
            self._correct_evidence(correction)
            fact = atom_of(correction[len("(not "):-1] if correction.startswith("(not ")
                           else correction)
            if correction.startswith("(not "):
                self.base = [f for f in self.base if f != fact]
                self.chunk = [f for f in self.chunk if f != fact]
            elif fact not in self.chunk:
                self.chunk = self.chunk + [fact]
        elif part == "types":
            for word, kind in kept.items():
                self.name_types.setdefault(word, kind)
        elif part.startswith("achiever "):
            self._achiever_chosen = kept
        elif part.startswith("lacked "):
            self._lacked_chosen = kept
        elif part.startswith("missing "):   # facts that hold now: kept with the state
            if counting:
                facts = [atom_of(f) for f in kept]
                self.base = self.base + [f for f in facts if f not in self.base]
        else:
            self.goal = kept

