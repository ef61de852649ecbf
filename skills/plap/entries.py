"""The planners a PLAP entry names: ``standin`` (the expert tips), ``standin-noisy[:rate]``
(with malformed, impossible and wasteful lines), or an LLM spec prompted with seed 002's
Fig. 3 in a prompt ``variant``; shared by the agent and the leaderboard."""

from __future__ import annotations

from typing import Optional


def make_planner(spec: Optional[str], env, variant: str = "zs", seed: int = 0,
                 feedback: bool = True):
    from .planner import LLMPlanner
    from .standin import NoisyPlanner, TipsPlanner

    if spec in ("standin", "observation", None, ""):
        return TipsPlanner()
    if spec.startswith("standin-noisy"):
        rate = float(spec.split(":", 1)[1]) if ":" in spec else 0.3
        return NoisyPlanner(rate, seed)
    from pddlkit.llm import load_llm

    return LLMPlanner(load_llm(spec), env.units_table, variant, feedback=feedback)


def stand_in(llm: Optional[str]) -> Optional[str]:
    """What the stand-in planner knows, for row labels and summaries; None for an LLM."""
    spec = str(llm or "").split("@")[0]
    if spec in ("", "standin", "observation"):
        return "stand-in (the expert tips)"
    if spec.startswith("standin-noisy"):
        return "stand-in (the expert tips, with noisy lines)"
    return None
