"""``pddlkit run --agent plap`` (an entry point of ``pddlkit.run_agents``) and the ``plap``
agent of ``pddlkit bench`` (``pddlkit.agents``).

    pddlkit run --agent plap --env microrts --opponent RandomBiasedAI --episodes 10
    pddlkit run --agent plap --env microrts --llm standin-noisy --opponent WorkerRush
    pddlkit run --agent plap --env microrts --llm openai:gpt-4o-mini --variant fs-tip

``--llm standin`` (the default) is the planner written from the expert tips; ``standin-noisy``
adds malformed, impossible and wasteful lines; any other value is an LLM spec, prompted with
seed 002's Fig. 3 in the chosen ``--variant``. Games are on basesWorkers8x8 by default, the
planner plays blue, seeds ``--seed`` onwards.
"""

from __future__ import annotations

import json
import sys
from typing import Optional


def add_arguments(parser) -> None:
    group = parser.add_argument_group("plap (--agent plap)")
    group.add_argument("--opponent", default="RandomBiasedAI",
                       help="plap: the built-in bot (RandomBiasedAI, LightRush, WorkerRush, "
                            "NaiveMCTS, CoacAI, ...)")
    group.add_argument("--map", default="basesWorkers8x8", help="plap: a MicroRTS map")
    group.add_argument("--variant", default="zs", choices=["zs", "zs-tip", "fs", "fs-tip"],
                       help="plap: the prompt (zero-/few-shot, with or without tips)")
    group.add_argument("--plan-every", type=int, default=100, help="plap: k, cycles per plan")
    group.add_argument("--max-cycles", type=int, default=2000, help="plap: game length")
    group.add_argument("--no-check", action="store_true",
                       help="plap: do not check plans against the skills' PDDL annotations")
    group.add_argument("--no-feedback", action="store_true",
                       help="plap: do not tell the LLM which lines were dropped (the paper's "
                            "stateless planner)")


def make_planner(spec: str, env, variant: str = "zs", seed: int = 0, feedback: bool = True):
    from .planner import LLMPlanner
    from .standin import NoisyPlanner, TipsPlanner

    if spec in ("standin", "observation", None):
        return TipsPlanner()
    if spec.startswith("standin-noisy"):
        rate = float(spec.split(":", 1)[1]) if ":" in spec else 0.3
        return NoisyPlanner(rate, seed)
    from pddlkit.llm import load_llm

    return LLMPlanner(load_llm(spec), env.units_table, variant, feedback=feedback)


def stand_in(llm: Optional[str]) -> Optional[str]:
    """What the stand-in planner knows, for row labels and summaries; None for an LLM."""
    spec = str(llm or "").split("@")[0]
    if spec in ("", "standin", "observation"):
        return "stand-in (the expert tips)"
    if spec.startswith("standin-noisy"):
        return "stand-in (the expert tips, with noisy lines)"
    return None


