"""The critic's errors: each says what failed and what to do (``hint``), as the LLM layer's do."""

from __future__ import annotations

from pddlkit.llm.errors import LLMError


class CriticError(LLMError):
    """A critic cannot be built, loaded or used as asked."""

    code = "critic-error"


class CheckpointMismatch(CriticError):
    """A saved adapter does not belong to this base model or this prompt template."""

    code = "critic-checkpoint-mismatch"
