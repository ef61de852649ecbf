"""Any unified-planning engine by name: ``planner="up:pyperplan"``, ``"up:enhsp"``, ...

The pddlkit model is converted to unified-planning's through PDDL text (the canonical writer,
then unified-planning's own reader), so whatever unified-planning supports is supported. The
engine runs in a child process (``python -m pddlkit.planners.up_engine``): in-process engines
such as pyperplan cannot otherwise be stopped at a time limit, and a crash stays contained.
The warm worker runs ENHSP in one JVM of its own (:mod:`pddlkit.planners.enhsp_harness`).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from typing import Optional

from ..diagnostics import Diagnostic, Severity
from ..pddl.plan import Plan, PlanStep
from .result import PlanResult, PlanStatus, Timings, error_result
from .task import PlanningTask

#: only UNSOLVABLE_PROVEN is a proof; an incomplete search that found nothing is an ERROR
#: (never cached), since another planner may well find a plan
_STATUS = {
    "SOLVED_SATISFICING": PlanStatus.SOLVED, "SOLVED_OPTIMALLY": PlanStatus.SOLVED,
    "UNSOLVABLE_PROVEN": PlanStatus.UNSOLVABLE,
    "TIMEOUT": PlanStatus.TIMEOUT, "MEMOUT": PlanStatus.OUT_OF_MEMORY,
}


def up_engine_names() -> list[str]:
    """The unified-planning engines installed here that can solve one-shot planning tasks."""
    from unified_planning.shortcuts import get_environment

    factory = get_environment().factory
    names = []
    for name in factory.engines:
        try:
            engine = factory.engine(name)
            if getattr(engine, "is_oneshot_planner", lambda: False)():
                names.append(name)
        except Exception:
            continue
    return names


class UPPlanner:
    #: solve() stops at the time limit itself (a killed subprocess)
    limits_itself = True

    def __init__(self, engine: str) -> None:
        self.engine = engine
        self.name = f"up:{engine}"

    def config(self) -> dict:
        return {"engine": self.engine}

    def supports(self) -> frozenset:
        """What the engine's ``supported_kind()`` says it can plan (in our features)."""
        from unified_planning.shortcuts import get_environment

        from .capabilities import from_up_kind

        engine = get_environment().factory.engine(self.engine)
        return from_up_kind(engine.supported_kind().features)

    def available(self) -> tuple[bool, str]:
        try:
            names = up_engine_names()
        except Exception as exc:  # unified-planning missing or broken
            return False, f"unified-planning is not usable: {exc}"
        if self.engine not in names:
            return False, (f"unified-planning has no one-shot engine {self.engine!r} installed "
                           f"(installed: {', '.join(names) or 'none'})")
        return True, ""

    def solve(self, task: PlanningTask, timeout: Optional[float] = None,
              memory_limit: Optional[int] = None) -> PlanResult:
        """Solved in a warm worker (:data:`~pddlkit.planners.workers.UP_POOL`), or, with a
        ``memory_limit`` (set on the process when it starts), in a child process of its own.
        Either is killed, with its engine, 10 s after ``timeout`` if the engine has not
        stopped at it."""
        start = time.monotonic()
        domain, problem, dropped = up_texts(task)
        request = {"engine": self.engine, "domain": domain, "problem": problem,
                   "timeout": timeout}
        if memory_limit:
            reply, log = self._one_shot(request, timeout, memory_limit)
        else:
            reply, log = self._pooled(request, timeout)
        total = time.monotonic() - start
        if reply is None:
            if log == "timeout":
                return error_result(self.name, "planner-timeout",
                                    f"{self.name} found no plan within {timeout:g}s and was "
                                    f"killed", config=self.config(), status=PlanStatus.TIMEOUT,
                                    total=total)
            return error_result(self.name, "planner-failed",
                                f"{self.name} stopped without an answer ({log})",
                                hint="see PlanResult.log for the engine's output",
                                config=self.config(), log=log, total=total)
        return self._result(reply, log, total, dropped)

    def _pooled(self, request: dict, timeout: Optional[float]) -> tuple[Optional[dict], str]:
        from .workers import UP_POOL, WorkerDied, WorkerTimeout

        try:
            worker = UP_POOL.acquire()
        except (WorkerDied, WorkerTimeout, OSError) as exc:
            return None, f"its worker did not start: {exc}"
        healthy = False
        try:
            reply = worker.request(request, time.monotonic() + timeout + 10 if timeout else None)
            healthy = True
            return reply, reply.pop("log", "")
        except WorkerTimeout:
            return None, "timeout"
        except (WorkerDied, ValueError) as exc:
            return None, str(exc)
        finally:
            UP_POOL.release(worker, healthy)

    def _one_shot(self, request: dict, timeout: Optional[float],
                  memory_limit: int) -> tuple[Optional[dict], str]:
        proc = subprocess.Popen([sys.executable, "-m", "pddlkit.planners.up_engine"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True,
                                env=_child_env(memory_limit))
        try:
            out, err = proc.communicate(json.dumps(request).encode(),
                                        timeout=timeout + 10 if timeout else None)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return None, "timeout"
        log = err.decode(errors="replace")
        try:
            return json.loads(out.decode().strip().splitlines()[-1]), log
        except (ValueError, IndexError):
            return None, f"exit {proc.returncode}; {log[-300:]}"

    def _result(self, reply: dict, log: str, total: float, dropped: bool) -> PlanResult:
        """The engine's reply as a :class:`PlanResult`."""
        timings = Timings(0.0, total, total)
        if reply.get("error"):
            return PlanResult(PlanStatus.ERROR, self.name, config=self.config(), log=log,
                              timings=timings, diagnostics=(Diagnostic(
                                  "up-engine-error", Severity.ERROR, reply["error"],
                                  hint="the engine may not support this PDDL fragment; try "
                                       "another planner (pddlkit planners lists what each "
                                       "supports)"),))
        status = _STATUS.get(reply["status"], PlanStatus.ERROR)
        plan = None
        if status is PlanStatus.SOLVED and reply.get("plan") is not None:
            plan = Plan(tuple(PlanStep(a[0], tuple(a[1:])) for a in reply["plan"]))
        diags = ()
        if status is PlanStatus.ERROR:
            incomplete = reply["status"] == "UNSOLVABLE_INCOMPLETELY"
            diags = (Diagnostic("up-engine-error", Severity.ERROR,
                                f"{self.name} found no plan, but its search is incomplete, so "
                                f"this does not prove there is none" if incomplete else
                                f"{self.name} answered {reply['status']}",
                                hint="try planner='fast-downward', which proves "
                                     "unsolvability" if incomplete else None),)
        note = reply["status"].lower() + ("; the metric's (total-time) is not read by "
                                          "unified-planning: planned without the metric"
                                          if dropped else "")
        return PlanResult(status, self.name, plan=plan, config=self.config(), log=log,
                          timings=timings, diagnostics=diags, note=note)


def up_texts(task: PlanningTask) -> tuple[str, str, bool]:
    """(domain text, problem text, whether the metric was dropped): ``task`` written as
    unified-planning's reader takes it."""
    from ..pddl.writer import write_domain, write_problem

    domain = write_domain(_without_either(task.domain))
    if not task.domain.predicates:   # unified-planning's reader refuses an empty
        domain = domain.replace("\n  (:predicates)", "", 1)   # (:predicates), as PDDL's BNF
    problem, dropped = _without_total_time(task.problem)
    return domain, write_problem(problem), dropped


def _without_total_time(problem):
    """(``problem`` without its metric when the metric reads PDDL 2.1's ``(total-time)``,
    which unified-planning refuses outside temporal problems, whether it was dropped). A
    metric ranks plans; it does not change which plans reach the goal."""
    import dataclasses

    from ..pddl.model import iter_numeric_terms

    metric = problem.metric
    if metric is None or not any(t.name == "total-time"
                                 for t in iter_numeric_terms(metric.expression)):
        return problem, False
    return dataclasses.replace(problem, metric=None), True


def _without_either(domain):
    """``domain`` with each ``(either a b)`` parameter type of a predicate or a function read
    as ``object`` (what Fast Downward does): unified-planning's reader refuses ``either`` there,
    and the actions' own parameter types still say what may fill them."""
    import dataclasses

    def plain(params):
        return tuple(dataclasses.replace(p, types=("object",)) if len(p.types) > 1 else p
                     for p in params)

    if not any(len(p.types) > 1 for d in (*domain.predicates, *domain.functions)
               for p in d.parameters):
        return domain
    return dataclasses.replace(
        domain, predicates=tuple(dataclasses.replace(d, parameters=plain(d.parameters))
                                 for d in domain.predicates),
        functions=tuple(dataclasses.replace(d, parameters=plain(d.parameters))
                        for d in domain.functions))


def _child_env(memory_limit: Optional[int]) -> dict:
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    if memory_limit:
        env["PDDLKIT_MEMORY_LIMIT"] = str(memory_limit)
    return env


def _solve_request(req: dict) -> dict:
    """One request solved with unified-planning: ``{"status", "plan", "log"}`` or
    ``{"error", "log"}``. What engines print is captured into ``log``."""
    import contextlib
    import io

    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            import unified_planning.shortcuts as up
            from unified_planning.io import PDDLReader

            up.get_environment().credits_stream = None
            problem = PDDLReader().parse_problem_string(req["domain"], req["problem"])
            with up.OneshotPlanner(name=req["engine"]) as planner:
                result = planner.solve(problem, timeout=req.get("timeout"))
        plan = None
        if result.plan is not None:
            plan = [[ai.action.name, *(str(p) for p in ai.actual_parameters)]
                    for ai in result.plan.actions]
        reply = {"status": result.status.name, "plan": plan}
    except Exception as exc:
        if type(exc).__name__ == "UPNoRequestedEngineAvailableException":
            reply = {"error": f"unified-planning has no engine {req['engine']!r} that can solve "
                              f"this problem: it is not installed, or it does not support the "
                              f"problem's features (`pddlkit planners` lists the installed ones)"}
        else:
            reply = {"error": f"{type(exc).__name__}: {exc}"}
    reply["log"] = printed.getvalue()[-20_000:]
    return reply


def _serve(loop: bool) -> None:
    """Child side. One-shot: read one request from standard input, print one JSON line
    (the log goes to standard error). ``loop`` (``--serve``, the warm worker of
    :data:`~pddlkit.planners.workers.UP_POOL`): greet, then answer one JSON line per request
    line until standard input closes."""
    import resource

    limit = os.environ.get("PDDLKIT_MEMORY_LIMIT")
    if limit:
        resource.setrlimit(resource.RLIMIT_AS, (int(limit), resource.getrlimit(resource.RLIMIT_AS)[1]))
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # nothing but answers goes to the real stdout
    if not loop:
        reply = _solve_request(json.loads(sys.stdin.read()))
        sys.stderr.write(reply.pop("log", ""))
        real_stdout.write(json.dumps(reply) + "\n")
        real_stdout.flush()
        return
    import unified_planning.shortcuts  # noqa: F401  (imported once, while the host waits)

    from .enhsp_harness import install

    install()   # ENHSP in one warm JVM for this worker's life (per problem where it cannot)

    real_stdout.write(json.dumps({"ready": os.getpid()}) + "\n")
    real_stdout.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        real_stdout.write(json.dumps(_solve_request(json.loads(line))) + "\n")
        real_stdout.flush()


if __name__ == "__main__":
    _serve("--serve" in sys.argv[1:])
