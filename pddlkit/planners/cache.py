"""Plan caches keyed by a canonical hash of domain, problem and planner configuration.

A benchmark sweep or an agent loop asks the same question many times; the answer (solved with
this plan, or unsolvable for these reasons) does not change, so it is stored. Only
deterministic outcomes are cached: timeouts, memory-outs and errors are not, since a retry
with more time may succeed.

Two keys point at an answer: the hash of the raw text (checked first, no parsing needed, which
keeps a hit under a millisecond) and the hash of the canonical PDDL (the same for any
formatting, comments or letter case). The canonical entry holds the planner's answer without
the warnings of the text that first asked, whose lines and excerpts are that text's; a hit
there is given the asking text's own (``pddlkit.planners.api``).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Optional, Protocol, Union

from .result import PlanResult, PlanStatus

CACHEABLE = (PlanStatus.SOLVED, PlanStatus.UNSOLVABLE)


def config_key(planner: str, config: dict) -> str:
    return hashlib.sha256(json.dumps([planner, config], sort_keys=True).encode()).hexdigest()


def entry_key(task_key: str, planner_key: str) -> str:
    return task_key + ":" + planner_key


class PlanCache(Protocol):
    def get(self, key: str) -> Optional[PlanResult]: ...

    def put(self, keys: list[str], result: PlanResult) -> None: ...


class MemoryPlanCache:
    """A bounded LRU cache in this process (the default)."""

    def __init__(self, maxsize: int = 4096) -> None:
        self.maxsize = maxsize
        self._data: OrderedDict[str, PlanResult] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Optional[PlanResult]:
        with self._lock:
            result = self._data.get(key)
            if result is not None:
                self._data.move_to_end(key)
            return result

    def put(self, keys: list[str], result: PlanResult) -> None:
        with self._lock:
            for key in keys:
                self._data[key] = result
                self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        return len(self._data)


class PlanCacheError(ValueError):
    """The cache path cannot hold a plan cache (a directory, a missing folder, a file that is
    not an SQLite database): the caller's mistake, reported before any planning."""


class SQLitePlanCache:
    """A cache on disk, shared by processes (SQLite in WAL mode), with a memory layer on top.

    The folder must exist (a typo in a path must not silently create a directory tree); the
    file is created when missing, and an existing file must be an SQLite database."""

    def __init__(self, path: Union[str, Path]) -> None:
        self.path = str(path)
        where = Path(self.path)
        if where.is_dir():
            raise PlanCacheError(f"plan cache {self.path!r} is a directory; name a file in it, "
                                 f"e.g. {str(where / 'plans.sqlite')!r}")
        if not where.parent.is_dir():
            raise PlanCacheError(f"plan cache {self.path!r}: folder {str(where.parent)!r} does "
                                 "not exist; create it first or name a file in an existing folder")
        self._local = threading.local()
        self._memory = MemoryPlanCache()
        try:
            with self._connect() as db:
                db.execute("CREATE TABLE IF NOT EXISTS plans "
                           "(key TEXT PRIMARY KEY, result TEXT NOT NULL)")
        except sqlite3.DatabaseError as exc:
            self._local.db = None
            raise PlanCacheError(f"plan cache {self.path!r} is not an SQLite database ({exc}); "
                                 "name a new file, or a plan cache pddlkit wrote") from None

    def _connect(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            self._local.db = db
        return db

    def get(self, key: str) -> Optional[PlanResult]:
        hit = self._memory.get(key)
        if hit is not None:
            return hit
        row = self._connect().execute("SELECT result FROM plans WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        result = PlanResult.from_dict(json.loads(row[0]))
        self._memory.put([key], result)
        return result

    def put(self, keys: list[str], result: PlanResult) -> None:
        text = json.dumps(result.to_dict(include_log=False))
        db = self._connect()
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany("INSERT OR REPLACE INTO plans (key, result) VALUES (?, ?)",
                           [(k, text) for k in keys])
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        self._memory.put(keys, result)

    def __len__(self) -> int:
        return self._connect().execute("SELECT COUNT(*) FROM plans").fetchone()[0]


DEFAULT_CACHE = MemoryPlanCache()
