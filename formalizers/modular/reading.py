"""An answer read into the part it is for: predicates, an action's schema, typed names, facts,
the goal, a correction, a missing predicate's facts; what code refused or rewrote is kept
on the call.

A part of :class:`~.formalizer.ModularFormalizer` (issue 74: the 2,102-line module split by job).
"""

from __future__ import annotations

import re
from typing import Optional

from ..base import Context
from .parts import MISSING_FACTS, _ATOM, _balanced, _norm, _types, observed_names


class Reading:
    """The reading methods of :class:`~.formalizer.ModularFormalizer`."""

    # -- reading answers -------------------------------------------------------------------
    def _read(self, part: str, text: str, context: Context, signatures: dict):
        """(what to keep, lines refused with why); (None, [why]) when nothing can be kept."""
        text = text.strip().strip("`")
        if part == "predicates":
            kept, refused = [], []
            types = set(_types(signatures))
            for m in _ATOM.finditer(text):
                words = m.group(2).split()
                params, ok, i = [], True, 0
                while i < len(words):
                    if words[i].startswith("?"):
                        if i + 2 < len(words) and words[i + 1] == "-":
                            params.append(f"{words[i]} - {words[i + 2]}")
                            ok = ok and (words[i + 2] in types)
                            i += 3
                            continue
                        params.append(words[i])
                        i += 1
                        continue
                    ok = False
                    break
                line = f"({m.group(1).lower()}" + "".join(" " + p for p in params) + ")"
                if not ok:
                    refused.append(f"{m.group(0)}: not a typed predicate over {sorted(types)}")
                elif m.group(1).lower() in {k.split()[0].strip('(') for k in kept}:
                    refused.append(f"{m.group(0)}: declared twice")
                else:
                    kept.append(line)
            covered = {w for line in kept for w in line.strip("()").split()}
            missing = [t for t in _types(signatures) if t != "object" and t not in covered]
            if kept and missing:   # an action's parameter of that type would be unconstrained
                return None, refused + [f"no predicate has a parameter of type "
                                        f"{', '.join(missing)}, which the actions' parameters "
                                        "have"]
            return (kept or None), (refused or ["no predicate found"] if not kept else refused)
        if part.startswith("action "):
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
            why = self._against_evidence(part.split(" ", 1)[1], body, signatures)
            return (None, [why]) if why else (body, [])
        if part == "correction":
            named = {self._predicate_of(c) for c in self._corrections()}
            found = re.search(r"[a-z][\w\-]*", text.lower())
            if found is None or found.group(0) not in named:
                return None, [f"not one of the predicates {', '.join(sorted(named))}"]
            return found.group(0), []
        if part == "types":
            kinds = {t.upper(): t for t in self._type_names()}
            found = {}
            for word, kind in re.findall(r"([a-z][\w\-]*)\s*=\s*([A-Za-z]+)", text):
                kind = kind.upper()
                found[word.lower()] = kinds.get(kind, "NONE")
            wanted = self._untyped_words()
            closed = {w: found[w] for w in wanted if found.get(w) in self._closed_types
                      and w not in self._command_typed}   # the commands name every one
            refused = [f"{w}={k.upper()}: the commands name every {k}, not {w}"
                       for w, k in closed.items()]
            found = {w: k for w, k in found.items() if w not in closed}
            if not any(w in found for w in wanted):
                return None, ["no word=TYPE found"] + refused
            return {w: found[w] for w in wanted if w in found}, refused
        arities = self._arities(signatures)
        # labelled parameters: ?from=kitchen; a space in their place, as the grammar lets
        # "(atlocation?r=countertop_1)" through (measured: read as "(atlocationcountertop_1)")
        text = re.sub(r"\s*\?[\w\-]+\s*=\s*", " ", text)
        if part.startswith("missing "):
            return self._read_missing(part.split(" ", 1)[1], text, arities, context)
        if part == "facts":
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
                pinned = [(i, name) for i, name in pins.get(predicate, {}).items()
                          if i < len(args) and args[i] != name]
                if predicate not in arities:
                    refused.append(f"{fact}: no predicate {predicate} in the domain")
                elif arities[predicate] != len(args):
                    refused.append(f"{fact}: {predicate} takes {arities[predicate]} "
                                   "argument(s)")
                elif any(a not in names for a in args):
                    unseen = next(a for a in args if a not in names)
                    refused.append(f"{fact}: no observation names {unseen}")
                elif self._sentence and args and not set(args) & mentioned:
                    refused.append(f"{fact}: names nothing the sentence names")
                elif pinned:   # here_facts: read where the agent is, from where it is
                    refused.append(f"{fact}: argument {pinned[0][0] + 1} of {predicate} is "
                                   f"where the agent is, {pinned[0][1]}")
                else:
                    fact = self._away(predicate, args, pins) if pins else fact
                    clash = None if fact in kept else self._type_of(fact, kinds, typed)
                    if clash:
                        refused.append(f"{fact}: {clash}")
                    elif fact not in kept:
                        kept.append(fact)
            if not kept and refused:
                return None, refused
            return kept, refused
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
                clash = self._type_of(fact, kinds, typed)
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
        return correction.replace("(not ", "").strip("() ").split()[0]
