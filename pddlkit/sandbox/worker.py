"""The sandbox worker: ``python -I [-S] -c BOOT SANDBOX_DIR RFD WFD SCRATCH`` (see :mod:`.host`).

It imports nothing of pddlkit: BOOT runs this file, and this file runs :mod:`.guard`,
:mod:`.wire` and :mod:`.syscall_filter` from the same folder (:func:`_private_module`), so
the worker holds no module the program could abuse (pddlkit's planners import ``subprocess``
and ``sqlite3``), only the standard library.

The worker's own machinery uses nothing the program can replace. The program shares the
worker's interpreter and may import ``json``, ``time`` or ``random`` (whose ``_os`` is
``os``): a program that replaced ``json.loads`` there once changed the arguments of its own
later calls (``solve(21)`` answered -2). So what the worker calls once a program is loaded
was taken before: the functions below are private names bound at import (``_write``,
``_read``, ``_perf``, the ``_signal`` calls, ...), the JSON codec is :mod:`.wire`'s (which
holds the C encoder and scanner themselves), and this file and its private modules run with
a copy of the builtins made before the program existed, so a program that rewrites
``builtins`` (reachable from any module's ``__builtins__``) rewrites only its own. What a
program keeps in its own module state (its globals, the modules it imported and changed) it
keeps from one call to the next of the same worker: calls of one program are not isolated
from each other, only from the worker and the host. A program that walks frames to the
worker's globals can still change the worker (the audit hook's state is reachable the same
way); what holds then is the host's: the reply ids, the caps, the checks of every field.

It runs inside bubblewrap where that works (:mod:`.kernel`: its own mount, PID, network and
user namespaces, a capped tmpfs as scratch), otherwise in its own process group in a private
network namespace where the kernel allows one; with its standard streams on /dev/null and an
anonymous log file, it talks to the host over two inherited pipes (one JSON object per line).
Every request carries an id that its reply echoes, so a line the program writes to the pipe
itself is caught by the host (which then stops the worker).

Nothing of the worker runs beside the program: no watchdog thread (the kernel kills the worker
when the host dies, :func:`_die_with_parent`; the host ends calls that run too long). Between
calls the worker undoes the timers, signal handlers and mask, and trace functions a program
left behind; a program that leaves a thread running gets its worker replaced.

Order of work, and why: the limits are set and the allowed modules imported while the code
running is the sandbox's own (the trusted phase); then the audit hook is armed for good, and
only then is the program's text compiled and run. A program therefore never runs unguarded,
not even its module-level code.

Requests: ``{"op": "load", "source": ...}`` then any number of ``{"op": "call", "args": [...],
"kwargs": {...}}``. Replies: ``{"ok": true, ...}`` or ``{"ok": false, "error": {...}}`` with
a :class:`~pddlkit.sandbox.errors.ProgramError` as a dict.
"""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import _signal
import sys
import _thread
import time
import traceback
from types import ModuleType

PROGRAM = "<program>"
GUARD = None  # the guard module (run in main, before the program exists)
WIRE = None  # the reply framing, checks and JSON codec (run in main, like the guard)
CPU_LIFETIME = 4 * 3600  # seconds of CPU a worker may use in all (then a fresh one starts)

# what the worker calls once a program runs beside it, taken now (see the module docstring)
_BUILTINS = __builtins__ if isinstance(__builtins__, dict) else vars(__builtins__)
_read, _write, _exit = os.read, os.write, os._exit
_perf = time.perf_counter
_walk_tb = traceback.walk_tb
_thread_count = _thread._count
_setitimer, _getsignal, _set_signal = _signal.setitimer, _signal.getsignal, _signal.signal
_sigmask, _SIG_SETMASK = _signal.pthread_sigmask, _signal.SIG_SETMASK
_settrace, _setprofile = sys.settrace, sys.setprofile
_STDERR = sys.__stderr__
_getrusage, _getrlimit, _setrlimit = resource.getrusage, resource.getrlimit, resource.setrlimit
_RUSAGE_SELF, _RLIMIT_CPU, _RLIM_INFINITY = (resource.RUSAGE_SELF, resource.RLIMIT_CPU,
                                             resource.RLIM_INFINITY)
#: what the host sets for numerical libraries (one thread each), kept in the environment
THREAD_SETTINGS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                   "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
#: the Python message when the kernel refuses a thread (a task limit or the seccomp rule)
NO_THREAD = "can't start new thread"


