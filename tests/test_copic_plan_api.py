"""CoPiC with ``build_order(goal)`` (alias ``plan``) in SC2's program API (issue 48): the host plans on the tech tree's
PDDL model and passes the plans to the sandbox as data; a program that calls ``plan`` builds the
production chain a small model's programs never built. Without the option the program API is
the paper's (``plan`` is not defined)."""

from __future__ import annotations

import pytest

from pddlkit.llm.scripted import ScriptedLLM
from pddlkit.programs.copic.loop import Copic, CopicConfig
from pddlkit.programs.copic.sc2_world import SC2World, plan_for

#: a program in the paper's shape that leans on the world model for the chain, and on
#: nothing else (a 1.5B model's programs never built it: "no barracks")
USES_PLAN = '''```python
def planner(obs, action_space, task):
    actions = []
    if obs["Resource"]["supply_left"] < 4:
        actions.append("BUILD SUPPLYDEPOT")
    for unit in task:
        steps = plan(unit)
        if steps:
            actions += steps[:2]
        elif obs["Unit"].get(unit, 0) < int(task[unit]):
            actions.append("TRAIN " + unit)
    return actions[:5]
```'''


def _copic(world: SC2World) -> Copic:
    return Copic(world, ScriptedLLM([USES_PLAN] * 3),
                 config=CopicConfig(critic="uniform", programs=1, evolve=False))


def test_the_tech_trees_plan_is_the_chain_in_order():
    chain = plan_for("BATTLECRUISER", frozenset({"COMMANDCENTER", "SCV"}))
    assert chain[-1] == "TRAIN BATTLECRUISER"
    for before, after in (("BUILD BARRACKS", "BUILD FACTORY"), ("BUILD FACTORY", "BUILD STARPORT"),
                          ("BUILD STARPORT", "BUILD FUSIONCORE")):
        assert chain.index(before) < chain.index(after)
    assert plan_for("SCV", frozenset({"COMMANDCENTER", "SCV"})) == ()


def test_a_program_that_calls_plan_builds_the_chain_and_completes_an_easy_task():
    import re

    world = SC2World("easy", world_model=True)
    with _copic(world) as copic:
        records = copic.evaluate(range(2))
    built = [int(re.search(r"BATTLECRUISER (\d+)/", r.result).group(1)) for r in records]
    assert all(n >= 1 for n in built), [r.result for r in records]   # the chain was built
    assert any(r.won for r in records), [r.result for r in records]
    assert world.plan_seconds > 0                  # the host's planning time is counted


def test_without_the_option_plan_is_not_defined_and_the_program_errors():
    world = SC2World("easy")
    with _copic(world) as copic:
        records = copic.evaluate(range(1))
        errors = copic.programs["easy"][0].stats.errors
    assert not records[0].won
    assert any("NameError" in e and "plan" in e for e in errors), errors


def test_the_agent_names_the_help_and_refuses_it_where_there_is_no_model():
    from pddlkit.agents import AgentError, get_agent, run_job

    spec = get_agent("copic")
    rows = run_job(spec, env="sc2-build", llm="standin", seeds=[0],
                   options=spec.make_options({"plan_api": True, "copic_critic": "uniform",
                                              "round_episodes": 2, "summary_episodes": 2, "eval_episodes": 2,
                                              "max_rounds": 0}))
    row = rows[0].as_dict()
    assert row["helps"] == "plan-api" and "plan(goal):" in row["summary"]
    with pytest.raises(AgentError, match="--plan-api"):
        run_job(spec, env="alfworld", llm="standin", seeds=[0],
                options=spec.make_options({"plan_api": True, "copic_critic": "uniform"}))


#: a household task method that explores until the world model has a plan for the task
EXPLORES_THEN_PLANS = '''```python
def pick_and_place(self, objecttype, receptacletype):
    commands = plan("task")
    if commands:
        self.follow(commands)
    self.explore()
```'''


