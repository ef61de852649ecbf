"""How much a model can read: its context size, and a cheap estimate of a prompt's tokens.

Front ends whose prompt grows (a dialogue, a history) ask :func:`context_tokens` for the
model's context and :func:`estimate_tokens` for their prompt, and trim by their own documented
policy before the server refuses the request. The estimate is deliberately high (3 characters a
token, where English prose and PDDL average nearer 4), so a trimmed prompt fits.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, TypeVar

T = TypeVar("T")

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


def fit_by_dropping(render: Callable[[Sequence[T], int], str], items: Sequence[T],
                    budget: Optional[int], *, keep_first: int = 0, keep_last: int = 1
                    ) -> tuple[str, int]:
    """The prompt ``render(kept, dropped)`` within ``budget`` tokens, and how many items were
    dropped to get there.

    Items go oldest first, after the first ``keep_first`` (an opening that frames the rest),
    and never the last ``keep_last`` (the newest, which the question is about). ``render`` is
    told how many were dropped so the prompt can say so: a model must not take a trimmed
    history for the whole one. When even the fewest items do not fit, that prompt is returned
    and the server's refusal is the error the caller reports."""
    items = list(items)
    prompt = render(items, 0)
    if budget is None or estimate_tokens(prompt) <= budget:
        return prompt, 0
    droppable = max(0, len(items) - keep_first - keep_last)
    dropped = 0
    while dropped < droppable and estimate_tokens(prompt) > budget:
        dropped += 1
        prompt = render(items[:keep_first] + items[keep_first + dropped:], dropped)
    return prompt, dropped
