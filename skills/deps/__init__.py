"""DEPS (seed 003): describe, explain, plan and select, over the crafting world's goals."""

from .explain import LLMExplainer, SymbolicExplainer
from .goals import Goal, ParsedPlan, PlanLineError, parse_plan
from .loop import Deps, DepsConfig, DepsEpisode
from .standin import StandinDeps

__all__ = ["Deps", "DepsConfig", "DepsEpisode", "Goal", "LLMExplainer", "ParsedPlan",
           "PlanLineError", "StandinDeps", "SymbolicExplainer", "parse_plan"]
