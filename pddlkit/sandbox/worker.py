"""The sandbox worker: ``python -I -c BOOT SANDBOX_DIR RFD WFD SCRATCH`` (see :mod:`.host`).

It imports nothing of pddlkit: BOOT puts this folder on ``sys.path`` and imports this file
and :mod:`.guard` as top-level modules, so the worker holds no module the program could abuse
(pddlkit's planners import ``subprocess`` and ``sqlite3``), only the standard library.

It runs in its own process group (the host kills the whole group on a time-out), in a private
network namespace where the kernel allows one, with its standard streams on /dev/null and a
log file, and talks to the host over two inherited pipes (one JSON object per line), so a
program that writes to fd 1 cannot forge a reply.

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
import resource
import signal
import sys
import threading
import time
import traceback

PROGRAM = "<program>"
GUARD = None  # the guard module (imported in main, before the program exists)
CPU_LIFETIME = 4 * 3600  # seconds of CPU a worker may use in all (then a fresh one starts)


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
    try:  # no new processes (the audit hook refuses them too; root ignores this limit)
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    except (ValueError, OSError):
        pass
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ValueError, OSError):
        pass


def _cpu_budget(seconds: float) -> None:
    """Allow ``seconds`` more CPU from now: RLIMIT_CPU counts the process's whole life, so the
    soft limit is raised call by call (SIGXCPU ends a call that goes over)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = usage.ru_utime + usage.ru_stime
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = int(used + seconds) + 1
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    except (ValueError, OSError):
        pass


def _watch_parent(parent: int, base: str) -> None:
    """Exit (and remove the worker's directory) when the host is gone, even mid-program."""
    import shutil

    STATE = GUARD.STATE
    started = threading.Event()

    def watch():
        STATE.trusted_thread = threading.get_ident()
        started.set()
        while True:
            time.sleep(0.25)
            if os.getppid() != parent:
                shutil.rmtree(base, ignore_errors=True)
                os._exit(0)

    threading.Thread(target=watch, name="sandbox-watchdog", daemon=True).start()
    started.wait()


