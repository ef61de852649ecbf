"""PLAP as an agent of :mod:`pddlkit.agents` (entry point ``plap``): ``pddlkit run plap``,
``pddlkit bench`` cells and ``run_job`` all go through :data:`PLAP`.

    pddlkit run plap --env microrts --opponent RandomBiasedAI --episodes 10
    pddlkit run plap --env microrts --llm standin:plap:noisy --opponent WorkerRush
    pddlkit run plap --env microrts --llm openai:gpt-4o-mini --variant fs-tip

``--llm standin`` (the default, ``standin:plap``) is the planner written from the expert tips;
``standin:plap:noisy`` adds malformed, impossible and wasteful lines; any other value is an LLM
spec, prompted with seed 002's Fig. 3 in the chosen ``--variant``. Games are on basesWorkers8x8
by default; the planner plays blue (``--side red``: red) against a built-in bot. An episode is one game: ``won`` is a win, a draw
is not; a game in which no plan was ever obtained is ``invalid`` (a column giving the reason)
and left out of the tally, since it says nothing of the planner. For the leaderboard, a bench
cell's environment options may put the planner on the red ``side`` or against another
planner (``opponent = "plap:<entry>"``, or ``match = "red:plap:standin"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from pddlkit.agents import AgentError, AgentSpec, option
from pddlkit.agents.helps import Help, helps_column, helps_on, helps_summary, options_with_helps
from pddlkit.llm.grammar import describe_modes

from .entries import STAND_INS, make_planner, stand_in


@dataclass
class _GameOptions:
    """The game's and the paper's planner's options; the helps beyond it come from
    :data:`PLAP_HELPS`."""

    opponent: str = option("RandomBiasedAI", "the built-in bot (RandomBiasedAI, LightRush, "
                                             "WorkerRush, NaiveMCTS, CoacAI, ...)")
    side: str = option("blue", "the side the planner plays (blue is player 0)",
                       choices=("blue", "red"))
    map: str = option("basesWorkers8x8", "a MicroRTS map")
    variant: str = option("zs", "the prompt (zero-/few-shot, with or without tips)",
                          choices=("zs", "zs-tip", "fs", "fs-tip"))
    plan_every: int = option(100, "k, cycles per plan", minimum=1)
    max_cycles: int = option(2000, "game length", minimum=1)
    check: bool = option(True, "check plans against the skills' PDDL annotations (--no-check: "
                               "do not)", flag="--no-check")
    constrained: bool = option(False, "decode under the skill-plan grammar (every line one of "
                                      "the five skills with its parameters), where the LLM's "
                                      "server takes grammars")
    feedback: bool = option(True, "tell the LLM which lines were dropped (--no-feedback: the "
                                  "paper's stateless planner)", flag="--no-feedback")


#: PLAP's helps beyond the paper's planner, one line each (:mod:`pddlkit.agents.helps`):
#: their options, the rows' helps column and summary come from here
PLAP_HELPS: tuple[Help, ...] = (
    Help("progress", "tell the LLM what each line of its last plan did (finished, running, "
                     "not started and why) and give it a digest of the battlefield with the "
                     "lines the skills model accepts now"),
    Help("complete_plan", "complete each plan with the skills model: a line that needs a "
                          "unit or a barracks the player lacks gets the shortest sequence of "
                          "lines that makes it possible inserted before it, marked as the "
                          "model's and told to the LLM (needs the check)"),
)
#: ``pddlkit run plap``'s options: the game's and the planner's, then one per help of
#: :data:`PLAP_HELPS`
PlapOptions = options_with_helps("PlapOptions", _GameOptions, PLAP_HELPS, __name__)


def _setting(o: "PlapOptions", env_options: dict) -> dict:
    """The options, with a bench cell's environment options over them."""
    setting = {"opponent": o.opponent, "map": o.map, "max_cycles": o.max_cycles,
               "side": o.side}
    setting.update({k: v for k, v in env_options.items()
                    if k in ("opponent", "map", "max_cycles", "side")})
    if "match" in env_options:
        setting["side"], _, setting["opponent"] = str(env_options["match"]).partition(":")
    if setting["side"] not in ("blue", "red"):
        raise ValueError(f"side must be blue or red, got {setting['side']!r}")
    return setting


