"""A memory cgroup for each sandbox worker, where this host lets pddlkit make one.

Why: ``RLIMIT_AS`` caps one process's mappings. Memory a program could hold outside them (SysV
shared memory, memfd, tmpfs pages) is refused by the seccomp filter, but a cgroup counts every
page the worker's processes are charged for, whatever made it, and is kept by the kernel even
for a path the filter missed. So where a cgroup can be made it is the limit that holds, and the
filter is the second line.

Where one can be made: a child of this process's own memory cgroup, when that folder is
writable (a root host, as in CI and most containers; a systemd scope with ``Delegate=yes``).

* cgroup v2 (``0::/path`` in ``/proc/self/cgroup``, the unified tree at ``/sys/fs/cgroup``): the
  child gets ``memory.max`` and ``memory.swap.max = 0`` only if the memory controller is
  enabled for the children of that folder (its ``cgroup.subtree_control``); pddlkit does not
  enable it, since that needs moving the host's own processes out of their cgroup first.
* cgroup v1 (a ``memory`` hierarchy): ``memory.limit_in_bytes`` and, where the kernel counts
  swap, ``memory.memsw.limit_in_bytes`` with the same value.

The limit is ``Policy.memory_bytes + Policy.scratch_bytes``: the worker's own memory plus its
scratch tmpfs, whose pages are charged to the cgroup of whoever writes them. A worker joins its
cgroup before bubblewrap starts (``/bin/sh`` writes ``0``, meaning itself, to
``cgroup.procs`` and then execs bubblewrap), so every process of the sandbox is inside from its
first instruction. When the kernel's OOM killer ends a worker there, :meth:`oom_kills` says so
and the host reports a ``memory`` error. The folder is removed when the worker is; folders left
by a pddlkit process that was killed are removed by the next one that makes a cgroup.

Folder names (:func:`make_folder`): ``pddlkit-PID-KIND-RANDOM``. The process id alone does not
make a name unique: a cgroup v1 hierarchy mounted at its root (``pids:/`` in
``/proc/self/cgroup``) is shared by every container of the machine, whose processes number
from 1 in their own pid namespaces, so two containers' pddlkit processes can have the same pid
at once, and a folder left by one that was killed stood in the way of the other (``File
exists``: CI failed on it). So each name also carries random hex, and a name that exists all
the same is drawn again. A left folder is removed only when it is empty, its pid is not a
process here and it is older than :data:`STALE_AFTER` seconds: a pid that is not ours may be
another container's live process, whose new folder is empty until its worker joins it.

Anywhere else (no writable cgroup, no ``/bin/sh``), :func:`create` returns ``None`` and says
why in :func:`unavailable`; the address-space limit and the seccomp filter hold alone, and
``SandboxWorker.isolation["memory"]`` says which case this host is in.
"""

from __future__ import annotations

import os
import re
import secrets
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Optional

MOUNT = Path("/sys/fs/cgroup")
PREFIX = "pddlkit-"
SHELL = "/bin/sh"
#: a left folder is removed only after this many seconds (see the module's docstring): a
#: worker joins its folder milliseconds after making it, and a host killed with SIGKILL
#: (the sandbox tests kill 17) leaves its folders for no longer than this
STALE_AFTER = 60.0
#: the process id in every name pddlkit gave a cgroup folder, then and now
_OWNER = re.compile(re.escape(PREFIX) + r"(?:probe-(?:pids-)?)?(\d+)(?:-|$)")


@dataclass(frozen=True)
class MemoryCgroup:
    """One worker's cgroup: its folder, the cgroup version and the limit written there."""

    path: Path
    version: int
    limit_bytes: int

    @property
    def procs(self) -> Path:
        return self.path / "cgroup.procs"

    def join_argv(self, argv: list[str]) -> list[str]:
        """``argv`` started inside this cgroup: the shell moves itself in, then execs it."""
        return [SHELL, "-c", 'echo 0 > "$0" && exec "$@"', str(self.procs), *argv]

    def holds(self, pid: int) -> bool:
        return holds(self.path, pid)

    def oom_kills(self) -> int:
        """How many processes the kernel killed here for going over the limit."""
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        try:
            text = (self.path / name).read_text()
        except OSError:
            return 0
        found = re.search(r"^oom_kill (\d+)$", text, re.M)
        return int(found.group(1)) if found else 0

    def remove(self, wait: float = 2.0) -> bool:
        """Remove the folder once its processes are gone (they may still be exiting)."""
        deadline = time.monotonic() + wait
        while True:
            try:
                self.path.rmdir()
                return True
            except FileNotFoundError:
                return True
            except OSError:
                if time.monotonic() >= deadline:
                    return False
                time.sleep(0.01)


def holds(folder: Path, pid: int) -> bool:
    """Whether process ``pid`` is in the cgroup ``folder`` (read from ``/proc/PID/cgroup``)."""
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return False
    return any(line.endswith("/" + folder.name) for line in lines)


