"""The host side: one persistent worker process that loads a program once and calls its entry
function on many inputs.

``SandboxWorker(source, policy).call(*args)`` returns a :class:`CallResult`; it never raises for
the program's faults. A worker that dies (CPU limit, a crash in native code, a kill from
outside) is reported as data, and the next call starts a fresh worker and loads the program
again.

The limits a program could switch off from inside are kept here, in the host, or by the kernel:

* the wall clock and the CPU time of each call are watched by the host, which kills the worker
  (the CPU time is read from the kernel's account of the worker, ``/proc/PID/stat``, so a
  program that ignores SIGXCPU or spins inside one C call is stopped all the same);
* every request carries a fresh id that its reply must echo: a line the host did not ask for
  (a program writing to the reply pipe) ends the worker with a ``forbidden-operation`` error,
  and data left on the pipe before a request gets the worker replaced;
* a worker that has more threads when it goes idle (after a call's reply, or a batch's
  last) than it had when it was ready, before the program, is ended at once, as the kernel
  counts them (``/proc/PID/stat``), not at the next call: a thread a program left running
  once burned 3.3 s of CPU in 6 s of an idle worker. The call keeps its answer and its
  result says why the worker went (``CallResult.retired``);
* decoding a reply costs the host a bounded amount (:meth:`SandboxWorker._decode_value`):
  the value is read into a buffer of its announced size, its elements and depth counted
  before it is decoded (:func:`.wire.shape`), and it is decoded with the garbage collector
  paused, so the host holds at most two copies of the reply at a time (the value being one
  of them when it is a string), and the time is linear in the reply: a 16 MiB reply once
  took the host to 828 MiB, and a ``map()`` of three to 2,376 MiB and 96 s of CPU, which no
  call's time limit covers (with the collector off the same decoding took 1.5 s, on 42 s);
* every worker's processes and threads are capped (``Policy.max_tasks``) by a pids cgroup,
  RLIMIT_NPROC or the seccomp filter (:mod:`.pids_cgroup`): each takes a host pid;
* workers are started from one long-lived thread, because the kernel's parent-death signal
  (bubblewrap's ``--die-with-parent``, the worker's PR_SET_PDEATHSIG) follows the *thread*
  that started a process: a worker started from a pool's short-lived thread would be killed
  when that thread ended.

Inside bubblewrap (:mod:`.kernel`) the scratch folder is a tmpfs in the worker's own mount
namespace and the log an anonymous file: nothing is left on disk, whatever happens to the host.
Without bubblewrap the scratch folder is on the host's disk: removed on close, and by the next
pddlkit process when the host was killed (:mod:`pddlkit.planners.tempdirs`).
"""

from __future__ import annotations

import gc
import json
import logging
import os
import queue
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional

from ..planners.tempdirs import make_workdir, remove_workdir
from ..processes import kill_group
from . import kernel, memory_cgroup, pids_cgroup
from . import wire
from .errors import ErrorKind, ProgramError
from .policy import DEFAULT_POLICY, Policy
from .syscall_filter import ARCHES, bpf_bytes

HERE = os.path.dirname(os.path.abspath(__file__))
# the worker runs from this folder without importing pddlkit (whose planners bring subprocess
# and sqlite3 into the worker's process), with a copy of the builtins taken before any program
# exists: a program that rewrites the builtins does not rewrite the worker's (see .worker)
BOOT = ("import sys, builtins; d = sys.argv.pop(1); p = d + '/worker.py'; "
        "g = {'__name__': 'worker', '__file__': p, '__builtins__': dict(builtins.__dict__)}; "
        "exec(compile(open(p, 'rb').read(), p, 'exec'), g); g['main'](sys.argv, d)")
LOG_TAIL = 2000
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
CORES = os.cpu_count() or 1
#: a call shorter than this costs no CPU reading at all; what a longer one used before the
#: first reading is counted as this much (at most this times the cores can go uncounted)
FIRST_CPU_LOOK = 0.02
#: CPU seconds a worker may use between a reply and the next request (writing the reply and
#: waiting for the next line cost far less); more, or a thread beyond its own, and it is replaced
IDLE_CPU = 0.1

log = logging.getLogger("pddlkit.sandbox")

_gc_lock = threading.Lock()
_gc_pauses = 0
_gc_was_enabled = False


@contextmanager
def _gc_paused():
    """The garbage collector off while a reply is decoded, back on when the last thread
    decoding one is done. Decoding makes one container per JSON list or dict, and each
    allocation counts towards a collection that walks the host's objects: a ``map()`` of
    three 16 MiB replies took 1.5 s to decode with the collector off and 42 s with it on."""
    global _gc_pauses, _gc_was_enabled
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_was_enabled:
                gc.enable()


