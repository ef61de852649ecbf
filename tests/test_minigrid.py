"""MiniGrid through the real package: the PDDL model's plans complete Unlock, DoorKey and
UnlockPickup; the encoding programs get; scoring by first success and by the authors' rule."""

from __future__ import annotations

import pytest

from conftest import need_module

need_module("minigrid", "pip install 'pddlkit[minigrid]'")

from pddlkit.envs import minigrid_tasks as M  # noqa: E402


@pytest.mark.slow
@pytest.mark.parametrize("task", list(M.TASKS))
def test_fast_downward_plans_complete_every_task_on_50_seeds(task):
    rewards = []
    for seed in range(50):
        actions, outcome = M.planner_baseline(task, seed)
        assert actions and outcome.success, (task, seed, actions, outcome.account())
        assert outcome.steps == len(actions)
        rewards.append(outcome.reward)
    assert min(rewards) > 0.8


def test_the_grid_as_a_program_sees_it():
    o = M.observe("doorkey", 0)
    flat = [c for row in o.grid for c in row]
    assert len(o.grid) == 8 and all(len(r) == 8 for r in o.grid)
    assert flat.count("AGENT") == 1 and flat.count("DOOR") == 1 and flat.count("KEY") == 1
    assert flat.count("GOAL") == 1 and set(flat) <= {"WALL", "DOOR", "KEY", "GOAL", "AGENT", ""}
    assert o.start_direction in ("UP", "DOWN", "LEFT", "RIGHT")
    u = M.observe("unlockpickup", 3)
    assert sum(r.count("BOX") for r in u.grid) == 1 and len(u.grid) == 6


def test_first_success_and_the_authors_last_step_rule():
    actions, first = M.planner_baseline("unlock", 1)
    extra = actions + ["LEFT"]
    assert M.run("unlock", 1, extra).reward == pytest.approx(first.reward)
    authors = M.run("unlock", 1, extra, authors=True)
    assert authors.reward == 0.0  # one action after the goal scores 0 under their rule
    assert M.run("unlock", 1, actions, authors=True).reward == pytest.approx(first.reward)


def test_bad_actions_are_reported_and_validated_symbolically():
    o = M.observe("doorkey", 0)
    out = M.run("doorkey", 0, ["JUMP", "MOVE"])
    assert not out.success and "not an action" in out.account()
    actions, _ = M.planner_baseline("doorkey", 0)
    assert M.validate_actions(o, actions) == ""
    short = M.validate_actions(o, actions[:-1])
    assert "goal" in short.lower() or "not satisfied" in short
    walls = M.validate_actions(o, ["MOVE"] * 5)
    assert walls.startswith("step ") and "MOVE" in walls
    with pytest.raises(ValueError, match="unknown MiniGrid task"):
        M.observe("keycorridor", 0)
