"""The StarCraft II unit-building simulator (CoPiC's third environment): game data, rules,
the paper's reward on hand-made transitions, and a correct build order completing each level."""

from __future__ import annotations

import pytest

from pddlkit.envs import sc2_data
from pddlkit.envs.sc2_build import (
    SC2Build, Structure, building_ins_reward, obtain_unit_count, public_obs, reference_planner,
    tech_chain,
)


def test_game_data_is_the_games():
    bc, scv, thor = (sc2_data.KINDS[k] for k in ("BATTLECRUISER", "SCV", "THOR"))
    assert (bc.minerals, bc.gas, bc.supply, bc.loops) == (400, 300, 6, 1440)
    assert round(bc.seconds, 1) == 64.3 and round(scv.seconds, 1) == 12.1
    assert (thor.minerals, thor.gas, thor.requires, thor.needs_techlab) == (300, 200,
                                                                            ("ARMORY",), True)
    assert sc2_data.KINDS["SUPPLYDEPOT"].provides == 8
    assert sc2_data.KINDS["COMMANDCENTER"].provides == 15
    assert tech_chain("BATTLECRUISER") == ["SUPPLYDEPOT", "BARRACKS", "FACTORY", "STARPORT",
                                           "FUSIONCORE", "STARPORTTECHLAB"]
    assert tech_chain("VIKINGFIGHTER") == ["SUPPLYDEPOT", "BARRACKS", "FACTORY", "STARPORT"]


def test_start_matches_the_papers_example_observation():
    env = SC2Build("easy", seed=0)
    obs = public_obs(env.observe())
    assert obs["Resource"] == {"supply_cap": 15, "supply_left": 3, "gas": 0}
    assert obs["Building"]["COMMANDCENTER"] == 1 and obs["Unit"]["SCV"] == 12
    assert env.action_space() == ["TRAIN SCV"]  # 50 minerals: not yet a refinery (75)


def _run(env, plans):
    for plan in plans:
        step = env.step(plan)
    return step


def test_requirements_supply_and_producers_are_enforced():
    env = SC2Build("medium", seed=0)
    assert env.why_not("TRAIN THOR") == "THOR needs a finished ARMORY"
    assert "needs a finished SUPPLYDEPOT" in env.why_not("BUILD BARRACKS")
    assert "costs 100 minerals" in env.why_not("BUILD SUPPLYDEPOT")
    assert "a building: BUILD it" in env.why_not("TRAIN BARRACKS")
    assert "unknown action" in env.why_not("DANCE")
    env.minerals = 10_000
    env.gas = 10_000   # as if gathered: a refinery stands (gas comes from nowhere else)
    env.structures.append(Structure("REFINERY", 0.0))
    env.step(["BUILD SUPPLYDEPOT"])
    env.step([])
    assert env.why_not("BUILD BARRACKS") == "BARRACKS needs a finished SUPPLYDEPOT"  # 21.4 s
    env.step([])
    assert env.step(["BUILD BARRACKS"]).info["started"] == ["BUILD BARRACKS"]
    for _ in range(5):
        env.step([])
    assert env.why_not("TRAIN MARAUDER") == "MARAUDER needs a BARRACKS with a BARRACKSTECHLAB"
    env.step(["BUILD BARRACKSTECHLAB"])
    assert "already has an add-on or is busy" in env.why_not("BUILD BARRACKSTECHLAB")
    assert env.why_not("TRAIN MARINE") == "every BARRACKS is building an add-on"
    env.step([])
    env.step([])
    assert env.why_not("TRAIN MARAUDER") is None
    # supply: 15 + 8 = 23 cap, 12 SCVs used; five SCVs fill the Command Center's queue
    step = env.step(["TRAIN SCV"] * 5 + ["TRAIN SCV"])
    assert step.info["skipped"][-1][1] == "beyond the first 5 actions"
    assert step.info["started"] == ["TRAIN SCV"] * 5
    assert env.why_not("TRAIN SCV") == "every COMMANDCENTER has 5 orders queued"
    assert env.why_not("TRAIN MARINE") is None   # the Barracks' queue is its own


