"""The response cache: one SQLite file (WAL mode) that any number of processes share.

Why SQLite: a sweep runs agents in many processes, and the same prompt (same model, messages
and sampling parameters) must be paid for once. WAL lets readers and one writer work at once;
``busy_timeout`` makes concurrent writers wait instead of failing, so no entry is lost.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import threading
import time
from pathlib import Path
from typing import Optional, Union

from .messages import Completion, Request

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    latency_s REAL NOT NULL,
    raw TEXT NOT NULL,
    created REAL NOT NULL
)
"""


def cache_dir() -> Path:
    """pddlkit's cache folder: ``$PDDLKIT_CACHE_DIR``, else ``$XDG_CACHE_HOME/pddlkit``."""
    return Path(os.environ.get("PDDLKIT_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "pddlkit"))


def partial_path(target: Path) -> Path:
    """Where this process writes ``target`` before moving it in: one name per process, so two
    processes filling the cache at once (a sweep's workers) never write into one file; what a
    killed process left (its pid gone) is removed here, so it does not hold the disk."""
    stale_ones = target.parent.glob(f"{target.name}.partial-*") \
        if os.path.exists("/proc/self") else ()   # without /proc, whose pid is alive is unknown
    for stale in stale_ones:
        pid = stale.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            if stale.is_dir():
                shutil.rmtree(stale, ignore_errors=True)
            else:
                stale.unlink(missing_ok=True)
    return target.with_name(f"{target.name}.partial-{os.getpid()}")


def default_cache_path() -> Path:
    return cache_dir() / "llm-cache.sqlite"


def cache_disabled() -> bool:
    return os.environ.get("PDDLKIT_NO_CACHE", "").strip().lower() not in ("", "0", "false", "no")


class ResponseCache:
    """LLM answers by request key; safe across threads (one connection each) and processes."""

    def __init__(self, path: Union[str, os.PathLike]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._pid = os.getpid()
        conn = self._conn()
        with conn:
            conn.execute(_SCHEMA)

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None or self._pid != os.getpid():  # a forked child opens its own
            self._pid = os.getpid()
            conn = sqlite3.connect(str(self.path), timeout=60, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=60000")
            self._local.conn = conn
        return conn

    def get(self, key: str) -> Optional[Completion]:
        row = self._conn().execute(
            "SELECT model, text, prompt_tokens, completion_tokens, latency_s, raw "
            "FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        model, text, pt, ct, latency, raw = row
        raw = json.loads(raw)
        mode = raw.pop("pddlkit_constraint_mode", "") if isinstance(raw, dict) else ""
        return Completion(text, pt, ct, model, latency, cached=True, raw=raw,
                          constraint_mode=mode)

    def put(self, key: str, model: str, request: Request, completion: Completion) -> None:
        raw = json.dumps({**completion.raw, "pddlkit_constraint_mode": completion.constraint_mode}
                         if completion.constraint_mode else completion.raw, default=str)
        self._conn().execute(
            "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (key, model, json.dumps(request.to_dict(), ensure_ascii=False), completion.text,
             completion.prompt_tokens, completion.completion_tokens, completion.latency_s, raw,
             time.time()))

    def __len__(self) -> int:
        return self._conn().execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def clear(self) -> None:
        self._conn().execute("DELETE FROM responses")

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.path)!r})"


_OPEN: dict[str, ResponseCache] = {}
_OPEN_LOCK = threading.Lock()


def open_cache(path: Union[str, os.PathLike]) -> ResponseCache:
    """One ResponseCache object per file in this process."""
    key = str(Path(path).expanduser().resolve())
    with _OPEN_LOCK:
        if key not in _OPEN:
            _OPEN[key] = ResponseCache(key)
        return _OPEN[key]


def resolve_cache(spec) -> Optional[ResponseCache]:
    """True: the default file; a path: that file; a cache object: itself; False/None: none.
    ``PDDLKIT_NO_CACHE=1`` turns every cache off."""
    if cache_disabled() or spec is False or spec is None:
        return None
    if spec is True:
        return open_cache(default_cache_path())
    if isinstance(spec, (str, os.PathLike)):
        return open_cache(spec)
    return spec
