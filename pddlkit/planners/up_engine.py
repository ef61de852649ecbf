"""Any unified-planning engine by name: ``planner="up:pyperplan"``, ``"up:enhsp"``, ...

The pddlkit model is converted to unified-planning's through PDDL text (the canonical writer,
then unified-planning's own reader), so whatever unified-planning supports is supported. The
engine runs in a child process (``python -m pddlkit.planners.up_engine``): in-process engines
such as pyperplan cannot otherwise be stopped at a time limit, and a crash stays contained.
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
        from ..pddl.writer import write_domain, write_problem

        start = time.monotonic()
        request = json.dumps({"engine": self.engine, "domain": write_domain(task.domain),
                              "problem": write_problem(task.problem), "timeout": timeout})
        proc = subprocess.Popen([sys.executable, "-m", "pddlkit.planners.up_engine"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True,
                                env=_child_env(memory_limit))
        try:
            out, err = proc.communicate(request.encode(), timeout=timeout + 10 if timeout else None)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return error_result(self.name, "planner-timeout",
                                f"{self.name} found no plan within {timeout:g}s and was killed",
                                config=self.config(), status=PlanStatus.TIMEOUT,
                                total=time.monotonic() - start)
        total = time.monotonic() - start
        log = err.decode(errors="replace")
        try:
            reply = json.loads(out.decode().strip().splitlines()[-1])
        except (ValueError, IndexError):
            return error_result(self.name, "planner-failed",
                                f"{self.name} stopped without an answer (exit {proc.returncode})",
                                hint="see PlanResult.log for the engine's output",
                                config=self.config(), log=log, total=total)
        timings = Timings(0.0, total, total)
        if reply.get("error"):
            return PlanResult(PlanStatus.ERROR, self.name, config=self.config(), log=log,
                              timings=timings, diagnostics=(Diagnostic(
                                  "up-engine-error", Severity.ERROR, reply["error"],
                                  hint="the engine may not support this PDDL fragment; try "
                                       "planner='fast-downward'"),))
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
        return PlanResult(status, self.name, plan=plan, config=self.config(), log=log,
                          timings=timings, diagnostics=diags, note=reply["status"].lower())


def _child_env(memory_limit: Optional[int]) -> dict:
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    if memory_limit:
        env["PDDLKIT_MEMORY_LIMIT"] = str(memory_limit)
    return env


def _serve() -> None:
    """Child side: read one request, solve it with unified-planning, print one JSON line."""
    import resource

    limit = os.environ.get("PDDLKIT_MEMORY_LIMIT")
    if limit:
        resource.setrlimit(resource.RLIMIT_AS, (int(limit), resource.getrlimit(resource.RLIMIT_AS)[1]))
    req = json.loads(sys.stdin.read())
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # engines print; only the answer goes to stdout
    try:
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
    real_stdout.write(json.dumps(reply) + "\n")
    real_stdout.flush()


if __name__ == "__main__":
    _serve()
