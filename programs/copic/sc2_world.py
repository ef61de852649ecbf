"""StarCraft II unit building under CoPiC: :class:`~pddlkit.envs.sc2_build.SC2Build` behind the
paper's program API, ``planner(obs, action_space, task) -> list[str]`` (Appendix B.3).

- **A step** runs one chosen plan (at most 5 actions) and advances game time by the simulator's
  ``step_seconds``; the budget is the simulator's game-time limit.
- **Time limit**: 660 s of game time per episode (the paper gives none; the simulator's own
  default is 30 minutes). The correct strategy finishes every difficulty within it on seeds
  0-99 and 1000-1099, and a wasteful plan then costs the episode, so the choice among programs
  shows in the success rate, not only in the steps.
- **The task type** is the difficulty: one program set per difficulty, as the paper evolves one
  per task family; the unit counts vary by seed.
- **The world-model filter** reads the tech tree as PDDL (:func:`~pddlkit.envs.sc2_build.
  tech_model`, tried through :func:`pddlkit.semantics.simulate.simulate`) with a believed state built from the observation the programs see: a kind is
  "had" when its count is above 0 (the count includes buildings still under construction, so the
  belief is optimistic and a rejection is always right: the first action needs a building that
  is not even started).
- **The results** for the evolution prompt are the paper's "final unit counts" per episode
  (``SCV 18/18, BATTLECRUISER 0/2 (+1 in progress)``: finished units against the target, the
  ones in production or queued apart), and per program how often its plans were chosen, the
  actions of its plans that could not start (with the simulator's reason), and its errors.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional, Sequence

from pddlkit.envs.sc2_build import (DIFFICULTIES, MAX_PLAN, TECH_MESSAGES, SC2Build, public_obs,
                                    tech_goal, tech_model, tech_state)
from pddlkit.envs.sc2_data import KINDS

from .world import Executed, programs_block, render

PROMPTS = Path(__file__).resolve().parent.parent / "prompts" / "copic" / "sc2"


@lru_cache(maxsize=1)
def _tech_world():
    from pddlkit.semantics.world import World

    return World(tech_model(), tech_goal(["SCV"]))


def believed_state(obs: dict):
    """The tech-tree state the observation shows: ``(have-x)`` for every kind counted."""
    return tech_state(k for k, n in {**obs["Building"], **obs["Unit"]}.items() if n > 0)


def tech_failure(obs: dict, action: str) -> Optional[str]:
    """Why ``action`` cannot start in any state the observation allows, by the tech tree (the
    world-model service, :func:`pddlkit.semantics.simulate.simulate`, and the simulator's own
    sentences); None when the tree allows it (costs, supply and idle producers stay with the
    simulator)."""
    from pddlkit.semantics.simulate import simulate

    verb, _, name = action.strip().upper().partition(" ")
    if verb not in ("BUILD", "TRAIN") or name not in KINDS:
        return f"unknown action {action!r}"
    if (verb == "TRAIN") != KINDS[name].is_unit:
        return f"{name} cannot be {'trained' if verb == 'TRAIN' else 'built'}"
    tried = simulate(_tech_world(), believed_state(obs), f"make-{name.lower()}")
    if tried.applicable:
        return None
    return TECH_MESSAGES.first_sentence(tried, context=name) or str(tried.first)


class SC2World:
    """``SC2World("hard")``: CoPiC's view of the SC2 unit-building simulator."""

    kind = "sc2"
    entry = "planner"
    max_plan = MAX_PLAN
    trajectory_lines = 0   # the results show final counts, not step-by-step histories
    wait_is_a_plan = True  # an empty plan saves resources: a choice among the others

    def __init__(self, difficulty: str = "easy", *, step_seconds: float = 10.0,
                 max_seconds: float = 660.0, task: Optional[dict] = None) -> None:
        self.env = SC2Build(difficulty, step_seconds=step_seconds, max_seconds=max_seconds,
                            task=task)
        self.difficulty = difficulty
        self.budget = int(max_seconds // step_seconds)
        self._obs: dict = {}

    @property
    def id(self) -> str:
        return f"sc2-build-{self.difficulty}"

    def reset(self, seed: Optional[int]) -> None:
        self._obs, _ = self.env.reset(seed)

    @property
    def task_type(self) -> str:
        return self.difficulty

    @property
    def program_name(self) -> str:
        return "planner"

    @property
    def task_text(self) -> str:
        return "train " + ", ".join(f"{n} {u}" for u, n in self.env.task.items())

    def program_args(self) -> dict:
        return {"obs": public_obs(self._obs), "action_space": self.env.action_space(),
                "task": dict(self.env.task)}

    def observation_text(self) -> str:
        obs = public_obs(self._obs)
        have = ", ".join(f"{k} {v}" for k, v in {**obs["Building"], **obs["Unit"]}.items() if v)
        res = obs["Resource"]
        return (f"supply {res['supply_cap'] - res['supply_left']}/{res['supply_cap']}, gas "
                f"{res['gas']}; have {have}")

    def check_plan(self, value: Any) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
            raise ValueError(f"planner must return a list of action strings, got "
                             f"{type(value).__name__}: {str(value)[:80]}")
        return [a.strip() for a in value if a.strip()][:MAX_PLAN]

    def first_action_fails(self, plan: Sequence[str]) -> Optional[str]:
        return tech_failure(public_obs(self._obs), plan[0]) if plan else None

    def execute(self, plan: Sequence[str]) -> Executed:
        step = self.env.step(list(plan))
        self._obs = step.observation
        done = step.terminated or step.truncated
        failed = [(a, why.split("; there are")[0]) for a, why in step.info["skipped"]]
        return Executed(step.reward, done, step.won, 1, self.observation_text(),
                        {"failed": failed, "started": step.info["started"]})

    def potential(self) -> float:
        """Minus the simulator's relaxed estimate of the steps still needed
        (:meth:`~pddlkit.envs.sc2_build.SC2Build.seconds_left` over the step length), for
        potential-based reward shaping: the paper's reward pays only when a wanted unit starts,
        so a wasted order or a missing tech building would otherwise show only many steps
        later."""
        return -self.env.seconds_left() / self.env.step_seconds

    def fallback(self) -> list[str]:
        """No program proposed anything: the step passes with no action (time still runs)."""
        return []

    def episode_result(self, won: bool) -> str:
        """The task, the outcome and the final counts: finished units against the target, with
        the ones still in production (or queued) apart, ``SCV 17/18 (+1 in progress)``."""
        def count(unit: str, wanted: int) -> str:
            finished, pending = self._obs["_detail"][unit]
            return f"{unit} {finished}/{wanted}" + (f" (+{pending} in progress)" if pending
                                                    else "")

        counts = ", ".join(count(u, n) for u, n in self.env.task.items())
        extra = ", ".join(f"{u} {n}" for u, n in self._obs["Unit"].items()
                          if n and u not in self.env.task and u != "SCV")
        return (f"task {json.dumps(self.env.task)}: {'completed' if won else 'not completed'} "
                f"after {self.env.time:.0f} s of game time; final unit counts {counts}"
                + (f"; units not in the task: {extra}" if extra else ""))

    # -- prompts --------------------------------------------------------------------------
    def program_source(self, body: str) -> str:
        return body

    def init_prompt(self, example: Optional[str] = None) -> str:
        task = {u: f"num_{i}" for i, u in enumerate(DIFFICULTIES[self.difficulty], 1)}
        return render(PROMPTS, "init.txt", task=json.dumps(task, indent=0))

    def evolve_prompt(self, programs: Sequence[str], results: str,
                      example: Optional[str] = None) -> str:
        evolve = render(PROMPTS, "evolve.txt", count=str(len(programs)),
                        programs=programs_block(programs), results=results)
        return self.init_prompt() + "\n\n" + evolve

