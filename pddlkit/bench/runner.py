"""Run a sweep: skip the finished cells, run the rest, append rows, show progress.

A finished cell is one whose key *and* config hash (:attr:`.config.Cell.identity`) are in the
results file. Before the run, the rows of the sweep's cells measured under another config, or
before rows carried one, are moved to ``results.superseded.jsonl``
(:meth:`.results.ResultsFile.set_aside`), with one note per kind, so that the file the report
reads holds one row per cell, the current one.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Optional, TextIO

from pddlkit.agents.row import row_won

from .config import Sweep
from .executors import executor
from .results import ResultsFile


@dataclass
class SweepOutcome:
    total: int
    skipped: int  # already in the results file
    ran: int = 0
    won: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)  # (cell key, error)

    @property
    def ok(self) -> bool:
        return not self.failed


def run_sweep(sweep: Sweep, *, executor_name: str = "process", progress: bool = True,
              address: Optional[str] = None, stream: TextIO = sys.stderr) -> SweepOutcome:
    """Run every cell of ``sweep`` not yet in its results file. Rows are appended as episodes
    finish, so the run can be stopped at any time and started again."""
    unhashed = [c.key for c in sweep.cells if not c.config]
    if unhashed:
        raise ValueError(f"cell {unhashed[0]} has no config hash: make sweeps with load_sweep "
                         "or expand, which check them and hash each cell's options")
    results = ResultsFile(sweep.results_path)
    for note in results.set_aside({c.key: c.config for c in sweep.cells}).notes():
        print(note, file=stream)
    done = results.done()
    pending = [c for c in sweep.cells if c.identity not in done]
    outcome = SweepOutcome(len(sweep.cells), len(sweep.cells) - len(pending))
    outcome.won = sum(1 for c in sweep.cells
                      if c.identity in done and row_won(done[c.identity]))
    bar = _bar(outcome, progress, stream)
    jobs = [(c, str(sweep.records_dir / c.record_name())) for c in pending]
    try:
        for cell, row, error in executor(executor_name)(jobs, workers=sweep.workers,
                                                       address=address):
            if row is None:
                outcome.failed.append((cell.key, error or "unknown error"))
                print(f"\n{cell.key}: the agent failed: {error}", file=stream)
            else:
                results.append(row)
                outcome.ran += 1
                outcome.won += row_won(row)
            if bar is not None:
                bar.update(1)
                finished = outcome.skipped + outcome.ran
                bar.set_postfix_str(f"won {outcome.won}/{finished} "
                                    f"({100 * outcome.won / max(1, finished):.0f}%)"
                                    + (f", failed {len(outcome.failed)}" if outcome.failed
                                       else ""))
    finally:
        if bar is not None:
            bar.close()
    return outcome


def _bar(outcome: SweepOutcome, progress: bool, stream: TextIO):
    if not progress:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=outcome.total, initial=outcome.skipped, unit="episode", file=stream,
                dynamic_ncols=True, desc="sweep")
