"""Which LLMs a client of ``pddlkit mcp`` may name (issue 70).

Why: an LLM spec is a capability, not data. ``openai:MODEL@URL`` sends requests (once, with the
operator's API key) to any URL; ``hf:``, ``replay:`` and ``scripted:`` name host files, and a
spec's ``?transcript=`` or ``?cache=`` writes them. A client (an agent whose prompt may have
been injected) must not choose any of that. So the operator chooses: the specs given with
``pddlkit mcp --llm SPEC`` (repeatable) are the only ones a client may name, letter for letter,
besides the offline stand-ins (``standin:...``), which read no file and reach no network.
The server passes its list to its workers in :data:`VARIABLE`; a program calling the tools
directly, with no server, gets the stand-ins only unless it sets that variable.
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterable

#: the JSON list of specs the operator allowed (set by ``pddlkit mcp --llm``)
VARIABLE = "PDDLKIT_MCP_LLMS"


def allowed() -> tuple[str, ...]:
    """The specs the operator allowed, beyond the stand-ins."""
    try:
        listed = json.loads(os.environ.get(VARIABLE) or "[]")
    except json.JSONDecodeError:
        return ()
    return tuple(str(s).strip() for s in listed if str(s).strip())


def allow(specs: Iterable[str]) -> tuple[str, ...]:
    """Set the allowed specs for this process and the workers it starts; each is checked as a
    spec first (a typo is the operator's error, said at start, not a client's later)."""
    from pddlkit.llm.spec import parse_spec

    chosen = tuple(dict.fromkeys(s.strip() for s in specs if s and s.strip()))
    for spec in chosen:
        parse_spec(spec)
    os.environ[VARIABLE] = json.dumps(list(chosen))
    return chosen


def checked_llm(spec: Any, argument: str = "llm") -> str:
    """``spec`` if a client may use it, else :class:`~.tools.Refused` naming what may be."""
    from .tools import Refused

    text = spec.strip() if isinstance(spec, str) else ""
    if text == "standin" or text.startswith("standin:") or text in allowed():
        return text
    offered = ", ".join(["standin:pddlego", *allowed()])
    raise Refused("llm-not-allowed", f"{argument} {str(spec)[:80]!r} is not one this server "
                  f"offers (it offers: {offered})", "use one of those; the operator adds "
                  "others with pddlkit mcp --llm SPEC (a client never names URLs, keys or "
                  "files)", argument)
