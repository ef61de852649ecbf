"""The host side: one persistent worker process that loads a program once and calls its entry
function on many inputs.

``SandboxWorker(source, policy).call(*args)`` returns a :class:`CallResult`; it never raises for
the program's faults. A call that runs past its wall-clock limit kills the worker's whole
process group; a worker that dies (CPU limit, a crash in native code, a kill from outside) is
reported as data, and the next call starts a fresh worker and loads the program again. The
worker's scratch directory is removed on close, by the worker itself when the host dies, and
by the next pddlkit process otherwise (:mod:`pddlkit.planners.tempdirs`).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional

from ..planners.tempdirs import make_workdir, remove_workdir
from ..processes import kill_group
from .errors import ErrorKind, ProgramError
from .policy import DEFAULT_POLICY, Policy

HERE = os.path.dirname(os.path.abspath(__file__))
# the worker and guard modules are imported from this folder as top-level modules, without
# importing pddlkit (whose planners bring subprocess and sqlite3 into the worker's process)
BOOT = ("import sys; sys.path.insert(0, sys.argv.pop(1)); "
        "from worker import main; main(sys.argv)")
LOG_TAIL = 2000


@dataclass
class CallResult:
    """One call's outcome: ``value`` when ``ok``, else ``error``; what it printed, cut at the
    policy's cap (``dropped`` characters beyond it), and its time inside the worker."""

    ok: bool
    value: Any = None
    error: Optional[ProgramError] = None
    stdout: str = ""
    dropped: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {"ok": self.ok, "value": self.value,
                "error": self.error.to_dict() if self.error else None,
                "stdout": self.stdout, "dropped": self.dropped, "seconds": self.seconds}

    @classmethod
    def from_dict(cls, data: dict) -> "CallResult":
        error = ProgramError.from_dict(data["error"]) if data.get("error") else None
        return cls(bool(data["ok"]), data.get("value"), error, data.get("stdout", ""),
                   int(data.get("dropped", 0)), float(data.get("seconds", 0.0)))


class _WorkerGone(Exception):
    def __init__(self, error: ProgramError) -> None:
        super().__init__(error.message)
        self.error = error


