"""NetHack under CoPiC: :class:`pddlkit.envs.nethack.NetHackTask` behind ``planner(obs)``, one
skill per step (Appendix B.2).

- **The task type** is the task (drink, open-box, exp-level-3). Episode seed ``i`` is game
  ``i`` (``seeds="all"``, the paper's setting, the default), or the ``i``-th seed whose first
  level shows what the task needs, reachable (``seeds="visible-target"``,
  :func:`pddlkit.envs.nethack.task_seeds`: a much easier set, named for what it is).
- **A step** runs one skill; the budget is the game's keystrokes (``max_keys``), counted as
  the episode's steps.
- **No world-model filter**: NetHack has no symbolic model here, so ``first_action_fails``
  returns None (the filter drops nothing).
- **The results** for evolution: per episode, success or not, the keystrokes, the last game
  message and the last 8 skills with what the screen said; then what each program did (the
  skills that failed, with the reason, and errors).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional, Sequence

from .world import Executed, programs_block, render

PROMPTS = Path(__file__).resolve().parent.parent / "prompts" / "copic" / "nethack"


def skill_text(call: dict) -> str:
    """``move_to(x=7, y=13)``: a skill call as the critic reads it."""
    params = ", ".join(f"{k}={v}" for k, v in call.items() if k != "name")
    return f"{call.get('name')}({params})"


#: which games NetHack episodes play: every seed, or those whose target is in view at turn 1
SEED_SETS = ("all", "visible-target")


class NetHackWorld:
    """``NetHackWorld("drink")``."""

    kind = "nethack"
    entry = "planner"
    max_plan = 1
    trajectory_lines = 8

    def __init__(self, task: str = "drink", *, max_keys: Optional[int] = None,
                 seeds: str = "all", env: Any = None) -> None:
        """``env``: the NetHack task, already made (``make("nethack-drink", ...)``, a job's
        ``make_env``); by default one is made here."""
        if seeds not in SEED_SETS:
            raise ValueError(f"seeds must be one of {', '.join(SEED_SETS)}, got {seeds!r}")
        if env is None:
            from pddlkit.envs import make

            env = make("nethack", task=task, max_keys=max_keys)
        self.env = env
        self.task_name = task
        self.budget = self.env.max_keys
        self.seeds = seeds
        self._seeds: list[int] = []

    @property
    def id(self) -> str:
        return f"nethack-{self.task_name}"

    def seed_for(self, index: int) -> int:
        """The game of episode ``index``: the seed itself (``seeds="all"``, every game, as
        the paper), or the ``index``-th seed whose first level shows the target
        (``"visible-target"``; level 3 has no target, so it is every seed either way)."""
        from pddlkit.envs.nethack import task_seeds

        if self.seeds == "all":
            return index
        while len(self._seeds) <= index:
            start = self._seeds[-1] + 1 if self._seeds else 0
            self._seeds += task_seeds(self.task_name, count=index + 1 - len(self._seeds),
                                      start=start)
        return self._seeds[index]

    def reset(self, seed: Optional[int]) -> None:
        self.env.reset(self.seed_for(seed or 0))

    @property
    def task_type(self) -> str:
        return self.task_name

    @property
    def program_name(self) -> str:
        return "planner"

    @property
    def task_text(self) -> str:
        return self.env.task

    def program_args(self) -> dict:
        return {"obs": self.env.observe()}

    def observation_text(self) -> str:
        obs = self.env.observe()
        me = obs["Agent Information"]
        near = [f"{e['name']} at {e['x']},{e['y']}" for e in
                (obs["Features"] + obs["Objects"] + obs["Monsters"])[:4]]
        return (f"at {me['x']},{me['y']} on {me['standing_on']}; {me['game_message']}; "
                f"near: {', '.join(near) or 'nothing'}")

    def check_plan(self, value: Any) -> list[str]:
        if isinstance(value, dict) and isinstance(value.get("skill"), dict):
            value = value["skill"]  # the paper's {"thoughts": ..., "skill": ...} answer
        if not isinstance(value, dict) or not isinstance(value.get("name"), str):
            raise ValueError(f"planner must return a skill dict such as {{'name': 'explore'}}, "
                             f"got {type(value).__name__}: {str(value)[:80]}")
        return [json.dumps(value, sort_keys=True)]

    def first_action_fails(self, plan: Sequence[str]) -> Optional[str]:
        return None

    def execute(self, plan: Sequence[str]) -> Executed:
        call = json.loads(plan[0]) if plan else {"name": "search"}
        outcome = self.env.skill(call)
        failed = [(skill_text(call), outcome.failure)] if outcome.failure else []
        return Executed(outcome.reward, outcome.done, outcome.won, max(1, outcome.keys),
                        outcome.message, {"failed": failed})

    def fallback(self) -> list[str]:
        return [json.dumps({"name": "search"})]

    def episode_result(self, won: bool) -> str:
        return (f"{self.env.task} {'done' if won else 'not done'} after {self.env.keys} keys; "
                f"{self.env.status_text()}; last message: {self.env.message() or '(none)'}")

    def plan_label(self, plan: Sequence[str]) -> str:
        return skill_text(json.loads(plan[0])) if plan else "search()"

    # -- prompts --------------------------------------------------------------------------
    def program_source(self, body: str) -> str:
        return body

    def init_prompt(self, example: Optional[str] = None) -> str:
        return render(PROMPTS, "init.txt", task=self.env.task)

    def evolve_prompt(self, programs: Sequence[str], results: str,
                      example: Optional[str] = None) -> str:
        return self.init_prompt() + "\n\n" + render(
            PROMPTS, "evolve.txt", task=self.env.task,
            count=str(len(programs)), programs=programs_block(programs), results=results)
