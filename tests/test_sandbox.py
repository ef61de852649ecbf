"""The sandbox against hostile programs: each is contained with the right ProgramError kind,
the host is unharmed, and no process or file is left behind."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import _missing
from pddlkit.sandbox import (ErrorKind, Policy, ProgramError, SandboxPool, SandboxWorker,
                             network_isolated, score_program)

FAST = Policy(call_timeout=3, cpu_seconds=3)
# the classic escape: os's globals through a subclass of object
OS = ("[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close']"
      "[0].__init__.__globals__")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is gone for our purposes
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def _run(source: str, *args, policy: Policy = FAST):
    """Call the program once; check that closing leaves neither process nor directory."""
    worker = SandboxWorker(textwrap.dedent(source), policy)
    result = worker.call(*args)
    pid = worker.proc.pid if worker.proc else None
    base = worker.base
    worker.close()
    if pid:
        assert not _alive(pid)
    assert base is None or not os.path.exists(base)
    return result


HOSTILE = [
    ("infinite loop", "def solve():\n    while True:\n        pass\n", ErrorKind.TIMEOUT, 0),
    ("fork by import", "import os\ndef solve():\n    return os.fork()\n",
     ErrorKind.FORBIDDEN_IMPORT, 1),
    ("fork bomb through os's globals",
     f"def solve():\n    g = {OS}\n    while True:\n        g['fork']()\n",
     ErrorKind.FORBIDDEN_OPERATION, 4),
    ("memory bomb", "def solve():\n    x = []\n    while True:\n        x.append(bytearray(10**7))\n",
     ErrorKind.MEMORY, 4),
    ("write outside scratch", "def solve():\n    open('/tmp/pddlkit-evil.txt', 'w').write('x')\n",
     ErrorKind.FORBIDDEN_OPERATION, 2),
    ("write outside scratch, low level",
     f"def solve():\n    g = {OS}\n    return g['open']('/tmp/pddlkit-evil2', g['O_WRONLY'] | g['O_CREAT'])\n",
     ErrorKind.FORBIDDEN_OPERATION, 3),
    ("read /etc/passwd", "def solve():\n    return open('/etc/passwd').read()\n",
     ErrorKind.FORBIDDEN_OPERATION, 2),
    ("list the root folder", f"def solve():\n    return {OS}['listdir']('/')\n",
     ErrorKind.FORBIDDEN_OPERATION, 2),
    ("socket by import", "import socket\ndef solve():\n    return 1\n",
     ErrorKind.FORBIDDEN_IMPORT, 1),
    ("socket through the real __import__",
     f"def solve():\n    imp = {OS}['__builtins__']['__import__']\n    s = imp('socket')\n"
     "    return s.create_connection(('127.0.0.1', 9))\n",
     ErrorKind.FORBIDDEN_IMPORT, 3),
    ("subprocess", "import subprocess\ndef solve():\n    return subprocess.run(['ls'])\n",
     ErrorKind.FORBIDDEN_IMPORT, 1),
    ("os.system through os's globals", f"def solve():\n    return {OS}['system']('touch /tmp/pwned')\n",
     ErrorKind.FORBIDDEN_OPERATION, 2),
    ("exec a program", f"def solve():\n    g = {OS}\n    g['execv']('/bin/sh', ['sh'])\n",
     ErrorKind.FORBIDDEN_OPERATION, 3),
    ("ctypes", "import ctypes\ndef solve():\n    return 1\n", ErrorKind.FORBIDDEN_IMPORT, 1),
    ("ctypes through the real __import__",
     f"def solve():\n    return str({OS}['__builtins__']['__import__']('ctypes'))\n",
     ErrorKind.FORBIDDEN_IMPORT, 2),
    ("__import__ trick", "def solve():\n    return __import__('os').getcwd()\n",
     ErrorKind.FORBIDDEN_IMPORT, 2),
    ("builtins __import__ trick", "def solve():\n    return __builtins__['__import__']('os')\n",
     ErrorKind.FORBIDDEN_IMPORT, 2),
    ("importlib", "import importlib\ndef solve():\n    return importlib.import_module('os')\n",
     ErrorKind.FORBIDDEN_IMPORT, 1),
    # refused silently by CPython (the hook is not added), and ours still holds
    ("a new audit hook", f"def solve():\n    {OS}['sys'].addaudithook(lambda *a: None)\n"
     "    return open('/etc/passwd').read()\n", ErrorKind.FORBIDDEN_OPERATION, 3),
    ("reach the guard through sys.modules",
     f"def solve():\n    mods = {OS}['sys'].modules\n    return mods['guard'].STATE.armed\n",
     ErrorKind.CRASH, 3),
    ("change directory", f"def solve():\n    {OS}['chdir']('/')\n", ErrorKind.FORBIDDEN_OPERATION, 2),
    ("recursion bomb", "def solve():\n    def f(n):\n        return f(n + 1)\n    return f(0)\n",
     ErrorKind.CRASH, 3),
    ("non-JSON return", "def solve():\n    return object()\n", ErrorKind.BAD_RETURN, 0),
    ("NaN return", "def solve():\n    return float('nan')\n", ErrorKind.BAD_RETURN, 0),
    ("a set", "def solve():\n    return {1, 2}\n", ErrorKind.BAD_RETURN, 0),
    ("no solve", "def plan(grid):\n    return []\n", ErrorKind.BAD_RETURN, 0),
    ("syntax error", "def solve(:\n    return 1\n", ErrorKind.SYNTAX, 1),
    ("raises", "def solve():\n    x = 1\n    return [1, 2][x + 5]\n", ErrorKind.CRASH, 3),
    ("hangs at load", "while True:\n    pass\ndef solve():\n    return 1\n", ErrorKind.TIMEOUT, 0),
    ("reads standard input", "def solve():\n    return input()\n", ErrorKind.CRASH, 2),
    # the program's own exception object, read by the worker to describe it
    ("a NameError whose name raises when compared",
     "class N:\n    def __eq__(self, o):\n        raise RuntimeError('x')\n"
     "    __hash__ = object.__hash__\ndef solve():\n    raise NameError('x', name=N())\n",
     ErrorKind.CRASH, 6),
    ("a NameError whose name property raises",
     "class E(NameError):\n    @property\n    def name(self):\n        raise RuntimeError('y')\n"
     "def solve():\n    raise E('z')\n", ErrorKind.CRASH, 6),
    ("an exception whose str raises",
     "class E(Exception):\n    def __str__(self):\n        raise RuntimeError('s')\n"
     "def solve():\n    raise E()\n", ErrorKind.CRASH, 5),
]


@pytest.mark.parametrize("name, source, kind, line", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_programs_are_contained(name, source, kind, line):
    # The clock is short only where a timeout is the answer: elsewhere a loaded machine (CI's
    # memory bomb once took over 2 s to fill 512 MiB, 0.26 s when idle) must not turn the
    # limit under test into a timeout.
    clock = 2 if kind is ErrorKind.TIMEOUT else 30
    policy = Policy(call_timeout=clock, cpu_seconds=clock + 1, load_timeout=clock + 1,
                    memory_bytes=512 << 20)
    result = _run(source, policy=policy)
    assert not result.ok and result.error.kind is kind, (name, result.error)
    assert result.error.line == line, (name, result.error)
    if line:
        assert result.error.source_line == source.splitlines()[line - 1]
    text = result.error.format()
    assert "worker.py" not in text and "guard.py" not in text and "Traceback" not in text
    assert not os.path.exists("/tmp/pwned") and not os.path.exists("/tmp/pddlkit-evil.txt")
    assert not os.path.exists("/tmp/pddlkit-evil2")


def test_an_empty_block_is_reported_at_the_line_that_opens_it():
    """Issue 76: every GRASP program Qwen2.5-Coder 1.5B wrote had an ``else:`` with nothing
    under it (line 13); Python reports the next statement (line 16) and the model kept editing
    line 16. The error names the ``else:`` line, and the hint says what to write there."""
    lines = ["def solve(grid):"] + [f"    x{i} = {i}" for i in range(1, 10)] + [
        "    if x1 > 0:", "        y = 1", "    else:", "        # the other case", "",
        "", "    return [y]"]
    assert lines[12] == "    else:" and len(lines) == 17
    result = _run("\n".join(lines) + "\n")
    error = result.error
    assert not result.ok and error.kind is ErrorKind.SYNTAX
    assert error.line == 13 and error.source_line == "    else:"
    assert "line 13: else: has no statement under it" in error.message
    assert "under `else:` on line 13" in error.hint
    assert "line 13" in error.format() and "fix the syntax at this line" not in error.format()


def test_a_program_waiting_for_a_person_to_type_is_told_there_is_none():
    """Qwen2.5-Coder 1.5B wrote GRASP programs as an interactive game loop (``input()`` for
    each move); told only "name 'input' is not defined", it defined its own ``input``."""
    result = _run("def solve():\n    move = input('move? ')\n    return [move]\n")
    assert result.error.kind is ErrorKind.CRASH and result.error.line == 2
    assert "no input(): the program runs with no person" in result.error.message
    assert result.error.hint == ("do not call input(); compute the answer from the entry "
                                 "function's arguments and return it")
    other = _run("def solve():\n    return undefined_name\n")   # any other name: as before
    assert other.error.hint == "fix the exception at this line"
    ended = _run("def solve():\n    exit(0)\n")
    assert ended.error.hint == "return from the entry function instead of calling exit()"


def test_the_home_folder_cannot_be_read():
    home = str(Path.home())
    result = _run("def solve(home):\n    return open(home + '/.bashrc').read()\n", home)
    assert result.error.kind is ErrorKind.FORBIDDEN_OPERATION and "reading" in result.error.message


def test_huge_output_is_capped_and_the_value_still_returned():
    result = _run("def solve():\n    for _ in range(100):\n        print('x' * 100000)\n"
                  "    return 7\n", policy=Policy(max_output=1000))
    assert result.ok and result.value == 7
    assert len(result.stdout) == 1000 and result.dropped == 100 * 100001 - 1000


BUSY = "def solve():\n    n = 0\n    while True:\n        n += 1\n"


def test_the_cpu_limit_stops_a_busy_call_before_the_wall_clock():
    result = _run(BUSY, policy=Policy(call_timeout=60, cpu_seconds=1))
    assert result.error.kind is ErrorKind.TIMEOUT and "CPU" in result.error.message


def test_the_cpu_limit_holds_when_the_host_ignores_sigxcpu():
    # ignored dispositions are inherited across exec (NetHack's end of game, run in-process by
    # NLE, leaves SIGXCPU ignored): the worker must set its own
    before = signal.signal(signal.SIGXCPU, signal.SIG_IGN)
    try:
        result = _run(BUSY, policy=Policy(call_timeout=30, cpu_seconds=1))
    finally:
        signal.signal(signal.SIGXCPU, before)
    assert result.error.kind is ErrorKind.TIMEOUT and "CPU" in result.error.message


def _scratch_on_host(worker: SandboxWorker) -> str:
    """The worker's scratch folder as the host reaches it: its own folder without bubblewrap,
    else the tmpfs inside the worker's mount namespace, through /proc."""
    if worker.base:
        return os.path.join(worker.base, "scratch")
    return f"/proc/{worker.pid}/root{worker.scratch}"


