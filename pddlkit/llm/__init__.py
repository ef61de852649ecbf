"""The LLM layer: one protocol, several backends, and the cache, ledger and transcript that
every call goes through (see :mod:`pddlkit.llm.base`).

    from pddlkit.llm import load_llm
    llm = load_llm("openai:gpt-4o-mini")          # or "hf:/models/x", "replay:run.jsonl"
    answer = llm.complete("Write a PDDL domain ...", response_format="json")

Backends are imported when first used, so ``import pddlkit.llm`` does not import openai,
torch or transformers.
"""

from __future__ import annotations

import importlib
from typing import Any

from .base import LLM, BaseLLM, Completion, Request, estimate_tokens
from .errors import (BadAnswerError, LLMConnectionError, LLMError, LLMRateLimited,
                     LLMRequestError, LLMServerError, LLMSpecError, LLMTimeout, LLMUnavailable,
                     ReplayMissError)
from .extract import extract_json

_LAZY = {
    "OpenAIChat": ".openai_chat", "HFLocal": ".hf_local", "ScriptedLLM": ".scripted",
    "ReplayLLM": ".scripted", "ResponseCache": ".cache", "UsageLedger": ".usage",
    "PriceTable": ".usage", "Usage": ".usage", "DEFAULT_LEDGER": ".usage",
    "Transcript": ".transcript", "read_transcript": ".transcript", "load_llm": ".spec",
    "Grammar": ".grammar", "JsonSchema": ".grammar", "GrammarError": ".grammar",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["LLM", "BaseLLM", "Completion", "Request", "estimate_tokens", "extract_json",
           "LLMError", "LLMUnavailable", "LLMRateLimited", "LLMServerError", "LLMTimeout",
           "LLMConnectionError", "LLMRequestError", "BadAnswerError", "ReplayMissError",
           "LLMSpecError", *_LAZY]