def test_a_household_method_that_follows_plan_wins_once_the_object_is_seen():
    from pddlkit.envs import make
    from pddlkit.programs.copic.household_world import HouseholdWorld

    world = HouseholdWorld(lambda: make("household", receptacles=8,
                                        difficulty="pick_and_place", max_steps=50),
                           world_model=True)
    copic = Copic(world, ScriptedLLM([EXPLORES_THEN_PLANS] * 3),
                  config=CopicConfig(critic="uniform", programs=1, evolve=False))
    with copic:
        records = copic.evaluate(range(3))
    assert all(r.won for r in records), [r.result for r in records]
    assert world.plan_seconds > 0
    assert 'plan("task")' in world.init_prompt()


def _copies_the_household_example(messages) -> str:
    """A writer that copies the prompt's example method under the task's name, as Qwen2.5-Coder
    1.5B's programs did (one raised ``NameError: wanted``, a name from the example)."""
    import re

    prompt = messages[-1]["content"]
    example = prompt[prompt.find("# Here is an successful example"):
                     prompt.find("# Here is the actual task.")]
    body = re.search(r"^def \w+\(self, objecttype, receptacletype\):\n(.*)", example,
                     re.S | re.M).group(1)
    task = re.search(r"^def (\w+)\(self, objecttype, receptacletype\):\n# Note", prompt,
                     re.M).group(1)
    return f"```python\ndef {task}(self, objecttype, receptacletype):\n{body.rstrip()}\n```"


@pytest.mark.slow
def test_with_the_plan_api_the_household_example_calls_plan_so_a_copy_does_too():
    """Measured with Qwen2.5-Coder 1.5B: told of plan("task") after the prompt, neither
    program called it. The API is now said before the example, and the example calls it
    first; a writer that copies the example wins every held-out game with it."""
    from pddlkit.envs import make
    from pddlkit.programs.copic.household_world import PLAN_CALL, HouseholdWorld

    won = {}
    for world_model in (False, True):
        world = HouseholdWorld(lambda: make("household", receptacles=8,
                                            difficulty="pick_and_place", max_steps=50),
                               world_model=world_model)
        prompt = world.init_prompt()
        example = prompt[prompt.find("# Here is an successful example"):
                         prompt.find("# Here is the actual task.")]
        assert (PLAN_CALL in example) == world_model == ('# Your method may also call '
                                                         '`plan("task")`' in example)
        assert prompt.rstrip().endswith("You should use its code as a reference.")
        with Copic(world, ScriptedLLM(_copies_the_household_example),
                   config=CopicConfig(critic="uniform", programs=1, evolve=False)) as copic:
            won[world_model] = sum(r.won for r in copic.evaluate(range(5000, 5010)))
    assert won[True] == 10 and won[False] < 10, won


def test_the_record_holds_the_held_out_games_and_each_programs_errors(tmp_path):
    """A row's failure is counted from its record: every held-out game is there (not only the
    learning ones), and each program of the last set with how often it was chosen and what it
    raised."""
    import json
    import subprocess
    import sys

    record = tmp_path / "record.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "pddlkit.cli", "run", "copic", "--env", "household",
         "--difficulty", "pick_and_place", "--copic-critic", "uniform", "--programs", "2",
         "--no-evolve", "--round-episodes", "1", "--summary-episodes", "1",
         "--eval-episodes", "2", "--llm", "standin:copic", "--record", str(record), "--quiet"],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    events = [json.loads(line) for line in record.read_text().splitlines()]
    held_out = [e for e in events if e["type"] == "held-out game"]
    assert [e["seed"] for e in held_out] == [1000, 1001]
    assert all({"won", "steps", "result", "program_errors"} <= set(e) for e in held_out)
    programs = [e for e in events if e["type"] == "program"]
    assert [e["program"] for e in programs] == [1, 2]
    assert all(e["proposals"] > 0 and isinstance(e["errors"], list) for e in programs)


