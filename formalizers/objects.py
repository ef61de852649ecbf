"""Declaring in code the objects a problem file uses but does not declare (issue 46).

A small model writes ``(at pantry)`` and ``(:goal (visited hall))`` and leaves
``(:objects ...)`` out, answer after answer, while every diagnostic asks for it: measured with
Qwen2.5-Coder 1.5B, 6 answers out of 6. The object's type is not a judgement call: the
domain's predicate signatures say it. So with the ``declare_objects`` option (off by default:
the paper's behaviour), before the planner is called:

* every name used in the problem's ``:init`` or ``:goal`` that is neither declared nor a
  domain constant is declared in ``(:objects ...)`` (the section is made when missing);
* its type is the one every place it is used in agrees on: the parameter type of each
  predicate position it fills. A name used at two types that are not one the subtype of the
  other is left undeclared, and the checker's diagnostic goes to the model as before (no
  guess). When one type is a subtype of the other the narrower is used (it fits both places).
  In a domain without types the name is declared untyped.

Each declaration is recorded as a fix (``problem: declared pantry - location``), as
:mod:`.repair`'s are, and the text is edited where the section is, so the model's own file is
kept.
"""

from __future__ import annotations

import re
from typing import Optional

from pddlkit.pddl.model import Domain, Problem, iter_atoms
from pddlkit.pddl.reader import read_domain, read_problem

from .answer import Files, closing_bracket


def declare_objects(files: Files) -> tuple[Files, list[str]]:
    """The files with the problem's undeclared objects declared, and one fix line each."""
    dom, _ = read_domain(files.domain)
    prob, _ = read_problem(files.problem)
    if dom is None or prob is None:
        return files, []
    wanted = _undeclared_types(dom, prob)
    if not wanted:
        return files, []
    typed = bool(dom.types) or ":typing" in dom.requirements
    entries = [f"{name} - {kind}" if typed and kind else name for name, kind in wanted]
    problem = add_objects(files.problem, entries)
    if problem is None:
        return files, []
    return Files(files.domain, problem), [f"problem: declared {e}" for e in entries]


def _undeclared_types(dom: Domain, prob: Problem) -> list[tuple[str, Optional[str]]]:
    """(name, type) for each undeclared name whose uses agree on one type, in first-use order."""
    declared = {o.name.lower() for o in prob.objects} | {c.name.lower() for c in dom.constants}
    signatures = {p.name.lower(): [t.types[0] if t.types else None for t in p.parameters]
                  for p in dom.predicates}
    uses: dict[str, list[Optional[str]]] = {}
    atoms = list(prob.init) + list(iter_atoms(prob.goal))
    for atom in atoms:
        types = signatures.get(atom.predicate.lower())
        for i, arg in enumerate(atom.args):
            if arg.startswith("?") or arg.lower() in declared:
                continue
            kind = types[i] if types is not None and i < len(types) else None
            uses.setdefault(arg, []).append(kind)
    out = []
    for name, kinds in uses.items():
        kind = _narrowest({k for k in kinds if k and k != "object"}, dom)
        if kind is not False:
            out.append((name, kind))
    return out


def _narrowest(kinds: set, dom: Domain):
    """The one type that fits every use (the narrowest of a chain of subtypes), None for no
    type at all, False when two uses disagree."""
    if not kinds:
        return None
    parents = {t.name: (t.parents[0] if t.parents else "object") for t in dom.types}

    def ancestors(kind: str) -> set:
        seen = {kind}
        while kind in parents and parents[kind] not in seen:
            kind = parents[kind]
            seen.add(kind)
        return seen

    for kind in kinds:
        if all(other in ancestors(kind) for other in kinds):
            return kind
    return False


def add_objects(problem: str, entries: list[str]) -> Optional[str]:
    """``problem`` with ``entries`` added to its (:objects ...), or a new section after
    (:domain ...); None when neither place can be found."""
    found = re.search(r"\(\s*:objects\b", problem, re.I)
    text = " ".join(entries)
    if found:
        end = closing_bracket(problem, found.start())
        if end is None:
            return None
        return problem[:end - 1].rstrip() + f" {text})" + problem[end:]
    domain = re.search(r"\(\s*:domain\s+[^\s()]+\s*\)", problem, re.I)
    if not domain:
        return None
    return problem[:domain.end()] + f"\n  (:objects {text})" + problem[domain.end():]

