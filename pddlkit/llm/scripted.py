"""Offline LLMs: ScriptedLLM (answers from a list or a function) and ReplayLLM (a transcript).

ScriptedLLM is what tests, demos and formalizers use when no model is reachable; ReplayLLM
re-runs a recorded run exactly, call for call, so a failure seen once can be debugged without
paying for the model again. Neither is cached by default: their answers cost nothing, and a
script may answer the same prompt differently the second time.
"""

from __future__ import annotations

import difflib
import json
import os
import threading
from collections import defaultdict, deque
from typing import Any, Callable, Optional, Sequence, Union

from .base import BaseLLM, CacheSpec, Completion, Request, estimate_tokens
from .errors import LLMError, ReplayMissError
from .transcript import read_transcript

Answer = Union[str, Completion]
ScriptFunction = Callable[[list], Answer]


class ScriptedLLM(BaseLLM):
    """Answers from ``answers`` in order, or from ``answers(messages)`` for each call.

    Token counts are estimates (about 4 characters a token) unless an answer is a Completion.
    """

    default_cache = False

    def __init__(self, answers: Union[Sequence[Answer], ScriptFunction], model: str = "scripted",
                 *, cache: CacheSpec = None, ledger=None, transcript=None) -> None:
        super().__init__(cache=cache, ledger=ledger, transcript=transcript)
        self.model = model
        self._function = answers if callable(answers) else None
        self._answers = None if callable(answers) else list(answers)
        self._lock = threading.Lock()
        self.calls = 0
        self.requests: list[Request] = []

    def _generate(self, request: Request) -> Completion:
        with self._lock:
            self.calls += 1
            self.requests.append(request)
            if self._function is not None:
                answer = self._function(request.message_dicts)
            elif self.calls <= len(self._answers):
                answer = self._answers[self.calls - 1]
            else:
                raise LLMError(
                    f"ScriptedLLM ran out of answers: call {self.calls}, but only "
                    f"{len(self._answers)} were scripted; the request's last message was: "
                    f"{_short(request.messages[-1][1])!r}",
                    hint="script more answers, or give a function of the messages")
        if isinstance(answer, Completion):
            return answer
        if not isinstance(answer, str):
            raise LLMError(f"a scripted answer must be a string or Completion, got "
                           f"{type(answer).__name__}")
        prompt = sum(estimate_tokens(c) for _, c in request.messages)
        return Completion(answer, prompt, estimate_tokens(answer), self.model)


class ReplayLLM(BaseLLM):
    """Replays a transcript: each request gets the answer recorded for the same request.

    The same request recorded several times is answered in the recorded order. A request that
    was never recorded raises :class:`ReplayMissError` showing the closest recorded request and
    where the two differ. ``model`` defaults to the model recorded in the transcript.
    """

    default_cache = False

    def __init__(self, path: Union[str, os.PathLike], model: Optional[str] = None, *,
                 cache: CacheSpec = None, ledger=None, transcript=None) -> None:
        super().__init__(cache=cache, ledger=ledger, transcript=transcript)
        self.path = str(path)
        if not os.path.isfile(self.path):
            raise LLMError(f"no transcript at {self.path}",
                           hint="record one with transcript='run.jsonl' (or PDDLKIT_TRANSCRIPT)")
        self._queues: dict[str, deque] = defaultdict(deque)
        self._recorded: list[tuple[int, Request]] = []
        models = []
        for line, record in read_transcript(self.path):
            request = Request.from_dict(record["request"])
            usage = record.get("usage") or {}
            completion = Completion(record["text"], usage.get("prompt_tokens", 0),
                                    usage.get("completion_tokens", 0), record.get("model", ""),
                                    record.get("latency_s", 0.0),
                                    constraint_mode=record.get("constraint_mode", ""))
            self._queues[request.key("")].append(completion)
            self._recorded.append((line, request))
            models.append(record.get("model", ""))
        self.model = model or (models[0] if models else "replay")
        self._lock = threading.Lock()

    def constraint_support(self, constraint: Any) -> tuple[Optional[str], str]:
        """A constraint some recorded request was decoded under is replayed as recorded (the
        answers were decoded under it); any other is not one this transcript can answer."""
        if constraint is not None and any(r.constraint == constraint for _, r in self._recorded):
            return "replay", ""
        return None, f"{self.path} holds no request decoded under this constraint"

    def _generate(self, request: Request) -> Completion:
        with self._lock:
            queue = self._queues.get(request.key(""))
            if queue:
                recorded = queue.popleft()
                return Completion(recorded.text, recorded.prompt_tokens,
                                  recorded.completion_tokens, recorded.model or self.model,
                                  recorded.latency_s,
                                  constraint_mode=recorded.constraint_mode)  # as recorded
        if queue is not None:
            raise ReplayMissError(
                f"{self.path}: this request was recorded, but every recorded answer to it has "
                "already been replayed (the replayed run asks it more often than the recorded "
                "one did)", hint="replay with the same seeds and settings as the recorded run")
        raise ReplayMissError(self._miss_message(request),
                              hint="the run differs from the recorded one here (a changed "
                                   "prompt, setting or seed); record it again, or fix the change")

    def _miss_message(self, request: Request) -> str:
        if not self._recorded:
            return f"{self.path} records no calls"
        wanted = json.dumps(request.to_dict(), indent=1, ensure_ascii=False)
        best_line, best, best_ratio = 0, None, -1.0
        for line, recorded in self._recorded:
            text = json.dumps(recorded.to_dict(), indent=1, ensure_ascii=False)
            ratio = difflib.SequenceMatcher(None, wanted, text, autojunk=False).quick_ratio()
            if ratio > best_ratio:
                best_line, best, best_ratio = line, recorded, ratio
        diff = _first_difference(request, best)
        return (f"{self.path} has no recorded answer to this request; the closest recorded "
                f"request is on line {best_line}, and they differ in {diff}")


def _first_difference(a: Request, b: Request) -> str:
    for i, (ma, mb) in enumerate(zip(a.messages, b.messages)):
        if ma != mb:
            if ma[0] != mb[0]:
                return f"message {i}'s role ({ma[0]!r} here, {mb[0]!r} recorded)"
            return f"message {i} ({ma[0]}):\n" + _diff_text(mb[1], ma[1])
    if len(a.messages) != len(b.messages):
        return f"the number of messages ({len(a.messages)} here, {len(b.messages)} recorded)"
    for name in ("temperature", "max_tokens", "stop", "response_format", "seed"):
        if getattr(a, name) != getattr(b, name):
            return f"{name} ({getattr(a, name)!r} here, {getattr(b, name)!r} recorded)"
    return "nothing visible"  # pragma: no cover - equal requests share a key


def _diff_text(recorded: str, asked: str, limit: int = 12) -> str:
    lines = list(difflib.unified_diff(recorded.splitlines(), asked.splitlines(), "recorded",
                                      "asked now", lineterm="", n=1))
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more diff lines)"]
    return "\n".join("    " + ln for ln in lines)


def _short(text: str, n: int = 120) -> str:
    return text if len(text) <= n else text[:n] + "..."
