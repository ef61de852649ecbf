"""PLAP with ``progress`` (issue 48), on the real MicroRTS engine: the small model's lines with
nothing to do (a Light with no barracks, an attack by a unit it does not have) come back in the
next prompt as not started, with the skills model's reason, beside a digest of the battlefield
and the lines the skills model accepts now. Without the option the prompt is today's."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.jvm   # the MicroRTS engine, a JVM (make test-fast leaves these out)

from conftest import need_microrts

need_microrts()

from pddlkit.envs.microrts import MicroRTS  # noqa: E402
from pddlkit.llm.scripted import ScriptedLLM  # noqa: E402
from pddlkit.skills.plap.game import play_game  # noqa: E402
from pddlkit.skills.plap.planner import LLMPlanner  # noqa: E402


#: what Qwen2.5-Coder 1.5B wrote: lines no unit can take, and one worker line that runs
IDLE = "[Produce Unit] (light, north)\n[Attack Enemy] (heavy, base)\n[Harvest Mineral] (0, 0)\n"


def _game(progress: bool, check: bool = True):
    prompts: list = []

    def answer(messages):
        prompts.append(messages[-1]["content"])
        return IDLE

    with MicroRTS(opponent="PassiveAI", max_cycles=300) as env:
        planner = LLMPlanner(ScriptedLLM(answer), env.units_table, progress=progress)
        record = play_game(env, planner, seed=0, k=100, check=check)
    return record, prompts


def test_the_next_prompt_says_what_each_line_did_and_why_the_rest_did_not_start():
    record, prompts = _game(True)
    second = prompts[1]
    assert "## What your last plan did\n- [Harvest Mineral] (0, 0): running" in second
    # the check dropped the other two before they ran: the feedback says so, once
    assert "- [Produce Unit] (light, north): you have no barracks to produce it" in second
    assert "## Battlefield digest (from the skills model)" in second
    assert "Resources: " in second and "1 Worker (1 idle worker)" in second
    assert "Lines that can start now:" in second and "[Produce Unit](worker, north)" in second
    assert record.progress and record.progress[0]["lines"] == []   # nothing ran before plan 1
    json.dumps(record.progress)


def test_unchecked_lines_that_never_start_are_named_with_the_skills_models_reason():
    _record, prompts = _game(True, check=False)
    second = prompts[1]
    assert ("- [Produce Unit] (light, north): not started: you have no barracks to produce "
            "it") in second
    assert "- [Attack Enemy] (heavy, base): not started: you have no heavy" in second


def test_without_the_option_the_prompt_is_todays():
    _record, prompts = _game(False)
    assert all("What your last plan did" not in p and "digest" not in p for p in prompts)


def test_the_agent_names_the_help_and_refuses_it_in_league_games():
    from pddlkit.agents import AgentError, get_agent, run_job

    spec = get_agent("plap")
    rows = run_job(spec, env="microrts", llm="standin:plap:noisy:0.5", seeds=[0],
                   options=spec.make_options({"progress": True, "opponent": "PassiveAI",
                                              "max_cycles": 300}))
    row = rows[0].as_dict()
    assert row["helps"] == "progress" and "progress told" in row["summary"]
    with pytest.raises(AgentError, match="--progress"):
        run_job(spec, env="microrts", llm="standin", seeds=[0],
                options=spec.make_options({"progress": True, "side": "red"}))
