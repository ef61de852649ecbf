"""A seccomp filter for the worker: no new processes, no programs, no sockets.

Why, beside the audit hook: Python code that reaches native code or an extension module the
hook does not see could still call ``fork``. The kernel's seccomp filter cannot be undone by
anything in the process. It refuses (EPERM) ``fork``, ``vfork``, ``clone`` without
``CLONE_THREAD``, ``execve``, ``execveat``, ``socket`` and ``socketpair``; ``clone3`` gets ENOSYS
(the C library then falls back to ``clone``, so threads still work). Installed with
``PR_SET_NO_NEW_PRIVS``; on Linux x86-64 and AArch64 only (elsewhere :func:`install` says no).
Imported by the worker as a top-level module, like :mod:`.guard`.
"""

from __future__ import annotations

import os

# (audit arch, {name: syscall number})
ARCHES = {
    "x86_64": (0xC000003E, {"clone": 56, "fork": 57, "vfork": 58, "execve": 59,
                            "execveat": 322, "socket": 41, "socketpair": 53, "clone3": 435}),
    "aarch64": (0xC00000B7, {"clone": 220, "execve": 221, "execveat": 281, "socket": 198,
                             "socketpair": 199, "clone3": 435}),
}
CLONE_THREAD = 0x00010000
_LD_ABS, _JEQ, _JSET, _RET = 0x20, 0x15, 0x45, 0x06
_ALLOW, _ERRNO = 0x7FFF0000, 0x00050000
EPERM, ENOSYS = 1, 38


def program(machine: str, allow_exec: bool = False) -> list[tuple[int, int, int, int]]:
    """The BPF instructions (code, jt, jf, k) for ``machine``. ``allow_exec`` keeps
    ``execve`` open: bubblewrap loads that variant before it starts the interpreter (so the
    kernel refuses processes and sockets from the first instruction on), and the worker then
    adds the full filter itself, closing ``execve`` too (stacked filters: the strictest wins)."""
    arch, calls = ARCHES[machine]
    kept = ("clone", "clone3") + (("execve", "execveat") if allow_exec else ())
    refused = [n for name, n in calls.items() if name not in kept]
    body: list = [("ld", 4), ("jeq-arch", arch), ("ld", 0), ("jeq", calls["clone"], "clone"),
                  ("jeq", calls["clone3"], "nosys")]
    body += [("jeq", n, "deny") for n in refused]
    # not refused: allow; a clone: look at its flags; then the three shared returns
    body += [("ret", "allow"), ("ld", 16), ("jset", CLONE_THREAD),
             ("ret", "allow"), ("ret", "deny"), ("ret", "nosys")]
    code = body
    index = {"allow": len(code) - 3, "deny": len(code) - 2, "nosys": len(code) - 1}
    clone_at = next(i for i, item in enumerate(code) if item == ("ld", 16))
    out = []
    for i, item in enumerate(code):
        op = item[0]
        if op == "ld":
            out.append((_LD_ABS, 0, 0, item[1]))
        elif op == "jeq-arch":
            out.append((_JEQ, 0, index["allow"] - i - 1, item[1]))
        elif op == "jeq":
            target = clone_at if item[2] == "clone" else index[item[2]]
            out.append((_JEQ, target - i - 1, 0, item[1]))
        elif op == "jset":  # a thread: allow; a new process: deny
            out.append((_JSET, index["allow"] - i - 1, index["deny"] - i - 1, item[1]))
        elif op == "ret":
            k = {"allow": _ALLOW, "deny": _ERRNO | EPERM, "nosys": _ERRNO | ENOSYS}[item[1]]
            out.append((_RET, 0, 0, k))
    return out


def bpf_bytes(machine: str, allow_exec: bool = False) -> bytes:
    """The filter as the kernel's ``struct sock_filter`` array (what ``bwrap --seccomp``
    reads from its descriptor)."""
    import struct

    return b"".join(struct.pack("=HBBI", *insn) for insn in program(machine, allow_exec))


def install() -> str:
    """Install the filter in this process; '' on success, else why it could not be."""
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

        insns = program(machine)
        array = (Insn * len(insns))(*[Insn(*x) for x in insns])
        prog = Prog(len(insns), array)
        if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            return f"prctl(PR_SET_NO_NEW_PRIVS) failed: errno {ctypes.get_errno()}"
        if libc.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:  # PR_SET_SECCOMP, FILTER
            return f"prctl(PR_SET_SECCOMP) failed: errno {ctypes.get_errno()}"
        return ""
    except Exception as exc:  # no ctypes, no libc: the audit hook still refuses
        return f"seccomp unavailable: {exc}"
