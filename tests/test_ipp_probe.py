"""IPP with ``probe`` (issue 48): a program is tried on a few training instances first; the
small model's ``int + str`` crash comes back with the program's line, the instance, the return
type and a worked call, and the fix is asked for before the round is scored. Without the option
the round scores the crashing program, as in the paper."""

from __future__ import annotations

import pytest

from pddlkit.llm.scripted import ScriptedLLM
from pddlkit.programs import IPP
from pddlkit.programs.tasks import GraspTask
from pddlkit.sandbox import Policy

QUICK = Policy(call_timeout=2.0, cpu_seconds=2, memory_bytes=256 << 20)
SIGNATURE = "def solve(grid, start_pos, carry_limit, cost_per_step, is_diagonals_allowed, max_actions):"
CRASHES = f"```python\n{SIGNATURE}\n    label = 'moves: ' + max_actions\n    return []\n```"
FIXED = f"```python\n{SIGNATURE}\n    label = 'moves: ' + str(max_actions)\n    return ['take']\n```"


@pytest.fixture(scope="module")
def task():
    from pddlkit.envs.grasp import generate_corpus, instances

    return GraspTask(instances(generate_corpus(seed=0, per_file=1)[:4]))


def _model(prompts: list):
    def answer(messages):
        text = messages[-1]["content"]
        prompts.append(text)
        if "failed on a training instance before the round was scored" in text:
            return FIXED
        if "pseudocode" in text.lower() and len(messages) == 1:
            return "walk to the nearest energy and take it"
        return CRASHES
    return ScriptedLLM(answer)


def test_without_the_probe_the_round_scores_the_crashing_program(task):
    result = IPP(task, _model([]), workers=1, policy=QUICK, max_rounds=0).run()
    first = result.rounds[0]
    assert first.failures == len(task.instances) and first.probe_fixes == 0


def test_the_probe_finds_the_crash_names_its_line_and_instance_and_the_fix_is_scored(task):
    prompts: list = []
    result = IPP(task, _model(prompts), workers=1, policy=QUICK, max_rounds=0,
                 probe=2).run()
    first = result.rounds[0]
    assert first.failures == 0 and first.probe_fixes == 1
    assert "line 2" in first.probe_failures[0] and "TypeError" in first.probe_failures[0]
    fix = next(p for p in prompts if "before the round was scored" in p)
    assert "label = 'moves: ' + max_actions" in fix          # the program's own line
    assert "a list of action strings" in fix and "-> [" in fix   # return type, worked call
    assert "start position" in fix                            # the instance it failed on


def test_a_probe_that_cannot_fix_gives_up_after_its_fixes_and_the_round_still_scores(task):
    stubborn = ScriptedLLM(lambda messages: CRASHES if "pseudocode" not in
                           messages[-1]["content"].lower() or len(messages) > 1 else "plan")
    result = IPP(task, stubborn, workers=1, policy=QUICK, max_rounds=0, probe=1).run()
    first = result.rounds[0]
    from pddlkit.programs.ipp import PROBE_FIXES

    assert first.probe_fixes == PROBE_FIXES and len(first.probe_failures) == PROBE_FIXES + 1
    assert first.failures == len(task.instances)


def test_the_agent_names_the_probe_in_its_row_and_refuses_it_with_the_curriculum():
    from pddlkit.agents import AgentError, get_agent, run_job

    spec = get_agent("ipp")
    rows = run_job(spec, env="grasp", llm="standin:ipp:crash", seeds=[0],
                   options=spec.make_options({"train": 8, "evaluate": 8, "rounds": 1,
                                              "probe": 2}))
    row = rows[0].as_dict()
    assert row["helps"] == "probe-2" and "probe:" in row["summary"]
    with pytest.raises((AgentError, ValueError), match="--probe.*curriculum|probe.*curriculum"):
        run_job(spec, env="grasp", llm="standin", seeds=[0],
                options=spec.make_options({"train": 8, "evaluate": 8, "mode": "curriculum",
                                           "probe": 2}))


def test_a_fix_that_returns_the_program_unchanged_is_drawn_again_at_another_seed(task):
    """Qwen2.5-Coder 1.5B at temperature 0 answered both GRASP fixes of a round with the
    crashing program itself. Such a fix is drawn once more (temperature 0.7, its own seed)
    before it counts; here the draw fixes it."""
    from pddlkit.programs.ipp import REDRAW_TEMPERATURE

    fix_requests = []

    def answer(messages):
        text = messages[-1]["content"]
        if "failed on a training instance before the round was scored" in text:
            fix_requests.append(text)
            return CRASHES if len(fix_requests) == 1 else FIXED   # the same, then a fix
        if "pseudocode" in text.lower() and len(messages) == 1:
            return "walk to the nearest energy and take it"
        return CRASHES

    llm = ScriptedLLM(answer)
    first = IPP(task, llm, workers=1, policy=QUICK, max_rounds=0, probe=2).run().rounds[0]
    assert first.failures == 0 and first.probe_fixes == 1 and first.probe_redraws == 1
    fixes = [r for r in llm.requests if "before the round was scored" in r.messages[-1][1]]
    assert [(r.temperature, r.seed) for r in fixes] == [(0.0, None), (REDRAW_TEMPERATURE, 1)]


HELPER_CRASHES = f"""```python
def label(max_actions):
    return 'moves: ' + max_actions


{SIGNATURE}
    name = label(max_actions)
    return ['take']
```"""
HELPER_FIXED = """```python
def label(max_actions):
    return 'moves: ' + str(max_actions)
```"""


def test_a_crash_in_a_helper_asks_for_that_function_only_and_puts_it_back(task):
    """Issue 76: a crash inside one of several functions names that function and its lines,
    asks for it alone, and the answer replaces it in the program (solve kept as it was)."""
    fix_requests = []

    def answer(messages):
        text = messages[-1]["content"]
        if "failed on a training instance before the round was scored" in text:
            fix_requests.append(text)
            return HELPER_FIXED
        if "pseudocode" in text.lower() and len(messages) == 1:
            return "label the moves, then take"
        return HELPER_CRASHES

    first = IPP(task, ScriptedLLM(answer), workers=1, policy=QUICK, max_rounds=0,
                probe=2).run().rounds[0]
    assert first.failures == 0 and first.probe_fixes == 1 and first.probe_function_fixes == 1
    assert "write only the function `label` again" in fix_requests[0]
    assert "(lines 1-2)" in fix_requests[0]
    assert "str(max_actions)" in first.program and "name = label(max_actions)" in first.program


def test_a_syntax_error_or_a_one_function_program_is_asked_for_whole(task):
    prompts: list = []
    first = IPP(task, _model(prompts), workers=1, policy=QUICK, max_rounds=0,
                probe=2).run().rounds[0]
    assert first.probe_fixes == 1 and first.probe_function_fixes == 0
    fix = next(p for p in prompts if "before the round was scored" in p)
    assert "write the whole function `solve(" in fix.replace("\n", " ")
