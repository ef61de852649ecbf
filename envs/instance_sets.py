"""Program tasks as registered environments: ``make("grasp")``, ``make("minigrid-doorkey")``.

A program task (IPP's) is not played step by step by an agent: one program answers every
instance. What the registry builds for such an id is its :class:`InstanceSplit`, the training
instances and the held-out ones, disjoint by instance (GRASP: the grids split in half with a
seed, every grid under all 8 settings; MiniGrid: training seeds 0.., held-out seeds 1000..).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional


@dataclass
class InstanceSplit:
    """A program task's instances: ``train`` to refine on, ``held_out`` to report on."""

    name: str
    train: list
    held_out: list

    def __post_init__(self) -> None:
        key = _key_of(self.name)
        shared = {key(i) for i in self.train} & {key(i) for i in self.held_out}
        if shared:
            raise ValueError(f"{self.name}: {len(shared)} instances are both training and "
                             "held-out")


def _key_of(name: str):
    if name == "grasp":
        return lambda i: (i.grid.distribution, i.grid.obstacles, i.grid.start_position,
                          i.grid.index, i.diagonals, i.carry_limit, i.cost)
    return lambda i: i.seed


def grasp(train: Optional[int] = None, evaluate: Optional[int] = None, seed: int = 0,
          corpus: Optional[Path] = None) -> InstanceSplit:
    """GRASP's instances: the published grids when ``../shared/corpus/grasp`` is beside the
    checkout (or ``corpus``), else our seeded generator's (the same factors and statistics),
    split in half with ``seed``; ``train`` / ``evaluate`` grids of each half (default all)."""
    from . import grasp as G

    try:
        grids = G.load_corpus(corpus or G.corpus_folder())
    except FileNotFoundError:  # a user's clone: our generator's grids, same factors
        grids = G.generate_corpus(seed=0)
    train_grids, eval_grids = G.split(grids, 0.5, seed=seed)
    train_grids = train_grids[:train] if train else train_grids
    eval_grids = eval_grids[:evaluate] if evaluate else eval_grids
    return InstanceSplit("grasp", G.instances(train_grids), G.instances(eval_grids))


def minigrid(task: str, train: Optional[int] = None, evaluate: Optional[int] = None,
             seed: int = 0) -> InstanceSplit:
    """A MiniGrid task's instances (the real ``minigrid`` package): ``train`` seeds from 0
    (default 100) and ``evaluate`` held-out seeds from 1000 (default 100); ``seed`` is
    accepted for the common interface and changes nothing (the seeds are the instances)."""
    from . import minigrid_tasks as M

    M._env_id(task)  # an unknown task is a ValueError naming the known ones
    return InstanceSplit(f"minigrid-{task}",
                         [M.observe(task, s) for s in list(M.TRAIN_SEEDS)[:train or 100]],
                         [M.observe(task, s) for s in list(M.HELD_OUT_SEEDS)[:evaluate or 100]])


@dataclass(frozen=True)
class SeedSplit:
    """Training and held-out episode seeds, disjoint by construction.

    Why one helper: each front end used to pick its held-out seeds by a convention of its own
    (1000 + seed; NetHack's index 50 while learning ran 0..119, so half the "held-out" games
    were training games). Here the training seeds are ``train`` consecutive seeds from
    ``seed``, and the held-out ones start at the environment's usual offset
    (``held_out_from``, 1000 by default) or right after the last training seed, whichever is
    later, so no held-out seed is ever a training seed, however many episodes learning took.
    Seeds are instances here (a seed is one game), or indices into a list of distinct
    instances, which keeps them disjoint too."""

    seed: int
    train_count: int
    held_out_count: int
    held_out_from: int = 1000

    @property
    def train(self) -> range:
        return range(self.seed, self.seed + self.train_count)

    @property
    def held_out(self) -> range:
        start = max(self.held_out_from + self.seed, self.seed + self.train_count)
        return range(start, start + self.held_out_count)

    def __post_init__(self) -> None:
        if self.train_count < 0 or self.held_out_count < 0:
            raise ValueError("seed counts cannot be negative")
