"""Text environments as PDDL worlds: ground-truth plans win, failures get specific messages,
snapshots restore, episodes are deterministic by seed, the registry and the CLI list them."""

from __future__ import annotations

import json
import sys

import pytest

import pddlkit
from pddlkit.envs import NOTHING_HAPPENS, ActionTemplate, PDDLWorldEnv, make
from pddlkit.envs.coin_collector import PAPER_SIZES, CoinCollector
from pddlkit.envs.household import DIFFICULTIES, Household

SEEDS = range(50)


def _win_with_fast_downward(env, seed) -> None:
    obs, info = env.reset(seed=seed)
    assert not info["won"] and obs
    result = pddlkit.plan(env.domain, env.problem, cache=False, explain=False)
    assert result.solved, (seed, result.format())
    for command in env.commands_for_plan(result.plan):
        step = env.step(command)
        assert step.error is None, (seed, command, step.observation)
    assert step.won and step.terminated and step.reward == 1.0, (seed, env.task)


@pytest.mark.slow
@pytest.mark.parametrize("rooms", PAPER_SIZES)
def test_coin_collector_fast_downward_plans_win(rooms):
    env = CoinCollector(rooms=rooms)
    for seed in SEEDS:
        _win_with_fast_downward(env, seed)


@pytest.mark.slow
@pytest.mark.parametrize("difficulty", list(DIFFICULTIES))
def test_household_fast_downward_plans_win(difficulty):
    env = Household(receptacles=16, difficulty=difficulty)
    for seed in SEEDS:
        _win_with_fast_downward(env, seed)


def test_large_layouts_are_winnable():
    _win_with_fast_downward(CoinCollector(rooms=100), 0)
    _win_with_fast_downward(Household(receptacles=60, difficulty="heat"), 0)


# --------------------------------------------------------------------------- failure messages

COIN_FAILURES = [
    ("move up", "unknown-object", '"up" is not a direction'),
    ("dance", "unknown-command", 'I don\'t understand "dance"'),
    ("take coin", "precondition", "There is no coin here."),
]


def test_coin_collector_failures_are_specific():
    env = CoinCollector(rooms=5, seed=2)
    env.reset()
    for command, code, text in COIN_FAILURES:
        step = env.step(command)
        assert (step.error, text in step.observation) == (code, True), (command, step.observation)
    room = env.here()
    exits = {f[3]: f[2] for f in env.state.atoms_with("connected", 1, room)}
    missing = next(d for d in ("north", "south", "east", "west") if d not in exits)
    step = env.step(f"move {missing}")
    assert step.observation == f"You can't move {missing}: there is no exit in that direction."
    step = env.step(f"open door to {missing}")
    assert step.observation == f"There is no door to the {missing}."
    doors = {d for d in exits if ("has-door", room, exits[d], d) in env.state.atoms}
    doorways = set(exits) - doors
    for d in doors:
        assert env.step(f"move {d}").observation == f"The door to the {d} is closed."
        assert env.step(f"close door to {d}").observation == f"The door to the {d} is closed."
        assert env.step(f"open door to {d}").error is None
        assert env.step(f"open door to {d}").observation == f"The door to the {d} is already open."
    for d in doorways:
        assert env.step(f"open door to {d}").observation == (
            f"There is no door to the {d}: it is an open doorway.")


