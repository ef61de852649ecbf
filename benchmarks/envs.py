"""Steps per second and reset time of each native environment, at its smallest and largest size.

A step is one command through the full path: parse the command, map it to a ground action
(hidden parameters joined against the state), check the precondition, apply the effects,
check the goal, render the observation. Commands are drawn (seeded) from the admissible
commands of the current state plus one failing command in ten, so failure messages are timed
too. The plan is replayed twice: steps alone, and steps with the admissible list read after
every step (as a TWOSOME or CoPiC agent reads it). Targets (issue 20), for a 60-receptacle
household on one core: >= 5,000 steps/s with the admissible list read every step, and a reset
in <= 5 ms.

When the ALFWorld venv exists (`make alfworld`), real ALFWorld games are timed too, at the
smallest and largest scene the wheel ships (FloorPlan304: 3 receptacles; FloorPlan9: 47):
TextWorld's PDDL engine in the worker process, plus the pipe, for comparison with the native
household. Their reset is a warm reset of a loaded game.

The last table times plan validation in the IPC domains with recursive derived predicates
(psr-middle, optical-telegraphs, from ../shared/corpus when present): semi-naive evaluation
(pddlkit's) beside the evaluation it replaced, which tried every rule's candidates again in
each round until nothing changed (kept here as the reference).

    python benchmarks/envs.py [--steps 5000] [--alfworld-steps 200] [--no-derived]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pddlkit.envs.coin_collector import CoinCollector  # noqa: E402
from pddlkit.envs.household import Household  # noqa: E402

TARGET = 5000.0
RESET_TARGET_MS = 5.0


def measure(make, steps: int, seed: int = 0) -> tuple[float, float, float]:
    """(steps/s, steps/s with the admissible list read after every step, reset seconds)."""
    env = make()
    rng = random.Random(seed)
    t0 = time.perf_counter()
    resets = 5
    for s in range(resets):
        env.reset(seed=s)
    reset_s = (time.perf_counter() - t0) / resets
    env.reset(seed=seed)
    plan: list[str] = []
    while len(plan) < steps:  # commands chosen from real states, replayed for timing
        snap = env.snapshot()
        commands = [c for c in env.admissible_commands() if c not in ("look", "inventory")]
        command = rng.choice(commands) if commands and rng.random() > 0.1 else "take unicorn 1"
        env.step(command)
        if env.won or env.steps >= env.max_steps - 1:
            env.restore(snap)
            env.reset(seed=seed)
            plan.append("RESET")
        plan.append(command)
    rates = []
    for read_admissible in (False, True):
        env.reset(seed=seed)
        timed = 0
        start = time.perf_counter()
        for command in plan:
            if command == "RESET":
                env.reset(seed=seed)
                continue
            env.step(command)
            if read_admissible:
                env.admissible_commands()
            timed += 1
        rates.append(timed / (time.perf_counter() - start))
    return rates[0], rates[1], reset_s


def alfworld(steps: int, seed: int = 0) -> list[tuple[str, float, float]]:
    """(name, steps/s, reset seconds) for the smallest and largest ALFWorld scene, or [] with a
    note when the ALFWorld venv is missing."""
    from pddlkit.envs.alfworld_adapter import ALFWorldEnv, ALFWorldUnavailable

    out = []
    for floorplan in (304, 9):
        try:
            env = ALFWorldEnv(task="pick", floorplan=floorplan, max_steps=10**6)
        except ALFWorldUnavailable as exc:
            print(f"(ALFWorld not timed: {exc})")
            return out
        with env:
            env.reset(seed)  # builds and loads the game
            t0 = time.perf_counter()
            for _ in range(3):
                env.reset(seed)
            reset_s = (time.perf_counter() - t0) / 3
            rng = random.Random(seed)
            start = time.perf_counter()
            for _ in range(steps):
                commands = [c for c in env.admissible_commands() if c not in ("look", "help")]
                env.step(rng.choice(commands) if rng.random() > 0.1 else "take unicorn 1")
                if env.won:
                    env.reset(seed)
            rate = steps / (time.perf_counter() - start)
            out.append((f"alfworld, {env.game['receptacles']} receptacles", rate, reset_s))
    return out


class FullRoundsWorld:
    """The reference: derived atoms by full rounds (every candidate of every rule, again until
    a round adds nothing), as pddlkit evaluated them before semi-naive evaluation."""

    @staticmethod
    def with_derived(world, state):
        from pddlkit.semantics.formulas import candidate_bindings, holds
        from pddlkit.semantics.state import State
        from pddlkit.semantics.world import LiveView

        names = {r.predicate.name for r in world.domain.derived}
        atoms = {a for a in state.atoms if a[0] not in names}
        view = LiveView(atoms, state)
        for stratum in world.derived_strata:
            changed = True
            while changed:
                changed = False
                for rule in stratum:
                    params = rule.predicate.parameters
                    for b in candidate_bindings(params, rule.condition, view, {}, world):
                        head = (rule.predicate.name, *[b[p.name] for p in params])
                        if head not in atoms and holds(rule.condition, view, b, world):
                            view.add(head)
                            changed = True
        return State(frozenset(atoms), state.fluents)


def derived_validation() -> None:
    from pddlkit import parse_domain, parse_plan, parse_problem, validate_plan
    from pddlkit.semantics.world import World

    corpus = REPO.parent / "shared" / "corpus" / "ipc"
    cases = [("psr-middle", p) for p in ("p02", "p20", "p47")] + [("optical-telegraphs", "p01")]
    if not corpus.exists():
        print(f"\n(no corpus at {corpus}: derived-predicate validation not timed)")
        return
    print(f"\n{'plan validation':<28} {'steps':>6} {'semi-naive':>11} {'full rounds':>12} "
          f"{'speed-up':>9}")
    for domain_name, name in cases:
        base = corpus / domain_name
        domain = parse_domain((base / "domain.pddl").read_text())
        problem = parse_problem((base / f"{name}.pddl").read_text())
        plan = parse_plan((base / f"{name}.plan").read_text())
        times = []
        for reference in (False, True):
            world = World(domain, problem)
            if reference:
                world.with_derived = lambda state, w=world: FullRoundsWorld.with_derived(w, state)
            start = time.perf_counter()
            assert validate_plan(domain, problem, plan, world=world).valid
            times.append(time.perf_counter() - start)
        print(f"{domain_name + ' ' + name:<28} {len(plan.steps):>6} {times[0]:>10.2f}s "
              f"{times[1]:>11.2f}s {times[1] / times[0]:>8.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--alfworld-steps", type=int, default=200)
    parser.add_argument("--no-derived", action="store_true",
                        help="skip the derived-predicate validation table")
    args = parser.parse_args()
    cases = [
        ("coin-collector, 3 rooms", lambda: CoinCollector(rooms=3, max_steps=10**6)),
        ("coin-collector, 100 rooms", lambda: CoinCollector(rooms=100, max_steps=10**6)),
        ("household, 8 receptacles", lambda: Household(receptacles=8, max_steps=10**6)),
        ("household, 60 receptacles", lambda: Household(receptacles=60, max_steps=10**6)),
    ]
    print(f"{'environment':<28} {'steps/s':>10} {'+admissible':>12} {'reset':>10}   target")
    result = {}
    for name, make in cases:
        rate, with_admissible, reset_s = measure(make, args.steps)
        result[name] = (with_admissible, reset_s)
        target = (f">= {TARGET:,.0f} steps/s with the list, reset <= {RESET_TARGET_MS:.0f} ms"
                  if name.endswith("60 receptacles") else "")
        print(f"{name:<28} {rate:>10,.0f} {with_admissible:>12,.0f} {reset_s * 1000:>8.2f}ms"
              f"   {target}")
    for name, rate, reset_s in alfworld(args.alfworld_steps):
        print(f"{name:<28} {'':>10} {rate:>12,.1f} {reset_s * 1000:>8.1f}ms   (TextWorld's "
              f"PDDL engine; its admissible list comes with every step)")
    rate, reset_s = result["household, 60 receptacles"]
    print(f"\ntargets, household with 60 receptacles on one core: >= {TARGET:,.0f} steps/s with "
          f"the admissible list read every step: {'MET' if rate >= TARGET else 'MISSED'} "
          f"({rate:,.0f}); reset <= {RESET_TARGET_MS:.0f} ms: "
          f"{'MET' if reset_s * 1000 <= RESET_TARGET_MS else 'MISSED'} "
          f"({reset_s * 1000:.2f} ms)")
    if not args.no_derived:
        derived_validation()


if __name__ == "__main__":
    from interrupt import run

    run(main)
