"""Errors as data.

Every problem pddlkit finds in PDDL (or in a plan) is a :class:`Diagnostic`: a code, a
severity, a message, where it is (file, line, column, the offending line with a caret) and a
hint that says how to fix it. The hint is written for whoever repairs the file next, which in
pddlkit is often an LLM: it names the construct and the concrete edit.

Functions that cannot return a result raise one :class:`PDDLError` carrying *all* the
diagnostics found, never a lark or Python traceback. The hierarchy follows tarski's
(one base class, one subclass per stage) so callers can catch as narrowly as they like.

Bounded output (issue 43: 50 MB of junk on one line printed 210 MB, each diagnostic repeating
the whole line). A diagnostic keeps and shows at most :data:`SOURCE_WINDOW` (120) characters of
its line, centred on the caret, with ``...`` where the line was cut (``source_line`` is then
that excerpt and ``source_column`` the caret's column in it); its message and hint are cut in
the middle to at most :data:`MAX_TEXT` (400) characters, because a message may quote a token
and a junk token can be megabytes long. Characters a terminal would not show are escaped
after the cut, so one shown character may take up to ten (``\\U000e0001``). Text listing many
diagnostics shows the first :data:`MAX_SHOWN` (20) and then ``and N more diagnostics``: the
first are the causes, the rest mostly their echoes, and a person or an LLM reads the head.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Iterable, Sequence

#: the most characters of a source line a diagnostic keeps and shows, "..." marks included
SOURCE_WINDOW = 120
#: the most characters of a message or a hint (a message may quote a megabyte-long token)
MAX_TEXT = 400
#: the most diagnostics a text listing shows before "and N more diagnostics"
MAX_SHOWN = 20


class Severity(str, Enum):
    """How bad a diagnostic is. Only ERROR makes a file unusable."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Diagnostic:
    """One problem found in a PDDL file or plan, with enough context to fix it.

    ``line`` and ``column`` are 1-based; 0 means "no position" (for example a problem that
    concerns a whole file). ``source_line`` is the text of that line, so the diagnostic can be
    shown with a caret without the file at hand; a line longer than :data:`SOURCE_WINDOW` is
    kept as the excerpt around the column (:func:`excerpt`), and ``source_column`` is then the
    caret's 1-based column in that excerpt (0: ``source_line`` is the whole line).
    """

    code: str
    severity: Severity
    message: str
    file: str | None = None
    line: int = 0
    column: int = 0
    source_line: str | None = None
    hint: str | None = None
    expected: tuple[str, ...] = ()
    source_column: int = 0

    def __post_init__(self) -> None:
        # cut here, where every diagnostic is made, so none holds or prints a megabyte line
        if self.source_line is not None and len(self.source_line) > SOURCE_WINDOW:
            at = (self.source_column or self.column or 1) - 1
            text, at = excerpt(self.source_line, at)
            object.__setattr__(self, "source_line", text)
            object.__setattr__(self, "source_column", at + 1)
        if len(self.message) > MAX_TEXT:
            object.__setattr__(self, "message", clip(self.message))
        if self.hint is not None and len(self.hint) > MAX_TEXT:
            object.__setattr__(self, "hint", clip(self.hint))

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def location(self) -> str:
        where = self.file or "<string>"
        if self.line:
            where += f":{self.line}"
            if self.column:
                where += f":{self.column}"
        return where

    def caret(self) -> str:
        """The offending line with a caret under the column, or '' when unknown. Characters
        that a terminal would not show as themselves (control bytes, undecodable input) are
        escaped, and the caret still points at the same character."""
        if not self.source_line or not self.line:
            return ""
        raw = self.source_line.rstrip("\n").replace("\t", " ")
        raw, before = excerpt(raw, max((self.source_column or self.column) - 1, 0))
        pad = " " * len(printable(raw[:before]))
        return f"    {printable(raw)}\n    {pad}^"

    def format(self) -> str:
        out = (f"{printable(self.location())}: {self.severity.value}[{self.code}]: "
               f"{clip(printable(self.message))}")
        caret = self.caret()
        if caret:
            out += "\n" + caret
        if self.hint:
            out += f"\n    hint: {clip(printable(self.hint))}"
        return out

    def __str__(self) -> str:  # pragma: no cover - convenience
        return self.format()

    def to_dict(self) -> dict:
        data = asdict(self)
        data["severity"] = self.severity.value
        data["expected"] = list(self.expected)
        return data


def printable(text: str) -> str:
    """``text`` with what a terminal would not show as itself escaped (``\\x1b``, ``\\ufffd``
    for bytes that were not UTF-8), so binary garbage in a file cannot garble or drive the
    terminal that shows a diagnostic."""
    if text.isprintable() and "\ufffd" not in text:
        return text
    return "".join(c if c.isprintable() and c != "\ufffd" else ascii(c)[1:-1] for c in text)


