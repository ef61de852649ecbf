"""ENHSP in one warm JVM (issue 72: engines once per session): each problem starts clean,
answers what ``java -jar enhsp.jar`` answers, and the numeric planner's worker uses it."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

import pddlkit

pytest.importorskip("up_enhsp", reason="pip install 'pddlkit[numeric]' (make test does)")

from up_enhsp.enhsp_planner import ENHSP_JAR  # noqa: E402

from pddlkit.planners import enhsp_harness  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "numeric"
#: three different numeric tasks, the first again at the end
TASKS = [("tanks-domain.pddl", "tanks-problem.pddl"), ("depots-domain.pddl", "depots-p01.pddl"),
         ("zenotravel-domain.pddl", "zenotravel-p02.pddl"),
         ("tanks-domain.pddl", "tanks-problem.pddl")]


@pytest.fixture
def harness():
    folder, why = enhsp_harness.compiled_harness()
    assert folder is not None, why    # make test installs a JDK
    started = enhsp_harness.EnhspHarness(ENHSP_JAR, folder)
    yield started
    started.close()


def _arguments(domain: str, problem: str, plan: Path) -> list[str]:
    """ENHSP's arguments for the task as unified-planning writes it for ENHSP (the IPC files
    themselves use spellings ENHSP's reader refuses, as up-enhsp never sends them)."""
    from unified_planning.io import PDDLReader, PDDLWriter

    from pddlkit.planners.task import load_task
    from pddlkit.planners.up_engine import up_texts

    domain_text, problem_text, _ = up_texts(load_task(DATA / domain, DATA / problem))
    written = PDDLWriter(PDDLReader().parse_problem_string(domain_text, problem_text))
    folder = plan.parent
    written.write_domain(str(folder / f"{plan.stem}-domain.pddl"))
    written.write_problem(str(folder / f"{plan.stem}-problem.pddl"))
    return ["-o", str(folder / f"{plan.stem}-domain.pddl"),
            "-f", str(folder / f"{plan.stem}-problem.pddl"), "-sp", str(plan), "-npm"]


