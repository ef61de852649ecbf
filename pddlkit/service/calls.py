"""Every tool call of ``pddlkit mcp`` in a worker process the server can kill (issue 70).

Why: a tool call is work chosen by a client the server does not trust. Before this, tools ran
in the server's own threads: an ``explain`` of 391 bytes ran past 45 s and went on burning CPU
after the client gave up, 41 slow calls filled the thread pool so that a ``check`` waited past
30 s, and a 483-byte input grew the server past 2 GiB. A thread cannot be stopped; a process can.

How (the planner worker pool, :mod:`pddlkit.planners.fd_worker`, is the model):

* **Workers**: ``python -c ...`` processes, each in its own session (so a kill takes the
  planners it started too), tied to the server by the kernel (``PR_SET_PDEATHSIG``), with
  ``RLIMIT_DATA`` at the memory limit. A worker reads a pickled request (the tool function, by
  module and name, and its arguments) from stdin and writes the JSON answer on a private copy of
  stdout; its own stdout goes to stderr, so nothing a tool prints can reach the MCP channel
  (stdio) or the reply pipe. Workers are reused between calls and replaced when killed.
* **Limits per call**: wall clock (:attr:`CallLimits.seconds`, 60 s by default, lowered per call
  by the ``call_timeout`` argument) and memory (:attr:`CallLimits.memory_mb`, the resident
  memory of the worker and every process it started, read every 0.1 s; ``RLIMIT_DATA`` stops
  a faster growth in between). A call past either is killed and answered as data
  (``call-time-limit``, ``call-memory-limit``); a call the client cancels is killed too. The
  server keeps serving: its own thread only waits.
* **Bounded queue**: at most :attr:`CallLimits.workers` calls run at once and
  :attr:`CallLimits.queue` wait; one more is refused at once as ``server-busy``, never left to
  hang.
* **Sessions**: a tool that keeps state between calls (``formalize_step``'s ``memory``)
  declares the argument that names its state (``function.session = "memory"``); the worker
  whose answer returned a handle keeps serving that handle, alone, until
  :attr:`CallLimits.sessions` newer ones push it out (then it is killed, and the handle is
  unknown). A session call that is killed loses its state, and says so.
"""

from __future__ import annotations

import importlib
import json
import os
import pickle
import signal
import struct
import sys
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

#: how often a running call's memory is read, in seconds
MEMORY_LOOK = 0.1
_FRAME = struct.Struct(">Q")


@dataclass(frozen=True)
class CallLimits:
    """What one server allows its clients (``pddlkit mcp --call-timeout ... --workers ...``)."""

    #: wall-clock seconds a call may run (the default, and the most a client may ask for)
    seconds: float = 60.0
    #: memory of a call's worker and the processes it started, in MiB
    memory_mb: int = 2048
    #: calls that run at once
    workers: int = field(default_factory=lambda: max(2, os.cpu_count() or 1))
    #: calls that may wait for a worker; one more is refused as server-busy
    queue: int = 16
    #: workers kept for tools with state between calls (formalize_step's memories)
    sessions: int = 8
    #: modules a worker imports as it starts (the tools' own), so a first call pays none
    preload: tuple = ("pddlkit.service.tools", "pddlkit.checks", "pddlkit.planners.api")

    def __post_init__(self) -> None:
        for name in ("seconds", "memory_mb", "workers", "queue", "sessions"):
            value = getattr(self, name)
            if not value > 0 and not (name == "queue" and value == 0):
                raise ValueError(f"CallLimits.{name} must be positive, got {value!r}")


def refusal(code: str, message: str, hint: str = "", argument: str = "") -> dict:
    """The answer of a call refused or stopped by the server (the tools' error shape)."""
    from .tools import Refused

    return Refused(code, message, hint, argument).answer()


# --------------------------------------------------------------------------- the worker side


def _worker_main() -> None:
    """A worker: answer requests from stdin until it closes (or the server dies)."""
    from pddlkit.processes import die_with_parent

    parent = int(os.environ.get("PDDLKIT_CALL_PARENT", "0") or 0)
    if parent:
        die_with_parent(parent)
    memory = int(os.environ.get("PDDLKIT_CALL_MEMORY_BYTES", "0") or 0)
    if memory:
        import resource

        resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
    for module in filter(None, os.environ.get("PDDLKIT_CALL_PRELOAD", "").split(",")):
        try:                # the tools' modules, imported while the worker waits, not
            importlib.import_module(module)     # during its first call
        except Exception:  # noqa: BLE001 - the call that needs it will say why
            pass
    replies = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)           # what a tool prints goes to stderr, never to the reply pipe
    sys.stdout = sys.stderr
    requests = sys.stdin.buffer
    while True:
        head = requests.read(_FRAME.size)
        if len(head) < _FRAME.size:
            return
        module, name, arguments = pickle.loads(requests.read(_FRAME.unpack(head)[0]))
        answer = _answer(module, name, arguments)
        try:
            data = json.dumps(answer, default=str).encode()
        except (TypeError, ValueError) as exc:
            data = json.dumps(refusal("internal-error", f"the answer is not JSON: {exc}",
                                      "this is pddlkit's fault: report it with the input"))\
                .encode()
        replies.write(_FRAME.pack(len(data)) + data)