def _private_module(folder: str, name: str) -> ModuleType:
    """Run ``folder/name.py`` as a module of the worker's own: not in ``sys.modules``, and
    with the worker's copy of the builtins (see the module docstring)."""
    path = os.path.join(folder, name + ".py")
    module = ModuleType(name)
    module.__file__ = path
    module.__dict__["__builtins__"] = _BUILTINS
    with open(path, "rb") as fh:
        code = compile(fh.read(), path, "exec")
    exec(code, module.__dict__)
    return module


def _limits(policy: dict) -> None:
    def cap(which, value):
        try:
            _, hard = resource.getrlimit(which)
            value = int(value)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(which, (value, hard if hard != resource.RLIM_INFINITY else value))
        except (ValueError, OSError):
            pass

    # the limits act through SIGXCPU and SIGXFSZ, whose dispositions a process inherits: a
    # host that ignores them (NetHack's end-of-game code ignores SIGXCPU in the process that
    # runs NLE) would turn the CPU and file-size limits off, so the worker sets its own
    for name in ("SIGXCPU", "SIGXFSZ"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    cap(resource.RLIMIT_AS, policy["memory_bytes"])
    try:  # a hard CPU cap for the worker's whole life: per-call soft limits stay below it
        resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, CPU_LIFETIME))
    except (ValueError, OSError):
        pass
    cap(resource.RLIMIT_FSIZE, policy["max_file_bytes"])
    cap(resource.RLIMIT_NOFILE, policy["max_open_files"])
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ValueError, OSError):
        pass


def _no_new_processes() -> None:
    """RLIMIT_NPROC 0, where the seccomp filter could not be installed (the audit hook refuses
    processes too; root ignores this limit). Not with the filter: the limit counts the host
    uid's every task, threads included, so for ``nobody`` it would refuse threads as well."""
    try:
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    except (ValueError, OSError):
        pass


def _task_limit(tasks: list | None) -> str:
    """Apply the host's choice of a cap on the worker's processes and threads (see
    :mod:`pddlkit.sandbox.pids_cgroup`); returns the mechanism that holds from here on:
    ``cgroup`` (the host's, nothing to do here), ``rlimit`` (RLIMIT_NPROC, set now, as the
    unprivileged uid the worker became), or ``seccomp`` (no threads: the filter installed
    next refuses every ``clone``). RLIMIT_NPROC does not bind uid 0 in the host's namespace,
    so a worker still root there takes the seccomp rule instead."""
    how, limit = (tasks or ["seccomp", 0])[:2]
    if how == "rlimit":
        if os.getuid() == 0:
            return "seccomp"
        try:
            resource.setrlimit(resource.RLIMIT_NPROC, (int(limit), int(limit)))
        except (ValueError, OSError):
            return "seccomp"
    return how


def _drop_root(drop_to: list | None) -> None:
    """Become the host's unprivileged user (see :func:`pddlkit.sandbox.kernel.command`): the
    worker starts as root with CAP_SETUID and CAP_SETGID only when the host is root, and
    leaves both, and every group, before it reads anything of the program. A worker that
    cannot is not used: it exits, and the host reports the crash."""
    if not drop_to:
        return
    uid, gid = int(drop_to[0]), int(drop_to[1])
    try:
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
    except OSError as exc:
        sys.stderr.write(f"the sandbox worker could not leave root: {exc}\n")
        os._exit(70)
    if os.getuid() != uid or os.geteuid() != uid or os.getgroups():
        os._exit(70)
    try:  # back to root must be impossible now
        os.setuid(0)
    except OSError:
        return
    os._exit(70)


def _cpu_budget(seconds: float) -> None:
    """Allow ``seconds`` more CPU from now: RLIMIT_CPU counts the process's whole life, so the
    soft limit is raised call by call (SIGXCPU ends a call that goes over)."""
    usage = _getrusage(_RUSAGE_SELF)
    used = usage.ru_utime + usage.ru_stime
    _, hard = _getrlimit(_RLIMIT_CPU)
    soft = int(used + seconds) + 1
    if hard != _RLIM_INFINITY:
        soft = min(soft, hard)
    try:
        _setrlimit(_RLIMIT_CPU, (soft, hard))
    except (ValueError, OSError):
        pass


