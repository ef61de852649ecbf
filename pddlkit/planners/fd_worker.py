"""A warm Fast Downward worker: ``python -m pddlkit.planners.fd_worker``.

Why it exists: through FD's driver a 5-block problem costs ~0.1-0.3 s, almost all of it
starting Python twice and importing the translator; the search itself takes milliseconds.
This worker imports the translator once and then serves requests over its stdin/stdout (one
JSON object per line). For each request it forks a child that translates (so no translator
state leaks between tasks and a memory limit or a crash only hits the child), then runs FD's
search binary on the result. It is single-threaded, so forking and ``preexec_fn`` are safe
here; the host process may have any number of threads.

While a request runs, the worker also watches its stdin: a ``cancel`` line from the host
(sent when pddlkit's own checks reject the task it started early) kills the translator or
search at once and answers ``{"cancelled": true}``, so the worker is free again in a millisecond
instead of finishing a translation nobody wants.

Exit codes in the reply follow Fast Downward's (driver/returncodes.py), so a plan produced
here and one produced by the driver are classified the same way.
"""

from __future__ import annotations

import gc
import glob
import json
import os
import resource
import select
import signal
import subprocess
import sys
import time
import traceback

TRANSLATE_UNSOLVABLE = 10
TRANSLATE_OUT_OF_MEMORY = 20
TRANSLATE_OUT_OF_TIME = 21
SEARCH_OUT_OF_TIME = 23
TRANSLATE_CRITICAL_ERROR = 30
TRANSLATE_INPUT_ERROR = 31
SEARCH_PLAN_FOUND_AND_OUT_OF_TIME = 2

UNSOLVABLE_MARKERS = ("Generating unsolvable task",)


def _limit_memory(limit: int | None) -> None:
    if limit:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


class _Input:
    """Line reader over fd 0 that can also be polled while a child runs (no stdio buffering,
    so select() on the descriptor never misses a line already read into a buffer)."""

    def __init__(self) -> None:
        self.buffer = b""
        self.eof = False

    def fill(self) -> None:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            self.eof = True
        self.buffer += chunk

    def pop_line(self) -> str | None:
        if b"\n" not in self.buffer:
            return None
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode(errors="replace")

    def cancelled(self) -> bool:
        """Consume cancel lines; True if the host asked to cancel or went away."""
        found = self.eof
        while b"cancel\n" in self.buffer:
            self.buffer = self.buffer.replace(b"cancel\n", b"", 1)
            found = True
        return found

    def readline(self) -> str | None:
        while True:
            line = self.pop_line()
            if line is not None:
                return line
            if self.eof:
                return None
            self.fill()


INPUT = _Input()
CANCELLED = "cancelled"
TIMED_OUT = "timed-out"


def _wait(pid: int, deadline: float | None) -> tuple[int | None, str | None]:
    """Wait for child ``pid`` until ``deadline`` or a cancel from the host:
    (exit code or -signal, None) when it ended, (None, TIMED_OUT or CANCELLED) otherwise."""
    fd = None
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status), None
            if INPUT.cancelled():
                return None, CANCELLED
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return None, TIMED_OUT
            watch = [0] if fd is None else [0, fd]
            wait = (min(remaining, 3600.0) if remaining is not None else 3600.0) \
                if fd is not None else (0.002 if remaining is None else min(0.002, remaining))
            ready, _, _ = select.select(watch, [], [], wait)
            if 0 in ready:
                INPUT.fill()
    finally:
        if fd is not None:
            os.close(fd)


def _translate_child(args: list[str], log_path: str, memory_limit: int | None) -> None:
    """Runs in the forked child: the translator's own main, with its own exit codes."""
    code = 0
    try:
        out = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(out, 1)
        os.dup2(out, 2)
        sys.stdout = os.fdopen(1, "w", buffering=1)
        sys.stderr = sys.stdout
        _limit_memory(memory_limit)
        # The child lives for one translation: cyclic garbage is freed when it exits, so the
        # collector's passes over the translator's many small objects are pure overhead.
        gc.disable()
        from fast_downward.translate import pddl_parser
        from fast_downward.translate.main import main
        from fast_downward.translate.options import set_options

        set_options(args)
        try:
            main()
        except MemoryError:
            print("Translator ran out of memory")
            code = TRANSLATE_OUT_OF_MEMORY
        except pddl_parser.ParseError as e:
            print(e)
            code = TRANSLATE_INPUT_ERROR
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else TRANSLATE_CRITICAL_ERROR)
        if not isinstance(e.code, int) and e.code is not None:
            print(e.code)
    except BaseException:
        traceback.print_exc()
        code = TRANSLATE_CRITICAL_ERROR
    finally:
        try:
            sys.stdout.flush()
        except Exception:
            pass
        os._exit(code)


