"""PLAP games: every ``k`` cycles a planner answers a skill plan for the current battlefield;
its lines are parsed, checked against the skills' PDDL annotations, and the valid ones handed
to the executor, which issues unit actions every cycle (seed 002, Algorithm 1).

:func:`play_game` is a planner against a built-in bot; :func:`play_match` two planners against
each other (the engine's other side played from Python, ``opponent="external"``), as the
leaderboard's red-blue games.

Every dropped line is kept with its reason (:attr:`GameRecord.dropped`): unreadable lines from
the parser, impossible ones from the check. A planner with a ``feedback(dropped)`` method is
told which lines of its answer were dropped and why (the LLM planner puts them in its next
prompt; the paper's planner saw nothing of it). A planner that raises or answers nothing keeps
its previous plan (recorded in :attr:`GameRecord.planner_errors`); the game never stops for it.
A game in which the planner never gave a plan at all is marked invalid with the reason
(:attr:`GameRecord.invalid`): it says nothing about the planner's play, so it is neither a
loss nor counted in the tally. An LLM that cannot be reached at all (connection refused, a
request the server rejects: a wrong model name or key) ends the run instead
(:class:`PlannerUnreachable`), since every later game would fail the same way.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Optional

from .check import check_lines
from .complete import complete_lines
from .executor import Executor
from .plan import parse_skill_plan

K = 100


class PlannerUnreachable(RuntimeError):
    """The planner's LLM cannot be reached or refuses every request; the run cannot go on."""


def _fatal(exc: Exception) -> bool:
    from pddlkit.llm.errors import LLMConnectionError, LLMRequestError, LLMSpecError

    return isinstance(exc, (LLMConnectionError, LLMRequestError, LLMSpecError))


@dataclass
class GameRecord:
    opponent: str
    seed: int
    metrics: Any                     # pddlkit.envs.microrts.GameMetrics
    plans: int = 0
    lines: int = 0                   # lines handed to the executor
    written: int = 0                 # lines the planner wrote (skill lines or not)
    unreadable: int = 0              # of those, lines the parser could not read
    dropped: list = field(default_factory=list)   # (cycle, text, reason)
    planner_errors: list = field(default_factory=list)
    seconds: float = 0.0
    invalid: Optional[str] = None    # why the game says nothing of the planner (no plan ever)
    #: with the planner's ``progress`` on: per plan, what the last plan's lines did and the
    #: digest it was shown ({"time", "lines": [(line, status)], "digest"})
    progress: list = field(default_factory=list)
    #: with ``complete``: the lines the skills model inserted, (cycle, line, the LLM's line
    #: it is for)
    inserted: list = field(default_factory=list)

    @property
    def result(self) -> int:
        return self.metrics.result


class _Side:
    """One planner's side of a game: its executor and record."""

    def __init__(self, planner, player: int, opponent: str, seed: int) -> None:
        self.planner, self.player = planner, player
        self.executor = Executor(player)
        self.record = GameRecord(opponent, seed, None)

    def plan(self, t: int, text: str, state: dict, costs: dict, check: bool,
             complete: bool = False) -> None:
        record = self.record
        if getattr(self.planner, "progress", False):   # issue 48: what the last plan did
            from .progress import digest, progress

            done = progress(self.executor, state, costs)
            said = digest(state, self.player, costs)
            self.planner.report_progress(done, said)
            record.progress.append({"time": t, "lines": done, "digest": said})
        try:
            answer = self.planner.plan(text, state, self.player)
        except Exception as exc:  # noqa: BLE001 - a planner failure is data, not a crash
            if _fatal(exc):
                raise PlannerUnreachable(str(exc)) from exc
            record.planner_errors.append((t, f"{type(exc).__name__}: {exc}"))
            return
        if answer is None:
            record.planner_errors.append((t, "the planner gave no answer"))
            return
        parsed = parse_skill_plan(answer)
        record.dropped += [(t, d.text, d.reason) for d in parsed.dropped]
        record.written += len(parsed.lines) + len(parsed.dropped)
        record.unreadable += len(parsed.dropped)
        lines = parsed.lines
        inserted: list = []
        if check and complete:   # issue 48: the skills model completes what the plan lacks
            done = complete_lines(state, self.player, costs, lines)
            record.dropped += [(t, line.text, why) for line, why in done.dropped]
            inserted = [(line.text, wanted) for _k, line, wanted in done.inserted]
            record.inserted += [(t, line, wanted) for line, wanted in inserted]
            lines = done.lines
        elif check:
            checked = check_lines(state, self.player, costs, lines)
            record.dropped += [(t, c.line.text, c.reason) for c in checked if c.reason]
            lines = [c.line for c in checked if not c.reason]
        report = getattr(self.planner, "feedback", None)
        if callable(report):   # the lines dropped from this answer, with reasons
            report([(text_, why) for t_, text_, why in record.dropped if t_ == t])
        told = getattr(self.planner, "completed", None)
        if complete and callable(told):   # and the lines the skills model put in
            told(inserted)
        self.executor.set_plan(lines, state)
        record.plans += 1
        record.lines += len(lines)

    def finish(self, metrics, start: float) -> GameRecord:
        record = self.record
        record.metrics = metrics
        record.seconds = time.monotonic() - start
        if record.plans == 0:
            first = record.planner_errors[0][1] if record.planner_errors else "no answer"
            record.invalid = (f"the planner gave no plan in {len(record.planner_errors)} "
                              f"tries (first: {first})")
        return record


def _name(planner) -> str:
    return getattr(planner, "name", type(planner).__name__)


def play_game(env, planner, seed: int = 0, k: int = K, check: bool = True,
              complete: bool = False) -> GameRecord:
    """Play ``planner`` (an object with ``plan(observation, state, player) -> str``) on
    ``env`` (:class:`pddlkit.envs.microrts.MicroRTS`) against its bot until the game ends.
    ``complete``: the skills model completes each plan (:mod:`.complete`; needs ``check``)."""
    if complete and not check:
        raise ValueError("completing a plan runs it ahead on the skills model that checks it: "
                         "complete needs check")
    start = time.monotonic()
    text, _ = env.reset(seed)
    costs = {t["name"]: t["cost"] for t in env.units_table}
    side = _Side(planner, env.player, env.opponent, seed)
    while not env.done:
        t = env.state["time"]
        if t % k == 0:
            side.plan(t, text, env.state, costs, check, complete)
        text = env.step(side.executor.actions(env.state)).observation
    return side.finish(env.game_metrics(), start)


def play_match(env, blue, red, seed: int = 0, k: int = K, check: bool = True
               ) -> tuple[GameRecord, GameRecord]:
    """``blue`` (player 0) against ``red`` (player 1) on ``env`` made with
    ``opponent="external"``; each side's record, metrics from its own point of view."""
    from pddlkit.envs.microrts import EXTERNAL, metrics_for

    if env.opponent != EXTERNAL or env.player != 0:
        raise ValueError("play_match needs MicroRTS(opponent='external') with player 0")
    start = time.monotonic()
    env.reset(seed)
    costs = {t["name"]: t["cost"] for t in env.units_table}
    sides = [_Side(blue, 0, _name(red), seed), _Side(red, 1, _name(blue), seed)]
    while not env.done:
        t = env.state["time"]
        if t % k == 0:
            for side in sides:
                side.plan(t, env.describe(side.player), env.state, costs, check)
        env.step(sides[0].executor.actions(env.state), sides[1].executor.actions(env.state))
    blue_record, red_record = (side.finish(metrics_for(env.state, env.metrics, side.player),
                                           start) for side in sides)
    return blue_record, red_record