def _rich(**kwargs) -> SC2Build:
    """A start with the minerals for anything and a supply depot standing (23 supply)."""
    env = SC2Build("easy", seed=0, **kwargs)
    env.minerals = 10_000
    env.structures.append(Structure("SUPPLYDEPOT", 0.0))
    return env


@pytest.mark.parametrize("spread", [False, True])
def test_one_command_center_trains_five_scvs_back_to_back_in_a_minute(spread):
    """The game's production queue: 5 SCVs take 5 x 272 loops = 60.7 s from one Command
    Center, ordered at once or one order a step (the old one-at-a-time simulator made 3)."""
    env = _rich()
    scv = sc2_data.KINDS["SCV"].seconds
    orders = [["TRAIN SCV"]] * 5 if spread else [["TRAIN SCV"] * 5]
    for plan in orders:
        assert env.step(plan).info["started"] == ["TRAIN SCV"] * len(plan)
    _run(env, [[]] * (6 - len(orders)))
    assert env.time == 60 and obtain_unit_count(env.observe(), "SCV") == (12 + 4, 1)
    assert env.observe()["Unit"]["SCV"] == 17   # the paper's count adds the one in progress
    assert min(j.done_at for j in env.jobs) == pytest.approx(5 * scv)   # no gap, no rounding
    env.step([])
    assert env.units["SCV"] == 17


def test_orders_start_within_the_step_when_the_resources_arrive():
    env = SC2Build("easy", seed=0)   # 50 minerals, 12 miners at 55 a minute each
    step = env.step(["TRAIN SCV", "BUILD SUPPLYDEPOT"])
    assert step.info["started"] == ["TRAIN SCV", "BUILD SUPPLYDEPOT"]
    rate = 12 * sc2_data.MINERALS_PER_WORKER_S
    assert step.info["started_at"] == [0.0, round(100 / rate, 2)]   # 9.09 s, not 10 s
    depot = next(s for s in env.structures if s.kind == "SUPPLYDEPOT")
    assert depot.done_at == pytest.approx(100 / rate + sc2_data.KINDS["SUPPLYDEPOT"].seconds)
    # an action that cannot start does not hold back the next; one that never can is skipped
    step = env.step(["BUILD BARRACKS", "TRAIN SCV"])
    assert step.info["started"] == ["TRAIN SCV"]
    assert step.info["skipped"] == [("BUILD BARRACKS", "BARRACKS needs a finished SUPPLYDEPOT")]
    # the depot finishes at 30.5 s: a Barracks ordered in the step from 30 s starts then
    env.minerals = 1000
    env.step([])
    step = env.step(["BUILD BARRACKS"])
    assert step.info["started_at"] == [round(depot.done_at, 2)]


def test_income_workers_and_refineries():
    env = SC2Build("easy", seed=0)
    env.step([])
    assert env.minerals == pytest.approx(50 + 12 * 10 * sc2_data.MINERALS_PER_WORKER_S)
    before = env.minerals
    env.step(["BUILD REFINERY"])  # one SCV leaves the minerals for 21.4 s
    assert env.minerals == pytest.approx(before - 75 + 11 * 10 * sc2_data.MINERALS_PER_WORKER_S)
    _run(env, [[]] * 3)
    gas_rate = 3 * sc2_data.GAS_PER_WORKER_S
    g0 = env.gas
    env.step([])
    assert env.gas - g0 == pytest.approx(10 * gas_rate)
    env.minerals = 1000
    env.step(["BUILD REFINERY"])
    assert env.why_not("BUILD REFINERY") == "every geyser already has a refinery"


