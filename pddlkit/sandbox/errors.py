"""What goes wrong with a generated program, as data.

A :class:`ProgramError` is what an LLM (or a person) reads to fix the program: the kind, the
message, and the line of the *program's own text* with the offending source line, never the
sandbox's frames. It is returned, not raised, by the sandbox's calls (``ProgramError`` is also
an exception, for callers that prefer ``raise result.error``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import Enum
from typing import Optional


class ErrorKind(str, Enum):
    SYNTAX = "syntax"                        # the program does not compile
    FORBIDDEN_IMPORT = "forbidden-import"    # a module outside the policy
    FORBIDDEN_OPERATION = "forbidden-operation"  # files, processes, sockets, native code
    TIMEOUT = "timeout"                      # wall clock or CPU time per call
    MEMORY = "memory"                        # the address-space limit
    CRASH = "crash"                          # an exception, or the worker process died
    BAD_RETURN = "bad-return"                # no entry function, or a value that is not JSON
    OUTPUT = "output"                        # more printed output than the cap (kept, cut)


HINTS = {
    ErrorKind.SYNTAX: "fix the syntax at this line",
    ErrorKind.FORBIDDEN_IMPORT: "use only the modules the task allows",
    ErrorKind.FORBIDDEN_OPERATION: "compute the answer in memory: no files, processes, "
                                   "network or native code",
    ErrorKind.TIMEOUT: "make the program faster (an endless loop? a search without a bound?)",
    ErrorKind.MEMORY: "use less memory (a list that grows without end?)",
    ErrorKind.CRASH: "fix the exception at this line",
    ErrorKind.BAD_RETURN: "return a JSON value (lists, dicts, strings, numbers, booleans, None)",
    ErrorKind.OUTPUT: "print less",
}


@dataclass(frozen=True)
class ProgramError(Exception):
    kind: ErrorKind
    message: str
    line: int = 0                       # 1-based line in the program's text; 0 if none
    source_line: Optional[str] = None   # that line of the program
    exception: Optional[str] = None     # the exception's type name, when one was raised
    advice: Optional[str] = None        # a hint for this case, instead of the kind's

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", ErrorKind(self.kind))

    def __reduce__(self):
        # the fields as arguments: the default pickling sets attributes one by one, which a
        # frozen dataclass refuses
        return type(self), (self.kind, self.message, self.line, self.source_line,
                            self.exception, self.advice)

    @property
    def hint(self) -> str:
        if self.advice:
            return self.advice
        if self.kind is ErrorKind.CRASH and not self.line:
            return "fix the exception"
        return HINTS[self.kind]

    def format(self) -> str:
        """One paragraph an LLM can act on: kind, message, line and its source."""
        where = f" at line {self.line}" if self.line else ""
        out = f"{self.kind.value}{where}: {self.message}"
        if self.source_line:
            out += f"\n    {self.source_line.strip()}"
        return out + f"\n    hint: {self.hint}"

    def __str__(self) -> str:
        return self.format()

    def to_dict(self) -> dict:
        data = asdict(self)
        data["kind"] = self.kind.value
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "ProgramError":
        return cls(ErrorKind(data["kind"]), data.get("message", ""), int(data.get("line") or 0),
                   data.get("source_line"), data.get("exception"), data.get("advice"))
