"""Planners: Fast Downward by default, any solver pluggable, and why there is no plan.

``pddlkit.plan(domain, problem)`` is the entry point (:mod:`.api`); planners implement the
:class:`~.protocol.Planner` protocol and are found by name through :mod:`.registry`.
"""

from .api import DEFAULT_TIMEOUT, plan
from .cache import MemoryPlanCache, PlanCacheError, SQLitePlanCache
from .command import CommandPlanner
from .explain import NoPlanExplanation, why_no_plan
from .fast_downward import FastDownward
from .protocol import LimitError, Planner
from .registry import (PlannerInfo, UnknownPlannerError, available_planners, get_planner,
                       register_planner, unregister_planner)
from .result import PlanResult, PlanStatus, Timings
from .task import PlanningTask, load_task
from .up_engine import UPPlanner

__all__ = [
    "plan", "DEFAULT_TIMEOUT", "PlanResult", "PlanStatus", "Timings", "Planner", "PlanningTask",
    "load_task", "FastDownward", "CommandPlanner", "UPPlanner", "MemoryPlanCache",
    "SQLitePlanCache", "NoPlanExplanation", "why_no_plan", "PlannerInfo", "UnknownPlannerError",
    "available_planners", "get_planner", "register_planner", "unregister_planner",
    "LimitError", "PlanCacheError",
]
