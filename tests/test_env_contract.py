"""The registry owns the environment contract (issue 47): every environment flag of
``pddlkit run AGENT --env ID`` comes from the environment's declared options and reaches the
environment the agent makes (or the agent, for the options it reads itself), or is refused
with exit 2 naming the flags the pair takes; a new environment registered with ``register()``
alone is played by two different agents."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pddlkit.agents import agent_names, get_agent
from pddlkit.agents import cli as run_cli
from pddlkit.agents.contract import env_flags, plays
from pddlkit.envs import registry

#: a valid value other than the default, for options whose value the environment checks
#: when it is made (a game file, a map, a character)
VALUES = {("textworld", "game"): "simple", ("alfworld", "python"): sys.executable,
          ("microrts", "map"): "basesWorkers16x16", ("craft", "task"): "stone_pickaxe",
          ("crafter", "target"): "stone_pickaxe", ("deps", "task"): "stone_pickaxe",
          ("nethack", "character"): "val-dwa-law-fem"}


def _value(env_id: str, option, folder: Path):
    family = env_id.split("-")[0]
    for key in ((env_id, option.name), (family, option.name)):
        if key in VALUES:
            return VALUES[key]
    if option.name in ("out_dir", "corpus"):
        return str(folder)
    if option.choices:
        return next(c for c in option.choices if c != option.default)
    if option.type is bool:
        return not option.default
    if option.type is int:
        value = (option.default or 0) + 1
        if option.minimum is not None:
            value = max(value, int(option.minimum))
        return value
    if option.type is float:
        return (option.default or 1.0) * 2
    return "x"


def _argv(option, value) -> list[str]:
    return [option.flag] if option.type is bool else [option.flag, str(value)]


def _pairs():
    for name in agent_names():
        agent = get_agent(name)
        for env_id in registry.ids():
            if plays(agent, registry.spec(env_id)) is None:
                yield name, env_id


PAIRS = list(_pairs())


def test_every_agent_plays_some_environment_and_none_plays_one_it_cannot():
    played = {name for name, _ in PAIRS}
    assert played == set(agent_names())
    assert ("pddlego", "craft") not in PAIRS and ("deps", "coin-collector") not in PAIRS
    assert ("pddlego", "household") in PAIRS and ("copic", "nethack-drink") in PAIRS


@pytest.mark.slow
@pytest.mark.parametrize("agent,env_id", PAIRS)
def test_each_environment_flag_reaches_the_environment_made_or_is_refused(agent, env_id,
                                                                         tmp_path, capsys):
    spec, env = get_agent(agent), registry.spec(env_id)
    flags = env_flags(spec, env)
    reads = set(spec.env_options_help())
    for option in flags:
        value = _value(agent if option.name in reads else env_id, option, tmp_path)
        args = run_cli.parser_for(spec, env_id).parse_args(
            ["--env", env_id, *_argv(option, value)])
        job = run_cli.build_job(spec, args)
        assert job.env_options == {option.name: value}
        if option.name in reads:          # the agent's own: it reaches the agent
            assert job.env_option(option.name) == value
            continue
        made = job.make_env()
        try:
            assert made.spec.kwargs[option.name] == value, (option.flag, made.spec.kwargs)
            # and the environment holds it (``task`` is the protocol's task sentence)
            own = getattr(made, option.name, None) if option.name != "task" else None
            if isinstance(own, (int, float, str, bool)):
                assert own == value, (option.flag, own)
        finally:
            close = getattr(made, "close", None)
            if callable(close):
                close()
    # a flag of another environment, not this pair's, is refused with the ones it takes
    taken = {o.flag for o in flags}
    others = {}
    for other_id in registry.ids():
        if other_id not in registry.BUILTIN:   # ids other tests registered at run time
            continue
        for option in env_flags(spec, registry.spec(other_id)):
            if option.flag not in taken and option.flag not in others:
                others[option.flag] = (other_id, option)
    parser = run_cli.parser_for(spec, env_id)
    for flag, (other_id, option) in others.items():
        argv = ["--env", env_id, *_argv(option, _value(other_id, option, tmp_path))]
        # never taken for another flag (argparse's abbreviations: --train for
        # --train-episodes), so main() below refuses it before anything plays
        assert parser.parse_known_args(argv)[1], (flag, "taken by the parser")
        code = run_cli.main([agent, *argv])
        err = capsys.readouterr().err
        assert code == 2, (flag, err)
        assert f"{flag}: not an option of {agent} on {env_id}" in err, err
        assert all(t in err for t in taken), err


def test_max_steps_reaches_a_text_worlds_own_limit():
    """--max-steps on the household: the environment's own limit (50) follows it."""
    spec = get_agent("pddlego")
    args = run_cli.parser_for(spec, "household").parse_args(
        ["--env", "household", "--max-steps", "80"])
    job = run_cli.build_job(spec, args)
    assert job.options.budget == 80
    assert job.make_env().max_steps == 80