def check_env(env: str, env_options: dict) -> None:
    """A cell's side and opponent (``side``, ``match = "red:WorkerRush"``) read as
    :func:`play` reads them, before a sweep's first episode: a side other than blue or red
    (:func:`_setting`'s check), a planner opponent whose LLM PLAP cannot take (``plap:<llm>``,
    checked as ``--llm`` is), or a bot the environment does not list among its opponents
    (its declared choices) is a ValueError naming it; otherwise each cell of a misspelt level
    would fail when its engine starts."""
    import difflib

    from pddlkit.agents.contract import env_spec
    from pddlkit.agents.standins import parse_stand_in

    opponent = str(_setting(PlapOptions(), env_options)["opponent"])
    if opponent.startswith("plap:"):
        llm = opponent.split(":", 1)[1].split("@")[0]
        # a stand-in as make_planner reads it (a bad mode raises), else an LLM spec as --llm
        if parse_stand_in(llm, STAND_INS, "plap") is None:
            PLAP.check_llm(llm)
        return
    bot = opponent.split(":", 1)[1] if opponent.startswith("bot:") else opponent
    bots = next((o.choices for o in env_spec(env).declared_options() if o.name == "opponent"),
                ())
    if bots and bot not in bots:
        close = difflib.get_close_matches(bot, bots, n=1, cutoff=0.6)
        raise AgentError(f"{env} has no opponent {bot!r}"
                         + (f" (did you mean {close[0]!r}?)" if close else "")
                         + f"; its bots: {', '.join(bots)}; or plap:<llm> for another planner")


def play(job):
    setting = _setting(job.options, job.env_options)
    opponent = str(setting["opponent"])
    if setting["side"] == "red" or opponent.startswith(("plap:", "bot:")):
        yield from _league_games(job, setting)
        return
    from .game import play_game

    o = job.options
    if o.complete_plan and not o.check:
        raise AgentError("--complete-plan runs each plan ahead on the skills model that "
                         "checks it; it cannot go with --no-check (leave one out)")
    with job.make_env(map=setting["map"], opponent=opponent,
                      max_cycles=int(setting["max_cycles"])) as env:
        env.reset(job.seeds[0])
        for seed in job.seeds:
            episode = job.episode(seed)
            planner = make_planner(job.make_llm(), env, o.variant, seed, feedback=o.feedback,
                                   constrained=o.constrained, progress=o.progress)
            record = play_game(env, planner, seed=seed, k=o.plan_every, check=o.check,
                               complete=o.complete_plan)
            m = record.metrics
            for cycle, text, why in record.dropped:
                episode.emit("dropped", cycle=cycle, line=text, reason=why)
            outcome = f"invalid ({record.invalid})" if record.invalid else \
                f"{ {1: 'won', 0: 'draw', -1: 'lost'}[m.result]} at cycle {m.time}"
            summary = (f"vs {opponent}: {outcome}; {record.plans} plans, {record.lines} lines "
                       f"run, {len(record.dropped)} dropped, {len(record.planner_errors)} "
                       f"planner errors"
                       + (f" (first: {record.planner_errors[0][1]})"
                          if record.planner_errors else "")
                       + (f"; decoding {describe_modes(planner.modes)}" if o.constrained
                          else ""))
            if o.progress:
                waiting = sum(status.startswith("not started") for p in record.progress
                              for _line, status in p["lines"])
                summary += (f"; progress told {len(record.progress)} times, {waiting} lines "
                            f"not started")
                for p in record.progress:
                    episode.emit("progress", cycle=p["time"], lines=p["lines"],
                                 digest=p["digest"])
            if o.complete_plan:
                for cycle, line, wanted in record.inserted:
                    episode.emit("inserted", cycle=cycle, line=line, wanted=wanted)
                summary += (f"; the skills model inserted {len(record.inserted)} lines in "
                            f"{len({c for c, _l, _w in record.inserted})} plans")
            used = helps_on(PLAP_HELPS, o)
            summary += helps_summary(used, "the paper's planner")
            # issue 73: where the model that checks (drops) and completes lines came from
            source = ("reference (the skills model, domains/microrts/skills.pddl, by hand)"
                      if o.check or o.complete_plan else "none")
            yield episode.row(m.result == 1 and not record.invalid, summary=summary,
                              helps=helps_column(used), inserted=len(record.inserted),
                              domain_source=source,
                              **m.as_dict(), steps=m.time, opponent=opponent,
                              invalid=record.invalid, plans=record.plans,
                              lines_written=record.written, lines_unreadable=record.unreadable,
                              lines_run=record.lines, dropped=len(record.dropped),
                              planner_errors=len(record.planner_errors))


