"""The ALFWorld adapter on real ALFWorld games built from the alfworld wheel, played by
TextWorld's PDDL engine in the ALFWorld venv (`make alfworld`; `make test` builds it).

Without that venv these tests skip with the reason; under PDDLKIT_REQUIRE_CORPUS=1 (CI) they
fail instead, so CI always runs them.
"""

from __future__ import annotations

import os
import signal

import pytest

import pddlkit
from conftest import need_module

TASKS = ("pick", "look", "clean", "heat", "cool", "pick_two")
SEEDS = range(4)


@pytest.fixture(autouse=True)
def alfworld_python(tmp_path_factory, monkeypatch):
    from pddlkit.envs.alfworld_adapter import find_python

    monkeypatch.setenv("PDDLKIT_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))
    # ALFWorldUnavailable is an ImportError: the usual skip (or CI failure) with its reason.
    return need_module("alfworld", "make alfworld", find_python)


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS)
def test_fast_downward_on_the_true_model_wins_every_task_type(task):
    from pddlkit.envs import make

    with make("alfworld", task=task) as env:
        for seed in SEEDS:
            obs, info = env.reset(seed)
            assert obs.startswith("-= Welcome to TextWorld, ALFRED! =-")
            assert f"Your task is to: {env.task}" in obs
            assert not info["won"] and "look" in info["admissible_commands"]
            result = pddlkit.plan(env.true_domain, env.true_problem)
            assert result.plan is not None, (seed, result.status, result.diagnostics[:3])
            for command in env.commands_for_plan(result.plan):
                step = env.step(command)
                assert step.error is None, (seed, command, step.observation)
            assert step.won and step.terminated and step.reward == 1.0, (seed, env.game)


@pytest.mark.slow
def test_the_shipped_domain_is_not_standard_pddl_and_the_adapter_says_why():
    from pddlkit.checks import check

    from pddlkit.envs import make

    with make("alfworld", task="heat", seed=0) as env:
        env.reset()
        raw = check(env.raw_domain, env.raw_problem)
        codes = {d.code for d in raw.errors}
        # undeclared-variable: the ?l of the broken variable list, used inside its body
        assert codes == {"invalid-name", "undeclared-constant", "undeclared-variable"}, codes
        assert any("location," in d.message for d in raw.errors)
        fixed = check(env.true_domain_text, env.true_problem_text)
        assert not fixed.errors, [str(d) for d in fixed.errors]


@pytest.mark.slow
def test_failures_are_classified_and_the_game_goes_on():
    from pddlkit.envs import make

    with make("alfworld", task="cool", seed=1) as env:
        env.reset()
        fridge = next(c for c in env.admissible_commands() if c == "go to fridge 1")
        closed = env.step("open fridge 1")  # not there yet
        assert closed.observation == "Nothing happens." and closed.error == "precondition"
        nonsense = env.step("dance with the fridge")
        assert nonsense.error == "unknown-command" and not nonsense.terminated
        arrived = env.step(fridge)
        assert arrived.error is None and "fridge 1" in arrived.observation
        assert arrived.info["action"] == "gotolocation"
        assert env.step("open fridge 1").observation.startswith("You open the fridge 1.")


@pytest.mark.slow
def test_snapshot_restore_and_determinism():
    from pddlkit.envs import make

    with make("alfworld", task="pick", seed=2) as env:
        obs, _ = env.reset()
        env.step(env.admissible_commands()[0])
        snap = env.snapshot()
        probe = next(c for c in env.admissible_commands() if c.startswith("go to"))
        first = env.step(probe).observation
        after = env.admissible_commands()
        env.restore(snap)
        assert env.history == list(snap.history)
        assert env.step(probe).observation == first and env.admissible_commands() == after
        # commands that did nothing since the snapshot: the history is cut back, no replay
        env.restore(snap)
        calls = []
        real_call = env._call
        env._call = lambda request: calls.append(request["op"]) or real_call(request)
        assert env.step("dance with the fridge").error == "unknown-command"
        env.restore(snap)
        assert calls == ["step"] and env.history == list(snap.history)
        assert env.step(probe).observation == first and env.admissible_commands() == after
        env.restore(snap)                                   # the probe moved: a full replay
        assert calls[-len(snap.history) - 1:] == ["reset"] + ["step"] * len(snap.history)
        problem = env.true_problem_text
    with make("alfworld", task="pick", seed=2) as again:
        assert again.reset()[0] == obs and again.true_problem_text == problem


@pytest.mark.slow
def test_floorplans_and_bad_options_give_clear_errors():
    from pddlkit.envs import make
    from pddlkit.envs.alfworld_adapter import ALFWorldError

    with make("alfworld", task="heat", floorplan=1, seed=0) as env:
        env.reset()
        assert env.game["floorplan"] == 1 and env.game["receptacles"] >= 20
        with pytest.raises(ALFWorldError, match="FloorPlan301 cannot host a heat task"):
            env.floorplan = 301
            env.reset()
        with pytest.raises(ALFWorldError, match="no layout FloorPlan999"):
            env.floorplan = 999
            env.reset()
        env.floorplan = 1
        assert env.reset()[0].startswith("-= Welcome")  # the worker lived on
    with pytest.raises(ValueError, match="unknown ALFWorld task type 'bake'; use one of pick"):
        make("alfworld", task="bake")


