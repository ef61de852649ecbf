"""Ctrl-C for the benchmark scripts (issue 71): a benchmark runs for minutes, and a user who
stops it wants to know what it kept, not a ``KeyboardInterrupt`` traceback. Every script
ends with

    if __name__ == "__main__":
        from interrupt import run

        run(main, kept="the tables above are complete")

and a Ctrl-C (or the SIGINT of ``timeout -s INT``) ends it with one line on stderr,
``benchmarks/NAME.py: interrupted (Ctrl-C); <what was kept>``, and exit status 130, the
shell's for an interrupt. Not a benchmark: the scripts import it from beside themselves.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, NoReturn, Optional

#: what most scripts keep when stopped: they print each row (or table) as it is done
ROWS = "the rows above are complete"


def interrupted(script: str, exc: KeyboardInterrupt, kept: str = ROWS) -> SystemExit:
    """The one line for an interrupted benchmark, and the SystemExit (130) to raise. An
    exception with a ``said`` (a row's process cut by the same Ctrl-C: its own last line,
    naming the episode it cut and where its record is) is quoted."""
    said = getattr(exc, "said", "")
    print(f"{script}: interrupted (Ctrl-C); {kept}"
          + (f"; the row that was running said: {said}" if said else ""),
          file=sys.stderr, flush=True)
    return SystemExit(130)


def run(main: Callable[[], Optional[int]], kept: str = ROWS) -> NoReturn:
    """Run a script's ``main`` and exit with its status (None: 0); Ctrl-C: :func:`interrupted`
    with ``kept``, what the script has printed or written so far and where."""
    script = f"benchmarks/{Path(main.__code__.co_filename).name}"
    try:
        status = main()
    except KeyboardInterrupt as exc:
        raise interrupted(script, exc, kept) from None
    raise SystemExit(status)
