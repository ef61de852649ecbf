"""Real ALFWorld games (built from the alfworld wheel), per task type: Fast Downward on the true
model (alfred.pddl and the game's problem) beside the offline observation formalizer playing
through the PDDLego+ loop, and the native household as the reference the formalizer was built on.

    make alfworld && .venv/bin/python benchmarks/alfworld.py [--seeds 10]

Columns: won (of the seeds), actions per episode, simulation errors (and how many the loop
fixed), and seconds for the task type's episodes.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import pddlkit  # noqa: E402
from pddlkit.envs import make  # noqa: E402
from pddlkit.formalizers.loop import run_episode  # noqa: E402
from pddlkit.formalizers.observation import ObservationFormalizer  # noqa: E402

TASKS = ("pick", "look", "clean", "heat", "cool", "pick_two")
HOUSEHOLD = {"pick": "pick_and_place", "look": "look_at_obj_in_light",
             "clean": "pick_clean_then_place", "heat": "pick_heat_then_place",
             "cool": "pick_cool_then_place", "pick_two": "pick_two_obj_and_place"}


def true_model_wins(env, seeds: int) -> int:
    won = 0
    for seed in range(seeds):
        env.reset(seed)
        result = pddlkit.plan(env.true_domain, env.true_problem)
        if result.plan is None:
            continue
        for command in env.commands_for_plan(result.plan):
            if env.step(command).error:
                break
        won += env.won
    return won


def formalizer_row(env, env_id: str, seeds: int) -> tuple[int, float, int, int, float]:
    won = actions = errors = fixed = 0
    start = time.perf_counter()
    for seed in range(seeds):
        result = run_episode(env, ObservationFormalizer(env_id), seed=seed)
        won += result.won
        actions += result.metrics.actions
        errors += result.metrics.simulation_errors
        fixed += result.metrics.simulation_fixed
    return won, actions / seeds, errors, fixed, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args()
    n = args.seeds
    print("(the observation formalizer writes the household's ground-truth domain and reads the "
          "problem file\n from ALFWorld's text: it measures problem-file reading, not domain "
          "formalization)")
    print(f"{'task':<9} {'FD on true model':>16} | {'ALFWorld: observation formalizer':<40} | "
          f"household (reference, 20 receptacles)")
    totals = [0, 0, 0]
    for task in TASKS:
        with make("alfworld", task=task) as env:
            fd = true_model_wins(env, n)
            won, acts, errs, fixed, secs = formalizer_row(env, "alfworld", n)
        house = make("household", receptacles=20, difficulty=HOUSEHOLD[task])
        h_won, h_acts, h_errs, h_fixed, _ = formalizer_row(house, "household", n)
        totals = [totals[0] + fd, totals[1] + won, totals[2] + h_won]
        print(f"{task:<9} {fd:>13}/{n:<2} | won {won:>2}/{n}, {acts:5.1f} actions, sim err "
              f"{errs} (fixed {fixed}), {secs:4.0f}s | won {h_won:>2}/{n}, {h_acts:5.1f} actions, "
              f"sim err {h_errs}")
    total = n * len(TASKS)
    print(f"{'all':<9} {totals[0]:>13}/{total:<3}| won {totals[1]}/{total} "
          f"({100 * totals[1] / total:.0f}%){'':<27}| won {totals[2]}/{total} "
          f"({100 * totals[2] / total:.0f}%)")


if __name__ == "__main__":
    from interrupt import run

    run(main)
