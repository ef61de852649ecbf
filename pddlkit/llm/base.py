"""What every LLM in pddlkit is: a request, a completion, and the wrapper that caches, counts
and records every call the same way whatever the backend.

Front ends call ``llm.complete(messages, ...)`` and never care whether the answer came from
OpenAI, a local server, a Hugging Face model on disk, a script or a recorded transcript. The
shared :class:`BaseLLM` is why a run is reproducible and its cost known: every call goes through
the response cache, the usage ledger and the transcript before a backend is asked.
"""

from __future__ import annotations

import abc
import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any, Optional, Protocol, Sequence, Union, runtime_checkable

from .errors import BadAnswerError
from .extract import extract_json

Message = dict  # {"role": "system" | "user" | "assistant", "content": str}
Messages = Union[str, Sequence[Message]]
RESPONSE_FORMATS = ("text", "json")


@dataclass(frozen=True)
class Request:
    """One call's input: what the cache key, the transcript and replay are made of."""

    messages: tuple[tuple[str, str], ...]
    temperature: float = 0.0
    max_tokens: Optional[int] = None
    stop: tuple[str, ...] = ()
    response_format: str = "text"
    seed: Optional[int] = None

    @classmethod
    def build(cls, messages: Messages, temperature: float = 0.0, max_tokens: Optional[int] = None,
              stop: Union[str, Sequence[str], None] = None, response_format: str = "text",
              seed: Optional[int] = None) -> "Request":
        if response_format not in RESPONSE_FORMATS:
            raise ValueError(f"response_format must be one of {RESPONSE_FORMATS}, "
                             f"not {response_format!r}")
        return cls(normalize_messages(messages), float(temperature), max_tokens,
                   (stop,) if isinstance(stop, str) else tuple(stop or ()), response_format, seed)

    @property
    def message_dicts(self) -> list[dict]:
        return [{"role": r, "content": c} for r, c in self.messages]

    def to_dict(self) -> dict:
        return {"messages": self.message_dicts, "temperature": self.temperature,
                "max_tokens": self.max_tokens, "stop": list(self.stop),
                "response_format": self.response_format, "seed": self.seed}

    @classmethod
    def from_dict(cls, data: dict) -> "Request":
        return cls.build(data["messages"], data.get("temperature", 0.0), data.get("max_tokens"),
                         data.get("stop"), data.get("response_format", "text"), data.get("seed"))

    def key(self, model: str) -> str:
        """Cache key: the model plus everything in the request that changes the answer."""
        blob = json.dumps({"model": model, **self.to_dict()}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode()).hexdigest()


def normalize_messages(messages: Messages) -> tuple[tuple[str, str], ...]:
    """A bare string is one user message; dicts need a role and string content."""
    if isinstance(messages, str):
        return (("user", messages),)
    out = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or "role" not in m or "content" not in m:
            raise ValueError(f"message {i} must be a dict with 'role' and 'content', got {m!r}")
        if not isinstance(m["content"], str):
            raise ValueError(f"message {i}: content must be a string, got "
                             f"{type(m['content']).__name__}")
        out.append((str(m["role"]), m["content"]))
    if not out:
        raise ValueError("no messages: give at least one {'role': 'user', 'content': ...}")
    return tuple(out)


@dataclass
class Completion:
    """An answer with its cost: token counts, latency, whether the cache served it."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""
    latency_s: float = 0.0
    cached: bool = False
    raw: dict = field(default_factory=dict, repr=False)
    #: the parsed JSON when the request asked for response_format="json"
    data: Any = None

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def json(self) -> Any:
        """The JSON object in the answer (fenced, tagged or bare); BadAnswerError if none."""
        return self.data if self.data is not None else extract_json(self.text)

    def to_dict(self) -> dict:
        return {"text": self.text, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "model": self.model,
                "latency_s": self.latency_s, "cached": self.cached}


@runtime_checkable
class LLM(Protocol):
    """The plug point: anything with ``model`` and ``complete`` works as pddlkit's LLM."""

    model: str

    def complete(self, messages: Messages, *, temperature: float = 0.0,
                 max_tokens: Optional[int] = None, stop: Union[str, Sequence[str], None] = None,
                 response_format: str = "text", seed: Optional[int] = None) -> Completion:
        ...


CacheSpec = Union[bool, str, os.PathLike, None, Any]


class BaseLLM(abc.ABC):
    """Cache, ledger and transcript around a backend's :meth:`_generate`.

    ``cache``: True (the default file, ``$PDDLKIT_CACHE_DIR/llm-cache.sqlite``), a path, a
    :class:`~pddlkit.llm.cache.ResponseCache`, or False; ``PDDLKIT_NO_CACHE=1`` turns it off.
    ``ledger``: a :class:`~pddlkit.llm.usage.UsageLedger` (default: the process-wide one).
    ``transcript``: a path or :class:`~pddlkit.llm.transcript.Transcript` (default:
    ``$PDDLKIT_TRANSCRIPT`` if set), where every call is appended as one JSON line.
    ``max_tokens_cap``: the most tokens any answer may have, whatever a front end asks
    (default: ``$PDDLKIT_MAX_TOKENS`` if set; ``pddlkit run --max-tokens`` sets it, so the cap
    holds for every agent without each one passing it down).
    """

    model: str = ""
    #: the model's context in tokens when known (``local:`` servers set it), for front ends
    #: that trim growing prompts (:mod:`pddlkit.llm.context`)
    context_tokens: Optional[int] = None
    #: backends whose answers are free and deterministic (scripts, replays) default to no cache
    default_cache: bool = True

    def __init__(self, cache: CacheSpec = None, ledger=None, transcript=None) -> None:
        from .cache import resolve_cache
        from .transcript import resolve_transcript
        from .usage import DEFAULT_LEDGER

        self.cache = resolve_cache(self.default_cache if cache is None else cache)
        self.ledger = DEFAULT_LEDGER if ledger is None else ledger
        self.transcript = resolve_transcript(transcript)
        cap = os.environ.get("PDDLKIT_MAX_TOKENS", "").strip()
        self.max_tokens_cap: Optional[int] = int(cap) if cap.isdigit() and int(cap) > 0 \
            else None

    @property
    def cache_model(self) -> str:
        """The model's identity in cache keys (OpenAIChat adds the server for non-OpenAI URLs)."""
        return self.model

    def complete(self, messages: Messages, *, temperature: float = 0.0,
                 max_tokens: Optional[int] = None, stop: Union[str, Sequence[str], None] = None,
                 response_format: str = "text", seed: Optional[int] = None) -> Completion:
        """Answer ``messages``. With ``response_format="json"`` the answer's JSON is parsed into
        ``Completion.data``; an answer with no usable JSON raises :class:`BadAnswerError`
        (recorded and counted, but not cached, so a retry asks the model again)."""
        cap = getattr(self, "max_tokens_cap", None)
        if cap is not None and (max_tokens is None or max_tokens > cap):
            max_tokens = cap
        request = Request.build(messages, temperature, max_tokens, stop, response_format, seed)
        key = request.key(self.cache_model)
        completion = self.cache.get(key) if self.cache is not None else None
        if completion is None:
            start = time.monotonic()
            completion = self._generate(request)
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
