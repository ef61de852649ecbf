"""``here_facts``: a fact over two places, read in a sentence, has where the agent is in the
argument an action takes it from, and one naming here twice leads to a place the sentence does
not name.

Measured with Qwen2.5-Coder 1.5B on CoinCollector (dev seeds, commit 030c575): read in the
pantry, "To the East you see the corridor." came out as ``(connected corridor pantry east)``,
ends swapped, and after a move the way back was written from the room ahead; no new room was
reachable and every goal was refused (3 rooms seed 8, 5 rooms seed 3). And (3 rooms seed 8, 5
rooms seeds 1 and 3, at 13733b8) "To the South you see a closed sliding door." was written
``(connected corridor corridor south)`` in every reading: the room behind the door was never
a goal.

A strategy of the modular formalizer (its ``strategy`` hook): one object per episode. The
formalizer asks it for the sentence's pins (:meth:`HereFacts.pins`: the grammar and the
reading hold those arguments to where the agent is) and has it rewrite a fact that joins a
place to itself (:meth:`HereFacts.away`). It keeps which arguments are where the agent is,
read once per domain.
"""

from __future__ import annotations

from typing import Optional

from pddlkit.formalizers.modular.parts import _conjuncts


class HereFacts:
    """Where the agent is, in the facts a sentence is read into."""

    def __init__(self) -> None:
        self._here_of: tuple = (None, {})   # (the domain read, its here slots)

    def pins(self, formalizer) -> Optional[dict[str, dict[int, str]]]:
        """For a sentence's facts: predicate -> {argument: where the agent is} (see
        :meth:`here_slots`), counted as acting; None with no sentence, nowhere known, or no
        such predicate."""
        if not formalizer._sentence:
            return None
        here = formalizer._here()
        if here is None:
            return None
        pins = {p: {i: here} for p, i in self.here_slots(formalizer).items()} or None
        formalizer.acted["here-facts"] += pins is not None
        return pins

    def here_slots(self, formalizer) -> dict[str, int]:
        """predicate -> the argument that is where the agent is, for a predicate over two or
        more places that some action's precondition needs with that argument the agent's
        place (``(at ?from) (connected ?from ?to ?dir)``: argument 0 of ``connected``); read
        from the domain's conjunctions, once per domain."""
        dom = formalizer._domain_model()
        if dom is None:
            return {}
        if self._here_of[0] is dom:
            return self._here_of[1]
        single = formalizer._single_valued()
        kinds = formalizer._kinds()
        slots: dict[str, int] = {}
        for action in dom.actions:
            conj = list(_conjuncts(action.precondition))
            places = {a.args[0] for a in conj if a.predicate.lower() in single
                      and len(a.args) == 1}
            for atom in conj:
                name = atom.predicate.lower()
                if name in single or name not in kinds:
                    continue
                for i, arg in enumerate(atom.args):
                    place = kinds[name][i] if i < len(kinds[name]) else None
                    if arg in places and place is not None \
                            and sum(1 for k in kinds[name] if k == place) >= 2:
                        slots.setdefault(name, i)
        self._here_of = (dom, slots)
        return slots

    def there_slots(self, formalizer) -> dict[str, int]:
        """predicate -> its other argument of the type of the one :meth:`here_slots` names
        (``connected``: 1, where a move goes), when it has one."""
        kinds = formalizer._kinds()
        out = {}
        for predicate, i in self.here_slots(formalizer).items():
            kind = kinds[predicate][i]
            others = [j for j, k in enumerate(kinds[predicate]) if j != i and k == kind]
            if len(others) == 1:
                out[predicate] = others[0]
        return out

    def away(self, formalizer, predicate: str, args: list[str], pins: dict
             ) -> Optional[str]:
        """A fact over two places that names where the agent is in both (``(connected
        corridor corridor south)``) joins a place to itself, so a move along it goes nowhere.
        The other place is one the sentence does not name: the one the known facts already
        have that way from here (the same other arguments), else a placeholder,
        ``unknown_south_of_corridor``, renamed to the place's name once the agent is there
        (``ModularFormalizer._merge_placeholders``). Recorded as a rewritten line of the
        part. Any other fact comes back as it was. None (the fact is not kept) when nothing
        else in it says which way the other place lies and no known fact names one: a
        placeholder then stands for no exit a command could take. Measured with
        Qwen2.5-Coder 1.5B learning the household's domain (dev seed 0 at 9ceef74):
        ``(connects cabinet_1 cabinet_1)`` read on arriving became ``(connects cabinet_1
        unknown_connects_of_cabinet_1)``, one such place per receptacle; they became the
        novel goals, and plans reached them through any schema that put the player at its
        receptacle ("take butterknife 1 from unknown connects of cabinet 1", 5 of the
        episode's 8 refusals)."""
        fact = "(" + " ".join([predicate, *args]) + ")"
        pinned = pins.get(predicate) or {}
        if len(pinned) != 1:
            return fact
        (i, here), = pinned.items()
        here_slots, there_slots = self.here_slots(formalizer), self.there_slots(formalizer)
        j = there_slots.get(predicate)
        if j is None or j >= len(args) or args[i] != here or args[j] != here:
            return fact
        rest = [a for k, a in enumerate(args) if k not in (i, j)]
        there = None
        for known in formalizer._facts():
            words, p = known.args, known.predicate
            if (here_slots.get(p), there_slots.get(p)) == (i, j) \
                    and len(words) == len(args) and words[i] == here and words[j] != here \
                    and [a for k, a in enumerate(words) if k not in (i, j)] == rest:
                there = words[j]
                break
        if there is None and not rest:
            formalizer._rewrites.append(f"{fact}: a place joined to itself, and nothing says "
                                        "which way another lies; not kept")
            return None
        there = there or "unknown_" + "_".join([*rest, "of", here])
        kept = "(" + " ".join([predicate, *(there if k == j else a
                                            for k, a in enumerate(args))]) + ")"
        formalizer._rewrites.append(f"{fact}: a place joined to itself; read as {kept}")
        return kept