def test_files_in_the_scratch_directory_are_allowed_and_removed():
    for policy in (Policy(), Policy(kernel_isolation=False)):
        worker = SandboxWorker("def solve():\n    open('notes.txt', 'w').write('hi')\n"
                               "    return open('notes.txt').read()\n", policy)
        assert worker.call().value == "hi"
        scratch = _scratch_on_host(worker)
        assert os.path.isfile(os.path.join(scratch, "notes.txt"))
        worker.close()
        assert not os.path.exists(scratch)


def test_a_persistent_worker_serves_many_calls_and_survives_its_program_failing():
    source = "def solve(n):\n    if n == 3:\n        raise ValueError('three')\n    return n * 2\n"
    with SandboxWorker(source) as worker:
        out = [worker.call(n) for n in range(6)]
        assert [r.value for r in out if r.ok] == [0, 2, 4, 8, 10]
        assert out[3].error.kind is ErrorKind.CRASH and out[3].error.line == 3
        assert worker.restarts == 0  # an exception is not a dead worker
        kwargs = worker.call(n=5)
        assert kwargs.value == 10


@pytest.mark.slow
def test_a_timed_out_worker_is_replaced_and_the_program_reloaded():
    source = "def solve(n):\n    while n == 1:\n        pass\n    return n\n"
    with SandboxWorker(source, FAST) as worker:
        first = worker.proc is None and worker.load() is None and worker.proc.pid
        assert worker.call(1).error.kind is ErrorKind.TIMEOUT
        assert not _alive(first)
        assert worker.call(2).value == 2 and worker.restarts == 1


