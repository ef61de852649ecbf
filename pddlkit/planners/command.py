"""Any command-line planner: ``CommandPlanner("myplanner {domain} {problem} {plan}")``.

The placeholders are exactly ``{domain}``, ``{problem}`` and ``{plan}`` (shell-quoted paths);
every other brace is the command's own (``awk '{print}'`` works). The command runs in a fresh
working directory (removed afterwards, also on timeout) in its own process group, so a timeout
kills the planner and everything it started; its output goes to a file, not a pipe, so a child
that left the group and still holds the output open cannot keep the call past its limit.

The plan is read from the ``{plan}`` file; planners that write numbered plans (``plan.1``,
``plan.2``, ... as anytime planners do) are handled, the last one being the best. A planner
that prints its plan instead (FF's ``step 0: PICK-UP A`` lines, or ``(pick-up a)`` lines) is
read from its output when no plan file appears.

**Unsolvable only on proof.** A planner is believed to have proved a task unsolvable only by
what it declares: ``unsolvable_exit_codes`` (Fast Downward's 10, 11 and 12 by default, since
``cmd:`` is most often its driver) or ``unsolvable_output``, a regular expression its output
matches only then (none by default: "search failed" in a crash message is not a proof). Any
other exit without a plan is an ERROR, which is never cached, so a crash is not remembered as
"no plan exists".
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

PLACEHOLDERS = ("{domain}", "{problem}", "{plan}")
#: a plan printed on stdout: ``(pick-up a)`` lines, optionally numbered (``0: (pick-up a)``),
#: or FF's ``step    0: PICK-UP A`` and ``        1: STACK A B``
_PRINTED_STEP = re.compile(r"^\s*(?:step\s+)?(?:\d+(?:\.\d+)?\s*:\s*)(\(?[A-Za-z][^()]*\)?)"
                           r"(?:\s*\[\d+(?:\.\d+)?\])?\s*$|^\s*(\([A-Za-z][^()]*\))\s*$", re.I)


class CommandPlanner:
    #: solve() stops at the time limit itself (a killed subprocess)
    limits_itself = True

    def __init__(self, command: str, name: Optional[str] = None,
                 unsolvable_exit_codes: Sequence[int] = (10, 11, 12),
                 unsolvable_output: Optional[str] = None) -> None:
        if "{domain}" not in command or "{problem}" not in command:
            raise ValueError("the command needs {domain} and {problem} placeholders "
                             "(and {plan} where the planner writes its plan)")
        self.command = command
        self.name = name or "cmd:" + command.split()[0]
        self.unsolvable_exit_codes = tuple(int(c) for c in unsolvable_exit_codes)
        try:
            self.unsolvable_output = re.compile(unsolvable_output) if unsolvable_output else None
        except re.error as exc:
            raise ValueError(f"unsolvable_output {unsolvable_output!r} is not a regular "
                             f"expression: {exc}") from None

    def config(self) -> dict:
        config: dict = {"command": self.command}
        if self.unsolvable_exit_codes != (10, 11, 12):
            config["unsolvable_exit_codes"] = list(self.unsolvable_exit_codes)
        if self.unsolvable_output is not None:
            config["unsolvable_output"] = self.unsolvable_output.pattern
        return config

    def command_line(self, domain: str, problem: str, plan: str) -> str:
        """The shell command with the three placeholders filled (nothing else replaced)."""
        values = dict(zip(PLACEHOLDERS, (shlex.quote(domain), shlex.quote(problem),
                                         shlex.quote(plan))))
        return re.sub("|".join(map(re.escape, PLACEHOLDERS)), lambda m: values[m.group(0)],
                      self.command)

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
            cmd = self.command_line(domain, problem, plan_file)
            if memory_limit:
                cmd = f"ulimit -v {memory_limit // 1024}; {cmd}"
            output = os.path.join(wd, "output.log")
            with open(output, "wb") as out:
                proc = subprocess.Popen(["/bin/sh", "-c", cmd], cwd=wd, stdout=out,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        start_new_session=True)
                timed_out = False
                try:
                    proc.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    timed_out = True
                    _kill_group(proc)
                    proc.wait()
            log = Path(output).read_text(errors="replace")
            total = time.monotonic() - start
            plans = sorted(glob.glob(plan_file + ".*"),
                           key=lambda p: int(p.rsplit(".", 1)[1]) if p.rsplit(".", 1)[1].isdigit() else -1)
            if os.path.exists(plan_file):
                plans.append(plan_file)
            texts = [Path(p).read_text(errors="replace") for p in plans]
        timings = Timings(0.0, total, total)
        base = dict(config=self.config(), log=log, timings=timings)
        code = proc.returncode
        if not (texts and texts[-1].strip()) and not timed_out:
            printed = printed_plan(log, {a.name for a in task.domain.actions})
            texts = [printed] if printed else texts
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
        if code in self.unsolvable_exit_codes or (
                self.unsolvable_output is not None and self.unsolvable_output.search(log)):
            proof = f"exit {code}" if code in self.unsolvable_exit_codes else \
                f"its output says so ({self.unsolvable_output.pattern!r})"
            return PlanResult(PlanStatus.UNSOLVABLE, self.name, note=proof, **base)
        last = " ".join(log.strip().splitlines()[-3:])[:400]
        return PlanResult(PlanStatus.ERROR, self.name, note=f"exit {code}", diagnostics=(Diagnostic(
            "planner-failed", Severity.ERROR,
            f"{self.name} exited with code {code} and wrote no plan" + (f": {last}" if last else ""),
            hint="run the command by hand on the files to see its full output (PlanResult.log); "
                 "a planner that proves unsolvability by another exit code or message declares "
                 "it (unsolvable_exit_codes=, unsolvable_output=)"),),
            **base)


def printed_plan(log: str, actions: set[str]) -> Optional[str]:
    """The plan a planner printed (FF's ``step 0: A B`` lines or ``(a b)`` lines, in one run of
    consecutive lines whose every step names one of the domain's ``actions``, so echoed PDDL
    such as an ``(at kitchen)`` fact is not taken for a plan), as plan-file text; None when the
    output holds none."""
    runs: list[list[str]] = [[]]
    for line in log.splitlines():
        m = _PRINTED_STEP.match(line)
        step = (m.group(1) or m.group(2)).strip() if m else ""
        step = step if step.startswith("(") else f"({step.lower()})"
        if m and step[1:].split(maxsplit=1)[0].rstrip(")").lower() in actions:
            runs[-1].append(step)
        elif runs[-1]:
            runs.append([])
    best = max(runs, key=len)
    return "\n".join(best) + "\n" if best else None


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
