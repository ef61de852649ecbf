"""The command line: real subprocesses, real files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOM = REPO / "domains" / "coin-collector" / "domain.pddl"
PROB = REPO / "domains" / "coin-collector" / "p3.pddl"
PLAN = REPO / "domains" / "coin-collector" / "p3.plan"


def run(*args):
    return subprocess.run([sys.executable, "-m", "pddlkit.cli", *map(str, args)],
                          capture_output=True, text=True)


def test_check_ok():
    out = run("check", DOM, PROB)
    assert out.returncode == 0 and "OK" in out.stdout


def test_check_json_reports_errors_with_positions(tmp_path):
    bad = tmp_path / "bad.pddl"
    bad.write_text("(define (domain d)\n (:predicates (p))\n (:action a :effect (q)))\n")
    out = run("check", bad, "--json")
    assert out.returncode == 1
    data = json.loads(out.stdout)
    diag = data["diagnostics"][0]
    assert data["ok"] is False and diag["code"] == "undeclared-predicate"
    assert diag["file"] == str(bad) and diag["line"] == 3 and diag["hint"]
    assert "Traceback" not in out.stderr


def test_validate_valid_and_invalid(tmp_path):
    out = run("validate", DOM, PROB, PLAN)
    assert out.returncode == 0 and out.stdout.startswith("VALID")
    short = tmp_path / "short.plan"
    short.write_text("\n".join(PLAN.read_text().splitlines()[1:]))
    out = run("validate", DOM, PROB, short, "--json")
    data = json.loads(out.stdout)
    assert out.returncode == 1 and data["failure"]["step"] == 1
    assert data["failure"]["unsatisfied"]


def test_missing_file_is_a_usage_error():
    out = run("check", "nope.pddl")
    assert out.returncode == 2 and "no such file" in out.stderr


def test_demo_runs_offline():
    out = subprocess.run([str(Path(sys.executable).parent / "pddlkit"), "demo"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "VALID" in out.stdout and "INVALID" in out.stdout and "error[" in out.stdout