POISON = textwrap.dedent(f"""
    import json
    _loads, _dumps = json.loads, json.dumps

    def _evil_loads(text, *args, **kwargs):  # every later call's arguments become [-2]
        request = _loads(text, *args, **kwargs)
        if isinstance(request, dict) and request.get("args"):
            request["args"] = [-2]
        return request

    def _evil_dumps(value, *args, **kwargs):  # every later whole-number answer becomes -3
        return _dumps(-3 if type(value) is int else value, *args, **kwargs)

    def solve(n, poison=""):
        if poison == "loads":
            json.loads = _evil_loads
        elif poison == "dumps":
            json.dumps = _evil_dumps
        elif poison == "builtins":  # the real builtins, reached through os's globals
            real = {OS}["__builtins__"]
            real["len"] = lambda x: 0
            real["isinstance"] = lambda *a: False
        elif poison == "kept":  # a program keeps its own state between its calls
            return json.loads is _evil_loads
        return n
""")


@pytest.mark.parametrize("poison", ["loads", "dumps", "builtins"])
def test_a_program_that_poisons_json_or_builtins_does_not_change_a_later_answer(poison):
    """A program that replaced json.loads in its worker once changed the arguments of its
    own later calls (solve(21) answered -2); one that replaced json.dumps, or len in the
    real builtins, their answers or their framing. The worker's machinery holds its own
    references now: the later answers are the program's, on the same worker."""
    with SandboxWorker(POISON, FAST) as worker:
        assert worker.call(0, poison).value == 0
        assert [worker.call(n).value for n in (21, 5)] == [21, 5]
        assert worker.restarts == 0
        if poison == "loads":  # documented: the program's own module state is kept
            assert worker.call(0, "kept").value is True


