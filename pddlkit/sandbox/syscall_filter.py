"""A seccomp filter for the worker: no new processes, programs, sockets, namespaces, and none
of the kernel interfaces a program could use to get around the sandbox's other limits.

Why, beside the audit hook: Python code that reaches native code or an extension module the
hook does not see could still make any system call. The kernel's seccomp filter cannot be
undone by anything in the process. It refuses (EPERM):

* processes and programs: ``fork``, ``vfork``, ``execve``, ``execveat``, and ``clone`` unless
  it makes a thread (``CLONE_THREAD``) and asks for no new namespace; ``clone3`` gets ENOSYS
  (the C library then falls back to ``clone``, so threads still work). Where nothing else caps
  a worker's threads (no pids cgroup, and a uid RLIMIT_NPROC does not bind: see
  :mod:`.pids_cgroup`), ``threads=False`` refuses every ``clone``: each thread takes a host
  pid, and a program that makes them without end would take all of the host's;
* the network: ``socket``, ``socketpair``;
* namespaces and mounts: ``unshare``, ``setns``, ``mount``, ``umount2``, ``pivot_root``,
  ``chroot`` and the new mount API (``open_tree`` ... ``mount_setattr``): a nested user
  namespace would give the program every capability inside it, enough to mount a tmpfs the
  scratch cap does not count;
* other processes: ``ptrace``, ``process_vm_readv``/``writev``, ``pidfd_open``,
  ``pidfd_getfd``, ``kcmp``, ``process_madvise`` (bubblewrap's own PID 1 cannot be attached
  to);
* memory the address-space limit does not count: SysV shared memory (``shmget``, ``shmat``)
  and message queues (``msgget``, ``msgsnd``), POSIX message queues (``mq_open``),
  ``memfd_create``, ``memfd_secret``, ``userfaultfd``: each kept memory after the program's
  mappings were gone;
* ``io_uring_setup``/``enter``/``register`` (its ``IORING_OP_SOCKET`` makes sockets without
  the ``socket`` call), ``perf_event_open``, ``bpf``, ``keyctl``, ``add_key``,
  ``request_key``, module and kexec loading, file handles (``open_by_handle_at``).

A call made under another architecture's numbering (the 32-bit ``int 0x80`` entry, the x32
ABI) is refused whole: the table below is for the 64-bit numbers only.

Installed with ``PR_SET_NO_NEW_PRIVS``; on Linux x86-64 and AArch64 only (elsewhere
:func:`install` says no). Imported by the worker as a top-level module, like :mod:`.guard`.
"""

from __future__ import annotations

import os

#: refused on every architecture, by name
REFUSED = ("fork", "vfork", "execve", "execveat", "socket", "socketpair",
           "unshare", "setns", "mount", "umount2", "pivot_root", "chroot",
           "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick",
           "mount_setattr", "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_open",
           "pidfd_getfd", "kcmp", "process_madvise", "shmget", "shmat", "msgget", "msgsnd",
           "mq_open", "memfd_create", "memfd_secret", "userfaultfd", "io_uring_setup",
           "io_uring_enter", "io_uring_register", "perf_event_open", "bpf", "keyctl",
           "add_key", "request_key", "init_module", "finit_module", "kexec_load",
           "kexec_file_load", "name_to_handle_at", "open_by_handle_at")

# (audit arch, {name: syscall number}); AArch64 uses the generic table (no fork or vfork)
ARCHES = {
    "x86_64": (0xC000003E, {
        "clone": 56, "clone3": 435, "fork": 57, "vfork": 58, "execve": 59, "execveat": 322,
        "socket": 41, "socketpair": 53, "unshare": 272, "setns": 308, "mount": 165,
        "umount2": 166, "pivot_root": 155, "chroot": 161, "open_tree": 428, "move_mount": 429,
        "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
        "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "pidfd_open": 434,
        "pidfd_getfd": 438, "kcmp": 312, "process_madvise": 440, "shmget": 29, "shmat": 30,
        "msgget": 68, "msgsnd": 69, "mq_open": 240, "memfd_create": 319, "memfd_secret": 447,
        "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "perf_event_open": 298, "bpf": 321, "keyctl": 250,
        "add_key": 248, "request_key": 249, "init_module": 175, "finit_module": 313,
        "kexec_load": 246, "kexec_file_load": 320, "name_to_handle_at": 303,
        "open_by_handle_at": 304}),
    "aarch64": (0xC00000B7, {
        "clone": 220, "clone3": 435, "execve": 221, "execveat": 281, "socket": 198,
        "socketpair": 199, "unshare": 97, "setns": 268, "mount": 40, "umount2": 39,
        "pivot_root": 41, "chroot": 51, "open_tree": 428, "move_mount": 429, "fsopen": 430,
        "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442, "ptrace": 117,
        "process_vm_readv": 270, "process_vm_writev": 271, "pidfd_open": 434,
        "pidfd_getfd": 438, "kcmp": 272, "process_madvise": 440, "shmget": 194, "shmat": 196,
        "msgget": 186, "msgsnd": 189, "mq_open": 180, "memfd_create": 279,
        "memfd_secret": 447, "userfaultfd": 282, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "perf_event_open": 241, "bpf": 280, "keyctl": 219,
        "add_key": 217, "request_key": 218, "init_module": 105, "finit_module": 273,
        "kexec_load": 104, "kexec_file_load": 294, "name_to_handle_at": 264,
        "open_by_handle_at": 265}),
}
CLONE_THREAD = 0x00010000
#: CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET (and NEWTIME, 0x80)
CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 \
    | 0x20000000 | 0x40000000 | 0x00000080
