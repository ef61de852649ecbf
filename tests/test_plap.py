"""PLAP on the real MicroRTS engine: skill plans parsed and checked against the skills' PDDL
annotations, each skill's policy reaching its termination, the executor recovering from a lost
unit, and the stand-in planners playing whole games."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.jvm   # the MicroRTS engine, a JVM (make test-fast leaves these out)

from conftest import need_microrts

need_microrts()

from pddlkit.envs.microrts import MicroRTS  # noqa: E402
from pddlkit.skills.plap.check import check_lines  # noqa: E402
from pddlkit.skills.plap.executor import Executor  # noqa: E402
from pddlkit.skills.plap.game import play_game  # noqa: E402
from pddlkit.skills.plap.plan import parse_skill_plan  # noqa: E402
from pddlkit.skills.plap.standin import NoisyPlanner, TipsPlanner  # noqa: E402



@pytest.fixture(scope="module")
def passive():
    env = MicroRTS(opponent="PassiveAI", max_cycles=1500)
    yield env
    env.close()


def _costs(env):
    return {t["name"]: t["cost"] for t in env.units_table}


def test_the_parser_keeps_good_lines_and_says_why_it_drops_the_rest():
    plan = parse_skill_plan("Here is my plan.\nSTART OF SKILL_PLAN\n[Harvest Mineral](0, 0)\n"
                            "[Produce Unit] (worker, 1)\n[Build Building](barrack, (3, 2))\n"
                            "[Produce Unit](worker1, 0)\n[Fly](1, 2)\nhello\n"
                            "END OF SKILL_PLAN\n[Attack Enemy](worker, base)")
    assert [(s.skill, s.params) for s in plan.lines] == [
        ("Harvest Mineral", ((0, 0),)), ("Produce Unit", ("worker", "east")),
        ("Build Building", ("barracks", (3, 2)))]
    assert [(d.line, d.reason.split(";")[0]) for d in plan.dropped] == [
        (6, "the unit type must be one of worker, light, heavy, ranged, got 'worker1'"),
        (7, "unknown skill [Fly]"), (8, "not a [Skill](parameters) line")]


def test_impossible_lines_are_explained_from_the_pddl_annotations(passive):
    passive.reset(0)
    plan = parse_skill_plan("[Harvest Mineral](0, 0)\n[Harvest Mineral](3, 3)\n"
                            "[Produce Unit](worker, east)\n[Produce Unit](light, east)\n"
                            "[Build Building](barracks, (4, 2))\n[Build Building](base, (9, 2))\n"
                            "[Attack Enemy](worker, barracks)\n[Deploy Unit](heavy, (1, 1))")
    checked = check_lines(passive.state, 0, _costs(passive), plan.lines)
    assert [c.reason for c in checked] == [
        None, "there is no mineral field with resources at (3, 3)", None,
        "you have no barracks to produce it",
        "too few resources (you have 4)",   # the worker line spent 1 of 5
        "the location is outside the map; too few resources (you have 4)",
        None, "you have no heavy"]
    # an attack on an enemy type that is absent now waits for one, as the authors' code does
    assert checked[6].pending == "the enemy has no barracks"


def test_a_unit_in_production_counts_as_owned_in_the_check(passive):
    passive.reset(0)
    executor = Executor(0)
    executor.set_plan(parse_skill_plan("[Produce Unit](worker, south)").lines, passive.state)
    passive.step(executor.actions(passive.state))
    producing = [u for u in passive.state["units"] if u.get("producing")]
    assert [(u["type"], u["producing"]) for u in producing] == [("Base", "Worker")]
    assert _count(passive.state, 0, "Worker") == 1   # not on the map yet
    # a barracks producing the first light: a line for it is not "you have no light"
    barracks = {"id": 3, "type": "Barracks", "player": 0, "x": 3, "y": 3, "hp": 4,
                "resources": 0, "action": "produce", "producing": "Light"}
    foe = {"id": 4, "type": "Worker", "player": 1, "x": 6, "y": 6, "hp": 1, "resources": 0,
           "action": "noop"}
    state = {"width": 8, "height": 8, "resources": [5, 5], "time": 0, "units": [barracks, foe]}
    lines = parse_skill_plan("[Attack Enemy](light, worker)").lines
    assert [c.reason for c in check_lines(state, 0, _costs(passive), lines)] == [None]
    state["units"] = [{**barracks, "action": "noop", "producing": None}, foe]
    assert [c.reason for c in check_lines(state, 0, _costs(passive), lines)] == [
        "you have no light"]


def test_a_map_without_minerals_is_checked_too():
    state = {"width": 8, "height": 8, "resources": [3, 0], "time": 900, "units": [
        {"id": 1, "type": "Worker", "player": 0, "x": 1, "y": 1, "hp": 1, "resources": 0,
         "action": "noop"},
        {"id": 2, "type": "Base", "player": 1, "x": 5, "y": 6, "hp": 10, "resources": 0,
         "action": "noop"}]}
    lines = parse_skill_plan("[Attack Enemy](worker, base)\n[Produce Unit](worker, east)").lines
    assert [c.reason for c in check_lines(state, 0, {"Worker": 1}, lines)] == [
        None, "you have no base"]


def _run(env, text, cycles, until):
    env.reset(0)
    executor = Executor(0)
    executor.set_plan(parse_skill_plan(text).lines, env.state)
    for _ in range(cycles):
        env.step(executor.actions(env.state))
        if until(env.state, executor):
            return True
    return False


def _count(state, player, kind):
    return sum(u["player"] == player and u["type"] == kind for u in state["units"])


def test_each_skill_reaches_its_termination(passive):
    assert _run(passive, "[Produce Unit](worker, south)", 80,
                lambda s, e: not e.tasks and _count(s, 0, "Worker") == 2)
    assert _run(passive, "[Harvest Mineral](0, 0)", 200,
                lambda s, e: s["resources"][0] > 5)
    assert _run(passive, "[Build Building](barracks, (4, 1))", 400,
                lambda s, e: _count(s, 0, "Barracks") == 1 and not e.tasks)
    assert _run(passive, "[Deploy Unit](worker, (4, 4))", 200,
                lambda s, e: any(u["type"] == "Worker" and u["player"] == 0
                                 and (u["x"], u["y"]) == (4, 4) for u in s["units"]))
    assert _run(passive, "[Attack Enemy](worker, worker)", 400,
                lambda s, e: _count(s, 1, "Worker") == 0 and not e.tasks)


def test_the_executor_gives_a_lost_units_skill_to_another():
    line = parse_skill_plan("[Harvest Mineral](0, 0)").lines
    resource = {"id": 0, "type": "Resource", "player": -1, "x": 0, "y": 0, "hp": 1,
                "resources": 20, "action": "noop"}
    base = {"id": 1, "type": "Base", "player": 0, "x": 2, "y": 2, "hp": 10, "resources": 0,
            "action": "noop"}
    w1 = {"id": 5, "type": "Worker", "player": 0, "x": 1, "y": 1, "hp": 1, "resources": 0,
          "action": "noop"}
    w2 = {"id": 6, "type": "Worker", "player": 0, "x": 4, "y": 4, "hp": 1, "resources": 0,
          "action": "noop"}
    state = {"width": 8, "height": 8, "resources": [5, 5], "time": 0,
             "units": [resource, base, w1, w2]}
    executor = Executor(0)
    executor.set_plan(line, state)
    first = executor.actions(state)
    assert [a["unit"] for a in first] == [5]          # the nearer worker
    state = {**state, "units": [resource, base, w2]}  # worker 5 was killed
    again = executor.actions(state)
    assert [a["unit"] for a in again] == [6] and again[0]["type"] == "move"


def test_one_skill_line_drives_one_unit_while_it_lives(passive):
    """Each line assigns one unit (the prompt says so): over 300 cycles one harvest line keeps
    one worker while three more are produced, and one attack line sends one of four."""
    passive.reset(0)
    executor = Executor(0)
    executor.set_plan(parse_skill_plan("[Harvest Mineral](0, 0)\n"
                                       + "[Produce Unit](worker, south)\n" * 3).lines,
                      passive.state)
    harvesters = set()
    for _ in range(300):
        actions = executor.actions(passive.state)
        kinds = {u["id"]: u["type"] for u in passive.state["units"]}
        harvesters |= {a["unit"] for a in actions if kinds[a["unit"]] == "Worker"}
        passive.step(actions)
    assert _count(passive.state, 0, "Worker") == 4 and len(harvesters) == 1
    executor.set_plan(parse_skill_plan("[Attack Enemy](worker, base)").lines, passive.state)
    attackers = set()
    for _ in range(30):
        actions = executor.actions(passive.state)
        attackers |= {a["unit"] for a in actions}
        passive.step(actions)
    assert len(attackers) == 1


def test_the_tips_planner_beats_random_biased_ai_in_most_games():
    with MicroRTS(opponent="RandomBiasedAI") as env:
        results = [play_game(env, TipsPlanner(), seed=s).result for s in range(10)]
    assert results.count(1) >= 6, results


def test_the_stand_in_is_an_llm_that_knows_only_the_battlefield_text(passive):
    from pddlkit.skills.plap.entries import make_planner
    from pddlkit.skills.plap.standin import read_battlefield

    passive.reset(seed=0)
    key = lambda u: (u["player"], u["type"], u["x"], u["y"], u["hp"], u["resources"],  # noqa
                     u["action"])
    for player in (0, 1):
        state, side = read_battlefield(passive.describe(player))
        assert side == player and state["resources"] == passive.state["resources"]
        assert sorted(map(key, state["units"])) == sorted(map(key, passive.state["units"]))
    planner = make_planner("standin", passive)
    answer = planner.plan(passive.describe(0), {"units": []}, 0)   # the state is not read
    assert "[Harvest Mineral]" in answer and planner.llm.calls == 1
    assert planner.llm.model == "standin-tips"


def test_noisy_lines_and_a_failing_planner_never_stop_the_game():
    class Flaky:
        def __init__(self):
            self.inner, self.calls = NoisyPlanner(0.5, seed=1), 0

        def plan(self, observation, state, player):
            self.calls += 1
            if self.calls == 2:
                raise RuntimeError("the model timed out")
            return self.inner.plan(observation, state, player)

    with MicroRTS(opponent="RandomBiasedAI") as env:
        record = play_game(env, Flaky(), seed=3)
    assert record.metrics.time > 0 and record.plans >= 1
    reasons = {reason for _, _, reason in record.dropped}
    assert any(r.startswith("unknown skill [Build Barracks]") for r in reasons)
    assert any("got 'worker1'" in r for r in reasons)
    assert any(r.startswith("there is no mineral field") for r in reasons)
    assert record.planner_errors == [(100, "RuntimeError: the model timed out")]


def test_a_game_without_any_plan_is_invalid_not_lost():
    from pddlkit.skills.plap.cli import summarize

    class Silent:
        def plan(self, observation, state, player):
            raise RuntimeError("the model timed out")

    with MicroRTS(opponent="WorkerRush", max_cycles=300) as env:
        record = play_game(env, Silent(), seed=0)
    tries = len(record.planner_errors)
    assert record.plans == 0 and tries >= 2
    assert record.invalid == (f"the planner gave no plan in {tries} tries (first: "
                              "RuntimeError: the model timed out)")
    summary = summarize([record])
    assert (summary["games"], summary["losses"], summary["invalid"]) == (0, 0, 1)
    assert summary["planner_errors"] == tries


def test_an_unreachable_llm_ends_the_run_with_exit_2_and_the_connection_error():
    from cli_runner import run_cli

    done = run_cli("run", "plap", "--env", "microrts", "--llm",
                   "openai:gpt-4o-mini@http://127.0.0.1:9/v1", "--episodes", "2",
                   env={"PDDLKIT_NO_CACHE": "1"})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "cannot connect to http://127.0.0.1:9/v1" in done.stderr
    assert "Traceback" not in done.stderr and "won" not in done.stdout


def test_a_seed_gives_the_same_game_every_time():
    """The engine's static Random fields (util.Sampler, GameState.r, UnitAction.r) are reseeded
    at each game: bot-vs-bot games and a planner's game against RandomBiasedAI repeat exactly,
    within one engine process and across processes."""
    lengths, planned = [], []
    for _ in range(2):
        with MicroRTS(opponent="RandomBiasedAI") as env:
            lengths.append([env.play("RandomBiasedAI", "RandomBiasedAI", seed=0)[0]["time"]
                            for _ in range(2)])
            record = play_game(env, NoisyPlanner(0.5, seed=1), seed=3)
            planned.append((record.metrics.time, record.metrics.result, len(record.dropped)))
    assert lengths[0] == lengths[1] and len(set(lengths[0])) == 1, lengths
    assert planned[0] == planned[1]


def test_the_llm_planner_sends_fig_3s_prompt_in_each_variant():
    from pddlkit.llm import ScriptedLLM, UsageLedger
    from pddlkit.skills.plap.planner import LLMPlanner, build_prompt

    with MicroRTS(opponent="PassiveAI", max_cycles=300) as env:
        text, _ = env.reset(0)
        zs = build_prompt(text, env.units_table, 0, "zs")
        full = build_prompt(text, env.units_table, 0, "fs-tip")
        assert zs.startswith("You are an RTS game expert") and "## Examples" not in zs
        assert "## Tips" not in zs and "You are now the **BLUE** side." in zs
        assert "- Worker: 1 HP, costs 1 resources, and takes 50 time units to build." in zs
        assert full.index("## Examples") < full.index("## Tips") < full.index("## Battlefield")
        seen = []

        def answer(messages):
            seen.append(messages[-1]["content"])
            return "START OF SKILL_PLAN\n[Harvest Mineral](0, 0)\n[Produce Unit](worker, east)" \
                   "\n[Produce Unit](light, east)\nEND OF SKILL_PLAN"

        llm = ScriptedLLM(answer, ledger=UsageLedger())
        record = play_game(env, LLMPlanner(llm, env.units_table, "fs"), seed=0)
    assert len(seen) == 3 and "## Examples" in seen[0] and "Game time: 100 of" in seen[1]
    assert record.lines == 6 and record.metrics.produced >= 1
    assert [why for _, _, why in record.dropped] == ["you have no barracks to produce it"] * 3
    assert "## Feedback" not in seen[0]
    assert ("## Feedback on your last plan\nThese lines were dropped and did not run:\n"
            "- [Produce Unit](light, east): you have no barracks to produce it") in seen[1]


def test_cli_runs_plap_offline_and_explains_bad_input():
    import json

    from cli_runner import run_cli

    run = ["run", "plap", "--env", "microrts"]
    ok = run_cli(*run, *["--llm", "standin:plap:noisy", "--opponent", "LightRush",
                               "--episodes", "2", "--json"])
    assert ok.returncode in (0, 1), ok.stderr
    rows = json.loads(ok.stdout)
    assert len(rows) == 2 and sum(r["dropped"] for r in rows) > 0
    assert all(r["won"] == (r["result"] == 1) for r in rows)
    assert all(r["stand_in"] == "stand-in (the expert tips, with noisy lines)" for r in rows)
    bad = run_cli(*run, *["--opponent", "Zerg"])
    assert bad.returncode == 2 and "unknown opponent 'Zerg'" in bad.stderr
    assert "Traceback" not in bad.stderr
    red = run_cli(*run, *["--side", "red", "--opponent", "PassiveAI", "--max-cycles",
                                "400", "--json"])
    assert red.returncode in (0, 1), red.stderr
    [row] = json.loads(red.stdout)
    assert row["side"] == "red" and row["result"] == 1   # the planner won as red


def test_planners_play_each_other_and_the_leaderboard_adds_up():
    from pddlkit.skills.plap.game import play_match
    from pddlkit.skills.plap.leaderboard import format_table, round_robin

    with MicroRTS(opponent="external") as env:
        blue, red = play_match(env, TipsPlanner(), NoisyPlanner(0.5, seed=2), seed=0)
    assert blue.result == -red.result or blue.result == red.result == 0
    assert red.dropped and not blue.dropped and blue.plans == red.plans
    rows = round_robin(["standin", "standin:plap:noisy", "bot:RandomBiasedAI"], games=1,
                       by_side=True)
    sides, rows = rows[3:], rows[:3]
    assert [r["entry"] for r in sides[:2]] == ["standin as blue", "standin as red"]
    assert all(r["games"] == 2 for r in sides)   # each entry, each side, once per opponent
    assert [r["games"] for r in rows] == [4, 4, 4]
    assert sum(r["score"] for r in rows) == 0 and all(r["W"] + r["D"] + r["L"] == 4
                                                      for r in rows)
    assert rows[-1]["entry"] == "bot:RandomBiasedAI"
    assert format_table(rows).splitlines()[0].split()[:4] == ["entry", "score", "WR", "W/D/L"]


def test_the_bench_agent_plays_a_side_against_a_bot_or_a_planner():
    from pddlkit.bench.executors import run_cell

    def cell(match: str) -> dict:
        return {"key": "p", "agent": "plap", "kind": "plap", "llm": "standin", "env": "microrts",
                "difficulty": "-", "level_index": 0, "seed": 0, "env_options": {"match": match},
                "options": {}}

    row = run_cell(cell("red:RandomBiasedAI"), None)
    assert row["result"] in (-1, 0, 1) and row["time"] > 0 and "RHR" in row
    assert row["side"] == "red" and row["won"] == (row["result"] == 1)
    with pytest.raises(ValueError, match="side must be blue or red"):
        run_cell(cell("green:WorkerRush"), None)


def _rejected_moves(env, see_walls: bool) -> int:
    from pddlkit.skills.plap.standin import read_battlefield

    text, _ = env.reset(0)
    executor, planner, rejected = Executor(0), TipsPlanner(), 0
    while not env.done:
        if env.state["time"] % 100 == 0:
            state, _ = read_battlefield(text)   # what the planner knows: the text
            assert state["walls"] == env.state["walls"]
            executor.set_plan(parse_skill_plan(planner.plan(text, env.state, 0)).lines,
                              env.state)
        seen = env.state if see_walls else {**env.state, "walls": []}
        text = env.step(executor.actions(seen)).observation
        rejected += len(env.last_rejected)
    return rejected


def test_walls_are_in_the_text_the_paths_and_the_check():
    from pddlkit.envs.microrts_assets import home as engine_home

    path = engine_home() / "maps" / "8x8" / "basesWorkers8x8Obstacle.xml"
    env = MicroRTS(map=str(path), opponent="PassiveAI", max_cycles=400)   # a map by its path
    try:
        text, _ = env.reset(0)
        assert len(env.state["walls"]) == 8 and "Walls (impassable): (2, 3)," in text
        lines = parse_skill_plan("[Build Building](barracks, (2, 3))").lines
        assert [c.reason for c in check_lines(env.state, 0, _costs(env), lines)] == [
            "the location is not free"]
        assert _rejected_moves(env, see_walls=True) == 0
        assert _rejected_moves(env, see_walls=False) > 0   # what ignoring them cost
    finally:
        env.close()
    with pytest.raises(ValueError, match="no MicroRTS map file /nowhere/map.xml"):
        MicroRTS(map="/nowhere/map.xml")


def _mirrored(actions, state, player) -> set:
    """Actions as blue would see them: red's positions, directions and targets turned half
    round (the map is point-symmetric)."""
    w, h = state["width"], state["height"]
    pos = {u["id"]: (u["x"], u["y"]) for u in state["units"]}
    turn = (lambda x, y: (w - 1 - x, h - 1 - y)) if player == 1 else (lambda x, y: (x, y))
    out = set()
    for a in actions:
        d = a.get("direction")
        target = turn(a["x"], a["y"]) if "x" in a else None
        out.add((turn(*pos[a["unit"]]), a["type"],
                 None if d is None else (d + 2) % 4 if player == 1 else d, target,
                 a.get("unit_type")))
    return out


def test_the_executor_plays_each_side_as_a_mirror_image_and_neither_side_is_favoured():
    """Stand-in against stand-in on the point-symmetric map: red's actions are blue's turned
    half round, cycle by cycle, until the engine must give a contested cell to one side; it
    gives it by a seeded coin, so each side wins some games (blue used to lose every one)."""
    from pddlkit.skills.plap.game import K, _Side, play_match

    with MicroRTS(opponent="external", max_cycles=2000) as env:
        env.reset(0)
        costs = _costs(env)
        sides = [_Side(TipsPlanner(), 0, "standin", 0), _Side(TipsPlanner(), 1, "standin", 0)]
        for _ in range(500):
            t = env.state["time"]
            if t % K == 0:
                for side in sides:
                    side.plan(t, env.describe(side.player), env.state, costs, True)
            blue, red = (s.executor.actions(env.state) for s in sides)
            assert _mirrored(blue, env.state, 0) == _mirrored(red, env.state, 1), t
            env.step(blue, red)
        results = [play_match(env, TipsPlanner(), TipsPlanner(), seed=s)[0].metrics.result
                   for s in (3, 4)]
    assert sorted(results) == [-1, 1], results


def test_an_engine_that_dies_mid_run_ends_the_run_with_the_finished_games_summed_up(
        monkeypatch, capsys):
    """The real engine killed in the second of three games: the first game's row and the
    run's summary are printed, and the error names how the engine ended; no traceback."""
    from pddlkit.agents.cli import parser_for, run
    from pddlkit.agents.registry import get_agent

    from pddlkit.skills.plap import game

    games = []
    real_play, real_step = game.play_game, MicroRTS.step

    def play_game(env, *args, **kwargs):
        games.append(env)
        return real_play(env, *args, **kwargs)

    def step(self, *args, **kwargs):
        if len(games) == 2 and not getattr(self, "_killed_for_test", False):
            self._killed_for_test = True   # the second game's first step: the engine dies
            self.worker.proc.kill()
            self.worker.proc.wait()
        return real_step(self, *args, **kwargs)

    monkeypatch.setattr(game, "play_game", play_game)
    monkeypatch.setattr(MicroRTS, "step", step)
    spec = get_agent("plap")
    args = parser_for(spec).parse_args(["--env", "microrts", "--episodes", "3",
                                        "--max-cycles", "200", "--plan-every", "100"])
    code = run(spec, args)
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert "episode seed 0:" in out and "episode seed 1:" not in out
    assert "/1 episodes won (of 3 asked)" in out
    assert "killed by SIGKILL" in err and "Traceback" not in err