def test_household_failures_are_specific():
    env = Household(receptacles=12, difficulty="heat", seed=4)
    env.reset()
    d = env.display
    obj, where = sorted((f[1], f[2]) for f in env.state.by_predicate["inreceptacle"]
                        if f[2] == "countertop_1")[0]
    cabinet, countertop = "cabinet 1", "countertop 1"
    cases = [
        (f"take {d(obj)} from {countertop}", f"You don't see any {d(obj)} here."),  # not seen
        ("go to cabinet 99", "You don't see any cabinet 99 here."),
        (f"go to {countertop}", None),
        (f"go to {cabinet}", None),
        (f"take {d(obj)} from {countertop}", f"You are not at the {countertop}; go to it first."),
        (f"go to {cabinet}", f"You are already at the {cabinet}."),
        (f"close {cabinet}", f"The {cabinet} is closed."),
        (f"open {cabinet}", None),
        (f"open {cabinet}", f"The {cabinet} is already open."),
        (f"heat {d(obj)} with {cabinet}", f"The {cabinet} cannot heat things."),
        (f"heat {d(obj)} with microwave 1", "You are not at the microwave 1; go to it first."),
        ("use desklamp 1", "You don't see any desklamp 1 here."),
        (f"go to {countertop}", None),
        (f"open {countertop}", f"The {countertop} cannot be opened or closed."),
        ("microwave the soup", 'I don\'t understand "microwave the soup"'),
        (f"take {d(obj)} from {countertop}", None),
        (f"heat {d(obj)} with {countertop}", f"The {countertop} cannot heat things."),
        (f"slice {d(obj)} with {d(obj)}", f"The {d(obj)} is not on the {countertop}."),
    ]
    for command, expected in cases:
        step = env.step(command)
        if expected is None:
            assert step.error is None, (command, step.observation)
        else:
            assert expected in step.observation and step.error, (command, step.observation)
            assert step.observation != NOTHING_HAPPENS
    others = [o for o in env.contents("countertop_1")]
    if others:
        step = env.step(f"take {d(others[0])} from {countertop}")
        assert step.observation == (f"You are already holding the {d(obj)}; put it somewhere "
                                    "first.")


def test_closed_receptacles_hide_their_contents():
    env = Household(receptacles=20, seed=3)
    env.reset()
    closed = next(r for r in sorted(env.openable) if env.contents(r))
    inside = env.display(env.contents(closed)[0])
    arrive = env.step(f"go to {env.display(closed)}").observation
    assert "is closed" in arrive and inside not in arrive
    assert env.step(f"take {inside} from {env.display(closed)}").observation == (
        f"You don't see any {inside} here.")
    assert inside in env.step(f"open {env.display(closed)}").observation
    env.step(f"close {env.display(closed)}")
    assert env.step(f"take {inside} from {env.display(closed)}").observation == (
        f"The {env.display(closed)} is closed.")


def _probe_answers(env, name: str, receptacle: str) -> list[str]:
    """The answers to every command shape naming ``name``, with the name masked."""
    commands = [f"take {name} from {receptacle}", f"slice {name} with {name}", f"use {name}",
                f"examine {name}", f"put {name} in {receptacle}", f"heat {name} with "
                f"{receptacle}", f"clean {name} with {receptacle}"]
    answers = []
    for command in commands:
        snap = env.snapshot()
        step = env.step(command)
        answers.append((step.observation.replace(name, "<X>"), step.error))
        env.restore(snap)
    return answers


def _objects_in(env, receptacle: str) -> list[str]:
    return sorted(f[1] for f in env.state.atoms_with("inreceptacle", 2, receptacle))


@pytest.mark.parametrize("seed", range(6))
def test_household_answers_reveal_nothing_hidden(seed):
    """Objects inside a closed receptacle, objects elsewhere and objects that do not exist
    get the same answers, before and after the agent has seen them."""
    env = Household(receptacles=20, seed=seed)
    env.reset()
    closed = next(r for r in sorted(env.openable, key=str) if _objects_in(env, r))
    here = env.display(closed)
    inside = env.display(_objects_in(env, closed)[0])
    elsewhere = env.display(next(f[1] for f in sorted(env.state.by_predicate["inreceptacle"])
                                 if f[2] != closed and f[1] != inside.replace(" ", "_")))
    env.step(f"go to {here}")
    unseen = [_probe_answers(env, n, here) for n in (inside, elsewhere, "apple 99")]
    assert unseen[0] == unseen[1] == unseen[2], unseen
    assert all(error == "unknown-object" for i, (_, error) in enumerate(unseen[0])
               if i != 3)  # 3: examine, a meta command, answers without an error code
    assert not [c for c in env.admissible_commands() if inside in c or elsewhere in c]
    # see both objects, then stand before the closed receptacle again
    elsewhere_at = next(f[2] for f in env.state.by_predicate["inreceptacle"]
                        if f[1] == elsewhere.replace(" ", "_"))
    env.step(f"open {here}")
    env.step(f"close {here}")
    env.step(f"go to {env.display(elsewhere_at)}")
    if elsewhere_at in env.openable:
        env.step(f"open {env.display(elsewhere_at)}")
    assert elsewhere.replace(" ", "_") in env.seen and inside.replace(" ", "_") in env.seen
    env.step(f"go to {here}")
    seen = [_probe_answers(env, n, here) for n in (inside, elsewhere)]
    assert [a for a, _ in seen[0][:3]] == [a for a, _ in seen[1][:3]], seen
    assert "closed" in seen[0][0][0]