#: the paper's example names its result list ``plan``; a program written after it calls the
#: world model as ``build_order`` (``plan`` would be a local variable there)
EXAMPLE_SHAPED = '''```python
def planner(obs, action_space, task):
    plan_build = []
    plan_unit = []
    for unit in task:
        for action in build_order(unit):
            if action in action_space and action not in plan_build:
                plan_build.append(action)
        if obs["Unit"].get(unit, 0) < int(task[unit]) and f"TRAIN {unit}" in action_space:
            plan_unit.append(f"TRAIN {unit}")
    if obs["Resource"]["supply_left"] < 6:
        plan_build.insert(0, "BUILD SUPPLYDEPOT")
    plan = []
    while plan_build or plan_unit:
        if plan_build:
            plan.append(plan_build.pop(0))
        if plan_unit:
            plan.append(plan_unit.pop(0))
    return plan[:5]
```'''


def test_a_program_in_the_examples_shape_calls_build_order_and_errs_nowhere():
    world = SC2World("easy", world_model=True)
    assert "build_order(goal)" in world.init_prompt()
    with Copic(world, ScriptedLLM([EXAMPLE_SHAPED] * 3),
               config=CopicConfig(critic="uniform", programs=1, evolve=False)) as copic:
        records = copic.evaluate(range(1))
    assert sum(r.program_errors for r in records) == 0
    assert world.plan_seconds > 0


def _copies_the_example(messages) -> str:
    """What Qwen2.5-Coder 1.5B did with the SC2 initial prompt, with or without
    ``build_order`` in it: the example program, copied (here: verbatim)."""
    prompt = messages[-1]["content"] if isinstance(messages[-1], dict) else messages[-1][1]
    return "```python\n" + prompt.split("```python\n", 1)[1].split("```", 1)[0] + "```"


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_a_copied_example_wins_with_the_derived_tech_tree_and_not_without(difficulty):
    """The paper's example lists the example task's units only; a model that copies it never
    trains the task's units. With the example's tech_tree written by code for the task's units
    too, the same copy completes the held-out tasks."""
    from pddlkit.envs.sc2_build import DIFFICULTIES
    from pddlkit.programs.copic.sc2_world import derived_tech_tree

    rates = {}
    for derived in (False, True):
        world = SC2World(difficulty, derived_tree=derived)
        prompt = world.init_prompt()
        for unit in DIFFICULTIES[difficulty]:
            assert (f'"{unit}": {{' in prompt) == (derived or unit == "SCV")
        with Copic(world, ScriptedLLM(_copies_the_example),
                   config=CopicConfig(critic="uniform", programs=1, evolve=False)) as copic:
            rates[derived] = sum(r.won for r in copic.evaluate(range(5000, 5005))) / 5
    assert rates == {False: 0.0, True: 1.0}
    # the derivation agrees with the paper's own entries for the example's units
    assert derived_tech_tree(["MARAUDER"])["MARAUDER"] == {
        "base_building": "BARRACKSTECHLAB", "pre_dependency": {1: "SUPPLYDEPOT", 2: "BARRACKS"}}


def test_the_derived_tree_is_named_and_refused_where_there_is_no_tech_tree():
    from pddlkit.agents import AgentError, get_agent, run_job

    spec = get_agent("copic")
    rows = run_job(spec, env="sc2-build", llm="standin", seeds=[0],
                   options=spec.make_options({"derived_tree": True, "copic_critic": "uniform",
                                              "round_episodes": 2, "summary_episodes": 2,
                                              "eval_episodes": 2, "max_rounds": 0}))
    assert rows[0].as_dict()["helps"] == "derived-tree"
    with pytest.raises(AgentError, match="--derived-tree"):
        run_job(spec, env="household", llm="standin", seeds=[0],
                options=spec.make_options({"derived_tree": True, "copic_critic": "uniform"}))
