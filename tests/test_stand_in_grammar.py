"""One stand-in grammar, ``standin:<agent>[:mode][:argument]`` (issue 47): every agent's
stand-ins parse through :mod:`pddlkit.agents.standins`, are listed by ``pddlkit llm list``
with what each knows, and are refused, naming the agent's own, when they belong to another.
The old spellings (read for one release with a deprecation line) are refused, each naming the
new spelling to write (issue 74)."""

from __future__ import annotations

import json

import pytest

from pddlkit.agents import get_agent
from pddlkit.agents.registry import catalogue
from pddlkit.agents.standins import StandInError, parse_stand_in
from pddlkit.llm.errors import LLMSpecError

#: (agent, new spelling, its removed old spelling, what parse_stand_in gives the new)
PAIRS = [
    ("pddlego", "standin:pddlego", "observation", ("observation", None)),
    ("pddlego", "standin:pddlego:noisy:0.25", "noisy:0.25", ("noisy", 0.25)),
    ("deps", "standin:deps:0.2", "standin:0.2", ("standin", 0.2)),
    ("deps", "standin:deps", "observation", ("standin", 0.3)),
    ("deps", "standin:deps:off:0.4", "standin-off:0.4", ("standin-off", 0.4)),
    ("plap", "standin:plap", "observation", ("standin", None)),
    ("ipp", "standin:ipp", "observation", ("standin", None)),
    ("copic", "standin:copic", "observation", ("standin", None)),
    ("plap", "standin:plap:noisy:0.5", "standin-noisy:0.5", ("standin-noisy", 0.5)),
    ("ipp", "standin:ipp:carry,cost", "standin:carry,cost", ("standin", "carry,cost")),
    ("copic", "standin:copic:no-take;;crash", "standin:no-take;;crash",
     ("standin", "no-take;;crash")),
]


@pytest.mark.parametrize("agent,new,old,expected", PAIRS)
def test_the_new_spelling_is_read_and_the_old_is_refused_naming_it(agent, new, old, expected):
    spec = get_agent(agent)
    assert parse_stand_in(new, spec.stand_ins, agent) == expected
    assert spec.stand_in_label(new) is not None
    removed = f"{old}: this spelling was removed; write {new} (pddlkit llm list shows every " \
              f"stand-in)"
    with pytest.raises(StandInError) as err:
        parse_stand_in(old, spec.stand_ins, agent)
    assert str(err.value) == removed
    with pytest.raises(ValueError) as err:       # --llm and a sweep's llm = check it so
        spec.check_llm(old)
    assert str(err.value) == removed
    assert spec.stand_in_label(old) is None


def test_an_old_spelling_is_refused_on_the_command_line_and_nothing_plays(capsys):
    """``--llm noisy:0.3`` was read for one release with a deprecation line; now argparse
    refuses it (exit 2) with the new spelling named, before anything loads."""
    from pddlkit.agents.cli import parser_for

    with pytest.raises(SystemExit) as stop:
        parser_for(get_agent("pddlego")).parse_args(["--llm", "noisy:0.3"])
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert "argument --llm: noisy:0.3: this spelling was removed; write " \
           "standin:pddlego:noisy:0.3 (pddlkit llm list shows every stand-in)" in err, err
    assert "this release" not in err
    assert get_agent("pddlego").check_llm("standin:pddlego:noisy:0.3") == \
        "standin:pddlego:noisy:0.3"
    assert capsys.readouterr().err == ""


def test_an_old_spelling_whose_new_one_is_bad_too_says_why():
    """``standin:abc`` (no agent named) is refused as removed, with what is wrong with
    ``standin:deps:abc`` too, so the fix is not a second refusal away."""
    with pytest.raises(StandInError) as err:
        parse_stand_in("standin:abc", get_agent("deps").stand_ins, "deps")
    assert str(err.value).startswith("standin:abc: this spelling was removed; the agent goes "
                                     "first, and standin:deps:abc: the error rate must be")
    with pytest.raises(StandInError, match="removed.*did you mean 'carry'"):
        parse_stand_in("standin:cary", get_agent("ipp").stand_ins, "ipp")
    with pytest.raises(StandInError, match="write standin:pddlego:noisy\\[:RATE\\]"):
        parse_stand_in("noisy:abc", get_agent("pddlego").stand_ins, "pddlego")
    # an old word of another front end, not this agent's: refused as not its stand-in
    with pytest.raises(ValueError, match="noisy:0.3: not a stand-in of deps"):
        get_agent("deps").check_llm("noisy:0.3")


