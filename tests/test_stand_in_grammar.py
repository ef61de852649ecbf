"""One stand-in grammar, ``standin:<agent>[:mode][:argument]`` (issue 47): every agent's
stand-ins parse through :mod:`pddlkit.agents.standins`, are listed by ``pddlkit llm list``
with what each knows, build the same stand-in as the old spellings (still read, with one
deprecation line), and are refused, naming the agent's own, when they belong to another."""

from __future__ import annotations

import json

import pytest

from pddlkit.agents import get_agent
from pddlkit.agents import spec as agent_spec
from pddlkit.agents.registry import catalogue
from pddlkit.agents.standins import StandInError, parse_stand_in
from pddlkit.llm.errors import LLMSpecError

#: (agent, new spelling, old spelling, what parse_stand_in gives both)
PAIRS = [
    ("pddlego", "standin:pddlego", "observation", ("observation", None)),
    ("pddlego", "standin:pddlego:noisy:0.25", "noisy:0.25", ("noisy", 0.25)),
    ("deps", "standin:deps:0.2", "standin:0.2", ("standin", 0.2)),
    ("deps", "standin:deps", "standin", ("standin", 0.3)),
    ("deps", "standin:deps:off:0.4", "standin-off:0.4", ("standin-off", 0.4)),
    ("plap", "standin:plap", "standin", ("standin", None)),
    ("plap", "standin:plap:noisy:0.5", "standin-noisy:0.5", ("standin-noisy", 0.5)),
    ("ipp", "standin:ipp:carry,cost", "standin:carry,cost", ("standin", "carry,cost")),
    ("copic", "standin:copic:no-take;;crash", "standin:no-take;;crash",
     ("standin", "no-take;;crash")),
]


@pytest.mark.parametrize("agent,new,old,expected", PAIRS)
def test_the_new_and_the_old_spelling_name_the_same_stand_in(agent, new, old, expected):
    spec = get_agent(agent)
    assert parse_stand_in(new, spec.stand_ins, agent) == expected
    assert parse_stand_in(old, spec.stand_ins, agent) == expected
    assert spec.stand_in_label(new) == spec.stand_in_label(old) != None   # noqa: E711


def test_an_old_spelling_prints_one_deprecation_line_naming_the_new(capsys, monkeypatch):
    monkeypatch.setattr(agent_spec, "_SAID", set())
    spec = get_agent("pddlego")
    assert spec.check_llm("noisy:0.3") == "noisy:0.3"
    assert spec.check_llm("noisy:0.3") == "noisy:0.3"      # asked again: said once
    err = capsys.readouterr().err
    assert err.count("standin:pddlego:noisy:0.3") == 1 and "this release only" in err
    spec.check_llm("standin:pddlego:noisy:0.3")
    assert capsys.readouterr().err == ""                  # the new spelling: nothing said


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


def test_the_front_ends_build_the_same_stand_in_from_either_spelling():
    from pddlkit.formalizers.api import make_formalizer
    from pddlkit.programs.copic.runner import make_llm as copic_llm
    from pddlkit.programs.runner import make_llm as ipp_llm

    new = make_formalizer("standin:pddlego:noisy:0.25", "coin-collector")
    old = make_formalizer("noisy:0.25", "coin-collector")
    assert type(new) is type(old) and new.rate == old.rate == 0.25
    assert type(make_formalizer("standin:pddlego", "coin-collector")).__name__ == \
        "ObservationFormalizer"
    _llm, writer = ipp_llm("standin:ipp:carry,cost", "grasp")
    _llm, same = ipp_llm("standin:carry,cost", "grasp")
    assert writer.injected == same.injected == ["carry", "cost"]
    _llm, copic = copic_llm("standin:copic:no-take;;crash", "household")
    assert copic.sets == [frozenset({"no-take"}), frozenset(), frozenset({"crash"})]


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


def test_a_bare_standin_is_the_agents_default_stand_in_and_no_deprecation():
    for agent in ("pddlego", "deps", "plap", "ipp", "copic"):
        spec = get_agent(agent)
        default = next(s for s in spec.stand_ins if s.mode == "")
        assert parse_stand_in("standin", spec.stand_ins, agent)[0] == default.name
    from pddlkit.agents.standins import old_spelling

    assert old_spelling("standin", get_agent("deps").stand_ins, "deps") is None
