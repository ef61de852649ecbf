"""``pddlkit run --agent ipp`` (an entry point of ``pddlkit.run_agents``) and the ``ipp``
agent of ``pddlkit bench`` (``pddlkit.agents``).

    pddlkit run --agent ipp --env grasp --llm standin:carry,cost
    pddlkit run --agent ipp --env minigrid-doorkey --llm openai:o3-mini --save-program out/
"""

from __future__ import annotations

import json
import sys
from typing import Optional
from pathlib import Path


def add_arguments(parser) -> None:
    group = parser.add_argument_group("ipp (--agent ipp)")
    group.add_argument("--train", type=int, help="ipp: training grids (GRASP) or seeds "
                       "(MiniGrid); default all 1,000 GRASP grids of the split, 100 seeds")
    group.add_argument("--eval", dest="evaluate", type=int,
                       help="ipp: held-out grids or seeds to report on (default 1,000 / 100)")
    group.add_argument("--rounds", type=int, default=5, help="ipp: refinement rounds at most")
    group.add_argument("--feedback", default="rich", choices=["rich", "bare"],
                       help="ipp: rich (settings, scores, the simulator's account) or bare "
                            "(the paper's grids only)")
    group.add_argument("--mode", default="ir", choices=["ir", "pe", "curriculum"],
                       help="ipp: iterative refinement from direct generation (ir), from the "
                            "paper's pseudocode extension (pe, GRASP), or the step-by-step "
                            "curriculum (GRASP)")
    group.add_argument("--patience", type=int, default=0,
                       help="ipp: refinement rounds without improvement allowed (0: the "
                            "paper's rule)")
    group.add_argument("--save-program", help="ipp: write the best program and its scores "
                                              "into this folder")


def _write_record(path: str, env: str, outcome) -> None:
    """The run as JSON lines: one per round (its program, scores, failures, why no program),
    then the summary (held-out mean, usage)."""
    result = outcome.result
    with open(path, "w", encoding="utf-8") as fh:
        for r in result.rounds:
            fh.write(json.dumps({"type": "round", "task": env, "round": r.index,
                                 "program": r.program, "mean": r.mean, "failures": r.failures,
                                 "instances": len(r.scores), "scores": r.scores,
                                 "worst": r.worst, "error": r.error,
                                 "samples_left_out": r.samples_left_out}) + "\n")
        fh.write(json.dumps({"type": "summary", "task": env, **outcome.metrics()}) + "\n")


def stand_in(llm: Optional[str]) -> Optional[str]:
    """What the stand-in program writer knows, for row labels and summaries; None for an LLM."""
    if llm in (None, "", "observation", "standin") or str(llm).startswith("standin:"):
        return "stand-in (our own strategy, with injected mistakes)"
    return None


def run(args) -> int:
    from pddlkit.llm.errors import LLMError

    from .runner import TASK_IDS, run_task

    env = args.env if args.env in TASK_IDS else None
    if env is None:
        print(f"pddlkit run --agent ipp: --env must be one of {', '.join(TASK_IDS)}, got "
              f"{args.env!r}", file=sys.stderr)
        return 2
    llm = "standin" if args.llm == "observation" else args.llm
    try:
        outcome = run_task(env, llm, seed=args.seed, train=args.train, evaluate=args.evaluate,
                           rounds=args.rounds, feedback=args.feedback,
                           patience=args.patience, mode=args.mode,
                           save=Path(args.save_program) if args.save_program else None,
                           max_tokens=getattr(args, "max_tokens", None) or 4000)
    except (ValueError, FileNotFoundError, ImportError, LLMError) as exc:
        print(f"pddlkit run --agent ipp: {exc}", file=sys.stderr)
        return 2
    result = outcome.result
    if getattr(args, "record", None):
        _write_record(args.record, env, outcome)
    if args.json:
        print(json.dumps(outcome.metrics(), indent=2))
    else:
        for r in result.rounds:
            what = f"mean {r.mean:.3f}, failures {r.failures}" if r.program else \
                f"no program: {r.error}"
            kind = f"step {r.index}" if args.mode == "curriculum" else \
                "direct generation" if r.index == 0 else "refinement"
            print(f"round {r.index} ({kind}):"
                  f" {what}{'  <- best' if r.index == result.best else ''}")
        if outcome.writer is not None:
            print(f"stand-in: injected {', '.join(outcome.writer.injected) or 'nothing'}; "
                  f"repaired {', '.join(outcome.writer.repaired) or 'nothing'}")
        extra = f", completion {outcome.completion:.2f}" if outcome.completion is not None \
            else ""
        who = stand_in(llm) or llm
        print(f"{env} [{who}]: training mean {outcome.train_mean:.3f} (direct generation "
              f"{result.direct_mean:.3f}); held-out mean {outcome.eval_mean:.3f}{extra}; "
              f"LLM calls {result.usage.get('calls', 0)}, tokens "
              f"{result.usage.get('prompt_tokens', 0)}+"
              f"{result.usage.get('completion_tokens', 0)}, "
              f"${result.usage.get('cost_usd', 0.0):.4f}")
        if args.save_program:
            print(f"saved the best program in {args.save_program}/program.py")
    return 0 if result.program is not None else 1


def bench_agent(cell: dict) -> dict:
    """``agent = "ipp"`` in a sweep config: ``env`` is a task id, options ``train``, ``eval``,
    ``rounds``, ``feedback``, ``k``."""
    from .runner import run_task

    options = cell.get("options") or {}
    outcome = run_task(cell["env"], cell.get("llm") or "standin", seed=cell["seed"],
                       train=options.get("train"), evaluate=options.get("eval"),
                       rounds=options.get("rounds", 5), k=options.get("k", 3),
                       feedback=options.get("feedback", "rich"),
                       patience=options.get("patience", 0), workers=1)
    return {**outcome.metrics(), "stand_in": stand_in(cell.get("llm") or "standin")}
