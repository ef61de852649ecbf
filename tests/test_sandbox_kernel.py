"""The sandbox's kernel boundary against programs that first switch the Python layers off.

Each attack runs in a host process of its own that holds a secret in its environment. The
program walks a traceback to the audit hook's state and turns it off (the test checks that it
did: what holds after that is the kernel's and the host's doing), then tries what the guard was
keeping from it. Every case asserts the same five things: the host's secret never reaches the
program, no file appears outside scratch, ``/etc/passwd`` cannot be read, the call comes back as
a structured ``ProgramError``, and after ``kill -9`` of the host the worker and its folder are gone
within 2 s (with the worker idle, busy in Python, or busy inside one C call).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from conftest import REPO, _missing
from pddlkit.sandbox import ErrorKind, Policy, SandboxWorker
from pddlkit.sandbox.kernel import KernelIsolationUnavailable, unavailable

SECRET = "pddlkit-host-secret-4f1c2a"

if unavailable():  # a skip for users; CI (PDDLKIT_REQUIRE_CORPUS=1) fails: `make test` installs it
    _missing(f"the kernel boundary cannot be tested here: {unavailable()}")

HOST = textwrap.dedent("""
    import json, sys, time
    from pddlkit.sandbox import Policy, SandboxWorker
    spec = json.loads(sys.argv[1])
    worker = SandboxWorker(spec["source"], Policy(**spec["policy"]))
    results = []
    for step in spec["steps"]:
        if step == "pause":
            time.sleep(0.5)
            continue
        began = time.monotonic()
        result = worker.call(step)
        results.append({**result.to_dict(), "wall": time.monotonic() - began,
                        "restarts": worker.restarts})
    worker.load()  # a live worker for the last phase (the last call may have ended one)
    print(json.dumps({"results": results, "pid": worker.pid, "base": worker.base,
                      "bubblewrap": worker.isolation.get("bubblewrap")}), flush=True)
    if spec["then"] == "idle":
        time.sleep(600)
    worker.call(spec["then"])  # busy until the test kills this process
""")

# a program's toolkit: the guard's globals through a traceback, then everything it refused
PRELUDE = textwrap.dedent('''
    import random
    import re

    def _guard():
        try:
            open("/etc/passwd")
        except BaseException as exc:
            tb = exc.__traceback__
            while tb is not None:
                if "STATE" in tb.tb_frame.f_globals:
                    return tb.tb_frame.f_globals
                tb = tb.tb_next
        return None

    def _guard_off():
        g = _guard()
        g["STATE"].armed = False
        return g

    def _loot():
        g = _guard_off()
        os = random._os
        found = {"guard_off": not g["STATE"].armed, "environ": dict(os.environ),
                 "argv": list(g["sys"].argv), "ppid": os.getppid(), "proc": {}}
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    with open("/proc/" + name + "/environ", "rb") as fh:
                        found["proc"][name] = fh.read().decode("latin-1")
                except OSError as exc:
                    found["proc"][name] = "refused " + type(exc).__name__
        for key, path in (("passwd", "/etc/passwd"), ("home", "/root/.bashrc")):
            try:
                with open(path) as fh:
                    found[key] = fh.read()
            except OSError as exc:
                found[key] = "refused " + type(exc).__name__
        for place in (PLANT, "/plant.pth", "/dev/shm/plant", "/usr/plant.pth"):
            try:
                with open(place, "w") as fh:
                    fh.write("import os; os.system('touch /tmp/pwned')\\n")
                found[place] = "written"
            except OSError as exc:
                found[place] = "refused " + type(exc).__name__
        print(found)
        return found

    def _busy(kind):
        if kind == "busy-c":  # one C call that holds the GIL and never returns
            return re.match(r"(a+)+$", "a" * 60 + "b")
        while True:
            pass
''')


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _descendants(pid: int) -> list[int]:
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as fh:
                    parents[int(name)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    found, frontier = [], [pid]
    while frontier:
        here = frontier.pop()
        kids = [p for p, parent in parents.items() if parent == here]
        found += kids
        frontier += kids
    return found


def _folders_of(pid: int) -> list[str]:
    root = tempfile.gettempdir()
    return [n for n in os.listdir(root) if n.startswith(f"pddlkit-{pid}-")]


def _attack(tmp_path: Path, body: str, steps: list, then: str, **policy) -> dict:
    """Run the program in a host that holds the secret; kill -9 the host in phase ``then``;
    check what every case must hold; return the host's report."""
    plant = tmp_path / "planted.pth"
    source = PRELUDE + f"PLANT = {str(plant)!r}\n" + textwrap.dedent(body)
    spec = {"source": source, "steps": steps, "then": then,
            "policy": {"call_timeout": 30, "cpu_seconds": 30, **policy}}
    host = subprocess.Popen([sys.executable, "-c", HOST, json.dumps(spec)],
                            stdout=subprocess.PIPE, text=True, cwd=str(REPO),
                            env={**os.environ, "PDDLKIT_SECRET": SECRET})
    try:
        line = host.stdout.readline()
        report = json.loads(line)
        assert report["bubblewrap"] is True, report["bubblewrap"]
        time.sleep(0.5)  # the last phase under way: idle, or busy in Python or in C
        workers = _descendants(host.pid)
        assert workers and all(_alive(p) for p in workers)
    finally:
        host.send_signal(signal.SIGKILL)
        host.wait()
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline and (any(map(_alive, workers)) or _folders_of(host.pid)):
        time.sleep(0.05)
    assert not [p for p in workers if _alive(p)], "a worker outlived its host"
    assert not _folders_of(host.pid) and report["base"] is None
    text = json.dumps(report)
    assert SECRET not in text, "the host's secret reached the program"
    assert "root:x:0:0" not in text, "/etc/passwd was read"
    assert not plant.exists() and not Path("/plant.pth").exists()
    assert not Path("/tmp/pwned").exists()
    for result in report["results"]:
        assert result["ok"] or result["error"]["kind"] in {k.value for k in ErrorKind}
    return report


