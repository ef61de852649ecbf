"""Any command-line planner: ``CommandPlanner("myplanner {domain} {problem} {plan}")``.

The command runs in a fresh working directory (removed afterwards, also on timeout) in its own
process group, so a timeout kills the planner and everything it started. The plan is read from
the ``{plan}`` file; planners that write numbered plans (``plan.1``, ``plan.2``, ... as anytime
planners do) are handled, the last one being the best.
"""

from __future__ import annotations

import glob
import os
import re
import shlex
import signal
import subprocess
import time
from pathlib import Path
from typing import Optional, Sequence

from ..diagnostics import Diagnostic, PlanFormatError, Severity
from ..pddl.plan import parse_plan
from .result import PlanResult, PlanStatus, Timings, error_result
from .task import PlanningTask
from .tempdirs import workdir

_UNSOLVABLE_TEXT = re.compile(r"unsolvable|no solution|no plan|goal.*unreachable|search failed",
                              re.IGNORECASE)


class CommandPlanner:
    def __init__(self, command: str, name: Optional[str] = None,
                 unsolvable_exit_codes: Sequence[int] = (10, 11, 12)) -> None:
        if "{domain}" not in command or "{problem}" not in command:
            raise ValueError("the command needs {domain} and {problem} placeholders "
                             "(and {plan} where the planner writes its plan)")
        self.command = command
        self.name = name or "cmd:" + command.split()[0]
        self.unsolvable_exit_codes = tuple(unsolvable_exit_codes)

    def config(self) -> dict:
        return {"command": self.command}

    def available(self) -> tuple[bool, str]:
        exe = shlex.split(self.command)[0]
        from shutil import which

        if which(exe) is None and not os.path.exists(exe):
            return False, f"{exe} is not on PATH"
        return True, ""

    def solve(self, task: PlanningTask, timeout: Optional[float] = None,
              memory_limit: Optional[int] = None) -> PlanResult:
        start = time.monotonic()
        with workdir() as wd:
            domain, problem = task.files(wd)
            plan_file = os.path.join(wd, "plan")
            cmd = self.command.format(domain=shlex.quote(domain), problem=shlex.quote(problem),
                                      plan=shlex.quote(plan_file))
            if memory_limit:
                cmd = f"ulimit -v {memory_limit // 1024}; {cmd}"
            proc = subprocess.Popen(["/bin/sh", "-c", cmd], cwd=wd, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, start_new_session=True)
            timed_out = False
            try:
                out, _ = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill_group(proc)
                out, _ = proc.communicate()
            log = out.decode(errors="replace")
            total = time.monotonic() - start
            plans = sorted(glob.glob(plan_file + ".*"),
                           key=lambda p: int(p.rsplit(".", 1)[1]) if p.rsplit(".", 1)[1].isdigit() else -1)
            if os.path.exists(plan_file):
                plans.append(plan_file)
            texts = [Path(p).read_text(errors="replace") for p in plans]
        timings = Timings(0.0, total, total)
        base = dict(config=self.config(), log=log, timings=timings)
        code = proc.returncode
        if texts and texts[-1].strip():
            try:
                plan = parse_plan(texts[-1])
            except PlanFormatError as exc:
                return PlanResult(PlanStatus.ERROR, self.name, diagnostics=tuple(exc.diagnostics),
                                  **base)
            note = "stopped at the time limit; best plan so far" if timed_out else ""
            return PlanResult(PlanStatus.SOLVED, self.name, plan=plan, cost=plan.cost, note=note,
                              **base)
        if timed_out:
            return error_result(self.name, "planner-timeout",
                                f"{self.name} found no plan within {timeout:g}s and was killed",
                                hint="raise timeout=", config=self.config(), log=log, total=total,
                                status=PlanStatus.TIMEOUT)
        signum = -code if code < 0 else (code - 128 if 128 < code < 128 + 65 else 0)
        if signum in (signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT, signal.SIGTERM,
                      signal.SIGBUS):  # the shell reports a killed child as 128 + signal
            return error_result(self.name, "planner-killed",
                                f"{self.name} was killed by signal {signal.Signals(signum).name}",
                                hint="the planner crashed or was killed (out of memory?); see "
                                     "PlanResult.log", config=self.config(), log=log, total=total)
        if code in self.unsolvable_exit_codes or _UNSOLVABLE_TEXT.search(log):
            return PlanResult(PlanStatus.UNSOLVABLE, self.name, note=f"exit {code}", **base)
        last = " ".join(log.strip().splitlines()[-3:])[:400]
        return PlanResult(PlanStatus.ERROR, self.name, note=f"exit {code}", diagnostics=(Diagnostic(
            "planner-failed", Severity.ERROR,
            f"{self.name} exited with code {code} and wrote no plan" + (f": {last}" if last else ""),
            hint="run the command by hand on the files to see its full output (PlanResult.log)"),),
            **base)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
