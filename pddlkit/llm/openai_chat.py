"""OpenAIChat: OpenAI, or any server that speaks its chat API (vLLM, Ollama, llama.cpp server).

pddlkit does its own retrying (the ``openai`` client's is turned off) so that the policy is
visible and bounded: 429, 5xx, timeouts and connection errors are retried with exponential
backoff and full jitter, a server's ``Retry-After`` is honoured (capped), and after
``max_retries`` the error says what kept failing and what to do. Requests the server rejects as
such (bad key, unknown model) are not retried.

Two server differences are handled on the fly, once per client: reasoning models (o1, o3, o4,
gpt-5) take ``max_completion_tokens`` and no ``temperature``; a server that rejects
``response_format`` (JSON mode) is asked again without it, and the JSON is extracted from the
text instead.

Constraints (``complete(..., constraint=)``) go to each server in its own form:
llama.cpp's server gets a :class:`~.grammar.Grammar` as GBNF in ``grammar``; a vLLM server
gets the Lark text in ``guided_grammar``; any server gets a :class:`~.grammar.JsonSchema` as
strict structured outputs (``response_format`` of type ``json_schema``). Which server it is
comes from ``grammar=`` ("gbnf", "lark" or "none"), or else from the server's own listing
(``GET /models``: llama.cpp says ``owned_by: llamacpp``, vLLM ``vllm``), asked once and only
when a grammar is first asked for. OpenAI's own API takes no grammar (its Lark grammars are
for custom tools, not answers), so a grammar goes unconstrained there. A server that refuses
the constraint is asked again without it, once per client, and said so (warning); every
answer's ``constraint_mode`` records what happened.
"""

from __future__ import annotations

import email.utils
import logging
import os
import random
import re
import time
from typing import Any, Callable, Optional

from .base import BaseLLM, CacheSpec, Completion, Request
from .errors import (LLMConnectionError, LLMError, LLMRateLimited, LLMRequestError,
                     LLMServerError, LLMTimeout, LLMUnavailable)

OPENAI_URL = "https://api.openai.com/v1"
log = logging.getLogger("pddlkit.llm")
_REASONING = re.compile(r"^(o\d|gpt-5)([-.].*)?$")


def is_reasoning_model(model: str) -> bool:
    """OpenAI's reasoning models take no temperature and use max_completion_tokens."""
    return bool(_REASONING.match(model.split("/")[-1]))


#: seconds a request to a server on this machine may take (generation on a CPU)
LOCAL_TIMEOUT = 3600.0


#: retries of a refused connection to a server on this machine (it is not running, or starting)
LOCAL_CONNECT_RETRIES = 1


def configured_base_url() -> str:
    """The URL ``OPENAI_API_KEY`` belongs to: ``OPENAI_BASE_URL``, else OpenAI's API."""
    return (os.environ.get("OPENAI_BASE_URL") or OPENAI_URL).rstrip("/")


def api_key_for(base_url: str, api_key: Optional[str] = None,
                api_key_env: Optional[str] = None) -> tuple[Optional[str], str]:
    """``(key, withheld)``: the key to send to ``base_url``, and the name of a key that exists
    but was not sent (``""`` when none was).

    A key is a secret of the URL it was configured for. ``api_key`` (given with the URL by the
    same caller) goes to ``base_url``; ``api_key_env`` names the variable whose key the caller
    sends to ``base_url``; otherwise ``OPENAI_API_KEY`` goes only to :func:`configured_base_url`.
    So a spec that names another URL (written by a client of an MCP server, say, or pasted from
    a config) cannot make pddlkit hand the operator's key to that URL."""
    if api_key:
        return api_key, ""
    if api_key_env:
        key = os.environ.get(api_key_env)
        if not key:
            raise LLMRequestError(f"api_key_env={api_key_env!r}: that variable is not set",
                                  hint=f"export {api_key_env}=... or leave key_env out")
        return key, ""
    key = os.environ.get("OPENAI_API_KEY")
    if key and base_url.rstrip("/") != configured_base_url():
        return None, "OPENAI_API_KEY"
    return key, ""


def is_loopback(url: str) -> bool:
    """Whether ``url`` points at this machine (127.0.0.0/8, ::1, localhost)."""
    from urllib.parse import urlparse

    host = (urlparse(url).hostname or "").lower()
    return host == "localhost" or host.startswith("127.") or host == "::1"


