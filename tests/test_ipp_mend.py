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
    source = "def solve(a,\n          b):\n    # todo\n\nif True:\n\tx = 1\n        y = 2\n"
    mended, mends = mend_program(source)
    compile(mended, "<program>", "exec")
    assert "          b):\n    pass\n" in mended
    assert mends[0].startswith("line(s) 6: tabs") and mends[1].startswith("line 1: `def solve(a,`")


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
    assert "mend: 0 mends by code" in row["summary"] and "helps: probe-2+mend" in row["summary"]
    rounds = [json.loads(line) for line in record.read_text().splitlines()
              if json.loads(line)["type"] == "round"]
    assert rounds and all(r["mends"] == [] for r in rounds)
    plain = run_job(spec, env="grasp", llm="standin", seeds=[0],
                    options=spec.make_options({"train": 8, "evaluate": 8, "rounds": 0}))
    assert plain[0].as_dict()["helps"] == "none"
