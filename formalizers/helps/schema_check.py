"""The action schemas a model writes, checked against every transition the agent observed
(issue 75; the ``schema_check`` help of the modular formalizer).

Why: a small model asked for an action's precondition and effect writes one that looks right
and is not (an effect missing, a precondition on the wrong argument, a predicate at the wrong
arity). The planner then plans with it, the world refuses the plan, and the loop asks about
the facts, not the schema. Code has better evidence than any error message: every command
the agent ran, the facts it believed before, whether the world took it, and what the next
observation stated. :func:`pddlkit.semantics.transitions.check_transitions` reads a schema
against all of them and names the transition and the literal; this module keeps that
evidence for one episode and decides what to ask:

* after each plan, the loop hands over its transitions (:meth:`SchemaEvidence.add`); a plan
  that ran exactly one command, and ran it, also gets the atoms the next facts part read from
  its observation (:meth:`SchemaEvidence.observe_after`: effects are checked only there, as
  the facts believed after a longer plan come from the model's own domain, not the world);
  a longer plan's first command, when it ran and the game answered in one sentence naming no
  place, gets where the player was as what held after it
  (:meth:`SchemaEvidence.place_unstated`);
* before a goal is chosen, the first finding not yet acted on names one schema
  (:meth:`SchemaEvidence.first_new`); the formalizer asks for that action alone, with the
  action's observed uses, the finding and the schemas refuted before in the prompt (when no
  draw gets past the evidence, the schema stays and is not asked for again in the episode:
  the facts believed may be what is wrong, and a model that cannot find another schema
  would spend every request on it);
* every rewrite is checked against all the evidence before it is kept
  (:meth:`SchemaEvidence.check_body`): one that a transition refutes, or one identical to a
  schema refuted before, is not kept (the draw is redrawn with the new finding), so no draw
  brings a refuted schema back (a schema set aside, above, stays until a rewrite passes).

Which evidence is trusted is a choice, written here: the facts believed before a command are
the formalizer's, so a wrong fact can make a right schema look wrong. The check runs only when
the model writes the domain (never over a frozen one), each finding is acted on once, and the
rewrite must explain every transition, not only the one that refuted its predecessor.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Iterable, Optional

#: the most observed uses of an action a prompt shows (the most recent ones)
USES_SHOWN = 4
#: the steps whose listed (admissible) commands are kept as evidence, and the most commands
#: kept a step: each is checked at every draw of a schema, and the facts believed at an old
#: step are the least sure
LISTED_STEPS, LISTED_PER_STEP = 3, 16


def states_place(answer: str, places: Iterable[str]) -> bool:
    """Whether a game's ``answer`` may tell where the player is: it is more than one sentence
    (a text game describes the place it moves the player to: "You are in the corridor. To
    the South you see ..."), or it names one of ``places`` (``living_room`` as "living
    room"). "You close the front door." states none (see
    :meth:`SchemaEvidence.place_unstated`)."""
    text = answer.strip()
    if "\n" in text or len([x for x in re.split(r"[.!?](?:\s|$)", text) if x.strip()]) != 1:
        return True
    said = f" {_spoken(text)} "
    return any(f" {_spoken(name)} " in said for name in places)


def _spoken(text: str) -> str:
    """``text``'s words, lower case, one space apart (``living_room`` -> "living room")."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _norm(body: str) -> str:
    return " ".join(body.lower().replace("(", " ( ").replace(")", " ) ").split())


