"""Read a program out of an LLM's answer, as :mod:`pddlkit.formalizers.answer` reads PDDL.

Accepted, in order: a fenced block labelled ``python`` (or ``py``) that defines the entry
function; any fenced block that defines it; the whole answer when it defines it. With several
candidates the last wins (models put the final version last). An answer with none raises
:class:`ProgramAnswerError`, whose ``problem`` goes back to the LLM in the next prompt.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"```([A-Za-z0-9_+-]*)[ \t]*\n(.*?)(?:```|\Z)", re.S)


class ProgramAnswerError(ValueError):
    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


_NUMBERED = re.compile(r"^ *\d+\| ?")


def numbered(code: str) -> str:
    """``code`` with its line numbers on the left (``13| else:``), as IPP's fix prompt shows
    it (issue 76), so an error's line number and the line are read together."""
    lines = code.split("\n")
    width = len(str(len(lines)))
    return "\n".join(f"{k:>{width}}| {line}" for k, line in enumerate(lines, 1))


def _unnumbered(body: str) -> str:
    """A block whose every non-blank line carries :func:`numbered`'s prefix, without it (a
    model echoing the numbered code it was shown); any other block as it is."""
    lines = body.split("\n")
    if any(line.strip() for line in lines) and all(
            _NUMBERED.match(line) for line in lines if line.strip()):
        return "\n".join(_NUMBERED.sub("", line, count=1) for line in lines)
    return body


def extract_program(text: str, entry: str = "solve") -> str:
    defines = re.compile(rf"^\s*def\s+{re.escape(entry)}\s*\(", re.M)
    blocks = [(m.group(1).lower(), _unnumbered(m.group(2)))
              for m in _FENCE.finditer(text or "")]
    for wanted in (("python", "py", "python3"), None):
        found = [body for label, body in blocks
                 if (wanted is None or label in wanted) and defines.search(body)]
        if found:
            return found[-1].strip() + "\n"
    if text and defines.search(text) and "```" not in text:
        return text.strip() + "\n"
    if not (text or "").strip():
        raise ProgramAnswerError("the answer is empty; answer with the whole program in one "
                                 "```python fenced block (an empty answer usually means the "
                                 "model's chat template ended the answer at once, as base "
                                 "models often do; an instruction-tuned model avoids it)")
    if blocks:
        raise ProgramAnswerError(f"none of the {len(blocks)} fenced block(s) defines "
                                 f"{entry}(...); define the function {entry} at the top level")
    raise ProgramAnswerError(f"the answer has no ```python fenced block defining {entry}(...)")
