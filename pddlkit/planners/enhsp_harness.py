"""One warm JVM for ENHSP per unified-planning worker, each problem run in a fresh class loader.

Why: up-enhsp runs ``java -jar enhsp.jar`` for every numeric plan, and the JVM's start and
the JDK's warm-up are most of a small solve (0.33-0.40 s a call on the test suite's tanks
problem; 0.09-0.15 s in a warm JVM). ENHSP has no server mode, so pddlkit ships a small Java
harness (``java/EnhspHarness.java``) that runs ENHSP's ``main`` once per request: ENHSP and
its PDDL library (JPddl, whose static fields hold the grounded task) are loaded anew for each
problem, so nothing of one problem reaches the next; the stateless third-party libraries are
loaded once.

How it plugs in: the warm unified-planning worker (``pddlkit.planners.up_engine --serve``)
calls :func:`install`, which routes unified-planning's ``run_command`` for ENHSP's own
command line (``java -jar <up-enhsp's enhsp.jar> ...``, no output stream) to the harness. The
answer is what ``java -jar`` gives: ENHSP's standard output and error, and its exit code (a
``System.exit`` inside ENHSP ends the harness with that code, and the next problem starts a
new harness). At the time limit the harness is killed, as unified-planning kills the process
it started. Anything else (another engine, an output stream, a child with a memory limit)
runs as unified-planning runs it.

The harness is compiled once with ``javac`` into pddlkit's cache folder
(``$PDDLKIT_CACHE_DIR/java/<hash of the source>/``). Where ``javac`` is missing, or
``PDDLKIT_ENHSP_HARNESS=0`` is set, ENHSP runs per problem as before; :func:`status` says
which and why.
"""

from __future__ import annotations

import hashlib
import os
import select
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Optional

from ..processes import kill_group

SOURCE = Path(__file__).resolve().parent / "java" / "EnhspHarness.java"
#: set to 0 to run ENHSP as up-enhsp does, one JVM per problem
SWITCH = "PDDLKIT_ENHSP_HARNESS"