def test_a_thread_left_running_ends_the_worker_at_once():
    """A thread a program left after its call burned 3.3 s of CPU in 6 s of an idle worker,
    caught only at the next call. The program here switches the worker's own check off
    (the worker's globals, reached through its frames): the host sees the second thread in
    the kernel's account right after the reply and ends the worker before returning."""
    source = textwrap.dedent(f"""
        import queue

        def _spin():
            while True:
                pass

        def solve(n):
            if n == 0:
                frame = {OS}["sys"]._getframe()
                while frame is not None and "_reset_after_call" not in frame.f_globals:
                    frame = frame.f_back
                frame.f_globals["_reset_after_call"] = lambda: None
                queue.threading.Thread(target=_spin, daemon=True).start()
            return n * 10
    """)
    with SandboxWorker(source, FAST) as worker:
        assert worker.load() is None
        first = worker.pid
        left = worker.call(0)
        assert worker.proc is None and not _alive(first)  # gone before call() returned
        assert left.ok and left.value == 0  # the answer is kept
        assert "thread" in left.retired and "ended at once" in left.retired
        assert worker.idle_replacements == 1
        assert worker.call(3).value == 30 and worker.restarts == 1


# a thread bomb: fork is refused by the seccomp filter, but every thread is a clone that takes
# a host pid (with 32 KiB stacks one worker held 18,226 of them, a pool of two 28,670)
THREAD_BOMB = textwrap.dedent("""
    import queue
    import time

    def solve(n, catch=True):
        threading = queue.threading
        threading.stack_size(32768)
        started = 0
        try:
            for _ in range(n):
                threading.Thread(target=time.sleep, args=(5,), daemon=True).start()
                started += 1
        except RuntimeError:
            if not catch:
                raise
        time.sleep(0.3)  # holding every thread while the host counts
        return started
""")


