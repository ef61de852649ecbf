"""Program tasks as registered environments: ``make("grasp")``, ``make("minigrid-doorkey")``.

A program task (IPP's) is not played step by step by an agent: one program answers every
instance. What the registry builds for such an id is its :class:`InstanceSplit`, the training
instances and the held-out ones, disjoint by instance (GRASP: the grids split in half with a
seed, every grid under all 8 settings; MiniGrid: training seeds 0.., held-out seeds 1000..).

Disjoint by instance, not only by seed: two MiniGrid seeds can lay out the same grid (DoorKey
has 3 of its first 100 held-out seeds equal to training seeds 0-99), so a held-out seed whose
grid and start are a training instance's is skipped and the next seed taken; asking for more
training seeds than the range holds is refused. A smaller GRASP training or held-out set is a
seeded sample stratified over the corpus's grid files (distribution x obstacles x start
position), not the first grids in file order (which were all of one file).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional


@dataclass
class InstanceSplit:
    """A program task's instances: ``train`` to refine on, ``held_out`` to report on."""

    name: str
    train: list
    held_out: list
    #: the registry's spec with the options it was made with (``make`` sets it, as for an
    #: environment): ``split.spec.kind == "instances"``
    spec: Optional[Any] = field(default=None, repr=False, compare=False)

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
    return _minigrid_key


def _minigrid_key(instance) -> tuple:
    """What a MiniGrid program sees: the grid and the start direction (not the seed)."""
    return tuple(map(tuple, instance.grid)), instance.start_direction


def _stratified(grids: list, count: Optional[int], seed: int) -> list:
    """``count`` grids sampled with ``seed``, as evenly as possible over the grid files, in
    corpus order; all of them when ``count`` is None or not smaller."""
    import random

    if not count or count >= len(grids):
        return list(grids)
    rng = random.Random(seed)
    files: dict = {}
    for i, g in enumerate(grids):
        files.setdefault((g.distribution, g.obstacles, g.start_position), []).append(i)
    queues = [rng.sample(members, len(members)) for _, members in sorted(files.items())]
    rng.shuffle(queues)
    chosen: list[int] = []
    while len(chosen) < count:
        for queue in queues:
            if queue and len(chosen) < count:
                chosen.append(queue.pop())
    return [grids[i] for i in sorted(chosen)]


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
    train_grids = _stratified(train_grids, train, seed)
    eval_grids = _stratified(eval_grids, evaluate, seed + 1)
    return InstanceSplit("grasp", G.instances(train_grids), G.instances(eval_grids))


def minigrid(task: str, train: Optional[int] = None, evaluate: Optional[int] = None,
             seed: int = 0) -> InstanceSplit:
    """A MiniGrid task's instances (the real ``minigrid`` package): ``train`` seeds from 0
    (default 100) and ``evaluate`` held-out instances from seed 1000 (default 100), skipping
    seeds that lay out a training instance; ``seed`` is accepted for the common interface and
    changes nothing (the seeds are the instances)."""
    from . import minigrid_tasks as M

    M._env_id(task)  # an unknown task is a ValueError naming the known ones
    train, evaluate = train or 100, evaluate or 100
    for count, seeds, what in ((train, M.TRAIN_SEEDS, "training"),
                               (evaluate, M.HELD_OUT_SEEDS, "held-out")):
        if count > len(seeds):
            raise ValueError(f"minigrid-{task} has {len(seeds)} {what} seeds "
                             f"({seeds.start}-{seeds.stop - 1}); {count} asked")
    training = [M.observe(task, s) for s in list(M.TRAIN_SEEDS)[:train]]
    seen = {_minigrid_key(i) for i in training}
    held_out: list = []
    for s in M.HELD_OUT_SEEDS:
        if len(held_out) == evaluate:
            break
        instance = M.observe(task, s)
        if _minigrid_key(instance) not in seen:
            held_out.append(instance)
            seen.add(_minigrid_key(instance))   # and no instance twice in the held-out set
    return InstanceSplit(f"minigrid-{task}", training, held_out)


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