X32_SYSCALL_BIT = 0x40000000
_LD_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW, _ERRNO = 0x7FFF0000, 0x00050000
EPERM, ENOSYS = 1, 38


def program(machine: str, allow_exec: bool = False,
            threads: bool = True) -> list[tuple[int, int, int, int]]:
    """The BPF instructions (code, jt, jf, k) for ``machine``. ``allow_exec`` keeps
    ``execve`` open: bubblewrap loads that variant before it starts the interpreter (so the
    kernel refuses processes and sockets from the first instruction on), and the worker then
    adds the full filter itself, closing ``execve`` too (stacked filters: the strictest wins).
    ``threads=False`` refuses threads as well (every ``clone``)."""
    arch, calls = ARCHES[machine]
    kept = ("execve", "execveat") if allow_exec else ()
    refused = [calls[name] for name in REFUSED if name in calls and name not in kept]
    # symbolic program: ("ld", offset), ("jeq"/"jge"/"jset", k, true-label, false-label),
    # ("ret", what); labels are "next" (fall through) or a named instruction
    body: list = [("ld", 4), ("jeq", arch, "next", "deny"), ("ld", 0),
                  ("jge", X32_SYSCALL_BIT, "deny", "next"),
                  ("jeq", calls["clone"], "clone", "next"),
                  ("jeq", calls["clone3"], "nosys", "next")]
    body += [("jeq", n, "deny", "next") for n in refused]
    body += [("ret", "allow"),
             ("label", "clone")]
    if threads:
        body += [("ld", 16), ("jset", CLONE_THREAD, "next", "deny"),
                 ("jset", CLONE_NAMESPACES, "deny", "allow")]
    else:
        body += [("ret", "deny")]
    body += [("label", "allow"), ("ret", "allow"),
             ("label", "deny"), ("ret", "deny"),
             ("label", "nosys"), ("ret", "nosys")]
    labels: dict[str, int] = {}
    code: list = []
    for item in body:
        if item[0] == "label":
            labels[item[1]] = len(code)
        else:
            code.append(item)
    ops = {"jeq": _JEQ, "jge": _JGE, "jset": _JSET}
    returns = {"allow": _ALLOW, "deny": _ERRNO | EPERM, "nosys": _ERRNO | ENOSYS}
    out = []
    for i, item in enumerate(code):
        if item[0] == "ld":
            out.append((_LD_ABS, 0, 0, item[1]))
        elif item[0] == "ret":
            out.append((_RET, 0, 0, returns[item[1]]))
        else:
            _, k, yes, no = item
            jump = [0 if label == "next" else labels[label] - i - 1 for label in (yes, no)]
            assert all(0 <= j < 256 for j in jump), "a seccomp jump out of range"
            out.append((ops[item[0]], jump[0], jump[1], k))
    return out


def bpf_bytes(machine: str, allow_exec: bool = False) -> bytes:
    """The filter as the kernel's ``struct sock_filter`` array (what ``bwrap --seccomp``
    reads from its descriptor)."""
    import struct

    return b"".join(struct.pack("=HBBI", *insn) for insn in program(machine, allow_exec))


def install(threads: bool = True) -> str:
    """Install the filter in this process; '' on success, else why it could not be.
    ``threads=False``: no threads either (see :func:`program`)."""
    machine = os.uname().machine
    if machine not in ARCHES:
        return f"no seccomp filter for {machine}"
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)

        class Insn(ctypes.Structure):
            _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte),
                        ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint32)]

        class Prog(ctypes.Structure):
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Insn))]

        insns = program(machine, threads=threads)
        array = (Insn * len(insns))(*[Insn(*x) for x in insns])
        prog = Prog(len(insns), array)
        if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            return f"prctl(PR_SET_NO_NEW_PRIVS) failed: errno {ctypes.get_errno()}"
        if libc.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:  # PR_SET_SECCOMP, FILTER
            return f"prctl(PR_SET_SECCOMP) failed: errno {ctypes.get_errno()}"
        return ""
    except Exception as exc:  # no ctypes, no libc: the audit hook still refuses
        return f"seccomp unavailable: {exc}"