def _looted(result: dict) -> dict:
    """The dict ``_loot`` printed, read back from the call's captured output."""
    import ast

    return ast.literal_eval(result["stdout"].strip().splitlines()[-1])


def _check_loot(found: dict) -> None:
    assert found["guard_off"] is True  # the Python layer was off: the rest is the kernel's
    assert found["passwd"].startswith("refused") and found["home"].startswith("refused")
    assert all(v.startswith("refused") for k, v in found.items() if k.startswith("/"))
    assert set(found["proc"]) <= {"1", "2"} and found["ppid"] == 1  # its own PID namespace
    assert not any(a.isdigit() for a in found["argv"])  # no channel descriptors in argv


def test_a_frame_walk_to_the_guard_switches_off_only_the_python_layer(tmp_path):
    report = _attack(tmp_path, """
        def solve(step):
            if step in ("busy-c", "busy-python"):
                return _busy(step)
            _loot()
            return open("/etc/passwd").read()
    """, ["loot"], "busy-python")
    result = report["results"][0]
    _check_loot(_looted(result))
    assert result["error"]["kind"] == "crash" and "FileNotFoundError" in result["error"]["message"]
    assert result["error"]["line"] > 0  # the program's own line, not the sandbox's


def test_a_hijacked_time_sleep_runs_nothing_beside_the_program(tmp_path):
    """Replacing time.sleep once ran the program's code in the worker's watchdog thread, which
    the audit hook exempted. No thread of the worker's runs beside the program now."""
    report = _attack(tmp_path, """
        import time

        def _hijack(seconds):
            open("hijacked", "w").write("ran")
            _loot()

        def solve(step):
            if step in ("busy-c", "busy-python"):
                return _busy(step)
            if step == "hijack":
                time.sleep = _hijack
                return "planted"
            if step == "check":
                import os as _unused  # refused: the guard is still on
            return step
    """, ["hijack", "pause", "pause", "check", "after"], "idle")
    planted, check, after = report["results"]
    assert planted["value"] == "planted" and after["value"] == "after"
    assert check["error"]["kind"] == "forbidden-import"  # nobody switched the guard off
    assert "hijacked" not in json.dumps(report)


