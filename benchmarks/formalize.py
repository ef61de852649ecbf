"""The PDDLego+ loop's own cost, and an Appendix-A-style error table for the noisy formalizer.

1. Overhead per step, excluding LLM latency and planner time: the loop's wall time minus the
   time inside pddlkit.plan, over the observation formalizer's episodes (target: < 50 ms per
   step plus planner time); planner calls per won episode; the planner's time per call.
2. Prompt sizes: each prompt kind the LLM formalizer sends (initial, update, solver_error,
   simulation_error), in tokens estimated at 4 characters a token (no tokenizer is assumed).
3. The noisy formalizer at its default rate (0.3): per CoinCollector size and household
   difficulty group (20 receptacles), errors injected, solver
   and simulation errors met, fixed and aborted, and success, as in the paper's Appendix A.

    python benchmarks/formalize.py [--seeds 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pddlkit.envs import make  # noqa: E402
from pddlkit.envs.household import DIFFICULTIES  # noqa: E402
from pddlkit.formalizers.base import Context, Memory  # noqa: E402
from pddlkit.formalizers.llm_formalizer import LLMFormalizer  # noqa: E402
from pddlkit.formalizers.loop import run_episode  # noqa: E402
from pddlkit.formalizers.noisy import NoisyFormalizer  # noqa: E402
from pddlkit.formalizers.observation import ObservationFormalizer  # noqa: E402
from pddlkit.formalizers.prompts import signatures  # noqa: E402
from pddlkit.llm import ScriptedLLM, estimate_tokens  # noqa: E402

SIZES = (3, 5, 7, 9, 11)


def overhead(seeds: int) -> None:
    per_step, planner_per_call, calls_per_win = [], [], []
    for rooms in SIZES:
        for seed in range(seeds):
            r = run_episode(make("coin-collector", rooms=rooms), ObservationFormalizer(),
                            seed=seed)
            m = r.metrics
            per_step.append((m.loop_seconds - m.planner_seconds) / max(1, m.steps))
            planner_per_call.append(m.planner_seconds / max(1, m.planner_calls))
            if r.won:
                calls_per_win.append(m.planner_calls)
    print("1. loop overhead (observation formalizer, CoinCollector 3-11 rooms, "
          f"{len(per_step)} episodes)")
    print(f"   overhead per step, excluding planner and LLM: median "
          f"{statistics.median(per_step) * 1000:.1f} ms, max {max(per_step) * 1000:.1f} ms "
          f"(target < 50 ms): {'MET' if max(per_step) < 0.05 else 'MISSED'}")
    print(f"   planner time per call: median {statistics.median(planner_per_call) * 1000:.1f} ms")
    print(f"   planner calls per won episode: mean {statistics.mean(calls_per_win):.1f}, "
          f"max {max(calls_per_win)}")


def prompt_sizes() -> None:
    env = make("coin-collector", rooms=7, seed=0)
    obs, info = env.reset()
    llm = LLMFormalizer(ScriptedLLM(["{}"]), "coin-collector")
    files = ObservationFormalizer().propose(Context(
        "initial", env.id, Memory(env.task, [("look around", obs)]), [], "", 0))
    history = [("look around", obs)]
    for command in ("open door to north", "move north", "move east"):
        history.append((command, env.step(command).observation))
    sigs = signatures(env.domain, env.action_schema)
    print("\n2. prompt sizes (CoinCollector, 7 rooms; tokens estimated at 4 characters each)")
    for kind, hist, error in (("initial", history[:1], None), ("update", history, None),
                              ("solver_error", history, "error[undeclared-predicate]: ..."),
                              ("simulation_error", history, "The door to the north is closed.")):
        context = Context(kind, env.id, Memory(env.task, hist), list(info["admissible_commands"]),
                          sigs, 4, None if kind == "initial" else files, error, "move north",
                          ["open door to east"])
        text = llm.render(context)
        print(f"   {kind:<17} {estimate_tokens(text):>6} tokens  ({len(text)} characters)")


def noisy_table(seeds: int) -> None:
    print(f"\n3. noisy formalizer at its default rate (0.3), {seeds} seeds per size "
          "/ difficulty (Appendix A style)")
    print("   (the offline stand-in writes the ground-truth domain file and reads the problem "
          "file from the\n   observations: these rows measure the refine loops on injected "
          "mistakes, not domain formalization)")
    head = (f"   {'environment':<22}{'succ%':>6}{'steps':>7}{'acts':>6}{'inj':>5}"
            f"{'solv err':>9}{'fixed':>6}{'abort':>6}{'sim err':>8}{'fixed':>6}{'abort':>6}")
    print(head)
    cells = [(f"coin-collector/{rooms}", "coin-collector", {"rooms": rooms}) for rooms in SIZES]
    cells += [(f"household/{d}", "household", {"difficulty": d}) for d in DIFFICULTIES]
    for label, env_id, options in cells:
        c: Counter = Counter()
        steps, actions = [], []
        for seed in range(seeds):
            f = NoisyFormalizer(env_id, seed=seed)
            r = run_episode(make(env_id, **options), f, seed=seed)
            m = r.metrics
            c.update(won=int(r.won), inj=len(f.injected), se=m.solver_errors, sf=m.solver_fixed,
                     sa=m.solver_aborts, me=m.simulation_errors, mf=m.simulation_fixed,
                     ma=m.simulation_aborts)
            steps.append(m.steps)
            actions.append(m.actions)
        print(f"   {label:<22}{100 * c['won'] / seeds:>6.0f}"
              f"{statistics.mean(steps):>7.1f}{statistics.mean(actions):>6.1f}{c['inj']:>5}"
              f"{c['se']:>9}{c['sf']:>6}{c['sa']:>6}{c['me']:>8}{c['mf']:>6}{c['ma']:>6}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args()
    print(f"benchmarks/formalize.py: the PDDLego+ loop's overhead, prompt sizes and the noisy formalizer's error table", flush=True)  # a first line at once
    overhead(args.seeds)
    prompt_sizes()
    noisy_table(args.seeds)


if __name__ == "__main__":
    from interrupt import run

    run(main, kept="the tables above are complete")
