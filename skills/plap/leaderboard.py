"""PLAP's leaderboard (seed 002, Table II): round-robin red-blue games between planners (LLM
specs, the stand-ins) and built-in bots, scored +1 / 0 / -1 per game, with win rate, W/D/L and
the mean RHR, RUR, UPR and CER of each entry.

Entries are strings: ``standin:plap`` (or a bare ``standin``), ``standin:plap:noisy[:rate]``,
an LLM spec (``openai:gpt-4o-mini``, optionally ``...@fs-tip`` for the prompt variant), or
``bot:<name>`` for a built-in bot. Every pair plays ``games`` games with each entry on each
side (blue is player 0). Planner against planner runs both sides from Python
(:func:`.game.play_match`), planner against bot puts the planner on its side against the engine's
AI, bot against bot runs inside the engine.

    python -m pddlkit.skills.plap.leaderboard standin standin:plap:noisy bot:WorkerRush --games 5

The same games run through ``pddlkit bench`` (workers or Ray) with the ``plap`` bench agent:
an env option ``match`` (``"red:WorkerRush"``, ``"blue:plap:standin"``); see
``benchmarks/plap-leaderboard.toml``. ``--from results.jsonl`` (:func:`table_from_rows`) puts
the bench's rows in this layout.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Callable, Optional, Sequence


@dataclass
class Tally:
    entry: str
    results: list = field(default_factory=list)
    metrics: list = field(default_factory=list)

    def add(self, metrics) -> None:
        self.results.append(metrics.result)
        self.metrics.append(metrics)

    def row(self) -> dict:
        ms = self.metrics
        cer = [m.cer for m in ms if m.cer is not None]
        n = len(self.results)
        return {"entry": self.entry, "score": sum(self.results),
                "WR": sum(r == 1 for r in self.results) / n if n else 0.0,
                "W": sum(r == 1 for r in self.results), "D": sum(r == 0 for r in self.results),
                "L": sum(r == -1 for r in self.results), "games": n,
                "RHR": statistics.mean(m.rhr for m in ms) if ms else 0.0,
                "RUR": statistics.mean(m.rur for m in ms) if ms else 0.0,
                "UPR": statistics.mean(m.upr for m in ms) if ms else 0.0,
                "CER": statistics.mean(cer) if cer else None}


def _planner(entry: str, env, seed: int):
    from .entries import make_planner

    spec, _, variant = entry.partition("@")
    return make_planner(spec, env, variant or "zs", seed)


def _bot(entry: str) -> Optional[str]:
    return entry.split(":", 1)[1] if entry.startswith("bot:") else None


def play(blue: str, red: str, seed: int, map: str = "basesWorkers8x8",
         max_cycles: int = 2000, k: int = 100, make_env: Optional[Callable[..., Any]] = None):
    """One game; (blue's metrics, red's metrics). ``make_env`` makes the engine (a job's,
    which carries the environment's flags); by default the registry's
    ``make("microrts", ...)``."""
    from pddlkit.envs.microrts import EXTERNAL, metrics_for

    from .game import play_game, play_match

    if make_env is None:
        from pddlkit.envs import make

        make_env = lambda **given: make("microrts", **given)  # noqa: E731

    def engine(**given):
        return make_env(map=map, max_cycles=max_cycles, **given)

    bots = (_bot(blue), _bot(red))
    if all(bots):
        with engine() as env:
            state, metrics = env.play(bots[0], bots[1], seed=seed)
        return metrics_for(state, metrics, 0), metrics_for(state, metrics, 1)
    if any(bots):
        planner_side = 0 if bots[1] else 1
        bot = bots[1 - planner_side]
        with engine(opponent=bot, player=planner_side) as env:
            env.reset(seed)
            record = play_game(env, _planner((blue, red)[planner_side], env, seed), seed=seed,
                               k=k)
            mine = record.metrics
            theirs = metrics_for(env.state, env.metrics, 1 - planner_side)
        return (mine, theirs) if planner_side == 0 else (theirs, mine)
    with engine(opponent=EXTERNAL) as env:
        env.reset(seed)
        b, r = play_match(env, _planner(blue, env, seed), _planner(red, env, seed + 1),
                          seed=seed, k=k)
    return b.metrics, r.metrics


@dataclass(frozen=True)
class Game:
    """One game of a round robin, as it ended: who played which side, its seed, and each
    side's metrics."""
    blue: str
    red: str
    seed: int
    blue_metrics: Any
    red_metrics: Any

    def line(self, number: int, total: int) -> str:
        """The game's line, printed as it ends (a round robin takes minutes)."""
        result = {1: f"{self.blue} (blue) won", -1: f"{self.red} (red) won",
                  0: "draw"}[self.blue_metrics.result]
        return (f"game {number}/{total}: {self.blue} (blue) vs {self.red} (red), seed "
                f"{self.seed}: {result} at cycle {self.blue_metrics.time}")


def schedule(entries: Sequence[str], games: int = 5, seed: int = 0) -> list[tuple[str, str, int]]:
    """Every (blue, red, seed) of a round robin, in the order it is played: every pair,
    ``games`` games with each entry on each side."""
    return [(blue, red, seed + g) for a, b in combinations(entries, 2)
            for blue, red in ((a, b), (b, a)) for g in range(games)]


def play_all(entries: Sequence[str], games: int = 5, seed: int = 0, **options):
    """The round robin's games, each yielded as it ends (:class:`Game`), so a caller can show
    it and keep what was played when the rest is cut short."""
    for blue, red, game_seed in schedule(entries, games, seed):
        mb, mr = play(blue, red, game_seed, **options)
        yield Game(blue, red, game_seed, mb, mr)


def table(entries: Sequence[str], played: Sequence[Game], by_side: bool = False) -> list[dict]:
    """Table II rows of the games ``played`` (all of a round robin, or those finished before
    it was stopped), best first. ``by_side`` adds a row per entry and side (``standin as
    blue``), where a side bias shows."""
    tallies = {e: Tally(e) for e in entries}
    sides = {(e, side): Tally(f"{e} as {side}") for e in entries for side in ("blue", "red")}
    for game in played:
        tallies[game.blue].add(game.blue_metrics)
        tallies[game.red].add(game.red_metrics)
        sides[game.blue, "blue"].add(game.blue_metrics)
        sides[game.red, "red"].add(game.red_metrics)
    rows = sorted((t.row() for t in tallies.values()), key=lambda r: (-r["score"], r["entry"]))
    if by_side:
        rows += [sides[e, side].row() for e in entries for side in ("blue", "red")]
    return rows


def round_robin(entries: Sequence[str], games: int = 5, seed: int = 0, *,
                by_side: bool = False, **options) -> list[dict]:
    """Every pair, ``games`` games with each entry on each side; Table II rows, best first
    (:func:`table`)."""
    return table(entries, list(play_all(entries, games, seed, **options)), by_side)


def table_from_rows(rows: Sequence[dict]) -> list[dict]:
    """Table II rows from ``pddlkit bench`` results of the ``plap`` agent (one row per game,
    the agent's label as the entry)."""
    from pddlkit.envs.microrts import GameMetrics

    tallies: dict[str, Tally] = {}
    for row in rows:
        m = GameMetrics(row["result"], row["time"], row["produced"], row["spent"],
                        row["harvested"], row["dealt"], row["taken"])
        tallies.setdefault(row["agent"], Tally(row["agent"])).add(m)
    return sorted((t.row() for t in tallies.values()), key=lambda r: (-r["score"], r["entry"]))


def format_table(rows: Sequence[dict]) -> str:
    lines = [f"{'entry':24s} {'score':>6s} {'WR':>7s} {'W/D/L':>10s} {'RHR':>6s} {'RUR':>6s} "
             f"{'UPR':>6s} {'CER':>6s}"]
    for r in rows:
        cer = f"{r['CER']:6.2f}" if r["CER"] is not None else "     -"
        lines.append(f"{r['entry']:24s} {r['score']:6d} {100 * r['WR']:6.1f}% "
                     f"{r['W']:>3d}/{r['D']}/{r['L']:<3d} {r['RHR']:6.2f} {r['RUR']:6.2f} "
                     f"{r['UPR']:6.2f} {cer}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="PLAP's round-robin leaderboard (Table II)")
    parser.add_argument("entries", nargs="*")
    parser.add_argument("--from", dest="results", help="a pddlkit bench results.jsonl of the "
                        "plap agent: print its table instead of playing")
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-cycles", type=int, default=2000)
    parser.add_argument("--by-side", action="store_true",
                        help="also a row per entry and side (where a side bias shows)")
    args = parser.parse_args(argv)
    if args.results:
        import json

        with open(args.results) as f:
            print(format_table(table_from_rows([json.loads(line) for line in f if line.strip()])))
        return 0
    if len(args.entries) < 2:
        parser.error("give at least two entries, or --from RESULTS")
    pairs = len(args.entries) * (len(args.entries) - 1) // 2
    total = len(schedule(args.entries, args.games, args.seed))
    print(f"round robin: {len(args.entries)} entries, {pairs} pairings x {args.games} games "
          f"on each side ({total} games) on the real MicroRTS engine; a line per game as it "
          "ends, then the table", flush=True)  # a first line at once: the games take a while
    played: list[Game] = []
    try:
        for game in play_all(args.entries, args.games, args.seed, max_cycles=args.max_cycles):
            played.append(game)
            print(game.line(len(played), total), flush=True)
    except KeyboardInterrupt:
        # Ctrl-C: the games finished are a table of their own (minutes of play are not
        # thrown away); one line says what it counts, and the shell's status for an interrupt
        if played:
            print(format_table(table(args.entries, played, args.by_side)), flush=True)
        print(f"leaderboard: interrupted (Ctrl-C) after {len(played)} of {total} games; "
              + ("the table above counts those finished" if played else
                 "no game had finished, so there is no table"), file=sys.stderr, flush=True)
        return 130
    print(format_table(table(args.entries, played, args.by_side)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