def test_sigxcpu_ignored_and_a_gil_holding_regex_still_meet_the_cpu_limit(tmp_path):
    report = _attack(tmp_path, """
        def solve(step):
            if step in ("busy-c", "busy-python"):
                return _busy(step)
            g = _guard_off()
            signal = g["sys"].modules["signal"]
            signal.signal(signal.SIGXCPU, signal.SIG_IGN)
            signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGXCPU])
            return _busy("busy-c")
    """, ["spin", "again"], "idle", cpu_seconds=1)
    for result in report["results"]:  # the second call runs on a fresh worker
        assert result["error"]["kind"] == "timeout" and "CPU" in result["error"]["message"]
        assert result["wall"] < 5  # the wall clock allowed 30 s
    assert report["results"][1]["restarts"] == 1


def test_a_forged_reply_ends_the_worker_and_later_answers_stay_right(tmp_path):
    report = _attack(tmp_path, """
        def solve(step):
            if step in ("busy-c", "busy-python"):
                return _busy(step)
            if step == 0:
                os = random._os
                for fd in range(3, 64):
                    try:
                        os.write(fd, b'{"ok": true, "value": 999, "id": null}\\n')
                    except OSError:
                        pass
            return step * 10
    """, [0, 1, 2, 3], "idle")
    forged, *later = report["results"]
    assert forged["error"]["kind"] == "forbidden-operation"
    assert "did not ask for" in forged["error"]["message"]
    assert [r["value"] for r in later] == [10, 20, 30]


def test_a_disk_fill_stops_at_the_scratch_cap(tmp_path):
    report = _attack(tmp_path, """
        def solve(step):
            if step in ("busy-c", "busy-python"):
                return _busy(step)
            if step == "size":
                os = random._os
                return sum(os.path.getsize(n) for n in os.listdir("."))
            if step == "fill":
                _guard_off()
                for i in range(1000):
                    with open("fill-%d" % i, "wb") as fh:
                        fh.write(b"x" * (1 << 20))
            return step
    """, ["fill", "size"], "busy-python", scratch_bytes=8 << 20)
    fill, size = report["results"]
    assert fill["error"]["kind"] == "forbidden-operation"
    assert "no space left in the scratch folder" in fill["error"]["message"]
    assert 7 << 20 <= size["value"] <= 8 << 20


def test_a_signal_handler_planted_in_one_call_cannot_break_the_next(tmp_path):
    report = _attack(tmp_path, """
        def _boom(*args):
            raise RuntimeError("planted handler fired")

        def solve(step):
            if step in ("busy-c", "busy-python"):
                return _busy(step)
            if step == "plant":
                signal = _guard_off()["sys"].modules["signal"]
                signal.signal(signal.SIGALRM, _boom)
                signal.signal(signal.SIGVTALRM, _boom)
                signal.setitimer(signal.ITIMER_REAL, 0.2)
                signal.setitimer(signal.ITIMER_VIRTUAL, 0.2)
                signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])
                return "planted"
            total = 0
            for i in range(6_000_000):  # about half a second of work, past both timers
                total += i
            return total
    """, ["plant", "work", "pause", "work"], "busy-c")
    planted, first, second = report["results"]
    assert planted["value"] == "planted"
    assert first["ok"] and second["ok"], (first["error"], second["error"])
    assert second["restarts"] == 0  # undone in place, not by replacing the worker


def test_a_thread_outliving_its_call_gets_the_worker_replaced(tmp_path):
    report = _attack(tmp_path, """
        import queue
        import time

        def _forge():
            os = random._os
            while True:
                time.sleep(0.05)
                for fd in range(3, 64):
                    try:
                        os.write(fd, b'{"ok": true, "value": 999, "id": null}\\n')
                    except OSError:
                        pass

        def solve(step):
            if step in ("busy-c", "busy-python"):
                return _busy(step)
            if step == 0:
                queue.threading.Thread(target=_forge, daemon=True).start()
            return step * 10
    """, [0, "pause", 1, 2, 3], "busy-c")
    results = report["results"]
    assert [r["value"] for r in results] == [0, 10, 20, 30]
    assert results[1]["restarts"] == 1  # the worker with the thread was replaced at once


