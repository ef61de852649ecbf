"""Deterministic repair of trivial PDDL slips, before an LLM call is spent on them.

PDDLego+ feeds every solver error back to the LLM, and a third of the unresolved errors are
syntax and typing slips (METHODS.md). Some of them have one obvious fix that needs no
judgement, so pddlkit applies it in code and records it (the ``repair`` option; off by
default, which is the paper's behaviour):

* ``unclosed-paren`` at the end of a file: the missing closing parentheses are appended;
* ``undeclared-requirement``: the requirement the file's features need is added;
* ``negated-init-atom``: ``(not ...)`` in ``:init`` is removed (the closed-world assumption
  already makes the atom false);
* ``undeclared-type``: the type is declared (as a subtype of ``object``);
* ``domain-name-mismatch``: the problem's ``(:domain ...)`` is set to the domain's name.

Fixes are made on the text, where the diagnostic points, so the LLM's own file (comments,
layout) is kept and the next prompt shows it with only those edits. Anything else (an
undeclared predicate, a wrong effect) may be a real modelling mistake and goes to the LLM.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pddlkit.checks import check
from pddlkit.pddl.reader import read_domain, read_problem

from .answer import Files, closing_bracket

FIXABLE = ("unclosed-paren", "undeclared-requirement", "negated-init-atom", "undeclared-type",
           "domain-name-mismatch")
DOMAIN_FILE, PROBLEM_FILE = "domain.pddl", "problem.pddl"


@dataclass
class Repair:
    files: Files
    fixes: list[str] = field(default_factory=list)  # one line per edit, for the record


def repair(files: Files) -> Repair:
    """The files with every trivial slip fixed, and what was fixed (empty if nothing)."""
    fixes: list[str] = []
    domain = _close_parens(files.domain, DOMAIN_FILE, fixes)
    problem = _close_parens(files.problem, PROBLEM_FILE, fixes)
    for _ in range(3):  # a fix can reveal another (a new type section needs :typing)
        dom, _d = read_domain(domain, DOMAIN_FILE)
        prob, _p = read_problem(problem, PROBLEM_FILE)
        if dom is None:
            break
        report = check(dom, prob) if prob is not None else check(dom)
        edits = [d for d in report.diagnostics if d.code in FIXABLE]
        if prob is not None:
            edits += [d for d in _p if d.code == "negated-init-atom"]
        if not edits:
            break
        before = (domain, problem)
        domain, problem = _apply(edits, domain, problem, dom, fixes)
        if (domain, problem) == before:
            break
    return Repair(Files(domain, problem), fixes)


def _apply(diags, domain: str, problem: str, dom, fixes: list[str]) -> tuple[str, str]:
    requirements, types, spans = set(), set(), []
    for d in diags:
        if d.code == "undeclared-requirement":
            m = re.search(r"add (:[\w-]+)", d.hint or "")
            if m:
                requirements.add(m.group(1))
        elif d.code == "undeclared-type":
            m = re.search(r"type '([^']+)'", d.message)
            if m:
                types.add(m.group(1))
        elif d.code == "negated-init-atom" and d.file == PROBLEM_FILE and d.line:
            spans.append(_offset(problem, d.line, d.column))
        elif d.code == "domain-name-mismatch":
            new = re.sub(r"\(:domain\s+[^\s()]+\s*\)", f"(:domain {dom.name})", problem, count=1)
            if new != problem:
                fixes.append(f"problem: (:domain ...) set to {dom.name}")
                problem = new
    for start in sorted(set(spans), reverse=True):
        end = closing_bracket(problem, start)
        if end is not None:
            fixes.append(f"problem: removed {problem[start:end]} from :init (closed world)")
            problem = problem[:start] + problem[end:]
    if types:
        domain = _declare_types(domain, sorted(types), fixes)
        requirements.add(":typing")
    if requirements:
        domain = _add_requirements(domain, sorted(requirements), fixes)
    return domain, problem


def _close_parens(text: str, name: str, fixes: list[str]) -> str:
    depth = 0
    for line in text.split("\n"):
        line = line.split(";", 1)[0]
        depth += line.count("(") - line.count(")")
        if depth < 0:
            return text  # a stray ')' is not a trailing slip
    if depth > 0:
        fixes.append(f"{name}: appended {depth} missing ')' at the end")
        return text.rstrip() + ")" * depth + "\n"
    return text


def _offset(text: str, line: int, column: int) -> int:
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[:line - 1]) + max(0, column - 1)


def _section_end(text: str, head: str):
    m = re.search(r"\(\s*" + re.escape(head) + r"\b", text, re.I)
    if not m:
        return None
    end = closing_bracket(text, m.start())
    return None if end is None else end - 1


def _declare_types(domain: str, types: list[str], fixes: list[str]) -> str:
    end = _section_end(domain, ":types")
    if end is not None:
        domain = domain[:end] + " " + " ".join(types) + domain[end:]
    else:
        at = _section_end(domain, ":requirements")
        if at is None:
            at = _section_end(domain, "domain")
        at = (at + 1) if at is not None else 0
        domain = domain[:at] + f"\n  (:types {' '.join(types)})" + domain[at:]
    fixes.append(f"domain: declared type(s) {', '.join(types)}")
    return domain


def _add_requirements(domain: str, requirements: list[str], fixes: list[str]) -> str:
    end = _section_end(domain, ":requirements")
    if end is not None:
        present = set(re.findall(r":[\w-]+", domain[:end][domain.lower().find("(:requirements"):]))
        missing = [r for r in requirements if r not in present]
        if not missing:
            return domain
        domain = domain[:end] + " " + " ".join(missing) + domain[end:]
    else:
        missing = requirements
        at = _section_end(domain, "domain")
        at = (at + 1) if at is not None else 0
        domain = domain[:at] + f"\n  (:requirements {' '.join(missing)})" + domain[at:]
    fixes.append(f"domain: added {' '.join(missing)} to :requirements")
    return domain
