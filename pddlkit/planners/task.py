"""A planning task as planners need it: the models, the PDDL text, and files on demand.

``pddlkit.plan`` accepts model objects, PDDL text or paths. A task keeps the original text when
there is one (so an external planner sees exactly what the user or the LLM wrote, and its line
numbers match), and writes the canonical form only for models built in code.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

from ..diagnostics import Diagnostic, PDDLSyntaxError
from ..pddl.model import Domain, Problem
from ..pddl.reader import Source, load_source, read_domain, read_problem
from ..pddl.writer import write_domain, write_problem

DomainInput = Union[Domain, Source]
ProblemInput = Union[Problem, Source]


@dataclass(frozen=True)
class TaskSource:
    """The task as text (and files, when it came from files), before pddlkit has read it: what
    a planner that starts early (see :class:`~pddlkit.planners.protocol.EarlyStart`) gets."""

    domain_text: str
    problem_text: str
    domain_path: Optional[str] = None
    problem_path: Optional[str] = None

    def files(self, workdir: str) -> tuple[str, str]:
        """Paths of a domain and a problem file, written into ``workdir`` when needed."""
        d = self.domain_path
        if d is None:
            d = os.path.join(workdir, "domain.pddl")
            Path(d).write_text(self.domain_text)
        p = self.problem_path
        if p is None:
            p = os.path.join(workdir, "problem.pddl")
            Path(p).write_text(self.problem_text)
        return d, p


@dataclass
class PlanningTask:
    domain: Domain
    problem: Problem
    domain_text: str
    problem_text: str
    domain_path: Optional[str] = None  # an existing file holding domain_text, if any
    problem_path: Optional[str] = None
    warnings: tuple[Diagnostic, ...] = ()

    @property
    def raw_key(self) -> str:
        """Hash of the text as given: the cheap cache key checked before parsing."""
        return raw_key(self.domain_text, self.problem_text)

    def canonical_key(self) -> str:
        """Hash of the canonical PDDL: the same for any formatting, comments or case."""
        h = hashlib.sha256()
        h.update(write_domain(self.domain).encode())
        h.update(b"\0")
        h.update(write_problem(self.problem).encode())
        return h.hexdigest()

    @property
    def source(self) -> TaskSource:
        return TaskSource(self.domain_text, self.problem_text, self.domain_path, self.problem_path)

    def files(self, workdir: str) -> tuple[str, str]:
        """Paths of a domain and a problem file, written into ``workdir`` when needed."""
        return self.source.files(workdir)


def raw_key(domain_text: str, problem_text: str) -> str:
    h = hashlib.sha256(domain_text.encode())
    h.update(b"\0")
    h.update(problem_text.encode())
    return h.hexdigest()


def source_text(source: Union[Domain, Problem, Source]) -> tuple[str, Optional[str]]:
    """(text, path-if-a-file) without parsing: what the raw cache key is computed from."""
    if isinstance(source, Domain):
        return source.source or write_domain(source), None
    if isinstance(source, Problem):
        return source.source or write_problem(source), None
    text, file = load_source(source)
    return text, (file if file and os.path.isfile(file) else None)


def load_task(domain: DomainInput, problem: ProblemInput) -> PlanningTask:
    """Read both inputs; raises PDDLSyntaxError listing every error of both files."""
    dtext, dpath = source_text(domain)
    ptext, ppath = source_text(problem)
    diags: list[Diagnostic] = []
    if isinstance(domain, Domain):
        dom = domain
    else:
        dom, dd = read_domain(dtext, dpath)
        diags.extend(dd)
    if isinstance(problem, Problem):
        prob = problem
    else:
        prob, pd = read_problem(ptext, ppath)
        diags.extend(pd)
    if dom is None or prob is None or any(d.is_error for d in diags):
        raise PDDLSyntaxError(diags, "cannot read the planning task")
    return PlanningTask(dom, prob, dtext, ptext, dpath, ppath,
                        tuple(d for d in diags if not d.is_error))