def _answer(module: str, name: str, arguments: dict) -> dict:
    try:
        function = getattr(importlib.import_module(module), name)
        return function(**arguments)
    except MemoryError:
        return _memory_refusal(int(os.environ.get("PDDLKIT_CALL_MEMORY_BYTES", "0") or 0) >> 20)
    except Exception as exc:  # noqa: BLE001 - a tool never answers with a traceback
        return refusal("internal-error", f"{type(exc).__name__}: {exc}",
                       "this is pddlkit's fault: report it with the input")


def _memory_refusal(limit_mb: Optional[int] = None) -> dict:
    limit = f" of {limit_mb:,} MiB" if limit_mb else ""
    return refusal("call-memory-limit", f"the call needed more memory than the limit{limit} "
                   "and was stopped", "send a smaller task; an operator can raise it with "
                   "pddlkit mcp --call-memory-mb")


BOOT = "from pddlkit.service.calls import _worker_main; _worker_main()"


# --------------------------------------------------------------------------- the server side


def _tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and every process below it (0 when it is gone)."""
    total, todo, seen = 0, [pid], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            with open(f"/proc/{current}/statm", "rb") as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children", "rb") as f:
                    todo.extend(int(c) for c in f.read().split())
        except (OSError, ValueError, IndexError):
            continue
    return total


class _Worker:
    """One worker process and its pipes (driven from the server's event loop)."""

    def __init__(self, process, reader) -> None:
        self.process = process
        self.reader = reader
        self.lock = None   # an anyio.Lock, made in the loop: one call at a time

    @classmethod
    async def start(cls, limits: CallLimits) -> "_Worker":
        import anyio
        from anyio.streams.buffered import BufferedByteReceiveStream

        env = {**os.environ, "PDDLKIT_CALL_PARENT": str(os.getpid()),
               "PDDLKIT_CALL_MEMORY_BYTES": str(limits.memory_mb << 20),
               "PDDLKIT_CALL_PRELOAD": ",".join(limits.preload)}
        process = await anyio.open_process([sys.executable, "-c", BOOT], stdin=-1, stdout=-1,
                                           stderr=None, env=env, start_new_session=True)
        worker = cls(process, BufferedByteReceiveStream(process.stdout))
        worker.lock = anyio.Lock()
        return worker

    @property
    def alive(self) -> bool:
        return self.process.returncode is None

    async def ask(self, request: bytes) -> bytes:
        await self.process.stdin.send(_FRAME.pack(len(request)) + request)
        size = _FRAME.unpack(await self.reader.receive_exactly(_FRAME.size))[0]
        return await self.reader.receive_exactly(size)

    def kill(self) -> None:
        """The worker and everything it started (its own session), at once."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    async def reap(self) -> None:
        import anyio

        with anyio.CancelScope(shield=True), anyio.move_on_after(5):
            await self.process.wait()


class CallPool:
    """Runs tool calls in killable workers under :class:`CallLimits` (see the module text).

    ``await pool.call(function, arguments)`` answers the tool's dict, or a refusal dict when
    the server stopped or refused the call; it never raises for the call's faults."""

    def __init__(self, limits: CallLimits = CallLimits()) -> None:
        self.limits = limits
        self._idle: list[_Worker] = []
        self._sessions: "OrderedDict[str, _Worker]" = OrderedDict()
        self._admitted = 0     # calls running or waiting for a worker
        self._slots = None

    async def call(self, function: Callable[..., dict], arguments: dict,
                   seconds: Optional[float] = None) -> dict:
        import anyio

        if self._slots is None:
            self._slots = anyio.Semaphore(self.limits.workers)
        session = getattr(function, "session", None)
        handle = arguments.get(session) if session else None
        if handle:
            held = self._sessions.get(str(handle))
            if held is None or not held.alive:
                self._sessions.pop(str(handle), None)
                return refusal(f"unknown-{session}", f"no {session} {handle!r} on this server "
                               "(it restarted, the handle was pushed out by newer ones, or a "
                               "call on it was stopped)", f"start again without {session}",
                               session)
        if self._admitted >= self.limits.workers + self.limits.queue:
            running = min(self._admitted, self.limits.workers)
            return refusal("server-busy", f"the server is busy: {running} calls running, "
                           f"{self._admitted - running} waiting (at most {self.limits.workers} "
                           f"at once and {self.limits.queue} waiting)", "try again in a few "
                           "seconds; the operator can raise pddlkit mcp --workers / --queue")
        self._admitted += 1          # counted before any await: no race past the bound
        try:
            async with self._slots:
                return await self._run(function, arguments, seconds or self.limits.seconds,
                                       session, handle)
        finally:
            self._admitted -= 1

    async def _run(self, function, arguments: dict, seconds: float, session: Optional[str],
                   handle) -> dict:
        import anyio

        worker = self._sessions.get(str(handle)) if handle else None
        if worker is not None:
            self._sessions.move_to_end(str(handle))
        else:
            worker = self._idle.pop() if self._idle else await _Worker.start(self.limits)
        request = pickle.dumps((function.__module__, function.__name__, arguments))
        stopped, data = None, None
        async with worker.lock:
            try:
                async with anyio.create_task_group() as group:
                    async def watch_memory() -> None:
                        nonlocal stopped
                        limit = self.limits.memory_mb << 20
                        while True:
                            await anyio.sleep(MEMORY_LOOK)
                            if _tree_rss(worker.process.pid) > limit:
                                stopped = "memory"
                                group.cancel_scope.cancel()
                                return

                    async def ask() -> None:
                        nonlocal stopped, data
                        try:
                            with anyio.move_on_after(seconds) as clock:
                                data = await worker.ask(request)
                            if clock.cancelled_caught:
                                stopped = "time"
                        except (anyio.EndOfStream, anyio.BrokenResourceError,
                                anyio.IncompleteRead, anyio.ClosedResourceError, OSError):
                            stopped = stopped or "crash"
                        group.cancel_scope.cancel()

                    group.start_soon(watch_memory)
                    group.start_soon(ask)
            finally:
                if data is None:        # stopped, crashed, or cancelled by the client
                    worker.kill()
                    await worker.reap()
        if data is None:
            self._forget(worker)
            return self._stopped(stopped or "crash", seconds, worker, session, handle)
        answer = json.loads(data)
        kept = answer.get(session) if session and isinstance(answer, dict) else None
        if (answer.get("error") or {}).get("code") == "call-memory-limit":
            worker.kill()               # a MemoryError leaves a worker in no state to reuse
            await worker.reap()
            self._forget(worker)
        elif kept:
            self._keep_session(str(kept), worker)
        elif worker not in self._sessions.values():
            self._idle.append(worker)
        return answer

    def _stopped(self, why: str, seconds: float, worker: _Worker, session, handle) -> dict:
        lost = (f"; its {session} {handle!r} is gone with it" if handle else "")
        if why == "time":
            return refusal("call-time-limit", f"the call ran past its limit of {seconds:g} s "
                           f"and was stopped{lost}", "send a smaller task, or ask for more "
                           f"time with call_timeout (at most {self.limits.seconds:g} s on this "
                           "server)", "call_timeout")
        if why == "memory":
            answer = _memory_refusal(self.limits.memory_mb)
            answer["text"] += lost
            return answer
        code = worker.process.returncode
        return refusal("call-crashed", f"the call's worker process ended (exit status {code})"
                       f"{lost}", "this is pddlkit's fault or the machine's (out of memory?): "
                       "report it with the input")

    def _keep_session(self, handle: str, worker: _Worker) -> None:
        before = self._sessions.get(handle)
        if before is not None and before is not worker:   # a handle made twice: the new wins
            before.kill()
        self._sessions[handle] = worker
        self._sessions.move_to_end(handle)
        while len(self._sessions) > self.limits.sessions:
            _, oldest = self._sessions.popitem(last=False)
            if oldest not in self._sessions.values() and not oldest.lock.locked():
                oldest.kill()

    def _forget(self, worker: _Worker) -> None:
        for handle in [h for h, w in self._sessions.items() if w is worker]:
            del self._sessions[handle]
        if worker in self._idle:
            self._idle.remove(worker)

    async def warm(self, count: int = 2) -> None:
        """Start idle workers until ``count`` (at most ``workers``) wait, so the first calls
        pay no interpreter start (about half a second each on a busy 2-core machine)."""
        import anyio

        wanted = min(count, self.limits.workers) - len(self._idle)
        if wanted <= 0:
            return

        async def one() -> None:
            self._idle.append(await _Worker.start(self.limits))
        async with anyio.create_task_group() as group:
            for _ in range(wanted):
                group.start_soon(one)

    async def aclose(self) -> None:
        for worker in [*self._idle, *self._sessions.values()]:
            worker.kill()
            await worker.reap()
        self._idle.clear()
        self._sessions.clear()

