"""Find the JSON in an LLM's answer, or say precisely why there is none.

Models wrap JSON in prose, Markdown fences or XML-style tags, cut it off at ``max_tokens``, or
write Python literals. The search order: the whole answer; fenced blocks (those labelled json
first); tagged blocks (``<json>``, ``<answer>``, any tag); then the first balanced object or
array. Small repairs are tried on each candidate (trailing commas, Python's True/False/None and
single quotes). The error names the first real problem: no JSON at all, an object that is never
closed (cut off), or the parser's message with the line and column inside the answer.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any, Iterator, Optional

from .errors import BadAnswerError

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.S)
_TAG = re.compile(r"<([A-Za-z][\w-]*)[^>]*>(.*?)</\1\s*>", re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def extract_json(text: str) -> Any:
    """The first JSON object or array in ``text``; raises :class:`BadAnswerError` if none."""
    first_error: Optional[str] = None
    for candidate, offset in _candidates(text):
        value, error = _parse(candidate)
        if error is None:
            return value
        if first_error is None and error:
            first_error = _where(text, offset, error)
    stripped = text.strip()
    if not stripped:
        raise BadAnswerError("the answer is empty", text)
    start = _first_open(text)
    if start is None:
        raise BadAnswerError("it contains no JSON object (no '{' or '[' anywhere)", text)
    if _balanced_end(text, start) is None:
        line, col = _line_col(text, start)
        raise BadAnswerError(
            f"the JSON starting at line {line}, column {col} is never closed: the answer was "
            "probably cut off (raise max_tokens) or has unbalanced brackets", text)
    raise BadAnswerError(first_error or "no part of it parses as JSON", text)


def _candidates(text: str) -> Iterator[tuple[str, int]]:
    yield text.strip(), len(text) - len(text.lstrip())
    fences = list(_FENCE.finditer(text))
    for m in sorted(fences, key=lambda m: m.group(1).lower() != "json"):
        yield m.group(2).strip(), m.start(2)
    for m in _TAG.finditer(text):
        yield m.group(2).strip(), m.start(2)
    pos = 0
    while True:
        start = _first_open(text, pos)
        if start is None:
            return
        end = _balanced_end(text, start)
        if end is None:
            return
        yield text[start:end], start
        pos = start + 1


def _parse(candidate: str) -> tuple[Any, Optional[str]]:
    if not candidate or candidate[0] not in "{[":
        return None, ""  # prose, not a candidate worth reporting
    try:
        return json.loads(candidate), None
    except json.JSONDecodeError as exc:
        error = exc
    repaired = _TRAILING_COMMA.sub(r"\1", candidate)
    if repaired != candidate:
        try:
            return json.loads(repaired), None
        except json.JSONDecodeError:
            pass
    try:  # Python literals: {'a': True, 'b': None}
        value = ast.literal_eval(repaired)
        if isinstance(value, (dict, list)):
            return json.loads(json.dumps(value)), None
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    return None, f"{error.msg} (at character {error.pos})"


def _where(text: str, offset: int, error: str) -> str:
    m = re.search(r"\(at character (\d+)\)$", error)
    if not m:
        return error
    line, col = _line_col(text, offset + int(m.group(1)))
    return error[:m.start()] + f"at line {line}, column {col} of the answer"


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _first_open(text: str, pos: int = 0) -> Optional[int]:
    hits = [i for i in (text.find("{", pos), text.find("[", pos)) if i >= 0]
    return min(hits) if hits else None


def _balanced_end(text: str, start: int) -> Optional[int]:
    """End (exclusive) of the bracketed value at ``start``, skipping strings; None if open."""
    depth = 0
    in_string: Optional[str] = None
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == in_string:
                in_string = None
        elif ch == '"':  # single quotes are left alone: apostrophes are far more common
            in_string = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return None
