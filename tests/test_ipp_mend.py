"""IPP with ``mend`` (issue 48): every GRASP program Qwen2.5-Coder 1.5B wrote had an ``else:``
holding only a comment, so all 160 held-out instances crashed on an IndentationError, and the
probe's fixes returned the same program. Code adds the ``pass`` a person would, names the line
in the round's record, and the program runs; without the option the round scores the crash,
as in the paper."""

from __future__ import annotations

import pytest

from pddlkit.llm.scripted import ScriptedLLM
from pddlkit.programs import IPP
from pddlkit.programs.mend import mend_program
from pddlkit.programs.tasks import GraspTask
from pddlkit.sandbox import Policy

QUICK = Policy(call_timeout=2.0, cpu_seconds=2, memory_bytes=256 << 20)
SIGNATURE = ("def solve(grid, start_pos, carry_limit, cost_per_step, is_diagonals_allowed, "
             "max_actions):")
# the shape of the model's programs, from examples/real-llm/helps-records/ipp-grasp-on*.jsonl.gz
EMPTY_ELSE = f"""{SIGNATURE}
    actions = []
    for row in grid:
        if 'E' in row:
            actions.append('TAKE')
        else:
            # Handle obstacle, e.g., skip the move or take a penalty

        actions.append('DROP')
    return actions[:max_actions]
"""


def test_an_empty_block_gets_pass_and_the_mend_names_its_line():
    with pytest.raises(IndentationError):
        compile(EMPTY_ELSE, "<program>", "exec")
    mended, mends = mend_program(EMPTY_ELSE)
    compile(mended, "<program>", "exec")
    assert mends == ["line 6: `else:` had no statement in its block; code added `pass`"]
    assert "        else:\n            pass\n" in mended
    # the rest of the program is untouched
    assert mended.replace("            pass\n", "", 1) == EMPTY_ELSE


def test_a_header_over_two_lines_and_tabs_are_mended_where_python_reads_them():
    # "    \t" is 8 columns read as Python does (a tab to the next multiple of 8) and as an
    # editor's 4 alike: mixed with 8 spaces it is a TabError that means one thing
    source = "def solve(a,\n          b):\n    # todo\n\nif True:\n    \tx = 1\n        y = 2\n"
    mended, mends = mend_program(source)
    compile(mended, "<program>", "exec")
    assert "          b):\n    pass\n" in mended and "        x = 1\n" in mended
    assert mends[0].startswith("line 1: `def solve(a,`") and mends[1].startswith("line(s) 7: tabs")


def test_what_code_cannot_mend_for_sure_is_left_as_it_was():
    """A tab whose width decides the meaning (8 columns: the return is in the if; 4: it is
    not), tabs inside a string, a header whose colon follows a '#' in a string or a dict's
    colon, and a program a pass does not make compile."""
    ambiguous = "def f(x):\n    if x:\n        y = 1\n\treturn 0\n"
    assert mend_program(ambiguous) == (ambiguous, [])
    hashed = 'def f(x):\n    if x == "#":\n        # nothing\n    for i in x:\n        pass\n'
    mended, mends = mend_program(hashed)
    assert mends == ['line 2: `if x == "#":` had no statement in its block; code added `pass`']
    assert mended.count("pass") == 2
    braced = "def f(a={1:\n        2}):\n    # todo\n"
    assert mend_program(braced)[0] == "def f(a={1:\n        2}):\n    pass\n    # todo\n"
    broken = "def f():\n    if x:\n        # c\n    return [x'\n"   # the pass alone is not enough
    assert mend_program(broken) == (broken, [])


@pytest.mark.parametrize("source", [
    f"{SIGNATURE}\n    return ['TAKE']\n",         # compiles: left as it is
    f"{SIGNATURE}\n    return [TAKE'\n",            # not a slip code can mend: left as it is
    "def solve(:\n    pass\n",
])
def test_a_program_with_nothing_to_mend_comes_back_unchanged(source):
    assert mend_program(source) == (source, [])


@pytest.fixture(scope="module")
def task():
    from pddlkit.envs.grasp import generate_corpus, instances

    return GraspTask(instances(generate_corpus(seed=0, per_file=1)[:4]))