class SchemaEvidence:
    """One episode's transitions, the schemas they refuted, and the findings acted on."""

    def __init__(self) -> None:
        self.transitions: list = []
        #: where this episode's transitions begin (earlier ones are other games')
        self.episode_start = 0
        #: action -> the bodies a transition refuted, as written (never kept again)
        self.refuted: dict[str, list[str]] = {}
        #: action -> (body, the finding that refuted it), for rewrites that rule out the
        #: part at fault (``schema_slots``: :func:`.schema_slots.ruled_out`)
        self.refutations: dict[str, list[tuple]] = {}
        #: action -> the finding's sentence the next request for it shows
        self.asking: dict[str, str] = {}
        self._acted: set[tuple] = set()
        #: actions whose rewrite no draw got past the evidence: not asked again this episode
        self.set_aside: set[str] = set()
        self._awaiting: Optional[int] = None   # the transition the next facts describe
        self._first_of_plan: Optional[int] = None   # a longer plan's first command, if it ran
        #: the transitions the last :meth:`place_unstated` took out (their facts were wrong)
        self.dropped: list[str] = []
        #: commands the environment listed as admissible at recent steps, not run
        #: (:meth:`list_commands`), the newest :data:`LISTED_STEPS` steps' of them
        self.listed: list[list] = []
        #: predicates the caller knows change (``check_transitions``' ``fluents``): their
        #: effects are checked even when no schema of the domain changes them
        self.fluents: frozenset = frozenset()
        #: predicates the caller knows no command changes (how places connect): a listed
        #: command's unnamed parameters are filled as their facts say (``check_listed``)
        self.static: frozenset = frozenset()
        #: predicates of which one atom holds at a time (where the player is: one place),
        #: ``check_transitions``' ``single``: a place stated after a command refutes a schema
        #: that keeps the player at another
        self.single: frozenset = frozenset()
        #: predicates that say where a thing is (held, or at a place) -> the thing's position
        #: among their arguments, ``check_transitions``' ``whereabouts``: a thing stated held
        #: after a command refutes a schema that leaves it where it was
        self.whereabouts: dict = {}

    def add(self, transitions: Iterable) -> None:
        """A plan's transitions, in order (see the module: which get effects checked)."""
        new = list(transitions)
        self.transitions += new
        ran_one = len(new) == 1 and new[0].succeeded
        self._awaiting = len(self.transitions) - 1 if ran_one else None
        self._first_of_plan = len(self.transitions) - len(new) \
            if len(new) > 1 and new[0].succeeded else None

    def new_episode(self) -> None:
        """Another episode with the same domain: its transitions join these, and nothing
        awaits an observation; a schema set aside may be asked for again. What the last
        episode listed goes (the facts it was listed over were that game's)."""
        self._awaiting = self._first_of_plan = None
        self.listed = []
        self.set_aside = set()
        self.episode_start = len(self.transitions)

    @property
    def awaiting(self) -> bool:
        """Whether a one-command plan's transition awaits the facts read after it."""
        return self._awaiting is not None

    @property
    def any(self) -> bool:
        """Whether there is evidence: a command ran, or one was listed."""
        return bool(self.transitions or self.listed)

    def list_commands(self, transitions: Iterable, left_out: Iterable = ()) -> None:
        """The commands the environment lists as admissible now, as transitions that would
        succeed, and, where its list is complete, commands it leaves out, as transitions that
        would not (:func:`pddlkit.semantics.transitions.check_listed`): evidence for
        preconditions only; replaces what an older step listed past :data:`LISTED_STEPS`."""
        now = list(transitions)[:LISTED_PER_STEP] + list(left_out)[:LISTED_PER_STEP]
        if now:
            self.listed = (self.listed + [now])[-LISTED_STEPS:]

    def observe_after(self, facts: Iterable[str], stated_when_changed: Iterable[str] = (),
                      shown: Optional[dict] = None, unary: Iterable[str] = ()):
        """The atoms the facts part read from the observation after the awaited transition;
        returns that transition (None when none awaited them).

        ``stated_when_changed``: predicates a game states whenever a command changes them
        (where the player is: a text game names the place it moves the player to, first).
        When the facts read from the observation hold no atom of such a predicate, its atoms
        before the command are taken to hold after it too, so a schema that changes them is
        refuted (measured with Qwen2.5-Coder 1.5B writing CoinCollector's domain, dev seed 1
        at 144ebd2: open-door moved the player, "open door to north" was planned as the way
        to the room behind the door, "You open the front door, revealing the corridor."
        stated no place, and nothing refuted it). The risk, written down: a move whose
        observation the facts part read without the new place would be refuted too.

        Unless the command names the place it is done at and the game's answer names it
        (``shown``, as :meth:`place_unstated` reads a longer plan's first command; ``unary``:
        the predicates of ``stated_when_changed`` of one argument): then the player is there
        (measured with Qwen2.5-Coder 1.5B learning the household's domain, dev seed 1 at
        8336b36: "You arrive at the sinkbasin 1. On the sinkbasin 1, you see nothing." was
        read with no place, the player was kept where it was believed, and a later plan
        began "go to sinkbasin 1" again: "You are already at the sinkbasin 1.")."""
        from ..modular.parts import _head   # here: the modular package imports this module

        if self._awaiting is None:
            return None
        i, self._awaiting = self._awaiting, None
        observed = set(facts)
        heads = {_head(f) for f in observed}
        unstated = set(stated_when_changed) - heads
        named = self._place_named(self.transitions[i], set(unary) & unstated, shown or {})
        observed |= named
        for name in unstated - {_head(f) for f in named}:
            observed |= {f for f in self.transitions[i].before if _head(f) == name}
        self.transitions[i] = dataclasses.replace(self.transitions[i],
                                                  observed=frozenset(observed))
        return self.transitions[i]

    def place_unstated(self, stated_when_changed: Iterable[str],
                       shown: Optional[dict] = None):
        """A longer plan's first command, read in code: when the game answered it with one
        sentence that names no place, the atoms of ``stated_when_changed`` (where the player
        is) it had before are taken to hold after it (:meth:`observe_after`'s rule, without
        a facts part: no model reads the observations inside a plan); returns that
        transition, or None (no longer plan ran, no such atom, or the answer may tell of a
        move: nothing is concluded).

        A place is named when a name the player's atoms take in any transition, or an
        argument of the command of such a name's type, is a word of the answer
        (``living_room`` as "living room"); a text game that moves the player describes the new place, in more than one
        sentence ("You are in the corridor. To the South you see ..."), even one never
        named before. Other names the model typed as places are not counted: measured,
        "front" of "a closed front door" was typed a room. Why the rule: measured with
        Qwen2.5-Coder 1.5B writing CoinCollector's domain, dev seed 1 at f236112: close-door
        moved the player, it was planned first in a longer plan ("close door to north",
        then "close door to unknown front"), "You close the front door." stated no place,
        and only one-command plans had their effects checked.

        When the plan's next command was given facts that put the player elsewhere (the
        model's schema carried it), the plan's later transitions are taken out of the
        evidence (:attr:`dropped`): their facts before came from the schema this refutes,
        and a right schema would be refuted by them (measured in the same episode: "close
        door to unknown front", refused, made every close-door rewrite fail the check).

        When the answer does name a place, and the command names the place it is done at
        (``shown``: action -> the positions of such parameters), the player is there after
        it (:meth:`_place_named`), checked the same way."""
        from ..modular.parts import _head   # here: modular imports this module
        from ..atoms import atom_of

        self.dropped = []
        if self._first_of_plan is None:
            return None
        i, self._first_of_plan = self._first_of_plan, None
        stated = set(stated_when_changed)
        t = self.transitions[i]
        kept = frozenset(f for f in t.before if _head(f) in stated)
        if not stated or not kept:
            return None
        places = {arg for step in self.transitions
                  for f in (*step.before, *(step.observed or ())) if _head(f) in stated
                  for arg in atom_of(f).args}
        kinds = {t.objects.get(name) for name in places}
        places |= {arg for arg in atom_of(t.action).args
                   if t.objects.get(arg) in kinds}     # its own places, not its direction
        if states_place(t.answer, places):
            named = self._place_named(t, {atom_of(f).predicate for f in kept
                                          if len(atom_of(f).args) == 1}, shown or {})
            return self._observed_first(i, named, stated) if named else None
        return self._observed_first(i, kept, stated)

    @staticmethod
    def _place_named(t, predicates: Iterable[str], shown: dict) -> frozenset:
        """The player's atoms after ``t`` when its command names the place it is done at
        (``shown``: action -> the positions of its place parameters the command's words
        name; "go to cabinet 1", "open drawer 2") and the game's answer names that place
        ("You arrive at the cabinet 1."): an atom of each of ``predicates`` (the player's
        place, of one argument) at that place;
        empty otherwise (a command that names no place, as CoinCollector's "move east" and
        "open door to north": "You open the front door, revealing the corridor." names a
        place the player is not at).

        Why: measured with Qwen2.5-Coder 1.5B learning the household's domain (dev seed 0
        at 5331ac8), its gotolocation put the player at ``?from`` (``after (player
        ?from)``); every plan was two commands ("go to cabinet 1", "open countertop 1"),
        only a one-command plan's observation was evidence for effects, and the second
        command was refused 9 times ("You are not at the countertop 1")."""
        from ..atoms import atom_of

        args = atom_of(t.action).args
        at = {args[k] for k in shown.get(t.name, ()) if k < len(args)}
        place = at.pop() if len(at) == 1 else None
        if place is None or f" {_spoken(place)} " not in f" {_spoken(t.answer)} ":
            return frozenset()
        return frozenset(f"({name} {place})" for name in sorted(predicates))

    def _observed_first(self, i: int, observed: frozenset, stated: set):
        """Transition ``i`` (a longer plan's first command) with ``observed`` as what its
        answer stated of the predicates ``stated``; the plan's later transitions are taken
        out when the next one was given other facts of them (see :meth:`place_unstated`)."""
        from ..modular.parts import _head   # here: modular imports this module

        self.transitions[i] = dataclasses.replace(self.transitions[i], observed=observed)
        later = self.transitions[i + 1:]
        if later and frozenset(f for f in later[0].before if _head(f) in stated) != observed:
            # the plan's later commands were given facts the model's schema carried the
            # player into: not evidence (a right schema would be refuted by them)
            self.dropped = [step.where for step in later]
            del self.transitions[i + 1:]
        return self.transitions[i]

    def held_before_refusal(self, literal: str) -> Optional[str]:
        """The world's refusal of the last command, read into ``literal`` (the correction
        part: ``(closed-door pantry unknown_north north)`` from "The door to the north is
        closed."): it held before that command, so the transition's facts before say so
        (``(not F)``: F taken out); returns the transition's ``where``, or None (the last
        command was not refused, or its facts already said so).

        Why: measured with Qwen2.5-Coder 1.5B writing CoinCollector's domain (dev seed 1 at
        aec302f): the facts missed the closed door, "move north" was refused, and the
        correction part read the door as closed; the transition still held the facts
        believed before, so the model's move, which needs the door not closed, was refuted
        by it ("its precondition held"), every rewrite too, and move was set aside."""
        if not self.transitions or self.transitions[-1].succeeded:
            return None
        t = self.transitions[-1]
        literal = " ".join(literal.split())
        if literal.startswith("(not "):
            before = t.before - {literal[len("(not "):-1].strip()}
        else:
            before = t.before | {literal}
        if before == t.before:
            return None
        self.transitions[-1] = dataclasses.replace(t, before=frozenset(before))
        return t.where

    def drop_refused_over(self, name: str) -> Optional[str]:
        """The last command, refused because the world has no ``name`` (a word the model
        typed at a type the commands name every one of: "open door to front", '"front" is
        not a direction'), is taken out of the evidence: the refusal was about a name, not
        about what the action needs. Returns its ``where``, or None (the last command ran,
        or does not name ``name``). Measured with Qwen2.5-Coder 1.5B writing
        CoinCollector's domain (dev seed 1 at a3d7b69): that refusal refuted open-door
        ("its precondition held"), no rewrite could explain it, and open-door was set aside
        for the episode."""
        if not self.transitions or self.transitions[-1].succeeded:
            return None
        t = self.transitions[-1]
        if name.lower() not in t.action.strip("() ").lower().split()[1:]:
            return None
        del self.transitions[-1]
        self._awaiting = self._first_of_plan = None
        return t.where

    def findings(self, domain_text: str, schemas: Optional[Iterable[str]] = None) -> list:
        """Every finding against ``domain_text`` (a domain that does not check: ValueError)."""
        from pddlkit.semantics.transitions import check_listed, check_transitions

        from ..atoms import atom_of

        ran = check_transitions(domain_text, self.transitions, fluents=self.fluents,
                                schemas=schemas, single=self.single,
                                whereabouts=self.whereabouts)
        listed = [t for step in self.listed for t in step]
        if not listed:
            return ran
        shown = {atom_of(fact).predicate for t in (*self.transitions, *listed)
                 for fact in (*t.before, *(t.observed or ()))}
        return ran + check_listed(domain_text, listed, schemas=schemas, static=self.static,
                                  shown=shown)

    def first_new(self, domain_text: str):
        """The first finding not yet acted on, marked as acted on; None when there is none
        (or the domain does not check: its own errors are the loop's to report)."""
        if not self.any:
            return None
        try:
            found = self.findings(domain_text)
        except ValueError:
            return None
        for finding in found:
            key = (finding.schema, finding.kind, finding.index, finding.literal)
            if key not in self._acted and finding.schema not in self.set_aside:
                self._acted.add(key)
                self.asking[finding.schema] = finding.format()
                return finding
        return None

    def refuse(self, action: str, body: str, finding=None) -> None:
        if finding is not None:
            self.refutations.setdefault(action, []).append((body, finding))
        if not self._refused_before(action, body):
            self.refuted.setdefault(action, []).append(" ".join(body.split()))

    def _refused_before(self, action: str, body: str) -> bool:
        return _norm(body) in {_norm(b) for b in self.refuted.get(action, ())}

    def refuted_bodies(self, action: str) -> list[str]:
        """The schemas refuted for ``action``, as written (the last three)."""
        return self.refuted.get(action, [])[-3:]

    def check_body(self, action: str, body: str, domain_text: str) -> Optional[str]:
        """Why ``body`` (in ``domain_text``) is not kept as ``action``'s schema, or None: it
        is one refused before, it does not check, or a transition refutes it (then it is
        refused, and its finding is what the next request shows)."""
        if self._refused_before(action, body):
            return (f"the same schema for {action} was refuted already: "
                    + self.asking.get(action, "a transition contradicts it"))
        if not self.any:
            return None
        try:
            found = self.findings(domain_text, schemas=[action])
        except ValueError as exc:
            self.refuse(action, body)
            self.asking[action] = str(exc)
            return str(exc)
        if not found:
            return None
        self.refuse(action, body, found[0])
        self.asking[action] = found[0].format()
        return "refuted by a transition: " + found[0].format()

    def uses(self, action: str) -> list[str]:
        """The action's observed uses, most recent last: the command, whether the world
        took it, and what it said."""
        mine = [t for t in self.transitions if t.name == action.lower()][-USES_SHOWN:]
        out = []
        for t in mine:
            said = " ".join(t.answer.split())
            said = said if len(said) <= 160 else said[:157] + "..."
            taken = "worked" if t.succeeded else "was refused"
            out.append(f"{t.where.split(': ', 1)[-1]} -> {t.action} {taken}; the game said: "
                       f"{said}" if said else f"{t.action} {taken}")
        return out
