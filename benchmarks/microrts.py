"""MicroRTS through pddlkit's adapter: game steps per second (target >= 1,000 on one core for
8x8, issue 19), and the built-in bots' results and seed 002 metrics on basesWorkers8x8.

    .venv/bin/python benchmarks/microrts.py [--games 10] [--cycles 2000] [--no-mcts]

- **Steps per second**: a game stepped one cycle at a time from Python (no unit actions, the
  opponent PassiveAI, so the game runs its full length), each step a round trip to the engine
  process with the whole state back; beside it, the same engine running a bot-vs-bot game
  inside the worker (no round trips), the ceiling.
- **Bots**: WorkerRush (blue, player 0) against each built-in opponent, ``--games`` seeded
  games each: win rate, mean result (+1/0/-1) and RHR / RUR / UPR / CER as seed 002 defines them
  (Table II's columns): the reference rows.
- **Stand-in planners** through PLAP's loop (plan every 100 cycles, PDDL check, executor): the
  tips planner and the noisy one against each bot, same seeds and columns, plus the lines the
  noisy planner had dropped.
- **Mirror**: the tips planner against itself, wins by side (a side bias shows here).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def steps_per_second(cycles: int) -> None:
    from pddlkit.envs.microrts import MicroRTS

    with MicroRTS(opponent="PassiveAI", max_cycles=cycles) as env:
        env.reset(0)
        start = time.perf_counter()
        n = 0
        while not env.done:
            env.step([])
            n += 1
        adapter = n / (time.perf_counter() - start)
        start = time.perf_counter()
        state, _ = env.play("PassiveAI", "PassiveAI", seed=0)
        inside = state["time"] / (time.perf_counter() - start)
    print(f"steps per second, basesWorkers8x8: adapter {adapter:,.0f} (target >= 1,000), "
          f"engine alone (bot vs bot in the worker) {inside:,.0f} over {state['time']} cycles")


def _opponents(mcts: bool) -> list[str]:
    """Seed 002's five bots (NaiveMCTS, about 7 s a game here, only with ``mcts``)."""
    return ["RandomBiasedAI", "WorkerRush", "LightRush", *(["NaiveMCTS"] if mcts else []),
            "CoacAI"]


def bots(games: int, cycles: int, mcts: bool) -> None:
    from pddlkit.envs.microrts import MicroRTS, metrics_for
    from pddlkit.skills.plap.leaderboard import Tally

    opponents = _opponents(mcts)
    print(f"\nWorkerRush (blue) vs each bot, {games} games, {cycles} cycles at most")
    print(f"{'opponent':16s} {'WR':>6s} {'score':>6s} {'RHR':>6s} {'RUR':>6s} {'UPR':>6s} "
          f"{'CER':>6s} {'cycles':>7s} {'s':>5s}")
    with MicroRTS(max_cycles=cycles) as env:
        for opponent in opponents:
            start = time.perf_counter()
            tally = Tally(opponent)
            for s in range(games):
                tally.add(metrics_for(*env.play("WorkerRush", opponent, seed=s), 0))
            r = tally.row()
            print(f"{opponent:16s} {100 * r['WR']:5.0f}% {r['score'] / games:6.2f} "
                  f"{r['RHR']:6.2f} {r['RUR']:6.2f} {r['UPR']:6.2f} "
                  f"{r['CER'] if r['CER'] is not None else float('nan'):6.2f} "
                  f"{statistics.mean(m.time for m in tally.metrics):7.0f} "
                  f"{time.perf_counter() - start:5.1f}", flush=True)
    print("paper (seed 002, Table II, GPT-4o vs the other LLMs): WR 84.3%, score 49/70, "
          "RHR 2.32, RUR 2.34, UPR 1.61, CER 1.63")


def planners(games: int, cycles: int, mcts: bool) -> None:
    from pddlkit.envs.microrts import MicroRTS
    from pddlkit.skills.plap.cli import summarize
    from pddlkit.skills.plap.game import play_game
    from pddlkit.skills.plap.standin import NoisyPlanner, TipsPlanner

    opponents = _opponents(mcts)
    print(f"\nPLAP stand-in planners (blue) vs each bot, {games} games")
    print(f"{'planner':14s} {'opponent':16s} {'WR':>6s} {'score':>6s} {'RHR':>6s} {'RUR':>6s} "
          f"{'UPR':>6s} {'CER':>6s} {'dropped':>8s} {'s':>5s}")
    for name, make in (("tips", lambda s: TipsPlanner()),
                       ("noisy (0.3)", lambda s: NoisyPlanner(0.3, s))):
        for opponent in opponents:
            start = time.perf_counter()
            with MicroRTS(opponent=opponent, max_cycles=cycles) as env:
                records = [play_game(env, make(s), seed=s) for s in range(games)]
            m = summarize(records)
            cer = f"{m['CER']:6.2f}" if m["CER"] is not None else "     -"
            print(f"{name:14s} {opponent:16s} {100 * m['success']:5.0f}% "
                  f"{m['score'] / games:6.2f} {m['RHR']:6.2f} {m['RUR']:6.2f} {m['UPR']:6.2f} "
                  f"{cer} {m['dropped']:8d} {time.perf_counter() - start:5.1f}", flush=True)


def mirror(games: int, cycles: int) -> None:
    """The tips planner against itself on the point-symmetric map: wins by side. A side bias
    (blue lost every game before the executor played the sides as mirror images and contested
    cells went to a seeded coin) shows here."""
    from pddlkit.envs.microrts import MicroRTS
    from pddlkit.skills.plap.game import play_match
    from pddlkit.skills.plap.standin import TipsPlanner

    results = []
    with MicroRTS(opponent="external", max_cycles=cycles) as env:
        for s in range(games):
            blue, _ = play_match(env, TipsPlanner(), TipsPlanner(), seed=s)
            results.append(blue.metrics.result)
    print(f"\ntips planner vs itself, seeds 0-{games - 1}: blue wins {results.count(1)}, red "
          f"wins {results.count(-1)}, draws {results.count(0)}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--cycles", type=int, default=2000)
    parser.add_argument("--no-mcts", action="store_true", help="skip NaiveMCTS (slow)")
    args = parser.parse_args(argv)
    print("benchmarks/microrts.py: MicroRTS steps/s, then the bots and PLAP stand-ins against each bot (starts the Java engine first)", flush=True)  # a first line at once
    steps_per_second(args.cycles)
    bots(args.games, args.cycles, not args.no_mcts)
    planners(args.games, args.cycles, not args.no_mcts)
    mirror(args.games, args.cycles)
    return 0


if __name__ == "__main__":
    from interrupt import run

    run(main, kept="the tables above are complete")