@lru_cache(maxsize=1)
def _network_wrapper() -> tuple[str, ...]:
    """``unshare --net`` (``-rn`` when not root) if this kernel lets us make a private network
    namespace; otherwise nothing, and the audit hook alone refuses sockets."""
    tool = shutil.which("unshare")
    if not tool:
        return ()
    wrapper = (tool, "--net") if os.geteuid() == 0 else (tool, "--map-root-user", "--net")
    try:
        probe = subprocess.run([*wrapper, "--", sys.executable, "-c", "pass"], timeout=10,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return ()
    return wrapper if probe.returncode == 0 else ()


def network_isolated() -> bool:
    """Whether workers get a private network namespace here (see :func:`_network_wrapper`)."""
    return bool(_network_wrapper())


class SandboxWorker:
    """A program loaded in one worker process (started on first use)."""

    def __init__(self, source: str, policy: Policy = DEFAULT_POLICY) -> None:
        self.source = source
        self.policy = policy
        self.proc: Optional[subprocess.Popen] = None
        self.base: Optional[str] = None      # holds scratch/ and worker.log
        self.scratch: Optional[str] = None
        self.load_error: Optional[ProgramError] = None
        self._load_failed_for_good = False
        self.restarts = 0  # workers started again after a time-out or a crash
        self._starts = 0
        self.isolation: dict = {}
        self._r = self._w = None
        self._buffer = b""
        self._log = None

    # ------------------------------------------------------------------ lifecycle

    def _start(self) -> None:
        self.base = make_workdir()
        self.scratch = os.path.join(self.base, "scratch")
        os.mkdir(self.scratch)
        host_r, worker_w = os.pipe()
        worker_r, host_w = os.pipe()
        self._log = open(os.path.join(self.base, "worker.log"), "w+b")
        wrapper = _network_wrapper() if self.policy.network_namespace else ()
        command = [*wrapper, *(["--"] if wrapper else []), sys.executable, "-I", "-c", BOOT,
                   HERE, str(worker_r), str(worker_w), self.scratch]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "OPENBLAS_NUM_THREADS": "1",
               "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "LANG": "C.UTF-8"}
        for key in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
            if key in os.environ:
                env[key] = os.environ[key]
        try:
            self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=self._log,
                                         pass_fds=(worker_r, worker_w), cwd=self.scratch,
                                         env=env, start_new_session=True)
        finally:
            os.close(worker_r)
            os.close(worker_w)
        self._r, self._w, self._buffer = host_r, host_w, b""
        self._send({**self.policy.to_dict()})
        ready = self._receive(time.monotonic() + self.policy.load_timeout)
        if "ready" not in ready:
            raise _WorkerGone(self._crash("the sandbox worker did not start"))
        #: what guards this worker beyond the audit hook: the seccomp filter (True, or why
        #: not) and the private network namespace
        self.isolation = {"seccomp": ready.get("seccomp"), "network_namespace": bool(wrapper)}

    def _ensure_loaded(self) -> Optional[ProgramError]:
        if self._load_failed_for_good:
            return self.load_error
        if self.proc is not None and self.proc.poll() is None:
            return self.load_error
        if self.proc is not None:
            self._cleanup()
        if self._starts:
            self.restarts += 1
        self._starts += 1
        self._start()
        self._send({"op": "load", "source": self.source})
        reply = self._receive(time.monotonic() + self.policy.load_timeout, loading=True)
        self.load_error = None if reply.get("ok") else ProgramError.from_dict(reply["error"])
        return self.load_error

    def load(self) -> Optional[ProgramError]:
        """Start the worker and load the program: its error (syntax, a forbidden import at
        module level, no entry function), or None."""
        try:
            return self._ensure_loaded()
        except _WorkerGone as gone:  # the module-level code hung or killed the worker
            self.load_error = gone.error
            self._load_failed_for_good = True  # it would again: do not retry on every call
            self._cleanup()
            return gone.error

    def call(self, *args: Any, **kwargs: Any) -> CallResult:
        """Call the program's entry function; never raises for the program's faults."""
        error = self.load()
        if error is not None:
            return CallResult(False, error=error)
        start = time.monotonic()
        try:
            self._send({"op": "call", "args": list(args), "kwargs": kwargs})
        except (TypeError, ValueError) as exc:  # the host's input is not JSON
            raise TypeError(f"sandbox call arguments must be JSON values: {exc}") from None
        except _WorkerGone as gone:
            self._cleanup()
            return CallResult(False, error=gone.error, seconds=time.monotonic() - start)
        try:
            reply = self._receive(start + self.policy.call_timeout)
        except _WorkerGone as gone:
            self._cleanup()
            return CallResult(False, error=gone.error, seconds=time.monotonic() - start)
        return self._result(reply)

    def call_many(self, items: list[tuple[list, dict]]) -> list[CallResult]:
        """Call the entry function on each (args, kwargs) in one round trip; each item keeps
        its own time limit. A worker lost mid-batch is replaced and the rest retried."""
        results: list[CallResult] = []
        while len(results) < len(items):
            error = self.load()
            if error is not None:
                return results + [CallResult(False, error=error)] * (len(items) - len(results))
            rest = items[len(results):]
            try:
                self._send({"op": "calls", "items": [[list(a), dict(k)] for a, k in rest]})
            except (TypeError, ValueError) as exc:  # the host's inputs are not JSON
                raise TypeError(f"sandbox call arguments must be JSON values: {exc}") from None
            except _WorkerGone as gone:
                self._cleanup()
                results.append(CallResult(False, error=gone.error))
                continue
            for _ in rest:
                start = time.monotonic()
                try:
                    reply = self._receive(start + self.policy.call_timeout)
                except _WorkerGone as gone:
                    self._cleanup()
                    results.append(CallResult(False, error=gone.error,
                                              seconds=time.monotonic() - start))
                    break
                results.append(self._result(reply))
        return results

    @staticmethod
    def _result(reply: dict) -> CallResult:
        error = None if reply.get("ok") else ProgramError.from_dict(reply["error"])
        return CallResult(bool(reply.get("ok")), reply.get("value"), error,
                          reply.get("stdout", ""), int(reply.get("dropped", 0)),
                          float(reply.get("seconds", 0.0)))

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.write(self._w, b'{"op": "exit"}\n')
                self.proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._cleanup()

    def __enter__(self) -> "SandboxWorker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort at interpreter exit
        try:
            self.close()
        except Exception:
            pass

    # ------------------------------------------------------------------ pipes

    def _send(self, data: dict) -> None:
        payload = (json.dumps(data, allow_nan=False) + "\n").encode()
        try:
            view = memoryview(payload)
            while view:
                view = view[os.write(self._w, view):]
        except (BrokenPipeError, OSError):
            raise _WorkerGone(self._crash("the sandbox worker exited")) from None

    def _receive(self, deadline: float, loading: bool = False) -> dict:
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                limit = self.policy.load_timeout if loading else self.policy.call_timeout
                self._kill()
                raise _WorkerGone(ProgramError(
                    ErrorKind.TIMEOUT, f"the program ran past its time limit of {limit:g} s "
                    "(wall clock) and was stopped"))
            ready, _, _ = select.select([self._r], [], [], min(remaining, 3600.0))
            if not ready:
                continue
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                raise _WorkerGone(self._crash("the sandbox worker exited"))
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            reply = json.loads(line)
        except ValueError:
            self._kill()
            raise _WorkerGone(ProgramError(ErrorKind.CRASH, "the worker's reply was garbled "
                                           "(the program wrote to the sandbox's pipe)"))
        if not isinstance(reply, dict):
            self._kill()
            raise _WorkerGone(ProgramError(ErrorKind.CRASH, "the worker's reply was garbled"))
        return reply

    def _crash(self, what: str) -> ProgramError:
        """Why the worker is gone: its exit status in words, and its log's last lines."""
        code = None
        if self.proc is not None:
            try:
                code = self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._kill()
                code = self.proc.returncode
        if code is not None and code < 0:
            sig = signal.Signals(-code).name
            if sig == "SIGXCPU":
                return ProgramError(ErrorKind.TIMEOUT, f"the program used more than its CPU "
                                    f"limit of {self.policy.cpu_seconds:g} s and was stopped")
            if sig == "SIGXFSZ":
                return ProgramError(ErrorKind.FORBIDDEN_OPERATION, "the program wrote a file "
                                    f"larger than {self.policy.max_file_bytes} bytes")
            detail = f"{what}: killed by {sig}"
        else:
            detail = f"{what} with code {code}"
        tail = self._log_tail()
        return ProgramError(ErrorKind.CRASH, detail + (f"; its last output: {tail}" if tail
                                                       else ""))

    def _log_tail(self) -> str:
        if self._log is None:
            return ""
        try:
            self._log.flush()
            self._log.seek(0, os.SEEK_END)
            size = self._log.tell()
            self._log.seek(max(0, size - LOG_TAIL))
            return " ".join(self._log.read().decode(errors="replace").split())[-LOG_TAIL:]
        except (OSError, ValueError):
            return ""

    def _kill(self) -> None:
        if self.proc is not None:
            kill_group(self.proc)

    def _cleanup(self) -> None:
        self._kill()
        for fd in (self._r, self._w):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._r = self._w = None
        if self._log is not None:
            self._log.close()
            self._log = None
        if self.base:
            remove_workdir(self.base)
            self.base = self.scratch = None
        self.proc = None
