"""The TextWorld adapter on real generated games (tw-coin_collector and tw-simple), won by the
breadth-first explorer, which sees only observations and admissible commands."""

from __future__ import annotations

import pytest

from conftest import need_module


@pytest.fixture(autouse=True)
def textworld_installed(tmp_path_factory, monkeypatch):
    from pddlkit.envs.textworld_adapter import _import_textworld

    need_module("textworld", "pip install 'pddlkit[textworld]'", _import_textworld)
    monkeypatch.setenv("PDDLKIT_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.mark.parametrize("level", [5, 15])
def test_coin_collector_games_are_won_by_exploration(level):
    from pddlkit.envs import make
    from pddlkit.envs.explore import breadth_first

    env = make("textworld", game="coin", level=level, seed=3)
    obs, info = env.reset()
    assert obs.startswith("-= ") and "venture" not in obs and "First off" not in obs
    assert env.task == "find the coin and take it."
    result = breadth_first(env, seed=3)
    assert result.won, result
    env.reset()
    for command in result.commands:
        step = env.step(command)
    assert step.won and step.terminated and step.reward == 1.0


def test_tw_simple_game_is_won_by_exploration():
    from pddlkit.envs import make
    from pddlkit.envs.explore import breadth_first

    env = make("textworld", game="simple", seed=1)
    obs, _ = env.reset()
    assert "Bedroom" in obs and "unlock" not in obs.lower()  # no walkthrough in sight
    result = breadth_first(env, seed=1, max_states=2000)
    assert result.won and "unlock wooden door with old key" in result.commands


def test_failures_snapshots_and_determinism():
    from pddlkit.envs import make

    env = make("textworld", game="coin", level=5, seed=4)
    obs, _ = env.reset()
    bad = env.step("go up")
    assert bad.error == "failed" and "can't" in bad.observation
    snap = env.snapshot()
    good = env.admissible_commands()[0]
    first = env.step(good).observation
    env.restore(snap)
    assert env.step(good).observation == first
    again = make("textworld", game="coin", level=5, seed=4)
    assert again.reset()[0] == obs


@pytest.mark.parametrize("level", [5, 15])
def test_coin_games_are_won_through_the_observation_formalizer(level):
    """The PDDLego+ loop on real TextWorld games: PDDL from TextWorld's own wording, Fast
    Downward's plan mapped to "go <dir>" / "take coin" by the adapter."""
    from pddlkit.envs import make
    from pddlkit.formalizers import run_episode
    from pddlkit.formalizers.observation import ObservationFormalizer

    for seed in range(3):
        env = make("textworld", game="coin", level=level, seed=seed)
        result = run_episode(env, ObservationFormalizer("textworld"), seed=seed)
        assert result.won, (level, seed, result.metrics, result.errors)
        assert result.metrics.solver_errors == result.metrics.simulation_errors == 0
        assert all(c.startswith(("go ", "take coin")) for plan in result.plans for c in plan)
    assert "(connected" in result.files[-1].problem