def _die_with_parent(host_pid: int | None) -> None:
    """PR_SET_PDEATHSIG: the kernel sends SIGKILL when the process that started the worker
    dies, however it died, even while the program is busy in a C call (a thread watching the
    parent from inside the program's interpreter was both slower and a way in for the program).
    Inside bubblewrap the parent is bubblewrap's own init, which dies with the host
    (``--die-with-parent``) and takes the PID namespace with it."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except Exception:  # no ctypes here: the host's sweep still removes what is left
        pass
    if host_pid is not None and os.getppid() != host_pid:  # the host died before the prctl
        os._exit(0)


def _baseline_signals() -> dict:
    """The worker's own signal dispositions, restored around every call."""
    table = {}
    for sig in signal.valid_signals():
        if sig in (signal.SIGKILL, signal.SIGSTOP):
            continue
        try:
            handler = _getsignal(sig)
        except (OSError, ValueError):
            continue
        if handler is not None:
            table[sig] = handler
    return table


BASELINE: dict = {}
TIMERS = tuple(getattr(signal, n) for n in ("ITIMER_REAL", "ITIMER_VIRTUAL", "ITIMER_PROF")
               if hasattr(signal, n))


def _reset_after_call() -> str | None:
    """Undo what a call may have left that would break the next one: its timers, signal
    handlers and mask, trace and profile functions. A thread still running cannot be undone:
    the reason is returned and the host replaces the worker."""
    for which in TIMERS:
        _setitimer(which, 0)
    for sig, handler in BASELINE.items():
        if _getsignal(sig) is not handler:
            try:
                _set_signal(sig, handler)
            except (OSError, ValueError, TypeError):
                pass
    _sigmask(_SIG_SETMASK, ())
    _settrace(None)
    _setprofile(None)
    threads = _thread_count()
    return f"the program left {threads} thread(s) running after its call" if threads else None



def _removed_builtin(e: BaseException):
    """(what to add to the message, the advice) for a NameError over a builtin the sandbox
    removes, else None. Read defensively: the exception is the program's own object."""
    try:
        name = e.name if type(e) is NameError else None
    except Exception:  # noqa: BLE001 - a program's exception may raise on any access
        return None
    if type(name) is not str or name not in GUARD.REMOVED_BUILTINS:
        return None
    if name == "input":   # a small model writes an interactive game loop, then defines input
        return (" (the sandbox has no input(): the program runs with no person and no "
                "terminal)", "do not call input(); compute the answer from the entry "
                             "function's arguments and return it")
    if name in ("exit", "quit"):
        return (f" (the sandbox has no {name}())", f"return from the entry function instead "
                                                   f"of calling {name}()")
    return (f" (the sandbox has no {name})", f"remove {name}: nobody reads it here")