def excerpt(line: str, index: int, width: int = SOURCE_WINDOW) -> tuple[str, int]:
    """At most ``width`` characters of ``line`` around 0-based ``index``, with "..." where it
    was cut, and where ``index`` falls in them: the caret stays on the same character, and a
    megabyte line costs a diagnostic no more than a short one."""
    n = len(line)
    if n <= width:
        return line, index
    index = min(max(index, 0), n)
    start = max(0, min(index - width // 2, n - width))
    end = start + width
    head, tail = start > 0, end < n
    start += 3 if head else 0
    end -= 3 if tail else 0
    text = ("..." if head else "") + line[start:end] + ("..." if tail else "")
    return text, index - start + (3 if head else 0)


def clip(text: str, width: int = MAX_TEXT) -> str:
    """``text`` cut in the middle to at most ``width`` characters: a message that quotes a
    junk token keeps its start and its end, which say what is wrong."""
    if len(text) <= width:
        return text
    tail = width // 3
    return text[:width - tail - 5] + " ... " + text[-tail:]


def errors(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.severity is Severity.ERROR]


def format_diagnostics(diagnostics: Sequence[Diagnostic], limit: int | None = None, *,
                       hidden: int = 0, hidden_errors: int = 0) -> str:
    """The diagnostics as text, the first ``limit`` of them (all when None) and then one line
    counting the rest; ``hidden`` (``hidden_errors`` of them errors) are more that were
    already left out before, so the count covers them too."""
    shown = list(diagnostics if limit is None else diagnostics[:limit])
    rest = diagnostics[len(shown):]
    more = len(rest) + hidden
    lines = [d.format() for d in shown]
    if more:
        n_err = sum(d.is_error for d in rest) + hidden_errors
        lines.append(f"and {more} more diagnostics ({n_err} errors) not shown: fix the first "
                     "ones, most of the rest usually follow from them")
    return "\n".join(lines)


def diagnostics_to_json(diagnostics: Sequence[Diagnostic]) -> str:
    return json.dumps([d.to_dict() for d in diagnostics], indent=2)


@dataclass
class DiagnosticSink:
    """Collects diagnostics for one source text and fills in file, line text and column.

    With a ``limit``, adding one more than that many raises :class:`TooManyDiagnostics`:
    the reader sets one, because input with that many errors is junk and reading every word
    of 50 MB of it would only cost minutes and gigabytes."""

    text: str
    file: str | None = None
    items: list[Diagnostic] = field(default_factory=list)
    _lines: list[str] | None = None
    limit: int | None = None

    def line_text(self, line: int) -> str | None:
        if self._lines is None:
            self._lines = self.text.split("\n")
        if 1 <= line <= len(self._lines):
            return self._lines[line - 1]
        return None

    def add(
        self,
        code: str,
        message: str,
        *,
        line: int = 0,
        column: int = 0,
        hint: str | None = None,
        severity: Severity = Severity.ERROR,
        expected: Sequence[str] = (),
    ) -> Diagnostic:
        if self.limit is not None and len(self.items) >= self.limit:
            raise TooManyDiagnostics(f"more than {self.limit} diagnostics")
        diag = Diagnostic(
            code=code,
            severity=severity,
            message=message,
            file=self.file,
            line=line,
            column=column,
            source_line=self.line_text(line) if line else None,
            hint=hint,
            expected=tuple(expected),
        )
        self.items.append(diag)
        return diag

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.items)


class TooManyDiagnostics(Exception):
    """A :class:`DiagnosticSink` with a ``limit`` is full; whoever set the limit stops."""


class PDDLError(Exception):
    """Raised when PDDL cannot be used; carries every diagnostic found, errors first."""

    def __init__(self, diagnostics: Sequence[Diagnostic], summary: str | None = None):
        ordered = sorted(diagnostics, key=lambda d: (d.severity is not Severity.ERROR,))
        self.diagnostics: list[Diagnostic] = list(ordered)
        n_err = len(errors(self.diagnostics))
        head = summary or f"{n_err} error(s) in PDDL"
        super().__init__(head + "\n" + format_diagnostics(self.diagnostics, MAX_SHOWN))
        self.summary = head

    def __reduce__(self):
        # rebuilt from its own arguments, so it pickles (a worker process may raise it)
        return type(self), (self.diagnostics, self.summary), self.__dict__

    @property
    def errors(self) -> list[Diagnostic]:
        return errors(self.diagnostics)


class PDDLSyntaxError(PDDLError):
    """The text is not well-formed PDDL (parentheses, sections, formula shapes)."""


class PDDLSemanticError(PDDLError):
    """Well-formed PDDL that is inconsistent: undeclared names, arity or type mismatches."""


class PlanFormatError(PDDLError):
    """A plan file that cannot be read, or names actions or objects that do not exist."""
