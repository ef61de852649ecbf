"""Errors from the LLM layer: each says what failed, how often it was tried, and what to do.

The hierarchy lets callers decide by kind: :class:`LLMUnavailable` (the service could not be
reached or kept refusing, so retrying later may help), :class:`LLMRequestError` (the request
itself is wrong: bad key, unknown model), :class:`BadAnswerError` (the model answered, but not
in the form asked for: feed the message back to the model), :class:`ReplayMissError`.
"""

from __future__ import annotations

from typing import Optional


class LLMError(Exception):
    """Base class: ``code`` for programs, ``hint`` for people."""

    code = "llm-error"

    def __init__(self, message: str, hint: Optional[str] = None, **details) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.details = details

    def __str__(self) -> str:
        return self.message + (f"\n  hint: {self.hint}" if self.hint else "")


class LLMUnavailable(LLMError):
    """The service did not give an answer after the allowed retries."""

    code = "llm-unavailable"

    def __init__(self, message: str, hint: Optional[str] = None, attempts: int = 1,
                 status: Optional[int] = None, **details) -> None:
        super().__init__(message, hint, attempts=attempts, status=status, **details)
        self.attempts = attempts
        self.status = status


class LLMRateLimited(LLMUnavailable):
    code = "llm-rate-limited"


class LLMServerError(LLMUnavailable):
    code = "llm-server-error"


class LLMTimeout(LLMUnavailable):
    code = "llm-timeout"


class LLMConnectionError(LLMUnavailable):
    code = "llm-connection-error"


class LLMRequestError(LLMError):
    """The server rejected the request itself (4xx other than 429); retrying will not help."""

    code = "llm-bad-request"

    def __init__(self, message: str, hint: Optional[str] = None,
                 status: Optional[int] = None, **details) -> None:
        super().__init__(message, hint, status=status, **details)
        self.status = status


class BadAnswerError(LLMError):
    """The model's answer is not in the asked-for form (no JSON, JSON cut off, ...).

    ``answer`` keeps the full text; ``problem`` says what was wrong in one sentence, written
    so that it can be sent back to the model as feedback.
    """

    code = "llm-bad-answer"

    def __init__(self, problem: str, answer: str, hint: Optional[str] = None) -> None:
        snippet = answer if len(answer) <= 300 else answer[:150] + " ... " + answer[-150:]
        super().__init__(f"the answer is not usable JSON: {problem}\n  answer: {snippet!r}",
                         hint or "ask again, quoting this problem to the model; or lower the "
                                 "temperature / raise max_tokens", answer=answer)
        self.problem = problem
        self.answer = answer

    def __reduce__(self):
        # rebuilt from its own arguments, so it pickles (a worker process may raise it)
        return type(self), (self.problem, self.answer, self.hint), self.__dict__


class ReplayMissError(LLMError):
    """A replayed run asked something the transcript never recorded."""

    code = "llm-replay-miss"


class LLMSpecError(LLMError, ValueError):
    """A spec string such as 'openai:gpt-4o-mini' that names no known backend or is malformed."""

    code = "llm-bad-spec"
