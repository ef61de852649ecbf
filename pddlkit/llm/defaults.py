"""The default LLM: what a call that takes an optional ``llm=`` uses when none is given.

Why one place: ``pddlkit.formalize_and_plan(obs)`` promises a one-argument call, and guessing
an LLM (or quietly falling back to an offline formalizer that reads the answer from the
environment) would return results no model produced. The default is set explicitly, in code
with :func:`configure` (``pddlkit.configure(llm="local:qwen2.5-coder-1.5b")``) or in the
environment with ``PDDLKIT_LLM``; code wins over the environment. With neither,
:func:`default_llm` raises :class:`NoLLMConfigured`, naming both ways.
"""

from __future__ import annotations

import os
from typing import Any, Optional

_CONFIGURED: dict[str, Any] = {}


class NoLLMConfigured(LookupError):
    """No ``llm=`` was given and no default is configured."""


def configure(*, llm: Any = None) -> None:
    """Set the default LLM (a spec string such as ``"openai:gpt-4o-mini"``, or an LLM object);
    ``None`` clears it."""
    if llm is None:
        _CONFIGURED.pop("llm", None)
    else:
        _CONFIGURED["llm"] = llm


def configured_llm() -> Optional[Any]:
    """The default LLM if one is set (code first, then ``PDDLKIT_LLM``), else None."""
    if "llm" in _CONFIGURED:
        return _CONFIGURED["llm"]
    spec = os.environ.get("PDDLKIT_LLM", "").strip()
    return spec or None


def default_llm(what: str = "this call") -> Any:
    """The configured default LLM, or :class:`NoLLMConfigured` saying how to give one."""
    llm = configured_llm()
    if llm is None:
        raise NoLLMConfigured(
            f"{what} needs an LLM and none is configured: pass llm= (e.g. "
            f"llm=\"openai:gpt-4o-mini\" or llm=\"local:qwen2.5-coder-1.5b\"), or set a default "
            f"with pddlkit.configure(llm=...) or the PDDLKIT_LLM environment variable")
    return llm
