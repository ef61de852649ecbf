"""CoPiC's StarCraft II stand-in programs, run as CoPiC runs them: in the sandbox, on the
simulator, one plan per step. The correct one completes the task; each mistake fails the way
the paper's evolution prompt expects to see it (a unit count stuck at 0), and crashes and hangs
are contained."""

from __future__ import annotations

import pytest

from pddlkit.envs.sc2_build import SC2Build, public_obs
from pddlkit.programs.copic.sc2_programs import AFFECTS, SC2_MISTAKES, sc2_program
from pddlkit.sandbox import Policy, SandboxWorker


def _play(mistakes, difficulty="medium", seed=1, max_seconds=900):
    env = SC2Build(difficulty, seed=seed, max_seconds=max_seconds)
    obs, _ = env.reset()
    errors = []
    with SandboxWorker(sc2_program(frozenset(mistakes)),
                       Policy(entry="planner", call_timeout=1)) as worker:
        while True:
            result = worker.call(public_obs(obs), env.action_space(), env.task)
            if not result.ok:
                errors.append(result.error)
            step = env.step(result.value if result.ok else [])  # a failed program proposes nothing
            obs = step.observation
            if step.terminated or step.truncated or len(errors) >= 2:
                return env, errors


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_the_correct_program_completes_each_level_in_the_sandbox(difficulty):
    env, errors = _play((), difficulty)
    assert env.won and not errors, env.task


@pytest.mark.parametrize("mistake,difficulty", [
    ("no-armory", "medium"), ("no-fusioncore", "easy"), ("no-ghostacademy", "hard"),
    ("no-techlab", "medium")])
def test_a_missing_building_leaves_its_unit_at_zero(mistake, difficulty):
    env, errors = _play((mistake,), difficulty)
    assert not env.won and not errors
    stuck = [u for u in AFFECTS[mistake] if u in env.task]
    assert stuck and all(env.units[u] == 0 for u in stuck)


def test_supply_and_gas_mistakes_stall_and_the_viking_techlab_only_costs():
    env, _ = _play(("no-gas",))
    assert not env.won and all(env.units[u] == 0 for u in ("THOR", "BANSHEE", "RAVEN"))
    env, _ = _play(("no-supply",))
    assert not env.won and env.units["SCV"] < env.task["SCV"] + 1
    won, _ = _play((), "hard")
    waste, _ = _play(("viking-techlab",), "hard")
    assert waste.won and waste.steps >= won.steps


@pytest.mark.slow
def test_crashes_and_hangs_are_errors_not_stops():
    env, errors = _play(("crash",))
    assert errors and errors[0].kind.value == "crash" and "ZeroDivisionError" in errors[0].message
    env, errors = _play(("infinite-loop",))
    assert errors and errors[0].kind.value == "timeout"
    assert env.steps == 2  # the episode went on: each failed call was a step with no plan


def test_unknown_mistake_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown mistake"):
        sc2_program({"no-barracks"})
    assert len(SC2_MISTAKES) == 12


def test_the_papers_example_program_completes_its_own_task_in_the_simulator():
    """The program in the initialization prompt (Appendix B.3.1, indentation restored) trains
    its example's units in the simulator: prompt, program API and simulator agree."""
    from pathlib import Path

    import pddlkit.programs
    from pddlkit.programs.answer import extract_program

    prompts = Path(pddlkit.programs.__file__).parent / "prompts" / "copic" / "sc2"
    init = (prompts / "init.txt").read_text()
    assert "$task" in init and "$programs" in (prompts / "evolve.txt").read_text()
    program = extract_program(init.split("Now your task is")[0], entry="planner")
    env = SC2Build(task={"SCV": 16, "MARINE": 2, "REAPER": 1, "MARAUDER": 1, "HELLION": 1})
    obs, _ = env.reset()
    with SandboxWorker(program, Policy(entry="planner")) as worker:
        while True:
            result = worker.call(public_obs(obs), env.action_space(), env.task)
            assert result.ok, result.error.format()
            step = env.step(result.value)
            obs = step.observation
            if step.terminated or step.truncated:
                break
    assert env.won and env.steps <= 40


def test_the_result_line_keeps_finished_and_in_progress_apart():
    from pddlkit.programs.copic.sc2_world import SC2World

    world = SC2World(task={"SCV": 14})
    world.reset(0)
    executed = world.execute(["TRAIN SCV", "TRAIN SCV"])   # the second waits for its minerals
    assert executed.info["started"] == ["TRAIN SCV", "TRAIN SCV"] and not executed.won
    assert world.episode_result(False).endswith("final unit counts SCV 12/14 (+2 in progress)")
    for _ in range(2):
        executed = world.execute([])
    assert executed.won and world.episode_result(True).endswith("final unit counts SCV 14/14")