@dataclass
class CallResult:
    """One call's outcome: ``value`` when ``ok``, else ``error``; what it printed, cut at the
    policy's cap (``dropped`` characters beyond it), and its time inside the worker.
    ``retired`` says why the worker was ended right after this call ('' when it was kept):
    the program left a thread running (the next call gets a fresh worker)."""

    ok: bool
    value: Any = None
    error: Optional[ProgramError] = None
    stdout: str = ""
    dropped: int = 0
    seconds: float = 0.0
    retired: str = ""

    def to_dict(self) -> dict:
        data = {"ok": self.ok, "value": self.value,
                "error": self.error.to_dict() if self.error else None,
                "stdout": self.stdout, "dropped": self.dropped, "seconds": self.seconds}
        if self.retired:
            data["retired"] = self.retired
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "CallResult":
        error = ProgramError.from_dict(data["error"]) if data.get("error") else None
        return cls(bool(data["ok"]), data.get("value"), error, data.get("stdout", ""),
                   int(data.get("dropped", 0)), float(data.get("seconds", 0.0)),
                   str(data.get("retired") or ""))


class _WorkerGone(Exception):
    def __init__(self, error: ProgramError) -> None:
        super().__init__(error.message)
        self.error = error

    def __reduce__(self):
        # rebuilt from its error, so it pickles like every other pddlkit exception
        return type(self), (self.error,)


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
    """Whether workers get a private network namespace here (bubblewrap's, or ``unshare``'s)."""
    return not kernel.unavailable() or bool(_network_wrapper())


class _Spawner:
    """Starts every worker from one thread that lives as long as the process (see the module
    docstring: the parent-death signal follows the starting thread)."""

    def __init__(self) -> None:
        self._jobs: "queue.Queue[tuple[Future, list, dict]]" = queue.Queue()
        self._thread: Optional[threading.Thread] = None
        self._lock = threading.Lock()

    def popen(self, command: list, **options) -> subprocess.Popen:
        if threading.current_thread() is threading.main_thread():
            return subprocess.Popen(command, **options)
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._serve, name="sandbox-spawner",
                                                daemon=True)
                self._thread.start()
        job: Future = Future()
        self._jobs.put((job, command, options))
        return job.result()

    def _serve(self) -> None:
        while True:
            job, command, options = self._jobs.get()
            try:
                job.set_result(subprocess.Popen(command, **options))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                job.set_exception(exc)


_SPAWNER = _Spawner()


def _stat(pid: Optional[int]) -> Optional[list[bytes]]:
    """``/proc/PID/stat``'s fields after the command name (state first), or None."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _cpu_seconds(pid: Optional[int]) -> Optional[float]:
    """The CPU time (user + system, all threads) the kernel has charged to ``pid``."""
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS if fields else None


def _cpu_and_threads(pid: Optional[int]) -> tuple[Optional[float], Optional[int]]:
    """(CPU seconds, thread count) of ``pid`` from one read of ``/proc/PID/stat``."""
    fields = _stat(pid)
    if not fields:
        return None, None
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS, int(fields[17])


def _running(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie."""
    fields = _stat(pid)
    return bool(fields) and fields[0] != b"Z"


def _seccomp_pipe() -> Optional[int]:
    """A pipe's read end holding the seccomp filter that bubblewrap loads before the
    interpreter starts (``execve`` still open for it), or None on an architecture without
    one."""
    machine = os.uname().machine
    if machine not in ARCHES:
        return None
    read, write = os.pipe()
    os.write(write, bpf_bytes(machine, allow_exec=True))  # ~150 bytes: within a pipe's buffer
    os.close(write)
    return read


def _own_namespaces(pid: Optional[int]) -> list[str]:
    """The namespaces ``pid`` does not share with this process."""
    if pid is None:
        return []
    own = []
    for name in ("cgroup", "ipc", "mnt", "net", "pid", "user", "uts"):
        try:
            if os.readlink(f"/proc/{pid}/ns/{name}") != os.readlink(f"/proc/self/ns/{name}"):
                own.append(name)
        except OSError:
            pass
    return own


def _sandbox_init(info_r: int) -> Optional[int]:
    """The host pid of bubblewrap's init (the program's parent), from its ``--info-fd``
    report; closes the descriptor."""
    try:
        ready, _, _ = select.select([info_r], [], [], 0)
        data = os.read(info_r, 1 << 16) if ready else b""
    finally:
        os.close(info_r)
    try:
        return json.loads(data or b"{}").get("child-pid")
    except (ValueError, AttributeError):
        return None


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(x) for x in fh.read().split()]
    except (OSError, ValueError):
        return []