def test_another_agents_stand_in_and_an_unknown_mode_are_refused_by_name():
    pddlego = get_agent("pddlego")
    with pytest.raises(ValueError, match="a stand-in of deps, not of pddlego.*standin:pddlego"):
        pddlego.check_llm("standin:deps:off")
    with pytest.raises(StandInError, match="no stand-in mode 'nosy'.*did you mean 'noisy'"):
        parse_stand_in("standin:pddlego:nosy", pddlego.stand_ins, "pddlego")
    with pytest.raises(StandInError, match="from 0 to 1"):
        parse_stand_in("standin:deps:off:7", get_agent("deps").stand_ins, "deps")
    with pytest.raises(StandInError, match="unknown mistake bogus"):
        parse_stand_in("standin:ipp:bogus", get_agent("ipp").stand_ins, "ipp")


def test_a_stand_in_is_a_kind_of_llm_spec_but_no_model():
    from pddlkit.llm import load_llm
    from pddlkit.llm.spec import known_kinds, names_a_model, parse_spec

    assert "standin" in known_kinds()          # the pddlkit.llms entry point
    assert parse_spec("standin:deps:off:0.3") == ("standin", "deps:off:0.3")
    assert not names_a_model("standin:deps") and names_a_model("local:qwen2.5-coder-1.5b")
    with pytest.raises(LLMSpecError) as err:
        load_llm("standin:deps:off")
    assert "pddlkit run deps --llm standin:deps:off" in err.value.hint


def test_the_front_ends_build_the_new_spelling_and_refuse_the_old():
    from pddlkit.formalizers.api import make_formalizer
    from pddlkit.programs.copic.runner import make_llm as copic_llm
    from pddlkit.programs.runner import make_llm as ipp_llm

    new = make_formalizer("standin:pddlego:noisy:0.25", "coin-collector")
    assert new.rate == 0.25
    with pytest.raises(StandInError, match="write standin:pddlego:noisy:0.25 "):
        make_formalizer("noisy:0.25", "coin-collector")
    assert type(make_formalizer("standin:pddlego", "coin-collector")).__name__ == \
        "ObservationFormalizer"
    _llm, writer = ipp_llm("standin:ipp:carry,cost", "grasp")
    assert writer.injected == ["carry", "cost"]
    with pytest.raises(StandInError, match="write standin:ipp:carry,cost "):
        ipp_llm("standin:carry,cost", "grasp")
    _llm, copic = copic_llm("standin:copic:no-take;;crash", "household")
    assert copic.sets == [frozenset({"no-take"}), frozenset(), frozenset({"crash"})]
    with pytest.raises(StandInError, match="write standin:copic:no-take;;crash "):
        copic_llm("standin:no-take;;crash", "household")


def test_llm_list_shows_every_agents_stand_ins_with_what_each_knows():
    from cli_runner import run_cli

    listed = run_cli("llm", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    data = json.loads(listed.stdout)
    assert {k["kind"] for k in data["kinds"]} >= {"openai", "local", "standin"}
    specs = {s["spec"]: s for s in data["stand_ins"]}
    assert {"standin:pddlego", "standin:pddlego:noisy[:RATE]", "standin:deps[:RATE]",
            "standin:deps:off[:RATE]", "standin:plap", "standin:plap:noisy[:RATE]",
            "standin:ipp[:MISTAKE,...]", "standin:copic[:A,B;C]"} <= set(specs)
    assert all(s["knows"].startswith("stand-in (") for s in specs.values())
    assert specs == {s["spec"]: s for s in catalogue()}
    text = run_cli("llm", "list").stdout
    assert "standin:deps:off[:RATE]" in text and "off-template mistakes" in text


def test_a_run_with_the_new_spelling_is_labelled_with_what_the_stand_in_knows():
    from pddlkit.agents import run_job

    rows = run_job(get_agent("pddlego"), env="coin-collector", llm="standin:pddlego:noisy:0.3",
                   seeds=[0], env_options={"rooms": 3})
    assert rows[0].stand_in == "stand-in (observation PDDL with injected slips)"
    assert rows[0].llm == "standin:pddlego:noisy:0.3"


def test_a_bare_standin_is_the_agents_default_stand_in():
    for agent in ("pddlego", "deps", "plap", "ipp", "copic"):
        spec = get_agent(agent)
        default = next(s for s in spec.stand_ins if s.mode == "")
        assert parse_stand_in("standin", spec.stand_ins, agent)[0] == default.name
        assert spec.check_llm("standin") == "standin"