class Worker:
    def __init__(self, policy: dict, scratch: str, source_lines: list[str] | None = None):
        self.policy = policy
        self.scratch = scratch
        self.entry = None
        self.lines: list[str] = source_lines or []

    # ------------------------------------------------------------------ errors

    def _line_of(self, tb) -> tuple[int, str | None]:
        line = 0
        for frame, lineno in _walk_tb(tb):
            if frame.f_code.co_filename == PROGRAM:
                line = lineno
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else None
        return line, text

    @staticmethod
    def _module_line(tb) -> int:
        """The line of the program's module-level statement that was running in ``tb`` (0 if
        none: a syntax-level failure)."""
        return next((lineno for frame, lineno in _walk_tb(tb)
                     if frame.f_code.co_filename == PROGRAM
                     and frame.f_code.co_name == "<module>"), 0)

    def _error(self, exc: BaseException) -> dict:
        ForbiddenImport, SandboxViolation = GUARD.ForbiddenImport, GUARD.SandboxViolation
        chain, seen = [], exc
        while seen is not None and len(chain) < 10:
            chain.append(seen)
            seen = seen.__cause__ or seen.__context__
        line, text = self._line_of(exc.__traceback__)
        if any(isinstance(e, ForbiddenImport) for e in chain):
            kind, e = "forbidden-import", next(e for e in chain if isinstance(e, ForbiddenImport))
        elif any(isinstance(e, SandboxViolation) for e in chain):
            kind, e = "forbidden-operation", next(e for e in chain
                                                  if isinstance(e, SandboxViolation))
        elif isinstance(exc, MemoryError):
            kind, e = "memory", exc
        elif isinstance(exc, PermissionError) and exc.errno in (1, 13):
            kind, e = "forbidden-operation", exc  # refused by the kernel (seccomp, limits)
        elif isinstance(exc, OSError) and exc.errno in (27, 28):  # EFBIG, ENOSPC
            kind, e = "forbidden-operation", exc
        elif any(type(e) is RuntimeError and e.args == (NO_THREAD,) for e in chain):
            kind, e = "forbidden-operation", exc  # the task limit or the seccomp rule
        else:
            kind, e = "crash", exc
        try:
            message = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        except Exception:  # noqa: BLE001 - the program's exception failed to say itself
            message = f"{type(e).__name__} (its message raised when read)"
        if isinstance(e, MemoryError):
            message = f"MemoryError: the program went over its memory limit " \
                      f"({self.policy['memory_bytes'] // (1 << 20)} MiB)"
        if isinstance(e, OSError) and e.errno == 28:
            message = (f"OSError: no space left in the scratch folder (it holds at most "
                       f"{self.policy['scratch_bytes'] // (1 << 20)} MiB in all)")
        if isinstance(e, RecursionError):
            message = "RecursionError: maximum recursion depth exceeded (a recursion " \
                      "without a base case, or too deep)"
        said = _removed_builtin(e)
        if said:
            message += said[0]
        elif kind == "forbidden-operation" and type(e) is RuntimeError:
            said = (self._no_thread(), "compute the answer in one thread: the sandbox gives "
                                       "a program few threads, or none")
            message += said[0]
        error = {"kind": kind, "message": message[:2000], "line": line,
                 "source_line": text, "exception": type(e).__name__}
        if said:
            error["advice"] = said[1]
        return error

    def _no_thread(self) -> str:
        """Why the kernel refused a thread, in the words of the limit that holds here."""
        how = self.policy.get("tasks_applied")
        if how == "seccomp":
            return " (the sandbox allows no threads here)"
        tasks = list(self.policy.get("tasks") or []) + [None, 0, False]
        shared = how == "rlimit" and bool(tasks[2])
        return (f" (the sandbox allows a worker at most {tasks[1]} processes and threads in "
                "all" + (", shared by every sandbox worker of this host" if shared else "")
                + ")")

    # ------------------------------------------------------------------ requests

    def _syntax_error(self, exc: BaseException) -> dict:
        """The compile error as data. A block with no statement under it (``else:`` then
        nothing) is reported at the line that opens the block, not where Python noticed
        (the next statement, lines later): issue 76, a model fixed the line named, never the
        empty ``else:``."""
        line = getattr(exc, "lineno", 0) or 0
        message = getattr(exc, "msg", None) or str(exc)
        text = getattr(exc, "text", None)
        error: dict = {}
        empty = re.match(r"expected an indented block after (.+?) on line (\d+)", message)
        if isinstance(exc, IndentationError) and empty and \
                0 < int(empty.group(2)) <= len(self.lines):
            line, text = int(empty.group(2)), None   # the opener's line, from the source
            opener = self.lines[line - 1].strip()
            message = f"line {line}: {opener} has no statement under it"
            error["advice"] = (f"write the statement(s) that belong under `{opener}` on line "
                               f"{line}, indented, or remove that empty branch")
        if not text and 0 < line <= len(self.lines):
            text = self.lines[line - 1]
        error.update({"kind": "syntax", "message": f"{type(exc).__name__}: {message}",
                      "line": line, "source_line": text.rstrip("\n") if text else None,
                      "exception": type(exc).__name__})
        return error

    def load(self, source: str) -> dict:
        guarded_builtins = GUARD.guarded_builtins
        self.lines = source.splitlines()
        try:
            code = compile(source, PROGRAM, "exec")
        except (SyntaxError, ValueError) as exc:  # ValueError: NUL bytes in the source
            return {"ok": False, "error": self._syntax_error(exc)}
        namespace = {"__builtins__": guarded_builtins(frozenset(self.policy["modules"])),
                     "__name__": "__program__"}
        _cpu_budget(self.policy["cpu_seconds"])
        try:
            exec(code, namespace)
        except BaseException as exc:  # noqa: BLE001 - the program's own failure, as data
            error = self._error(exc)
            top = self._module_line(exc.__traceback__)  # e.g. an example call left in
            if top:
                error["message"] = (f"when the program was loaded (module level, line {top}): "
                                    + error["message"])
                error["advice"] = ("that line runs when the program is loaded: keep only "
                                   "imports and definitions at the top level (no example "
                                   f"calls or prints); the sandbox calls "
                                   f"{self.policy['entry']} itself")
            return {"ok": False, "error": error}
        entry = namespace.get(self.policy["entry"])
        if not callable(entry):
            defined = sorted(k for k, v in namespace.items()
                             if callable(v) and not k.startswith("__"))
            return {"ok": False, "error": {
                "kind": "bad-return", "line": 0, "source_line": None, "exception": None,
                "message": f"the program defines no function {self.policy['entry']}(...)"
                           + (f"; it defines {', '.join(defined)}" if defined else ""),
                "advice": f"define def {self.policy['entry']}(...) at the top level"}}
        self.entry = entry
        return {"ok": True}

    def call(self, args: list, kwargs: dict) -> dict:
        CappedOutput = GUARD.CappedOutput
        if self.entry is None:
            return {"ok": False, "error": {"kind": "crash", "message": "no program loaded",
                                           "line": 0, "source_line": None, "exception": None}}
        out = CappedOutput(self.policy["max_output"])
        sys.stdout = sys.stderr = out
        _cpu_budget(self.policy["cpu_seconds"])
        start = _perf()
        try:
            value = self.entry(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001
            sys.stdout = sys.stderr = _STDERR
            return {"ok": False, "error": self._error(exc), "stdout": out.text(),
                    "dropped": out.dropped, "seconds": _perf() - start}
        seconds = _perf() - start
        sys.stdout = sys.stderr = _STDERR
        try:
            text = WIRE.encode(value)
        except (TypeError, ValueError, RecursionError) as exc:
            return {"ok": False, "error": {
                "kind": "bad-return", "line": 0, "source_line": None, "exception": None,
                "message": f"{self.policy['entry']} returned a {type(value).__name__} that is "
                           f"not JSON ({exc})"}, "stdout": out.text(), "dropped": out.dropped,
                "seconds": seconds}
        data = text.encode()
        del text
        why = None
        if len(data) > self.policy["max_reply"]:
            why = (f"{self.policy['entry']} returned {len(data)} bytes of JSON, above the "
                   f"limit of {self.policy['max_reply']}")
        else:
            elements = self.policy.get("max_reply_elements", 1 << 62)
            found = WIRE.shape(data, elements, self.policy["max_depth"])
            if found.elements > elements:
                why = (f"{self.policy['entry']} returned a value of more than {elements} "
                       "elements (list items and dict entries); return a smaller value")
            elif found.depth > self.policy["max_depth"]:
                why = (f"{self.policy['entry']} returned a value nested more than "
                       f"{self.policy['max_depth']} levels deep (lists and dicts inside each "
                       "other); return a flatter value")
        if why:
            return {"ok": False, "error": {
                "kind": "bad-return", "line": 0, "source_line": None, "exception": None,
                "message": why}, "stdout": out.text(), "dropped": out.dropped,
                "seconds": seconds}
        return {"ok": True, "value_json": data, "stdout": out.text(), "dropped": out.dropped,
                "seconds": seconds}


def main(argv: list[str], folder: str | None = None) -> None:
    """Serve the host: ``argv`` is ``[_, RFD, WFD, SCRATCH]``, ``folder`` the sandbox's code
    (where :mod:`.guard`, :mod:`.wire` and :mod:`.syscall_filter` are run from)."""
    folder = folder or os.path.dirname(os.path.abspath(__file__))
    rfd, wfd, scratch = int(argv[1]), int(argv[2]), argv[3]
    del argv[1:]  # the channel's descriptors are not left where the program can read them
    # everything else inherited (bubblewrap's seccomp and info descriptors) is closed
    low, high = sorted((rfd, wfd))
    os.closerange(3, low)
    os.closerange(low + 1, high)
    os.closerange(high + 1, 1 << 16)
    pending = bytearray()

    def readline() -> bytes | None:
        seen = 0
        while True:
            end = pending.find(b"\n", seen)
            if end >= 0:
                break
            seen = len(pending)
            chunk = _read(rfd, 1 << 20)
            if not chunk:
                return None
            pending.extend(chunk)
        line = bytes(pending[:end])
        del pending[:end + 1]
        return line

    def request_of(line: bytes):
        return WIRE.decode(line.decode("ascii"), False)  # the host writes finite floats

    def reply(data: dict, request_id) -> None:
        """A header line, then the value's JSON as it was encoded (see :mod:`.wire`)."""
        data["id"] = request_id  # the host takes only the reply to the request it sent
        value = data.pop("value_json", None)
        error = data.get("error")
        if isinstance(error, dict):  # texts cut to the header's room (see wire.TEXT_CAP)
            for key in ("message", "source_line", "advice"):
                if isinstance(error.get(key), str):
                    error[key] = error[key][:WIRE.TEXT_CAP]
        if value is not None:
            data["value_bytes"] = len(value)
        parts = [WIRE.encode(data).encode(), b"\n"]
        if value is not None:
            parts += [value, b"\n"]
        view = memoryview(b"".join(parts))
        while view:
            n = _write(wfd, view)
            view = view[n:]

    def finish(answer: dict, request_id, loading: bool = False) -> None:
        """Reply, after undoing what the call left behind; a worker whose program left a
        thread running says so and exits, and the host starts a fresh one."""
        retire = _reset_after_call()
        if retire:
            answer["retire"] = retire
            if loading:  # at module level: the program cannot be used
                answer.update(ok=False, error={
                    "kind": "forbidden-operation", "message": retire + " (at module level)",
                    "line": 0, "source_line": None, "exception": None,
                    "advice": "start no threads, or join them before returning"})
        reply(answer, request_id)
        if retire:
            _exit(0)

    first = readline()
    if first is None:
        return
    policy = json.loads(first)
    _drop_root(policy.get("drop_to"))
    global GUARD, WIRE
    sys.path[:0] = policy.get("paths", [])  # the allowed packages (the worker runs with -S)
    GUARD = _private_module(folder, "guard")
    WIRE = _private_module(folder, "wire")
    os.chdir(scratch)
    # the host's one-thread settings for numerical libraries stay: the allowed packages are
    # imported below, after the clear, and OpenBLAS without OPENBLAS_NUM_THREADS starts a
    # thread per core on import (which the task limit may refuse, and which idles beside
    # every call)
    kept = {k: v for k, v in os.environ.items() if k in THREAD_SETTINGS}
    os.environ.clear()
    os.environ.update({"HOME": scratch, "TMPDIR": scratch, "PATH": "/nonexistent", **kept})
    _limits(policy)
    tasks = policy["tasks_applied"] = _task_limit(policy.get("tasks"))
    _die_with_parent(policy.get("host_pid"))
    sys.setrecursionlimit(policy["recursion_limit"])
    seccomp = _private_module(folder, "syscall_filter").install(
        threads=tasks != "seccomp")  # '' when installed
    if seccomp:
        _no_new_processes()
        if tasks == "seccomp":  # no filter: RLIMIT_NPROC 0 holds, except for root
            tasks = policy["tasks_applied"] = (
                "none: no seccomp filter and the worker runs as root" if os.getuid() == 0
                else "rlimit")
    GUARD.STATE.budget_code = _cpu_budget.__code__
    GUARD.arm(scratch, frozenset(policy["modules"]))
    BASELINE.update(_baseline_signals())
    worker = Worker(policy, scratch)
    # no module of the sandbox's own is in the module table (they were run privately), and
    # ctypes, used above, leaves it: a program that reaches sys.modules by introspection
    # finds neither (the kernel's boundary, the seccomp filter and the process limits hold
    # even for one that finds them some other way)
    for name in ("guard", "worker", "wire", "syscall_filter", "ctypes", "_ctypes",
                 "ctypes._endian"):
        sys.modules.pop(name, None)
    reply({"ready": os.getpid(), "seccomp": seccomp or True, "tasks": tasks}, None)
    while True:
        line = readline()
        if line is None:
            return
        request_id = op = None
        try:
            request = request_of(line)
            request_id = request.get("id")
            op = request.get("op")
            if op == "load":
                answer = worker.load(request["source"])
            elif op == "call":
                answer = worker.call(request.get("args", []), request.get("kwargs", {}))
            elif op == "calls":  # a batch: one reply line per item, as each finishes
                for item_id, args, kwargs in request["items"]:
                    finish(worker.call(args, kwargs), item_id)
                continue
            elif op == "exit":
                return
            else:
                answer = {"ok": False, "error": {"kind": "crash", "message": f"bad op {op!r}",
                                                 "line": 0, "source_line": None,
                                                 "exception": None}}
        except MemoryError:
            answer = {"ok": False, "error": {"kind": "memory", "message": "MemoryError in the "
                      "sandbox while handling the request", "line": 0, "source_line": None,
                      "exception": "MemoryError"}}
        finish(answer, request_id, loading=op == "load")
