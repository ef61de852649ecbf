"""One PLAP game: every ``k`` cycles the planner answers a skill plan for the current
battlefield; its lines are parsed, checked against the skills' PDDL annotations, and the valid
ones handed to the executor, which issues unit actions every cycle (seed 002, Algorithm 1).

Every dropped line is kept with its reason (:attr:`GameRecord.dropped`): unreadable lines from
the parser, impossible ones from the check. A planner with a ``feedback(dropped)`` method is
told which lines of its answer were dropped and why (the LLM planner puts them in its next
prompt; the paper's planner saw nothing of it). A planner that raises or answers nothing keeps the
previous plan (recorded as a dropped answer); the game never stops for it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from .check import check_lines
from .executor import Executor
from .plan import parse_skill_plan

K = 100


@dataclass
class GameRecord:
    opponent: str
    seed: int
    metrics: Any                     # pddlkit.envs.microrts.GameMetrics
    plans: int = 0
    lines: int = 0                   # lines handed to the executor
    dropped: list = field(default_factory=list)   # (cycle, text, reason)
    planner_errors: list = field(default_factory=list)
    seconds: float = 0.0

    @property
    def result(self) -> int:
        return self.metrics.result


def play_game(env, planner, seed: int = 0, k: int = K, check: bool = True) -> GameRecord:
    """Play ``planner`` (an object with ``plan(observation, state, player) -> str``) on
    ``env`` (:class:`pddlkit.envs.microrts.MicroRTS`) until the game ends."""
    start = time.monotonic()
    text, _ = env.reset(seed)
    costs = {t["name"]: t["cost"] for t in env.units_table}
    executor = Executor(env.player)
    record = GameRecord(env.opponent, seed, None)
    while not env.done:
        t = env.state["time"]
        if t % k == 0:
            try:
                answer = planner.plan(text, env.state, env.player)
            except Exception as exc:  # noqa: BLE001 - a planner failure is data, not a crash
                record.planner_errors.append((t, f"{type(exc).__name__}: {exc}"))
                answer = None
            if answer is not None:
                parsed = parse_skill_plan(answer)
                record.dropped += [(t, d.text, d.reason) for d in parsed.dropped]
                lines = parsed.lines
                if check:
                    checked = check_lines(env.state, env.player, costs, lines)
                    record.dropped += [(t, c.line.text, c.reason) for c in checked if c.reason]
                    lines = [c.line for c in checked if not c.reason]
                report = getattr(planner, "feedback", None)
                if callable(report):   # the lines dropped from this answer, with reasons
                    report([(text_, why) for t_, text_, why in record.dropped if t_ == t])
                executor.set_plan(lines, env.state)
                record.plans += 1
                record.lines += len(lines)
        step = env.step(executor.actions(env.state))
        text = step.observation
    record.metrics = env.game_metrics()
    record.seconds = time.monotonic() - start
    return record
