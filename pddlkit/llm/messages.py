"""The data of one LLM call: the request (messages and sampling settings, with the key the
response cache files it under) and the completion (text, token counts, latency). Kept apart
from :mod:`.base` so the cache and the transcript, which store both, do not import the
wrapper that uses them."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence, Union

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
    #: what the answer must follow (:class:`~.grammar.Grammar` or :class:`~.grammar.JsonSchema`)
    constraint: Any = None

    @classmethod
    def build(cls, messages: Messages, temperature: float = 0.0, max_tokens: Optional[int] = None,
              stop: Union[str, Sequence[str], None] = None, response_format: str = "text",
              seed: Optional[int] = None, constraint: Any = None) -> "Request":
        if response_format not in RESPONSE_FORMATS:
            raise ValueError(f"response_format must be one of {RESPONSE_FORMATS}, "
                             f"not {response_format!r}")
        if constraint is not None and getattr(constraint, "kind", None) not in (
                "grammar", "json-schema"):
            raise ValueError("constraint must be a pddlkit.llm.Grammar or JsonSchema, not "
                             f"{type(constraint).__name__}")
        return cls(normalize_messages(messages), float(temperature), max_tokens,
                   (stop,) if isinstance(stop, str) else tuple(stop or ()), response_format, seed,
                   constraint)

    @property
    def message_dicts(self) -> list[dict]:
        return [{"role": r, "content": c} for r, c in self.messages]

    def to_dict(self) -> dict:
        out = {"messages": self.message_dicts, "temperature": self.temperature,
               "max_tokens": self.max_tokens, "stop": list(self.stop),
               "response_format": self.response_format, "seed": self.seed}
        if self.constraint is not None:   # only then: unconstrained keys stay as they were
            out["constraint"] = self.constraint.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "Request":
        from .grammar import constraint_from_dict

        return cls.build(data["messages"], data.get("temperature", 0.0), data.get("max_tokens"),
                         data.get("stop"), data.get("response_format", "text"), data.get("seed"),
                         constraint_from_dict(data.get("constraint")))

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
    #: how a constraint was carried out: "" (none asked), "gbnf" (llama.cpp's grammar),
    #: "lark" (a vLLM-style grammar), "json-schema" (structured outputs), or
    #: "unconstrained: <why>" (the backend could not; the answer is checked as without one)
    constraint_mode: str = ""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def json(self) -> Any:
        """The JSON object in the answer (fenced, tagged or bare); BadAnswerError if none."""
        return self.data if self.data is not None else extract_json(self.text)

    def to_dict(self) -> dict:
        out = {"text": self.text, "prompt_tokens": self.prompt_tokens,
               "completion_tokens": self.completion_tokens, "model": self.model,
               "latency_s": self.latency_s, "cached": self.cached}
        if self.constraint_mode:
            out["constraint_mode"] = self.constraint_mode
        return out
