"""What every LLM made while a job plays takes from the job: the cap on an answer's tokens and
the transcript every call is appended to (``pddlkit run --max-tokens N --transcript F``).

Why here and not in ``os.environ``: a job used to write ``PDDLKIT_MAX_TOKENS`` and
``PDDLKIT_TRANSCRIPT`` into the process's environment for its duration (issue 74: "the Job
owns the LLM ... nothing through os.environ"), so a library call made beside it, in the same
process, saw the job's settings, and an exception between the write and the restore could
leave them set. The job now holds its settings in :func:`call_settings`, a stack the LLMs
read when they are made (:class:`~pddlkit.llm.base.BaseLLM`); front ends make their LLMs deep
inside their own code, and every one of them reads this without being passed anything.

The settings are process-wide, not per thread (a :mod:`contextvars` value would not reach the
worker threads some front ends start). The two environment variables are still read, as a
user's own configuration, where no job says otherwise.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Optional, Union

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class CallSettings:
    """``max_tokens``: the most tokens any answer may have; ``transcript``: where every call
    is appended (JSONL). None: not set by the job."""

    max_tokens: Optional[int] = None
    transcript: Optional[PathLike] = None


_STACK: list[CallSettings] = []
_LOCK = threading.Lock()


@contextmanager
def call_settings(max_tokens: Optional[int] = None,
                  transcript: Optional[PathLike] = None) -> Iterator[CallSettings]:
    """While the block runs, every LLM made takes these settings (a nested block's win; a
    value it leaves None is the enclosing one's)."""
    if max_tokens is not None and max_tokens <= 0:
        raise ValueError(f"max_tokens must be a positive number of tokens, got {max_tokens}")
    outer = active()
    settings = CallSettings(max_tokens if max_tokens is not None else outer.max_tokens,
                            transcript if transcript is not None else outer.transcript)
    with _LOCK:
        _STACK.append(settings)
    try:
        yield settings
    finally:
        with _LOCK:
            if settings in _STACK:
                _STACK.remove(settings)


def active() -> CallSettings:
    """The innermost job's settings; with none, the user's ``PDDLKIT_MAX_TOKENS`` and
    ``PDDLKIT_TRANSCRIPT``."""
    with _LOCK:
        if _STACK:
            return _STACK[-1]
    cap = os.environ.get("PDDLKIT_MAX_TOKENS", "").strip()
    return CallSettings(int(cap) if cap.isdigit() and int(cap) > 0 else None,
                        os.environ.get("PDDLKIT_TRANSCRIPT") or None)
