"""An answer read into the part it is for: predicates, an action's schema, typed names, facts,
the goal, a correction, a missing predicate's facts; what code refused or rewrote is kept
on the call.

A part of :class:`~.formalizer.ModularFormalizer` (issue 74: the 2,102-line module split by job).
"""

from __future__ import annotations

import re
from typing import Optional

from ..base import Context
from .parts import MISSING_FACTS, _balanced, _norm, _types, observed_names
from ..atoms import _ATOM, Signature, atom_of
from ..helps.predicate_slots import held_places, misplaced_players, over_most, place_types
from ..helps.schema_slots import read_slots


class Reading:
    """The reading methods of :class:`~.formalizer.ModularFormalizer`."""

    # -- reading answers -------------------------------------------------------------------
    def _read(self, part: str, text: str, context: Context, signatures: dict):
        """(what to keep, lines refused with why); (None, [why]) when nothing can be kept."""
        text = text.strip().strip("`")
        if part == "predicates":
            return self._read_predicates(text, signatures)
        if part.startswith("action "):
            return self._read_action(part.split(" ", 1)[1], text, signatures)
        if part == "correction":
            return self._read_correction(text)
        if part == "types":
            return self._read_types(text)
        if part.startswith("achiever "):
            return self._read_achiever(part.split(" ", 1)[1], text, signatures)
        if part.startswith("lacked "):
            return self._read_lacked(part.split(" ", 1)[1], text)
        arities = self._arities(signatures)
        # labelled parameters: ?from=kitchen; a space in their place, as the grammar lets
        # "(atlocation?r=countertop_1)" through (measured: read as "(atlocationcountertop_1)")
        text = re.sub(r"\s*\?[\w\-]+\s*=\s*", " ", text)
        if part.startswith("missing "):
            return self._read_missing(part.split(" ", 1)[1], text, arities, context)
        if part == "facts":
            return self._read_facts(text, arities, context)
        return self._read_goal(text)

    def _read_predicates(self, text: str, signatures: dict):
        """Typed predicates over the actions' types, each declared once; refused when an
        action's parameter type is in none (it would be unconstrained)."""
        kept, refused = [], []
        types = set(_types(signatures))
        places = set(held_places(text, types)) if self.predicate_slots else set()
        kinds = place_types(signatures) if self.predicate_slots else []
        elsewhere = set(misplaced_players(text, kinds))
        too_many = over_most(text) if self.predicate_slots else {}
        for m in _ATOM.finditer(text):
            params = _typed_parameters(m.group(2).split(), types)
            if m.start() in too_many:
                aspect, most = too_many[m.start()]
                refused.append(f"{m.group(0)}: a predicate for {aspect} has at most {most} "
                               "argument (the player is implied)")
            elif m.group(0) in places:
                refused.append(f"{m.group(0)}: what the player holds is a thing, not a place "
                               "(where the player is has that type)")
            elif m.group(0) in elsewhere:
                refused.append(f"{m.group(0)}: where the player is has a type every action "
                               f"has a parameter of ({', '.join(kinds)})")
            elif params is None:
                refused.append(f"{m.group(0)}: not a typed predicate over {sorted(types)}")
            elif m.group(1).lower() in {k.name for k in kept}:
                refused.append(f"{m.group(0)}: declared twice")
            else:
                kept.append(Signature.read(
                    f"({m.group(1).lower()}" + "".join(" " + p for p in params) + ")"))
        if kept and self._same_predicates(kept):
            return None, refused + ["the same predicates as before, which no schema over them "
                                    "could fix; write different ones"]
        covered = {w for s in kept for w in str(s).strip("()").split()}
        missing = [t for t in _types(signatures) if t != "object" and t not in covered]
        if kept and missing:   # an action's parameter of that type would be unconstrained
            return None, refused + [f"no predicate has a parameter of type "
                                    f"{', '.join(missing)}, which the actions' parameters "
                                    "have"]
        return (kept or None), (refused or ["no predicate found"] if not kept else refused)

    def _read_action(self, action: str, text: str, signatures: dict):
        """An action's precondition and effect; refused when the effect is missing or empty,
        or when a transition seen refutes it (``schema_check``); with ``schema_slots``, read
        from the lines, one per predicate (:func:`.schema_slots.read_slots`)."""
        if self.schema_slots:
            params, lines = self._slot_schema(signatures[action][0])
            body, refused = read_slots(text, lines, params, self._player_predicates(),
                                       self._static_predicates(),
                                       self._in_place_predicates(params, signatures),
                                       self._place_pairs(signatures))
            if body is None:
                return None, refused
            why = self._against_evidence(action, body, signatures)
            return (None, [why]) if why else (body, refused)
        pre = text.lower().find(":precondition")
        eff = text.lower().find(":effect")
        if eff < 0:
            return None, ["no :effect"]
        start = text.find("(", eff)
        effect = _balanced(text, start) if start >= 0 else None
        condition = None
        if pre >= 0:
            start = text.find("(", pre)
            condition = _balanced(text, start) if 0 <= start < eff else None
        if not effect or effect.replace(" ", "") in ("()", "(and)"):
            return None, ["the effect is empty"]
        body = (f":precondition {condition}\n    " if condition else "") + \
            f":effect {effect}"
        why = self._against_evidence(action, body, signatures)
        return (None, [why]) if why else (body, [])

    def _read_correction(self, text: str):
        """The predicate a correction names, one of those the world's corrections offer."""
        return _one_of(text, sorted({self._predicate_of(c) for c in self._corrections()}),
                       "predicates")

    def _read_types(self, text: str):
        """``word=TYPE`` labels of the words asked about; a type the commands name every
        member of is refused for a word they do not name."""
        kinds = {t.upper(): t for t in self._type_names()}
        found = {}
        for word, kind in re.findall(r"([a-z][\w\-]*)\s*=\s*([A-Za-z]+)", text):
            kind = kind.upper()
            found[word.lower()] = kinds.get(kind, "NONE")
        wanted = self._untyped_words()
        closed_types, command_typed = self._closed_types, self._command_typed
        closed = {w: found[w] for w in wanted if found.get(w) in closed_types
                  and w not in command_typed}   # the commands name every one
        refused = [f"{w}={k.upper()}: the commands name every {k}, not {w}"
                   for w, k in closed.items()]
        found = {w: k for w, k in found.items() if w not in closed}
        if not any(w in found for w in wanted):
            return None, ["no word=TYPE found"] + refused
        return {w: found[w] for w in wanted if w in found}, refused

    def _read_facts(self, text: str, arities: dict, context: Context):
        """A sentence's facts: over declared predicates at their arity, names observations
        gave, something the sentence names, and types that agree with the facts known."""
        names = set(self._fact_names(context))
        mentioned = set(observed_names([self._sentence]))
        kinds = self._kinds()
        typed = {}                       # name -> (type, the fact that fixed it)
        for fact in self.base:
            self._type_of(fact, kinds, typed)
        kept, refused = [], []
        pins = self._pins() or {}
        for m in _ATOM.finditer(text):
            predicate, args = m.group(1).lower(), m.group(2).lower().split()
            fact = "(" + " ".join([predicate, *args]) + ")"
            why = self._fact_refusal(predicate, args, arities, names, mentioned, pins)
            if why:
                refused.append(f"{fact}: {why}")
                continue
            if pins:   # here_facts: a place joined to itself leads away
                away = self._pinned_by.away(self, predicate, args, pins)
                if away is None:
                    refused.append(f"{fact}: joins where the player is to itself")
                    continue
                fact = away
            clash = None if fact in kept else self._type_of(atom_of(fact), kinds, typed)
            if clash:
                refused.append(f"{fact}: {clash}")
            elif fact not in kept:
                kept.append(fact)
        if not kept and refused:
            return None, refused
        return kept, refused

    def _fact_refusal(self, predicate: str, args: list[str], arities: dict, names: set,
                      mentioned: set, pins: dict) -> Optional[str]:
        """Why a fact of a sentence cannot be kept, or None."""
        pinned = [(i, name) for i, name in pins.get(predicate, {}).items()
                  if i < len(args) and args[i] != name]
        if predicate not in arities:
            return f"no predicate {predicate} in the domain"
        if arities[predicate] != len(args):
            return f"{predicate} takes {arities[predicate]} argument(s)"
        unseen = [a for a in args if a not in names]
        if unseen:
            return f"no observation names {unseen[0]}"
        if self._sentence and args and not set(args) & mentioned:
            return "names nothing the sentence names"
        if pinned:   # here_facts: read where the agent is, from where it is
            return (f"argument {pinned[0][0] + 1} of {predicate} is where the agent is, "
                    f"{pinned[0][1]}")
        return None

    def _read_goal(self, text: str):
        """A ``(:goal ...)`` (or atoms read as one), which must be one of the goals offered."""
        start = text.lower().find("(:goal")
        goal = _balanced(text, start) if start >= 0 else None
        if goal is None:
            atoms = [m.group(0) for m in _ATOM.finditer(text)]
            if not atoms:
                return None, ["no (:goal ...) found"]
            goal = "(:goal " + (atoms[0] if len(atoms) == 1
                                else "(and " + " ".join(atoms) + ")") + ")"
        goal = " ".join(goal.lower().split())
        candidates = self._goal_candidates()
        inner = goal[len("(:goal"):-1].strip()
        if candidates and _norm(inner) not in {_norm(c) for c in candidates}:
            if _norm(inner) in {_norm(c) for c in self._been}:
                return None, [f"{inner}: already true earlier in this episode (novel goals: "
                              f"choose one never reached: {', '.join(candidates[:3])})"]
            return None, [f"{inner}: not one of the goals the known facts can reach"]
        return goal, []

    def _read_missing(self, predicate: str, text: str, arities: dict, context: Context):
        """The ``missing`` part's answer: its facts of ``predicate`` over names their types
        allow (see :meth:`_missing_names`; the first only, for a single-valued predicate);
        (None, [why]) for ``none`` or nothing usable."""
        allowed = self._missing_names(context, predicate)
        kinds = self._kinds()
        typed = self._fact_types()
        refused, kept = [], []
        limit = 1 if predicate in self._single_valued() else MISSING_FACTS
        for m in _ATOM.finditer(text):
            name, args = m.group(1).lower(), m.group(2).lower().split()
            fact = "(" + " ".join([name, *args]) + ")"
            if len(kept) >= limit or fact in kept:
                continue
            if name != predicate:
                refused.append(f"{fact}: not a fact of {predicate}")
            elif arities.get(name) != len(args):
                refused.append(f"{fact}: {predicate} takes {arities.get(name)} argument(s)")
            elif any(a not in names for a, names in zip(args, allowed)):
                unseen = next(a for a, names in zip(args, allowed) if a not in names)
                refused.append(f"{fact}: {unseen} is no name of its type in the observations")
            else:
                clash = self._type_of(atom_of(fact), kinds, typed)
                if not clash:
                    kept.append(fact)
                else:
                    refused.append(f"{fact}: {clash}")
        if kept:
            return kept, refused
        if not refused and re.fullmatch(r"\W*none\W*", text.lower()):
            slot = self._placeholder(predicate)
            if slot:
                return [slot], ["the model said none: a placeholder holds the slot"]
            return [], ["the model said none"]   # an answer: not drawn again
        if not refused:
            refused = ["the model said none" if "none" in text.lower() else "no fact found"]
        return None, refused

    def _placeholder(self, predicate: str) -> Optional[str]:
        """``(atlocation unknown_receptacle)``: where the agent is when the model cannot say
        (a single-valued predicate of one argument that no known fact holds; measured with
        Qwen2.5-Coder 1.5B on the household, "You are in the middle of a room" and ``none``
        twice, and no plan could start: every action needs where the agent is). A command
        that does not name the place it leaves ("go to cabinet 1") runs from it, and the
        first fact that names the slot replaces it (see :meth:`_merge_placeholders`)."""
        kinds = self._kinds().get(predicate)
        if kinds is None or len(kinds) != 1 or predicate not in self._single_valued() \
                or predicate in self._held_predicates():
            return None
        return f"({predicate} unknown_{kinds[0] or 'thing'})"

    def _missing_names(self, context: Context, predicate: str) -> list[list[str]]:
        """For each parameter of the missing part's predicate, the names it may take: the
        observations' names that the types part or a known fact gave its type; placeholders
        left out: the fact asked for is one the game said."""
        typed = self._typed_names(context)
        by_facts = self._fact_types()
        params = dict(self._signature_list()).get(predicate, [])
        # only names the types part or a fact gave that type: not command words ("look"),
        # not words nobody typed ("room")
        return [[n for n in typed.get(t, []) if not n.startswith("unknown_")
                 and (self.name_types.get(n) == t or by_facts.get(n, (None,))[0] == t)]
                for _v, t in params]

    @staticmethod
    def _predicate_of(correction: str) -> str:
        """A correction's predicate: ``(not (at kitchen))`` -> at."""
        inner = correction[len("(not "):-1] if correction.startswith("(not ") else correction
        return atom_of(inner).predicate


def _typed_parameters(words: list[str], types: set) -> Optional[list[str]]:
    """``?x - type`` (or a bare ``?x``) parameters read from ``words``; None when a word is
    not a parameter or a type is not one of ``types``."""
    params, ok, i = [], True, 0
    while i < len(words):
        if not words[i].startswith("?"):
            return None
        if i + 2 < len(words) and words[i + 1] == "-":
            params.append(f"{words[i]} - {words[i + 2]}")
            ok = ok and (words[i + 2] in types)
            i += 3
        else:
            params.append(words[i])
            i += 1
    return params if ok else None


def _one_of(text: str, named: list[str], what: str):
    """(the answer's first name, []) when it is one of ``named``, else (None, [why]): a
    choice part's answer (a correction's predicate, an achiever's action)."""
    found = re.search(r"[a-z][\w\-]*", text.lower())
    if found is None or found.group(0) not in named:
        return None, [f"not one of the {what} {', '.join(named)}"]
    return found.group(0), []