class Worker:
    def __init__(self, policy: dict, scratch: str, source_lines: list[str] | None = None):
        self.policy = policy
        self.scratch = scratch
        self.entry = None
        self.lines: list[str] = source_lines or []

    # ------------------------------------------------------------------ errors

    def _line_of(self, tb) -> tuple[int, str | None]:
        line = 0
        for frame, lineno in traceback.walk_tb(tb):
            if frame.f_code.co_filename == PROGRAM:
                line = lineno
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else None
        return line, text

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
        else:
            kind, e = "crash", exc
        message = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        if isinstance(e, MemoryError):
            message = f"MemoryError: the program went over its memory limit " \
                      f"({self.policy['memory_bytes'] // (1 << 20)} MiB)"
        if isinstance(e, RecursionError):
            message = "RecursionError: maximum recursion depth exceeded (a recursion " \
                      "without a base case, or too deep)"
        return {"kind": kind, "message": message[:2000], "line": line,
                "source_line": text, "exception": type(e).__name__}

    # ------------------------------------------------------------------ requests

    def load(self, source: str) -> dict:
        guarded_builtins = GUARD.guarded_builtins
        self.lines = source.splitlines()
        try:
            code = compile(source, PROGRAM, "exec")
        except (SyntaxError, ValueError) as exc:  # ValueError: NUL bytes in the source
            line = getattr(exc, "lineno", 0) or 0
            text = getattr(exc, "text", None) or (
                self.lines[line - 1] if 0 < line <= len(self.lines) else None)
            return {"ok": False, "error": {"kind": "syntax", "message": f"{type(exc).__name__}: "
                    f"{getattr(exc, 'msg', None) or exc}", "line": line,
                    "source_line": text.rstrip("\n") if text else None,
                    "exception": type(exc).__name__}}
        namespace = {"__builtins__": guarded_builtins(frozenset(self.policy["modules"])),
                     "__name__": "__program__"}
        _cpu_budget(self.policy["cpu_seconds"])
        try:
            exec(code, namespace)
        except BaseException as exc:  # noqa: BLE001 - the program's own failure, as data
            return {"ok": False, "error": self._error(exc)}
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
        start = time.perf_counter()
        try:
            value = self.entry(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001
            sys.stdout = sys.stderr = sys.__stderr__
            return {"ok": False, "error": self._error(exc), "stdout": out.text(),
                    "dropped": out.dropped, "seconds": time.perf_counter() - start}
        seconds = time.perf_counter() - start
        sys.stdout = sys.stderr = sys.__stderr__
        try:
            text = json.dumps(value, allow_nan=False)
        except (TypeError, ValueError, RecursionError) as exc:
            return {"ok": False, "error": {
                "kind": "bad-return", "line": 0, "source_line": None, "exception": None,
                "message": f"{self.policy['entry']} returned a {type(value).__name__} that is "
                           f"not JSON ({exc})"}, "stdout": out.text(), "dropped": out.dropped,
                "seconds": seconds}
        if len(text) > self.policy["max_reply"]:
            return {"ok": False, "error": {
                "kind": "bad-return", "line": 0, "source_line": None, "exception": None,
                "message": f"{self.policy['entry']} returned {len(text)} bytes of JSON, above "
                           f"the limit of {self.policy['max_reply']}"},
                "stdout": out.text(), "dropped": out.dropped, "seconds": seconds}
        return {"ok": True, "value_json": text, "stdout": out.text(), "dropped": out.dropped,
                "seconds": seconds}


def main(argv: list[str]) -> None:
    rfd, wfd, scratch = int(argv[1]), int(argv[2]), argv[3]
    buffer = b""

    def readline() -> bytes | None:
        nonlocal buffer
        while b"\n" not in buffer:
            chunk = os.read(rfd, 1 << 20)
            if not chunk:
                return None
            buffer += chunk
        line, buffer = buffer.split(b"\n", 1)
        return line

    def reply(data: dict) -> None:
        if "value_json" in data:  # the value is already JSON: splice it, do not re-encode
            value = data.pop("value_json")
            text = json.dumps(data)[:-1] + ', "value": ' + value + "}"
        else:
            text = json.dumps(data)
        payload = (text + "\n").encode()
        view = memoryview(payload)
        while view:
            n = os.write(wfd, view)
            view = view[n:]

    first = readline()
    if first is None:
        return
    policy = json.loads(first)
    global GUARD
    import guard as GUARD  # held here: it leaves sys.modules once armed
    os.chdir(scratch)
    os.environ.clear()
    os.environ.update({"HOME": scratch, "TMPDIR": scratch, "PATH": "/nonexistent"})
    _limits(policy)
    _watch_parent(os.getppid(), os.path.dirname(scratch))
    sys.setrecursionlimit(policy["recursion_limit"])
    import syscall_filter

    seccomp = syscall_filter.install()  # '' when installed
    GUARD.STATE.budget_code = _cpu_budget.__code__
    GUARD.arm(scratch, frozenset(policy["modules"]))
    worker = Worker(policy, scratch)
    # the sandbox's own modules leave the module table: a program that reaches sys.modules
    # by introspection does not find the guard's state there (the seccomp filter and the
    # process limits hold even for one that finds it some other way)
    for name in ("guard", "worker", "syscall_filter", "ctypes", "_ctypes", "ctypes._endian"):
        sys.modules.pop(name, None)
    reply({"ready": os.getpid(), "seccomp": seccomp or True})
    while True:
        line = readline()
        if line is None:
            return
        try:
            request = json.loads(line)
            op = request.get("op")
            if op == "load":
                answer = worker.load(request["source"])
            elif op == "call":
                answer = worker.call(request.get("args", []), request.get("kwargs", {}))
            elif op == "calls":  # a batch: one reply line per item, as each finishes
                for args, kwargs in request["items"]:
                    reply(worker.call(args, kwargs))
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
        reply(answer)


if __name__ == "__main__":
    main(sys.argv)
