"""The household's knowledge in one module (issue 47): the environment writes its task
sentences with it, and the PDDLego+ reader and CoPiC's household world read them with it;
every sentence the environment emits is read back to the task it was made from."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pddlkit.envs import make
from pddlkit.envs.household import RECEPTACLES
from pddlkit.envs.household_tasks import (DIFFICULTIES, OPENABLE, TASK_TYPES,
                                          read_task_sentence)
from pddlkit.formalizers.household_reader import read_task
from pddlkit.programs.copic.household_world import parse_task

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("task_type", TASK_TYPES)
def test_every_task_sentence_the_household_writes_is_read_back(task_type):
    for seed in range(12):
        env = make("household", receptacles=12, difficulty=task_type)
        env.reset(seed=seed)
        task = read_task_sentence(env.task)
        assert task.task_type == task_type, env.task
        goal = read_task(env.task)                     # the PDDLego+ reader
        assert goal.target == task.target
        if task_type != "slice_and_place":             # CoPiC: ALFWorld's six
            assert parse_task(env.task)[:2] == (task_type, task.target)


def test_alfworld_wordings_are_read_by_the_same_reader():
    assert read_task_sentence("Your task is to: heat some potato and put it in countertop."
                              ) == read_task_sentence("put a hot potato on countertop.")
    assert read_task_sentence("find two cd and put them in shelf.").task_type == \
        "pick_two_obj_and_place"
    look = read_task_sentence("look at bowl under the desklamp.")
    assert (look.task_type, look.target, look.receptacle) == (
        "look_at_obj_in_light", "bowl", "desklamp")
    with pytest.raises(ValueError, match="not a household task sentence"):
        read_task_sentence("dance in the kitchen.")


def test_one_table_of_openable_receptacles():
    assert {c for c, (opens, _) in RECEPTACLES.items() if opens} == OPENABLE - {"box"}
    assert set(DIFFICULTIES["basic&use"]) < set(TASK_TYPES)
    # the agent API CoPiC's programs run with in the sandbox cannot import pddlkit: its
    # copy of the table is tied to the one here
    api = (REPO / "programs" / "copic" / "household_agent.py").read_text()
    listed = re.search(r"openable=_type_of\(name\) in \(([^)]*)\)", api, re.S).group(1)
    assert set(re.findall(r'"(\w+)"', listed)) == OPENABLE