def _host_tasks() -> int:
    """The host's tasks, threads included: /proc/loadavg's 'running/total'."""
    return int(Path("/proc/loadavg").read_text().split()[3].split("/")[1])


def thread_bomb(policy: Policy, n: int = 5000) -> dict:
    """Run THREAD_BOMB in one worker while a thread of this process samples the host's free
    pids every 5 ms; then one call with the exception left to the sandbox, and one plain
    call. Returns the figures and the results."""
    import threading

    pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
    before = pid_max - _host_tasks()
    lowest = [before]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            lowest[0] = min(lowest[0], pid_max - _host_tasks())
            done.wait(0.005)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    began = time.monotonic()
    try:
        with SandboxWorker(THREAD_BOMB, policy) as worker:
            caught = worker.call(n)
            raised = worker.call(n, False)
            plain = worker.call(0)
            guarantee = worker.isolation["guarantees"].get(
                "processes and threads per worker (a host pid each)", "none (not reported)")
    finally:
        done.set()
        watcher.join()
    return {"pid_max": pid_max, "free_before": before, "free_lowest": lowest[0],
            "caught": caught, "raised": raised, "plain": plain, "guarantee": guarantee,
            "seconds": time.monotonic() - began}


BOMB_POLICY = Policy(call_timeout=20, cpu_seconds=20, memory_bytes=4 << 30)


def test_a_thread_bomb_stops_at_the_task_limit_and_the_host_keeps_its_pids():
    """Whichever limit holds here (a pids cgroup where the host lets pddlkit make one, as in
    CI: see test_sandbox_kernel.py for the other two), a worker gets at most max_tasks."""
    found = thread_bomb(BOMB_POLICY)
    assert found["free_lowest"] > 0.9 * found["free_before"], found
    caught, raised = found["caught"], found["raised"]
    assert caught.ok and caught.value < BOMB_POLICY.max_tasks, (caught, found)
    assert raised.error.kind is ErrorKind.FORBIDDEN_OPERATION, raised.error
    assert "threads" in raised.error.message and "thread" in raised.error.hint
    assert found["plain"].value == 0  # a fresh worker: the threads went with the old one
    assert found["guarantee"].startswith("kernel ("), found["guarantee"]
    assert found["seconds"] < 15


def test_nan_infinity_and_overflowing_numbers_in_a_reply_are_refused():
    """json.loads accepted NaN, Infinity and 1e999 in a reply; an honest worker never sends
    them (its encoder refuses them as a bad return), so the host refuses them as garbled."""
    source = textwrap.dedent(f"""
        def solve(value):
            g = {OS}
            frame = g["sys"]._getframe()
            while frame is not None and "wfd" not in frame.f_locals:
                frame = frame.f_back
            names = frame.f_locals
            rid = names.get("item_id") or names.get("request_id")
            if value is None:
                return 7
            data = value.encode()
            header = '{{"ok": true, "id": "%s", "value_bytes": %d}}\\n' % (rid, len(data))
            g["write"](names["wfd"], header.encode() + data + b"\\n")
            return "forged"
    """)
    with SandboxWorker(source, FAST) as worker:
        for forged, why in (("NaN", "NaN"), ("[1, -Infinity]", "-Infinity"),
                            ("Infinity", "Infinity"), ("[1e999]", "overflows"),
                            ('{"a": -1E+400}', "overflows")):
            result = worker.call(forged)
            assert result.error.kind is ErrorKind.FORBIDDEN_OPERATION, (forged, result)
            assert "garbled" in result.error.message and why in result.error.message
            assert worker.call(None).value == 7  # a fresh worker
        # a forged value that is JSON, large but finite, is read as the answer (the forger
        # had the request's id): what is refused above is the numbers, not the forging
        assert worker.call("[1e308, 1e-999]").value == [1e308, 0.0]


