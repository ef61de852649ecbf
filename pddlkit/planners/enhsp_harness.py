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
        done = subprocess.run([javac, "-d", str(building), str(SOURCE)],
                              capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"the harness could not be built in {folder.parent}: {exc}"
    if done.returncode != 0:
        shutil.rmtree(building, ignore_errors=True)
        return None, f"javac failed: {done.stderr.strip()[-300:]}"
    try:
        building.rename(folder)   # another process may have built it first: either is fine
    except OSError:
        shutil.rmtree(building, ignore_errors=True)
    return folder, ""


def status() -> str:
    """A line saying how ENHSP runs here."""
    folder, why = compiled_harness()
    return (f"ENHSP runs in a warm JVM ({folder})" if folder else
            f"ENHSP runs one JVM per problem: {why}")


class EnhspHarness:
    """The harness process for one ``enhsp.jar``; :meth:`run` is ``java -jar`` without the
    start."""

    def __init__(self, jar: str, classes: Path) -> None:
        self.jar, self.classes = jar, classes
        self.proc: Optional[subprocess.Popen] = None

    @property
    def pid(self) -> Optional[int]:
        return self.proc.pid if self.proc is not None else None

    def _start(self) -> subprocess.Popen:
        proc = subprocess.Popen(["java", "-cp", str(self.classes), "EnhspHarness", self.jar],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        if self._line(proc, time.monotonic() + 60) != "READY":
            kill_group(proc)
            raise OSError("the ENHSP harness did not start")
        return proc

    @staticmethod
    def _line(proc: subprocess.Popen, deadline: Optional[float]) -> Optional[str]:
        """The next line the harness prints; "" when it ended, None at the deadline."""
        stream = proc.stdout
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        ready, _, _ = select.select([stream], [], [], wait)
        if not ready:
            return None
        line = stream.readline()
        return line.decode().strip() if line else ""

    def run(self, args: list[str], timeout: Optional[float]) -> tuple[bool, str, str, int]:
        """(timed out, standard output, standard error, exit code) of ENHSP with ``args``."""
        if any("\t" in a or "\n" in a for a in args):
            raise ValueError("an argument holds a tab or a newline")
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._start()
        deadline = None if timeout is None else time.monotonic() + timeout
        with tempfile.TemporaryDirectory(prefix="pddlkit-enhsp-") as folder:
            out, err = Path(folder) / "out", Path(folder) / "err"
            self.proc.stdin.write(("\t".join([str(out), str(err), *args]) + "\n").encode())
            self.proc.stdin.flush()
            reply = self._line(self.proc, deadline)
            timed_out = reply is None
            if not reply:   # the time limit (killed), or ENHSP called System.exit (its code)
                if timed_out:
                    kill_group(self.proc)
                code = -9 if timed_out else self.proc.wait(timeout=30)
                self.proc = None
            else:
                code = int(reply.split()[1])
            read = (lambda p: p.read_text(errors="replace") if p.exists() else "")
            return timed_out, read(out), read(err), code

    def close(self) -> None:
        if self.proc is not None:
            kill_group(self.proc)
            self.proc = None


_HARNESSES: dict[str, EnhspHarness] = {}


def install() -> str:
    """Route up-enhsp's ``java -jar enhsp.jar`` commands in this process to a warm harness;
    returns :func:`status`'s line. Call it once, in the process that runs the engine."""
    folder, why = compiled_harness()
    if folder is None:
        return f"ENHSP runs one JVM per problem: {why}"
    try:
        from unified_planning.engines import pddl_planner
        from up_enhsp.enhsp_planner import ENHSP_JAR
    except ImportError as exc:
        return f"ENHSP runs one JVM per problem: {exc}"
    original = pddl_planner.run_command
    if getattr(original, "pddlkit_harness", False):
        return status()

    def run_command(engine: Any, cmd: list[str], output_stream: Any = None,
                    timeout: Optional[float] = None):
        if output_stream is not None or list(cmd[:3]) != ["java", "-jar", ENHSP_JAR]:
            return original(engine, cmd, output_stream=output_stream, timeout=timeout)
        harness = _HARNESSES.setdefault(ENHSP_JAR, EnhspHarness(ENHSP_JAR, folder))
        try:
            timed_out, out, err, code = harness.run(list(cmd[3:]), timeout)
        except (OSError, ValueError):
            return original(engine, cmd, output_stream=output_stream, timeout=timeout)
        return timed_out, ([out], [err]), code

    run_command.pddlkit_harness = True   # type: ignore[attr-defined]
    pddl_planner.run_command = run_command
    return f"ENHSP runs in a warm JVM ({folder})"
