"""How much a model can read: its context size, and a cheap estimate of a prompt's tokens.

Front ends whose prompt grows (a dialogue, a history) ask :func:`context_tokens` for the
model's context and :func:`estimate_tokens` for their prompt, and trim by their own documented
policy before the server refuses the request. The estimate is deliberately high (3 characters a
token, where English prose and PDDL average nearer 4), so a trimmed prompt fits.
"""

from __future__ import annotations

from typing import Any, Optional

CHARS_PER_TOKEN = 3.0


def estimate_tokens(text: str) -> int:
    """An upper estimate of ``text``'s tokens."""
    return int(len(text) / CHARS_PER_TOKEN) + 1


def context_tokens(llm: Any) -> Optional[int]:
    """The model's context in tokens when the backend knows it (``local:`` servers of known
    models do), else None: a remote API's limit is not known here."""
    value = getattr(llm, "context_tokens", None)
    return int(value) if value else None


def room(llm: Any, answer_tokens: int) -> Optional[int]:
    """Tokens a prompt may take so that ``answer_tokens`` still fit, or None if unknown."""
    total = context_tokens(llm)
    return None if total is None else max(256, total - answer_tokens)
