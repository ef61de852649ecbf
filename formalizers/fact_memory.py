"""Fact memory: facts already confirmed are merged back into every new problem file.

PDDLego+'s dominant unresolved error is forgotten state: rewriting the problem file, the LLM
drops rooms and doors it knew about (METHODS.md). With the ``fact_memory`` option (off by
default, which is the paper's behaviour) the loop keeps, from every problem file whose plan
ran without a simulation error, the facts no action can make false: atoms of predicates that
no action deletes (static ones such as ``connected``, and add-only ones such as ``visited``),
with the objects they mention. Each later problem file gets those facts, and the object
declarations they need, if it lacks them. Fluents (``at``, ``door-open``) are never carried
over: the new file's own account of them stands.

Merging is textual (facts are inserted after ``(:init``, objects after ``(:objects``), so the
LLM's file is otherwise unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from pddlkit.pddl.model import Atom, ForallEffect, Literal, When
from pddlkit.pddl.reader import read_domain, read_problem

from .answer import Files


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


class FactMemory:
    """Facts confirmed by successful steps, keyed by their PDDL text."""

    def __init__(self) -> None:
        self.facts: dict[str, tuple[str, tuple[str, ...]]] = {}  # text -> (predicate, args)
        self.types: dict[str, str] = {}  # object -> type as declared

    def confirm(self, files: Optional[Files]) -> None:
        """Remember the lasting facts of a problem file whose plan ran without error."""
        if files is None:
            return
        dom, _ = read_domain(files.domain)
        prob, _ = read_problem(files.problem)
        if dom is None or prob is None:
            return
        fluent = deleted_predicates(dom)
        for obj in prob.objects:
            self.types[obj.name] = obj.types[0] if obj.types and obj.types[0] != "object" else ""
        for atom in prob.init:
            if isinstance(atom, Atom) and atom.predicate not in fluent and atom.predicate != "=":
                args = tuple(str(a) for a in atom.args)
                self.facts[f"({' '.join((atom.predicate,) + args)})"] = (atom.predicate, args)

    def merge(self, files: Files) -> Merge:
        """``files`` with the remembered facts its problem lacks."""
        if not self.facts:
            return Merge(files)
        dom, _ = read_domain(files.domain)
        prob, _ = read_problem(files.problem)
        if dom is None or prob is None:
            return Merge(files)  # unreadable: the solver's diagnostics go back first
        arity = {p.name: len(p.parameters) for p in dom.predicates}
        fluent = deleted_predicates(dom)
        present = {f"({' '.join((a.predicate,) + tuple(str(x) for x in a.args))})"
                   for a in prob.init if isinstance(a, Atom)}
        declared = {o.name for o in prob.objects} | {c.name for c in dom.constants}
        missing = [text for text, (pred, args) in self.facts.items()
                   if text not in present and arity.get(pred) == len(args)
                   and pred not in fluent]
        if not missing:
            return Merge(files)
        new_objects = []
        for text in missing:
            for a in self.facts[text][1]:
                if a not in declared:
                    declared.add(a)
                    t = self.types.get(a, "")
                    new_objects.append(f"{a} - {t}" if t else a)
        problem = files.problem
        at = problem.find("(:init")
        if at < 0:
            return Merge(files)
        at += len("(:init")
        problem = problem[:at] + " " + " ".join(missing) + problem[at:]
        if new_objects:
            at = problem.find("(:objects")
            if at < 0:
                return Merge(files)
            at += len("(:objects")
            problem = problem[:at] + " " + " ".join(new_objects) + problem[at:]
        added = missing + [f"object {o}" for o in new_objects]
        return Merge(Files(files.domain, problem), added)
