"""The facts believed now: merged placeholders, where the agent is, what a
single-valued predicate pins, and which facts exclude each other.

A part of :class:`~.formalizer.ModularFormalizer` (issue 74: the 2,102-line module split by job).
"""

from __future__ import annotations

from typing import Optional

from pddlkit.pddl.model import Atom

from ..atoms import slot_of
from .roles import PinsSentenceFacts


class Facts:
    """The facts methods of :class:`~.formalizer.ModularFormalizer`."""

    # -- assembling the files --------------------------------------------------------------
    def _facts(self) -> list[Atom]:
        """The init: the progressed base with the new facts, a new fact of a single-valued
        predicate replacing the old one (see the module docstring)."""
        single = self._single_valued()
        new = self._single_values(self.chunk)
        last = {slot_of(f) for f in new if f.predicate in single}
        if not self._sentence:   # the chunk is whole: where the plan's last step ended
            self._merge_placeholders(single, new)
            if self._plays_learned():   # an exit's placeholder, its place now named
                self.base = list(dict.fromkeys(self._known_exits(self.base)))
        new = self._known_exits(new)
        where = self._whereabouts()
        moved = {_thing_of(f, where) for f in new} - {None}   # (see _thing_of)
        kept = [f for f in self.base if (f.predicate not in single or slot_of(f) not in last)
                and (f in new or _thing_of(f, where) not in moved)]
        return kept + [f for f in dict.fromkeys(new) if f not in kept]

    def _single_values(self, facts: list[Atom]) -> list[Atom]:
        """``facts`` (the chunk's, in order) with one fact per slot of a single-valued
        predicate: of an older observation and a newer, the newer (the chunk reads every
        observation since the last facts part in order, so a plan of two moves gives (at
        corridor) then (at kitchen); measured with Qwen2.5-Coder 1.5B, CoinCollector 5 rooms
        seeds 1 and 3 at 13733b8: both were kept, and moves were planned from the room the
        agent had left); within one observation, the first (a text game says where the
        player is first; measured with Qwen2.5-Coder 1.5B writing CoinCollector's domain,
        dev seed 0 at 693dc66: "You are in the corridor. ... To the West you see the
        kitchen." gave (player corridor) then (player kitchen), the later was kept, and the
        schema check refuted the right move with it). A fact read from no sentence (from a
        command, a correction) counts as the newest. Only while the model writes the domain:
        over a frozen domain the later fact of one observation is kept, as when the
        committed frozen-domain rows were measured (their records replay so; the first-fact
        rule changes 12 of their episodes)."""
        single = self._single_valued()
        origin = getattr(self, "_fact_origin", {}) if self.fixed_domain is None else {}
        newest = max(origin.values(), default=0) + 1
        chosen: dict = {}
        for i, fact in enumerate(facts):
            if fact.predicate not in single:
                continue
            k = origin.get(fact)
            rank = (k, -i) if k is not None else (newest, i)
            if slot_of(fact) not in chosen or rank > chosen[slot_of(fact)][0]:
                chosen[slot_of(fact)] = (rank, fact)
        keep = {fact for _rank, fact in chosen.values()}
        return [f for f in facts if f.predicate not in single or f in keep]

    def _merge_placeholders(self, single: set, new: list[Atom]) -> None:
        """A place the model named ``unknown_...`` before it was seen, reached by a plan
        (the progressed state has ``(at unknown_north)``), and the name the new facts give
        the same single-valued slot (``(at pantry)``) are one thing: the placeholder is
        renamed in the base, so what was known about it (how it connects) is kept. Only
        once the facts part has read every sentence (not while it reads one): measured with
        Qwen2.5-Coder 1.5B (CoinCollector 3 rooms seed 8, ea1a6b4), a plan went through the
        corridor to the placeholder, and the first sentence's ``(at corridor)`` renamed the
        placeholder to ``corridor``: the door became a loop again."""
        for atom in new:
            if len(atom.args) != 1 or atom.predicate not in single:
                continue
            for o in self.base:
                if len(o.args) == 1 and o.predicate == atom.predicate \
                        and o.args[0] != atom.args[0] and o.args[0].startswith("unknown_"):
                    rename = {o.args[0]: atom.args[0]}

                    def renamed(a: Atom) -> Atom:
                        return Atom(a.predicate, tuple(rename.get(w, w) for w in a.args))
                    self.base = [renamed(b) for b in self.base]
                    # what was true of the placeholder was true of the place
                    self.ever = {renamed(e) for e in self.ever}
                    return

    def _known_exits(self, new: list[Atom]) -> list[Atom]:
        """Over a learned entry reused with its aspects (``_plays_learned``): a connection
        read to a placeholder (``(connected cellar unknown_entranceway west)``) where the
        facts already connect the same place the same way to a named place (``(connected
        cellar shower west)``: the placeholder a plan reached, merged into the place it
        was, :meth:`_merge_placeholders`) names that place: one exit, one place behind it.
        Only for a connection of three or more arguments (the places and a direction): two
        places alone (the household's ``(connects ?r1 ?r2)``) say no exit. Why: measured
        with Qwen2.5-Coder 1.5B over CoinCollector's learned ``7bbe41a16326`` on TextWorld's
        coin games (dev seed 0 at 9189db2), each return to the cellar read "that entranceway
        is unguarded" as a fresh ``unknown_entranceway`` west, a place not yet visited, and
        the novel goal to reach it walked the same doorway back and forth until the 30
        actions were spent. The known facts are read so too, once the chunk is whole: two
        placeholders read for one exit ("going west, that entranceway": ``unknown_west`` and
        ``unknown_entranceway``), one of them reached and named, leave no other to visit
        (dev seed 0 at 2c317d9: a step spent going back). While the model writes the
        domain, facts are read as before (its learning records replay as they were)."""
        connects = self._exit_predicates()
        if not connects:
            return new
        known: dict[tuple, set] = {}
        for fact in self.base:
            if fact.predicate in connects:
                for i, name in enumerate(fact.args):
                    if not name.startswith("unknown_"):
                        rest = fact.args[:i] + fact.args[i + 1:]
                        known.setdefault((fact.predicate, i, rest), set()).add(name)
        out = []
        for fact in new:
            if fact.predicate in connects:
                args = list(fact.args)
                for i, name in enumerate(fact.args):
                    names = known.get((fact.predicate, i, fact.args[:i] + fact.args[i + 1:]))
                    if name.startswith("unknown_") and names and len(names) == 1:
                        args[i] = next(iter(names))
                fact = Atom(fact.predicate, tuple(args))
            out.append(fact)
        return out

    def _room_map(self) -> bool:
        """Whether the domain is a learned entry reused with its aspects over a map of rooms
        joined by exits (a connection of three or more arguments: the places and a
        direction; the household's connects two places), where a heading names the room
        (:mod:`.rooms`), a listed move is an exit (:mod:`.rooms`),
        and a sentence shows what is in the room (:meth:`_things_here`)."""
        return bool(self._exit_predicates())

    def _exit_predicates(self) -> set[str]:
        """Over a learned entry reused with its aspects, the predicates written for how
        places connect that take three or more arguments (the places and a direction: an
        exit); empty otherwise."""
        from ..helps.predicate_slots import CONNECT_ASPECT

        if not self._plays_learned():
            return set()
        kinds = self._kinds()
        return {n for n, a in self._aspects().items()
                if a == CONNECT_ASPECT and len(kinds.get(n, ())) >= 3}

    def _unsaid_closed_dropped(self, facts: list[Atom], before: set) -> list[Atom]:
        """``facts`` (a plan's last state) less the closed-aspect facts its steps added, in
        a room map (:meth:`_room_map`): what is closed the game says in words, and those
        facts are read only from a sentence that says "closed" (as while learning). Why:
        measured with Qwen2.5-Coder 1.5B over CoinCollector's learned ``7bbe41a16326`` on
        TextWorld's coin games (dev seed 1 at fd73d9f), the entry's ``move`` adds
        ``(closed-door ?from ?to ?dir)``: every doorway walked through was believed closed,
        no plan could go back through it (TextWorld has no door command), and the goals
        beyond it were refused as unsolvable until the solver's retries ran out."""
        if not self._room_map():
            return facts
        from ..helps.predicate_slots import CLOSED_ASPECT

        closed = {n for n, a in self._aspects().items() if a == CLOSED_ASPECT}
        return [f for f in facts if f.predicate not in closed or f in before]

    def _here(self) -> Optional[str]:
        """Where the agent is, by the known and new facts (a single-valued fact of one
        argument); None when they do not say, or say two places."""
        single = self._single_valued()
        places = {f.args[0] for f in self._facts()
                  if f.predicate in single and len(f.args) == 1}
        return next(iter(places)) if len(places) == 1 else None

    def _pins(self) -> Optional[dict[str, dict[int, str]]]:
        """``here_facts`` (:mod:`pddlkit.formalizers.helps.here_facts`): for a sentence's
        facts, predicate -> {argument: where the agent is}; None when off or nowhere known."""
        for pinner in self._roles(PinsSentenceFacts):
            pins = pinner.pins(self)
            if pins:
                self._pinned_by = pinner   # the one that reads the sentence's facts
                return {**pins, **self._things_here(pins)}
        return None

    def _things_here(self, pins: dict) -> dict[str, dict[int, str]]:
        """Over a learned entry reused with its aspects, in a map of rooms joined by exits
        (a connection of three or more arguments: the places and a direction): where each
        thing is, read in a sentence, is where the player is (predicate -> {the argument of
        the player's place type: here}): such a game describes the room the player is in.
        Not in the household (two places per connection): there the player stands at one
        receptacle and the sentence may name another. Why: measured with Qwen2.5-Coder 1.5B
        over CoinCollector's learned ``7bbe41a16326`` on TextWorld's coin games (dev seed 0
        at 411d769), "There is a coin on the floor." in the studio was read ``(thing coin
        floor)``: taking it was never plannable, and the episode ended at the solver's
        retry limit with the coin in view."""
        if not self._room_map():
            return {}
        from ..helps.predicate_slots import THING_ASPECT

        here = next(iter(next(iter(pins.values())).values()))
        kinds, aspects = self._kinds(), self._aspects()
        place = {kinds[p][0] for p in self._player_predicates() if kinds.get(p)}
        out = {}
        for name, aspect in aspects.items():
            slots = [i for i, kind in enumerate(kinds.get(name, ())) if kind in place]
            if aspect == THING_ASPECT and len(slots) == 1:
                out[name] = {slots[0]: here}
        return out

    def _single_valued(self) -> set[str]:
        """The predicates of which a fact holds one value per slot (:func:`..atoms.slot_of`):
        those the domain's actions that add them also delete, and, while the model writes
        the domain (``predicate_slots``), the player's place whatever its schemas say (the
        player is at one place; measured with Qwen2.5-Coder 1.5B learning the household's
        domain, dev seeds 0-1 at 8336b36: its gotolocation added ``(player ?to)`` and deleted
        nothing, so every place read after a move joined the old ones, the player was
        believed at up to seven places, and 7 of seed 1's 20 refusals were "You are not at the
        X")."""
        dom = self._domain_model()
        if dom is None:
            return set()
        player = set(self._player_predicates())
        known = getattr(self, "_single_of", None)
        if known is not None and known[0] is dom and known[1] == player:   # once a domain
            return set(known[2])
        from pddlkit.pddl.model import iter_effect_literals

        adds: dict[str, set] = {}
        dels: dict[str, set] = {}
        for action in dom.actions:
            for literal in iter_effect_literals(action.effects):
                (adds if literal.positive else dels).setdefault(
                    literal.atom.predicate.lower(), set()).add(action.name)
        single = {p for p, by in adds.items() if by and dels.get(p) == by} | player
        self._single_of = (dom, player, frozenset(single))
        return single

    def _exclusive(self) -> dict[str, set[str]]:
        """predicate -> the predicates the domain never lets hold with it over the same
        first argument (or at all, when either has none): each is added only by actions that
        delete the other, both ways (``holds ?o`` and ``inreceptacle ?o ?r``: a take adds the
        one and deletes the other, a put the reverse; ``handempty`` and ``holds``). Read from
        the actions' unconditional effects; a cheap invariant, used only against a fact the
        world vouches for (``command_facts``)."""
        dom = self._domain_model()
        if dom is None:
            return {}
        if getattr(self, "_exclusive_of", (None,))[0] is dom:   # once per domain read
            return self._exclusive_of[1]
        from pddlkit.pddl.model import Literal

        adds: dict[str, list] = {}
        for action in dom.actions:
            literals = [e for e in action.effects if isinstance(e, Literal)]
            for added in (lit.atom for lit in literals if lit.positive):
                dels = {(lit.atom.predicate.lower(), lit.atom.args[:1])
                        for lit in literals if not lit.positive}
                adds.setdefault(added.predicate.lower(), []).append((added.args[:1], dels))

        def excludes(p: str, q: str) -> bool:   # every action adding p deletes q with it
            return bool(adds.get(p)) and all(
                any(pred == q and (not first or not args or args == first)
                    for pred, args in dels) for first, dels in adds[p])
        names = list(adds)
        exclusive = {p: {q for q in names if q != p and excludes(p, q) and excludes(q, p)}
                     for p in names}
        self._exclusive_of = (dom, exclusive)
        return exclusive


def _thing_of(fact: Atom, where: dict) -> Optional[str]:
    """The thing a fact of where a thing is says where is (``where``: predicate -> the
    thing's position, :meth:`.predicates.PredicateRevision._whereabouts`), None for any other
    fact. While the model writes the domain (``predicate_slots``), a new such fact drops
    what the older facts said of that thing (a thing held is at no place, and at one place at
    a time). Why: measured with Qwen2.5-Coder 1.5B learning the household's domain, dev seed
    0 at 3e72055, the cd taken from the countertop was believed on it still (its
    pickupobject deleted nothing), so the put that followed seemed to change nothing, and
    its schema, which put nothing anywhere, was never refuted."""
    k = where.get(fact.predicate)
    return fact.args[k] if k is not None and k < len(fact.args) else None
