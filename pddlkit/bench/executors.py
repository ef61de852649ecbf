"""Where cells run: in this process, in local worker processes, or as Ray tasks.

Each executor takes the cells to run and yields ``(cell, row, error)`` as episodes finish, in
whatever order they finish; the runner alone writes rows. Workers find the agent by name in
the agents registry (:mod:`pddlkit.agents`: an entry point of ``pddlkit.agents``) or as a
``"package.module:NAME"`` path to an :class:`~pddlkit.agents.AgentSpec`, importable in any
worker or on any Ray node. A cell is one episode: a :class:`~pddlkit.agents.Job` of one seed,
with the cell's LLM, environment options and agent options.
"""

from __future__ import annotations

import importlib
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path
from typing import Iterable, Iterator, Optional

from pddlkit.agents import AgentSpec, Job, UnknownAgentError, get_agent

from .config import Cell

EXECUTORS = ("process", "inline", "ray")


def load_agent(name: str) -> AgentSpec:
    """The agent ``name``: a registered name or ``"package.module:NAME"``."""
    if ":" not in name:
        return get_agent(name)
    module, _, attr = name.partition(":")
    try:
        spec = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise UnknownAgentError(f"agent {name!r} cannot be loaded: {exc}") from None
    if not isinstance(spec, AgentSpec):
        raise UnknownAgentError(f"agent {name!r} is a {type(spec).__name__}, not an "
                                "AgentSpec (see pddlkit.agents)")
    return spec


def run_cell(cell: dict, record: Optional[str]) -> dict:
    """Play one cell; the row to append. Runs in a worker (process or Ray task)."""
    spec = load_agent(cell["kind"])
    if record:
        path = Path(record)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)  # a record left by a killed run starts over
    started = time.monotonic()
    options = dict(cell.get("options") or {})
    llm = cell["llm"] or options.pop("llm", "") or spec.default_llm
    options.pop("llm", None)
    job = Job(spec, cell["env"], llm, [cell["seed"]], spec.make_options(options),
              dict(cell.get("env_options") or {}), record, rng_seed=cell.get("rng_seed"))
    rows = list(spec.play(job))
    if len(rows) != 1:
        raise RuntimeError(f"agent {spec.name!r} gave {len(rows)} rows for one episode")
    row = rows[0].as_dict()
    row.update({k: cell[k] for k in ("key", "agent", "kind", "env", "difficulty",
                                     "level_index", "seed")})
    row["llm"] = llm
    row["record"] = record
    row["seconds"] = round(time.monotonic() - started, 4)
    return row


Jobs = Iterable[tuple[Cell, Optional[str]]]
Outcomes = Iterator[tuple[Cell, Optional[dict], Optional[str]]]


def _failure(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def inline_executor(jobs: Jobs, workers: int = 1, **_: object) -> Outcomes:
    for cell, record in jobs:
        try:
            yield cell, run_cell(cell.to_dict(), record), None
        except Exception as exc:  # an agent's bug: reported, the sweep goes on
            yield cell, None, _failure(exc)


def process_executor(jobs: Jobs, workers: int = 1, **_: object) -> Outcomes:
    """Local worker processes (spawned: no state inherited from the parent)."""
    jobs = list(jobs)
    pool = ProcessPoolExecutor(max_workers=max(1, workers), mp_context=get_context("spawn"))
    try:
        queue = iter(jobs)
        running = {}

        def submit() -> bool:
            nxt = next(queue, None)
            if nxt is None:
                return False
            cell, record = nxt
            running[pool.submit(run_cell, cell.to_dict(), record)] = cell
            return True

        for _ in range(max(1, workers) * 2):  # a short queue: a kill loses little
            if not submit():
                break
        while running:
            done, _pending = wait(list(running), return_when=FIRST_COMPLETED)
            for future in done:
                cell = running.pop(future)
                exc = future.exception()
                yield (cell, None, _failure(exc)) if exc else (cell, future.result(), None)
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
        task = ray.remote(num_cpus=1, max_retries=0)(run_cell)
        pending = {task.remote(cell.to_dict(), record): cell for cell, record in jobs}
        while pending:
            done, _rest = ray.wait(list(pending), num_returns=1)
            for ref in done:
                cell = pending.pop(ref)
                try:
                    yield cell, ray.get(ref), None
                except Exception as exc:
                    cause = getattr(exc, "cause", None) or exc
                    yield cell, None, _failure(cause)
    finally:
        if started:
            ray.shutdown()


def executor(name: str):
    table = {"process": process_executor, "inline": inline_executor, "ray": ray_executor}
    if name not in table:
        raise ValueError(f"unknown executor {name!r}; use one of {', '.join(EXECUTORS)}")
    return table[name]
