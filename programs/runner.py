"""One IPP run on a named task, shared by ``pddlkit run ipp`` and ``pddlkit bench``.

Task ids: the environment registry's program tasks (``pddlkit envs``: ``grasp``,
``minigrid-unlock``, ``minigrid-doorkey``, ``minigrid-unlockpickup``).
GRASP uses the published grids when ``../shared/corpus/grasp`` is beside the checkout, and our
seeded generator's grids (the same factors and statistics, :func:`pddlkit.envs.grasp.
generate_corpus`) otherwise.
Training and evaluation sets are disjoint: GRASP splits the published grids in half with a
seed (every grid under all 8 settings), MiniGrid refines on seeds 0.. and evaluates on the
held-out seeds 1000... The paper refines on the instances it reports; ``report_on_train`` in
the result gives that number too.

LLM specs: any pddlkit spec, or ``standin`` / ``standin:ipp:MISTAKE,MISTAKE`` for the offline
program writer (:mod:`.standin`).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from pddlkit.sandbox import Policy

from .ipp import IPP, IPPResult, Round, curriculum_args, score

def task_ids() -> tuple[str, ...]:
    """The program tasks IPP refines on: the registry's ids of kind ``instances``."""
    from pddlkit.envs.registry import ids

    return ids(kind="instances")


TASK_IDS = task_ids()


@dataclass
class TaskRun:
    result: IPPResult
    train_mean: float         # the best program on the training set (the paper's number)
    eval_mean: float          # the best program on the held-out set
    eval_failures: int
    completion: Optional[float]  # MiniGrid: share of held-out instances completed
    writer: Any = None        # the stand-in, when one was used
    eval_instances: int = 0   # held-out instances scored
    save_error: Optional[str] = None  # why the best program could not be saved (None: saved)
    #: the held-out instances the best program failed on, with the sandbox's account of each
    eval_crashes: tuple[tuple[str, str], ...] = ()


def make_task(task_id: str, train: Optional[int] = None, evaluate: Optional[int] = None,
              split_seed: int = 0, corpus: Optional[Path] = None):
    """(task over the training set, held-out instances), from the registry's instance split
    (:mod:`pddlkit.envs.instance_sets`)."""
    from pddlkit.envs import make

    if task_id not in task_ids():
        raise ValueError(f"unknown IPP task {task_id!r}; use one of {', '.join(task_ids())}")
    options = {"corpus": corpus} if corpus and task_id == "grasp" else {}
    return task_of(task_id, make(task_id, train=train, evaluate=evaluate, seed=split_seed,
                                 **options))


def task_of(task_id: str, split):
    """(task over the training set, held-out instances) of an instance split the registry
    made (``make(task_id, ...)``, or a job's ``make_env``)."""
    from .tasks import GraspTask, MiniGridTask

    if task_id == "grasp":
        return GraspTask(split.train), split.held_out
    return MiniGridTask(task_id[len("minigrid-"):], instances=split.train), split.held_out


def make_llm(spec: Any, task_name: str, seed: int = 0):
    """(the LLM, the stand-in writer or None)."""
    from pddlkit.agents.standins import parse_stand_in

    from .standin import STAND_INS

    stand_in = parse_stand_in(spec, STAND_INS, "ipp")   # a StandInError names a bad mistake
    if stand_in is not None:
        from .standin import ProgramWriter

        named = stand_in[1]
        mistakes = [m for m in named.split(",") if m] if named else None
        writer = ProgramWriter(task_name, mistakes=mistakes, seed=seed)
        return writer.llm(), writer
    return spec, None


def solve_first_refused(model: Any) -> Optional[str]:
    """Why ``model`` cannot take ``solve_first`` (it decodes each code request under a
    grammar: the stand-in and OpenAI's API cannot), or None when it can. Asked before any
    call, so the option is refused, never dropped in silence."""
    from .ipp import function_first

    if model == "standin":
        return "the stand-in writes its programs without a grammar"
    support = getattr(model, "constraint_support", None)
    if support is None:
        return f"{type(model).__name__} says no grammar it takes (no constraint_support)"
    mode, why = support(function_first("solve"))
    return None if mode is not None else why


