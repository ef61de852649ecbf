"""The agents layer's error: bad input an agent names (an environment it does not play, an
option out of range, a missing package), reported by the CLI as one line with exit 2."""

from __future__ import annotations


class AgentError(ValueError):
    """Bad input to an agent: the message says what and how to fix it."""
