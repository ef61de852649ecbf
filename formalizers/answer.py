"""Read a formalizer's answer: the domain file and the problem file, however the LLM wrote them.

Accepted, in order: the paper's JSON ``{"df": ..., "pf": ...}`` (bare, fenced or tagged, with
the repairs of :func:`pddlkit.llm.extract_json`); fenced code blocks holding ``(define ...)``;
bare ``(define (domain ...))`` / ``(define (problem ...))`` blocks anywhere in the text. An
answer with neither raises :class:`AnswerError`, whose ``problem`` is fed back to the LLM as a
solver-level error (the paper's loop counts it the same way).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pddlkit.llm.errors import BadAnswerError
from pddlkit.llm.extract import extract_json


class AnswerError(ValueError):
    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


@dataclass(frozen=True)
class Files:
    domain: str
    problem: str


def parse_answer(text: str) -> Files:
    if not text.strip():
        raise AnswerError('the answer is empty: answer with the JSON {"df": "...", "pf": "..."} '
                          "(an empty answer usually means the model's chat template ended the "
                          "answer at once, as base models often do; an instruction-tuned "
                          "model avoids it)")
    found_json = None
    try:
        data = extract_json(text)
        if isinstance(data, dict):
            found_json = data
    except BadAnswerError:
        pass
    if found_json is not None:
        df = found_json.get("df") or found_json.get("domain")
        pf = found_json.get("pf") or found_json.get("problem")
        if isinstance(df, str) and isinstance(pf, str) and df.strip() and pf.strip():
            return Files(df.strip(), pf.strip())
    blocks = _define_blocks(text)
    df = next((b for b in blocks if re.match(r"\(\s*define\s*\(\s*domain\b", b, re.I)), None)
    pf = next((b for b in blocks if re.match(r"\(\s*define\s*\(\s*problem\b", b, re.I)), None)
    if df and pf:
        return Files(df, pf)
    missing = " and ".join(n for n, v in (("the domain file", df), ("the problem file", pf))
                           if not v)
    if found_json is not None:
        raise AnswerError(f'the JSON answer needs string fields "df" and "pf"; {missing} '
                          f"is missing (keys given: {', '.join(map(str, found_json)) or 'none'})")
    raise AnswerError(f"the answer has no JSON {{\"df\": ..., \"pf\": ...}} and {missing} could "
                      "not be found as a (define ...) block")


def parse_problem_answer(text: str) -> str:
    """The problem file alone (the domain is fixed): ``{"pf": ...}`` or a ``(define (problem
    ...))`` block; :class:`AnswerError` otherwise."""
    if not text.strip():
        raise AnswerError('the answer is empty: answer with the JSON {"pf": "..."}')
    try:
        data = extract_json(text)
    except BadAnswerError:
        data = None
    if isinstance(data, dict):
        pf = data.get("pf") or data.get("problem")
        if isinstance(pf, str) and pf.strip():
            return pf.strip()
    pf = next((b for b in _define_blocks(text)
               if re.match(r"\(\s*define\s*\(\s*problem\b", b, re.I)), None)
    if pf:
        return pf
    raise AnswerError('the answer has no JSON {"pf": ...} and no (define (problem ...)) block: '
                      "write only the problem file")


def _define_blocks(text: str) -> list[str]:
    """Every balanced '(define ...)' expression in the text, comments skipped."""
    out = []
    blank = re.sub(r";[^\n]*", lambda m: " " * len(m.group()), text)  # same positions
    for m in re.finditer(r"\(\s*define\b", blank, re.I):
        end = closing_bracket(blank, m.start())
        if end is not None:
            out.append(text[m.start():end])
    return out


def closing_bracket(text: str, start: int) -> Optional[int]:
    """The end (exclusive) of the parenthesised expression opening at ``start``, skipping
    ``;`` comments; None when it never closes. The formalizers' one bracket matcher (issue
    74: there were two, one of which counted brackets inside comments)."""
    depth = 0
    i = start
    while i < len(text):
        ch = text[i]
        if ch == ";":
            nl = text.find("\n", i)
            i = len(text) if nl < 0 else nl
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None
