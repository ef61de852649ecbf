"""IPP's ``skeleton`` option (issue 76): tested helpers over the task's API in the prompts,
the model writes ``solve`` only, and the helpers run after its code in the sandbox.

The helpers are pddlkit's code, so they are checked here on the host: a DoorKey walk built
from them wins real MiniGrid games, and GRASP's path search takes shortest walks around
obstacles."""

from __future__ import annotations

import pytest
from conftest import need_module

from pddlkit.llm.scripted import ScriptedLLM
from pddlkit.programs import IPP
from pddlkit.programs.ipp import SKELETON_MARK
from pddlkit.programs.skeletons import grasp as G
from pddlkit.programs.skeletons import minigrid as M
from pddlkit.programs.skeletons import skeleton_source
from pddlkit.programs.tasks import GraspTask
from pddlkit.sandbox import Policy

QUICK = Policy(call_timeout=2.0, cpu_seconds=2, memory_bytes=256 << 20)

GRID = [list(" O  "), list(" O E"), list("A   "), list("OO E")]


def test_grasp_paths_go_around_obstacles_and_find_the_nearest_energy():
    assert G.path_to(GRID, (2, 0), (0, 0), False) == ["UP", "UP"]
    assert G.path_to(GRID, (2, 0), (0, 2), False) == ["RIGHT", "RIGHT", "UP", "UP"]
    assert len(G.path_to(GRID, (2, 0), (0, 2), True)) == 3       # diagonals shorten it
    assert G.path_to(GRID, (2, 0), (3, 0), False) is None         # an obstacle
    cell, moves = G.nearest(GRID, (2, 0), "E", False)
    assert cell in ((1, 3), (3, 3)) and len(moves) == 4
    assert G.nearest(GRID, (2, 0), "E", False, skip=[(1, 3), (3, 3)]) is None


def _doorkey(grid, start_direction):
    """A DoorKey strategy written with the helpers only (what the skeleton lets a model do)."""
    agent, key = M.find(grid, "AGENT"), M.find(grid, "KEY")
    door, goal = M.find(grid, "DOOR"), M.find(grid, "GOAL")
    to_key, cell, face = M.walk(grid, agent, start_direction, key, stand_on=False)
    to_door, cell, face = M.walk(grid, cell, face, door, stand_on=False, open_cells=[key])
    to_goal, cell, face = M.walk(grid, cell, face, goal, open_cells=[key, door])
    return to_key + ["PICKUP"] + to_door + ["UNLOCK"] + to_goal


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_doorkey_walk_built_from_the_helpers_wins_real_minigrid_games(seed):
    need_module("minigrid", "pip install 'pddlkit[minigrid]'")
    from pddlkit.envs import minigrid_tasks as T

    seen = T.observe("doorkey", seed)
    actions = _doorkey(seen.program_args()["grid"], seen.start_direction)
    assert T.run("doorkey", seed, actions).success, actions


def test_turning_and_walking_keep_the_facing():
    assert M.turned("UP", "RIGHT") == "RIGHT" and M.turned("UP", "LEFT") == "LEFT"
    grid = [["WALL"] * 4, ["WALL", "AGENT", "", "WALL"], ["WALL"] * 4]
    assert M.walk(grid, (1, 1), "UP", (1, 2)) == (["RIGHT", "MOVE"], (1, 2), "RIGHT")
    assert M.walk(grid, (1, 1), "RIGHT", (2, 1), stand_on=False)[0] == ["RIGHT"]
    assert M.walk(grid, (1, 1), "UP", (0, 0)) is None


@pytest.fixture(scope="module")
def task():
    from pddlkit.envs.grasp import generate_corpus, instances

    return GraspTask(instances(generate_corpus(seed=0, per_file=1)[:4]))


SOLVE_ONLY = """```python
def solve(grid, start_pos, carry_limit, cost_per_step, is_diagonals_allowed, max_actions):
    found = nearest(grid, start_pos, "E", is_diagonals_allowed)
    if found is None:
        return []
    cell, there = found
    back = path_to(grid, cell, start_pos, is_diagonals_allowed)
    return there + ["TAKE"] + back + ["DROP"]
```"""