def test_an_environment_an_agent_cannot_play_is_one_clear_line(capsys):
    assert run_cli.main(["pddlego", "--env", "craft"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "craft is a game with an interface of its own" in err
    assert run_cli.main(["deps", "--env", "household"]) == 2
    assert "use one of craft, crafter" in capsys.readouterr().err


def test_no_front_end_builds_an_environment_itself():
    """One way to get an environment: ``make`` (a job's ``make_env``); a front end that
    calls an environment's class would drop the flags the registry declares."""
    import io
    import tokenize

    repo = Path(__file__).resolve().parent.parent
    classes = {"CoinCollector", "Household", "TextWorldEnv", "ALFWorldEnv", "SC2Build",
               "NetHackTask", "CraftWorld", "CrafterWorld", "MicroRTS"}
    found = []
    for folder in ("formalizers", "programs", "skills", "critic"):
        for path in (repo / folder).rglob("*.py"):
            tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text()).readline))
            for a, b, before in zip(tokens[1:], tokens[2:], tokens):
                if a.type == tokenize.NAME and a.string in classes and b.string == "(" \
                        and before.string not in (".", "def", "class"):
                    found.append(f"{path.relative_to(repo)}:{a.start[0]}: {a.line.strip()}")
    assert not found, "\n".join(found)


# -- a new environment, registered with register() alone --------------------------------

LAMP_DOMAIN = """(define (domain lamp)
  (:requirements :strips :typing)
  (:types room)
  (:predicates (at ?r - room) (next ?a - room ?b - room) (lit ?r - room))
  (:action go :parameters (?from - room ?to - room)
    :precondition (and (at ?from) (next ?from ?to))
    :effect (and (not (at ?from)) (at ?to)))
  (:action switch :parameters (?r - room)
    :precondition (at ?r) :effect (lit ?r)))"""


def lamp_problem(rooms: int) -> str:
    names = [f"room{i}" for i in range(rooms)]
    links = " ".join(f"(next {a} {b})" for a, b in zip(names, names[1:]))
    return (f"(define (problem row) (:domain lamp) (:objects {' '.join(names)} - room) "
            f"(:init (at room0) {links}) (:goal (lit {names[-1]})))")


def lamp_world(rooms: int = 2, seed: int = 0, max_steps: int = 30):
    """A row of rooms; light the last one (a factory only this test knows)."""
    from pddlkit.envs.api import ActionTemplate
    from pddlkit.envs.pddl_world import PDDLWorldEnv
    from pddlkit.pddl.reader import parse_domain, parse_problem

    env = PDDLWorldEnv(parse_domain(LAMP_DOMAIN), parse_problem(lamp_problem(rooms)),
                       [ActionTemplate("go", ("?from", "?to"), "go to {to}"),
                        ActionTemplate("switch", ("?r",), "switch on the light in {r}")],
                       max_steps=max_steps, seed=seed)
    env.id = "lamp-row"
    return env


@pytest.fixture
def lamp_row():
    registry.register("lamp-row", lamp_world, kind="pddl", budget="max_steps",
                      option_help={"rooms": "rooms in the row"}, check=False)
    yield "lamp-row"
    registry._RUNTIME.pop("lamp-row", None)


def test_a_registered_environment_is_played_by_two_agents_with_its_own_flags(lamp_row,
                                                                           tmp_path, capsys):
    # its option is a flag, with its help; its budget keyword is --max-steps
    spec = get_agent("pddlego")
    help_text = run_cli.parser_for(spec, lamp_row).format_help()
    assert "--rooms ROOMS" in help_text and "rooms in the row" in help_text
    # PDDLego+, with a model that writes the row's true files
    files = tmp_path / "files.json"
    files.write_text(json.dumps([json.dumps({"df": LAMP_DOMAIN, "pf": lamp_problem(3)})]))
    assert run_cli.main(["pddlego", "--env", lamp_row, "--rooms", "3", "--max-steps", "9",
                         "--llm", f"scripted:{files}", "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["won"] and row["env"] == lamp_row and row["llm_calls"] == 1
    # PlanGen, with a model that answers the commands the row needs
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([json.dumps({"actions": [c]}) for c in
                                   ("go to room1", "go to room2",
                                    "switch on the light in room2")]))
    assert run_cli.main(["plangen", "--env", lamp_row, "--rooms", "3",
                         "--llm", f"scripted:{answers}", "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["won"] and row["agent"] == "plangen"
    # and a flag it does not have is refused, naming the ones it does
    assert run_cli.main(["pddlego", "--env", lamp_row, "--receptacles", "9"]) == 2
    assert "the options of lamp-row are --rooms" in capsys.readouterr().err


def test_make_of_an_instances_id_is_its_split_with_the_spec_it_was_made_with():
    """``kind="instances"`` is declared: make gives an InstanceSplit (training and held-out
    disjoint), not an environment, and says so through ``split.spec``."""
    from pddlkit.envs import make
    from pddlkit.envs.instance_sets import InstanceSplit
    from pddlkit.envs.registry import list_envs

    ids = [s.id for s in list_envs() if s.kind == "instances"]
    assert "grasp" in ids and any(i.startswith("minigrid-") for i in ids)
    split = make("minigrid-unlock", train=3, evaluate=4)
    assert isinstance(split, InstanceSplit) and not hasattr(split, "step")
    assert (len(split.train), len(split.held_out)) == (3, 4)
    assert split.spec.id == "minigrid-unlock" and split.spec.kind == "instances"
    assert split.spec.kwargs["train"] == 3
