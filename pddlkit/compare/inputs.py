"""Reading what is compared: a parsed model, PDDL text or a path, and which of the two it is.

A file that cannot be read is a :class:`CompareInputError` (a :class:`~pddlkit.diagnostics.
PDDLError`) that says which input it was (the reference, the candidate or the domain) and
carries the reader's diagnostics, each with its place and a hint: a comparison of something
unreadable has no meaning, and the caller (``pddlkit compare`` exits 2) must say so, not guess.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional, Sequence, Union

from ..diagnostics import Diagnostic, PDDLError, Severity
from ..pddl.model import Domain, Problem
from ..pddl.reader import Source, load_source, read_domain, read_problem

DomainLike = Union[Domain, Source]
ProblemLike = Union[Problem, Source]


class CompareInputError(PDDLError):
    """An input of a comparison could not be read; ``role`` names it (``reference``,
    ``candidate`` or ``domain``)."""

    def __init__(self, diagnostics: Sequence[Diagnostic], summary: Optional[str] = None,
                 role: str = "input"):
        super().__init__(diagnostics, summary)
        self.role = role

    def __reduce__(self):
        return type(self), (self.diagnostics, self.summary, self.role), self.__dict__


def _refuse(role: str, what: str, source: object) -> CompareInputError:
    diag = Diagnostic("unreadable-input", Severity.ERROR,
                      f"the {role} is {type(source).__name__}, not PDDL text, a path or a "
                      f"parsed {what}",
                      hint=f"pass the {what}'s PDDL text, a pathlib.Path to its .pddl file, "
                           f"or a parsed {what.capitalize()}")
    return CompareInputError([diag], f"the {role} cannot be read", role)


def _load(source, role: str, what: str, model_type: type, read):
    """``source`` as a ``model_type`` (read by ``read`` from text or a path), or
    :class:`CompareInputError` naming ``role``."""
    if isinstance(source, model_type):
        return source
    if not isinstance(source, (str, Path)):
        raise _refuse(role, what, source)
    try:
        model, diags = read(source)
    except PDDLError as exc:
        raise CompareInputError(exc.diagnostics, f"the {role} cannot be read", role) from None
    if model is None or any(d.is_error for d in diags):
        raise CompareInputError(diags, f"the {role} {what} has syntax errors", role)
    return model


def load_domain(source: DomainLike, role: str = "domain") -> Domain:
    """``source`` as a Domain, or :class:`CompareInputError` naming ``role``."""
    return _load(source, role, "domain", Domain, read_domain)


def load_problem(source: ProblemLike, role: str = "problem") -> Problem:
    """``source`` as a Problem, or :class:`CompareInputError` naming ``role``."""
    return _load(source, role, "problem", Problem, read_problem)


_DEFINE = re.compile(r"\(\s*define\s*\(\s*(domain|problem)\b", re.IGNORECASE)


def detect_kind(source: Union[Domain, Problem, Source], role: str = "input") -> str:
    """``"domain"`` or ``"problem"``: what ``(define (...`` the text starts with (comments
    skipped). Raises :class:`CompareInputError` when it is neither or cannot be read."""
    if isinstance(source, Domain):
        return "domain"
    if isinstance(source, Problem):
        return "problem"
    if not isinstance(source, (str, Path)):
        raise _refuse(role, "domain or problem", source)
    try:
        text, file = load_source(source)
    except PDDLError as exc:
        raise CompareInputError(exc.diagnostics, f"the {role} cannot be read", role) from None
    stripped = re.sub(r";[^\n]*", "", text)
    found = _DEFINE.search(stripped)
    if found is None:
        diag = Diagnostic("not-a-domain-or-problem", Severity.ERROR,
                          f"the {role} is neither a PDDL domain nor a problem: no "
                          "'(define (domain ...' or '(define (problem ...' in it",
                          file=file, line=1 if text else 0,
                          source_line=text.split("\n", 1)[0] if text else None,
                          hint="give a .pddl file that starts with (define (domain NAME) or "
                               "(define (problem NAME)")
        raise CompareInputError([diag], f"the {role} is not PDDL", role)
    return found.group(1).lower()
