"""Crafter through the real ``crafter`` package: the scripted controller, the failure messages
from data.yaml, peaceful mode, and DEPS over Crafter goals."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import need_module

need_module("crafter", "pip install 'pddlkit[crafter]'")

from pddlkit.envs import make  # noqa: E402
from pddlkit.envs.crafter_world import STONE_PICKAXE_PLAN, CrafterWorld  # noqa: E402


def _play(world, plan):
    for kind, item, count in plan:
        outcome = world.run_goal(kind, item, count)
        if not outcome.ok:
            return outcome.failure
    return None


@pytest.mark.slow
def test_the_controller_reaches_the_stone_pickaxe_in_peaceful_worlds():
    reached = 0
    for seed in range(10):
        world = CrafterWorld(peaceful=True)
        world.reset(seed)
        failure = _play(world, STONE_PICKAXE_PLAN)
        reached += failure is None and "make_stone_pickaxe" in world.achievements
    assert reached >= 9


def test_failures_name_the_false_precondition_of_data_yaml():
    world = CrafterWorld(peaceful=True)
    world.reset(3)
    stone = world.run_goal("collect", "stone", 1).failure
    assert (stone.code, stone.missing) == ("missing-tool", "wood_pickaxe")
    assert stone.message == "collect stone needs a wood_pickaxe, but my inventory has no " \
                            "wood_pickaxe"
    table = world.run_goal("place", "table", 1).failure
    assert (table.code, table.missing, table.need) == ("too-few", "wood", 2)
    assert world.run_goal("mine", "wood", 1).ok        # DEPS's words work too
    pickaxe = world.run_goal("craft", "wood_pickaxe", 1).failure
    assert (pickaxe.code, pickaxe.missing) == ("no-station", "table")
    assert world.run_goal("craft", "wood_pikaxe", 1).failure.code == "unknown-item"


def test_peaceful_worlds_have_no_monsters_and_the_env_is_registered():
    world = make("crafter", peaceful=True)
    world.reset(1)
    for _ in range(120):
        world.step("move_left" if world.steps % 7 else "noop")
    ids = set(world.info["semantic"].flatten().tolist())
    assert not ids & {world.object_ids["Zombie"], world.object_ids["Skeleton"]}
    step = world.step("fly")
    assert step.info["error"] == "unknown-command" and "move_left" in step.observation
    assert "My inventory has" in world.describe()


@pytest.mark.slow
def test_deps_with_the_standin_plans_on_crafter():
    from pddlkit.skills.deps.runner import run_deps

    outcome = run_deps(["stone_pickaxe"], "standin:deps:0.5", env="crafter", episodes=3)
    assert outcome.rate() == 1.0
    failures = [f for e in outcome.episodes for f in e.failures]
    assert failures and all(f.named for f in failures)
    with pytest.raises(ValueError, match="no PDDL model"):
        from pddlkit.skills.deps import DepsConfig

        run_deps(["stone_pickaxe"], env="crafter", config=DepsConfig(check_plan=True))


def test_cli_runs_deps_on_crafter():
    from cli_runner import run_cli

    run = ["run", "deps", "--env", "crafter"]
    ok = run_cli(*run, *["--task", "stone_pickaxe", "--episodes", "2", "--json"])
    assert ok.returncode == 0, ok.stderr
    rows = json.loads(ok.stdout)
    assert [r["seed"] for r in rows] == [0, 1] and all(r["won"] for r in rows)
    bad = run_cli(*run, *["--task", "planks"])
    assert bad.returncode == 2 and "Crafter has no task 'planks'" in bad.stderr


def test_a_real_model_on_crafter_is_asked_about_crafter_items():
    """The planner and the explainer get Crafter's prompts on Crafter (not Minecraft's logs and
    planks, which Crafter does not have), in the paper's format."""
    from pddlkit.llm import ScriptedLLM
    from pddlkit.llm.usage import UsageLedger
    from pddlkit.skills.deps.explain import LLMExplainer
    from pddlkit.skills.deps.loop import Deps, DepsConfig

    llm = ScriptedLLM(["def obtain_1_stone_pickaxe(inventory={}):\nmine({'stone':1}, null);\n",
                       "Because mining stone needs to use the tool wood_pickaxe."],
                      ledger=UsageLedger())
    episode = Deps(llm, LLMExplainer(llm), DepsConfig(max_rounds=0)).run(
        CrafterWorld(target="stone_pickaxe"), seed=0)
    planner, explainer = (r.messages[-1][1] for r in llm.requests)
    assert "How to obtain 1 stone_pickaxe in Crafter step-by-step?" in planner
    assert "Minecraft" not in planner and "planks" not in planner and "log'" not in planner
    assert "Failed Action: mine({'stone':1}, null)" in explainer and "iron_ore" not in explainer
    assert episode.failures[0].explanation.startswith("Because mining stone needs")


