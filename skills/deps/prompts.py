"""DEPS's prompt files (``skills/prompts/deps/``), per game a world says it is (``world.game``;
Minecraft by default): Crafter's are written for Crafter's items, in the paper's format (see
the prompts' README). Read once per process."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

PROMPTS = Path(__file__).resolve().parent.parent / "prompts" / "deps"
#: the planner's and the explainer's prompt file of each game
PROMPT_FILES = {"Minecraft": ("planner.txt", "explainer.txt"),
                "Crafter": ("planner-crafter.txt", "explainer-crafter.txt")}


@lru_cache(maxsize=None)
def planner_prompt(game: str) -> str:
    from pddlkit.llm.prompts import read_prompt

    return read_prompt(PROMPTS, PROMPT_FILES[game][0]).text.rstrip("\n")


@lru_cache(maxsize=None)
def explainer_prompt(game: str):
    """The explainer's template (:class:`pddlkit.llm.prompts.PromptFile`: ``$action``,
    ``$inventory``)."""
    from pddlkit.llm.prompts import read_prompt

    return read_prompt(PROMPTS, PROMPT_FILES[game][1])