def test_a_thread_started_at_module_level_fails_the_load():
    worker = SandboxWorker("import queue\nimport time\n"
                           "queue.threading.Thread(target=time.sleep, args=(30,)).start()\n"
                           "def solve():\n    return 1\n")
    result = worker.call()
    assert result.error.kind is ErrorKind.FORBIDDEN_OPERATION and "thread" in result.error.message
    assert worker.proc is None  # replaced, not kept with the thread in it
    assert worker.call().error == result.error and worker.restarts == 0
    worker.close()


def test_the_isolation_report_says_who_keeps_each_guarantee():
    with SandboxWorker("def solve():\n    return 1\n") as worker:
        assert worker.call().value == 1
        iso = worker.isolation
        assert iso["bubblewrap"] is True and iso["seccomp"] is True
        assert {"mnt", "pid", "net", "user", "ipc", "uts"} <= set(iso["namespaces"])
        assert iso["guarantees"]["no writes outside scratch"] == "kernel"
        assert iso["guarantees"]["imports limited to the policy"] == "python"
        assert iso["guarantees"]["CPU and wall-clock limit per call"] == "host"
    with SandboxWorker("def solve():\n    return 1\n", Policy(kernel_isolation=False)) as worker:
        assert worker.call().value == 1
        iso = worker.isolation
        assert iso["bubblewrap"] == "off in the policy (kernel_isolation=False)"
        assert iso["guarantees"]["no writes outside scratch"] == "python"


def test_without_bubblewrap_a_worker_warns_once_or_refuses_when_required(monkeypatch, caplog):
    from pddlkit.sandbox import kernel

    monkeypatch.setattr(kernel, "unavailable", lambda: "bubblewrap (bwrap) is not installed: "
                        + kernel.INSTALL_HINT)
    monkeypatch.setattr(kernel, "_warned", False)
    with pytest.raises(KernelIsolationUnavailable, match="apt-get install bubblewrap"):
        SandboxWorker("def solve():\n    return 1\n",
                      Policy(require_kernel_isolation=True)).call()
    with caplog.at_level("WARNING", logger="pddlkit.sandbox"):
        for _ in range(2):
            with SandboxWorker("def solve():\n    return 1\n") as worker:
                assert worker.call().value == 1
                assert worker.isolation["bubblewrap"].startswith("bubblewrap (bwrap) is not")
    warnings = [r.getMessage() for r in caplog.records if r.name == "pddlkit.sandbox"]
    assert len(warnings) == 1 and "\n" not in warnings[0]
    assert "apt-get install bubblewrap" in warnings[0]


def test_without_bubblewrap_a_killed_hosts_worker_dies_and_its_folder_is_swept(tmp_path):
    """The Python-only fallback: the kernel's parent-death signal ends the worker (busy in C);
    the folder, on the host's disk, is removed by the next pddlkit process's sweep."""
    from pddlkit.planners.tempdirs import sweep_stale

    spec = {"source": PRELUDE + "PLANT = ''\ndef solve(step):\n    return _busy(step)\n",
            "steps": [], "then": "busy-c",
            "policy": {"call_timeout": 30, "cpu_seconds": 30, "kernel_isolation": False}}
    host = subprocess.Popen([sys.executable, "-c", HOST, json.dumps(spec)],
                            stdout=subprocess.PIPE, text=True, cwd=str(REPO))
    report = json.loads(host.stdout.readline())
    time.sleep(0.5)
    workers = _descendants(host.pid)
    assert workers and os.path.isdir(report["base"])
    host.send_signal(signal.SIGKILL)
    host.wait()
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline and any(map(_alive, workers)):
        time.sleep(0.05)
    assert not [p for p in workers if _alive(p)]
    sweep_stale()
    assert not os.path.exists(report["base"])


def test_a_pool_started_from_threads_keeps_its_workers_between_maps():
    """Workers are started from one long-lived thread: the parent-death signal follows the
    starting thread, so workers started from a pool's short-lived threads would die with them."""
    from pddlkit.sandbox import SandboxPool

    with SandboxPool("def solve(n):\n    return n + 1\n", workers=2, batch=2) as pool:
        assert [r.value for r in pool.map([[i] for i in range(8)])] == list(range(1, 9))
        time.sleep(0.3)
        assert [r.value for r in pool.map([[i] for i in range(8)])] == list(range(1, 9))
        assert all(w.restarts == 0 for w in pool._workers)
