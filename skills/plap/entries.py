"""The planners a PLAP entry names: ``standin:plap`` (the expert tips; a bare ``standin`` too),
``standin:plap:noisy[:rate]`` (with malformed, impossible and wasteful lines), or an LLM spec,
each asked through the same :class:`~.planner.LLMPlanner` (seed 002's Fig. 3 prompt in a
``variant``): the stand-ins are LLMs that read the prompt; shared by the agent and the
leaderboard."""

from __future__ import annotations

from typing import Any, Optional

from pddlkit.agents.standins import StandIn, knows, parse_stand_in, rate

#: what ``--llm`` may name for the stand-ins (``standin:plap:noisy``'s rate: the share of
#: noisy lines), read by one parser on the command line and here alike
STAND_INS = (StandIn("standin", mode="", knows="stand-in (the expert tips)"),
             StandIn("standin-noisy", rate, "standin:plap:noisy:0.3", default=0.3, form="RATE",
                     mode="noisy", knows="stand-in (the expert tips, with noisy lines)"))


def make_planner(spec: Any, env, variant: str = "zs", seed: int = 0,
                 feedback: bool = True, constrained: bool = False, progress: bool = False):
    """The planner of ``spec``: a stand-in's name, an LLM spec, or an LLM object (a job's
    :meth:`~pddlkit.agents.Job.make_llm`)."""
    from .planner import LLMPlanner
    from .standin import NoisyPlanner, TipsPlanner

    stand_in = parse_stand_in(spec, STAND_INS, "plap") if spec else ("standin", None)
    if spec is not None and not isinstance(spec, str):   # an LLM already made
        llm = spec
    elif stand_in is not None and stand_in[0] != "standin-noisy":
        llm = TipsPlanner().llm()
    elif stand_in is not None:
        llm = NoisyPlanner(stand_in[1], seed).llm()
    else:
        from pddlkit.llm import load_llm

        llm = load_llm(spec)
    return LLMPlanner(llm, env.units_table, variant, feedback=feedback, constrained=constrained,
                      progress=progress)


def stand_in(llm: Optional[str]) -> Optional[str]:
    """What the stand-in planner knows, for row labels and summaries; None for an LLM."""
    return knows(str(llm or "").split("@")[0], STAND_INS, "plap")
