"""One agents layer over every front end: an :class:`AgentSpec` per agent, a :class:`Job` of
episodes that each own their record, live transcript, usage scope and metrics, and one
:class:`Row` per episode. ``pddlkit run AGENT`` and ``pddlkit bench`` both go through it, so a
flag, an option or a count means the same thing for every agent.

    from pddlkit.agents import get_agent, run_job
    spec = get_agent("deps")
    rows = run_job(spec, env="craft", llm="standin", seeds=[0, 1],
                   options=spec.make_options(task="stone_pickaxe"))
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

from .episode import Episode, Job, RecordFile
from .errors import AgentError
from .registry import UnknownAgentError, agent_names, get_agent, register_agent
from .row import Row
from .spec import AgentSpec, OptionError, option

__all__ = ["AgentError", "AgentSpec", "Episode", "Job", "OptionError", "RecordFile", "Row",
           "UnknownAgentError", "agent_names", "get_agent", "option", "register_agent",
           "run_job"]


def run_job(spec: AgentSpec, *, env: Optional[str] = None, llm: Optional[str] = None,
            seeds: Iterable[int] = (0,), options: Any = None, env_options: Optional[dict] = None,
            record=None, max_tokens: Optional[int] = None, transcript=None,
            max_steps: Optional[int] = None) -> list[Row]:
    """Play ``spec`` once per seed and return its rows (no live output). ``max_tokens`` and
    ``transcript`` reach every LLM the agent makes, as ``pddlkit run``'s flags do
    (:meth:`Job.llm_settings`)."""
    job = Job(spec, env or spec.default_env or "", llm or spec.default_llm, list(seeds),
              options if options is not None else spec.make_options(), env_options or {},
              record, max_tokens, max_steps=max_steps, transcript=transcript)
    return list(job.play())