@pytest.mark.parametrize("seed", range(4))
def test_admissible_commands_name_only_seen_objects(seed):
    import random

    env = Household(receptacles=24, seed=seed)
    env.reset()
    rng = random.Random(seed)
    objects = {f[1] for f in env.state.by_predicate["objecttype"]}
    for _ in range(60):
        commands = list(env.admissible_commands())
        for c in commands:
            named = {o for o in objects if c.endswith(" " + env.display(o))
                     or f" {env.display(o)} " in c + " "}
            assert named <= env.seen, (c, named - env.seen)
        env.step(rng.choice(commands))


def test_coin_collector_failures_name_no_unseen_room():
    """Rooms behind closed doors are named in no failure message."""
    import random

    from envs.coin_collector import DIRECTIONS

    env = CoinCollector(rooms=9, seed=2)
    env.reset()
    rooms = {f[1] for f in env.state.by_predicate["connected"]}
    rng = random.Random(0)
    shown = {env.here()}
    for _ in range(150):
        command = rng.choice([f"{v} {d}" for v in ("move", "open door to", "close door to")
                              for d in DIRECTIONS] + ["take coin", "take key"])
        step = env.step(command)
        if step.error is None:
            shown |= {r for r in rooms if env.display(r) in step.observation}
        else:
            assert not {r for r in rooms - shown if env.display(r) in step.observation}, \
                step.observation


def test_terse_mode_says_nothing_happens_but_keeps_the_code():
    env = CoinCollector(rooms=3, seed=0, terse=True)
    env.reset()
    step = env.step("take coin")
    assert step.observation == NOTHING_HAPPENS and step.error == "precondition"


# --------------------------------------------------------------------------- snapshots, seeds


@pytest.mark.parametrize("make_env", [lambda: CoinCollector(rooms=9),
                                      lambda: Household(receptacles=30)])
def test_snapshot_restore_and_determinism(make_env):
    a, b = make_env(), make_env()
    obs_a, _ = a.reset(seed=11)
    obs_b, _ = b.reset(seed=11)
    assert obs_a == obs_b and a.problem == b.problem and a.task == b.task
    other = make_env()
    other.reset(seed=12)
    assert other.problem != a.problem  # another seed, another world
    commands = list(a.admissible_commands())[:3]
    snap = a.snapshot()
    first = [a.step(c).observation for c in commands]
    after = a.snapshot()
    a.restore(snap)
    assert a.snapshot() == snap and a.state == snap.state
    assert [a.step(c).observation for c in commands] == first
    assert a.snapshot() == after
    assert [b.step(c).observation for c in commands] == first
    other = make_env()
    other.reset(seed=3)
    with pytest.raises(ValueError, match="seed"):
        other.restore(snap)


def test_admissible_commands_all_succeed_and_are_lazy():
    env = Household(receptacles=10, seed=5)
    _, info = env.reset()
    assert "not computed" in repr(info["admissible_commands"])
    for command in list(info["admissible_commands"]):
        snap = env.snapshot()
        assert env.step(command).error is None, command
        env.restore(snap)


def test_truncation_at_max_steps():
    env = CoinCollector(rooms=5, seed=0, max_steps=3)
    env.reset()
    steps = [env.step("look around") for _ in range(3)]
    assert [s.truncated for s in steps] == [False, False, True]
    assert env.step("look around").error == "episode-over"