def test_reward_is_the_papers_on_hand_made_transitions():
    def obs(**counts):
        return {"_detail": {k: v for k, v in counts.items()}}

    task = {"SCV": 14, "THOR": 2}
    # one SCV started, a Thor finished from in progress: +1 (the Thor was already counted)
    assert building_ins_reward(obs(SCV=(12, 0), THOR=(0, 1)), obs(SCV=(12, 1), THOR=(1, 0)),
                               task) == 1
    # two Thors started, one needed: +1 - 1
    assert building_ins_reward(obs(SCV=(14, 0), THOR=(1, 0)), obs(SCV=(14, 0), THOR=(1, 2)),
                               task) == 0
    # already enough SCVs: every further one costs 1
    assert building_ins_reward(obs(SCV=(14, 0), THOR=(0, 0)), obs(SCV=(14, 2), THOR=(0, 0)),
                               task) == -2
    # reaching the target exactly
    assert building_ins_reward(obs(SCV=(13, 0), THOR=(0, 0)), obs(SCV=(13, 1), THOR=(0, 2)),
                               task) == 3


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_a_correct_build_order_completes_each_level(difficulty):
    for seed in range(3):
        env = SC2Build(difficulty, seed=seed)
        obs, info = env.reset()
        total = 0.0
        while True:
            plan = reference_planner(public_obs(obs), env.action_space(), env.task)
            assert len(plan) <= 5 and all(a in env.action_space() for a in plan)
            step = env.step(plan)
            obs, total = step.observation, total + step.reward
            if step.terminated or step.truncated:
                break
        assert env.won, (difficulty, seed, env.task)
        assert total == sum(n - (12 if u == "SCV" else 0) for u, n in env.task.items())
        assert env.time <= 600


def test_a_program_that_forgets_the_armory_never_gets_a_thor():
    env = SC2Build("medium", seed=1, max_seconds=300)
    obs, _ = env.reset()
    skipped = []
    while True:
        plan = [a for a in reference_planner(public_obs(obs), env.action_space(), env.task)
                if a != "BUILD ARMORY"] + ["TRAIN THOR"]
        step = env.step(plan)
        skipped += step.info["skipped"]
        obs = step.observation
        if step.terminated or step.truncated:
            break
    assert step.truncated and not env.won and env.units["THOR"] == 0
    assert ("TRAIN THOR", "THOR needs a finished ARMORY") in skipped
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step([])


def test_bad_settings_are_clear():
    with pytest.raises(ValueError, match="unknown difficulty"):
        SC2Build("insane")
    with pytest.raises(ValueError, match="unknown unit"):
        SC2Build(task={"ZERGLING": 3})
    env = SC2Build(task={"scv": 13})
    assert env.task == {"SCV": 13}


def test_the_tech_tree_as_pddl_gives_build_orders_and_names_what_is_missing():
    import pddlkit
    from pddlkit.envs.sc2_build import tech_domain, tech_problem

    assert not pddlkit.check(tech_domain(), tech_problem(["GHOST"])).diagnostics
    result = pddlkit.plan(tech_domain(), tech_problem(["BATTLECRUISER", "THOR"]))
    assert result.status == "solved"
    order = [step.name.removeprefix("make-").upper() for step in result.plan.steps]
    for i, name in enumerate(order):  # everything a step needs was made before it
        assert set(tech_chain(name)) - {name} <= set(order[:i]) | {"COMMANDCENTER"}, name
    assert order[-1] in ("BATTLECRUISER", "THOR") and "ARMORY" in order
    blocked = pddlkit.plan(tech_domain(forbid=["ARMORY"]), tech_problem(["THOR"]))
    assert blocked.status == "unsolvable"
    assert "(make-thor), which needs (have-armory)" in blocked.explanation.sentences[0]


def test_the_time_still_needed_falls_along_a_correct_build_order_and_rises_with_waste():
    import copy

    env = SC2Build("easy", seed=0)
    obs, _ = env.reset()
    start = env.seconds_left()
    assert start > 0
    estimates = [start]
    wasted = 0
    while not env.won:
        plan = reference_planner(public_obs(obs), env.action_space(), env.task)
        if "BUILD SUPPLYDEPOT" in env.action_space() and "BUILD SUPPLYDEPOT" not in plan:
            # the same step with a depot nobody needs first: the estimate is higher after it
            waste = copy.deepcopy(env)
            waste.step(["BUILD SUPPLYDEPOT", *plan])
            same = copy.deepcopy(env)
            same.step(plan)
            wasted += waste.seconds_left() > same.seconds_left()
        obs = env.step(plan).observation
        estimates.append(env.seconds_left())
    assert estimates[-1] == 0.0
    assert wasted > 0
    # it overestimates (gathering and building overlap in the game), within a factor of 3
    assert env.time <= start <= 3 * env.time
    assert max(estimates[len(estimates) // 2:]) < start / 2
