"""PLAP's ``complete_plan`` on the plan Qwen2.5-Coder 1.5B wrote, without the model: the plan
it gave at every step of a measured game (``examples/real-llm/helps-records/plap-*``) is
answered again by a scripted LLM against RandomBiasedAI, with and without the skills model
completing it, on the same seeds. It says what completion alone can do for that plan; a real
model also reads the prompt's note of the lines added and may write another plan.

    .venv/bin/python benchmarks/plap_complete.py --seeds 5 --cycles 600,2000
    .venv/bin/python benchmarks/plap_complete.py --plans all --seeds 5 --cycles 600,2000

``--plans`` replays other fixed plans the same way, to say what kind of plan can win here at
all: the model's plan with more harvesters and ranged units (what completion could add), and a
worker rush shaped like the expert tips' (two harvesters, workers that attack). A plan is
answered at every step unchanged, so this measures the plan's kind, not a model.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

#: what Qwen2.5-Coder 1.5B wrote in every plan of its games with --progress (the record's
#: lines run and dropped; helps-records/plap-microrts-vs-randombiasedai-5-games-on-partial)
QWEN = ("[Produce Unit](worker, north)\n[Harvest Mineral](0, 0)\n"
        "[Build Building](barracks, (2, 3))\n[Attack Enemy](ranged, base)\n")


#: the model's plan with two more harvesters and three ranged units to attack with
ECONOMY = QWEN + ("[Harvest Mineral](0, 0)\n[Harvest Mineral](0, 0)\n"
                  "[Produce Unit](ranged, north)\n[Produce Unit](ranged, north)\n"
                  "[Produce Unit](ranged, north)\n[Attack Enemy](ranged, worker)\n")
#: a worker rush in the shape of the expert tips' plan (skills/plap/standin.py)
RUSH = ("[Harvest Mineral](0, 0)\n[Harvest Mineral](0, 0)\n" + "[Produce Unit](worker, south)\n" * 4
        + "[Attack Enemy](worker, worker)\n" * 4 + "[Attack Enemy](worker, base)\n" * 2)
#: what the model wrote most often in the paper's fs-tip variant with --progress (5 of its
#: first 25 answers, tied with one other; helps-records/plap-...-fs-tip-on): a rush with one
#: worker produced for four attack lines
QWEN_FS_TIP = ("[Produce Unit](worker, north)\n[Build Building](barracks, (2, 3))\n"
               "[Harvest Mineral](0, 0)\n" + "[Attack Enemy](worker, worker)\n" * 4
               + "[Attack Enemy](worker, base)\n")
PLANS = {"qwen": QWEN, "economy": ECONOMY, "rush": RUSH, "qwen-fs-tip": QWEN_FS_TIP}


def games(complete: bool, cycles: int, seeds: int, plan: str = QWEN) -> list:
    from pddlkit.envs.microrts import MicroRTS
    from pddlkit.llm.scripted import ScriptedLLM
    from pddlkit.skills.plap.game import play_game
    from pddlkit.skills.plap.planner import LLMPlanner

    out = []
    for seed in range(seeds):
        with MicroRTS(opponent="RandomBiasedAI", max_cycles=cycles) as env:
            planner = LLMPlanner(ScriptedLLM(lambda messages: plan), env.units_table)
            out.append(play_game(env, planner, seed=seed, k=100, complete=complete))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--cycles", default="600,2000", help="game lengths, comma-separated")
    parser.add_argument("--plans", default="qwen",
                        help=f"fixed plans to replay, comma-separated, or all: {', '.join(PLANS)}")
    args = parser.parse_args()
    names = list(PLANS) if args.plans == "all" else args.plans.split(",")
    unknown = [n for n in names if n not in PLANS]
    if unknown:
        parser.error(f"unknown plan(s) {', '.join(unknown)}; plans: {', '.join(PLANS)}, all")
    print("| plan | cycles | complete-plan | W/D/L | game ends (cycle) | lines dropped | lines inserted |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        for cycles in (int(c) for c in args.cycles.split(",")):
            for complete in (False, True):
                _row(name, cycles, complete, games(complete, cycles, args.seeds, PLANS[name]))


def _row(name: str, cycles: int, complete: bool, records: list) -> None:
    results = [r.metrics.result for r in records]
    print(f"| {name} | {cycles} | {'on' if complete else 'off'} | "
          f"{results.count(1)}/{results.count(0)}/{results.count(-1)} | "
          f"{', '.join(str(r.metrics.time) for r in records)} | "
          f"{sum(len(r.dropped) for r in records)} | "
          f"{sum(len(r.inserted) for r in records)} |", flush=True)


if __name__ == "__main__":
    from interrupt import run

    run(main)