class OpenAIChat(BaseLLM):
    """Chat completions over HTTP with the ``openai`` package.

    ``model``, ``base_url`` and ``api_key`` default to ``PDDLKIT_MODEL``, ``OPENAI_BASE_URL``
    and ``OPENAI_API_KEY``. A key goes only where it was configured to go (:func:`api_key_for`):
    ``OPENAI_API_KEY`` to ``OPENAI_BASE_URL`` (or OpenAI's API when that is unset), never to
    another URL a spec or ``base_url=`` names, unless ``api_key_env=`` (the spec's
    ``?key_env=VAR``) names the variable to send there, or ``api_key=`` gives the key itself.
    A server that gets no key gets a placeholder (local servers need none). ``timeout`` is
    per attempt; ``max_retries`` bounds the retries; ``max_backoff`` caps one wait, including
    a server's Retry-After. A server on this machine (a loopback address) is taken for a local
    model, which may take minutes for a long answer on a CPU: by default it gets an hour per
    request, a timed-out request is not sent again, and a refused connection is tried once more
    (a server that is not running will not start by itself); a remote one gets 120 s and
    retries.
    Every retry is logged (``pddlkit.llm``, warning); with
    ``retry_timeouts=False`` (what ``local:`` uses) a timed-out request is an error at once,
    since asking again would make a CPU server generate the whole answer again.
    """

    def __init__(self, model: Optional[str] = None, *, base_url: Optional[str] = None,
                 api_key: Optional[str] = None, timeout: Optional[float] = None,
                 max_retries: int = 5, retry_timeouts: Optional[bool] = None,
                 backoff: float = 1.0, max_backoff: float = 60.0,
                 reasoning: Optional[bool] = None, cache: CacheSpec = None, ledger=None,
                 transcript=None, client: Any = None, grammar: Optional[str] = None,
                 api_key_env: Optional[str] = None) -> None:
        super().__init__(cache=cache, ledger=ledger, transcript=transcript)
        model = model or os.environ.get("PDDLKIT_MODEL")
        if not model:
            raise LLMRequestError(
                "no model given to OpenAIChat",
                hint="pass model='gpt-4o-mini' (or a spec 'openai:gpt-4o-mini'), or set "
                     "PDDLKIT_MODEL")
        self.model = model
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL).rstrip("/")
        key, self.key_withheld = api_key_for(self.base_url, api_key, api_key_env)
        if not key:
            if self.base_url == OPENAI_URL:
                raise LLMRequestError(
                    "no OpenAI API key", hint="set OPENAI_API_KEY, or point OPENAI_BASE_URL "
                    "(or base_url=) at a local OpenAI-compatible server")
            key = "not-needed"  # local servers ignore it, the client insists on one
        local = self.local = is_loopback(self.base_url)
        #: for a server reached through ``local:`` (started or reused): why it stopped
        #: answering when its process is gone (an LLMError), else None; asked on a
        #: connection error
        self.server_gone: Optional[Callable[[], Optional[LLMError]]] = None
        self.timeout = timeout if timeout is not None else (LOCAL_TIMEOUT if local else 120.0)
        self.max_retries = max_retries
        self.retry_timeouts = (not local) if retry_timeouts is None else retry_timeouts
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.reasoning = is_reasoning_model(model) if reasoning is None else reasoning
        self.json_mode = True  # cleared when the server rejects response_format
        if grammar not in (None, "gbnf", "lark", "none"):
            raise LLMRequestError(f"grammar={grammar!r}: use 'gbnf' (llama.cpp), 'lark' (vLLM) "
                                  "or 'none'", hint="leave it out to ask the server")
        #: the server's grammar dialect: "gbnf", "lark", "none", or None (not asked yet)
        self.grammar_dialect = grammar if grammar is not None else (
            "none" if self.base_url == OPENAI_URL else None)
        self.schema_mode = True   # cleared when the server rejects json_schema outputs
        #: why the server's grammars / json_schema outputs were given up, when they were
        self.grammar_refused = self.schema_refused = ""
        if client is None:
            import openai

            client = openai.OpenAI(api_key=key, base_url=self.base_url, timeout=timeout,
                                   max_retries=0)
        self.client = client

    @property
    def cache_model(self) -> str:
        return self.model if self.base_url == OPENAI_URL else f"{self.model}@{self.base_url}"

    def _arguments(self, request: Request) -> dict:
        args: dict = {"model": self.model, "messages": request.message_dicts}
        if self.reasoning:
            if request.max_tokens is not None:
                args["max_completion_tokens"] = request.max_tokens
        else:
            args["temperature"] = request.temperature
            if request.max_tokens is not None:
                args["max_tokens"] = request.max_tokens
        if request.stop:
            args["stop"] = list(request.stop)
        if request.seed is not None:
            args["seed"] = request.seed
        if request.response_format == "json" and self.json_mode:
            args["response_format"] = {"type": "json_object"}
        mode = self.constraint_support(request.constraint)[0] \
            if request.constraint is not None else None
        if mode == "gbnf":
            args["extra_body"] = {"grammar": request.constraint.gbnf()}
        elif mode == "lark":
            args["extra_body"] = {"guided_grammar": request.constraint.lark}
        elif mode == "json-schema":
            args["response_format"] = {"type": "json_schema", "json_schema": {
                "name": _schema_name(request.constraint.name),
                "schema": dict(request.constraint.schema), "strict": True}}
        return args

    def constraint_support(self, constraint: Any) -> tuple[Optional[str], str]:
        if constraint is None:
            return None, "no constraint"
        if constraint.kind == "json-schema":
            return ("json-schema", "") if self.schema_mode else \
                (None, self.schema_refused)
        if self.grammar_dialect is None:
            self.grammar_dialect = self._ask_dialect()
        if self.grammar_dialect in ("gbnf", "lark"):
            return self.grammar_dialect, ""
        if self.grammar_refused:
            return None, self.grammar_refused
        where = "OpenAI's API takes no grammar for answers" if self.base_url == OPENAI_URL \
            else f"{self.base_url} did not say it takes grammars (grammar='gbnf' or 'lark' " \
                 "tells pddlkit it does)"
        return None, where

    def _ask_dialect(self) -> str:
        """The server's grammar dialect from its model listing, asked once."""
        try:
            listing = self.client.models.list()
            owners = {str(getattr(m, "owned_by", "") or "").lower()
                      for m in getattr(listing, "data", []) or []}
        except Exception as exc:   # any failure: no grammar, said in the mode
            log.warning("%s: could not ask %s/models which grammars it takes (%s); asking "
                        "without grammars", self.model, self.base_url, _message(exc))
            return "none"
        if "llamacpp" in owners or "llama.cpp" in owners:
            return "gbnf"
        if "vllm" in owners:
            return "lark"
        return "none"

    def _generate(self, request: Request) -> Completion:
        import openai

        attempt = 0
        adapted = False
        while True:
            args = self._arguments(request)
            start = time.monotonic()
            try:
                response = self.client.chat.completions.create(**args)
            except openai.BadRequestError as exc:
                # adapt once to what this server does not take, then ask again at once
                if not adapted and self._adapt(exc, args):
                    adapted = True
                    continue
                raise self._request_error(exc) from None
            except (openai.APIConnectionError, openai.APIStatusError) as exc:
                # 429, 5xx (whether or not the client has a class for it), timeouts and
                # connection errors are retried; other statuses are the request's fault
                if not _retryable(exc):
                    raise self._request_error(exc) from None
                attempt += 1
                timed_out = isinstance(exc, openai.APITimeoutError)
                # nothing listens on this machine's port: one more try (a server starting
                # up), not minutes of backoff for a server that is not running
                refused_here = self.local and not timed_out and isinstance(
                    exc, openai.APIConnectionError) and attempt > LOCAL_CONNECT_RETRIES
                if attempt > self.max_retries or (timed_out and not self.retry_timeouts) \
                        or refused_here:
                    raise self._unavailable(exc, attempt) from None
                delay = self._delay(exc, attempt)
                # said, never silent: a timed-out request runs again in full on the server
                log.warning("%s at %s: %s; asking again in %.1f s (attempt %d of %d)",
                            self.model, self.base_url, _message(exc), delay, attempt + 1,
                            self.max_retries + 1)
                time.sleep(delay)
                continue
            completion = self._completion(response, time.monotonic() - start)
            if request.constraint is not None:
                mode, why = self.constraint_support(request.constraint)
                completion.constraint_mode = mode or f"unconstrained: {why}"
            return completion

    def _completion(self, response: Any, latency: float) -> Completion:
        raw = response.model_dump() if hasattr(response, "model_dump") else dict(response)
        choices = raw.get("choices") or []
        if not choices:
            raise LLMServerError(f"{self.base_url} answered with no choices",
                                 hint="the server's answer is malformed; check the server's logs")
        message = choices[0].get("message") or {}
        text = message.get("content") or ""
        usage = raw.get("usage") or {}
        prompt_tokens = usage.get("prompt_tokens") or 0
        completion_tokens = usage.get("completion_tokens") or 0
        return Completion(text, prompt_tokens, completion_tokens, self.model, latency,
                          raw=raw)

    def _adapt(self, exc: Exception, args: dict) -> bool:
        text = str(exc).lower()
        extra = args.get("extra_body") or {}
        if ("grammar" in extra or "guided_grammar" in extra) and "grammar" in text:
            self.grammar_dialect = "none"
            self.grammar_refused = f"{self.base_url} refused the grammar ({_message(exc)[:200]})"
            log.warning("%s; asking without grammars from now on", self.grammar_refused)
            return True
        response_format = args.get("response_format") or {}
        if response_format.get("type") == "json_schema" and (
                "json_schema" in text or "response_format" in text or "schema" in text):
            self.schema_mode = False
            self.schema_refused = (f"{self.base_url} refused json_schema outputs "
                                   f"({_message(exc)[:200]})")
            log.warning("%s; asking without them from now on", self.schema_refused)
            return True
        if "response_format" in args and ("response_format" in text or "json" in text):
            self.json_mode = False
            log.warning("%s at %s refused JSON mode (%s); asking without it from now on, and "
                        "reading the JSON from the text", self.model, self.base_url,
                        _message(exc))
            return True
        if "temperature" in args and "temperature" in text:
            self.reasoning = True
            return True
        if "max_tokens" in args and "max_completion_tokens" in text:
            self.reasoning = True
            return True
        return False

    def _delay(self, exc: Exception, attempt: int) -> float:
        """Retry-After when the server gives one, else exponential backoff with full jitter."""
        after = _retry_after(getattr(exc, "response", None))
        if after is not None:
            return min(after, self.max_backoff)
        return random.uniform(0, min(self.max_backoff, self.backoff * 2 ** (attempt - 1)))

    def _unavailable(self, exc: Exception, attempts: int) -> LLMUnavailable:
        import openai

        where = f"{self.model} at {self.base_url}"
        tries = f"{attempts} attempt{'s' if attempts > 1 else ''}"
        if isinstance(exc, openai.RateLimitError):
            return LLMRateLimited(
                f"{where} kept answering 429 (rate limited) after {tries}",
                hint="lower the request rate (fewer parallel workers), raise max_retries, or "
                     "check the account's quota", attempts=attempts, status=429)
        if isinstance(exc, openai.APITimeoutError):
            return LLMTimeout(
                f"{where} did not answer within {self.timeout:g}s, {tries}",
                hint="raise timeout=, lower max_tokens, or check that the server is not "
                     "overloaded", attempts=attempts)
        if isinstance(exc, openai.APIConnectionError):
            crashed = self.server_gone() if self.server_gone is not None else None
            if crashed is not None:   # a local server that died says so, with its fix
                return LLMConnectionError(crashed.message, hint=crashed.hint,
                                          attempts=attempts)
            return LLMConnectionError(
                f"cannot connect to {self.base_url} ({tries}): {exc}",
                hint="is the server running? check OPENAI_BASE_URL (a vLLM or Ollama server "
                     "usually ends in /v1)" + ("; for the bundled model: pddlkit llm serve"
                                               if self.local else ""), attempts=attempts)
        status = getattr(exc, "status_code", None)
        return LLMServerError(
            f"{where} failed with HTTP {status} after {tries}: {_message(exc)}",
            hint="the server is failing; retry later or check the server's logs",
            attempts=attempts, status=status)

    def _request_error(self, exc: Exception) -> LLMRequestError:
        status = getattr(exc, "status_code", None)
        withheld = (f"OPENAI_API_KEY was not sent: it belongs to {configured_base_url()}; to send "
                    f"it to {self.base_url}, name it: openai:{self.model}@{self.base_url}"
                    f"?key_env=OPENAI_API_KEY (or api_key_env=)") if self.key_withheld else ""
        hints = {401: withheld or "check OPENAI_API_KEY (or api_key=)",
                 403: "this key may not use this model",
                 404: f"is {self.model!r} served at {self.base_url}? (GET {self.base_url}/models "
                      "lists the models)"}
        return LLMRequestError(
            f"{self.base_url} rejected the request (HTTP {status}): {_message(exc)}",
            hint=hints.get(status, "the request is malformed for this server; see the message"),
            status=status)


def _schema_name(name: str) -> str:
    """OpenAI's schema names are letters, digits, _ and - (64 at most)."""
    return re.sub(r"[^a-zA-Z0-9_-]", "_", name)[:64] or "answer"


def _retryable(exc: Exception) -> bool:
    status = getattr(exc, "status_code", None)
    return status is None or status == 429 or status >= 500


def _message(exc: Exception) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
    return str(getattr(exc, "message", None) or exc)


def _retry_after(response: Any) -> Optional[float]:
    """Seconds from ``retry-after-ms``, ``Retry-After`` (seconds or an HTTP date), or None."""
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
