"""The command line, real files: ``run`` calls ``pddlkit`` in this process (what a command
prints and exits with; tests/cli_runner.py), and the tests of the process boundary (the demo
entry point, standard input from a pipe, a closed pipe, a blocked import) start a real
subprocess."""

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
    from cli_runner import run_cli

    return run_cli(*args)


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


def test_a_directory_where_a_file_is_expected_says_so():
    out = run("check", DOM.parent, PROB)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert f"{DOM.parent} is a directory, not a PDDL file: give the domain file itself; it " \
           f"holds domain.pddl, p3.pddl" in out.stderr


def test_help_and_the_env_list_are_plain_text():
    from pddlkit.cli import plain

    assert plain("``Env(x=1)``; see :func:`pddlkit.plan` and :class:`~pddlkit.envs.api.Step`") \
        == "Env(x=1); see pddlkit.plan and Step"
    envs = run("envs")
    assert envs.returncode == 0 and "coin-collector" in envs.stdout
    assert "``" not in envs.stdout and ":class:" not in envs.stdout
    assert "``" not in run("--help").stdout


def test_demo_runs_offline():
    out = subprocess.run([str(Path(sys.executable).parent / "pddlkit"), "demo"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "VALID" in out.stdout and "INVALID" in out.stdout and "error[" in out.stdout


# --------------------------------------------------------------------------- bad input: one line, no traceback


def _one_line_error(out, *words, code=2):
    assert out.returncode == code, (out.returncode, out.stdout[-500:], out.stderr[-500:])
    assert "Traceback" not in out.stderr and "Traceback" not in out.stdout
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("pddlkit")]
    assert lines and all(w in out.stderr for w in words), out.stderr
    return lines


def test_run_record_that_is_a_directory(tmp_path):
    out = run("run", "pddlego", "--record", tmp_path, "--quiet")
    _one_line_error(out, "--record", "is a directory")


def test_run_transcript_in_a_place_that_cannot_be_written(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    out = run("run", "pddlego", "--transcript", blocker / "sub" / "t.jsonl", "--llm",
              "replay:x.jsonl", "--quiet")
    _one_line_error(out, "--transcript", "cannot write there")


def test_run_zero_episodes_and_bad_noisy_rates_are_usage_errors():
    _one_line_error(run("run", "pddlego", "--episodes", "0"), "--episodes", "1 or more")
    _one_line_error(run("run", "pddlego", "--budget", "-4"), "--budget")
    for rate in ("-1", "1.5", "abc", "nan"):
        noisy = f"standin:pddlego:noisy:{rate}"
        _one_line_error(run("run", "pddlego", "--llm", noisy, "--quiet"), noisy, "from 0 to 1")
    assert run("run", "pddlego", "--llm", "standin:pddlego:noisy:0", "--quiet").returncode == 0


def test_the_removed_spellings_of_run_are_refused_in_one_line_naming_the_new():
    """Issue 74: ``pddlkit run --agent NAME``, a bare ``pddlkit run --env ...`` and
    ``--llm noisy:0`` were read for one release with a note; now each exits 2, plays nothing,
    and names the spelling to write."""
    lines = _one_line_error(run("run", "--agent", "deps", "--env", "craft"))
    assert lines == ["pddlkit run: --agent deps: this spelling was removed; write 'pddlkit run "
                     "deps ...' (the agent first; pddlkit run deps --help shows its flags)"]
    lines = _one_line_error(run("run", "--env", "coin-collector", "--quiet"))
    assert len(lines) == 1 and lines[0].startswith(
        "pddlkit run: --env with no agent named: this spelling was removed; write 'pddlkit "
        "run AGENT --env ...' (the agents: "), lines
    out = run("run", "pddlego", "--llm", "noisy:0", "--quiet")
    assert _one_line_error(out) == [
        "pddlkit run pddlego: error: argument --llm: noisy:0: this spelling was removed; write "
        "standin:pddlego:noisy:0 (pddlkit llm list shows every stand-in)"]
    assert "episode" not in out.stdout


def test_run_without_textworld_installed_says_how_to_get_it():
    """The TextWorld adapter's own 'unavailable' message, not its traceback (textworld is
    hidden from this child process by a meta-path finder)."""
    code = ("import sys\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'textworld' or name.startswith('textworld.'):\n"
            "            raise ImportError('No module named ' + repr(name))\n"
            "sys.meta_path.insert(0, Block())\n"
            "from pddlkit.cli import main\n"
            "sys.exit(main(['run', 'pddlego', '--env', 'textworld', '--quiet']))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    _one_line_error(out, "textworld")


def test_run_alfworld_without_its_interpreter(tmp_path):
    from cli_runner import run_cli

    out = run_cli("run", "pddlego", "--env", "alfworld", "--quiet",
                  env={"PDDLKIT_ALFWORLD_PYTHON": tmp_path / "no-python"})
    _one_line_error(out, "ALFWorld interpreter")


def test_bench_on_a_binary_file(tmp_path):
    blob = tmp_path / "sweep.toml"
    blob.write_bytes(bytes(range(256)) * 4)
    _one_line_error(run("bench", blob), "not a text file")


def test_domains_list_with_broken_entries(tmp_path):
    good = tmp_path / "coin-collector" / "good"
    for name, meta in (("bad-json", '{"env": "coin'), ("no-sha", '{"env": "coin-collector"}'),
                       ("list", "[1, 2]"), ("good", None)):
        folder = tmp_path / "coin-collector" / name
        folder.mkdir(parents=True)
        (folder / "domain.pddl").write_text(DOM.read_text())
        (folder / "meta.json").write_text(meta or json.dumps(
            {"env": "coin-collector", "sha256": "ab" * 32, "episodes_won": 2}))
    out = run("domains", "list", "--library", tmp_path)
    lines = _one_line_error(out, "bad-json", "no-sha", "'sha256'", "list", code=1)
    assert len(lines) == 3 and all("fix the file or delete the folder" in ln for ln in lines)
    assert "coin-collector/abababab" in out.stdout  # the good entry is still listed
    assert good.is_dir()


def test_plan_on_binary_files_is_a_diagnostic(tmp_path):
    blob = tmp_path / "d.pddl"
    blob.write_bytes(b"\x00\x1b[2J\xff\xfe(define (domain x))")
    out = run("check", blob)   # one error naming the file, none of its bytes echoed
    assert out.returncode == 1 and "\x1b" not in out.stdout and "unreadable-input" in out.stdout
    out = run("plan", blob, PROB)
    assert out.returncode == 1 and "Traceback" not in out.stderr and "\x1b" not in out.stdout


def test_stdin_validate_json_on_errors_and_a_closed_pipe(tmp_path):
    text = PROB.read_text()
    piped = subprocess.run([sys.executable, "-m", "pddlkit.cli", "check", str(DOM), "-"],
                           input=text, capture_output=True, text=True)
    assert piped.returncode == 0 and "OK:" in piped.stdout, piped.stderr
    both = run("check", "-", "-")
    assert both.returncode == 2 and "only one input" in both.stderr
    broken = tmp_path / "broken.pddl"
    broken.write_text(PROB.read_text().replace("(:init", "(:init (nonsense"))
    out = run("validate", DOM, broken, tmp_path / "missing-plan.txt")
    assert out.returncode == 2 and "no such file" in out.stderr
    (tmp_path / "plan.txt").write_text("(move kitchen pantry)\n")
    out = run("validate", DOM, broken, tmp_path / "plan.txt", "--json")
    data = json.loads(out.stdout)   # JSON on the error path too
    assert out.returncode == 1 and data["valid"] is False and data["diagnostics"]
    shell = subprocess.run(f"{sys.executable} -m pddlkit.cli planners --no-up | head -1",
                           shell=True, capture_output=True, text=True)
    assert "Traceback" not in shell.stderr and "BrokenPipe" not in shell.stderr