def test_any_pddl_model_becomes_an_environment():
    from pddlkit.domains import path

    domain = pddlkit.parse_domain(path("coin-collector/domain.pddl").read_text())
    problem = pddlkit.parse_problem(path("coin-collector/p3.pddl").read_text())
    env = PDDLWorldEnv(domain, problem, [ActionTemplate("move", ("?from", "?to", "?dir"),
                                                        "walk {dir}"),
                                         ActionTemplate("open-door", ("?loc1", "?loc2", "?dir"),
                                                        "unlatch {dir}"),
                                         ActionTemplate("take", ("?i", "?r"), "grab {i}")])
    env.reset()
    plan = [line for line in path("coin-collector/p3.plan").read_text().splitlines()
            if line.startswith("(")]
    commands = env.commands_for_plan(plan)
    assert commands[0].startswith(("walk", "unlatch"))
    for c in commands:
        step = env.step(c)
    assert step.won
    failed = PDDLWorldEnv(domain, problem, [ActionTemplate("take", ("?i", "?r"), "grab {i}")])
    failed.reset()
    assert "(in coin kitchen) is not true" in failed.step("grab coin").observation


# --------------------------------------------------------------------------- registry and CLI


def test_registry_makes_envs_and_suggests_names():
    env = make("coin-collector", rooms=3, seed=1)
    assert isinstance(env, CoinCollector) and env.rooms == 3
    with pytest.raises(LookupError, match="did you mean 'household'"):
        make("housework")


EVERY_ID = {"coin-collector", "household", "textworld", "alfworld", "grasp", "minigrid-unlock",
            "minigrid-doorkey", "minigrid-unlockpickup", "nethack-drink", "nethack-open-box",
            "nethack-exp-level-3", "sc2-build", "craft", "crafter", "microrts"}


def test_cli_lists_every_environment_the_front_ends_play():
    from cli_runner import run_cli

    out = run_cli("envs", "--json")
    assert out.returncode == 0, out.stderr
    rows = {row["id"]: row for row in json.loads(out.stdout)}
    assert EVERY_ID <= set(rows)
    assert all(len(rows[i]["summary"].split()) >= 5 for i in EVERY_ID)  # a whole sentence
    assert rows["nethack-drink"]["kwargs"] == {"task": "drink"}
    assert rows["grasp"]["kind"] == "instances" and "train" in rows["grasp"]["options"]
    assert rows["coin-collector"]["options"]["rooms"] == 7
    text = run_cli("envs").stdout
    assert "--rooms (default 7): number of rooms" in text and "[pddl; offers commands, domain, truth, failures]" in text
    assert rows["coin-collector"]["kind"] == "pddl" and "truth" in rows["coin-collector"]["offers"]


def test_the_front_ends_take_their_ids_from_the_registry():
    from pddlkit.agents import get_agent
    from pddlkit.envs.registry import ids

    assert set(get_agent("ipp").envs) == set(ids(kind="instances")) == {
        "grasp", "minigrid-unlock", "minigrid-doorkey", "minigrid-unlockpickup"}
    assert set(ids(prefix="nethack-")) <= set(get_agent("copic").envs)


def test_an_option_the_environment_does_not_take_is_named_with_those_it_does():
    with pytest.raises(TypeError, match="coin-collector has no option 'room'; its options "
                                        "are: rooms, seed"):
        make("coin-collector", room=3)


def test_a_step_budget_truncates_the_episode():
    from pddlkit.envs.registry import register, spec

    env = make("coin-collector", rooms=3, max_episode_steps=2)   # its own max_steps
    env.reset(0)
    first, second = env.step("look"), env.step("look")
    assert not first.truncated and second.truncated and env.max_steps == 2
    # an id that names no budget keyword of its environment is wrapped in a TimeLimit
    register("coin-collector-short", "pddlkit.envs.coin_collector:CoinCollector",
             kwargs={"rooms": 2}, max_episode_steps=1, summary="two rooms, one step")
    short = make("coin-collector-short")
    short.reset(0)
    step = short.step("look")
    assert step.truncated and step.info["TimeLimit.truncated"]
    assert short.rooms == 2  # the wrapped environment's attributes pass through
    assert spec("coin-collector-short").summary == "two rooms, one step"


