"""A limit on each sandbox worker's processes and threads, kept by the kernel.

Why: the seccomp filter refuses ``fork``, but a thread is a ``clone`` it must allow, and each
thread takes a host pid. With 32 KiB stacks a single worker held 18,226 of the host's pids
and a pool of two held 28,670 of its 32,664 free ones: a fork bomb for the whole host, not
only for the sandbox. So every worker gets a cap on its tasks (``Policy.max_tasks``, 64:
bubblewrap's own two processes, the worker and the program's threads), from the first
mechanism that holds here:

1. **the cgroup ``pids`` controller** (:func:`create`): a cgroup per worker whose
   ``pids.max`` the kernel enforces for every process and thread inside, whatever made it.
   Where it can be made: cgroup v2 when the ``pids`` controller is enabled for the children
   of this process's cgroup (then it is the worker's memory cgroup itself, see
   :mod:`.memory_cgroup`, or a folder of its own); cgroup v1 when a ``pids`` hierarchy is
   mounted and this process's folder there is writable (a root host, as in CI and most
   containers). The worker joins it before bubblewrap starts, like the memory cgroup.
2. **RLIMIT_NPROC under the sandbox's uid** (set by the worker, after it became that uid,
   before it reads the program): where no such cgroup can be made and the worker runs inside
   bubblewrap. The kernel counts the tasks of the worker's real uid, so on a non-root host
   (a user namespace per worker, uid 65534 inside) it is a cap per worker; on a root host
   the worker is the host's ``nobody`` without a user namespace, and the cap holds for all
   of ``nobody``'s tasks together (every worker of the host shares it).
3. **the seccomp filter refuses every ``clone``** (no threads at all): a worker outside
   bubblewrap, whose uid is the host's own (or root, whom RLIMIT_NPROC does not bind).

:func:`plan` says which one applies; ``SandboxWorker.isolation["tasks"]`` and its
guarantees table say which one the worker got.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional

from .memory_cgroup import SHELL, MemoryCgroup, holds, new_cgroup, probe_parent

#: the three mechanisms, in the order they are tried
CGROUP, RLIMIT, SECCOMP = "cgroup", "rlimit", "seccomp"


@dataclass(frozen=True)
class PidsCgroup:
    """One worker's pids cgroup: its folder, the version, the limit, and whether the folder
    is the worker's memory cgroup (cgroup v2: one folder holds both controllers, so there is
    nothing more to join or remove)."""

    path: Path
    version: int
    limit: int
    shared: bool = False

    @property
    def procs(self) -> Path:
        return self.path / "cgroup.procs"

    def join_argv(self, argv: list[str]) -> list[str]:
        """``argv`` started inside this cgroup (the shell moves itself in, then execs it)."""
        if self.shared:
            return argv
        return [SHELL, "-c", 'echo 0 > "$0" && exec "$@"', str(self.procs), *argv]

    def current(self) -> Optional[int]:
        """The processes and threads in the cgroup now (``pids.current``)."""
        try:
            return int((self.path / "pids.current").read_text())
        except (OSError, ValueError):
            return None

    def refused(self) -> int:
        """How many forks or threads the kernel refused here for the limit."""
        try:
            found = re.search(r"^max (\d+)$", (self.path / "pids.events").read_text(), re.M)
        except OSError:
            return 0
        return int(found.group(1)) if found else 0

    def holds(self, pid: int) -> bool:
        return holds(self.path, pid)

    def remove(self, wait: float = 2.0) -> bool:
        """Remove the folder once its processes are gone (a shared one goes with its memory
        cgroup)."""
        if self.shared:
            return True
        return MemoryCgroup(self.path, self.version, 0).remove(wait)


@lru_cache(maxsize=1)
def _parent() -> tuple[Optional[Path], int, str]:
    """Where workers' pids cgroups go, probed once (:func:`.memory_cgroup.probe_parent`)."""
    return probe_parent("pids", ("pids.max", "pids.max"), "64", tag="probe-pids")


def unavailable() -> str:
    """'' when workers get a pids cgroup here, else why not (one line)."""
    folder, _, why = _parent()
    return "" if folder is not None else why


def create(limit: int, memory: Optional[MemoryCgroup] = None) -> Optional[PidsCgroup]:
    """A pids cgroup capped at ``limit`` tasks; ``None`` where none can be made (see
    :func:`unavailable`). Under cgroup v2 the worker's memory cgroup ``memory`` is used when
    it has the pids controller too (one folder, one join)."""
    folder, version, _ = _parent()
    if folder is None:
        return None
    if memory is not None and memory.version == 2 and version == 2 \
            and (memory.path / "pids.max").exists():
        try:
            (memory.path / "pids.max").write_text(str(int(limit)))
            return PidsCgroup(memory.path, 2, int(limit), shared=True)
        except OSError:
            pass
    path = new_cgroup(folder, "pids", lambda made: (made / "pids.max").write_text(str(int(limit))))
    return None if path is None else PidsCgroup(path, version, int(limit))


def plan(in_kernel: bool) -> str:
    """Which mechanism a worker gets when no pids cgroup can be made: RLIMIT_NPROC inside
    bubblewrap (the worker is an unprivileged uid of the sandbox's own), the seccomp rule
    outside it (the worker's uid is the host's, and root is not bound by RLIMIT_NPROC)."""
    return RLIMIT if in_kernel else SECCOMP
