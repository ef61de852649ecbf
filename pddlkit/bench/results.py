"""The results file: JSONL, one row per finished episode, appended as each one finishes.

Only the harness's main process writes, one whole line at a time, flushed and synced, so a
killed run loses at most the episodes in flight. A last line cut short by the kill is found
on the next open, dropped (the file is truncated to the last whole row) and reported with a
warning; its cell simply runs again. A broken line elsewhere is skipped with a warning, never
silently.

A row is reused only for the cell that measured it: its ``key`` names the cell (label, LLM,
environment, level, seed) and its ``config`` is the hash of everything else that changes the
result (:meth:`~.config.Cell.config`: the agent's resolved options, the environment's
options, the LLM spec and :data:`RESULT_FORMAT`). A row whose cell is in the sweep under
another ``config`` (an option changed since) or under none (written before the hash existed)
is moved to ``results.superseded.jsonl`` beside the file before the run (:meth:`set_aside`),
so the file keeps one row per cell for the report, and the old measurement is kept, not
deleted.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from dataclasses import dataclass
from typing import Iterator, Mapping, Union

#: the version of what a row means: bump it when a change of the code changes the rows it
#: writes (a column's meaning, how an episode is counted), so that no earlier row is reused
#: (3: IPP rows are scored rows, with ``score`` and ``measure``; their ``won`` and
#: ``success_rate`` count held-out episodes that reached the goal, not programs that ran)
RESULT_FORMAT = 3


class CorruptResultsWarning(UserWarning):
    pass


def row_identity(row: Mapping) -> str:
    """What a row measured: its cell's key and config hash (empty for rows written before
    the hash was part of a row, which therefore match no cell)."""
    return f"{row['key']}#{row.get('config') or ''}"


@dataclass
class SetAside:
    """The rows :meth:`ResultsFile.set_aside` moved out: ``unhashed`` were written before a
    row carried its config hash, ``changed`` under other options than the sweep's now."""

    unhashed: int = 0
    changed: int = 0
    path: Union[Path, None] = None

    def notes(self) -> list[str]:
        """One line per kind of row moved, for the sweep's output."""
        out = []
        if self.unhashed:
            out.append(f"note: {self.unhashed} row(s) were written before a cell's identity "
                       f"held its options, so they are not reused; moved to {self.path} and "
                       "run again")
        if self.changed:
            out.append(f"note: {self.changed} row(s) were measured with other options, LLM "
                       f"spec or result format than the sweep's now; moved to {self.path} and "
                       "run again")
        return out


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
        """Finished cells by :func:`row_identity` (the first row wins; later duplicates are
        ignored)."""
        out: dict[str, dict] = {}
        for row in self.rows(repair=True):
            out.setdefault(row_identity(row), row)
        return out

    @property
    def superseded_path(self) -> Path:
        return self.path.with_name(self.path.stem + ".superseded" + self.path.suffix)

    def set_aside(self, current: Mapping[str, str]) -> SetAside:
        """Move out the rows of the cells in ``current`` (key -> config hash) measured under
        another config, or none, to :attr:`superseded_path`; other rows stay as they are.

        The moved lines are appended and synced there first, then the file is replaced by its
        remaining lines in one rename, so a kill at any point loses no row (at worst a row is
        in both files, and the next run moves it again)."""
        moved = SetAside(path=self.superseded_path)
        if not self.path.exists():
            return moved
        self.rows(repair=True)  # a cut last line is dropped (with its warning) first
        keep: list[bytes] = []
        out: list[bytes] = []
        for raw in self.path.read_bytes().splitlines(keepends=True):
            row = _row(raw)
            if row is None or row["key"] not in current or \
                    row.get("config") == current[row["key"]]:
                keep.append(raw)
                continue
            out.append(raw)
            if row.get("config"):
                moved.changed += 1
            else:
                moved.unhashed += 1
        if not out:
            return moved
        with open(moved.path, "ab") as fh:
            fh.writelines(out)
            fh.flush()
            os.fsync(fh.fileno())
        temporary = self.path.with_name(self.path.name + ".tmp")
        with open(temporary, "wb") as fh:
            fh.writelines(keep)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temporary, self.path)
        return moved

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
