"""PLAP's plan cap and battlefield digest (issue 76), offline: the skills model and the grammar
need no engine."""

from __future__ import annotations

from pddlkit.llm.scripted import ScriptedLLM
from pddlkit.skills.plap.grammar import skill_plan_grammar
from pddlkit.skills.plap.planner import LLMPlanner, line_cap
from pddlkit.skills.plap.progress import digest, startable

COSTS = {"Worker": 1, "Light": 2, "Heavy": 2, "Ranged": 2, "Base": 10, "Barracks": 5}
#: the only plan measured to win against RandomBiasedAI (benchmarks/plap_complete.py)
RUSH = ("[Harvest Mineral](0, 0)\n[Harvest Mineral](0, 0)\n" + "[Produce Unit](worker, south)\n" * 4
        + "[Attack Enemy](worker, worker)\n" * 4 + "[Attack Enemy](worker, base)\n" * 2)


def _unit(uid, kind, player, x, y, **more):
    return {"id": uid, "type": kind, "player": player, "x": x, "y": y, "hp": 1, "resources": 0,
            "action": "noop", **more}


def _state(resources: int, *extra) -> dict:
    units = [_unit(1, "Base", 0, 2, 2), _unit(2, "Worker", 0, 1, 1),
             _unit(3, "Resource", -1, 0, 0, resources=20), _unit(4, "Base", 1, 6, 6),
             _unit(5, "Worker", 1, 6, 5), *extra]
    return {"width": 8, "height": 8, "resources": [resources, 5], "time": 0, "units": units}


def test_the_winning_rush_and_the_prompt_s_examples_fit_the_plan_cap():
    assert RUSH.count("\n") == 12 and line_cap() >= 12
    grammar = skill_plan_grammar(8, 8, line_cap())
    assert grammar.accepts(f"START OF SKILL_PLAN\n{RUSH}END OF SKILL_PLAN")
    assert skill_plan_grammar(8, 8).accepts(f"START OF SKILL_PLAN\n{RUSH}END OF SKILL_PLAN")


def test_the_prompt_says_the_cap_under_the_grammar_only():
    table = [{"name": "Worker", "hp": 1, "cost": 1, "produce_time": 50, "max_damage": 1,
              "range": 1}]
    prompts = []

    def answer(messages):
        prompts.append(messages[-1]["content"])
        return "START OF SKILL_PLAN\n[Harvest Mineral](0, 0)\nEND OF SKILL_PLAN"

    state = _state(5)
    LLMPlanner(ScriptedLLM(answer), table, constrained=True).plan("obs", state, 0)
    LLMPlanner(ScriptedLLM(answer), table).plan("obs", state, 0)
    assert f"Write at most {line_cap()} lines" in prompts[0]
    assert "Write at most" not in prompts[1]   # the paper's prompt


def test_the_digest_never_offers_lines_the_resources_cannot_pay_together():
    """5 resources: a worker (1) and a barracks (5) were both offered, each checked alone."""
    offered = [line.text for line in startable(_state(5), 0, COSTS)]
    spent = sum(COSTS["Worker"] for t in offered if t.startswith("[Produce Unit](worker")) + \
        sum(COSTS["Barracks"] for t in offered if t.startswith("[Build Building]"))
    assert spent <= 5, offered
    assert offered[0] == "[Produce Unit](worker, north)"
    assert not any(t.startswith("[Build Building]") for t in offered)
    assert any(t.startswith("[Build Building]") for t in
               (line.text for line in startable(_state(6), 0, COSTS)))


def test_the_digest_offers_units_of_finished_buildings_only_and_attacks_known_enemies():
    building = _unit(6, "Worker", 0, 3, 1, action="produce", producing="Barracks")
    offered = [line.text for line in startable(_state(9, building), 0, COSTS)]
    assert not any("(light" in t or "(heavy" in t or "(ranged" in t for t in offered), offered
    finished = _unit(7, "Barracks", 0, 4, 1)
    offered = [line.text for line in startable(_state(9, finished), 0, COSTS)]
    assert "[Produce Unit](light, north)" in offered
    # the idle worker may attack the enemy's worker (the first unit type present) and base
    assert "[Attack Enemy](worker, worker)" in offered
    assert "[Attack Enemy](worker, base)" in offered
    text = digest(_state(9, finished), 0, COSTS)
    assert "Lines that can start now: [Produce Unit](worker, north);" in text
    # every offered line reads as the grammar writes lines
    grammar = skill_plan_grammar(8, 8)
    assert grammar.accepts("START OF SKILL_PLAN\n" + "".join(t + "\n" for t in offered)
                           + "END OF SKILL_PLAN")
