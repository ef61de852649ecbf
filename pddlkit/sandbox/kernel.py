"""The kernel boundary: a worker started inside bubblewrap, and whether that works here.

Why bubblewrap (``bwrap``, Debian package ``bubblewrap``): a guard written in Python runs in the
same interpreter as the program it guards, so a program that walks a traceback to the guard's
state can switch it off. Namespaces, mounts, rlimits and seccomp filters are kept by the kernel,
which no code in the process can reach. bubblewrap is the small, well-kept tool Flatpak uses to
set them up; we drive it rather than write our own.

What a worker started by :func:`command` gets, all from the kernel:

* a new mount namespace holding, read-only, only the interpreter's folders, the system's library
  folders, the sandbox's own worker code and each allowed package's folder; no ``/etc``, no
  ``/tmp``, no home, no project tree;
* one writable place, ``/scratch``, a tmpfs whose total size is capped (``Policy.scratch_bytes``);
  it lives in the namespace and is gone with it, so no folder is ever left on the host's disk;
* new PID, IPC, UTS, cgroup, user and network namespaces (the worker is PID 2 and sees no host
  process in its ``/proc``), an unprivileged user (uid 65534, every capability dropped), so the
  root of the namespace, ``/dev`` and ``/proc`` are not writable either;
* ``--die-with-parent`` (PR_SET_PDEATHSIG on the sandbox's processes) and the PID namespace: when
  the host dies, however it was killed, the kernel kills everything in the sandbox;
* ``--new-session``, so the program cannot push input into the host's terminal;
* a seccomp filter loaded by bwrap before the interpreter starts (no fork, no sockets; the worker
  adds ``execve`` to it once it runs, see :mod:`.syscall_filter`).

Where bubblewrap is missing or cannot make namespaces (some containers), workers fall back to the
Python layers with a one-line warning at the first worker, unless the policy says
``require_kernel_isolation=True``, which refuses instead (:class:`KernelIsolationUnavailable`).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional, Sequence

from .policy import Policy

#: where the program's scratch folder sits inside the sandbox
SCRATCH = "/scratch"
#: the unprivileged user the program runs as inside the sandbox ("nobody")
NOBODY = "65534"
#: the system's library folders: the interpreter and the standard library's extension modules
#: link against libraries there (libc, libm, libffi, libz, libcrypto, ...)
LIBRARY_DIRS = ("/lib", "/lib64", "/lib32", "/usr/lib", "/usr/lib64", "/usr/lib32",
                "/usr/local/lib")
INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap)"

log = logging.getLogger("pddlkit.sandbox")


class KernelIsolationUnavailable(RuntimeError):
    """``Policy(require_kernel_isolation=True)`` and bubblewrap cannot sandbox workers here."""


def interpreter() -> str:
    """The base interpreter's real path: a virtual environment's ``python`` is a link to it,
    and the sandbox runs it with ``-S`` (no site-packages), adding only the allowed packages."""
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


@lru_cache(maxsize=1)
def _interpreter_dirs() -> tuple[str, ...]:
    python = interpreter()
    dirs = {os.path.realpath(p) for p in (sys.base_prefix, sys.base_exec_prefix) if p}
    if not any(python.startswith(d.rstrip(os.sep) + os.sep) for d in dirs):
        dirs.add(os.path.dirname(python))
    return tuple(sorted(dirs))


@lru_cache(maxsize=32)
def package_paths(modules: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(folders to bind read-only, folders to put on the worker's ``sys.path``) for the allowed
    modules that live outside the standard library: each package's own folder, and its
    ``<name>.libs`` beside it where a wheel keeps its shared libraries. A package that imports
    another package needs that one in the policy too."""
    stdlib = tuple(d.rstrip(os.sep) + os.sep for d in _interpreter_dirs())
    binds: list[str] = []
    paths: list[str] = []
    for name in sorted(set(modules)):
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            continue
        if spec.submodule_search_locations:
            where = list(spec.submodule_search_locations)[0]
        elif spec.origin and os.path.isabs(spec.origin):
            where = spec.origin
        else:  # built into the interpreter
            continue
        where = os.path.realpath(where)
        if where.startswith(stdlib) and "site-packages" not in where:
            continue
        parent = os.path.dirname(where)
        binds.append(where)
        libs = os.path.join(parent, f"{name}.libs")
        if os.path.isdir(libs):
            binds.append(libs)
        if parent not in paths:
            paths.append(parent)
    return tuple(binds), tuple(paths)


def unprivileged_ids() -> tuple[int, int]:
    """The host uid and gid bubblewrap runs as when this process is root: ``nobody``'s (65534
    where the system has no such user)."""
    try:
        import pwd

        entry = pwd.getpwnam("nobody")
        return entry.pw_uid, entry.pw_gid
    except (ImportError, KeyError):
        return 65534, 65534


@dataclass
class Launch:
    """How to start one sandboxed command: bubblewrap's argv, and the host uid/gid the worker
    switches to before it loads anything of the program (``drop_to``; ``None`` when this
    process is not root and bubblewrap's user namespace already maps the worker's uid to this
    unprivileged user)."""

    argv: list[str]
    drop_to: Optional[tuple[int, int]] = None


