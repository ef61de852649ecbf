"""What a generated program may do: its modules and its resources.

The default suits programs that compute plans: the pure-computation part of the standard
library (``math``, ``heapq``, ``collections``, ``itertools``, ``functools``, ``random``, ``re``,
...), nothing that touches files, processes, the network or native code, and ``numpy`` only when
a task asks for it (``Policy(extra_modules=("numpy",))``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

#: standard-library modules a planning program may import (top-level names)
STDLIB_ALLOWED = frozenset({
    "math", "cmath", "heapq", "bisect", "collections", "itertools", "functools", "operator",
    "random", "re", "string", "typing", "dataclasses", "enum", "copy", "statistics",
    "fractions", "decimal", "numbers", "array", "queue", "textwrap", "json", "abc",
    "types", "time", "datetime", "__future__", "contextlib", "pprint", "difflib", "graphlib",
    "unicodedata", "struct", "hashlib", "base64", "binascii", "zlib", "warnings", "weakref",
})


@dataclass(frozen=True)
class Policy:
    """Limits for one program. Times in seconds, sizes in bytes.

    ``memory_bytes`` is the worker process's address space (RLIMIT_AS). Where the host lets
    pddlkit make a memory cgroup (a root host, or a delegated systemd scope: see
    :mod:`.memory_cgroup`), each worker also gets one capping every page of its processes and
    scratch at ``memory_bytes + scratch_bytes``, swap included. Elsewhere the address space
    holds for the worker as a whole because every way to keep memory outside a process's
    mappings (SysV shared memory and message queues, memfd, a tmpfs in a nested namespace) is
    refused by the seccomp filter. ``SandboxWorker.isolation["memory"]`` says which holds on
    this host.
    ``max_reply``, ``max_output``, ``max_depth`` and ``max_reply_elements`` are enforced by
    the host on what it reads, before decoding, as well as by the worker.
    ``max_reply_elements`` bounds what decoding a reply costs the host: a 16 MiB reply of
    empty lists decoded to 400 MiB of Python objects, so a value may hold at most that many
    elements (list items, dict entries, and the lists and dicts themselves).

    ``max_tasks`` caps the processes and threads of one worker (bubblewrap's own two, the
    worker and the program's threads): each takes a host pid, and a program that starts
    threads without end would take all of the host's. Kept by a pids cgroup, RLIMIT_NPROC or
    the seccomp filter, whichever holds here (:mod:`.pids_cgroup`);
    ``SandboxWorker.isolation["tasks"]`` says which.

    ``scratch_bytes`` caps the scratch folder as a whole (the kernel's tmpfs size, when the
    worker runs inside bubblewrap; without it only ``max_file_bytes`` per file holds).
    ``kernel_isolation=False`` runs workers with the Python layers only (for comparison);
    ``require_kernel_isolation=True`` refuses to start a worker where bubblewrap cannot run.
    """

    extra_modules: tuple[str, ...] = ()       # beyond STDLIB_ALLOWED, e.g. ("numpy",)
    call_timeout: float = 10.0                # wall clock per call
    cpu_seconds: float = 10.0                 # CPU per call (RLIMIT_CPU, raised call by call)
    load_timeout: float = 30.0                # wall clock to start a worker and load a program
    memory_bytes: int = 1 << 30               # address space (RLIMIT_AS)
    max_output: int = 64 * 1024               # printed output kept per call
    max_reply: int = 16 * 1024 * 1024         # the JSON of one return value
    max_depth: int = 100                      # lists and dicts nested in a return value
    max_reply_elements: int = 1_000_000       # list items and dict entries in a return value
    max_tasks: int = 64                       # processes and threads of one worker
    max_open_files: int = 64                  # RLIMIT_NOFILE
    max_file_bytes: int = 16 * 1024 * 1024    # RLIMIT_FSIZE: a file in the scratch directory
    recursion_limit: int = 5000
    entry: str = "solve"
    network_namespace: bool = True            # try a private network namespace first
    scratch_bytes: int = 64 * 1024 * 1024     # the scratch folder in all (a tmpfs, kernel mode)
    kernel_isolation: bool = True             # start workers inside bubblewrap when it works
    require_kernel_isolation: bool = False    # refuse to run without it (no Python-only mode)

    @property
    def modules(self) -> frozenset:
        """Every module the program may import."""
        return STDLIB_ALLOWED | frozenset(self.extra_modules)

    def with_modules(self, *names: str) -> "Policy":
        return replace(self, extra_modules=tuple(sorted(set(self.extra_modules) | set(names))))

    def to_dict(self) -> dict:
        """The limits, as the worker reads them and as a results file's key hashes them
        (the fields added since, ``max_reply_elements`` and ``max_tasks``, only when they
        are not the default: the key of a default policy stays what it was)."""
        defaults = {f.name: f.default for f in fields(self)}
        extra = {name: getattr(self, name) for name in ("max_reply_elements", "max_tasks")
                 if getattr(self, name) != defaults[name]}
        return {**extra, "modules": sorted(self.modules), "cpu_seconds": self.cpu_seconds,
                "memory_bytes": self.memory_bytes, "max_output": self.max_output,
                "max_reply": self.max_reply, "max_depth": self.max_depth,
                "max_open_files": self.max_open_files,
                "max_file_bytes": self.max_file_bytes, "recursion_limit": self.recursion_limit,
                "entry": self.entry, "network_namespace": self.network_namespace,
                "scratch_bytes": self.scratch_bytes}


DEFAULT_POLICY = Policy()