def run_task(task_id: str, llm: Any, *, seed: int = 0, train: Optional[int] = None,
             evaluate: Optional[int] = None, rounds: int = 5, k: int = 3,
             feedback: str = "rich", workers: Optional[int] = None,
             policy: Optional[Policy] = None, save: Optional[Path] = None,
             patience: int = 0, mode: str = "ir", probe: int = 0, mend: bool = False,
             skeleton: bool = False, solve_first: bool = False,
             max_tokens: Optional[int] = 4000, prompts: str = "ours",
             split: Any = None, on_round: Optional[Callable[[Round], None]] = None) -> TaskRun:
    """``mode``: "ir" (refinement from direct generation), "pe" (refinement from the paper's
    pseudocode extension) or "curriculum" (the step-by-step curriculum; its steps are the
    rounds, and the best step is kept). ``split``: the instance split, already made (a job's
    ``make_env``, which carries the environment's flags); by default the registry's, from
    ``train``, ``evaluate`` and ``seed``. ``on_round`` is called with each round as soon as it
    is scored (:class:`.ipp.IPP`), before the held-out scoring at the end. ``solve_first``
    needs an LLM that decodes under grammars: refused, before any call, where it does not."""
    if save:
        check_save_folder(save)   # before any LLM call: a run's spend is not lost to a bad path
    if split is not None:
        if task_id not in task_ids():
            raise ValueError(f"unknown IPP task {task_id!r}; use one of "
                             f"{', '.join(task_ids())}")
        task, held = task_of(task_id, split)
    else:
        task, held = make_task(task_id, train, evaluate, split_seed=seed)
    model, writer = make_llm(llm, task.name, seed)
    why = solve_first_refused(model) if solve_first else None
    if why:
        raise ValueError(f"solve_first decodes each request for code under a grammar, and "
                         f"this LLM cannot: {why} (use a local: model, or leave it out)")
    policy = policy or Policy(call_timeout=2.0, cpu_seconds=2.0)
    ipp = IPP(task, model, k=k, max_rounds=rounds, feedback=feedback, policy=policy,
              workers=workers, patience=patience, max_tokens=max_tokens, prompts=prompts,
              probe=probe, mend=mend, skeleton=skeleton, solve_first=solve_first,
              on_round=on_round)
    if mode == "curriculum":
        result = ipp.run_curriculum()
    elif mode in ("ir", "pe"):
        result = ipp.run(extension=mode == "pe")
    else:
        raise ValueError(f"mode must be ir, pe or curriculum, got {mode!r}")
    if result.program is None:
        save_error = _save(result, save) if save else None
        return TaskRun(result, float("-inf"), float("-inf"), len(held), 0.0, writer, len(held),
                       save_error)
    args = curriculum_args(result.best) if mode == "curriculum" else None
    scored = score(task, result.program, held, policy, workers, args)
    completion = None
    if task_id.startswith("minigrid-"):
        completion = sum(s.ok and s.score > 0 for s in scored) / len(scored)
    crashes = tuple((_instance_name(i), s.account) for i, s in zip(held, scored) if not s.ok)
    # saved last, once every figure exists: a save that fails costs nothing already measured
    save_error = _save(result, save) if save else None
    return TaskRun(result, result.best_mean, held_out_mean(task_id, scored), len(crashes),
                   completion, writer, len(held), save_error, crashes)


def _instance_name(instance: Any) -> str:
    """How a held-out instance is named in a summary: MiniGrid's seed, GRASP's grid file."""
    seed = getattr(instance, "seed", None)
    if seed is not None:
        return f"seed {seed}"
    grid = getattr(instance, "grid", None)
    if grid is not None and hasattr(grid, "distribution"):
        return (f"grid {grid.distribution}/{grid.obstacles}/{grid.start_position} "
                f"#{grid.index} (diagonals {instance.diagonals}, carry "
                f"{instance.carry_limit}, cost {instance.cost:g})")
    return repr(instance)[:60]


def held_out_mean(task_id: str, scored) -> float:
    """The held-out mean as the task reports it: on MiniGrid a crashed program earns the reward
    of a failed episode, 0 (its ranking score below the worst is for refinement, not a
    reward; the crashes are counted apart); GRASP keeps its scores."""
    if task_id.startswith("minigrid-"):
        return statistics.fmean(s.score if s.ok else 0.0 for s in scored)
    return statistics.fmean(s.score for s in scored)


def check_save_folder(folder: Path) -> None:
    """Refuse a folder the best program cannot be written to, naming the option and the
    reason (an OptionError, one line on the command line)."""
    from pddlkit.agents import OptionError

    probe = Path(folder) / ".pddlkit-write-test"
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise OptionError(f"--save-program {folder}: cannot write there "
                          f"({exc.strerror or exc}); choose a writable folder") from None


def _save(result, folder: Path) -> Optional[str]:
    """Save the best program; the reason when that failed after all (the run's results are
    still reported)."""
    try:
        result.save(folder)
    except OSError as exc:
        return f"could not save the best program in {folder}: {exc.strerror or exc}"
    return None