def test_program_task_instances_are_held_out_by_instance():
    from pddlkit.envs.instance_sets import InstanceSplit

    split = make("grasp", train=20, evaluate=20, seed=3)
    assert len(split.train) == len(split.held_out) == 20 * 8
    grids = lambda xs: {(i.grid.distribution, i.grid.obstacles, i.grid.start_position,  # noqa
                         i.grid.index) for i in xs}
    assert not grids(split.train) & grids(split.held_out)
    with pytest.raises(ValueError, match="both training and held-out"):
        InstanceSplit("grasp", split.train[:3], split.train[2:5])
    # a smaller set is a sample over every grid file, not the first file's grids
    files = lambda xs: {(i.grid.distribution, i.grid.obstacles, i.grid.start_position)  # noqa
                        for i in xs}
    assert len(files(split.train)) == len(files(split.held_out)) == 20
    assert grids(make("grasp", train=20, seed=3).train) == grids(split.train)   # seeded


def test_minigrid_held_out_seeds_that_lay_out_a_training_grid_are_skipped():
    """DoorKey's seeds 1000-1099 hold two grids that training seeds 0-99 also lay out."""
    from pddlkit.envs import minigrid_tasks as M
    from pddlkit.envs.instance_sets import _minigrid_key

    split = make("minigrid-doorkey")
    train = {_minigrid_key(i) for i in split.train}
    first_hundred = [_minigrid_key(M.observe("doorkey", s)) for s in range(1000, 1100)]
    assert sum(k in train for k in first_hundred) >= 2   # what a split by seed let through
    held = [_minigrid_key(i) for i in split.held_out]
    assert len(held) == 100 and not set(held) & train and len(set(held)) == 100
    assert split.held_out[-1].seed > 1099
    with pytest.raises(ValueError, match="has 1000 training seeds"):
        make("minigrid-doorkey", train=1100, evaluate=5)


def test_coin_collector_hides_the_rooms_not_seen_from_info_and_the_reference_problem():
    """"The door to the east is closed." must not tell a program (``info["failed"]``) or the
    scorer's truth what room lies behind it; opening the door shows it ("revealing the
    corridor"). Before, nothing was hidden: ``(door-open kitchen corridor east)`` was in
    ``info["failed"]``, and the refuted-facts help said it to the model."""
    env = CoinCollector(rooms=3, seed=16)
    env.reset()
    assert "corridor" not in {o.name for o in env.reference_problem().objects}
    step = env.step("move east")
    assert "corridor" not in step.observation and "failed" not in step.info
    step = env.step("take coin")   # the coin is the task's word: the literal is said
    assert step.info["failed"] == {"literal": "(in coin kitchen)", "holds": False}
    env.step("open door to east")
    assert "corridor" in {o.name for o in env.reference_problem().objects}


def test_alfworld_says_what_it_loads_before_the_wait(tmp_path, monkeypatch, capsys):
    """Real ALFWorld is silent for its first 8-20 s (the worker imports alfworld and
    TextWorld and loads the game): a line on stderr says so before the first request is
    sent. The interpreter here is a stand-in that notes when it was asked (and refuses),
    so no ALFWorld venv is needed."""
    from pddlkit.envs.alfworld_adapter import ALFWorldEnv, ALFWorldError

    asked = tmp_path / "asked"
    fake = tmp_path / "python"
    fake.write_text(f"#!{sys.executable}\nimport json, sys\nsys.stdin.readline()\n"
                    f"open({str(asked)!r}, 'w').close()\n"
                    "print(json.dumps({'ok': False, 'error': 'stand-in', 'kind': 'X'}), "
                    "flush=True)\n")
    fake.chmod(0o755)
    said_before_asked = []

    class Stderr:
        def write(self, text):
            said_before_asked.append((text, not asked.exists()))

        def flush(self):
            pass

    monkeypatch.setattr(sys, "stderr", Stderr())
    env = ALFWorldEnv(python=str(fake), out_dir=str(tmp_path / "games"))
    with pytest.raises(ALFWorldError, match="stand-in"):
        env.reset()
    env.close()
    assert asked.exists()
    loading = [(text, before) for text, before in said_before_asked
               if text.startswith("alfworld: loading the game files and the TextWorld engine")]
    assert loading and all(before for _, before in loading), said_before_asked
