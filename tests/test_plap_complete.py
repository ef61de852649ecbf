"""PLAP with ``complete_plan`` (issue 48), on the skills model and the real MicroRTS engine:
Qwen2.5-Coder 1.5B asked for ``[Attack Enemy](ranged, base)`` with no ranged unit (20 of its 81
dropped lines said "you have no ranged"). The skills model inserts the shortest sequence of
lines that makes such a line possible (a barracks, then the unit), marked as the model's and
told to the LLM; what no sequence fixes (too few resources) is dropped with the model's
reason, as without the option."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.jvm   # the MicroRTS engine, a JVM (make test-fast leaves these out)

from conftest import need_microrts

need_microrts()

from pddlkit.envs.microrts import MicroRTS  # noqa: E402
from pddlkit.llm.scripted import ScriptedLLM  # noqa: E402
from pddlkit.skills.plap.complete import complete_lines  # noqa: E402
from pddlkit.skills.plap.game import play_game  # noqa: E402
from pddlkit.skills.plap.plan import parse_skill_plan  # noqa: E402
from pddlkit.skills.plap.planner import LLMPlanner  # noqa: E402


COSTS = {"Worker": 1, "Light": 2, "Heavy": 2, "Ranged": 2, "Base": 10, "Barracks": 5}
#: what Qwen2.5-Coder 1.5B wrote in every plan of a game (helps-records/plap-*-on-partial)
QWEN = ("[Produce Unit](worker, north)\n[Harvest Mineral](0, 0)\n"
        "[Build Building](barracks, (2, 3))\n[Attack Enemy](ranged, base)\n")


def _state(resources: int, barracks: bool = False) -> dict:
    units = [{"id": 1, "type": "Base", "player": 0, "x": 2, "y": 2, "hp": 10, "resources": 0,
              "action": "noop"},
             {"id": 2, "type": "Worker", "player": 0, "x": 1, "y": 1, "hp": 1, "resources": 0,
              "action": "noop"},
             {"id": 3, "type": "Resource", "player": -1, "x": 0, "y": 0, "hp": 1,
              "resources": 20, "action": "noop"},
             {"id": 4, "type": "Base", "player": 1, "x": 5, "y": 5, "hp": 10, "resources": 0,
              "action": "noop"}]
    if barracks:
        units.append({"id": 5, "type": "Barracks", "player": 0, "x": 4, "y": 1, "hp": 4,
                      "resources": 0, "action": "noop"})
    return {"width": 8, "height": 8, "resources": [resources, 5], "time": 0, "units": units}


def _texts(lines) -> list[str]:
    return [line.text for line in lines]


def test_an_attack_by_a_unit_the_player_lacks_gets_its_barracks_and_unit_first():
    lines = parse_skill_plan("[Attack Enemy](ranged, base)").lines
    done = complete_lines(_state(7), 0, COSTS, lines)
    assert _texts(done.lines) == ["[Build Building](barracks, (2, 4))",
                                  "[Produce Unit](ranged, north)",
                                  "[Attack Enemy](ranged, base)"]
    assert [(k, line.text, wanted) for k, line, wanted in done.inserted] == [
        (0, "[Build Building](barracks, (2, 4))", "[Attack Enemy](ranged, base)"),
        (1, "[Produce Unit](ranged, north)", "[Attack Enemy](ranged, base)")]
    assert done.dropped == []
    # with a barracks standing, the unit alone
    done = complete_lines(_state(2, barracks=True), 0, COSTS, lines)
    assert _texts(done.lines) == ["[Produce Unit](ranged, north)", "[Attack Enemy](ranged, base)"]


def test_what_no_sequence_makes_possible_is_dropped_with_the_model_reason():
    lines = parse_skill_plan("[Attack Enemy](ranged, base)\n"
                             "[Build Building](barracks, (9, 9))").lines
    done = complete_lines(_state(5), 0, COSTS, lines)   # a barracks (5) and a ranged (2): 7
    assert done.lines == [] and done.inserted == []
    assert [(line.text, why) for line, why in done.dropped] == [
        ("[Attack Enemy](ranged, base)", "you have no ranged"),
        ("[Build Building](barracks, (9, 9))", "the location is outside the map")]


def test_a_unit_an_earlier_line_makes_counts_for_the_lines_after_it():
    lines = parse_skill_plan("[Build Building](barracks, (4, 4))\n"
                             "[Produce Unit](light, east)\n[Attack Enemy](light, worker)").lines
    done = complete_lines(_state(7), 0, COSTS, lines)
    assert _texts(done.lines) == _texts(lines) and done.inserted == []
    # the enemy has no worker now: the attack waits for one, as the check keeps it
    assert [(line.text, why) for line, why in done.pending] == [
        ("[Attack Enemy](light, worker)", "the enemy has no worker")]


def _game(complete: bool):
    prompts: list = []

    def answer(messages):
        prompts.append(messages[-1]["content"])
        return QWEN

    with MicroRTS(opponent="PassiveAI", max_cycles=600) as env:
        planner = LLMPlanner(ScriptedLLM(answer), env.units_table)
        record = play_game(env, planner, seed=1, k=100, complete=complete)
    return record, prompts


def test_in_a_game_the_inserted_lines_run_and_the_next_prompt_names_them():
    plain, plain_prompts = _game(False)
    assert plain.inserted == []
    assert any("you have no ranged" in why for _c, _line, why in plain.dropped)
    assert not any("skills model added" in p for p in plain_prompts)
    done, prompts = _game(True)
    assert done.inserted and all(wanted == "[Attack Enemy](ranged, base)"
                                 for _c, _line, wanted in done.inserted)
    cycle = done.inserted[0][0]
    after = prompts[cycle // 100 + 1]
    assert "## Lines the skills model added to your last plan" in after
    assert f"- {done.inserted[0][1]} (for [Attack Enemy](ranged, base))" in after
    assert len(done.dropped) < len(plain.dropped)
    with pytest.raises(ValueError, match="complete needs check"):
        with MicroRTS(opponent="PassiveAI", max_cycles=100) as env:
            play_game(env, LLMPlanner(ScriptedLLM(lambda m: QWEN), env.units_table),
                      complete=True, check=False)


def test_the_agent_names_the_help_records_each_inserted_line_and_refuses_no_check(tmp_path):
    from pddlkit.agents import AgentError, get_agent, run_job

    spec = get_agent("plap")
    record = tmp_path / "record.jsonl"
    rows = run_job(spec, env="microrts", llm="standin", seeds=[0], record=record,
                   options=spec.make_options({"max_cycles": 300, "complete_plan": True,
                                              "progress": True}))
    row = rows[0].as_dict()
    assert row["helps"] == "progress+complete-plan"
    assert "the skills model inserted" in row["summary"]
    events = [json.loads(line) for line in record.read_text().splitlines()]
    assert sum(e["type"] == "inserted" for e in events) == row["inserted"]
    plain = run_job(spec, env="microrts", llm="standin", seeds=[0],
                    options=spec.make_options({"max_cycles": 100}))
    assert plain[0].as_dict()["helps"] == "none"
    with pytest.raises(AgentError, match="--complete-plan.*--no-check"):
        run_job(spec, env="microrts", llm="standin", seeds=[0],
                options=spec.make_options({"max_cycles": 100, "complete_plan": True,
                                           "check": False}))


def test_through_the_agent_the_scripted_plan_is_completed_only_with_the_flag(tmp_path):
    """Qwen's plan through ``pddlkit run plap`` (a ``scripted:`` LLM): inserted lines, their
    events and the row's count exist with the flag only; league games refuse it, and the
    paper's stateless planner (``--no-feedback``) is not told of them."""
    from pddlkit.agents import AgentError, get_agent, run_job

    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([QWEN] * 6))
    spec = get_agent("plap")
    inserted = {}
    for complete in (False, True):
        record = tmp_path / f"record-{complete}.jsonl"
        [row] = run_job(spec, env="microrts", llm=f"scripted:{answers}", seeds=[1],
                        record=record, options=spec.make_options(
                            {"max_cycles": 600, "opponent": "PassiveAI",
                             "complete_plan": complete}))
        events = [json.loads(line) for line in record.read_text().splitlines()]
        inserted[complete] = sum(e["type"] == "inserted" for e in events)
        assert row.as_dict()["inserted"] == inserted[complete]
    assert inserted == {False: 0, True: inserted[True]} and inserted[True] > 0
    with pytest.raises(AgentError, match="--complete-plan.*league"):
        run_job(spec, env="microrts", llm="standin", seeds=[0],
                options=spec.make_options({"max_cycles": 100, "complete_plan": True,
                                           "side": "red"}))
    planner = LLMPlanner(ScriptedLLM(lambda m: QWEN), [], feedback=False)
    planner.completed([("[Produce Unit](ranged, north)", "[Attack Enemy](ranged, base)")])
    assert planner.inserted == []


def test_an_inserted_barracks_keeps_off_the_cell_the_plan_builds_on():
    lines = parse_skill_plan("[Attack Enemy](ranged, base)\n"
                             "[Build Building](barracks, (2, 4))").lines
    done = complete_lines(_state(20), 0, COSTS, lines)
    assert done.dropped == []
    assert "[Build Building](barracks, (2, 4))" in _texts(done.lines)
    assert done.inserted[0][1].params[1] != (2, 4)