DECODE_HOST = textwrap.dedent("""
    import gc, json, sys, time
    from pddlkit.sandbox import Policy, SandboxWorker

    def rss(field):
        with open("/proc/self/status") as fh:
            return next(int(l.split()[1]) << 10 for l in fh if l.startswith(field + ":"))

    kind, size = sys.argv[1], int(sys.argv[2])
    source = ("def solve(kind, n):\\n    if kind == 'text':\\n        return 'x' * (n - 2)\\n"
              "    return [[]] * (n // 3)\\n")
    worker = SandboxWorker(source, Policy(call_timeout=60, cpu_seconds=60,
                                          max_reply_elements=10_000_000))
    assert worker.call(kind, 30).ok
    hold = [[i] for i in range(300_000)]  # a host with objects of its own for gc to walk
    collections = []
    gc.callbacks.append(lambda phase, info: collections.append(1) if phase == "start" else 0)
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")  # the peak RSS starts again from the RSS now
    before, cpu, wall = rss("VmRSS"), time.process_time(), time.monotonic()
    result = worker.call(kind, size)
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    print(json.dumps({"ok": result.ok, "length": len(result.value), "cpu": cpu, "wall": wall,
                      "growth": rss("VmHWM") - before, "collections": len(collections)}))
    worker.close()
""")


