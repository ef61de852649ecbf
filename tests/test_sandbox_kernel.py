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
    import json, os, sys, time
    from pddlkit.sandbox import Policy, SandboxWorker
    spec = json.loads(sys.argv[1])
    exec(spec.get("host_prelude", ""))
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
    with open(f"/proc/{worker.pid}/status") as fh:
        host_uid = int(next(l for l in fh if l.startswith("Uid:")).split()[2])
    print(json.dumps({"results": results, "pid": worker.pid, "base": worker.base,
                      "host_uid": host_uid,
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


def _attack(tmp_path: Path, body: str, steps: list, then: str, host_prelude: str = "",
            **policy) -> dict:
    """Run the program in a host that holds the secret; kill -9 the host in phase ``then``;
    check what every case must hold; return the host's report."""
    plant = tmp_path / "planted.pth"
    source = PRELUDE + f"PLANT = {str(plant)!r}\n" + textwrap.dedent(body)
    spec = {"source": source, "steps": steps, "then": then, "host_prelude": host_prelude,
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


@pytest.mark.slow
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
        # a root host's worker has no user namespace: it is the host's nobody instead
        expected = {"mnt", "pid", "net", "ipc", "uts"} | ({"user"} if os.geteuid() else set())
        assert expected <= set(iso["namespaces"])
        assert iso["host_uid"] != 0 and "RLIMIT_AS" in iso["memory"]
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


# ---------------------------------------------------------------- issue 43: a root host

# native calls for the attacks below: the real import, past the guard the program turned off
NATIVE = textwrap.dedent('''
    _NATIVE = []

    def _libc():
        """ctypes and the C library, past the guard (turned off once: a second walk finds no
        guard frame, since nothing refuses any more)."""
        if not _NATIVE:
            g = _guard_off()
            b = g["__builtins__"]
            ctypes = (b["__import__"] if isinstance(b, dict) else b.__import__)("ctypes")
            _NATIVE.extend([ctypes, ctypes.CDLL(None, use_errno=True)])
        return _NATIVE

    def _syscall(number, *args):
        ctypes, libc = _libc()
        libc.syscall.restype = ctypes.c_long
        result = libc.syscall(number, *[ctypes.c_long(a) for a in args])
        return result, ctypes.get_errno()

    def _write_back(path):
        """Write a host-wide setting's own value back: changes nothing, proves the right."""
        os = random._os
        try:
            with open(path) as fh:
                value = fh.read()
        except OSError as exc:
            return "unreadable " + type(exc).__name__
        try:
            with open(path, "w") as fh:
                fh.write(value)
            return "WRITTEN"
        except OSError as exc:
            return "refused " + type(exc).__name__
''')

SYSCTLS = ["/proc/sys/kernel/core_pattern", "/proc/sys/kernel/pid_max",
           "/proc/sys/vm/overcommit_memory", "/proc/sys/kernel/randomize_va_space",
           "/proc/sys/fs/suid_dumpable"]
# x86-64 numbers (the filter's table has AArch64's too; these tests speak x86-64)
X86 = {"unshare": 272, "ptrace": 101, "io_uring_setup": 425, "shmget": 29, "msgget": 68,
       "memfd_create": 319, "pidfd_open": 434, "process_vm_readv": 310, "userfaultfd": 323,
       "setns": 308, "mount": 165, "bpf": 321, "perf_event_open": 298, "keyctl": 250}
x86_only = pytest.mark.skipif(os.uname().machine != "x86_64",
                              reason="the attack's system call numbers are x86-64's")


def _host_uid(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        return int(next(line for line in fh if line.startswith("Uid:")).split()[2])


CORE_PATTERN_ATTACK = """
    def solve(step):
        if step in ("busy-c", "busy-python"):
            return _busy(step)
        _libc()
        os = random._os
        return {"uid": os.getuid(), "euid": os.geteuid(),
                "writes": {p: _write_back(p) for p in SYSCTLS},
                "sysrq": _write_back("/proc/sysrq-trigger")}
"""


def test_a_root_hosts_worker_writes_no_host_wide_kernel_setting(tmp_path):
    """As root, the sandbox's user namespace mapped its uid to host uid 0: a program wrote
    core_pattern for the whole machine (and, with a pipe there and one abort, had the kernel
    run its script as host root). The worker is the host's nobody now."""
    report = _attack(tmp_path, NATIVE + f"SYSCTLS = {SYSCTLS!r}\n" + textwrap.dedent(CORE_PATTERN_ATTACK),
                     ["attack"], "idle")
    found = report["results"][0]["value"]
    assert found is not None, report["results"][0]["error"]
    assert found["writes"]["/proc/sys/kernel/core_pattern"].startswith("refused"), found
    assert not any(v == "WRITTEN" for v in found["writes"].values()), found
    assert found["sysrq"] != "WRITTEN"
    assert found["uid"] != 0 and found["euid"] != 0
    assert report["host_uid"] != 0  # as the host's kernel sees the worker


def test_without_the_uid_drop_the_core_pattern_test_would_fail(tmp_path):
    """The mutation check: the same attack with the worker left as root (the drop removed
    from the launch) writes core_pattern back, so the test above can fail. Only as root."""
    if os.geteuid() != 0:
        pytest.skip("the uid drop is what a root host does; this host is not root")
    mutant = textwrap.dedent("""
        from pddlkit.sandbox import kernel
        _command = kernel.command
        def _no_drop(*args, **kwargs):
            launch = _command(*args, **kwargs)
            launch.drop_to = None
            return launch
        kernel.command = _no_drop
    """)
    report = _attack(tmp_path, NATIVE + f"SYSCTLS = {SYSCTLS!r}\n" + textwrap.dedent(CORE_PATTERN_ATTACK),
                     ["attack"], "idle", host_prelude=mutant)
    found = report["results"][0]["value"]
    assert found is not None, report["results"][0]["error"]
    assert found["writes"]["/proc/sys/kernel/core_pattern"] == "WRITTEN"
    assert found["uid"] == 0


@x86_only
def test_namespaces_other_processes_io_uring_and_unaccounted_memory_are_refused(tmp_path):
    report = _attack(tmp_path, NATIVE + f"X86 = {X86!r}\n" + textwrap.dedent("""
        def solve(step):
            if step in ("busy-c", "busy-python"):
                return _busy(step)
            calls = {
                "unshare": (0x10000000,),            # CLONE_NEWUSER
                "ptrace": (16, 1, 0, 0),             # PTRACE_ATTACH to bubblewrap's PID 1
                "io_uring_setup": (4, 0),
                "shmget": (0, 1 << 20, 0o1600),      # IPC_PRIVATE, IPC_CREAT | 0600
                "msgget": (0, 0o1600),
                "memfd_create": (0, 0),
                "pidfd_open": (1, 0),
                "process_vm_readv": (1, 0, 0, 0, 0, 0),
                "userfaultfd": (0,),
                "setns": (0, 0),
                "mount": (0, 0, 0, 0, 0),
                "bpf": (0, 0, 0),
                "perf_event_open": (0, 0, -1, -1, 0),
                "keyctl": (0, 0),
            }
            return {name: _syscall(X86[name], *args) for name, args in calls.items()}
    """), ["attack"], "busy-c")
    answers = report["results"][0]["value"]
    assert answers is not None, report["results"][0]["error"]
    for name, (result, errno) in answers.items():
        assert result == -1 and errno == 1, (name, result, errno)  # EPERM from the filter


@x86_only
def test_memory_outside_the_address_space_stops_at_the_limit(tmp_path):
    """SysV shared memory kept 2 GiB after shmdt, memfds 885 MiB, a nested namespace's tmpfs
    240 MiB: each is refused now, and plain allocation meets the address-space limit."""
    memory = 256 << 20
    report = _attack(tmp_path, NATIVE + f"X86 = {X86!r}\n" + textwrap.dedent("""
        def solve(step):
            if step in ("busy-c", "busy-python"):
                return _busy(step)
            os = random._os
            kept = {"shm": 0, "memfd": 0}
            for _ in range(64):  # 64 x 32 MiB: far past the limit if any were kept
                if _syscall(X86["shmget"], 0, 32 << 20, 0o1600)[0] >= 0:
                    kept["shm"] += 32
                if _syscall(X86["memfd_create"], 0, 0)[0] >= 0:
                    kept["memfd"] += 32
            kept["tmpfs"] = _syscall(X86["unshare"], 0x10000000 | 0x00020000)
            try:
                hog = [bytearray(16 << 20) for _ in range(64)]
                kept["heap"] = len(hog) * 16
            except MemoryError:
                kept["heap"] = "MemoryError"
            return kept
    """), ["attack"], "idle", memory_bytes=memory)
    kept = report["results"][0]["value"]
    assert kept is not None, report["results"][0]["error"]
    assert kept["shm"] == 0 and kept["memfd"] == 0 and kept["heap"] == "MemoryError"
    assert kept["tmpfs"][0] == -1


FORGE = textwrap.dedent('''
    def _channel():
        """The reply descriptor and the id the host is waiting for, from the worker's frames."""
        sys = _guard_off()["sys"]
        frame = sys._getframe()
        while frame is not None and "wfd" not in frame.f_locals:
            frame = frame.f_back
        names = frame.f_locals
        return names["wfd"], names.get("item_id") or names.get("request_id")

    def _forge(header, tail=b""):
        import json
        os = random._os
        wfd, rid = _channel()
        data = json.dumps({**header, "id": rid}).encode() + b"\\n" + tail
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(wfd, view):]
        except OSError:
            pass
        return "forged"

    def _attack_reply(kind):
        if kind == "deep":
            value = b"[" * 3000 + b"1" + b"]" * 3000
            return _forge({"ok": True, "value_bytes": len(value)}, value + b"\\n")
        if kind == "oversized":
            value = b'"' + b"x" * (40 << 20) + b'"'
            return _forge({"ok": True, "value_bytes": len(value)}, value + b"\\n")
        if kind == "padded":
            return _forge({"ok": True, "stdout": "x" * (40 << 20)})
        if kind == "wrong-type":
            return _forge({"ok": False, "error": {"kind": "crash", "message": 7, "line": "x"}})
        if kind == "unknown-kind":
            return _forge({"ok": False, "error": {"kind": "nonsense", "message": "m"}})
        raise ValueError(kind)
''')


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["deep", "oversized", "padded", "wrong-type", "unknown-kind"])
def test_a_forged_reply_is_a_program_error_and_the_host_stays_well(tmp_path, kind):
    report = _attack(tmp_path, FORGE + textwrap.dedent("""
        def solve(step):
            if step in ("busy-c", "busy-python"):
                return _busy(step)
            if isinstance(step, str):
                return _attack_reply(step)
            return step * 10
    """), [kind, 1, 2], "idle")
    forged, *later = report["results"]
    assert forged["error"]["kind"] == "forbidden-operation", forged
    assert "refused" in forged["error"]["message"]
    assert forged["wall"] < 5  # refused before 40 MiB were read or decoded
    assert [r["value"] for r in later] == [10, 20]


def test_a_deep_honest_return_is_a_bad_return_not_a_recursion_error_in_the_host():
    with SandboxWorker("def solve(n):\n    v = 1\n    for _ in range(n):\n        v = [v]\n"
                       "    return v\n") as worker:
        deep = worker.call(2000)
        assert deep.error.kind is ErrorKind.BAD_RETURN and "nested" in deep.error.message
        assert worker.call(3).value == [[[1]]]


def test_map_keeps_every_other_result_when_some_items_attack_the_channel():
    from pddlkit.sandbox import SandboxPool

    source = PRELUDE + "PLANT = ''\n" + FORGE + textwrap.dedent("""
        def solve(step):
            if isinstance(step, str):
                return _attack_reply(step)
            return step * 10
    """)
    inputs = [[0], ["deep"], [2], ["padded"], [4], ["wrong-type"], [6], [7], ["oversized"], [9]]
    with SandboxPool(source, Policy(call_timeout=30, cpu_seconds=30), workers=2,
                     batch=3) as pool:
        results = pool.map(inputs)
    for (item,), result in zip(inputs, results):
        if isinstance(item, str):
            assert result.error.kind is ErrorKind.FORBIDDEN_OPERATION, (item, result)
        else:
            assert result.ok and result.value == item * 10, (item, result)


def test_cpu_burnt_between_calls_replaces_the_worker_and_is_logged(caplog):
    """A thread started after the reply (here from a signal handler, with the worker's own
    check switched off through its frames so that the timer survives the call) burns CPU
    with no call running, where the host's look at the reply saw one thread. The host reads
    the worker's CPU and threads from the kernel again before the next call."""
    source = PRELUDE + "PLANT = ''\n" + textwrap.dedent("""
        import queue

        def _spin():
            while True:
                pass

        def _later(*args):
            queue.threading.Thread(target=_spin, daemon=True).start()

        def solve(step):
            if step == "plant":
                sys = _guard_off()["sys"]
                signal = sys.modules["signal"]
                frame = sys._getframe()
                while "_reset_after_call" not in frame.f_globals:
                    frame = frame.f_back
                frame.f_globals["_reset_after_call"] = lambda: None
                signal.signal(signal.SIGALRM, _later)
                signal.setitimer(signal.ITIMER_REAL, 0.2)  # fires in the idle worker
                return "planted"
            return step * 10
    """)
    with caplog.at_level("WARNING", logger="pddlkit.sandbox"):
        with SandboxWorker(source, Policy(call_timeout=30, cpu_seconds=30)) as worker:
            planted = worker.call("plant")
            assert planted.value == "planted" and not planted.retired  # one thread then
            time.sleep(0.6)
            assert worker.call(3).value == 30
            assert worker.restarts == 1 and worker.idle_replacements == 1
    assert any("between calls" in r.getMessage() for r in caplog.records)


# ---------------------------------------------------------------- issue 70: processes and threads

def test_without_a_pids_cgroup_rlimit_nproc_stops_a_thread_bomb(monkeypatch):
    """The second mechanism (:mod:`pddlkit.sandbox.pids_cgroup`): no pids cgroup, the worker
    inside bubblewrap sets RLIMIT_NPROC as its unprivileged uid. On a root host that uid is
    the host's nobody, whose count every worker shares: still a cap for the host."""
    from pddlkit.sandbox import pids_cgroup
    from test_sandbox import BOMB_POLICY, thread_bomb

    monkeypatch.setattr(pids_cgroup, "create", lambda *args, **kwargs: None)
    found = thread_bomb(BOMB_POLICY)
    assert found["guarantee"].startswith("kernel (RLIMIT_NPROC: 64 tasks"), found["guarantee"]
    assert found["free_lowest"] > 0.9 * found["free_before"], found
    assert found["caught"].value < BOMB_POLICY.max_tasks, found["caught"]
    raised = found["raised"].error
    assert raised.kind is ErrorKind.FORBIDDEN_OPERATION and "at most 64" in raised.message
    assert found["plain"].value == 0


def test_without_a_pids_cgroup_or_bubblewrap_the_seccomp_filter_refuses_threads(monkeypatch):
    """The third mechanism: outside bubblewrap the worker's uid is the host's own (root, here
    and in CI), which RLIMIT_NPROC does not bind, so the filter refuses every clone."""
    from pddlkit.sandbox import pids_cgroup
    from test_sandbox import BOMB_POLICY, thread_bomb

    monkeypatch.setattr(pids_cgroup, "create", lambda *args, **kwargs: None)
    policy = Policy(call_timeout=20, cpu_seconds=20, memory_bytes=4 << 30,
                    kernel_isolation=False)
    found = thread_bomb(policy)
    assert found["guarantee"] == "kernel (the seccomp filter: no threads)", found["guarantee"]
    assert found["free_lowest"] > 0.9 * found["free_before"], found
    assert found["caught"].value == 0
    raised = found["raised"].error
    assert raised.kind is ErrorKind.FORBIDDEN_OPERATION and "no threads" in raised.message
    assert found["plain"].value == 0


def test_every_worker_process_is_in_its_own_pids_cgroup():
    """Where the host lets pddlkit make one (a root host: CI), bubblewrap's processes and
    the worker are all in the worker's pids cgroup, which goes with the worker."""
    from pddlkit.sandbox import pids_cgroup

    if pids_cgroup.unavailable():
        _missing(f"no pids cgroup can be made here: {pids_cgroup.unavailable()}")
    with SandboxWorker("def solve():\n    return 1\n") as worker:
        assert worker.call().value == 1
        group = worker._pids
        assert group is not None and group.limit == 64
        assert group.holds(worker.pid) and group.holds(worker.proc.pid)
        assert 2 <= group.current() <= 4  # bubblewrap's two and the worker
        assert worker.isolation["tasks"].startswith("a pids cgroup")
    assert group.shared or not group.path.exists()


def test_a_folder_another_process_left_with_our_pid_does_not_stop_a_cgroup(monkeypatch):
    """A cgroup v1 hierarchy at its root is shared by every container of the machine, whose
    pids repeat: a folder another container's pddlkit left under this process's pid (CI
    failed with ``File exists`` on one) makes pddlkit draw another name, and the probe holds."""
    from pddlkit.sandbox import memory_cgroup, pids_cgroup

    if pids_cgroup.unavailable():
        _missing(f"no pids cgroup can be made here: {pids_cgroup.unavailable()}")
    folder = pids_cgroup._parent()[0]
    draws = iter(["0badc0de", "0badc0de", "feedf00d"])
    monkeypatch.setattr(memory_cgroup.secrets, "token_hex", lambda n: next(draws))
    taken = folder / f"pddlkit-{os.getpid()}-probe-pids-0badc0de"
    taken.mkdir()
    try:
        found, version, _ = memory_cgroup.probe_parent("pids", ("pids.max", "pids.max"), "64",
                                                       tag="probe-pids")
        assert found == folder and version in (1, 2)
        assert taken.is_dir()  # another's folder (younger than STALE_AFTER) is left alone
        assert not (folder / f"pddlkit-{os.getpid()}-probe-pids-feedf00d").exists()
    finally:
        taken.rmdir()


def test_cgroup_folder_names_are_drawn_again_and_only_old_orphans_are_removed(tmp_path,
                                                                              monkeypatch):
    """The naming and the sweep on a plain folder: a name that exists is drawn again, one that
    exists every time is an error; a folder is swept only when its pid is not a process here
    and it is older than STALE_AFTER, whichever of pddlkit's names it has."""
    from pddlkit.sandbox import memory_cgroup

    draws = iter(["aa", "aa", "bb", "cc", "cc", "cc", "cc"])
    monkeypatch.setattr(memory_cgroup.secrets, "token_hex", lambda n: next(draws))
    first = memory_cgroup.make_folder(tmp_path, "pids")
    assert first.name == f"pddlkit-{os.getpid()}-pids-aa"
    assert memory_cgroup.make_folder(tmp_path, "pids").name.endswith("-pids-bb")
    memory_cgroup.make_folder(tmp_path, "pids")  # cc
    with pytest.raises(FileExistsError):
        memory_cgroup.make_folder(tmp_path, "pids", tries=3)

    gone = 2 ** 22 + 17  # above pid_max's default: no process here has it
    names = [f"pddlkit-{gone}-memory-1f", f"pddlkit-probe-pids-{gone}", f"pddlkit-probe-{gone}",
             f"pddlkit-{gone}-3", f"pddlkit-{os.getpid()}-memory-2e", f"pddlkit-{gone}x-1",
             "other-1"]
    for name in names:
        (tmp_path / name).mkdir()
    young = time.time() + 1
    memory_cgroup._remove_stale(tmp_path, now=young)
    assert all((tmp_path / name).is_dir() for name in names)
    old = time.time() + memory_cgroup.STALE_AFTER + 1
    memory_cgroup._remove_stale(tmp_path, now=old)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([f"pddlkit-{os.getpid()}-pids-aa", f"pddlkit-{os.getpid()}-pids-bb",
                           f"pddlkit-{os.getpid()}-pids-cc", f"pddlkit-{os.getpid()}-memory-2e",
                           f"pddlkit-{gone}x-1", "other-1"])


# --------------------------------------------------------------------------- memory cgroup

def _need_cgroup():
    from pddlkit.sandbox import memory_cgroup

    if memory_cgroup.unavailable():  # CI runs as root, where the cgroup can be made
        _missing(f"no memory cgroup can be made here: {memory_cgroup.unavailable()}")
    return memory_cgroup


def test_a_memory_cgroup_stops_what_no_address_space_limit_counts():
    """The kernel mechanism the worker's cgroup relies on: a process with no rlimit at all
    (as memory outside the address space would be) is killed at the cgroup's limit, the kill
    is counted, and the folder goes when the process has."""
    memory_cgroup = _need_cgroup()
    group = memory_cgroup.create(64 << 20)
    assert group is not None and group.path.is_dir()
    hog = ("b = bytearray(300 << 20)\nfor i in range(0, len(b), 4096): b[i] = 1\n"
           "print('survived')")
    done = subprocess.run(group.join_argv([sys.executable, "-c", hog]), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == -signal.SIGKILL and "survived" not in done.stdout
    assert group.oom_kills() == 1
    assert group.remove() and not group.path.exists()


def test_every_worker_process_is_in_its_own_memory_cgroup_and_an_oom_kill_is_a_memory_error():
    memory_cgroup = _need_cgroup()
    source = ("def solve(mib):\n    b = bytearray(mib << 20)\n"
              "    for i in range(0, len(b), 4096):\n        b[i] = 1\n    return len(b) >> 20\n")
    policy = Policy(memory_bytes=512 << 20, scratch_bytes=32 << 20)
    with SandboxWorker(source, policy) as worker:
        assert worker.call(8).value == 8
        group = worker._cgroup
        assert group is not None and group.limit_bytes == (512 + 32) << 20
        assert group.holds(worker.pid) and group.holds(worker.proc.pid)  # bwrap's too
        iso = worker.isolation
        assert f"memory cgroup (v{group.version}" in iso["memory"]
        key = "memory limit for all the worker's processes and scratch (a cgroup)"
        assert iso["guarantees"][key] == "kernel"
        # lower the cgroup's limit under the address-space limit: the kernel's OOM kill is
        # reported as the program's memory error, and the next call gets a new worker
        name = "memory.max" if group.version == 2 else "memory.limit_in_bytes"
        (group.path / name).write_text(str(96 << 20))     # v1: before memsw, which is >= it
        if group.version == 1 and (group.path / "memory.memsw.limit_in_bytes").exists():
            (group.path / "memory.memsw.limit_in_bytes").write_text(str(96 << 20))
        died = worker.call(300)
        assert not died.ok and died.error.kind == ErrorKind.MEMORY, died.error
        assert "cgroup" in died.error.message
        assert not group.path.exists()      # removed with its worker
        assert worker.call(8).value == 8 and worker._cgroup.path != group.path
        last = worker._cgroup
    assert not last.path.exists()