def _league_games(job, setting: dict):
    """Games for the leaderboard: the planner on either side, against a bot or a planner."""
    from .leaderboard import play as play_league

    opponent = str(setting["opponent"])
    if job.options.complete_plan:
        raise AgentError("--complete-plan completes the plans of a game against a built-in "
                         "bot from the blue side; league games (--side red, --opponent "
                         "plap:... or bot:...) do not take it")
    if job.options.progress:
        raise AgentError("--progress is told to the planner of a game against a built-in bot "
                         "from the blue side; league games (--side red, --opponent plap:... "
                         "or bot:...) do not take it")
    other = opponent.split(":", 1)[1] if opponent.startswith("plap:") else \
        (opponent if opponent.startswith("bot:") else f"bot:{opponent}")
    entry = job.llm if "@" in job.llm else f"{job.llm}@{job.options.variant}"
    for seed in job.seeds:
        episode = job.episode(seed)
        blue, red = (entry, other) if setting["side"] == "blue" else (other, entry)
        mb, mr = play_league(blue, red, seed, map=setting["map"],
                             max_cycles=int(setting["max_cycles"]), k=job.options.plan_every,
                             make_env=job.make_env)
        m = mb if setting["side"] == "blue" else mr
        yield episode.row(m.result == 1, summary=f"{setting['side']} vs {opponent}: result "
                          f"{m.result:+d} at cycle {m.time}", **m.as_dict(), steps=m.time,
                          opponent=opponent, side=setting["side"])


def summarize(records) -> dict:
    """Wins, draws, losses and seed 002's mean metrics of a planner's games (the leaderboard's
    tally), plus the lines dropped and the mean game length (``records``: GameRecords)."""
    import statistics

    from .leaderboard import Tally

    tally = Tally("")
    for r in records:
        if not r.invalid:  # a game without any plan says nothing of the planner
            tally.add(r.metrics)
    row = tally.row()
    return {"games": row["games"], "wins": row["W"], "draws": row["D"], "losses": row["L"],
            "score": row["score"], "success": row["WR"], "RHR": row["RHR"], "RUR": row["RUR"],
            "UPR": row["UPR"], "CER": round(row["CER"], 2) if row["CER"] is not None else None,
            "dropped": sum(len(r.dropped) for r in records),
            "invalid": sum(bool(r.invalid) for r in records),
            "plans": sum(r.plans for r in records),
            "lines_written": sum(r.written for r in records),
            "lines_unreadable": sum(r.unreadable for r in records),
            "lines_run": sum(r.lines for r in records),
            "invalid_reasons": [r.invalid for r in records if r.invalid],
            "planner_errors": sum(len(r.planner_errors) for r in records),
            "steps": statistics.mean(m.time for m in tally.metrics) if tally.metrics else 0.0}


def tally_lines(rows) -> list[str]:
    """The run's tally: wins, draws, losses (invalid games left out) and the mean metrics."""
    valid = [r for r in rows if not r.columns.get("invalid")]
    results = [r.columns["result"] for r in valid]
    line = (f"W/D/L {sum(x == 1 for x in results)}/{sum(x == 0 for x in results)}/"
            f"{sum(x == -1 for x in results)}; score {sum(results):+d}")
    for key in ("RHR", "RUR", "UPR"):
        values = [r.columns[key] for r in valid if r.columns.get(key) is not None]
        line += f"; {key} {sum(values) / len(values):.2f}" if values else f"; {key} n/a"
    invalid = len(rows) - len(valid)
    if invalid:
        line += f"; {invalid} invalid (no plan obtained, not counted)"
    return [line]


def describe(kind: str, data: dict) -> Optional[str]:
    """Live lines: a dropped line with its reason, and (``--progress``) what the last plan's
    lines did when the planner was told."""
    if kind == "dropped":
        return f"cycle {data['cycle']}: dropped {data['line']} ({data['reason']})"
    if kind == "inserted":
        return (f"cycle {data['cycle']}: the skills model inserted {data['line']} "
                f"(for {data['wanted']})")
    if kind == "progress":
        waiting = [f"{line} ({status[len('not started: '):]})" for line, status in data["lines"]
                   if status.startswith("not started")]
        done = sum(status == "finished" for _line, status in data["lines"])
        return (f"cycle {data['cycle']}: last plan {done} finished"
                + (f"; not started: {'; '.join(waiting)}" if waiting else ""))
    return None


PLAP = AgentSpec(
    "plap", "PLAP: an LLM plans over MicroRTS's parameterized skills, checked against their "
    "PDDL annotations", PlapOptions, play, stand_in=stand_in, envs=("microrts",),
    default_env="microrts", summarize=tally_lines, step_budget="max_cycles", describe=describe,
    env_options={"side": "blue or red (a sweep's cell; --side on the command line)",
                 "match": "SIDE:OPPONENT in one value (a sweep's cell)"},
    sets_env_options=("player",), stand_ins=STAND_INS, check_env=check_env)
