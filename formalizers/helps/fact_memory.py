"""Fact memory: facts already confirmed are merged back into every new problem file.

PDDLego+'s dominant unresolved error is forgotten state: rewriting the problem file, the LLM
drops rooms and doors it knew about (METHODS.md). With the ``fact_memory`` option (off by
default, which is the paper's behaviour) the loop keeps, from every problem file whose plan
ran without a simulation error, the facts no action can make false: atoms of predicates that
no action deletes (static ones such as ``connected``, and add-only ones such as ``visited``),
with the objects they mention. Each later problem file gets those facts, and the object
declarations they need, if it lacks them. Fluents (``at``, ``door-open``) are never carried
over: the new file's own account of them stands.

A remembered placeholder the new file replaced is not merged back. A model (or the
observation reader) names a room it has not seen behind a closed door (``east_room``, as the
prompts allow); once the door opened onto the pantry, merging ``(connected kitchen east_room
east)`` back would leave an unvisited room the planner aims at again and again, through a
door already open. So a remembered fact is left out when the new file has one of the same
predicate (two or more arguments) equal to it in every argument but one, and the remembered
fact's name there is one the observations never used (:func:`named_in`: case, spaces, ``-``
and ``_`` aside; "apple 1" uses ``apple_1``). Two apples of one type, or a room the new file
forgot, are merged as before; and a placeholder a confirmed file replaced is forgotten, so
a later file that forgets both rooms gets the real one back, not both. Without the
observations (``seen`` not given) every fact is remembered and merged, as before.

Merging is textual (facts are inserted after ``(:init``, spelt with or without spaces after
the parenthesis; objects go into ``(:objects ...)`` through :func:`.objects.add_objects`,
which makes the section when the file has none), so the LLM's file is otherwise unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from pddlkit.pddl.model import Atom, ForallEffect, Literal, When
from pddlkit.pddl.reader import read_domain, read_problem

from ..answer import Files
from ..atoms import fact_text
from ..objects import add_objects


@dataclass
class Merge:
    files: Files
    added: list[str] = field(default_factory=list)


def deleted_predicates(domain) -> set[str]:
    """Predicates some action can make false."""
    names: set[str] = set()

    def walk(effects) -> None:
        for e in effects:
            if isinstance(e, Literal) and not e.positive:
                names.add(e.atom.predicate)
            elif isinstance(e, (When, ForallEffect)):
                walk(e.effects)

    for action in domain.actions:
        walk(action.effects)
    return names


def _squashed(text: str) -> str:
    return re.sub(r"[\s_-]+", "", text.lower())


def named_in(name: str, seen: str) -> bool:
    """Whether the observations ``seen`` use ``name``: ``living_room`` is used by "Living
    Room" (case, spaces, ``-`` and ``_`` aside); ``east_room`` is not by "the east"."""
    return _named(name, _squashed(seen))


def _named(name: str, squashed_seen: str) -> bool:
    squashed = _squashed(name)
    return bool(squashed) and squashed in squashed_seen


def _atoms(prob) -> list[tuple[str, tuple[str, ...]]]:
    """A problem's ``:init`` atoms as (predicate, argument names)."""
    return [(a.predicate, tuple(str(x) for x in a.args)) for a in prob.init
            if isinstance(a, Atom)]


def replaced(predicate: str, args: tuple[str, ...], atoms: list[tuple[str, tuple[str, ...]]],
             squashed_seen: str) -> bool:
    """Whether a remembered fact is a placeholder a file's ``atoms`` replaced: one of them
    has its predicate and every argument but one, and the remembered name there is not one
    the observations used (``squashed_seen``: their text through :func:`_squashed`, once per
    file rather than once per fact; see the module docstring)."""
    if len(args) < 2:
        return False
    for pred, have in atoms:
        if pred != predicate or len(have) != len(args):
            continue
        differ = [a for a, b in zip(args, have) if a.lower() != b.lower()]
        if len(differ) == 1 and not _named(differ[0], squashed_seen):
            return True
    return False


