"""Score one program over a data set on every core: in order, resumable.

``SandboxPool(source, policy, workers=None).map(inputs, results=path)`` calls the program's
entry function once per input (a list of positional arguments, or a dict of keyword
arguments) in ``workers`` persistent sandbox workers (default: one per core) and returns the
:class:`~.host.CallResult` of each input, in the inputs' order. With ``results=`` every finished
call is appended to that JSON-lines file at once, so a run that was stopped continues where it
stopped: inputs already there are not called again (a line cut short by a kill is dropped).
Each line carries a key, the hash of the program's text, the policy and the input: a line
written for another program, policy or input at that position is not reused but run again
(a resume file is keyed by content, not by position alone).

Nothing a program does makes ``map`` raise: a worker that dies, is stopped or sends a reply
that is refused gives its items a :class:`~.errors.ProgramError` and the other items keep
their results. ``map`` raises only for the caller's own faults (inputs that are not JSON).

Inputs are sent in batches, so a call costs one pipe round trip per batch, not per input; each
input still has the policy's own time limit (a batch's limit is the sum), and a worker that
times out or dies in the middle of a batch is replaced and the rest of the batch is retried.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence, Union

from .errors import ErrorKind, ProgramError
from .host import CallResult, SandboxWorker
from .policy import DEFAULT_POLICY, Policy

Input = Union[Sequence[Any], dict]
log = logging.getLogger("pddlkit.sandbox")


def _split(item: Input) -> tuple[list, dict]:
    if isinstance(item, dict):
        return [], dict(item)
    return list(item), {}


class SandboxPool:
    def __init__(self, source: str, policy: Policy = DEFAULT_POLICY,
                 workers: Optional[int] = None, batch: int = 64) -> None:
        self.source = source
        self.policy = policy
        self.size = max(1, workers or os.cpu_count() or 1)
        self.batch = max(1, batch)
        self._workers: list[SandboxWorker] = []

    def load(self) -> Optional[ProgramError]:
        """The program's load error (syntax, a forbidden import, no entry), or None."""
        worker = self._worker(0)
        return worker.load()

    def _worker(self, i: int) -> SandboxWorker:
        while len(self._workers) <= i:
            self._workers.append(SandboxWorker(self.source, self.policy))
        return self._workers[i]

    def map(self, inputs: Sequence[Input], results: Union[str, os.PathLike, None] = None,
            on_result: Optional[Callable[[int, CallResult], None]] = None) -> list[CallResult]:
        """Every input's result, in order (see the module docstring)."""
        out: list[Optional[CallResult]] = [None] * len(inputs)
        store = _ResultsFile(results) if results else None
        keys: list[str] = []
        if store is not None:
            program = hashlib.sha256(json.dumps([self.source, self.policy.to_dict()],
                                                sort_keys=True).encode())
            keys = [_key(program, item) for item in inputs]
            stale = 0
            for index, key, result in store.read():
                if 0 <= index < len(out) and key == keys[index]:
                    out[index] = result
                else:
                    stale += 1
            if stale:
                log.info("pddlkit.sandbox: %d results in %s were for another program, policy "
                         "or input and are run again", stale, store.path)
        todo = [i for i, r in enumerate(out) if r is None]
        error = self.load()
        if error is not None:  # the same for every input: no need to start more workers
            for i in todo:
                out[i] = CallResult(False, error=error)
                if store:
                    store.append(i, keys[i], out[i])
            return out  # type: ignore[return-value]
        chunks = [todo[k:k + self.batch] for k in range(0, len(todo), self.batch)]
        lock = threading.Lock()
        next_chunk = iter(chunks)

        errors: list[BaseException] = []

        def run(slot: int) -> None:
            try:
                work(slot)
            except BaseException as exc:  # the caller's fault (inputs that are not JSON)
                errors.append(exc)

        def work(slot: int) -> None:
            worker = self._worker(slot)
            while not errors:
                with lock:
                    chunk = next(next_chunk, None)
                if chunk is None:
                    return
                items = [_split(inputs[i]) for i in chunk]
                try:
                    answers = worker.call_many(items)
                except TypeError:  # the caller's inputs are not JSON
                    raise
                except Exception as exc:  # noqa: BLE001 - the host's own fault: keep the rest
                    # one line, not a traceback (a Ctrl-C that closes the streams while a
                    # worker starts lands here too); the traceback at debug level
                    log.error("pddlkit.sandbox: scoring a batch failed in the host: %s: %s",
                              type(exc).__name__, exc)
                    log.debug("pddlkit.sandbox: the host's failure", exc_info=True)
                    worker.close()
                    failure = ProgramError(ErrorKind.CRASH, "the sandbox host failed on this "
                                           f"input ({type(exc).__name__}: {exc})")
                    answers = [CallResult(False, error=failure) for _ in chunk]
                for i, result in zip(chunk, answers):
                    out[i] = result
                    with lock:
                        if store:
                            store.append(i, keys[i], result)
                        if on_result:
                            on_result(i, result)

        threads = [threading.Thread(target=run, args=(s,), daemon=True)
                   for s in range(min(self.size, max(1, len(chunks))))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        return out  # type: ignore[return-value]

    def close(self) -> None:
        for w in self._workers:
            w.close()
        self._workers = []

    def __enter__(self) -> "SandboxPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _key(program: "hashlib._Hash", item: Input) -> str:
    """A results line's key: the program's (and policy's) hash with the input's JSON."""
    digest = program.copy()
    try:
        digest.update(json.dumps(item, sort_keys=True, allow_nan=False).encode())
    except (TypeError, ValueError) as exc:
        raise TypeError(f"sandbox call arguments must be JSON values: {exc}") from None
    return digest.hexdigest()[:24]


class _ResultsFile:
    """JSON lines ``{"index": i, "key": k, "result": {...}}``; a cut last line is dropped on
    read; a line without a key (written before keys existed) is never reused."""

    def __init__(self, path: Union[str, os.PathLike]) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            raise ValueError(f"results file {str(self.path)!r} is a directory; name a file")
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def read(self) -> Iterable[tuple[int, str, CallResult]]:
        if not self.path.is_file():
            return []
        rows, good_end = [], 0
        with open(self.path, "rb") as fh:
            data = fh.read()
        for raw in data.split(b"\n"):
            if not raw.strip():
                good_end += len(raw) + 1
                continue
            try:
                row = json.loads(raw)
                rows.append((int(row["index"]), str(row.get("key", "")),
                             CallResult.from_dict(row["result"])))
                good_end += len(raw) + 1
            except (ValueError, KeyError, TypeError):
                break  # a line cut by a kill: drop it and what follows
        if good_end < len(data):
            with open(self.path, "r+b") as fh:
                fh.truncate(min(good_end, len(data)))
        return rows

    def append(self, index: int, key: str, result: CallResult) -> None:
        line = json.dumps({"index": index, "key": key, "result": result.to_dict()}) + "\n"
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(line)


def score_program(source: str, inputs: Sequence[Input], policy: Policy = DEFAULT_POLICY,
                  workers: Optional[int] = None,
                  results: Union[str, os.PathLike, None] = None) -> list[CallResult]:
    """One call: a pool, the results in order, the workers closed."""
    with SandboxPool(source, policy, workers) as pool:
        return pool.map(inputs, results)


__all__ = ["SandboxPool", "score_program", "ErrorKind"]
