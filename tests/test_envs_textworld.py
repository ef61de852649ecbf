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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.parametrize("game,options", [("simple", {"seed": 1}),
                                          ("coin", {"level": 5, "seed": 4})])
def test_a_restored_game_state_answers_every_command_as_a_replayed_one(game, options):
    """Restore puts the game's state back in place (envs/textworld_state.py); a restore by
    reset and replay (the same snapshot without its state) is the reference: along random
    walks, each snapshot restored both ways, any number of times, answers the same next
    commands with the same text, scores, ends and admissible commands."""
    import dataclasses
    import random

    from pddlkit.envs import make

    placed, replayed = make("textworld", game=game, **options), \
        make("textworld", game=game, **options)
    placed.reset()
    replayed.reset()
    rng = random.Random(7)
    snaps, restored_in_place = [], 0
    for _ in range(60):
        commands = placed.admissible_commands()
        if rng.random() < 0.2:
            snaps.append(placed.snapshot())
        if snaps and rng.random() < 0.3:
            snap = rng.choice(snaps)
            assert snap.engine is not None
            placed.restore(snap)
            replayed.restore(dataclasses.replace(snap, engine=None))
            restored_in_place += 1
            commands = placed.admissible_commands()
            assert commands == replayed.admissible_commands()
            assert placed.history == replayed.history and placed.won == replayed.won
        command = rng.choice(commands + ["look", "inventory", "dance"])
        a, b = placed.step(command), replayed.step(command)
        assert (a.observation, a.reward, a.terminated, a.truncated, a.error) == \
            (b.observation, b.reward, b.terminated, b.truncated, b.error), command
        assert placed.admissible_commands() == replayed.admissible_commands()
        if a.terminated:
            placed.restore(snaps[0] if snaps else placed.snapshot())
            replayed.restore(dataclasses.replace(snaps[0], engine=None) if snaps else
                             replayed.snapshot())
    assert restored_in_place >= 5
    # a snapshot of another game is replayed there, never put in place
    other = make("textworld", game=game, **{**options, "seed": options["seed"] + 1})
    other.reset()
    first = snaps[0]
    other.restore(first)
    assert other.history == list(first.history) and other.seed == first.seed
    assert other.admissible_commands() == _replayed(game, options, first)


def _replayed(game: str, options: dict, snap) -> list[str]:
    from pddlkit.envs import make

    env = make("textworld", game=game, **options)
    env.reset()
    for command in snap.history:
        env.step(command)
    return env.admissible_commands()


@pytest.mark.slow
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



@pytest.mark.slow
def test_a_game_being_built_is_never_seen_half_written(tmp_path):
    """A sweep's workers (or parallel tests) may build one game at the same moment, and one
    that finds the .z8 plays it: so the files are built in a scratch folder of their own and
    moved in at the end, the .z8 last. Watched from outside while two processes build the same
    game, the folder shows nothing or the whole game, never a part for more than the instant
    of the moves (built in place, .json and .ni stood alone for seconds), and both get it."""
    import subprocess
    import sys
    import time

    script = ("import sys; from pddlkit.envs.textworld_adapter import make_game; "
              "from pathlib import Path; print(make_game('coin', 7, level=5, "
              "out_dir=Path(sys.argv[1])).stat().st_size)")
    procs = [subprocess.Popen([sys.executable, "-c", script, str(tmp_path)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    whole = {"coin-l5-s7.json", "coin-l5-s7.ni", "coin-l5-s7.z8"}
    partial_views = 0
    while any(p.poll() is None for p in procs):
        seen = {p.name for p in tmp_path.iterdir() if not p.name.startswith(".")}
        partial_views += bool(seen) and seen != whole
        time.sleep(0.02)
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err[-2000:] for _, err in outs]
    assert partial_views <= 2, f"a half-built game was visible in {partial_views} looks"
    size = (tmp_path / "coin-l5-s7.z8").stat().st_size
    assert [int(out) for out, _ in outs] == [size, size] and size > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(whole)  # no scratch left
    from pddlkit.envs import make

    obs, _ = make("textworld", game=str(tmp_path / "coin-l5-s7.z8")).reset()
    assert obs.startswith("-= ")


def test_a_coin_games_list_of_commands_is_complete():
    """The coin games say their admissible commands are every command the game would take
    now (``admissible_complete``, pddlkit.envs.api): on dev seed 0, along a random walk, each
    "go" to the four directions and "take coin" is taken when listed and refused when not."""
    import random

    from pddlkit.envs import make

    env = make("textworld", game="coin", level=5)
    env.reset(seed=0)
    assert env.admissible_complete is True
    rng, checked = random.Random(0), 0
    for _ in range(6):
        listed = set(env.admissible_commands())
        start = env.snapshot()
        for command in ("go north", "go south", "go east", "go west", "take coin"):
            taken = env.step(command).info["error"] != "failed"
            env.restore(start)
            assert taken == (command in listed), (command, sorted(listed))
            checked += 1
        env.step(rng.choice(sorted(c for c in listed if c.startswith("go "))))
    assert checked == 30
    assert make("textworld", game="simple", seed=1).admissible_complete is False


def test_a_coin_game_reuses_the_library_s_coin_collector_domain_with_its_aspects(tmp_path):
    """The coin games' commands are CoinCollector's (``learned_domains_of``), so
    ``--reuse-domain`` plays the library's CoinCollector entry, and the helps that play by
    the aspects it was learned under act (place goals, the plan guard). A library with no
    CoinCollector entry is refused naming whose commands the game has."""
    import shutil
    from pathlib import Path

    from pddlkit.agents import AgentError, get_agent, run_job

    shipped = Path(__file__).resolve().parent.parent / "domains" / "learned"
    spec = get_agent("pddlego")

    def played(library):
        options = spec.make_options({"small_model": True, "constrained": True,
                                     "reuse_domain": True, "library": str(library)})
        (row,) = run_job(spec, env="textworld", llm="random:0", seeds=[0], options=options,
                         env_options={"game": "coin", "level": 5})
        return row.as_dict()

    row = played(shipped)
    assert row["domain_source"].startswith("library:7bbe41a16326 written by local:qwen")
    acted = dict(part.rsplit(" ", 1) for part in row["helps_acted"].split(", "))
    assert int(acted["place-goals"]) > 0 and int(acted["refused-steps"]) > 0, acted
    household_only = tmp_path / "household"
    shutil.copytree(shipped / "household", household_only / "household")
    with pytest.raises(AgentError, match="no verified domain for textworld \\(its commands "
                                         "are coin-collector's\\)"):
        played(household_only)


def test_over_the_learned_entry_the_heading_and_the_listed_moves_write_the_room(tmp_path):
    """Reused with its aspects on a coin game, the entry's problem says where the player is
    from the heading ("-= Cellar =-": ``(player cellar)``), the code's facts said in the
    ``facts-from-commands`` event, whatever the (random) answers typed."""
    import json
    from pathlib import Path

    from cli_runner import run_cli

    record = tmp_path / "r.jsonl"
    run_cli("run", "pddlego", "--env", "textworld", "--game", "coin", "--level", "5",
            "--seed", "0", "--llm", "random:0", "--small-model", "--constrained",
            "--reuse-domain", "--library", Path(__file__).resolve().parent.parent / "domains"
            / "learned", "--budget", "3", "--quiet", "--record", record)
    events = [json.loads(line) for line in record.read_text().splitlines()]
    first = next(e for e in events if e["type"] == "files")
    assert "(player cellar)" in first["problem"], first["problem"]
    said = [f for e in events if e["type"] == "facts-from-commands"
            for f in e["facts"]]
    assert "(player cellar)" in said, said