def _read(path: str) -> str:
    try:
        with open(path, errors="replace") as fh:
            return fh.read()
    except OSError:
        return ""


def handle(req: dict) -> dict:
    workdir = req["workdir"]
    deadline = time.monotonic() + req["timeout"] if req.get("timeout") else None
    memory = req.get("memory_limit")
    reply: dict = {"translate_seconds": 0.0, "search_seconds": 0.0, "plans": [],
                   "signal": None, "stage": "translate"}
    sas = os.path.join(workdir, "output.sas")
    tlog = os.path.join(workdir, "translate.log")
    args = [req["domain"], req["problem"], "--sas-file", sas] + req.get("translate_options", [])
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:  # child
        _translate_child(args, tlog, memory)
    code, stopped = _wait(pid, deadline)
    if stopped:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        if stopped == CANCELLED:
            return {"cancelled": True}
        code = TRANSLATE_OUT_OF_TIME
    reply["translate_seconds"] = time.monotonic() - t0
    reply["translate_log"] = _read(tlog)
    if code is not None and code < 0:
        reply["signal"] = signal.Signals(-code).name
    if code != 0:
        reply["code"] = code
        return reply
    if any(m in reply["translate_log"] for m in UNSOLVABLE_MARKERS):
        reply["code"] = TRANSLATE_UNSOLVABLE
        return reply

    reply["stage"] = "search"
    slog = os.path.join(workdir, "search.log")
    plan_file = os.path.join(workdir, "sas_plan")
    t1 = time.monotonic()
    with open(sas) as stdin, open(slog, "w") as out:
        proc = subprocess.Popen(
            [req["search_binary"], *req["search_options"], "--internal-plan-file", plan_file],
            stdin=stdin, stdout=out, stderr=subprocess.STDOUT, cwd=workdir,
            preexec_fn=(lambda: _limit_memory(memory)) if memory else None)
        code, stopped = _wait(proc.pid, deadline)
        if stopped:
            proc.kill()
            proc.wait()
            if stopped == CANCELLED:
                return {"cancelled": True}
            code = SEARCH_OUT_OF_TIME
        else:
            proc.returncode = code  # reaped by _wait; tell Popen so it does not wait again
    reply["search_seconds"] = time.monotonic() - t1
    reply["search_log"] = _read(slog)
    plans = sorted(glob.glob(plan_file + ".*"), key=lambda p: int(p.rsplit(".", 1)[1])
                   if p.rsplit(".", 1)[1].isdigit() else -1)
    if os.path.exists(plan_file):
        plans.append(plan_file)
    reply["plans"] = plans
    if code is not None and code < 0:
        reply["signal"] = signal.Signals(-code).name
    if code == SEARCH_OUT_OF_TIME and plans:
        code = SEARCH_PLAN_FOUND_AND_OUT_OF_TIME
    reply["code"] = code
    return reply


def main() -> None:
    # Import the translator now: this is the start-up cost every later request skips.
    import fast_downward.translate.main  # noqa: F401  (imports the whole translator)

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the host decides when we stop
    gc.freeze()  # keep the imported translator out of the collector's work in every child
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing but replies goes to the host's pipe
    out.write(json.dumps({"ready": os.getpid()}) + "\n")
    out.flush()
    while True:
        line = INPUT.readline()
        if line is None:  # the host closed our stdin: it is gone or done with us
            return
        if not line.strip() or line.strip() == "cancel":  # a cancel that came too late
            continue
        try:
            reply = handle(json.loads(line))
        except Exception:
            reply = {"code": TRANSLATE_CRITICAL_ERROR, "stage": "worker",
                     "translate_log": traceback.format_exc(), "plans": []}
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