class SandboxWorker:
    """A program loaded in one worker process (started on first use).

    ``isolation`` (after the first start) says what guards the worker and, under
    ``"guarantees"``, which of them the kernel keeps, which the host, and which only the Python
    layers inside the worker (which a determined program can switch off)."""

    def __init__(self, source: str, policy: Policy = DEFAULT_POLICY) -> None:
        self.source = source
        self.policy = policy
        self.proc: Optional[subprocess.Popen] = None
        self.pid: Optional[int] = None       # the program's process, as the host sees it
        self.base: Optional[str] = None      # the host folder holding scratch/ (no bubblewrap)
        self.scratch: Optional[str] = None   # the scratch folder, as the program sees it
        self.load_error: Optional[ProgramError] = None
        self._load_failed_for_good = False
        self.restarts = 0  # workers started again after a time-out, a crash or a violation
        self._starts = 0
        self.isolation: dict = {}
        self._r = self._w = None
        self._buffer = bytearray()
        self._log = None
        self._expect: Optional[str] = None
        self._in_kernel = False
        self._idle_cpu: Optional[float] = None  # the worker's CPU seconds at its last reply
        self._cgroup: Optional[memory_cgroup.MemoryCgroup] = None  # where the host has one
        self._pids: Optional[pids_cgroup.PidsCgroup] = None  # where the host has one
        self._tasks = ""  # what caps the worker's processes and threads (pids_cgroup)
        self._base_threads = 1  # the worker's threads when it was ready, before the program
        self.idle_replacements = 0  # workers replaced for CPU or threads between calls

    # ------------------------------------------------------------------ lifecycle

    def _start(self) -> None:
        in_kernel = self._in_kernel = kernel.choose(self.policy)  # raises if required, missing
        host_r, worker_w = os.pipe()
        worker_r, host_w = os.pipe()
        self._log = tempfile.TemporaryFile()  # anonymous: nothing on disk once it is closed
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "OPENBLAS_NUM_THREADS": "1",
               "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "LANG": "C.UTF-8"}
        for key in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
            if key in os.environ:
                env[key] = os.environ[key]
        extra = {}
        own_fds: list[int] = []
        info_r = None
        if in_kernel:
            self.base, self.scratch = None, kernel.SCRATCH
            seccomp = _seccomp_pipe()
            info_r, info_w = os.pipe()
            own_fds = [info_w] + ([seccomp] if seccomp is not None else [])
            _, paths = kernel.package_paths(tuple(self.policy.extra_modules))
            extra = {"paths": list(paths)}
            argv = [kernel.interpreter(), "-I", "-S", "-c", BOOT, HERE, str(worker_r),
                    str(worker_w), self.scratch]
            launch = kernel.command(self.policy, HERE, argv, seccomp_fd=seccomp,
                                    info_fd=info_w)
            command = launch.argv
            if launch.drop_to:
                extra["drop_to"] = list(launch.drop_to)
            cwd = "/"
            wrapper: tuple = ()
        else:
            self.base = make_workdir()
            self.scratch = os.path.join(self.base, "scratch")
            os.mkdir(self.scratch)
            wrapper = _network_wrapper() if self.policy.network_namespace else ()
            command = [*wrapper, *(["--"] if wrapper else []), sys.executable, "-I", "-c", BOOT,
                       HERE, str(worker_r), str(worker_w), self.scratch]
            extra = {"host_pid": os.getpid()}
            cwd = self.scratch
        self._cgroup = memory_cgroup.create(self.policy.memory_bytes + self.policy.scratch_bytes)
        self._pids = pids_cgroup.create(self.policy.max_tasks, self._cgroup)
        if self._pids is not None:
            command = self._pids.join_argv(command)
        if self._cgroup is not None:
            command = self._cgroup.join_argv(command)
        # RLIMIT_NPROC counts a uid's tasks: inside bubblewrap on a root host the worker is
        # the host's nobody itself (no user namespace), so every worker shares that count
        extra["tasks"] = [pids_cgroup.CGROUP if self._pids is not None
                          else pids_cgroup.plan(in_kernel), self.policy.max_tasks,
                          in_kernel and os.geteuid() == 0]
        extra["max_reply_elements"] = self.policy.max_reply_elements
        try:
            self.proc = _SPAWNER.popen(command, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=self._log,
                                       pass_fds=(worker_r, worker_w, *own_fds), cwd=cwd,
                                       env=env, start_new_session=True)
        finally:
            for fd in (worker_r, worker_w, *own_fds):
                os.close(fd)
        self._r, self._w, self._buffer = host_r, host_w, bytearray()
        init = None
        try:
            self._send({**self.policy.to_dict(), **extra})
            ready = self._receive(time.monotonic() + self.policy.load_timeout, None)
        finally:
            if info_r is not None:
                init = _sandbox_init(info_r)
        if "ready" not in ready:
            raise _WorkerGone(self._crash("the sandbox worker did not start"))
        if in_kernel:  # the program's process is the child of bubblewrap's init
            self.pid = next(iter(_children(init)), None) if init else None
        else:
            self.pid = self.proc.pid
        self._tasks = str(ready.get("tasks") or "")
        # the worker's own threads, before any program: an allowed package may start one
        # when it is imported (numpy's OpenBLAS did, when the worker lost the host's
        # OPENBLAS_NUM_THREADS before it imported numpy)
        self._base_threads = _cpu_and_threads(self.pid)[1] or 1
        self.isolation = self._isolation(in_kernel, ready.get("seccomp"), bool(wrapper),
                                         _own_namespaces(self.pid))

    def _isolation(self, in_kernel: bool, seccomp, unshared_net: bool,
                   namespaces: list[str]) -> dict:
        k, py, host = "kernel", "python", "host"
        why_not = "" if in_kernel else (kernel.unavailable() if self.policy.kernel_isolation
                                        else "off in the policy (kernel_isolation=False)")
        filtered = k if seccomp is True else py
        root = os.geteuid() == 0
        guarantees = {
            "no reads outside the interpreter, allowed packages and scratch": k if in_kernel else py,
            "no writes outside scratch": k if in_kernel else py,
            "scratch size capped in all": k if in_kernel else "none (per file only)",
            "no host environment, processes or /proc": k if in_kernel else py,
            "runs as an unprivileged host user": k if in_kernel or not root
            else "none (the host is root and bubblewrap is not used)",
            "no host-wide kernel settings (/proc/sys)": k if in_kernel or not root
            else "none (the host is root and bubblewrap is not used)",
            "no new processes or programs": filtered,
            "no nested namespaces, mounts, ptrace or io_uring": filtered,
            "no network": k if (in_kernel and self.policy.network_namespace) or unshared_net
            or seccomp is True else py,
            "no native code (ctypes)": py,
            "imports limited to the policy": py,
            "memory limit per worker (address space; shared memory, memfd and message "
            "queues refused)": k if seccomp is True else "kernel (address space only)",
            "memory limit for all the worker's processes and scratch (a cgroup)":
            k if self._cgroup is not None else f"none ({memory_cgroup.unavailable()})",
            "processes and threads per worker (a host pid each)": self._tasks_keeper(),
            "file size and descriptor limits": k,
            "CPU and wall-clock limit per call": host,
            "CPU and threads between calls (worker replaced)": host,
            "replies only to the host's requests": host,
            "reply size, output and nesting caps": host,
            "dies with the host": k if in_kernel else k + " (PR_SET_PDEATHSIG)",
            "nothing left on disk when the host dies": k if in_kernel
            else "the next pddlkit process removes the folder",
        }
        host_uid = (kernel.unprivileged_ids()[0] if root else os.geteuid()) if in_kernel \
            else os.geteuid()
        return {"bubblewrap": True if in_kernel else why_not, "seccomp": seccomp,
                "host_uid": host_uid, "memory": self._memory_note(in_kernel, seccomp),
                "tasks": self._tasks_note(in_kernel),
                "network_namespace": (in_kernel and self.policy.network_namespace)
                or unshared_net,
                "namespaces": namespaces, "scratch": self.scratch,
                "scratch_bytes": self.policy.scratch_bytes if in_kernel else None,
                "guarantees": guarantees}

    def _tasks_keeper(self) -> str:
        """Who caps the worker's processes and threads, for the guarantees table."""
        limit = self.policy.max_tasks
        if self._tasks == pids_cgroup.CGROUP and self._pids is not None:
            return f"kernel (a pids cgroup, v{self._pids.version}: {limit} tasks)"
        if self._tasks == pids_cgroup.RLIMIT:
            shared = self._in_kernel and os.geteuid() == 0
            return (f"kernel (RLIMIT_NPROC: {limit} tasks"
                    + (" for all workers together, as the host's nobody" if shared else "")
                    + ")")
        if self._tasks == pids_cgroup.SECCOMP:
            return "kernel (the seccomp filter: no threads)"
        return self._tasks or "none (the worker did not say)"

    def _tasks_note(self, in_kernel: bool) -> str:
        """Which limit holds ``Policy.max_tasks`` here, and why that one (see
        :mod:`.pids_cgroup`)."""
        limit = self.policy.max_tasks
        if self._tasks == pids_cgroup.CGROUP and self._pids is not None:
            return (f"a pids cgroup (v{self._pids.version}, the kernel) caps the worker's "
                    f"processes and threads at {limit}, bubblewrap's included")
        why = f"no pids cgroup ({pids_cgroup.unavailable()})"
        if self._tasks == pids_cgroup.RLIMIT:
            if in_kernel and os.geteuid() == 0:
                return (f"{why}; RLIMIT_NPROC (the kernel) caps the tasks of the host's "
                        f"nobody, which every worker of this host is, at {limit} in all")
            return (f"{why}; RLIMIT_NPROC (the kernel) caps the tasks of the worker's uid "
                    f"at {limit}" + (" (in its own user namespace: per worker)"
                                     if in_kernel else ""))
        if self._tasks == pids_cgroup.SECCOMP:
            return (f"{why}; RLIMIT_NPROC would not bind this worker's uid (the host's own, "
                    "outside bubblewrap), so the seccomp filter refuses every thread")
        return f"{why}; {self._tasks or 'the worker did not say'}"

    def _memory_note(self, in_kernel: bool, seccomp) -> str:
        """Which limit holds ``Policy.memory_bytes``, and who keeps it (see Policy)."""
        mib = self.policy.memory_bytes >> 20
        note = f"{mib} MiB of address space for the worker process (RLIMIT_AS, the kernel)"
        if seccomp is True:
            note += ("; SysV shared memory, message queues, memfd and nested mounts, which "
                     "the address space does not count, are refused by the seccomp filter")
        else:
            note += "; memory outside the address space is not limited (no seccomp filter)"
        if in_kernel:
            note += (f"; the scratch tmpfs holds at most {self.policy.scratch_bytes >> 20} MiB "
                     "beside it")
        if self._cgroup is not None:
            note += (f"; and a memory cgroup (v{self._cgroup.version}, the kernel) caps every "
                     f"page of the worker's processes and scratch at "
                     f"{self._cgroup.limit_bytes >> 20} MiB in all, swap included")
        else:
            note += f"; no memory cgroup ({memory_cgroup.unavailable()})"
        return note

    def _ensure_loaded(self) -> Optional[ProgramError]:
        if self._load_failed_for_good:
            return self.load_error
        if self.proc is not None and self.proc.poll() is None and not self._tampered():
            fault = self._idle_fault()
            if not fault:
                return self.load_error
            self.idle_replacements += 1
            log.warning("pddlkit.sandbox: the worker (pid %s) %s; it is replaced before the "
                        "next call", self.pid, fault)
        if self.proc is not None:
            self._cleanup()
        if self._starts:
            self.restarts += 1
        self._starts += 1
        self._start()
        self._request({"op": "load", "source": self.source})
        reply = self._receive(time.monotonic() + self.policy.load_timeout, self._expect,
                              loading=True)
        self.load_error = None if reply.get("ok") else ProgramError.from_dict(reply["error"])
        left = reply.get("retire") or self._mark_idle()
        if left:  # module-level code left a thread: it would again
            if self.load_error is None:  # the worker's own check did not see it
                self.load_error = ProgramError(
                    ErrorKind.FORBIDDEN_OPERATION, f"{left} (at module level)",
                    advice="start no threads, or join them before returning")
            self._load_failed_for_good = True
            self._cleanup()
        return self.load_error

    def _tampered(self) -> bool:
        """Whether anything waits on the reply pipe before a request: only the program could
        have written it (a thread or a forged line), so the worker is not trusted again."""
        if self._buffer:
            return True
        try:
            ready, _, _ = select.select([self._r], [], [], 0)
        except (OSError, ValueError):
            return True
        return bool(ready)

    def load(self) -> Optional[ProgramError]:
        """Start the worker and load the program: its error (syntax, a forbidden import at
        module level, no entry function), or None. Raises
        :class:`~pddlkit.sandbox.kernel.KernelIsolationUnavailable` only when the policy
        requires bubblewrap and it cannot run here."""
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
            self._request({"op": "call", "args": list(args), "kwargs": kwargs})
        except (TypeError, ValueError) as exc:  # the host's input is not JSON
            raise TypeError(f"sandbox call arguments must be JSON values: {exc}") from None
        except _WorkerGone as gone:
            self._cleanup()
            return CallResult(False, error=gone.error, seconds=time.monotonic() - start)
        try:
            reply = self._receive(start + self.policy.call_timeout, self._expect, cpu=True)
        except _WorkerGone as gone:
            self._cleanup()
            return CallResult(False, error=gone.error, seconds=time.monotonic() - start)
        result = self._result(reply)
        if reply.get("retire"):
            self._cleanup()
        else:
            result.retired = self._mark_idle()
        return result

    def call_many(self, items: list[tuple[list, dict]]) -> list[CallResult]:
        """Call the entry function on each (args, kwargs) in one round trip; each item keeps
        its own time limit. A worker lost mid-batch is replaced and the rest retried."""
        results: list[CallResult] = []
        while len(results) < len(items):
            error = self.load()
            if error is not None:
                return results + [CallResult(False, error=error)] * (len(items) - len(results))
            rest = items[len(results):]
            ids = [os.urandom(8).hex() for _ in rest]
            try:
                self._send({"op": "calls", "items": [[i, list(a), dict(k)]
                                                     for i, (a, k) in zip(ids, rest)]})
            except (TypeError, ValueError) as exc:  # the host's inputs are not JSON
                raise TypeError(f"sandbox call arguments must be JSON values: {exc}") from None
            except _WorkerGone as gone:
                self._cleanup()
                results.append(CallResult(False, error=gone.error))
                continue
            for expected in ids:
                start = time.monotonic()
                try:
                    reply = self._receive(start + self.policy.call_timeout, expected, cpu=True)
                except _WorkerGone as gone:
                    self._cleanup()
                    results.append(CallResult(False, error=gone.error,
                                              seconds=time.monotonic() - start))
                    break
                results.append(self._result(reply))
                if reply.get("retire"):  # the worker has exited: the rest on a fresh one
                    self._cleanup()
                    break
            else:  # the batch's last reply: the worker is idle from here
                results[-1].retired = self._mark_idle()
        return results

    @staticmethod
    def _result(reply: dict) -> CallResult:
        error = None if reply.get("ok") else ProgramError.from_dict(reply["error"])
        return CallResult(bool(reply.get("ok")), reply.get("value"), error,
                          reply.get("stdout", ""), int(reply.get("dropped", 0)),
                          float(reply.get("seconds", 0.0)), reply.get("retire") or "")

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

    def _request(self, data: dict) -> None:
        """Send one request under a fresh id (kept in ``_expect`` for its reply)."""
        self._expect = os.urandom(8).hex()
        self._send({**data, "id": self._expect})

    def _send(self, data: dict) -> None:
        payload = (wire.encode(data) + "\n").encode()
        try:
            view = memoryview(payload)
            while view:
                view = view[os.write(self._w, view):]
        except (BrokenPipeError, OSError):
            raise _WorkerGone(self._crash("the sandbox worker exited")) from None

    def _read_chunk(self) -> int:
        """Read what the pipe holds (up to 1 MiB) into the buffer; 0 at its end."""
        chunk = os.read(self._r, 1 << 20)
        self._buffer += chunk
        return len(chunk)

    def _wait(self, deadline: float, done, loading: bool, cpu: bool, read=None) -> None:
        """Read the reply pipe until ``done()``, within the wall clock; with ``cpu``, also
        within the policy's CPU time, as the kernel accounts it (see
        :data:`FIRST_CPU_LOOK`). ``read`` reads once and returns the bytes read (0 at the
        pipe's end); by default into the buffer, a ``bytearray``: appending is linear."""
        read = read or self._read_chunk
        start = time.monotonic()
        budget = self.policy.cpu_seconds
        look = start + FIRST_CPU_LOOK if cpu or loading else float("inf")
        base = None  # (CPU seconds at the first look, wall seconds before it)
        while not done():
            now = time.monotonic()
            remaining = deadline - now
            if remaining <= 0:
                limit = self.policy.load_timeout if loading else self.policy.call_timeout
                self._kill()
                raise _WorkerGone(ProgramError(
                    ErrorKind.TIMEOUT, f"the program ran past its time limit of {limit:g} s "
                    "(wall clock) and was stopped"))
            if now >= look:
                used_now = _cpu_seconds(self.pid)
                if used_now is None:
                    look = float("inf")
                else:
                    if base is None:
                        base = (used_now, now - start)
                    used = used_now - base[0] + base[1]
                    if used > budget:
                        self._kill()
                        raise _WorkerGone(self._cpu_error())
                    look = now + max(FIRST_CPU_LOOK, (budget - used) / CORES)
            ready, _, _ = select.select([self._r], [], [],
                                        max(0.0, min(remaining, look - now, 3600.0)))
            if not ready:
                continue
            if not read():
                raise _WorkerGone(self._crash("the sandbox worker exited"))

    def _receive(self, deadline: float, expected: Optional[str], loading: bool = False,
                 cpu: bool = False) -> dict:
        """The reply to request ``expected`` (see :mod:`.wire` for its two parts), read
        under the host's own caps before anything is decoded, checked field by field: a
        reply the worker could not have sent honestly ends the worker with a
        ``forbidden-operation`` error, raised as :class:`_WorkerGone`."""
        cap = wire.header_cap(self.policy.max_output)
        seen = 0  # the buffer is searched for the end of the header once, in linear time

        def header_read() -> bool:
            nonlocal seen
            if self._buffer.find(b"\n", seen) >= 0:
                return True
            seen = len(self._buffer)
            if seen > cap:
                raise _WorkerGone(self._refuse(f"a reply header longer than {cap} bytes"))
            return False

        self._wait(deadline, header_read, loading, cpu)
        end = self._buffer.find(b"\n", seen)
        if end > cap:
            raise _WorkerGone(self._refuse(f"a reply header longer than {cap} bytes"))
        line = bytes(self._buffer[:end])
        del self._buffer[:end + 1]
        reply = self._decode(line, "header")
        if not isinstance(reply, dict) or reply.get("id") != expected:
            self._kill()
            raise _WorkerGone(ProgramError(
                ErrorKind.FORBIDDEN_OPERATION,
                "the sandbox's reply channel carried a line the host did not ask for, or a "
                "garbled one (the program wrote to the sandbox's pipe or tampered with the "
                "worker's modules); the worker was stopped",
                advice="return the answer from the entry function; do not write to file "
                       "descriptors"))
        size = reply.pop("value_bytes", None)
        if size is not None:
            if type(size) is not int or not 0 <= size <= self.policy.max_reply:
                raise _WorkerGone(self._refuse(
                    f"a value of {size!r} bytes announced, above the limit of "
                    f"{self.policy.max_reply} (max_reply) or not a size"))
            reply["value"] = self._decode_value(self._read_value(size, deadline, loading,
                                                                 cpu))
        why = self._malformed(reply)
        if why:
            raise _WorkerGone(self._refuse(why))
        return reply

    def _mark_idle(self) -> str:
        """The worker goes idle (a reply, or a batch's last): note its CPU time, and end it
        at once if it has a thread beyond those it had when it was ready (an allowed package
        may start one on import), which only a program leaves (the worker's own
        check before its reply can be switched off by a program that reaches its frames).
        Returns why it was ended ('' when it was kept)."""
        self._idle_cpu, threads = _cpu_and_threads(self.pid)
        if threads is None or threads <= self._base_threads:
            return ""
        why = (f"the program left {threads - self._base_threads} thread(s) running after its "
               "call (seen by the host); the worker was ended at once")
        self.idle_replacements += 1
        log.warning("pddlkit.sandbox: the worker (pid %s) had %d threads after its reply; it "
                    "is ended now, and the next call starts a fresh one", self.pid, threads)
        self._cleanup()
        return why

    def _idle_fault(self) -> str:
        """What the worker did since its last reply that an idle worker does not ('' if
        nothing): CPU time (a thread the program left, which the worker's own check can be
        fooled about) or a thread beyond its own, both read from the kernel."""
        if self._idle_cpu is None:
            return ""
        used, threads = _cpu_and_threads(self.pid)
        if used is not None and used - self._idle_cpu > IDLE_CPU:
            return f"used {used - self._idle_cpu:.2f} s of CPU between calls"
        if threads is not None and threads > self._base_threads:
            return f"had {threads} threads between calls ({self._base_threads} when it started)"
        return ""

    def _read_value(self, size: int, deadline: float, loading: bool,
                    cpu: bool) -> bytearray:
        """The ``size`` bytes of a reply's value, in a buffer of exactly that size (what the
        header's read took from the pipe already, then straight from the pipe into it), and
        the newline after it."""
        value = bytearray(size)
        filled = min(size, len(self._buffer))
        value[:filled] = self._buffer[:filled]
        del self._buffer[:filled]
        with memoryview(value) as view:
            def read_into() -> int:
                nonlocal filled
                got = os.readv(self._r, [view[filled:]])
                filled += got
                return got

            self._wait(deadline, lambda: filled >= size, loading, cpu, read_into)
        self._wait(deadline, lambda: len(self._buffer) > 0, loading, cpu)
        if self._buffer[0] != 0x0A:
            raise _WorkerGone(self._refuse("a value longer than the size it announced"))
        del self._buffer[:1]
        if not self._buffer:  # a bytearray keeps its room after a deletion at the front
            self._buffer = bytearray()
        return value

    def _decode_value(self, data: bytearray) -> Any:
        """Decode a reply's value at a bounded cost: its elements and depth counted first
        (:func:`.wire.shape`: past ``max_reply_elements`` or ``max_depth`` it is refused
        undecoded), then one text of it (the reply's bytes are ASCII: an honest worker
        escapes everything else), the bytes dropped before the scan, and the garbage
        collector paused during it (:func:`_gc_paused`). The host holds the reply's bytes and
        its text at once, then its text and the value, never more (a 16 MiB string: a peak
        2.0x its size), and spends time linear in it."""
        found = wire.shape(data, self.policy.max_reply_elements, self.policy.max_depth)
        why = wire.refusal(found, self.policy.max_depth, self.policy.max_reply_elements)
        if why:
            raise _WorkerGone(self._refuse(f"a value of {why}"))
        try:
            text = data.decode("ascii")
        except UnicodeDecodeError:
            raise _WorkerGone(self._refuse("its value is garbled, not JSON (bytes that are "
                                           "not ASCII)")) from None
        data.clear()  # the caller's reference stays: free the bytes themselves
        return self._decode(text, "value", found.big_numbers)

    def _decode(self, data, part: str, check_floats: bool = True) -> Any:
        """One JSON value, by :func:`.wire.decode` (which refuses NaN, infinities and
        numbers that overflow to them): anything else ends the worker as a garbled reply."""
        try:
            text = data if isinstance(data, str) else data.decode("ascii")
            with _gc_paused():
                return wire.decode(text, check_floats)
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            raise _WorkerGone(self._refuse(
                f"its {part} is garbled, not JSON ({type(exc).__name__}: {exc})"[:300]))

    def _malformed(self, reply: dict) -> str:
        """Why ``reply`` is not one an honest worker sends ('' when it is): each field of
        the right type, the printed output within ``max_output``, an error of a known kind."""
        if "ready" in reply:
            return "" if type(reply["ready"]) is int else "a start reply without a pid"
        if type(reply.get("ok")) is not bool:
            return "no true or false 'ok'"
        for key, kinds in (("stdout", (str,)), ("dropped", (int,)), ("seconds", (int, float)),
                           ("retire", (str,))):
            if key in reply and (type(reply[key]) not in kinds):
                return f"its field {key!r} is a {type(reply[key]).__name__}"
        if len(reply.get("stdout", "")) > self.policy.max_output:
            return (f"{len(reply['stdout'])} characters of output, above the limit of "
                    f"{self.policy.max_output} (max_output)")
        if reply.get("dropped", 0) < 0 or not 0 <= reply.get("seconds", 0) < float("inf"):
            return "a negative count or time"
        if reply["ok"]:
            return ""
        error = reply.get("error")
        if not isinstance(error, dict):
            return "a failed call without an error"
        if error.get("kind") not in {k.value for k in ErrorKind}:
            return f"an error of no known kind ({str(error.get('kind'))[:40]!r})"
        if type(error.get("message", "")) is not str or type(error.get("line") or 0) is not int:
            return "an error whose message or line is of the wrong type"
        for key in ("source_line", "exception", "advice"):
            if error.get(key) is not None and type(error[key]) is not str:
                return f"an error whose {key} is a {type(error[key]).__name__}"
        if any(len(error.get(k) or "") > 2 * wire.TEXT_CAP
               for k in ("message", "source_line", "exception", "advice")):
            return "an error text above its cap"
        return ""

    def _refuse(self, why: str) -> ProgramError:
        """Stop the worker over a reply it could not have sent honestly."""
        self._kill()
        return ProgramError(
            ErrorKind.FORBIDDEN_OPERATION,
            f"the sandbox worker's reply was refused: {why}; the worker was stopped (the "
            "program tampered with the worker or wrote to its pipe)",
            advice="return the answer from the entry function; print less; do not touch "
                   "the sandbox's modules or file descriptors")

    def _cpu_error(self) -> ProgramError:
        return ProgramError(ErrorKind.TIMEOUT, f"the program used more than its CPU limit of "
                            f"{self.policy.cpu_seconds:g} s and was stopped")

    def _crash(self, what: str) -> ProgramError:
        """Why the worker is gone: its exit status in words, and its log's last lines."""
        code = None
        if self.proc is not None:
            try:
                code = self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._kill()
                code = self.proc.returncode
        # a signal's death: the exit status itself, or bubblewrap's 128 + N for its command's
        number = -code if code is not None and code < 0 else \
            code - 128 if code is not None and code > 128 and self._in_kernel else None
        if number is not None:
            try:
                sig = signal.Signals(number).name
            except ValueError:
                sig = f"signal {number}"
            if sig == "SIGXCPU":
                return self._cpu_error()
            if sig == "SIGKILL" and self._cgroup is not None and self._cgroup.oom_kills():
                return ProgramError(ErrorKind.MEMORY, "the program's processes and scratch "
                                    f"files used more than {self._cgroup.limit_bytes >> 20} MiB "
                                    "of memory in all (the worker's cgroup) and the kernel "
                                    "stopped it")
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
        if self.pid is not None and self._in_kernel:
            # bubblewrap's --die-with-parent takes the sandbox down after its outer process;
            # wait for it, so a killed worker's CPU and memory are free when this returns
            deadline = time.monotonic() + 2.0
            while time.monotonic() < deadline and _running(self.pid):
                time.sleep(0.005)

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
        self.pid = None
        self._idle_cpu = None
        if self._pids is not None:
            if not self._pids.remove():
                log.warning("pddlkit.sandbox: the worker's pids cgroup %s still holds "
                            "processes; it is left for the next pddlkit process to remove",
                            self._pids.path)
            self._pids = None
        if self._cgroup is not None:
            if not self._cgroup.remove():
                log.warning("pddlkit.sandbox: the worker's cgroup %s still holds processes; "
                            "it is left for the next pddlkit process to remove",
                            self._cgroup.path)
            self._cgroup = None