def _model():
    def answer(messages):
        if "pseudocode" in messages[-1]["content"].lower() and len(messages) == 1:
            return "for each row, take energy where there is some; else handle the obstacle"
        return f"```python\n{EMPTY_ELSE}```"
    return ScriptedLLM(answer)


def test_without_mend_the_round_scores_the_crash_and_with_it_the_program_runs(task):
    plain = IPP(task, _model(), workers=1, policy=QUICK, max_rounds=0).run().rounds[0]
    assert plain.failures == len(task.instances) and plain.mends == []
    mended = IPP(task, _model(), workers=1, policy=QUICK, max_rounds=0,
                 mend=True).run().rounds[0]
    assert mended.failures == 0
    assert mended.mends == ["line 6: `else:` had no statement in its block; code added `pass`"]
    assert "pass" in mended.program


def test_the_agent_names_mend_in_its_row_and_its_record(tmp_path):
    import json

    from pddlkit.agents import get_agent, run_job

    spec = get_agent("ipp")
    record = tmp_path / "record.jsonl"
    rows = run_job(spec, env="grasp", llm="standin", seeds=[0], record=record,
                   options=spec.make_options({"train": 8, "evaluate": 8, "rounds": 0,
                                              "probe": 2, "mend": True}))
    row = rows[0].as_dict()
    assert row["helps"] == "probe-2+mend"
    assert "mend: 0 mends by code" in row["summary"] and "helps: probe-2, mend" in row["summary"]
    rounds = [json.loads(line) for line in record.read_text().splitlines()
              if json.loads(line)["type"] == "round"]
    assert rounds and all(r["mends"] == [] for r in rounds)
    plain = run_job(spec, env="grasp", llm="standin", seeds=[0],
                    options=spec.make_options({"train": 8, "evaluate": 8, "rounds": 0}))
    assert plain[0].as_dict()["helps"] == "none"


def test_through_the_agent_the_scripted_programs_run_only_with_mend(tmp_path):
    """The same answers through ``pddlkit run ipp`` (a ``scripted:`` LLM): the row crashes
    everywhere without the flag, and runs with it, its record naming the mend."""
    import json

    from pddlkit.agents import get_agent, run_job

    answers = tmp_path / "answers.json"
    pseudocode = "for each row, take energy where there is some; else handle the obstacle"
    answers.write_text(json.dumps([pseudocode, f"```python\n{EMPTY_ELSE}```"] * 3))
    spec = get_agent("ipp")
    failures = {}
    for mend in (False, True):
        record = tmp_path / f"record-{mend}.jsonl"
        [row] = run_job(spec, env="grasp", llm=f"scripted:{answers}", seeds=[0], record=record,
                        options=spec.make_options({"train": 4, "evaluate": 4, "rounds": 0,
                                                   "mend": mend}))
        failures[mend] = row.as_dict()["eval_failures"]
        rounds = [json.loads(line) for line in record.read_text().splitlines()
                  if json.loads(line)["type"] == "round"]
        assert rounds[0]["mends"] == ([
            "line 6: `else:` had no statement in its block; code added `pass`"] if mend else [])
    assert failures[False] > 0 and failures[True] == 0, failures


def test_with_mend_a_fix_that_only_repeats_the_mended_slip_is_drawn_again(task):
    """A probe fix that returns the crashing program (its empty block unmended) is the same
    program once mended: it is drawn again, as an unchanged fix is without mend."""
    crashes = EMPTY_ELSE.replace("    return actions[:max_actions]",
                                 "    return actions[:max_actions] + max_actions")
    fixed = EMPTY_ELSE.replace("            # Handle obstacle", "            pass  # Handle")
    fix_requests = []

    def answer(messages):
        text = messages[-1]["content"]
        if "failed on a training instance before the round was scored" in text:
            fix_requests.append(text)
            return f"```python\n{crashes if len(fix_requests) == 1 else fixed}```"
        if "pseudocode" in text.lower() and len(messages) == 1:
            return "walk and take"
        return f"```python\n{crashes}```"

    first = IPP(task, ScriptedLLM(answer), workers=1, policy=QUICK, max_rounds=0, probe=2,
                mend=True).run().rounds[0]
    assert first.probe_redraws == 1 and first.failures == 0
    assert first.mends == ["line 6: `else:` had no statement in its block; code added `pass`"]