@pytest.mark.slow
def test_a_closed_environment_hands_its_worker_on_and_the_next_game_starts_clean(monkeypatch):
    """The warm pool (issue 72): the next environment reuses the interpreter, not the game."""
    from pddlkit.envs import make
    from pddlkit.envs.alfworld_adapter import ALFWorldError, close_idle_workers

    close_idle_workers()
    with make("alfworld", task="pick", seed=2) as env:
        first, info = env.reset()
        start = sorted(info["admissible_commands"])
        moved = env.step(next(c for c in start if c.startswith("go to")))
        assert moved.error is None
        pid = env._worker.proc.pid
    with make("alfworld", task="pick", seed=2) as again:
        obs, info = again.reset()
        assert again._worker.proc.pid == pid            # the same interpreter ...
        assert obs == first and sorted(info["admissible_commands"]) == start   # ... a new game
        assert again.history == [] and not again.won
    with make("alfworld", task="heat", seed=0) as other:
        assert other.reset()[0].startswith("-= Welcome") and "heat" in other.task
        assert other._worker.proc.pid == pid
        with pytest.raises(ALFWorldError, match="no layout FloorPlan999"):
            other.floorplan = 999
            other.reset()
    # a worker that answered with an error is closed, not handed on
    with make("alfworld", task="pick", seed=2) as fresh:
        fresh.reset()
        assert fresh._worker.proc.pid != pid
        pid = fresh._worker.proc.pid
    monkeypatch.setenv("PDDLKIT_ALFWORLD_WARM", "0")
    with make("alfworld", task="pick", seed=2) as cold:
        cold.reset()
        assert cold._worker.proc.pid != pid
        worker = cold._worker
    assert worker.proc.poll() is not None                  # closed with its environment
    monkeypatch.setenv("PDDLKIT_ALFWORLD_WARM", "maybe")
    with pytest.raises(ValueError, match="PDDLKIT_ALFWORLD_WARM='maybe': use 1"):
        make("alfworld", task="pick", seed=2).reset()
    monkeypatch.delenv("PDDLKIT_ALFWORLD_WARM")
    assert close_idle_workers() == 1                        # the one from `fresh`


def test_a_dead_worker_is_reported_and_replaced():
    from pddlkit.envs import make
    from pddlkit.envs.alfworld_adapter import ALFWorldError

    with make("alfworld", task="pick", seed=0) as env:
        env.reset()
        os.kill(env._worker.proc.pid, signal.SIGKILL)
        env._worker.proc.wait()
        with pytest.raises(ALFWorldError, match="exited"):
            env.step("look")
        assert env.reset()[0].startswith("-= Welcome")  # a new worker


def test_a_missing_interpreter_says_how_to_get_one(monkeypatch, tmp_path):
    from pddlkit.envs.alfworld_adapter import ALFWorldEnv, ALFWorldUnavailable

    monkeypatch.setenv("PDDLKIT_ALFWORLD_PYTHON", str(tmp_path / "nope" / "python"))
    with pytest.raises(ALFWorldUnavailable, match="PDDLKIT_ALFWORLD_PYTHON"):
        ALFWorldEnv()
    monkeypatch.delenv("PDDLKIT_ALFWORLD_PYTHON")
    monkeypatch.chdir(tmp_path)
    import pddlkit.envs.alfworld_adapter as adapter

    monkeypatch.setattr(adapter, "__file__", str(tmp_path / "envs" / "alfworld_adapter.py"))
    monkeypatch.setattr(adapter.sys, "prefix", str(tmp_path / "venv"))
    with pytest.raises(ALFWorldUnavailable, match="make alfworld"):
        ALFWorldEnv()


def test_plans_over_the_household_schema_map_to_alfworld_commands():
    """Formalizers write PDDLego+'s ALFWorld actions (the household's); their plans play."""
    from pddlkit.envs import make
    from pddlkit.envs.household import TEMPLATES

    with make("alfworld", task="heat", seed=0) as env:
        env.reset()
        assert env.action_schema == TEMPLATES
        assert {a.name for a in env.domain.actions} >= {t.action for t in TEMPLATES}
        plan = [("gotolocation", "middle_of_room", "fridge_1"), ("openobject", "fridge_1"),
                ("pickupobject", "potato_1", "fridge_1"), ("heatobject", "potato_1", "microwave_1"),
                ("putobject", "potato_1", "countertop_1")]
        assert env.commands_for_plan(plan) == [
            "go to fridge 1", "open fridge 1", "take potato 1 from fridge 1",
            "heat potato 1 with microwave 1", "move potato 1 to countertop 1"]
        with pytest.raises(KeyError, match="gotolocation/2"):
            env.commands_for_plan([("gotolocation", "fridge_1")])


@pytest.mark.slow
def test_the_observation_formalizer_wins_real_alfworld_games():
    """The household's offline formalizer plays ALFWorld through the same loop; it learns from
    the rolled-back 'Nothing happens.' that two receptacles share a spot (seed 1 meets one
    such pair), and wins after that simulation error."""
    from pddlkit.envs import make
    from pddlkit.formalizers.loop import run_episode
    from pddlkit.formalizers.observation import ObservationFormalizer

    with make("alfworld", task="pick_two") as env:
        result = run_episode(env, ObservationFormalizer("alfworld"), seed=1)
        assert result.won, result.metrics
        assert result.metrics.simulation_errors == 1 == result.metrics.simulation_fixed
        (error,) = [e for e in result.errors if e["kind"] == "simulation"]
        assert error["command"].startswith("go to ") and error["message"] == "Nothing happens."
    with make("alfworld", task="look") as env:
        result = run_episode(env, ObservationFormalizer("alfworld"), seed=0)
        assert result.won and result.metrics.solver_errors == 0, result.metrics
