"""Inside the worker: the audit hook, the import guard and the capped output.

This module runs in the sandbox worker process only (see :mod:`.worker`); the host never
imports it. Once :func:`arm` has run, every audited operation of the process goes through
:func:`_hook` (``sys.addaudithook`` has no undo, though the hook's state can be reached):

* files: reading only under the interpreter's own prefix, the allowed packages and the
  scratch directory; writing, renaming, deleting only under the scratch directory; no file
  descriptors opened by number;
* no processes (fork, exec, spawn, system, subprocess, kill), no sockets, no native code
  (ctypes), no new audit hooks, no ``input()``, no ``chdir``;
* imports: the program's own ``import`` statements see a guarded ``__import__`` that allows
  only the policy's modules, with a clear message; and no module outside the policy may be
  *loaded* at all afterwards, however the import is reached.

A violation raises :class:`SandboxViolation` (or :class:`ForbiddenImport`) at the operation.

This layer is defense in depth and the source of clear messages, not the boundary: it runs in
the program's own interpreter, so a program that walks a traceback to :data:`STATE` can switch
it off. What holds then is what the kernel keeps (see :mod:`.kernel` and the README).
"""

from __future__ import annotations

import builtins
import os
import sys

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_PROCESS_EVENTS = frozenset({
    "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
    "subprocess.Popen", "os.kill", "os.killpg", "signal.pthread_kill", "pty.spawn",
    "os.startfile", "os.chdir", "os.fchdir", "os.chroot", "os.setuid", "os.putenv",
    "os.unsetenv", "sys.addaudithook", "builtins.input", "resource.setrlimit",
    "resource.prlimit", "os.setns", "os.unshare", "mmap.__new__", "sys.remote_exec",
})
_PATH_WRITE_EVENTS = frozenset({
    "os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.chmod", "os.chown", "os.link",
    "os.symlink", "os.truncate", "os.utime", "os.chflags", "os.lchflags", "os.mkfifo",
    "os.mknod", "shutil.rmtree", "shutil.copyfile", "shutil.copymode", "shutil.copystat",
    "shutil.copytree", "shutil.move", "shutil.chown", "os.setxattr", "os.removexattr",
})
_PATH_READ_EVENTS = frozenset({"os.listdir", "os.scandir", "glob.glob", "os.listxattr",
                               "os.getxattr"})


#: underscore modules that reach processes, sockets or native code: never loaded after arming
_DANGEROUS_PRIVATE = frozenset({
    "_posixsubprocess", "_ctypes", "_socket", "_ssl", "_multiprocessing", "_posixshmem",
    "_xxsubinterpreters", "_xxinterpchannels", "_interpreters", "_winapi", "_overlapped",
    "_tkinter", "_sqlite3", "_dbm", "_gdbm", "_curses", "_curses_panel", "_lsprof",
    "_tracemalloc", "_testcapi", "_testinternalcapi", "_ctypes_test", "_xxtestfuzz",
})


class SandboxViolation(PermissionError):
    """An operation the sandbox does not allow (the message says which and why)."""


class ForbiddenImport(ImportError):
    """A module outside the policy."""


class _State:
    armed = False
    scratch = ""
    read_roots: tuple[str, ...] = ()
    modules: frozenset = frozenset()
    budget_code = None       # the worker's function that sets each call's CPU limit


STATE = _State()


def _under(path: str, roots) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _real(path) -> str:
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    return os.path.realpath(os.path.join(STATE.scratch, str(path)))


def _deny(kind: str, message: str):
    if kind == "import":
        raise ForbiddenImport(message)
    raise SandboxViolation(message)


