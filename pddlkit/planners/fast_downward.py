"""Fast Downward, the default planner, run through pddlkit's warm workers.

The translator and the search binary are the ones up-fast-downward ships; unified-planning is
not on this path (no object conversion). The search configurations are Fast Downward's own
aliases, read from its driver, so ``alias="lama"`` means exactly what it means there.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import time
from functools import lru_cache
from pathlib import Path
from typing import Optional, Sequence

from ..diagnostics import Diagnostic, Severity
from ..pddl.plan import parse_plan
from .result import PlanResult, PlanStatus, Timings, error_result
from .protocol import StartedSolve
from .task import PlanningTask, TaskSource
from .tempdirs import make_workdir, remove_workdir
from .workers import POOL, WorkerDied, WorkerTimeout

#: short names for the configurations most people want
ALIAS_SHORTHANDS = {"optimal": "seq-opt-lmcut"}
DEFAULT_ALIAS = "lama-first"

SOLVED = {0, 1, 2, 3}
UNSOLVABLE = {10, 11, 12, 13}
OUT_OF_MEMORY = {20, 22}
TIMEOUT = {21, 23, 24}
EXIT_NAMES = {
    1: "plan found, then out of memory", 2: "plan found, then out of time",
    3: "plan found, then out of memory and time", 10: "translator proved the task unsolvable",
    11: "search proved the task unsolvable",
    12: "search ended without a plan (incomplete configuration: not a proof)",
    13: "no plan within the cost bound", 20: "translator out of memory",
    21: "translator out of time", 22: "search out of memory", 23: "search out of time",
    24: "search out of memory and time", 30: "translator crashed",
    31: "translator rejected the input", 32: "search crashed", 33: "search rejected its input",
    34: "search configuration unsupported for this task",
}


@lru_cache(maxsize=1)
def fd_root() -> Optional[Path]:
    """The Fast Downward tree inside up-fast-downward, located without importing it."""
    spec = importlib.util.find_spec("up_fast_downward")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(list(spec.submodule_search_locations)[0]) / "downward"
    return root if root.is_dir() else None


def search_binary() -> Optional[Path]:
    root = fd_root()
    if root is None:
        return None
    binary = root / "builds" / "release" / "bin" / "downward"
    return binary if binary.exists() else None


def driver_script() -> Optional[Path]:
    root = fd_root()
    return root / "fast-downward.py" if root else None


@lru_cache(maxsize=1)
def fd_aliases() -> dict[str, list[str]]:
    """Fast Downward's own alias table (driver/aliases.py), loaded as a private module."""
    root = fd_root()
    if root is None:
        return {}
    drv = root / "driver"
    name = "_pddlkit_fd_driver"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, drv / "__init__.py", submodule_search_locations=[str(drv)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    aliases = importlib.import_module(name + ".aliases").ALIASES
    return {k: [x.replace(" ", "").replace("\n", "") for x in v] for k, v in aliases.items()}


class FastDownward:
    """Fast Downward with an alias (lama-first, lama, optimal, ...) or explicit search options."""

    #: solve() stops at the time limit itself (the search runs in a killed subprocess)
    limits_itself = True
    #: every classical feature (numbers only as action costs, which the static checks ensure)
    supports = frozenset({"typing", "negative", "disjunctive", "equality", "existential",
                          "universal", "conditional", "costs", "derived"})

    name = "fast-downward"

    def __init__(self, alias: str = DEFAULT_ALIAS, search_options: Optional[Sequence[str]] = None,
                 translate_options: Sequence[str] = ()) -> None:
        self.alias = alias
        self.search_options = list(search_options) if search_options else None
        self.translate_options = list(translate_options)
        if self.search_options is None:
            resolved = ALIAS_SHORTHANDS.get(alias, alias)
            table = fd_aliases()
            if table and resolved not in table:
                import difflib

                known = sorted(set(table) | set(ALIAS_SHORTHANDS))
                close = difflib.get_close_matches(alias, known, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise ValueError(f"unknown Fast Downward alias {alias!r}{hint} "
                                 f"(known: {', '.join(known)})")

    def config(self) -> dict:
        if self.search_options is not None:
            return {"search": self.search_options, "translate": self.translate_options}
        return {"alias": self.alias, "translate": self.translate_options}

    def available(self) -> tuple[bool, str]:
        if search_binary() is None:
            return False, "up-fast-downward is not installed (pip install up-fast-downward)"
        if importlib.util.find_spec("fast_downward.translate") is None:
            return False, "the Fast Downward translator (fast-downward.translate) is missing"
        return True, ""

    def _search_options(self) -> list[str]:
        if self.search_options is not None:
            return self.search_options
        return fd_aliases()[ALIAS_SHORTHANDS.get(self.alias, self.alias)]

    def solve(self, task: PlanningTask, timeout: Optional[float] = None,
              memory_limit: Optional[int] = None) -> PlanResult:
        return self.start(task.source, timeout, memory_limit).finish(task)

    def start(self, source: TaskSource, timeout: Optional[float] = None,
              memory_limit: Optional[int] = None) -> "StartedSolve":
        """Send the task to a warm worker now; :meth:`_Running.finish` collects the answer."""
        ok, why = self.available()
        if not ok:
            return _Failed(error_result(self.name, "planner-unavailable", why, config=self.config(),
                                        hint="install pddlkit's dependencies (make install)"))
        return _Running(self, source, timeout, memory_limit)

    def _result(self, task: PlanningTask, reply: dict, plan_texts: list[str], total: float,
                timeout: Optional[float]) -> PlanResult:
        code = reply.get("code")
        log = reply.get("translate_log", "") + reply.get("search_log", "")
        timings = Timings(reply.get("translate_seconds", 0.0), reply.get("search_seconds", 0.0),
                          total)
        base = dict(planner=self.name, config=self.config(), timings=timings, log=log)
        if reply.get("signal") and code not in SOLVED:
            stage = "translator" if reply.get("stage") == "translate" else "search"
            return PlanResult(PlanStatus.ERROR, diagnostics=(Diagnostic(
                "planner-killed", Severity.ERROR,
                f"the Fast Downward {stage} was killed by signal {reply['signal']}",
                hint="the process was killed from outside (out-of-memory killer or a signal); "
                     "retry, or raise the memory limit"),), note=f"exit {code}", **base)
        if code in SOLVED and plan_texts:
            plan = parse_plan(plan_texts[-1])
            note = EXIT_NAMES.get(code, "") if code else ""
            return PlanResult(PlanStatus.SOLVED, plan=plan, cost=plan.cost, note=note, **base)
        if code in UNSOLVABLE:
            return PlanResult(PlanStatus.UNSOLVABLE, note=EXIT_NAMES[code], **base)
        if code in TIMEOUT:
            limit = f" of {timeout:g}s" if timeout else ""
            return PlanResult(PlanStatus.TIMEOUT, note=EXIT_NAMES[code], diagnostics=(Diagnostic(
                "planner-timeout", Severity.ERROR,
                f"Fast Downward hit the time limit{limit} without a plan ({EXIT_NAMES[code]})",
                hint="raise timeout=" + ("" if self.search_options is None and self.alias in (
                    "lama-first", DEFAULT_ALIAS) else ", try alias='lama-first'")
                     + ", or make the problem smaller"),),
                **base)
        if code in OUT_OF_MEMORY:
            return PlanResult(PlanStatus.OUT_OF_MEMORY, note=EXIT_NAMES[code], diagnostics=(
                Diagnostic("planner-out-of-memory", Severity.ERROR,
                           f"Fast Downward ran out of memory ({EXIT_NAMES[code]})",
                           hint="raise memory_limit=, or ground fewer objects"),), **base)
        return PlanResult(PlanStatus.ERROR, note=EXIT_NAMES.get(code, f"exit {code}"),
                          diagnostics=tuple(log_diagnostics(code, reply, task)), **base)


class _Failed:
    """A solve that could not start; finishing it returns the reason."""

    def __init__(self, result: PlanResult) -> None:
        self.result = result

    def finish(self, task: PlanningTask) -> PlanResult:
        return self.result

    def cancel(self) -> None:
        pass


class _Running:
    """A request in flight on a checked-out worker, with its working directory."""

    def __init__(self, planner: FastDownward, source: TaskSource, timeout: Optional[float],
                 memory_limit: Optional[int]) -> None:
        self.planner = planner
        self.timeout = timeout
        self.start = time.monotonic()
        self.workdir = make_workdir()
        self.worker = None
        self.healthy = False  # the worker goes back to the pool only after a normal reply
        self.failure: Optional[PlanResult] = None
        try:
            domain_file, problem_file = source.files(self.workdir)
            self.worker = POOL.acquire()
            self.worker.send({
                "workdir": self.workdir, "domain": domain_file, "problem": problem_file,
                "translate_options": planner.translate_options,
                "search_binary": str(search_binary()),
                "search_options": planner._search_options(),
                "timeout": timeout, "memory_limit": memory_limit,
            })
        except WorkerDied as exc:
            self.failure = self._killed(exc)
            self._close()
        except BaseException:
            self._close()
            raise

    def _killed(self, exc: Exception) -> PlanResult:
        return error_result(self.planner.name, "planner-killed", str(exc),
                            config=self.planner.config(),
                            hint="the planner process was killed from outside "
                                 "(out of memory killer, or a signal); retry",
                            total=time.monotonic() - self.start)

    def finish(self, task: PlanningTask) -> PlanResult:
        if self.failure is not None:
            return self.failure
        planner, timeout = self.planner, self.timeout
        deadline = self.start + timeout + 10 if timeout else None
        try:
            reply = self.worker.receive(deadline)
            # a failure of the worker itself (not of the translator or search) may leave
            # children or state behind: that worker is replaced
            self.healthy = reply.get("stage") != "worker"
            plan_texts = [Path(p).read_text(errors="replace") for p in reply.get("plans", [])]
        except WorkerTimeout:
            return error_result(planner.name, "planner-timeout",
                                f"Fast Downward did not stop within {timeout:g}s; it was killed",
                                config=planner.config(), status=PlanStatus.TIMEOUT,
                                total=time.monotonic() - self.start)
        except WorkerDied as exc:
            return self._killed(exc)
        finally:
            self._close()
        return planner._result(task, reply, plan_texts, time.monotonic() - self.start, timeout)

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.cancel()
            self.healthy = self.worker.alive
        self._close()

    def _close(self) -> None:
        if self.worker is not None:
            POOL.release(self.worker, self.healthy)
            self.worker = None
        if self.workdir is not None:
            remove_workdir(self.workdir)
            self.workdir = None


_NOISE = re.compile(r"^(\s*$|Parsing|Normalizing|Instantiating|Computing|Generating|Building|"
                    r"Translating|Writing|Done|Processing|Detecting|Simplifying|Reordering|"
                    r"Filtering|Translator|Removing|Checking|Finding|Handling|\[t=|\d+ )")


def log_diagnostics(code: Optional[int], reply: dict, task: PlanningTask) -> list[Diagnostic]:
    """Turn a translator or search failure into a Diagnostic; the traceback stays in the log."""
    stage = reply.get("stage")
    text = reply.get("translate_log", "") if stage != "search" else reply.get("search_log", "")
    lines = [ln for ln in text.splitlines() if not _NOISE.match(ln)]
    if "Traceback (most recent call last)" in text:
        # a translator crash: report the exception line, not the stack
        tail = [ln for ln in text.splitlines() if ln and not ln.startswith(" ")]
        lines = tail[-1:]
    message = " ".join(" ".join(lines[-4:]).split())[:600] or EXIT_NAMES.get(code, f"exit {code}")
    what = EXIT_NAMES.get(code, f"Fast Downward failed with exit code {code}")
    file, line, source_line = _locate(message, task)
    hint = ("fix the PDDL where the translator points; pddlkit's static checks passed this "
            "file, so this is a case they miss (please report it)" if code in (30, 31) else
            "this search configuration cannot handle the task; try alias='lama-first'"
            if code == 34 else "see PlanResult.log for Fast Downward's full output")
    return [Diagnostic(f"fast-downward-exit-{code}", Severity.ERROR, f"{what}: {message}",
                       file=file, line=line, source_line=source_line, hint=hint)]


def _locate(message: str, task: PlanningTask) -> tuple[Optional[str], int, Optional[str]]:
    """Find the PDDL snippet a translator message quotes ('Got: (at ?from)') in the files."""
    m = re.search(r"Got: (\(.*?\))", message) or re.search(r"'([^']{3,})'", message)
    if not m:
        return None, 0, None
    needle = " ".join(m.group(1).lower().split())
    for text, file in ((task.domain_text, task.domain.file or task.domain_path or "domain"),
                       (task.problem_text, task.problem.file or task.problem_path or "problem")):
        for n, src in enumerate(text.splitlines(), start=1):
            if needle in " ".join(src.lower().split()):
                return file, n, src
    return None, 0, None