@lru_cache(maxsize=1)
def _bwrap_options() -> str:
    """bubblewrap's ``--help`` text, to tell which options this version has."""
    try:
        return subprocess.run([shutil.which("bwrap") or "bwrap", "--help"], timeout=10,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def _bind_args(paths: Sequence[str]) -> list[str]:
    """``--ro-bind`` each existing path at the same place; a symbolic link (``/lib`` to
    ``usr/lib`` on merged-/usr systems) is recreated as a link, its target bound. The folders
    above each bound path are made first with mode 0755: bubblewrap run as root makes them
    0700, which the worker, once ``nobody``, could not walk through."""
    args: list[str] = []
    seen: set[str] = set()
    made: set[str] = set()

    def parents(path: str) -> None:
        parent = os.path.dirname(path.rstrip(os.sep))
        if parent in ("", os.sep) or parent in made:
            return
        parents(parent)
        made.add(parent)
        args.extend(["--perms", "0755", "--dir", parent])

    for path in paths:
        if path in seen or not os.path.lexists(path):
            continue
        seen.add(path)
        parents(path)
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
            target = os.path.realpath(path)
            if target not in seen and os.path.isdir(target):
                seen.add(target)
                parents(target)
                args += ["--ro-bind", target, target]
        else:
            args += ["--ro-bind", path, path]
    return args


def command(policy: Policy, worker_code: str, argv: Sequence[str],
            seccomp_fd: int | None = None, info_fd: int | None = None) -> Launch:
    """How to run ``argv`` (an interpreter command) in the sandbox.

    Two cases, because a user namespace made by root maps the sandbox's user to host root
    (uid 0), and the kernel checks a write to ``/proc/sys/kernel/core_pattern`` or any other
    host-wide file against the host uid:

    * this process is not root: bubblewrap makes a user namespace whose only uid, 65534 inside,
      is this unprivileged user outside; nested user namespaces are refused
      (``--disable-userns``, where this bubblewrap has it; the seccomp filter refuses them in
      any case);
    * this process is root: bubblewrap makes no user namespace (it mounts with root's own
      rights, so it can bind a Python installed under ``/root``), keeps only CAP_SETUID and
      CAP_SETGID for the worker, and the worker becomes the host's ``nobody``
      (:func:`unprivileged_ids`, no supplementary groups) before it reads the program; the
      change of uid drops those two capabilities too. bubblewrap also mounts ``/proc/sys``
      read-only then.
    """
    bwrap = shutil.which("bwrap") or "bwrap"
    binds, _ = package_paths(tuple(policy.extra_modules))
    drop_to = None
    if os.geteuid() == 0:
        drop_to = unprivileged_ids()
        args = [bwrap, "--unshare-ipc", "--unshare-pid", "--unshare-uts",
                "--unshare-cgroup-try", "--die-with-parent", "--new-session",
                "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        if policy.network_namespace:
            args.append("--unshare-net")
    else:
        args = [bwrap, "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session",
                "--cap-drop", "ALL", "--uid", NOBODY, "--gid", NOBODY]
        if "--disable-userns" in _bwrap_options():
            args.append("--disable-userns")
        if not policy.network_namespace:
            args.append("--share-net")
    args += _bind_args([*_interpreter_dirs(), *LIBRARY_DIRS, worker_code, *binds])
    args += ["--proc", "/proc", "--dev", "/dev",
             "--perms", "0777", "--size", str(int(policy.scratch_bytes)),
             "--tmpfs", SCRATCH, "--chdir", SCRATCH,
             # bubblewrap's own root and /dev are tmpfs the program's user owns: read-only,
             # or they would be an uncapped scratch beside the capped one (device nodes such
             # as /dev/null stay writable on a read-only mount)
             "--remount-ro", "/dev", "--remount-ro", "/"]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    if info_fd is not None:
        args += ["--info-fd", str(info_fd)]
    return Launch([*args, "--", *argv], drop_to)


@lru_cache(maxsize=1)
def unavailable() -> str:
    """'' when bubblewrap can sandbox a worker here, else why not (one line, with the fix).
    Probed once per process: the real command line around ``python -c pass``."""
    if not shutil.which("bwrap"):
        return f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}"
    # the probe drops to the unprivileged uid as the worker does, so a missing capability
    # shows here and not at the first program
    drop = ("import os; os.setgroups([]); os.setgid({1}); os.setuid({0}); "
            "assert os.getuid() == {0}")
    probe = command(Policy(), os.path.dirname(os.path.abspath(__file__)), [])
    code = drop.format(*probe.drop_to) if probe.drop_to else "pass"
    try:
        done = subprocess.run([*probe.argv, interpreter(), "-I", "-S", "-c", code],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=30,
                              env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap could not be started ({exc})"
    if done.returncode != 0:
        why = (done.stderr.decode(errors="replace").strip().splitlines() or ["no message"])[-1]
        return (f"bubblewrap cannot create the sandbox's namespaces here ({why}); "
                "unprivileged user namespaces may be disabled (sysctl "
                "kernel.unprivileged_userns_clone, user.max_user_namespaces) or the container "
                "forbids them")
    return ""


_warned = False


def choose(policy: Policy) -> bool:
    """Whether this worker starts inside bubblewrap: refuses (raises) when the policy requires
    it and it cannot be had; warns once per process when it falls back."""
    global _warned
    if not policy.kernel_isolation:
        if policy.require_kernel_isolation:
            raise KernelIsolationUnavailable(
                "Policy(require_kernel_isolation=True) contradicts kernel_isolation=False")
        return False
    why = unavailable()
    if not why:
        return True
    if policy.require_kernel_isolation:
        raise KernelIsolationUnavailable(
            f"the sandbox requires kernel isolation and {why}; or drop "
            "Policy(require_kernel_isolation=True) to run with the Python layers only")
    if not _warned:
        _warned = True
        log.warning("pddlkit.sandbox: %s; generated programs run with the Python layers only "
                    "(audit hook, import policy, seccomp, rlimits), which a determined program "
                    "can get around", why)
    return False