def test_the_model_writes_solve_only_and_the_helpers_run_after_it(task):
    prompts = []

    def answer(messages):
        prompts.append(messages[-1]["content"])
        return "take the nearest energy home" if len(messages) == 1 else SOLVE_ONLY

    result = IPP(task, ScriptedLLM(answer), workers=1, policy=QUICK, max_rounds=0,
                 skeleton=True).run()
    first = result.rounds[0]
    assert first.failures == 0 and first.mean > -1, first
    assert SKELETON_MARK in first.program and first.program.index("def solve") < \
        first.program.index("def shortest_paths")
    assert "def shortest_paths" in prompts[0] and "Write only the function `solve(" in prompts[0]
    assert "paths = {start: []}" not in prompts[0]   # the API shown, not the bodies


def test_a_refinement_shows_the_models_code_without_the_helpers(task):
    prompts = []

    def answer(messages):
        prompts.append(messages[-1]["content"])
        return "take the nearest energy home" if len(messages) == 1 else SOLVE_ONLY

    IPP(task, ScriptedLLM(answer), workers=1, policy=QUICK, max_rounds=1, patience=1,
        skeleton=True).run()
    refine = prompts[2]
    code = refine.split("<your_code>", 1)[1] if "<your_code>" in refine else refine
    assert SKELETON_MARK not in refine and "found = nearest(" in code


def test_the_skeleton_is_refused_with_the_papers_prompts_or_a_task_without_one(task):
    with pytest.raises(ValueError, match="paper's prompts"):
        IPP(task, ScriptedLLM(lambda m: ""), skeleton=True, prompts="paper")

    class Other:
        name = "other"
    with pytest.raises(ValueError, match="no skeleton for the task 'other'"):
        IPP(Other(), ScriptedLLM(lambda m: ""), skeleton=True)


def test_every_skeleton_compiles_without_its_docstring():
    for name in ("grasp", "minigrid-doorkey"):
        source = skeleton_source(name)
        assert '"""' not in source.split("\n", 1)[0]
        compile(source, name, "exec")


def test_a_copy_of_a_given_helper_is_dropped_and_said(task):
    """Qwen2.5-Coder 1.5B copied the helpers into its answer: the copy is dropped (ours runs),
    and the round says so."""
    copied = SOLVE_ONLY.replace("```python\n", "```python\ndef nearest(*args):\n"
                                "    return None\n\n\n")

    def answer(messages):
        return "take the nearest energy home" if len(messages) == 1 else copied

    first = IPP(task, ScriptedLLM(answer), workers=1, policy=QUICK, max_rounds=0,
                skeleton=True).run().rounds[0]
    assert first.failures == 0 and first.mean > -1, first
    assert any(d.startswith("def nearest (lines 1-2)") for d in first.dropped), first.dropped
    assert "return None" not in first.program.split(SKELETON_MARK)[0]


def test_a_copy_of_a_given_helper_inside_solve_is_dropped_and_solve_calls_ours(task):
    """Qwen2.5-Coder 1.5B (DoorKey, skeleton and solve-first) defined its own copies of the
    helpers inside ``solve``: they are dropped, so ``solve`` calls the tested ones, and the
    round says so; a copy that is its block's only statement stays (dropping it would leave
    the block empty)."""
    from pddlkit.programs.splice import drop_definitions

    nested = SOLVE_ONLY.replace(
        '    found = nearest(grid, start_pos, "E", is_diagonals_allowed)\n',
        "    def nearest(*args):\n        return None\n"
        '    found = nearest(grid, start_pos, "E", is_diagonals_allowed)\n')

    def answer(messages):
        return "take the nearest energy home" if len(messages) == 1 else nested

    first = IPP(task, ScriptedLLM(answer), workers=1, policy=QUICK, max_rounds=0,
                skeleton=True).run().rounds[0]
    assert any(d.startswith("def nearest inside solve (lines 2-3)") for d in first.dropped), \
        first.dropped
    own = first.program.split(SKELETON_MARK)[0]
    assert "return None" not in own and first.failures == 0 and first.mean > -1, first
    alone = "def solve():\n    if True:\n        def nearest():\n            return 1\n" \
            "    return nearest()\n"
    assert drop_definitions(alone, {"nearest"}) == (alone, [])
