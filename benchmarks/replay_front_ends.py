"""Replay the committed real-model runs of IPP, CoPiC, DEPS and PLAP through today's code, no
model (issue 74: behaviour kept, proven on real answers, for the other front ends too).

    .venv/bin/python benchmarks/replay_front_ends.py              # every run that kept its answers
    .venv/bin/python benchmarks/replay_front_ends.py --only plap  # runs whose name holds "plap"

Why: ``benchmarks/replay_records.py`` replays PDDLego+'s small-model records; the other front
ends' rows in ``examples/real-llm/helps.md`` were measured with the same model, and their runs
kept every LLM call (``examples/real-llm/helps-records/*.transcript.jsonl.gz``, written by
``benchmarks/real_llm.py --helps --records``). Each run is played again with the row's own
arguments (``real_llm.HELP_ROWS``, the side its name says), seed 0 as measured, and ``--llm
replay:TRANSCRIPT``: every request must be one the run asked (the same prompt, settings and
grammar), answered as it was. The episodes' outcomes (won, score, LLM calls) are compared with
the record's ``outcome`` events.

A line per run: ``same``, ``differs`` (with the first episode that does), or ``cannot
replay`` with the reason: a request the recorded run never asked (its prompt changed since:
the run was measured at an earlier commit; PLAP keeps such an error as the game's "no plan
obtained", which is read as the miss it is) or a run whose name maps to no row. A record
that stops before its transcript does (a run stopped by hand) is compared on the episodes it
holds, and says so. Runs renamed
after measuring (``-rerun``, ``-partial``, ...) map to their row by the name before the
suffix. DEPS's records kept no transcript, so there is nothing to replay there.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

REPO = Path(__file__).resolve().parent.parent
RECORDS = REPO / "examples" / "real-llm" / "helps-records"
sys.path.insert(0, str(REPO / "benchmarks"))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def row_of(stem: str) -> Optional[tuple[list[str], str]]:
    """(the ``pddlkit run`` arguments, the side) of a run kept as ``stem`` (the record's name
    without ``.jsonl.gz``), or None when it is not one of ``real_llm.HELP_ROWS``' runs."""
    from real_llm import HELP_ROWS

    for row in HELP_ROWS:
        base = _slug(f"{row.front} {row.env}")
        for side, extra in (("off", []), ("on", row.help)):
            name = f"{base}-{side}"
            if stem == name or stem.startswith(name + "-"):
                return [*row.args, *extra], side
    return None


def outcomes(record: Path) -> list[dict]:
    """The record's ``outcome`` events (one per episode), in order."""
    opener = gzip.open if record.suffix == ".gz" else open
    with opener(record, "rt", encoding="utf-8") as fh:
        return [e for e in map(json.loads, fh) if e.get("type") == "outcome"]


def _key(outcome: dict) -> tuple:
    score = outcome.get("score")
    return (outcome.get("seed"), outcome.get("won"),
            None if score is None else round(float(score), 6), outcome.get("llm_calls"))


def replay(stem: str, timeout: float = 1800) -> tuple[str, str]:
    """(verdict, detail) for one kept run: ``same``, ``differs`` or ``cannot replay``."""
    found = row_of(stem)
    if found is None:
        return "cannot replay", "its name maps to no row of benchmarks/real_llm.py"
    args, _side = found
    transcript = RECORDS / f"{stem}.transcript.jsonl.gz"
    recorded = outcomes(RECORDS / f"{stem}.jsonl.gz")
    with tempfile.TemporaryDirectory() as tmp:
        record = Path(tmp) / "record.jsonl"
        command = [sys.executable, "-m", "pddlkit.cli", "run", *args, "--seed", "0",
                   "--llm", f"replay:{transcript}", "--record", str(record), "--json",
                   "--quiet"]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                                  cwd=str(REPO), env=_env())
        except subprocess.TimeoutExpired:
            return "cannot replay", f"timed out after {timeout:.0f} s"
        replayed = outcomes(record) if record.is_file() else []
    if not replayed:
        if _MISS in done.stderr:
            return "cannot replay", _first_change(done.stderr)
        why = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return "cannot replay", why[:300]
    missed = next((o["summary"] for o in replayed if _MISS in o.get("summary", "")), None)
    if missed is not None:   # the agent kept the error as its episode's (PLAP, IPP: no plan)
        return "cannot replay", _first_change(missed)
    if len(replayed) < len(recorded):
        return "differs", f"{len(replayed)} episodes replayed, {len(recorded)} recorded"
    stopped = f" (the record stops after {len(recorded)} of {len(replayed)})" \
        if len(replayed) > len(recorded) else ""
    for old, new in zip(recorded, replayed):
        if _key(old) != _key(new):
            return "differs", (f"episode seed {old.get('seed')}: recorded (won, score, calls) "
                               f"{_key(old)[1:]}, replayed {_key(new)[1:]}")
    wins = sum(bool(o.get("won")) for o in recorded)
    return "same", (f"{len(recorded)} episodes, {wins} won, "
                    f"{sum(o.get('llm_calls') or 0 for o in recorded)} calls{stopped}")


#: what a replay that met a request its transcript lacks says (pddlkit.llm.scripted.ReplayLLM)
_MISS = "has no recorded answer to this request"


def _first_change(text: str) -> str:
    """What a replay miss says changed: where, the first line recorded and the first asked
    now, when the message kept them (IPP's summary keeps only its first line)."""
    said = "a request the recorded run never asked (its prompt changed since it was measured)"
    lines = [line.strip() for line in text.splitlines()]
    if not any(line.startswith("+++") for line in lines):
        return said
    gone = next((line[1:].strip() for line in lines if line.startswith("-")
                 and not line.startswith("---") and line[1:].strip()), "(nothing)")
    new = next((line[1:].strip() for line in lines if line.startswith("+")
                and not line.startswith("+++") and line[1:].strip()), "(nothing)")
    where = re.search(r"differ in ([^:]+)", text)
    return (f"{said}{', in ' + where.group(1) if where else ''}: recorded {gone[:90]!r}, "
            f"asked now {new[:90]!r}")


def _env() -> dict:
    import os

    return {**os.environ, "PDDLKIT_NO_CACHE": "1"}


def kept_runs(only: Optional[list[str]] = None) -> list[str]:
    """The stems of the runs that kept their transcript, in name order."""
    stems = sorted(p.name[:-len(".transcript.jsonl.gz")]
                   for p in RECORDS.glob("*.transcript.jsonl.gz"))
    return [s for s in stems if not only or any(o.lower() in s for o in only)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="only runs whose name holds NAME (repeatable)")
    parser.add_argument("--timeout", type=float, default=1800,
                        help="seconds one run may take (default 1800)")
    args = parser.parse_args()
    counts: dict[str, int] = {}
    for stem in kept_runs(args.only):
        verdict, detail = replay(stem, args.timeout)
        counts[verdict] = counts.get(verdict, 0) + 1
        print(f"{verdict:14} {stem}: {detail}", flush=True)
    print("; ".join(f"{n} {v}" for v, n in counts.items()) or "no kept run matched")
    return 0


if __name__ == "__main__":
    sys.exit(main())