def own_folder(controller: str) -> tuple[Optional[Path], int, str]:
    """This process's cgroup folder for ``controller`` (memory, pids) and its version, or
    ``None`` and why not."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError as exc:
        return None, 0, f"/proc/self/cgroup cannot be read ({exc.strerror})"
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if controller in controllers.split(",") and (MOUNT / controller).is_dir():
            return _existing(MOUNT / controller, path), 1, \
                f"a cgroup v1 {controller} hierarchy"
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if number == "0" and (MOUNT / "cgroup.controllers").exists():
            return _existing(MOUNT, path), 2, "cgroup v2"
    return None, 0, f"no {controller} cgroup is mounted at /sys/fs/cgroup"


def _existing(mount: Path, path: str) -> Optional[Path]:
    """The folder of ``path`` under ``mount``; in a cgroup namespace the path may be relative to
    a root that is the mount itself."""
    folder = mount / path.lstrip("/")
    return folder if folder.is_dir() else (mount if mount.is_dir() else None)


def probe_parent(controller: str, limit_files: tuple[str, str], value: str,
                 tag: str = "probe-memory") -> tuple[Optional[Path], int, str]:
    """Where workers' ``controller`` cgroups go, probed: a child is made, given ``value`` in
    its limit file (``limit_files``: the v1 name, the v2 name) and removed; ``None`` and why
    not where that fails."""
    if not os.access(SHELL, os.X_OK):
        return None, 0, f"{SHELL} is missing (it moves each worker into its cgroup)"
    folder, version, kind = own_folder(controller)
    if folder is None:
        return None, 0, kind
    if not os.access(folder, os.W_OK):
        return None, 0, f"this process cannot make a cgroup in {folder} ({kind}; not writable)"
    _remove_stale(folder)
    try:
        probe = make_folder(folder, tag)
    except OSError as exc:
        return None, 0, f"this process cannot make a cgroup in {folder} ({exc.strerror})"
    try:
        limit = probe / limit_files[version == 2]
        if not limit.exists():
            return None, 0, (f"the {controller} controller is not enabled for children of "
                             f"{folder} (its cgroup.subtree_control)")
        try:
            limit.write_text(value)
        except OSError as exc:
            return None, 0, (f"a {controller} limit cannot be written in {folder} "
                             f"({exc.strerror})")
    finally:
        try:
            probe.rmdir()
        except OSError:
            pass
    return folder, version, kind


@lru_cache(maxsize=1)
def _parent() -> tuple[Optional[Path], int, str]:
    """Where workers' memory cgroups go, probed once."""
    return probe_parent("memory", ("memory.limit_in_bytes", "memory.max"), str(1 << 30))


def make_folder(parent: Path, kind: str, tries: int = 4) -> Path:
    """A new cgroup folder ``pddlkit-PID-KIND-RANDOM`` in ``parent``; a name that exists
    (another container's process with this pid, see the module's docstring) is drawn again.
    Raises the ``OSError`` of the last ``mkdir``."""
    attempt = 1
    while True:
        path = parent / f"{PREFIX}{os.getpid()}-{kind}-{secrets.token_hex(4)}"
        try:
            path.mkdir()
            return path
        except FileExistsError:
            if attempt >= tries:
                raise
            attempt += 1


def new_cgroup(parent: Path, kind: str, configure: Callable[[Path], None]) -> Optional[Path]:
    """A new folder (:func:`make_folder`) given its limits by ``configure``; ``None``, and
    no folder left, where either fails with an ``OSError``."""
    try:
        path = make_folder(parent, kind)
    except OSError:
        return None
    try:
        configure(path)
    except OSError:
        try:
            path.rmdir()
        except OSError:
            pass
        return None
    return path


def _remove_stale(folder: Path, now: Optional[float] = None) -> None:
    """Remove the empty folders pddlkit made whose process is not one of ours and which are
    older than :data:`STALE_AFTER` (a killed host's); ``rmdir`` refuses a folder that holds
    processes."""
    now = time.time() if now is None else now
    for child in folder.glob(PREFIX + "*"):
        owner = _OWNER.match(child.name)
        if owner is None or Path(f"/proc/{owner.group(1)}").exists():
            continue
        try:
            if now - child.stat().st_mtime < STALE_AFTER:
                continue
            child.rmdir()
        except OSError:
            pass


def unavailable() -> str:
    """'' when workers get a memory cgroup here, else why not (one line)."""
    folder, _, why = _parent()
    return "" if folder is not None else why


def create(limit_bytes: int) -> Optional[MemoryCgroup]:
    """A new cgroup under this process's own, capped at ``limit_bytes`` with no swap beyond it;
    ``None`` where none can be made (see :func:`unavailable`)."""
    folder, version, _ = _parent()
    if folder is None:
        return None

    def configure(path: Path) -> None:
        if version == 2:
            (path / "memory.max").write_text(str(limit_bytes))
            swap = path / "memory.swap.max"
            if swap.exists():
                swap.write_text("0")
        else:
            (path / "memory.limit_in_bytes").write_text(str(limit_bytes))
            swap = path / "memory.memsw.limit_in_bytes"
            if swap.exists():
                swap.write_text(str(limit_bytes))

    path = new_cgroup(folder, "memory", configure)
    return None if path is None else MemoryCgroup(path, version, limit_bytes)
