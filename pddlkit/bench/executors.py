"""Where cells run: in this process, in local worker processes, or as Ray tasks.

Each executor takes the cells to run and yields ``(cell, row, error)`` as episodes finish, in
whatever order they finish; the runner alone writes rows. Workers import the agent by name
(:func:`load_agent`), so an agent is a plug-in: an entry point of ``pddlkit.agents`` or a
``"package.module:function"`` path, importable in any worker or on any Ray node.
"""

from __future__ import annotations

import importlib
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from importlib.metadata import entry_points
from multiprocessing import get_context
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional

from .config import Cell

EXECUTORS = ("process", "inline", "ray")
AgentFunction = Callable[[dict], dict]


class UnknownAgentError(LookupError):
    pass


def agents() -> dict[str, str]:
    """Registered agents: name -> 'module:function'."""
    return {ep.name: ep.value for ep in entry_points(group="pddlkit.agents")}


def load_agent(name: str) -> AgentFunction:
    if ":" in name:
        module, _, attr = name.partition(":")
    else:
        known = agents()
        if name not in known:
            raise UnknownAgentError(f"unknown agent {name!r}; registered: "
                                    f"{', '.join(sorted(known)) or '(none)'}, or give "
                                    "'package.module:function'")
        module, _, attr = known[name].partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise UnknownAgentError(f"agent {name!r} cannot be loaded: {exc}") from None


def run_cell(cell: dict, record: Optional[str]) -> dict:
    """Play one cell; the row to append. Runs in a worker (process or Ray task)."""
    run = load_agent(cell["kind"])
    if record:
        path = Path(record)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)  # a record left by a killed run starts over
    started = time.monotonic()
    metrics = run({**cell, "record": record})
    row = {k: cell[k] for k in ("key", "agent", "kind", "llm", "env", "difficulty",
                                "level_index", "seed")}
    row.update(metrics)
    if "stand_in" not in row:  # an agent that does not say: judged from its LLM spec
        from pddlkit.llm.spec import names_a_model

        row["stand_in"] = None if names_a_model(cell["llm"]) else \
            f"stand-in (agent {cell['kind']!r} with no LLM: {cell['llm'] or 'its default'})"
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
