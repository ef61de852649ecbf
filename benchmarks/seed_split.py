"""Dev and test seeds, disjoint by instance, not only by number (issue 73).

Why: a seed is a number; what a model is tested on is the game it builds. CoinCollector's
3-room houses repeat (seeds 0-99 build 94 distinct houses, and seeds 1004 and 1017 build houses
that dev seeds built too), so "seeds 1000 and up" alone would report, as held out, games the
helps were built on. Here a test seed is one of 1000 and up whose game no dev seed (0-99)
builds, in the same environment with the same options.

A game's identity (:func:`instance`) is, for pddlkit's PDDL worlds, the problem they
generated without its name (objects, initial state, goal); for other environments, the task
and the first observation, which name the game.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

#: dev seeds build helps; test seeds only report
DEV = range(0, 100)
TEST_START = 1000


def instance(env_id: str, options: tuple, seed: int) -> str:
    """What the game of ``seed`` is (see the module's docstring); ``options`` is a sorted
    tuple of the environment's (name, value) pairs."""
    return instances(env_id, options, [seed])[0]


def instances(env_id: str, options: tuple, seeds) -> list[str]:
    """The games of ``seeds``, read from one environment reset seed after seed (an ALFWorld
    environment starts its engine once, not once per seed)."""
    from pddlkit.envs import make

    env = make(env_id, **dict(options))
    try:
        return [_identity(env, seed) for seed in seeds]
    finally:
        close = getattr(env, "close", None)
        if close is not None:
            close()


def _identity(env, seed: int) -> str:
    observation, _ = env.reset(seed=seed)
    problem = getattr(env, "problem", None)
    if problem is not None:
        from pddlkit.pddl.writer import write_problem

        text = write_problem(problem)
        return re.sub(r"\(problem\s+[^)\s]+\)", "(problem)", text, count=1)
    return f"{getattr(env, 'task', '')}\n{observation}"


@lru_cache(maxsize=8)
def dev_instances(env_id: str, options: tuple) -> frozenset:
    return frozenset(instances(env_id, options, DEV))


def test_seeds(env_id: str, options: tuple, count: int, start: Optional[int] = None) -> list[int]:
    """The first ``count`` test seeds from ``start`` (default 1000) whose game no dev seed
    builds."""
    start = TEST_START if start is None else start
    if start < TEST_START:
        raise ValueError(f"test seeds start at {TEST_START}, not {start}")
    seen = dev_instances(env_id, options)
    chosen: list[int] = []
    seed = start
    while len(chosen) < count:
        batch = list(range(seed, seed + count - len(chosen)))
        for candidate, game in zip(batch, instances(env_id, options, batch)):
            if game not in seen:
                chosen.append(candidate)
        seed = batch[-1] + 1
    return chosen


def spans(seeds: list[int]) -> list[tuple[int, int]]:
    """Runs of consecutive seeds as (first, count), so each runs as one ``--seed --episodes``."""
    out: list[list[int]] = []
    for seed in seeds:
        if out and seed == out[-1][0] + out[-1][1]:
            out[-1][1] += 1
        else:
            out.append([seed, 1])
    return [(first, count) for first, count in out]
