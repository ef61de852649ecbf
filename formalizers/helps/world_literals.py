"""``world_literals``: when the world names the literal a command failed on, the facts are
corrected in code (the literal and what it implies through the failed step's precondition),
not by asking the model which predicate.

Reads pddlkit's own simulators' machine-readable failures (``info["failed"]``: ``{"literal":
"(opened cabinet_1)", "holds": false}``, or ``{"pattern": "(connected corridor ?to east)",
"holds": false}`` for "there is no exit in that direction"); real TextWorld and ALFWorld do
not give them. Measured with Qwen2.5-Coder 1.5B on the household (dev seeds): "The cabinet 1
is closed." after a put, and the model, asked which predicate the message was about, said
``atlocation``, which took away where the agent was. (A thing the world says is not there
loses the facts about it in the formalizer's ``_not_there``, with this help on.)

A strategy of the modular formalizer (its ``strategy`` hook): one object per episode, which
keeps what the world said of the last failed command until the next revision reads it.
"""

from __future__ import annotations

import re
from typing import Optional

from pddlkit.formalizers.atoms import _words, atom_of, fact_text


class WorldLiterals:
    """What the world said of the last failed command: the literal and whether it held, and
    a pattern no values make true (each None when it said neither)."""

    def __init__(self) -> None:
        self.failed_literal: Optional[tuple[str, bool]] = None
        self.pattern: Optional[str] = None

    def heard(self, failed: dict) -> None:
        """The world's ``info["failed"]`` for a failed step (a dict; anything else says
        nothing)."""
        self.pattern, self.failed_literal = _world_failure(failed)

    def absent(self, formalizer, name: str, gone: list, typed: bool) -> bool:
        """The world said ``name`` is not there: the model's facts about it are about
        nothing, and go (measured: "You are in the middle of a room" as ``(heater
        middle)``, then "go to middle": "You don't see any middle here."); withdrawn when
        a fact named it or the model typed it."""
        if not (gone or typed):
            return False
        formalizer._forget(name, gone)
        return True

    def apply(self, formalizer) -> bool:
        """Apply :meth:`corrections` to the known facts, and take out every known fact a
        pattern the world refuted matches (``{"pattern": "(connected corridor ?to east)",
        "holds": false}``: "You can't move east: there is no exit in that direction"); False
        when the world named neither or it implies nothing the facts do not already say."""
        corrections = self.corrections(formalizer)
        if self.pattern:   # "there is no exit in that direction": no ?to at all
            from pddlkit.formalizers.helps.refuted_facts import fact_atom, matches

            known = dict.fromkeys(formalizer._facts() + formalizer.chunk)
            pattern = fact_atom(self.pattern)   # lower case, as the world's is read
            corrections += [f"(not {fact_text(f)})" for f in known if matches(pattern, f)
                            and f"(not {fact_text(f)})" not in corrections]
        self.failed_literal = None
        self.pattern = None
        if not corrections:
            return False
        for correction in corrections:
            if correction.startswith("(not "):
                fact = atom_of(correction[len("(not "):-1])
                formalizer.base = [f for f in formalizer.base if f != fact]
                formalizer.chunk = [f for f in formalizer.chunk if f != fact]
            elif atom_of(correction) not in formalizer.chunk:
                formalizer.chunk = formalizer.chunk + [atom_of(correction)]
        formalizer.world_corrected += corrections
        formalizer.failed_step = None
        return True

    def corrections(self, formalizer) -> list[str]:
        """What the world's answer to a failed command implies for the known facts, when it
        names the literal that failed (``info["failed"]``: ``{"literal": "(opened
        cabinet_1)", "holds": false}``): the literal itself, when the known facts say
        otherwise; and, for a disjunction of the failed step's precondition (in the model's
        domain) that holds it, every other disjunct, which must have failed too: ``(or (not
        (openable cabinet_1)) (opened cabinet_1))`` failed with ``(opened cabinet_1)`` false,
        so ``(openable cabinet_1)`` holds. Measured with Qwen2.5-Coder 1.5B on the household:
        "The cabinet 1 is closed." after a put, and the model, asked which predicate the
        message was about, said ``atlocation``, which took away where the agent was."""
        failed = formalizer._failed_step_action() if self.failed_literal else None
        if failed is None:
            return []
        action, ground = failed
        fact, holds = self.failed_literal
        from pddlkit.pddl.model import And, Atom, Not, Or

        known = {fact_text(f) for f in formalizer._facts()}   # as ground() writes a fact
        out = []
        grounded: set[str] = set()

        def atoms(f) -> None:   # the step's precondition atoms, over domain predicates
            if isinstance(f, (And, Or)):
                for part in f.parts:
                    atoms(part)
            elif isinstance(f, Not):
                atoms(f.formula)
            elif isinstance(f, Atom) and f.predicate != "=":
                grounded.add(ground(f))

        atoms(action.precondition)
        if fact not in grounded:   # "=", another predicate, a literal of no use here
            return []
        if holds is False and fact in known:
            out.append(f"(not {fact})")
        if holds is True and fact not in known:
            out.append(fact)

        def failing(f) -> bool:   # the disjunct the world says failed
            if isinstance(f, Atom):
                return ground(f) == fact and holds is False
            return isinstance(f, Not) and isinstance(f.formula, Atom) \
                and ground(f.formula) == fact and holds is True

        def visit(f) -> None:
            if isinstance(f, And):
                for part in f.parts:
                    visit(part)
            elif isinstance(f, Or) and any(failing(d) for d in f.parts):
                for other in f.parts:
                    if failing(other):
                        continue
                    if isinstance(other, Atom) and ground(other) in known:
                        out.append(f"(not {ground(other)})")     # false in the world
                    elif isinstance(other, Not) and isinstance(other.formula, Atom) \
                            and ground(other.formula) not in known:
                        out.append(ground(other.formula))         # its atom holds

        visit(action.precondition)
        return list(dict.fromkeys(c for c in out if "?" not in c))


def _world_failure(failed: dict) -> tuple[Optional[str], Optional[tuple[str, bool]]]:
    """(the failed precondition's pattern, ``(at ?x)``, when the world says it did not
    hold; the failed literal and whether it held), each None unless the world's
    ``info["failed"]`` gives one atom of plain words."""
    pattern, literal = failed.get("pattern"), failed.get("literal")
    world_pattern = world_failed = None
    if isinstance(pattern, str) and failed.get("holds") is False \
            and pattern.count("(") == pattern.count(")") == 1:
        words = _words(pattern.lower())
        if words and all(re.fullmatch(r"\??[a-z][\w\-]*", w) for w in words):
            world_pattern = "(" + " ".join(words) + ")"
    if isinstance(literal, str) and literal.count("(") == literal.count(")") <= 1 \
            and isinstance(failed.get("holds"), bool):   # one atom, "( opened x )" too
        words = _words(literal.lower())
        if words and all(re.fullmatch(r"[a-z][\w\-]*", w) for w in words):
            world_failed = ("(" + " ".join(words) + ")", failed["holds"])
    return world_pattern, world_failed