def _hook(event: str, args: tuple) -> None:
    if not STATE.armed:
        return
    if event == "open":
        path, mode, flags = (tuple(args) + (None, None))[:3]
        if isinstance(path, int):
            _deny("op", f"opening file descriptor {path} is not allowed")
        if path is None:
            return
        real = _real(path)
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & _WRITE_FLAGS)
        if writing and not _under(real, (STATE.scratch,)):
            _deny("op", f"writing {path!r} is not allowed: programs may write only in their "
                        "scratch directory (the current directory)")
        if not writing and not _under(real, STATE.read_roots):
            _deny("op", f"reading {path!r} is not allowed: programs may read only their "
                        "scratch directory")
        return
    if event == "import":
        name = str(args[0])
        top = name.partition(".")[0]
        if name in sys.modules or top in STATE.modules or (
                top.startswith("_") and top not in _DANGEROUS_PRIVATE):
            return
        _deny("import", f"module {top!r} is not allowed (allowed: "
                        f"{', '.join(sorted(m for m in STATE.modules if not m.startswith('_')))})")
    if event == "resource.setrlimit" and STATE.budget_code is not None and \
            sys._getframe(1).f_code is STATE.budget_code:
        return  # the worker's own per-call CPU budget (below the hard limit set before arming)
    if event in _PROCESS_EVENTS or event.startswith(("socket.", "ctypes.", "_ctypes.",
                                                     "winreg.", "cffi")):
        what = {"os.system": "running a shell command", "subprocess.Popen": "starting a process",
                "os.fork": "forking a process", "sys.addaudithook": "adding an audit hook",
                "builtins.input": "reading standard input"}.get(
            event, "network access" if event.startswith("socket.") else
            "native code (ctypes)" if "ctypes" in event else f"{event!r}")
        _deny("op", f"{what} is not allowed in the sandbox")
    if event in _PATH_WRITE_EVENTS:
        for p in args:
            if isinstance(p, (str, bytes, os.PathLike)) and not _under(_real(p), (STATE.scratch,)):
                _deny("op", f"{event} on {p!r} is not allowed outside the scratch directory")
        return
    if event in _PATH_READ_EVENTS:
        for p in args[:1]:
            if isinstance(p, (str, bytes, os.PathLike)) and not _under(_real(p), STATE.read_roots):
                _deny("op", f"listing {p!r} is not allowed: programs may read only their "
                            "scratch directory")


#: builtins a program does not get: they read from or print to a person at a terminal, or end
#: the interpreter, and here there is neither (the worker's error for a NameError over one of
#: them says what to do instead)
REMOVED_BUILTINS = ("input", "breakpoint", "help", "exit", "quit", "copyright", "credits",
                    "license")


def guarded_builtins(modules: frozenset) -> dict:
    """A copy of the builtins whose ``__import__`` allows only ``modules``; the program gets
    it as its ``__builtins__`` (its changes to it touch nothing else)."""
    real_import = builtins.__import__

    def __import__(name, globals=None, locals=None, fromlist=(), level=0):  # noqa: A001
        if level == 0:
            top = name.partition(".")[0]
            if top not in modules:
                _deny("import", f"import of {top!r} is not allowed (allowed: "
                                f"{', '.join(sorted(m for m in modules if not m.startswith('_')))})")
        return real_import(name, globals, locals, fromlist, level)

    table = dict(builtins.__dict__)
    table["__import__"] = __import__
    for name in REMOVED_BUILTINS:
        table.pop(name, None)
    return table


def arm(scratch: str, modules: frozenset, extra_read_roots=()) -> None:
    """Load the allowed modules (their own imports happen now, unguarded), then install the
    hook. From here on the process keeps to the policy."""
    for name in sorted(modules):
        try:
            __import__(name)
        except Exception:  # a module the policy allows but this interpreter lacks
            pass
    roots = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                             sys.base_exec_prefix, scratch) if p}
    for name in modules:
        module = sys.modules.get(name)
        where = getattr(module, "__file__", None)
        if where:
            roots.add(os.path.realpath(os.path.dirname(where)))
    roots.update(os.path.realpath(p) for p in extra_read_roots)
    STATE.scratch = os.path.realpath(scratch)
    STATE.read_roots = tuple(sorted(roots))
    STATE.modules = frozenset(modules)
    sys.addaudithook(_hook)
    STATE.armed = True


class CappedOutput:
    """``sys.stdout`` for the program: keeps the first ``limit`` characters, counts the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0
        self.dropped = 0

    def write(self, text) -> int:
        text = str(text)
        room = self.limit - self.size
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def text(self) -> str:
        return "".join(self.parts)