def test_the_controller_sees_the_local_view_only_and_searches_for_what_it_has_not_seen():
    from pddlkit.envs.crafter_world import UNKNOWN

    local, oracle = CrafterWorld(peaceful=True), CrafterWorld(peaceful=True, sight="oracle")
    local.reset(0)
    oracle.reset(0)
    assert (local.memory != UNKNOWN).sum() == 9 * 7   # the 9x7 view around the player
    assert oracle._cells("diamond") and not local._cells("diamond")
    assert local.run_goal("collect", "wood", 2).ok
    assert (local.memory != UNKNOWN).sum() > 9 * 7   # it remembers what it walked past
    with pytest.raises(ValueError, match="sight must be one of local, oracle"):
        CrafterWorld(sight="god")


def test_death_ends_the_goal_and_the_episode_as_a_failure():
    world = CrafterWorld(peaceful=True, target="wood")
    world.reset(0)
    assert world.run_goal("collect", "wood", 1).ok and world.won
    world.env._player.health = 0   # as a zombie's last blow would
    assert world.step("noop").terminated and world.dead
    assert not world.won   # the wood is still in the inventory: a dead player has not won
    assert world.run_goal("collect", "wood", 2).failure.code == "died"
    over = world.step("noop")
    assert over.terminated and over.info["error"] == "episode-over"


def test_a_destroyed_table_is_explained_as_destroyed_and_placed_again():
    from pddlkit.skills.deps.explain import SymbolicExplainer
    from pddlkit.skills.deps.goals import Goal

    world = CrafterWorld(peaceful=True)
    world.reset(0)
    assert world.run_goal("collect", "wood", 4).ok and world.run_goal("place", "table", 1).ok
    [table] = world.placed["table"]
    world.env._world[table] = "path"   # what an arrow does to a table (crafter.objects.Arrow)
    world.step("noop")
    failure = world.run_goal("make", "wood_pickaxe", 1).failure
    assert (failure.code, failure.missing) == ("destroyed", "table")
    explanation = SymbolicExplainer().explain(Goal("craft", "wood_pickaxe", 1), failure, world)
    assert explanation == ("Because crafting wood_pickaxe needs a table nearby, but the table I "
                           "placed was destroyed. So I need to place table again.")
    assert world.run_goal("collect", "wood", 2).ok
    assert world.run_goal("place", "table", 1).ok   # run again, not taken as done
    assert world.run_goal("collect", "wood", 1).ok and world.run_goal("make", "wood_pickaxe").ok
    assert world.how("stone") == "collect stone"   # collected, though Crafter can place it


@pytest.mark.slow
def test_a_hostile_seed_gives_the_same_game_in_every_process():
    """Crafter balances creatures from a set ordered by memory address; taken in a fixed
    order, one seed is one game (three processes, one final map)."""
    script = ("import hashlib\nfrom pddlkit.envs.crafter_world import CrafterWorld, "
              "IRON_PICKAXE_PLAN\nw = CrafterWorld(peaceful=False)\nw.reset(3)\n"
              "for kind, item, count in IRON_PICKAXE_PLAN:\n"
              "    if not w.run_goal(kind, item, count).ok:\n        break\n"
              "print(w.steps, hashlib.md5(w.info['semantic'].tobytes()).hexdigest())\n")
    games = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=300, check=True).stdout for _ in range(3)}
    assert len(games) == 1, games
