"""Transcripts: every LLM call appended to a JSONL file, the same file ReplayLLM replays.

One line per call: the request (messages and sampling parameters), the answer, token counts,
latency, whether the cache served it, the episode, and the time. Each line is written with a
single ``write`` on a file opened in append mode, so several processes can share one file
without interleaving lines, and a crash loses at most the call in flight.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Iterator, Optional, Union

from .messages import Completion, Request


class Transcript:
    """Appends calls to ``path`` (created with its folder when missing)."""

    def __init__(self, path: Union[str, os.PathLike]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def write(self, request: Request, completion: Completion) -> None:
        from .usage import UsageLedger

        record = {
            "time": time.time(), "episode": UsageLedger.current_episode(),
            "model": completion.model, "request": request.to_dict(), "text": completion.text,
            "usage": {"prompt_tokens": completion.prompt_tokens,
                      "completion_tokens": completion.completion_tokens},
            "latency_s": round(completion.latency_s, 6), "cached": completion.cached,
        }
        if completion.constraint_mode:
            record["constraint_mode"] = completion.constraint_mode
        line = (json.dumps(record, ensure_ascii=False) + "\n").encode()
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)

    def __repr__(self) -> str:
        return f"Transcript({str(self.path)!r})"


def read_transcript(path: Union[str, os.PathLike]) -> Iterator[tuple[int, dict]]:
    """(line number, record) for each call; a broken line raises ValueError naming it. A
    gzipped transcript (``.gz``, as the committed records are) is read as it is."""
    import gzip

    opened = gzip.open(path, "rt", encoding="utf-8") if str(path).endswith(".gz") \
        else open(path, encoding="utf-8")
    with opened as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: not a JSON line ({exc.msg}); a transcript has "
                                 "one JSON object per line") from None
            if not isinstance(record, dict) or "request" not in record or "text" not in record:
                raise ValueError(f"{path}:{n}: a transcript line needs 'request' and 'text'")
            yield n, record


def resolve_transcript(spec) -> Optional[Transcript]:
    """A path or Transcript; None falls back to the job's (``--transcript``), else
    ``$PDDLKIT_TRANSCRIPT`` (:mod:`.call_settings`); False: none."""
    if spec is False:
        return None
    if spec is None:
        from .call_settings import active

        path = active().transcript
        return Transcript(path) if path else None
    if isinstance(spec, (str, os.PathLike)):
        return Transcript(spec)
    return spec