def _decode_cost(kind: str, size: int) -> dict:
    """A host in its own process receives one reply of ``size`` bytes of JSON: a string
    ("text") or empty lists ("lists"); its peak memory growth, CPU time and collections."""
    done = subprocess.run([sys.executable, "-c", DECODE_HOST, kind, str(size)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_16_mib_reply_costs_the_host_about_twice_its_size_and_bounded_time():
    """A 16 MiB reply (the max_reply cap) made the host peak at 828 MiB; decoding ran with
    the garbage collector walking the host's objects. Now the host holds at most the reply's
    bytes and its text at once, then the text and the value (16 MiB of it here)."""
    size = 16 << 20
    found = _decode_cost("text", size)
    assert found["ok"] and found["length"] == size - 2
    assert found["growth"] <= 2 * size + (2 << 20), found  # 2x, and 2 MiB for the rest
    assert found["cpu"] < 2.0, found


def test_decoding_a_reply_of_many_lists_runs_no_garbage_collection():
    """Each list of a reply is a container the collector counts: decoding 4 MiB of empty
    lists (1.4 million) in a host holding 300,000 objects ran hundreds of collections; the
    collector is paused while a reply is decoded."""
    found = _decode_cost("lists", 4 << 20)
    assert found["ok"] and found["length"] == (4 << 20) // 3
    assert found["collections"] <= 3, found
    assert found["cpu"] < 3.0, found


def test_a_reply_of_too_many_elements_is_refused_before_it_is_decoded():
    """A 16 MiB reply of empty lists decoded to 400 MiB in the host: a value may hold at
    most max_reply_elements (one million) elements; the worker says so as a bad return."""
    with SandboxWorker("def solve(n):\n    return [[]] * n\n", FAST) as worker:
        assert len(worker.call(100_000).value) == 100_000
        many = worker.call(2_000_000)
        assert many.error.kind is ErrorKind.BAD_RETURN and "1000000 elements" in many.error.message
    small = Policy(call_timeout=3, cpu_seconds=3, max_reply_elements=10)
    with SandboxWorker("def solve(n):\n    return list(range(n))\n", small) as worker:
        assert worker.call(9).ok and worker.call(11).error.kind is ErrorKind.BAD_RETURN


def test_the_pool_scores_in_order_resumes_and_replaces_failed_workers(tmp_path):
    source = ("def solve(n):\n    if n == 7:\n        while True:\n            pass\n"
              "    if n == 9:\n        raise ValueError('nine')\n    return n * n\n")
    results = tmp_path / "scores.jsonl"
    with SandboxPool(source, Policy(call_timeout=1), workers=2, batch=4) as pool:
        out = pool.map([[i] for i in range(20)], results=results)
    assert [r.value for r in out if r.ok] == [i * i for i in range(20) if i not in (7, 9)]
    assert out[7].error.kind is ErrorKind.TIMEOUT and out[9].error.kind is ErrorKind.CRASH
    lines = results.read_text().splitlines()
    assert sorted(json.loads(line)["index"] for line in lines) == list(range(20))
    # resume: a run cut short (half the lines, and a line cut by a kill) calls only the rest
    results.write_text("\n".join(lines[:10]) + "\n" + lines[10][:15])
    called = []
    with SandboxPool(source, Policy(call_timeout=1), workers=2) as pool:
        again = pool.map([[i] for i in range(20)], results=results,
                         on_result=lambda i, r: called.append(i))
    assert sorted(called) == sorted(json.loads(line)["index"] for line in lines[10:])
    assert [r.value for r in again] == [r.value for r in out]


def test_a_resume_file_gives_a_changed_program_or_input_no_old_results(tmp_path):
    """The resume file was keyed by position only: a changed program silently got the old
    program's results. Each line now carries the hash of the program, policy and input."""
    results = tmp_path / "scores.jsonl"
    square = "def solve(n):\n    return n * n\n"
    cube = "def solve(n):\n    return n * n * n\n"
    with SandboxPool(square, workers=1) as pool:
        assert [r.value for r in pool.map([[i] for i in range(5)], results=results)] == \
            [0, 1, 4, 9, 16]
    called = []
    with SandboxPool(cube, workers=1) as pool:
        out = pool.map([[i] for i in range(5)], results=results,
                       on_result=lambda i, r: called.append(i))
    assert [r.value for r in out] == [0, 1, 8, 27, 64] and sorted(called) == list(range(5))
    called.clear()
    with SandboxPool(cube, workers=1) as pool:  # the same program again: all reused
        out = pool.map([[i] for i in range(5)], results=results,
                       on_result=lambda i, r: called.append(i))
    assert [r.value for r in out] == [0, 1, 8, 27, 64] and called == []
    with SandboxPool(cube, workers=1) as pool:  # one input changed at its position
        out = pool.map([[0], [1], [5], [3], [4]], results=results,
                       on_result=lambda i, r: called.append(i))
    assert [r.value for r in out] == [0, 1, 125, 27, 64] and called == [2]


def test_a_program_that_cannot_load_fails_every_input_once():
    out = score_program("import os\ndef solve(x):\n    return x\n", [[1], [2], [3]], workers=2)
    assert all(r.error.kind is ErrorKind.FORBIDDEN_IMPORT for r in out)


def test_numpy_only_when_the_task_allows_it():
    source = "import numpy as np\ndef solve(n):\n    return int(np.arange(n).sum())\n"
    assert _run(source, 5).error.kind is ErrorKind.FORBIDDEN_IMPORT
    allowed = _run(source, 5, policy=Policy(extra_modules=("numpy",)))
    assert allowed.ok and allowed.value == 10, allowed.error
    raw = _run("import numpy as np\ndef solve():\n    return np.int64(3)\n",
               policy=Policy(extra_modules=("numpy",)))
    assert raw.error.kind is ErrorKind.BAD_RETURN and "int64" in raw.error.message
    # the worker imports numpy with the host's OPENBLAS_NUM_THREADS=1 (it once cleared the
    # environment first: OpenBLAS started a thread per core, the worker was replaced before
    # every call as one that held a second thread, and where threads are refused numpy
    # could not load); and a thread of the worker's own, before the program, is not one a
    # program left
    with SandboxWorker(source, Policy(extra_modules=("numpy",))) as worker:
        assert [worker.call(n).value for n in (3, 4, 5)] == [3, 6, 10]
        assert worker.restarts == 0 and worker.idle_replacements == 0
    from pddlkit.sandbox import pids_cgroup  # no threads at all: the seccomp rule

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pids_cgroup, "create", lambda *args, **kwargs: None)
        policy = Policy(extra_modules=("numpy",), kernel_isolation=False)
        with SandboxWorker(source, policy) as worker:
            assert worker.call(5).value == 10, worker.call(5).error
            assert "no threads" in worker.isolation["guarantees"][
                "processes and threads per worker (a host pid each)"]


def test_the_kernel_filter_refuses_processes_and_sockets_but_not_threads():
    """The seccomp layer on its own, in a throwaway interpreter: what holds even for code the
    audit hook does not see."""
    sandbox_dir = Path(__file__).resolve().parent.parent / "pddlkit" / "sandbox"
    code = textwrap.dedent(f"""
        import os, socket, sys, threading
        sys.path.insert(0, {str(sandbox_dir)!r})
        import syscall_filter
        why = syscall_filter.install()
        if why:
            print("SKIP " + why); sys.exit(0)
        out = []
        for name, attempt in (("fork", os.fork), ("socket", lambda: socket.socket()),
                              ("exec", lambda: os.execv("/bin/true", ["true"]))):
            try:
                attempt(); out.append(name + " allowed")
            except OSError as e:
                out.append(name + " refused " + str(e.errno))
        t = threading.Thread(target=lambda: out.append("thread ran")); t.start(); t.join()
        print(" | ".join(out))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    if done.stdout.startswith("SKIP"):  # not Linux x86-64/AArch64: the audit hook alone refuses
        _missing(done.stdout.strip())  # a skip for users; CI (PDDLKIT_REQUIRE_CORPUS=1) fails
    assert done.stdout.strip() == "fork refused 1 | socket refused 1 | exec refused 1 | thread ran"


def test_workers_have_no_network_where_the_kernel_allows_a_namespace():
    if not network_isolated():  # a skip for users; CI (PDDLKIT_REQUIRE_CORPUS=1) fails
        _missing("no private network namespace here (unshare refused); sockets are still "
                 "refused by the audit hook and the seccomp filter")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    from pddlkit.sandbox.host import _network_wrapper

    code = (f"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), 2)\n"
            "    print('connected')\nexcept OSError as e:\n    print('refused', e.errno)\n")
    done = subprocess.run([*_network_wrapper(), "--", sys.executable, "-c", code],
                          capture_output=True, text=True, timeout=60)
    listener.close()
    assert done.stdout.startswith("refused"), done.stdout + done.stderr
    with SandboxWorker("def solve():\n    return 1\n") as worker:
        assert worker.call().value == 1
        assert worker.isolation["network_namespace"] is True


def test_program_errors_are_data_and_exceptions():
    error = ProgramError(ErrorKind.CRASH, "ValueError: x", 3, "    return f(x)")
    assert ProgramError.from_dict(json.loads(json.dumps(error.to_dict()))) == error
    with pytest.raises(ProgramError):
        raise error
    assert error.format().startswith("crash at line 3: ValueError: x\n    return f(x)")


def test_inputs_that_are_not_json_are_the_callers_error():
    with SandboxWorker("def solve(x):\n    return 1\n") as worker:
        with pytest.raises(TypeError, match="JSON values"):
            worker.call(object())
        assert worker.call(1).value == 1  # the worker is still fine
    with SandboxPool("def solve(x):\n    return 1\n", workers=2) as pool:
        with pytest.raises(TypeError, match="JSON values"):
            pool.map([[1], [object()]])


def test_code_that_runs_at_load_time_is_named_as_such():
    """Small models leave example calls at the top level: the error says it ran at load time
    and what to do, at the program's own line."""
    result = _run("def solve(grid):\n    return grid[0]\n\nprint(solve([]))\n")
    assert result.error.kind is ErrorKind.CRASH and result.error.line == 2  # where it broke
    assert result.error.message.startswith("when the program was loaded (module level, line "
                                           "4): IndexError")
    assert "keep only imports and definitions at the top level" in result.error.hint
    inside = _run("def solve(grid):\n    return grid[0]\n", [])  # a crash inside solve is not
    assert not inside.error.message.startswith("when the program was loaded")
