"""Host side of the warm planner workers: a small pool, safe across threads and forks.

Two kinds serve requests line by line: Fast Downward's (:mod:`pddlkit.planners.fd_worker`,
:data:`POOL`) and unified-planning's (:mod:`pddlkit.planners.up_engine` ``--serve``,
:data:`UP_POOL`), which keeps Python and unified-planning imported between calls, so a numeric
plan through ENHSP does not pay for them every time.

Each call checks a worker out of the pool, so concurrent threads never share one; a process
created by ``fork`` (multiprocessing) notices that the pool belongs to its parent and starts
its own. A worker that does not answer in time, or dies, is killed with its whole process
group (translator child and search binary included) and replaced on the next call.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from typing import Optional

from ..processes import kill_group


#: the longest single select() wait (larger values overflow on some platforms)
MAX_WAIT = 3600.0


class WorkerDied(RuntimeError):
    """The worker process exited or was killed while serving a request."""


class WorkerTimeout(RuntimeError):
    """The worker did not answer within the deadline (it has been killed)."""


class Worker:
    """One worker process running ``module`` (its greeting is ``{"ready": pid}``)."""

    def __init__(self, module: str = "pddlkit.planners.fd_worker",
                 args: tuple[str, ...] = ()) -> None:
        env = dict(os.environ)
        # the worker must import this very pddlkit, also from a source checkout
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module, *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True, env=env, text=True, bufsize=1)
        self._buffer = ""
        ready = self._readline(time.monotonic() + 60)
        if "ready" not in json.loads(ready):
            raise WorkerDied(f"unexpected greeting from the {module} worker: {ready!r}")

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def _readline(self, deadline: Optional[float]) -> str:
        fd = self.proc.stdout.fileno()
        while "\n" not in self._buffer:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            # waits are cut into slices select() can take, whatever the deadline
            ready, _, _ = select.select([fd], [], [], None if remaining is None
                                        else min(remaining, MAX_WAIT))
            if not ready:
                if remaining is not None and remaining > MAX_WAIT:
                    continue
                self.kill()
                raise WorkerTimeout("the Fast Downward worker did not answer in time")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                code = self.proc.wait()
                raise WorkerDied(_describe_exit(code))
            self._buffer += chunk.decode(errors="replace")
        line, self._buffer = self._buffer.split("\n", 1)
        return line

    def send(self, payload: dict) -> None:
        """Start a request; its reply is read by :meth:`receive` (or dropped by :meth:`cancel`)."""
        self._write(json.dumps(payload) + "\n")

    def receive(self, deadline: Optional[float]) -> dict:
        return json.loads(self._readline(deadline))

    def request(self, payload: dict, deadline: Optional[float]) -> dict:
        self.send(payload)
        return self.receive(deadline)

    def cancel(self) -> None:
        """Stop the running request and drop its reply; a worker that does not obey is killed."""
        try:
            self._write("cancel\n")
            self.receive(time.monotonic() + 10)
        except (WorkerDied, WorkerTimeout, ValueError):
            self.kill()

    def _write(self, line: str) -> None:
        try:
            self.proc.stdin.write(line)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise WorkerDied(_describe_exit(self.proc.wait())) from None

    def kill(self) -> None:
        kill_group(self.proc)
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except Exception:
                pass


def _describe_exit(code: int) -> str:
    if code < 0:
        return f"the Fast Downward worker was killed by signal {signal.Signals(-code).name}"
    return f"the Fast Downward worker exited with code {code}"


class WorkerPool:
    """Idle workers, at most ``max_idle`` kept; more are started when threads need them."""

    def __init__(self, max_idle: Optional[int] = None, module: str = "pddlkit.planners.fd_worker",
                 args: tuple[str, ...] = ()) -> None:
        self.max_idle = max_idle or max(2, os.cpu_count() or 2)
        self.module, self.args = module, args
        self._idle: list[Worker] = []
        self._lock = threading.Lock()
        self._pid = os.getpid()

    def acquire(self) -> Worker:
        with self._lock:
            if self._pid != os.getpid():  # forked: the parent's workers are not ours
                self._idle = []
                self._pid = os.getpid()
            while self._idle:
                w = self._idle.pop()
                if w.alive:
                    return w
        return Worker(self.module, self.args)

    def release(self, worker: Worker, healthy: bool = True) -> None:
        """Give a worker back; one that failed in any way (``healthy=False``) is killed, so
        the next call starts a fresh one instead of inheriting its state."""
        if not worker.alive:
            return
        if not healthy:
            worker.kill()
            return
        with self._lock:
            if self._pid == os.getpid() and len(self._idle) < self.max_idle:
                self._idle.append(worker)
                return
        worker.kill()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        if self._pid == os.getpid():
            for w in idle:
                w.kill()

    def warm(self, n: int = 1) -> None:
        """Start ``n`` workers ahead of time, so the first plan call is already fast."""
        started = [Worker(self.module, self.args) for _ in range(n)]
        for w in started:
            self.release(w)


POOL = WorkerPool()
atexit.register(POOL.close)
#: unified-planning's workers: one idle at most (each holds a Python with unified-planning)
UP_POOL = WorkerPool(1, "pddlkit.planners.up_engine", ("--serve",))
atexit.register(UP_POOL.close)