def compiled_harness() -> tuple[Optional[Path], str]:
    """(the folder holding ``EnhspHarness.class``, "") or (None, why not)."""
    if os.environ.get(SWITCH, "1") == "0":
        return None, f"{SWITCH}=0"
    javac = shutil.which("javac")
    if javac is None:
        return None, "javac is not installed (a JDK is needed to build the harness)"
    from ..llm.cache import cache_dir

    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]
    folder = cache_dir() / "java" / digest
    if (folder / "EnhspHarness.class").exists():
        return folder, ""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        building = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".build-"))
        done = subprocess.run([javac, "--release", "11", "-d", str(building), str(SOURCE)],
                              capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        if "building" in locals():
            shutil.rmtree(building, ignore_errors=True)
        return None, f"the harness could not be built in {folder.parent}: {exc}"
    if done.returncode != 0:
        shutil.rmtree(building, ignore_errors=True)
        return None, f"javac failed: {done.stderr.strip()[-300:]}"
    try:
        building.rename(folder)   # another process may have built it first: either is fine
    except OSError:
        shutil.rmtree(building, ignore_errors=True)
    if not (folder / "EnhspHarness.class").exists():
        return None, f"the harness could not be built in {folder}"
    return folder, ""


def java_binary() -> str:
    """The ``java`` beside the ``javac`` that built the harness (a newer compiler than the
    ``java`` first on PATH would give classes that JVM cannot load), else ``java``."""
    javac = shutil.which("javac")
    if javac:
        beside = Path(javac).resolve().parent / "java"
        if beside.exists():
            return str(beside)
    return "java"


def status() -> str:
    """A line saying how ENHSP runs here."""
    return _said(*compiled_harness())


def _said(folder: Optional[Path], why: str) -> str:
    return (f"ENHSP runs in a warm JVM ({folder})" if folder else
            f"ENHSP runs one JVM per problem: {why}")


class EnhspHarness:
    """The harness process for one ``enhsp.jar``; :meth:`run` is ``java -jar`` without the
    start. Safe across threads (one request at a time)."""

    def __init__(self, jar: str, classes: Path) -> None:
        self.jar, self.classes = jar, classes
        self.proc: Optional[subprocess.Popen] = None
        self._buffer = b""
        self._lock = threading.Lock()
        self._requests = 0

    @property
    def pid(self) -> Optional[int]:
        return self.proc.pid if self.proc is not None else None

    def _start(self, deadline: Optional[float]) -> subprocess.Popen:
        proc = subprocess.Popen([java_binary(), "-cp", str(self.classes), "EnhspHarness",
                                 self.jar], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        self._buffer = b""
        start_by = time.monotonic() + 60
        if deadline is not None:
            start_by = min(start_by, deadline)
        while True:   # lines a JVM option may print first (a GC log) are passed over
            line = self._line(proc, start_by)
            if line == "READY":
                return proc
            if line is None or line == "":
                kill_group(proc)
                raise OSError("the ENHSP harness did not start")

    def _line(self, proc: subprocess.Popen, deadline: Optional[float]) -> Optional[str]:
        """The next line the harness prints; "" when it ended, None at the deadline. Read
        from the pipe's descriptor into this object's buffer, so no line waits unseen in a
        file object's buffer while ``select`` says nothing is there."""
        fd = proc.stdout.fileno()
        while b"\n" not in self._buffer:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                return ""
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode(errors="replace").strip()

    def run(self, args: list[str], timeout: Optional[float]) -> tuple[bool, str, str, int]:
        """(timed out, standard output, standard error, exit code) of ENHSP with ``args``.
        An argument with a control character (a tab, a line break) is refused with
        ValueError: it would split the request."""
        if any(ord(c) < 32 for a in args for c in a):
            raise ValueError("an argument holds a control character")
        with self._lock:
            deadline = None if timeout is None else time.monotonic() + timeout
            if self.proc is None or self.proc.poll() is not None:
                self.proc = self._start(deadline)
            self._requests += 1
            ident = str(self._requests)
            with tempfile.TemporaryDirectory(prefix="pddlkit-enhsp-") as folder:
                out, err = Path(folder) / "out", Path(folder) / "err"
                self.proc.stdin.write(("\t".join([ident, str(out), str(err), *args])
                                       + "\n").encode())
                self.proc.stdin.flush()
                timed_out, code = self._reply(ident, deadline)
                read = (lambda p: p.read_text(errors="replace") if p.exists() else "")
                return timed_out, read(out), read(err), code

    def _reply(self, ident: str, deadline: Optional[float]) -> tuple[bool, int]:
        """(timed out, exit code) of request ``ident``: its ``EXIT`` line; at the deadline
        the harness is killed (-9); when it ended, its own exit code (ENHSP called
        System.exit). Other lines are passed over."""
        while True:
            reply = self._line(self.proc, deadline)
            if reply is None or reply == "":
                break
            words = reply.split()
            if len(words) == 3 and words[0] == "EXIT" and words[1] == ident \
                    and words[2].lstrip("-").isdigit():
                return False, int(words[2])
        timed_out = reply is None
        if timed_out:
            kill_group(self.proc)
            code = -9
        else:
            try:
                code = self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                kill_group(self.proc)
                code = -9
        self.proc = None
        return timed_out, code

    def close(self) -> None:
        with self._lock:
            if self.proc is not None:
                kill_group(self.proc)
                self.proc = None


_HARNESSES: dict[str, EnhspHarness] = {}


def install() -> str:
    """Route up-enhsp's ``java -jar enhsp.jar`` commands in this process to a warm harness;
    returns :func:`status`'s line. Call it once, in the process that runs the engine."""
    folder, why = compiled_harness()
    if folder is None:
        return _said(None, why)
    try:
        from unified_planning.engines import pddl_planner
        from up_enhsp.enhsp_planner import ENHSP_JAR
    except ImportError as exc:
        return _said(None, str(exc))
    original = pddl_planner.run_command
    if getattr(original, "pddlkit_harness", False):
        return _said(folder, "")

    def run_command(engine: Any, cmd: list[str], output_stream: Any = None,
                    timeout: Optional[float] = None):
        if output_stream is not None or list(cmd[:3]) != ["java", "-jar", ENHSP_JAR]:
            return original(engine, cmd, output_stream=output_stream, timeout=timeout)
        harness = _HARNESSES.get(ENHSP_JAR) or _HARNESSES.setdefault(
            ENHSP_JAR, EnhspHarness(ENHSP_JAR, folder))
        try:
            timed_out, out, err, code = harness.run(list(cmd[3:]), timeout)
        except (OSError, ValueError, IndexError):
            return original(engine, cmd, output_stream=output_stream, timeout=timeout)
        return timed_out, ([out], [err]), code

    run_command.pddlkit_harness = True   # type: ignore[attr-defined]
    pddl_planner.run_command = run_command
    return _said(folder, "")
