"""The crafting world (DEPS's MC-TextWorld): every MT1-MT8 task is planned by Fast Downward on
its PDDL model and the plan, run as DEPS goals, succeeds; each failure kind gives its message."""

from __future__ import annotations

import pytest

import pddlkit
from pddlkit.envs import craft, make


def test_the_task_table_is_seed_003s():
    groups = {}
    for t in craft.tasks():
        groups.setdefault(t.group, []).append(t.item)
    assert {g: len(v) for g, v in groups.items()} == {
        "MT1": 14, "MT2": 12, "MT3": 7, "MT4": 6, "MT5": 9, "MT6": 7, "MT7": 13, "MT8": 1}
    assert {t.group: t.max_ticks for t in craft.tasks()}["MT8"] == 12000
    for t in craft.tasks():   # every object of every task can be made
        assert craft.recipes_for(t.item), t.item


@pytest.mark.slow
@pytest.mark.parametrize("group", ["MT1", "MT2", "MT3", "MT4", "MT5", "MT6", "MT7", "MT8"])
def test_fast_downward_solves_every_task_and_the_plan_runs_as_goals(group):
    for t in [t for t in craft.tasks() if t.group == group]:
        plan = craft.plan_goals({t.item: 1})
        assert plan.status == "solved", t.item
        world = craft.CraftWorld(task=t.item)
        world.reset(0)
        for goal in plan.goals:
            outcome = world.run_goal(goal.kind, goal.item, goal.count)
            assert outcome.ok, (t.item, goal, outcome.failure)
        assert world.won and world.actions == plan.actions, t.item


def test_each_failure_kind_has_its_message():
    world = craft.CraftWorld(task="stone_pickaxe")
    world.reset(0)
    tool = world.run_goal("mine", "cobblestone", 1).failure
    assert (tool.code, tool.missing) == ("missing-tool", "wooden_pickaxe")
    assert tool.message == "mine cobblestone needs a wooden_pickaxe, but my inventory has no " \
                           "wooden_pickaxe"
    assert world.run_goal("mine", "log", 2).ok and world.run_goal("craft", "planks", 8).ok
    assert world.run_goal("craft", "crafting_table", 1).ok
    assert world.run_goal("craft", "stick", 4).ok   # sticks need no table
    short = world.run_goal("craft", "wooden_pickaxe", 1).failure
    assert (short.code, short.missing, short.need, short.have) == ("too-few", "planks", 3, 2)
    assert short.message == "craft wooden_pickaxe needs 3 planks, but my inventory has 2 planks"
    kind = world.run_goal("mine", "planks", 8).failure
    assert kind.code == "wrong-kind" and "planks cannot be mined: craft 4 planks from 1 log" \
        in kind.message
    unknown = world.run_goal("craft", "stone_pikaxe", 1).failure
    assert unknown.code == "unknown-item" and "did you mean 'stone_pickaxe'" in unknown.message
    table = craft.CraftWorld(task="furnace", inventory={"cobblestone": 8})
    table.reset(0)
    missing = table.run_goal("craft", "furnace", 1).failure
    assert (missing.code, missing.missing) == ("missing-tool", "crafting_table")


def test_the_world_is_a_registered_text_environment():
    env = make("craft", task="planks")
    obs, info = env.reset(0)
    assert obs == "Your task: Obtain 1 planks. My inventory has nothing."
    assert env.admissible_commands() == [c for c in env.admissible_commands()
                                         if c.split()[0] == "mine"]
    step = env.step("craft planks")
    assert step.info["error"] == "too-few" and "needs 1 log" in step.observation
    env.step("mine log")
    step = env.step("craft planks")
    assert step.won and step.terminated and step.info["inventory"] == {"planks": 4}


def test_the_model_names_what_is_missing_and_gives_exact_horizons():
    domain, problem = craft.craft_domain({"stone_pickaxe": 1}), craft.craft_problem(
        {"stone_pickaxe": 1})
    assert not pddlkit.check(domain, problem).diagnostics
    assert craft.horizon("stone_pickaxe", 1, {}) == 13
    assert craft.horizon("stone_pickaxe", 1, {"wooden_pickaxe": 1, "crafting_table": 1,
                                              "stick": 2}) == 4   # 3 cobblestone, 1 craft
    assert craft.horizon("planks", 4, {"planks": 4}) == 0