class FactMemory:
    """Facts confirmed by successful steps, kept as pddlkit's atoms in the order first
    confirmed; the ``fact_memory`` help's pass over the files (:mod:`..passes`:
    :meth:`apply` merges them back, written as text only there)."""

    counter, event, key = "facts_merged", "facts-merged", "facts"

    def __init__(self) -> None:
        self.facts: dict[Atom, None] = {}   # an ordered set of the facts confirmed
        self.types: dict[str, str] = {}  # object -> type as declared

    def on_ran(self, files: Files, steps: list[str], seen: str) -> None:
        """The loop's hook (:class:`..passes.LearnsWhatRan`): :meth:`confirm`; no event."""
        self.confirm(files, seen=seen)

    def confirm(self, files: Optional[Files], seen: Optional[str] = None) -> None:
        """Remember the lasting facts of a problem file whose plan ran without error; given
        the observations' text ``seen``, forget the remembered placeholders its facts
        replaced (so a later file that forgets both is not given both back)."""
        if files is None:
            return
        dom, _ = read_domain(files.domain)
        prob, _ = read_problem(files.problem)
        if dom is None or prob is None:
            return
        fluent = deleted_predicates(dom)
        for obj in prob.objects:
            self.types[obj.name] = obj.types[0] if obj.types and obj.types[0] != "object" else ""
        atoms = _atoms(prob)
        for pred, args in atoms:
            if pred not in fluent and pred != "=":
                self.facts[Atom(pred, args)] = None
        if seen is not None:
            squashed_seen = _squashed(seen)
            for fact in list(self.facts):
                if replaced(fact.predicate, fact.args, atoms, squashed_seen):
                    del self.facts[fact]

    def apply(self, files: Files, context) -> tuple[Files, list[str]]:
        """The pass: :meth:`merge`, what was seen being every observation of the episode,
        the predicates the formalizer keeps one value of (``context.one_value``) fluents."""
        from ..attempt import observed_text

        merged = self.merge(files, seen=observed_text(context.memory),
                            one_value=getattr(context, "one_value", frozenset()))
        return merged.files, merged.added

    def merge(self, files: Files, seen: Optional[str] = None,
              one_value: frozenset = frozenset()) -> Merge:
        """``files`` with the remembered facts its problem lacks (but the placeholders it
        replaced, given the observations' text ``seen``, and the facts of ``one_value``: the
        predicates the formalizer keeps one value of, fluents whatever the domain's actions
        delete; measured with Qwen2.5-Coder 1.5B learning the household's domain, dev seed 0
        at 9ceef74: its gotolocation added ``(player ?to)`` and deleted nothing, so
        ``player`` read as add-only, every place the player had been was merged back, and
        from the 7th command on the player was believed at up to nine places)."""
        if not self.facts:
            return Merge(files)
        dom, _ = read_domain(files.domain)
        prob, _ = read_problem(files.problem)
        if dom is None or prob is None:
            return Merge(files)  # unreadable: the solver's diagnostics go back first
        declared = {o.name for o in prob.objects} | {c.name for c in dom.constants}
        missing = self._missing(dom, prob, seen, one_value)
        if not missing:
            return Merge(files)
        new_objects = []
        for fact in missing:
            for a in fact.args:
                if a not in declared:
                    declared.add(a)
                    t = self.types.get(a, "")
                    new_objects.append(f"{a} - {t}" if t else a)
        problem = files.problem
        init = re.search(r"\(\s*:init\b", problem, re.I)
        if init is None:
            return Merge(files)
        texts = [fact_text(f) for f in missing]
        problem = problem[:init.end()] + " " + " ".join(texts) + problem[init.end():]
        if new_objects:   # into (:objects ...), made when the file has none
            problem = add_objects(problem, new_objects)
            if problem is None:
                return Merge(files)
        added = texts + [f"object {o}" for o in new_objects]
        return Merge(Files(files.domain, problem), added)

    def _missing(self, dom, prob, seen: Optional[str], one_value: frozenset) -> list[Atom]:
        """The remembered facts ``prob`` lacks that :meth:`merge` puts back: of a predicate
        of ``dom`` at its arity, no action deletes and the formalizer keeps no one value of,
        and no placeholder ``prob`` replaced (given ``seen``)."""
        arity = {p.name: len(p.parameters) for p in dom.predicates}
        kept_one = {o.lower() for o in one_value}
        fluent = deleted_predicates(dom) | {p for p in arity if p.lower() in kept_one}
        atoms = _atoms(prob)
        present = {Atom(pred, args) for pred, args in atoms}
        squashed_seen = _squashed(seen) if seen is not None else None
        return [f for f in self.facts
                if f not in present and arity.get(f.predicate) == len(f.args)
                and f.predicate not in fluent
                and not (squashed_seen is not None
                         and replaced(f.predicate, f.args, atoms, squashed_seen))]
