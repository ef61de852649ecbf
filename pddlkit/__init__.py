"""pddlkit: plan through a symbolic world model.

The top-level names are loaded lazily so that ``import pddlkit`` stays cheap (the CLI and
every worker process pay it); heavy dependencies (lark, unified-planning, openai) are imported
only when a feature needs them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

_LAZY = {
    "parse_domain": "pddlkit.pddl.reader",
    "parse_problem": "pddlkit.pddl.reader",
    "read_domain": "pddlkit.pddl.reader",
    "read_problem": "pddlkit.pddl.reader",
    "write_domain": "pddlkit.pddl.writer",
    "write_problem": "pddlkit.pddl.writer",
    "parse_plan": "pddlkit.pddl.plan",
    "Plan": "pddlkit.pddl.plan",
    "check": "pddlkit.checks",
    "CheckReport": "pddlkit.checks",
    "validate_plan": "pddlkit.semantics.validate",
    "PlanValidation": "pddlkit.semantics.validate",
    "World": "pddlkit.semantics.world",
    "State": "pddlkit.semantics.state",
    "ground_actions": "pddlkit.semantics.grounding",
    "Diagnostic": "pddlkit.diagnostics",
    "Severity": "pddlkit.diagnostics",
    "PDDLError": "pddlkit.diagnostics",
    "PDDLSyntaxError": "pddlkit.diagnostics",
    "PDDLSemanticError": "pddlkit.diagnostics",
    "PlanFormatError": "pddlkit.diagnostics",
    "plan": "pddlkit.planners.api",
    "PlanResult": "pddlkit.planners.result",
    "PlanStatus": "pddlkit.planners.result",
    "Planner": "pddlkit.planners.protocol",
    "PlanningTask": "pddlkit.planners.task",
    "FastDownward": "pddlkit.planners.fast_downward",
    "CommandPlanner": "pddlkit.planners.command",
    "UPPlanner": "pddlkit.planners.up_engine",
    "SQLitePlanCache": "pddlkit.planners.cache",
    "MemoryPlanCache": "pddlkit.planners.cache",
    "why_no_plan": "pddlkit.planners.explain",
    "NoPlanExplanation": "pddlkit.planners.explain",
    "register_planner": "pddlkit.planners.registry",
    "get_planner": "pddlkit.planners.registry",
    "available_planners": "pddlkit.planners.registry",
    "UnknownPlannerError": "pddlkit.planners.registry",
    "load_llm": "pddlkit.llm.spec",
    "Completion": "pddlkit.llm.base",
    "ScriptedLLM": "pddlkit.llm.scripted",
    "configure": "pddlkit.llm.defaults",
    "NoLLMConfigured": "pddlkit.llm.defaults",
}

#: names a front end exports at the package's top (``pddlkit.formalize_and_plan``), declared
#: by the front end under this entry-point group, so the core names no front end
EXPORTS_GROUP = "pddlkit.exports"


def _exports() -> dict:
    from .plugins import entry_points_of

    return {ep.name: ep for ep in entry_points_of(EXPORTS_GROUP)}


def __getattr__(name: str):
    if name == "__all__":   # built when asked (``import *``, ``dir``): the scan of installed
        value = sorted([*_LAZY, *_exports()]) + ["__version__"]   # packages is not paid
        globals()["__all__"] = value                              # by ``import pddlkit``
        return value
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
    else:
        exported = _exports().get(name)
        if exported is None:
            raise AttributeError(f"module 'pddlkit' has no attribute {name!r}")
        value = exported.load()
    globals()[name] = value
    return value


def __dir__():
    return __getattr__("__all__")


if TYPE_CHECKING:  # pragma: no cover
    from .checks import CheckReport, check
    from .diagnostics import (Diagnostic, PDDLError, PDDLSemanticError, PDDLSyntaxError,
                              PlanFormatError, Severity)
    from .llm.base import Completion
    from .llm.scripted import ScriptedLLM
    from .llm.spec import load_llm
    from .pddl.plan import Plan, parse_plan
    from .pddl.reader import parse_domain, parse_problem, read_domain, read_problem
    from .pddl.writer import write_domain, write_problem
    from .planners.api import plan
    from .planners.cache import MemoryPlanCache, SQLitePlanCache
    from .planners.command import CommandPlanner
    from .planners.explain import NoPlanExplanation, why_no_plan
    from .planners.fast_downward import FastDownward
    from .planners.protocol import Planner
    from .planners.registry import (UnknownPlannerError, available_planners, get_planner,
                                    register_planner)
    from .planners.result import PlanResult, PlanStatus
    from .planners.task import PlanningTask
    from .planners.up_engine import UPPlanner
    from .semantics.grounding import ground_actions
    from .semantics.state import State
    from .semantics.validate import PlanValidation, validate_plan
    from .semantics.world import World