def _plan_lines(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


@pytest.mark.slow
def test_a_reused_enhsp_gives_each_problem_the_plan_a_fresh_jvm_gives(harness, tmp_path):
    """Three tasks of different domains and the first again, in one JVM: each plan is the
    one ``java -jar enhsp.jar`` writes for the task alone, and the process stayed the same
    (ENHSP's and JPddl's statics are loaded anew per problem; nothing of depots is left when
    the tanks come back; with one class loader for all, Depots' plan differs: checked)."""
    pids = set()
    for k, (domain, problem) in enumerate(TASKS):
        warm, cold = tmp_path / f"warm-{k}.plan", tmp_path / f"cold-{k}.plan"
        timed_out, out, err, code = harness.run(_arguments(domain, problem, warm), 120)
        pids.add(harness.pid)
        alone = subprocess.run(["java", "-jar", ENHSP_JAR, *_arguments(domain, problem, cold)],
                               capture_output=True, text=True, timeout=120)
        assert (timed_out, code, alone.returncode) == (False, 0, 0), (domain, err)
        assert _plan_lines(warm) and _plan_lines(warm) == _plan_lines(cold), domain
        assert "Problem Solved" in out and "Problem Solved" in alone.stdout, out[-300:]
    assert len(pids) == 1


def test_an_exit_inside_enhsp_gives_its_code_and_the_next_problem_a_new_jvm(harness, tmp_path):
    """ENHSP ends the JVM on a file it cannot read (exit 255 under ``java -jar``): the
    harness reports the same code and message, and the next problem runs in a new one; an
    argument with a control character is refused before anything is sent."""
    timed_out, out, err, code = harness.run(
        ["-o", str(tmp_path / "missing.pddl"), "-f", str(DATA / "tanks-problem.pddl"),
         "-sp", str(tmp_path / "x.plan"), "-npm"], 60)
    alone = subprocess.run(["java", "-jar", ENHSP_JAR, "-o", str(tmp_path / "missing.pddl"),
                            "-f", str(DATA / "tanks-problem.pddl"), "-sp",
                            str(tmp_path / "y.plan"), "-npm"],
                           capture_output=True, text=True, timeout=60)
    assert (timed_out, code) == (False, alone.returncode) and code == 255
    assert "FileNotFoundException" in err and out.strip() == alone.stdout.strip()
    assert harness.pid is None
    # a control character would split the request line (Java ends a line at \r too): refused
    for bad in ("x\r" + str(tmp_path / "victim"), "a\tb", "a\nb", "a\x00b"):
        with pytest.raises(ValueError, match="control character"):
            harness.run(["-o", bad], 10)
    assert not (tmp_path / "victim").exists()
    timed_out, out, err, code = harness.run(_arguments(*TASKS[0], tmp_path / "t.plan"), 120)
    assert (timed_out, code) == (False, 0) and _plan_lines(tmp_path / "t.plan")


@pytest.mark.slow
def test_the_warm_jvm_is_killed_at_the_time_limit_and_the_next_problem_starts_anew(
        harness, tmp_path):
    """Rovers p01 takes ENHSP over a minute: at a 2 s limit the harness is killed (timed out,
    no exit code of its own) and the next task is solved by a new one."""
    started = time.monotonic()
    timed_out, _, _, code = harness.run(
        _arguments("rovers-domain.pddl", "rovers-p01.pddl", tmp_path / "r.plan"), 2)
    assert timed_out and code == -9 and harness.pid is None
    assert time.monotonic() - started < 15
    timed_out, _, _, code = harness.run(_arguments(*TASKS[0], tmp_path / "t.plan"), 120)
    assert (timed_out, code) == (False, 0) and _plan_lines(tmp_path / "t.plan")


def _harness_children(parent: int) -> list[int]:
    """The pids of the EnhspHarness JVMs whose parent is ``parent``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == parent and b"EnhspHarness" in cmdline:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.slow
def test_the_numeric_planners_worker_plans_through_one_warm_jvm():
    """Two numeric plans through ``pddlkit.plan(planner="up:enhsp")``: the warm worker runs
    ENHSP in one harness JVM, the same for both, and the plans validate."""
    from pddlkit.planners.workers import UP_POOL

    domain = (DATA / "tanks-domain.pddl").read_text()
    problem = (DATA / "tanks-problem.pddl").read_text()
    first = pddlkit.plan(domain, problem, planner="up:enhsp", cache=False, timeout=120)
    assert first.solved, first.format()
    workers = [w.proc.pid for w in UP_POOL._idle]
    jvms = [pid for worker in workers for pid in _harness_children(worker)]
    assert len(jvms) == 1, (workers, jvms)
    again = pddlkit.plan(domain, problem, planner="up:enhsp", cache=False, timeout=120)
    assert again.solved and again.plan == first.plan
    assert [pid for worker in workers for pid in _harness_children(worker)] == jvms


def test_without_the_harness_enhsp_runs_per_problem_and_says_why(monkeypatch):
    """``PDDLKIT_ENHSP_HARNESS=0`` (or no ``javac``) keeps up-enhsp's own ``java -jar`` per
    problem, and the status line says which and why."""
    monkeypatch.setenv(enhsp_harness.SWITCH, "0")
    assert enhsp_harness.compiled_harness() == (None, "PDDLKIT_ENHSP_HARNESS=0")
    assert enhsp_harness.status() == "ENHSP runs one JVM per problem: PDDLKIT_ENHSP_HARNESS=0"
    monkeypatch.setenv(enhsp_harness.SWITCH, "1")
    monkeypatch.setattr(enhsp_harness.shutil, "which", lambda name: None)
    assert "javac is not installed" in enhsp_harness.status()


@pytest.mark.slow
def test_the_warm_jvm_ends_when_the_process_that_started_it_is_killed(tmp_path):
    """A worker killed mid-search (``kill -9``, as the pool kills a stuck worker) leaves no
    JVM searching behind: the harness sees its parent gone and halts."""
    import os
    import signal
    import sys

    code = ("import sys, time; from pddlkit.planners import enhsp_harness as h;"
            "from up_enhsp.enhsp_planner import ENHSP_JAR;"
            "harness = h.EnhspHarness(ENHSP_JAR, h.compiled_harness()[0]);"
            "harness.proc = harness._start(None); print(harness.pid, flush=True);"
            f"harness.run({_arguments('rovers-domain.pddl', 'rovers-p01.pddl', tmp_path / 'r.plan')!r}, 300)")
    host = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    jvm = int(host.stdout.readline())
    time.sleep(1.0)
    assert Path(f"/proc/{jvm}").exists()
    os.kill(host.pid, signal.SIGKILL)
    host.wait()
    deadline = time.monotonic() + 10
    while Path(f"/proc/{jvm}").exists() and time.monotonic() < deadline:
        stat = Path(f"/proc/{jvm}/stat").read_text() if Path(f"/proc/{jvm}").exists() else ""
        if ") Z " in stat:   # ended, waiting to be reaped by init
            break
        time.sleep(0.2)
    stat = Path(f"/proc/{jvm}/stat").read_text() if Path(f"/proc/{jvm}").exists() else ""
    assert not stat or ") Z " in stat, stat


@pytest.mark.slow
def test_lines_a_jvm_option_prints_on_the_reply_stream_are_passed_over(monkeypatch, tmp_path):
    """``JAVA_TOOL_OPTIONS=-Xlog:gc`` makes the JVM print GC lines on standard output, the
    harness's reply stream: each reply is still found by its request's id, and two problems
    are solved in one JVM."""
    monkeypatch.setenv("JAVA_TOOL_OPTIONS", "-Xlog:gc")
    folder, why = enhsp_harness.compiled_harness()
    assert folder is not None, why
    harness = enhsp_harness.EnhspHarness(ENHSP_JAR, folder)
    try:
        pids = set()
        for k in range(2):
            plan = tmp_path / f"{k}.plan"
            timed_out, _out, _err, code = harness.run(_arguments(*TASKS[k], plan), 120)
            assert (timed_out, code) == (False, 0) and _plan_lines(plan)
            pids.add(harness.pid)
        assert len(pids) == 1
    finally:
        harness.close()
