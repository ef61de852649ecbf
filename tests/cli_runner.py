"""``pddlkit ...`` run in this process, for tests that check what a command prints and exits
with, not the process boundary (issue 72).

Why: a ``python -m pddlkit.cli`` child costs an interpreter start and pddlkit's imports (one to
three seconds on a busy 2-core machine) per call, and the suite made hundreds of them. Tests
of signals, the sandbox, ``make demo`` or a crash's traceback keep a real child process.

``run_cli(*args, env={...})`` calls :func:`pddlkit.cli.main` with ``sys.argv``-style
arguments, standard output and error captured, ``env`` set in ``os.environ`` for the call
only, and answers what :func:`subprocess.run` would: ``returncode``, ``stdout``, ``stderr``
(``SystemExit`` from argparse gives its code; a return value is the code). An exception that
escapes the command is not turned into an exit status: it fails the test with its traceback,
which is stricter than reading "Traceback" in a child's stderr.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
from typing import Optional


@contextlib.contextmanager
def _environment(env: Optional[dict]):
    saved = dict(os.environ)
    os.environ.update({k: str(v) for k, v in (env or {}).items()})
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run_cli(*args, env: Optional[dict] = None, stdin: str = "") -> subprocess.CompletedProcess:
    """``pddlkit *args`` in this process (see the module text)."""
    import sys

    from pddlkit.cli import main

    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    saved_stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8")
    try:
        with _environment(env), contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None
                                                                     else 1)
                if stop.code not in (None, 0) and not isinstance(stop.code, int):
                    err.write(f"{stop.code}\n")
    finally:
        sys.stdin = saved_stdin
    return subprocess.CompletedProcess(["pddlkit", *argv], code or 0, out.getvalue(),
                                       err.getvalue())
