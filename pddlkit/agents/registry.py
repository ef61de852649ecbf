"""Agent names, like the environment registry: each front end declares its agents as entry
points of ``pddlkit.agents`` (``pddlego = "pddlkit.formalizers.agents:PDDLEGO"``, the object an
:class:`~.spec.AgentSpec`), so the core finds them without importing a front end; a program
can add one at run time with :func:`register_agent`."""

from __future__ import annotations

import difflib
import importlib

from ..plugins import entry_points_of
from .spec import AgentSpec

ENTRY_POINT_GROUP = "pddlkit.agents"
_RUNTIME: dict[str, AgentSpec] = {}


class UnknownAgentError(LookupError):
    """No agent has this name, or its entry point cannot be loaded."""


def agent_names() -> list[str]:
    return sorted({ep.name for ep in entry_points_of(ENTRY_POINT_GROUP)} | set(_RUNTIME))


def register_agent(spec: AgentSpec, replace: bool = False) -> None:
    if not replace and spec.name in agent_names():
        raise ValueError(f"agent {spec.name!r} is already registered (pass replace=True)")
    _RUNTIME[spec.name] = spec


def get_agent(name: str) -> AgentSpec:
    """The agent named ``name``; :class:`UnknownAgentError` names the known ones."""
    if name in _RUNTIME:
        return _RUNTIME[name]
    found = [ep for ep in entry_points_of(ENTRY_POINT_GROUP) if ep.name == name]
    if not found:
        known = agent_names()
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
        raise UnknownAgentError(f"unknown agent {name!r}"
                                + (f"; did you mean {close[0]!r}?" if close else "")
                                + f" Known: {', '.join(known)}")
    module, _, attr = found[0].value.partition(":")
    try:
        spec = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise UnknownAgentError(f"agent {name!r} cannot be loaded from {found[0].value}: "
                                f"{exc}") from None
    if not isinstance(spec, AgentSpec):
        raise UnknownAgentError(f"agent {name!r}: {found[0].value} is a "
                                f"{type(spec).__name__}, not an AgentSpec")
    return spec


def catalogue() -> list[dict]:
    """Every agent's stand-ins as ``pddlkit llm list`` shows them: ``{"spec", "agent",
    "knows", "example"}``, in the grammar ``standin:<agent>[:mode]``; an agent that cannot be
    loaded is skipped with its error in ``knows``."""
    rows = []
    for name in agent_names():
        try:
            spec = get_agent(name)
        except UnknownAgentError as exc:
            rows.append({"spec": f"standin:{name}", "agent": name, "knows": f"(not loaded: "
                         f"{exc})", "example": ""})
            continue
        for stand_in in spec.stand_ins:
            rows.append({"spec": stand_in.spelled(name), "agent": name,
                         "knows": stand_in.knows, "example": stand_in.example})
    return rows
