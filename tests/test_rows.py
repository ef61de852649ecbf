"""Rows say what they measured (#44): an agent whose outcome is a score prints its score.

``pddlkit run ipp --env minigrid-doorkey`` printed "WON (0% of 100)" and exited 0, because an
IPP row was "won" when its program never crashed. A row now carries a ``score`` and what it
``measure``s; such a row prints as its score, never as WON or LOST, counts as won only the
trials that reached the goal, and ``pddlkit run`` exits 0 when it was scored (1 when there
was nothing to score). The runs below are real: the scripted LLM's program is scored in the
sandbox on real MiniGrid DoorKey grids.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from pddlkit.agents.row import Row

#: a program that walks one step forward: it never crashes and never opens the door
FORWARD = "```python\ndef solve(grid, start_direction):\n    return ['forward']\n```"


def _ipp(tmp_path: Path, answers: list[str], *flags: str) -> subprocess.CompletedProcess:
    script = tmp_path / "answers.json"
    script.write_text(json.dumps(answers))
    from cli_runner import run_cli   # in this process: what the run prints and exits with

    return run_cli("run", "ipp", "--env", "minigrid-doorkey", "--train", "4", "--eval", "6",
                   "--rounds", "0", "--workers", "1", "--llm", f"scripted:{script}", *flags)


def test_an_ipp_run_prints_its_mean_reward_and_never_won(tmp_path):
    # two episodes, two LLM calls each (pseudocode, then the program)
    out = _ipp(tmp_path, [FORWARD] * 4, "--episodes", "2")
    assert "Traceback" not in out.stderr, out.stderr
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("episode seed")]
    assert len(lines) == 2, out.stdout
    for line in lines:
        assert "WON" not in line and "LOST" not in line, line
        assert ": mean held-out reward 0.000 (6 instances);" in line, line
    assert "episodes won" not in out.stdout
    assert "mean held-out reward: mean 0.000 over 2 episodes" in out.stdout, out.stdout
    # scored, whatever the score: the run measured what it was asked to
    assert out.returncode == 0, out.stderr


def test_an_ipp_row_is_won_only_when_its_held_out_episodes_reached_the_goal(tmp_path):
    out = _ipp(tmp_path, [FORWARD] * 2, "--json", "--quiet")
    assert out.returncode == 0, out.stderr
    [row] = json.loads(out.stdout)
    assert row["eval_failures"] == 0          # it ran everywhere ...
    assert row["won"] is False and row["success_rate"] == 0.0   # ... and won nothing
    assert row["measure"] == "mean held-out reward" and row["score"] == 0.0
    assert row["completion"] == 0.0 and row["trials"] == 6


def test_an_ipp_run_with_nothing_to_score_says_so_and_exits_1(tmp_path):
    """The scripted LLM answers the pseudocode question, then runs out: no program."""
    out = _ipp(tmp_path, [FORWARD])
    assert out.returncode == 1, out.stderr
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("episode seed"))
    assert "mean held-out reward: none (nothing was scored)" in line, line
    assert "no program to score after 1 round(s)" in line and "-inf" not in line
    assert "LOST" not in line and "WON" not in line


def test_the_row_class_prints_a_score_for_any_agent_that_measures_one():
    from pddlkit.agents.cli import tally

    scored = Row("agent", "env", "llm", 0, won=False, success_rate=0.0, trials=10,
                 score=0.25, measure="mean return")
    assert scored.scored and scored.succeeded
    assert scored.outcome() == "mean return 0.250 (10 instances)"
    nothing = Row("agent", "env", "llm", 1, False, 0.0, score=None, measure="mean return")
    assert nothing.outcome() == "mean return: none (nothing was scored)"
    assert not nothing.succeeded
    won = Row("agent", "env", "llm", 2, True, 1.0, trials=4)
    assert not won.scored and won.succeeded and won.outcome() == "WON (100% of 4)"
    # stored and read back, the row is still a scored row
    again = Row.from_dict(json.loads(json.dumps(scored.as_dict())))
    assert (again.score, again.measure, again.outcome()) == (0.25, "mean return",
                                                             scored.outcome())
    assert tally([scored, nothing]) == \
        "mean return: mean 0.250 over 1 episodes (1 with nothing to score)"
    assert tally([won, won]) == "2/2 episodes won"
    with pytest.raises(ValueError, match="says what it measures"):
        Row("agent", "env", "llm", 0, False, 0.0, score=1.0)
    with pytest.raises(ValueError, match="finite"):
        Row("agent", "env", "llm", 0, False, 0.0, score=float("-inf"), measure="mean return")


def test_the_bench_report_shows_a_scored_agents_scores():
    """A sweep's report had only success rates, which for IPP counted programs that ran."""
    from pddlkit.bench.report import markdown

    # rows as the results file holds them (Row.as_dict() plus the cell's fields)
    cell = {"difficulty": "-", "level_index": 0, "llm": "standin", "stand_in": None}
    rows = [{"agent": "ipp", "env": "grasp", "seed": seed, "won": False, "success_rate": 0.0,
             "trials": 8, "score": score, "measure": "mean held-out score", **cell}
            for seed, score in ((0, 0.5), (1, 1.5), (2, None))]
    rows.append({"agent": "deps", "env": "craft", "seed": 0, "won": True, "success_rate": 1.0,
                 "trials": 1, **cell})
    table = markdown(rows).split("### Scores", 1)[1].split("###")[0]
    assert "| ipp | grasp | mean held-out score | 2 of 3 | 1.000 | 0.500 | 1.500 |" in table
    assert "deps" not in table
