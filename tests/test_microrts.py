"""MicroRTS through the real engine (microrts.jar in a JPype worker): bot games to the end with
metrics from the engine's units, stepping unit actions, the unit table, and errors as data."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.jvm   # the MicroRTS engine, a JVM (make test-fast leaves these out)

from conftest import need_microrts

need_microrts()

from pddlkit.envs.microrts import MicroRTS, MicroRTSError, metrics_for  # noqa: E402


@pytest.fixture(scope="module")
def env():
    game = MicroRTS(map="basesWorkers8x8", opponent="RandomBiasedAI")
    yield game
    game.close()


def test_worker_rush_beats_random_biased_ai_to_the_end(env):
    wins = 0
    for seed in range(10):
        state, metrics = env.play("WorkerRush", "RandomBiasedAI", seed=seed)
        m = metrics_for(state, metrics, 0)
        assert state["gameover"] or state["time"] >= env.max_cycles
        assert m.produced > 0 and m.spent == m.produced and m.dealt > 0   # workers cost 1
        wins += m.result == 1
    assert wins >= 7


def test_the_unit_table_is_the_engines(env):
    env.reset(0)
    table = {t["name"]: t for t in env.units_table}
    assert (table["Worker"]["cost"], table["Worker"]["hp"], table["Worker"]["produce_time"]) == \
        (1, 1, 50)
    assert (table["Light"]["max_damage"], table["Heavy"]["max_damage"],
            table["Ranged"]["range"], table["Base"]["cost"]) == (2, 4, 3, 10)
    assert "- Ranged: cost 2, HP 1, damage 1, range 3, build time 100" in env.unit_table_text()


def test_unit_actions_step_the_game_and_refusals_come_back_with_reasons(env):
    text, info = env.reset(0)
    assert "The game map is a 8x8 grid" in text and "You are the **blue** side." in text
    assert "- Mineral Field (0, 0) resource: 20" in text
    worker = next(u for u in env.state["units"] if u["type"] == "Worker" and u["player"] == 0)
    enemy = next(u for u in env.state["units"] if u["player"] == 1)
    step = env.step([{"unit": worker["id"], "type": "move", "direction": 2},   # south
                     {"unit": enemy["id"], "type": "move", "direction": 0},
                     {"unit": 12345, "type": "noop"}])
    assert [why for _, why in step.info["rejected"]] == ["not your unit", "no such unit"]
    busy = env.step([{"unit": worker["id"], "type": "move", "direction": 2}])
    assert busy.info["rejected"][0][1] == "the unit is busy with an action"
    for _ in range(12):
        env.step([])
    moved = next(u for u in env.state["units"] if u["id"] == worker["id"])
    assert (moved["x"], moved["y"]) == (worker["x"], worker["y"] + 1)
    base = next(u for u in env.state["units"] if u["type"] == "Base" and u["player"] == 0)
    env.step([{"unit": base["id"], "type": "produce", "direction": 1, "unit_type": "Worker"}])
    for _ in range(55):
        env.step([])
    assert env.game_metrics().produced == 1 and env.state["resources"][0] == 4


def test_bad_requests_and_a_dead_engine_are_errors_not_tracebacks(env):
    with pytest.raises(ValueError, match="unknown opponent 'Zerg'"):
        MicroRTS(opponent="Zerg")
    with pytest.raises(ValueError, match="no MicroRTS map 'moon'.*basesWorkers8x8"):
        MicroRTS(map="moon")
    env.reset(0)
    env.worker.proc.kill()
    env.worker.proc.wait()
    with pytest.raises(MicroRTSError, match=r"engine process ended \(killed by SIGKILL\) "
                                            "during the game"):
        env.step([])
    env.reset(0)
    env.worker.proc.kill()   # ended while answering: the code is waited for, never None
    with pytest.raises(MicroRTSError, match=r"engine process (ended \(killed by SIGKILL\)|"
                                            r"died)"):
        env.step([])
    text, _ = env.reset(1)   # a fresh engine
    assert "Blue's Units" in text


def test_bots_that_print_to_java_stdout_do_not_break_the_protocol(env):
    state, metrics = env.play("CoacAI", "LightRush", seed=0)   # CoacAI prints warnings
    assert state["gameover"] and metrics_for(state, metrics, 0).result == 1


def test_a_reused_engine_starts_each_game_clean(monkeypatch):
    """Issue 72: under ``shared_engines()`` a closed environment gives its engine process back
    and the next one borrows it (one JVM for many games). A game in the reused engine, after
    another map, opponent and seed, is the game a fresh engine plays: the same seeded
    bot-vs-bot game and the same cycles of a step-driven one against a random bot."""
    from pddlkit.envs import microrts
    from pddlkit.envs.microrts import shared_engines

    monkeypatch.setattr(microrts, "_FREE", None)   # the session's lending off: a fresh engine

    def game(env) -> tuple:
        bots = env.play("RandomBiasedAI", "RandomBiasedAI", seed=4)[0]["time"]
        env.reset(seed=7)
        states = [env.step([]).observation for _ in range(40)]
        return bots, states

    with MicroRTS(opponent="RandomBiasedAI", max_cycles=300) as fresh:
        expected = game(fresh)
    with shared_engines():
        with MicroRTS(map="basesWorkers8x8Obstacle", opponent="WorkerRush",
                      max_cycles=200) as first:
            first.reset(seed=1)
            for _ in range(60):
                first.step([])
            engine = first.worker.proc.pid
        with MicroRTS(opponent="RandomBiasedAI", max_cycles=300) as second:
            again = game(second)
            assert second.worker.proc.pid == engine   # the same process, lent again
        assert again == expected
    assert first.worker.proc is None   # closed at the end of shared_engines()
