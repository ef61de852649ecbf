"""Text environments as PDDL worlds (``pddlkit.envs``).

``make("coin-collector", rooms=7, seed=0)``, ``make("household", receptacles=20,
difficulty="heat")``, ``make("textworld", game="coin", level=5)``; ``PDDLWorldEnv`` turns any
PDDL model into a text environment. The core never imports this package.
"""

from .api import (ActionTemplate, EnvCheckError, EnvProblem, LazyCommands, Step, TextEnv,
                  check_env, ending, jsonable)
from .pddl_world import NOTHING_HAPPENS, PDDLWorldEnv, Snapshot
from .registry import EnvSpec, UnknownEnvError, list_envs, make, register

__all__ = ["ActionTemplate", "EnvCheckError", "EnvProblem", "LazyCommands", "Step", "TextEnv",
           "check_env", "ending", "jsonable", "NOTHING_HAPPENS",
           "PDDLWorldEnv", "Snapshot", "EnvSpec", "UnknownEnvError", "list_envs", "make",
           "register"]
