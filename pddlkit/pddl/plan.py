"""Plans in the usual plan-file format.

One ground action per line, ``(move a b)``; ``;`` starts a comment (Fast Downward writes
``; cost = 12 (unit cost)`` last). Also accepted, since planners differ: a leading step number
``0: (move a b)`` and a trailing duration ``[1]``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Union

from ..diagnostics import DiagnosticSink, PlanFormatError
from .reader import looks_like_path

_STEP = re.compile(r"^\s*(?:\d+(?:\.\d+)?\s*:\s*)?\(\s*([^()]*?)\s*\)\s*(?:\[[^\]]*\])?\s*$")
_COST = re.compile(r";\s*cost\s*=\s*([-\d.]+)")


@dataclass(frozen=True)
class PlanStep:
    name: str
    args: tuple[str, ...] = ()
    line: int = field(default=0, compare=False)

    def __str__(self) -> str:
        return "(" + " ".join((self.name, *self.args)) + ")"


@dataclass(frozen=True)
class Plan:
    steps: tuple[PlanStep, ...]
    cost: Optional[float] = field(default=None, compare=False)
    file: Optional[str] = field(default=None, compare=False)

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self):
        return iter(self.steps)

    def without(self, index: int) -> "Plan":
        return Plan(self.steps[:index] + self.steps[index + 1:], None, self.file)

    def to_text(self) -> str:
        return "\n".join(str(s) for s in self.steps) + "\n"


def parse_plan(source: Union[str, Path, list], file: Optional[str] = None) -> Plan:
    """A plan from plan-file text, a path, or a list of '(action args)' strings."""
    if isinstance(source, (list, tuple)):
        text = "\n".join(str(s) for s in source)
    elif isinstance(source, Path) or (isinstance(source, str) and looks_like_path(source)):
        file = file or str(source)
        try:
            text = Path(source).read_text(errors="replace")
        except OSError as exc:
            sink = DiagnosticSink("", file)
            sink.add("file-not-found", f"cannot read {file}: {exc.strerror or exc}",
                     hint="check the path of the plan file")
            raise PlanFormatError(sink.items, f"cannot read plan {file}") from None
    else:
        text = source
    sink = DiagnosticSink(text, file)
    steps: list[PlanStep] = []
    cost: Optional[float] = None
    for lineno, raw in enumerate(text.split("\n"), start=1):
        m = _COST.search(raw)
        if m:
            try:
                cost = float(m.group(1))
            except ValueError:
                pass
        line = raw.split(";", 1)[0].strip()
        if not line:
            continue
        m = _STEP.match(line)
        if not m or not m.group(1):
            sink.add("bad-plan-step", f"cannot read plan step '{line}'", line=lineno, column=1,
                     hint="write one ground action per line, e.g. (move truck1 depot market)")
            continue
        words = m.group(1).lower().split()
        steps.append(PlanStep(words[0], tuple(words[1:]), lineno))
    if sink.has_errors:
        raise PlanFormatError(sink.items, f"cannot read plan {file or '<string>'}")
    return Plan(tuple(steps), cost, file)