def run(args) -> int:
    from pddlkit.envs.microrts import MicroRTS
    from pddlkit.envs.microrts_assets import MicroRTSMissing
    from pddlkit.llm.errors import LLMError

    from .game import PlannerUnreachable, play_game

    if args.env != "microrts":
        print(f"pddlkit run --agent plap: environment {args.env!r} is not supported; use "
              f"microrts", file=sys.stderr)
        return 2
    records = []
    planner = None
    try:
        with MicroRTS(map=args.map, opponent=args.opponent, max_cycles=args.max_cycles) as env:
            env.reset(args.seed)
            for k in range(args.episodes):
                planner = make_planner(args.llm, env, args.variant, args.seed + k,
                                       feedback=not args.no_feedback)
                record = play_game(env, planner, seed=args.seed + k, k=args.plan_every,
                                   check=not args.no_check)
                records.append(record)
                if not args.quiet and not args.json:
                    m = record.metrics
                    outcome = f"invalid ({record.invalid})" if record.invalid else \
                        f"{ {1: 'won', 0: 'draw', -1: 'lost'}[m.result]} at cycle {m.time}"
                    print(f"game {k} vs {args.opponent}: {outcome}; "
                          f"{record.plans} plans, {record.lines} lines run, "
                          f"{len(record.dropped)} dropped, "
                          f"{len(record.planner_errors)} planner errors")
    except (PlannerUnreachable, LLMError, MicroRTSMissing, ValueError, RuntimeError,
            OSError) as exc:
        if records:  # the finished games are not lost with the run
            print(_summary_line(args.opponent, summarize(records)), file=sys.stderr)
        print(f"pddlkit run --agent plap: {exc}", file=sys.stderr)
        return 2
    summary = summarize(records)
    usage = getattr(getattr(getattr(planner, "llm", None), "ledger", None), "run", None)
    summary.update(llm_calls=usage.calls if usage else 0,
                   prompt_tokens=usage.prompt_tokens if usage else 0,
                   completion_tokens=usage.completion_tokens if usage else 0)
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    who = stand_in(args.llm) or args.llm
    print(f"[{who}] " + _summary_line(args.opponent, summary))
    errors = [why for r in records for _, why in r.planner_errors]
    if errors:
        print(f"  planner errors: {len(errors)} (first: {errors[0]})")
    if usage:
        print(f"  LLM calls {usage.calls}, tokens {usage.prompt_tokens}+"
              f"{usage.completion_tokens}")
    reasons = {}
    for r in records:
        for _, _, why in r.dropped:
            reasons[why] = reasons.get(why, 0) + 1
    for why, n in sorted(reasons.items(), key=lambda kv: -kv[1])[:5]:
        print(f"  dropped {n}x: {why}")
    return 0


def _summary_line(opponent: str, summary: dict) -> str:
    def number(key: str) -> str:
        value = summary[key]
        return "n/a" if value is None else f"{value:.2f}"

    line = (f"vs {opponent}: {summary['wins']} won, {summary['draws']} drawn, "
            f"{summary['losses']} lost; score {summary['score']:+d}; RHR {number('RHR')}, "
            f"RUR {number('RUR')}, UPR {number('UPR')}, CER {summary['CER']}")
    if summary["invalid"]:
        line += f"; {summary['invalid']} invalid (no plan obtained, not counted)"
    return line


def summarize(records) -> dict:
    """Wins, draws, losses and seed 002's mean metrics of a planner's games (the leaderboard's
    tally), plus the lines dropped and the mean game length."""
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


def bench_agent(cell: dict) -> dict:
    """``agent = "plap"`` in a sweep config: one game. The planner is the cell's ``llm``
    (``standin``, ``standin-noisy``, an LLM spec; ``@variant`` picks the prompt); env options
    ``opponent`` (a built-in bot, or ``plap:<entry>`` / ``bot:<name>`` for the leaderboard),
    ``side`` (blue or red), or both as ``match = "red:plap:standin"``; ``map``,
    ``max_cycles``. The row has the game's result and seed 002's metrics for the planner's
    side."""
    from .leaderboard import play

    env_options = cell.get("env_options") or {}
    llm = cell.get("llm")
    entry = llm if llm not in (None, "None", "", "observation") else \
        (cell.get("options") or {}).get("llm", "standin")
    side = env_options.get("side", "blue")
    opponent = str(env_options.get("opponent", "RandomBiasedAI"))
    if "match" in env_options:
        side, _, opponent = str(env_options["match"]).partition(":")
    other = opponent.split(":", 1)[1] if opponent.startswith("plap:") else \
        (opponent if opponent.startswith("bot:") else f"bot:{opponent}")
    if side not in ("blue", "red"):
        raise ValueError(f"side must be blue or red, got {side!r}")
    blue, red = (entry, other) if side == "blue" else (other, entry)
    options = {k: env_options[k] for k in ("map", "max_cycles") if k in env_options}
    mb, mr = play(blue, red, cell["seed"], **options)
    m = mb if side == "blue" else mr
    return {**m.as_dict(), "success": float(m.result == 1), "steps": m.time,
            "stand_in": stand_in(entry)}
