"""DEPS with ``complete_plan`` (issue 48): a plan without the crafting table, as Qwen2.5-Coder
1.5B wrote it, is completed by the world model's planner before it runs; without the option the
behaviour is the paper's (the goal fails, is explained, and the planner is asked again)."""

from __future__ import annotations

import json

import pytest

from pddlkit.envs.craft import CraftWorld
from pddlkit.llm.scripted import ScriptedLLM
from pddlkit.skills.deps.complete import complete_plan
from pddlkit.skills.deps.goals import parse_plan
from pddlkit.skills.deps.loop import Deps, DepsConfig

#: the small model's plan for a wooden pickaxe: no crafting table, and an item the world lacks
NO_TABLE = """mine({'log':2}, null); # step 1: mine 2 log without tool
craft({'planks':8}, {'log':2}, null); # step 2: craft 8 planks from 2 log
craft({'stick':4}, {'planks':2}, null); # step 3: craft 4 stick from 2 planks
mine({'diamond_hoe':1}, null); # step 4: a thing this world does not have
craft({'wooden_pickaxe':1}, {'planks':3, 'stick':2}, 'crafting_table'); # step 5"""


def _deps(complete: bool) -> Deps:
    return Deps(ScriptedLLM(lambda messages: NO_TABLE),
                config=DepsConfig(max_rounds=1, complete_plan=complete))


def test_without_the_option_the_missing_table_fails_and_is_explained_as_in_the_paper():
    episode = _deps(False).run(CraftWorld(task="wooden_pickaxe"), seed=0)
    assert not episode.won and episode.completions == [] and episode.rounds == 1
    assert "diamond_hoe" in episode.failures[0].explanation   # run, failed, explained


def test_the_world_model_inserts_the_table_and_leaves_out_the_unknown_item():
    episode = _deps(True).run(CraftWorld(task="wooden_pickaxe"), seed=0)
    assert episode.won and episode.rounds == 0        # no re-plan spent on the table
    (done,) = episode.completions
    inserted = [i["goal"] for i in done["inserted"]]
    assert "craft({'crafting_table':1}, {'planks':4}, null);" in inserted
    assert all(i["step"] < 7 for i in done["inserted"])  # before the pickaxe (step 7 now)
    assert done["refused"][0]["goal"].startswith("mine({'diamond_hoe':1}")
    assert "no object 'diamond_hoe'" in done["refused"][0]["why"]
    assert "Descriptor: Before acting, the world model inserted step 4" in episode.dialogue
    json.dumps(episode.as_dict())                     # the record takes it as it is


def test_the_llms_goals_keep_their_order_and_an_empty_plan_is_completed_to_the_target():
    world = CraftWorld(task="stone_pickaxe")
    world.reset(0)
    goals = list(parse_plan(NO_TABLE).goals)
    done = complete_plan(world, goals)
    own = [g for g in done.goals if g in goals]
    assert own == [g for g in goals if g.item != "diamond_hoe"]
    assert done.goals[-1].item == "stone_pickaxe"     # the tail the plan lacked
    assert complete_plan(world, []).goals[-1].item == "stone_pickaxe"
    assert world.inventory == {}                       # planned on a copy


def test_crafter_plans_are_completed_on_its_rules_as_recipes():
    """Crafter (the real package): a plan for a wood pickaxe without the table gets the
    table from the model, and the episode is won."""
    pytest.importorskip("crafter")
    from pddlkit.envs.crafter_world import CrafterWorld

    no_table = ("mine({'wood':3}, null);\n"
                "craft({'wood_pickaxe':1}, {'wood':1}, 'table');")
    deps = Deps(ScriptedLLM(lambda messages: no_table),
                config=DepsConfig(max_rounds=1, complete_plan=True))
    episode = deps.run(CrafterWorld(target="wood_pickaxe"), seed=0)
    inserted = [i["goal"] for c in episode.completions for i in c["inserted"]]
    assert any("'table'" in g for g in inserted), episode.completions
    assert episode.won, episode.dialogue[-600:]


def test_the_cli_names_the_help_in_the_row_and_shows_the_world_models_steps(tmp_path):
    from pddlkit.agents import get_agent, run_job

    spec = get_agent("deps")
    record = tmp_path / "record.jsonl"
    rows = run_job(spec, env="craft", llm="standin:deps:0.5", seeds=[0],
                   env_options={"task": "MT1"}, record=record,
                   options=spec.make_options({"complete_plan": True, "replan_rounds": 1}))
    row = rows[0].as_dict()
    assert row["helps"] == "complete-plan" and "the world model inserted" in row["summary"]
    events = [json.loads(line) for line in record.read_text().splitlines()]
    assert any(e.get("type") == "completed" for e in events)
    plain = run_job(spec, env="craft", llm="standin:deps:0.5", seeds=[0],
                    env_options={"task": "MT1"},
                    options=spec.make_options({"replan_rounds": 1}))[0].as_dict()
    assert plain["helps"] == "none" and plain["success_rate"] <= row["success_rate"]
