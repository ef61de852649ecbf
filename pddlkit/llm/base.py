"""What every LLM in pddlkit is: a request, a completion, and the wrapper that caches, counts
and records every call the same way whatever the backend.

Front ends call ``llm.complete(messages, ...)`` and never care whether the answer came from
OpenAI, a local server, a Hugging Face model on disk, a script or a recorded transcript. The
shared :class:`BaseLLM` is why a run is reproducible and its cost known: every call goes through
the response cache, the usage ledger and the transcript before a backend is asked.
"""

from __future__ import annotations

import abc
import os
import time
from typing import Any, Optional, Protocol, Sequence, Union, runtime_checkable

from .errors import BadAnswerError
from .extract import extract_json

from .messages import (RESPONSE_FORMATS, Completion, Message, Messages,  # noqa: F401
                       Request, normalize_messages)


@runtime_checkable
class LLM(Protocol):
    """The plug point: anything with ``model`` and ``complete`` works as pddlkit's LLM."""

    model: str

    def complete(self, messages: Messages, *, temperature: float = 0.0,
                 max_tokens: Optional[int] = None, stop: Union[str, Sequence[str], None] = None,
                 response_format: str = "text", seed: Optional[int] = None,
                 constraint: Any = None) -> Completion:
        ...


CacheSpec = Union[bool, str, os.PathLike, None, Any]


class BaseLLM(abc.ABC):
    """Cache, ledger and transcript around a backend's :meth:`_generate`.

    ``cache``: True (the default file, ``$PDDLKIT_CACHE_DIR/llm-cache.sqlite``), a path, a
    :class:`~pddlkit.llm.cache.ResponseCache`, or False; ``PDDLKIT_NO_CACHE=1`` turns it off.
    ``ledger``: a :class:`~pddlkit.llm.usage.UsageLedger` (default: the process-wide one).
    ``transcript``: a path or :class:`~pddlkit.llm.transcript.Transcript` (default: the
    job's, ``pddlkit run --transcript``, else ``$PDDLKIT_TRANSCRIPT`` if set), where every call
    is appended as one JSON line. ``max_tokens_cap``: the most tokens any answer may have,
    whatever a front end asks (the job's ``--max-tokens``, else ``$PDDLKIT_MAX_TOKENS`` if
    set: :mod:`~pddlkit.llm.call_settings`, so the cap holds for every agent without each
    one passing it down).
    """

    model: str = ""
    #: the model's context in tokens when known (``local:`` servers set it), for front ends
    #: that trim growing prompts (:mod:`pddlkit.llm.context`)
    context_tokens: Optional[int] = None
    #: backends whose answers are free and deterministic (scripts, replays) default to no cache
    default_cache: bool = True

    def __init__(self, cache: CacheSpec = None, ledger=None, transcript=None) -> None:
        from .cache import resolve_cache
        from .call_settings import active
        from .transcript import resolve_transcript
        from .usage import DEFAULT_LEDGER

        self.cache = resolve_cache(self.default_cache if cache is None else cache)
        self.ledger = DEFAULT_LEDGER if ledger is None else ledger
        self.transcript = resolve_transcript(transcript)
        self.max_tokens_cap: Optional[int] = active().max_tokens

    @property
    def cache_model(self) -> str:
        """The model's identity in cache keys (OpenAIChat adds the server for non-OpenAI URLs)."""
        return self.model

    def complete(self, messages: Messages, *, temperature: float = 0.0,
                 max_tokens: Optional[int] = None, stop: Union[str, Sequence[str], None] = None,
                 response_format: str = "text", seed: Optional[int] = None,
                 constraint: Any = None) -> Completion:
        """Answer ``messages``. With ``response_format="json"`` the answer's JSON is parsed into
        ``Completion.data``; an answer with no usable JSON raises :class:`BadAnswerError`
        (recorded and counted, but not cached, so a retry asks the model again).

        ``constraint`` (a :class:`~.grammar.Grammar` or :class:`~.grammar.JsonSchema`) is
        carried to the backend in its own form where it has one (:meth:`constraint_support`);
        elsewhere the request goes unconstrained. ``Completion.constraint_mode`` says which,
        and the constraint is part of the cache key."""
        cap = getattr(self, "max_tokens_cap", None)
        if cap is not None and (max_tokens is None or max_tokens > cap):
            max_tokens = cap
        request = Request.build(messages, temperature, max_tokens, stop, response_format, seed,
                                constraint)
        key = request.key(self.cache_model)
        completion = self.cache.get(key) if self.cache is not None else None
        if completion is None:
            start = time.monotonic()
            completion = self._generate(request)
            if request.constraint is not None and not completion.constraint_mode:
                completion.constraint_mode = "unconstrained: " + self.constraint_support(
                    request.constraint)[1]
            if not completion.latency_s:
                completion.latency_s = time.monotonic() - start
            completion.model = completion.model or self.model
            problem = None
            if request.response_format == "json":
                try:
                    completion.data = extract_json(completion.text)
                except BadAnswerError as exc:
                    problem = exc
            self._record(request, completion)
            if problem is not None:
                raise problem
            if self.cache is not None:
                self.cache.put(key, self.cache_model, request, completion)
        else:
            if request.response_format == "json":
                completion.data = extract_json(completion.text)
            self._record(request, completion)
        return completion

    def constraint_support(self, constraint: Any) -> tuple[Optional[str], str]:
        """(the mode this backend would use for ``constraint``, or None; why not when None).
        Backends that can decode under a constraint override this."""
        return None, f"{type(self).__name__} decodes without constraints"

    def _record(self, request: Request, completion: Completion) -> None:
        self.ledger.record(completion)
        if self.transcript is not None:
            self.transcript.write(request, completion)

    @abc.abstractmethod
    def _generate(self, request: Request) -> Completion:
        """Ask the backend; subclasses implement only this."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r})"


def estimate_tokens(text: str) -> int:
    """A rough count (about 4 characters a token) for backends that cannot tokenize."""
    return max(1, (len(text) + 3) // 4) if text else 0
