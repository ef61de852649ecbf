"""Where cells run: in this process, in local worker processes, or as Ray tasks.

Each executor takes the cells to run and yields ``(cell, row, error)`` as episodes finish, in
whatever order they finish; the runner alone writes rows. Workers find the agent by name in
the agents registry (:mod:`pddlkit.agents`: an entry point of ``pddlkit.agents``) or as a
``"package.module:NAME"`` path to an :class:`~pddlkit.agents.AgentSpec`, importable in any
worker or on any Ray node. A cell is one episode: a :class:`~pddlkit.agents.Job` of one seed,
with the cell's LLM, environment options and agent options.

What crosses the process boundary is plain data both ways: the cell as a dict in, and out
either the row or the failure as text (:func:`play_cell`), never the exception object. An
exception that does not pickle (a third party's, with its own ``__init__``) would otherwise
break the whole pool (``BrokenProcessPool``) instead of failing its cell; pddlkit's own
exceptions pickle as well (``tests/test_bench_pickling.py``), for callers of :func:`run_cell`
in a pool of their own.

Local workers die with the sweep: each sets PR_SET_PDEATHSIG in its initializer
(:func:`pddlkit.processes.die_with_parent`), so ``kill -9`` of ``pddlkit bench`` leaves no
worker playing on; a worker's own children (a warm Fast Downward worker) read the end of their
pipe from it and exit. The workers are started by ``submit`` in the thread that runs the
sweep, which outlives them (the signal follows the starting thread). Ray's workers are Ray's
to manage.
"""

from __future__ import annotations

import os
import time
import traceback
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path
from typing import Iterable, Iterator, Optional

from pddlkit.agents import Job
from pddlkit.processes import die_with_parent

from .config import Cell
from .resolve import cell_llm, load_agent

__all__ = ["EXECUTORS", "executor", "load_agent", "play_cell", "run_cell"]

EXECUTORS = ("process", "inline", "ray")


def run_cell(cell: dict, record: Optional[str]) -> dict:
    """Play one cell; the row to append. Runs in a worker (process or Ray task)."""
    spec = load_agent(cell["kind"])
    if record:
        path = Path(record)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)  # a record left by a killed run starts over
    started = time.monotonic()
    options = dict(cell.get("options") or {})
    llm = cell_llm(spec, cell["llm"], options)
    options.pop("llm", None)
    job = Job(spec, cell["env"], llm, [cell["seed"]], spec.make_options(options),
              dict(cell.get("env_options") or {}), record, rng_seed=cell.get("rng_seed"))
    rows = list(job.play())
    if len(rows) != 1:
        raise RuntimeError(f"agent {spec.name!r} gave {len(rows)} rows for one episode")
    row = rows[0].as_dict()
    row.update({k: cell[k] for k in ("key", "agent", "kind", "env", "difficulty",
                                     "level_index", "seed")})
    # what the row measured, beside its hash: the options as the config gave them
    row["options"] = dict(cell.get("options") or {})
    row["env_options"] = dict(cell.get("env_options") or {})
    row["config"] = cell.get("config") or ""
    row["llm"] = llm
    row["record"] = record
    row["seconds"] = round(time.monotonic() - started, 4)
    return row


Jobs = Iterable[tuple[Cell, Optional[str]]]
Outcomes = Iterator[tuple[Cell, Optional[dict], Optional[str]]]


def _failure(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def play_cell(cell: dict, record: Optional[str]) -> tuple[Optional[dict], Optional[str]]:
    """:func:`run_cell`, with a failure returned as text (the row None): what the executors
    run, so no exception object has to cross a process boundary. The text is the
    exception's type and message, with the agent's frame that raised it."""
    try:
        return run_cell(cell, record), None
    except Exception as exc:  # an agent's bug or bad input: reported, the sweep goes on
        frames = traceback.extract_tb(exc.__traceback__)
        where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
        return None, _failure(exc) + where


def inline_executor(jobs: Jobs, workers: int = 1, **_: object) -> Outcomes:
    for cell, record in jobs:
        row, error = play_cell(cell.to_dict(), record)
        yield cell, row, error


def process_executor(jobs: Jobs, workers: int = 1, **_: object) -> Outcomes:
    """Local worker processes (spawned: no state inherited from the parent), each tied to
    this process's life (see the module's note)."""
    jobs = list(jobs)
    pool = ProcessPoolExecutor(max_workers=max(1, workers), mp_context=get_context("spawn"),
                               initializer=die_with_parent, initargs=(os.getpid(),))
    try:
        queue = iter(jobs)
        running = {}

        def submit() -> bool:
            nxt = next(queue, None)
            if nxt is None:
                return False
            cell, record = nxt
            running[pool.submit(play_cell, cell.to_dict(), record)] = cell
            return True

        for _ in range(max(1, workers) * 2):  # a short queue: a kill loses little
            if not submit():
                break
        while running:
            done, _pending = wait(list(running), return_when=FIRST_COMPLETED)
            for future in done:
                cell = running.pop(future)
                exc = future.exception()  # the pool itself broke (a worker was killed)
                yield (cell, None, _failure(exc)) if exc else (cell, *future.result())
                submit()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def ray_executor(jobs: Jobs, workers: int = 1, address: Optional[str] = None,
                 **_: object) -> Outcomes:
    """The same cells as Ray tasks (extra ``ray``). Uses the Ray instance this process is
    connected to, else ``address`` ('auto', 'ray://host:10001', ...), else a local one."""
    try:
        import ray
    except ImportError:
        raise RuntimeError("the Ray executor needs Ray: pip install 'pddlkit[ray]'") from None
    started = False
    if not ray.is_initialized():
        ray.init(address=address, num_cpus=None if address else max(1, workers),
                 include_dashboard=False, log_to_driver=False)
        started = True
    try:
        task = ray.remote(num_cpus=1, max_retries=0)(play_cell)
        pending = {task.remote(cell.to_dict(), record): cell for cell, record in jobs}
        while pending:
            done, _rest = ray.wait(list(pending), num_returns=1)
            for ref in done:
                cell = pending.pop(ref)
                try:
                    row, error = ray.get(ref)
                except Exception as exc:  # the task itself was lost (a node died)
                    cause = getattr(exc, "cause", None) or exc
                    row, error = None, _failure(cause)
                yield cell, row, error
    finally:
        if started:
            ray.shutdown()


def executor(name: str):
    table = {"process": process_executor, "inline": inline_executor, "ray": ray_executor}
    if name not in table:
        raise ValueError(f"unknown executor {name!r}; use one of {', '.join(EXECUTORS)}")
    return table[name]
