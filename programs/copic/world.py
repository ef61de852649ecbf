"""What CoPiC needs from an environment: a :class:`ProgramWorld` puts one environment behind the
program API its prompts describe, runs chosen plans, and says what happened in words the
evolution prompt can use.

Each environment keeps its own program shape (seed 000 gives one per environment):
StarCraft II programs are ``planner(obs, action_space, task)``, household programs are the
paper's task methods over an ``Agent`` (run against a recording agent, :mod:`.household_api`),
NetHack programs choose one skill per step. The loop (:mod:`.loop`) only sees the protocol.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Protocol, Sequence, runtime_checkable


@dataclass
class Executed:
    """A chosen plan's outcome: reward summed over its actions, ``actions`` run (a plan that
    fails stops at its first failing action), and the observation text afterwards."""

    reward: float
    done: bool
    won: bool
    actions: int
    observation: str
    info: dict = field(default_factory=dict)


@runtime_checkable
class ProgramWorld(Protocol):
    """One environment under CoPiC. ``kind`` names the program shape and the prompt folder
    (``programs/prompts/copic/<kind>``); ``entry`` the function each program defines."""

    kind: str
    entry: str             # the function the sandbox calls
    max_plan: int
    budget: int            # environment actions per episode

    def reset(self, seed: Optional[int]) -> None: ...

    @property
    def task_type(self) -> str: ...

    @property
    def program_name(self) -> str: ...  # the function the LLM writes

    @property
    def task_text(self) -> str: ...

    def program_args(self) -> dict: ...

    def observation_text(self) -> str: ...

    def check_plan(self, value: Any) -> list[str]: ...

    def first_action_fails(self, plan: Sequence[str]) -> Optional[str]: ...

    def execute(self, plan: Sequence[str]) -> Executed: ...

    def fallback(self) -> list[str]: ...

    def episode_result(self, won: bool) -> str: ...

    def program_source(self, body: str) -> str: ...

    def init_prompt(self, example: Optional[str]) -> str: ...

    def evolve_prompt(self, programs: Sequence[str], results: str,
                      example: Optional[str]) -> str: ...


def plan_text(plan: Sequence[str]) -> str:
    """A plan as the critic reads it: actions joined by "; "."""
    return "; ".join(plan)


def render(folder: Path, name: str, **fields: str) -> str:
    """A CoPiC prompt file filled with ``fields`` (:mod:`pddlkit.llm.prompts`: ``$name``
    placeholders, and a placeholder with no value is an error naming the file)."""
    from pddlkit.llm.prompts import read_prompt

    return read_prompt(folder, name).fill(**fields)


def programs_block(programs: Sequence[str]) -> str:
    """The evolution prompts' "Program i:" list of python blocks."""
    return "\n".join(f"Program {i}:\n```python\n{p.rstrip()}\n```"
                     for i, p in enumerate(programs, 1))


def checked_mistakes(mistakes, known: Sequence[str]) -> frozenset:
    """``mistakes`` as a frozenset, or ValueError naming the unknown ones and the known."""
    mistakes = frozenset(mistakes)
    unknown = mistakes - set(known)
    if unknown:
        raise ValueError(f"unknown mistake(s) {sorted(unknown)}; known: {', '.join(known)}")
    return mistakes
