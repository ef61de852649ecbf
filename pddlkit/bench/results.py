"""The results file: JSONL, one row per finished episode, appended as each one finishes.

Only the harness's main process writes, one whole line at a time, flushed and synced, so a
killed run loses at most the episodes in flight. A last line cut short by the kill is found
on the next open, dropped (the file is truncated to the last whole row) and reported with a
warning; its cell simply runs again. A broken line elsewhere is skipped with a warning, never
silently.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Iterator, Union


class CorruptResultsWarning(UserWarning):
    pass


class ResultsFile:
    def __init__(self, path: Union[str, os.PathLike]) -> None:
        self.path = Path(path)

    def rows(self, *, repair: bool = False) -> list[dict]:
        """Every whole row; a broken last line is dropped (and cut from the file if ``repair``)."""
        if not self.path.exists():
            return []
        data = self.path.read_bytes()
        cut = data.rfind(b"\n") + 1  # everything after the last newline was never finished
        lines = data[:cut].split(b"\n")[:-1]
        keep = cut
        rows: list[dict] = []
        offset = 0
        for i, raw in enumerate(lines):
            row = _row(raw)
            if row is not None:
                rows.append(row)
            elif raw.strip():
                if i == len(lines) - 1 and cut == len(data):
                    keep = offset
                    self._warn(f"the last line is not a whole result row; dropping it: {raw[:80]!r}")
                else:
                    self._warn(f"line {i + 1} is not a result row; skipping it: {raw[:80]!r}")
            offset += len(raw) + 1
        if cut < len(data):
            self._warn(f"the last line is cut short (a run was stopped while writing it); "
                       f"dropping it: {data[cut:cut + 80]!r}")
        if repair and keep < len(data):
            with open(self.path, "r+b") as fh:
                fh.truncate(keep)
        return rows

    def _warn(self, message: str) -> None:
        warnings.warn(f"{self.path}: {message}", CorruptResultsWarning, stacklevel=3)

    def done(self) -> dict[str, dict]:
        """Finished cells by key (the first row of a key wins; later duplicates are ignored)."""
        out: dict[str, dict] = {}
        for row in self.rows(repair=True):
            out.setdefault(row["key"], row)
        return out

    def append(self, row: dict) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(row, ensure_ascii=False, default=str) + "\n"
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())

    def __iter__(self) -> Iterator[dict]:
        return iter(self.rows())


def _row(raw: bytes):
    try:
        row = json.loads(raw)
    except ValueError:
        return None
    return row if isinstance(row, dict) and "key" in row else None
