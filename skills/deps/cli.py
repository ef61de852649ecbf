"""``pddlkit run --agent deps`` (an entry point of ``pddlkit.run_agents``) and the ``deps``
agent of ``pddlkit bench`` (``pddlkit.agents``).

    pddlkit run --agent deps --env craft --task iron_pickaxe
    pddlkit run --agent deps --env craft --task MT6 --replan-rounds 3 --explainer llm
    pddlkit run --agent deps --env craft --task diamond --llm openai:gpt-4o --check-plan
    pddlkit run --agent deps --env crafter --task iron_pickaxe --episodes 5 --hostile

``--task`` takes an object (``stone_pickaxe``) or a group (``MT1`` .. ``MT8``); without it all
69 tasks run; on Crafter it is the target item (default stone_pickaxe), in peaceful mode unless
``--hostile``. ``--llm standin[:rate]`` (the default) is the offline planner with recipe mistakes
(``standin-off[:rate]``: mistakes off the explainer's templates, see the stand-in module)
at that rate.
"""

from __future__ import annotations

import json
import sys
from typing import Optional

ENVS = ("craft", "crafter")


def _rounds(text: str):
    if text.lower() in ("inf", "none", "unlimited"):
        return None
    value = int(text)
    if value < 0:
        raise ValueError
    return value


def add_arguments(parser) -> None:
    group = parser.add_argument_group("deps (--agent deps)")
    group.add_argument("--replan-rounds", type=_rounds, default=None, metavar="N|inf",
                       help="deps: re-plans at most (Table 4: 0, 1, 3, 5, inf; default inf)")
    group.add_argument("--explainer", default="symbolic", choices=["symbolic", "llm"],
                       help="deps: the world model's explanation, or Listing 1 sent to the LLM")
    group.add_argument("--selector", default="order",
                       choices=["exact", "learned", "order", "random"],
                       help="deps: how order-free goals are chosen (default: plan order)")
    group.add_argument("--check-plan", action="store_true",
                       help="deps: check each plan on the world model before acting")
    group.add_argument("--max-actions", type=int, default=200,
                       help="deps: recipe applications per episode (craft)")
    group.add_argument("--hostile", action="store_true",
                       help="deps: Crafter with zombies and skeletons (default: peaceful)")


def _config(args):
    from .loop import DepsConfig

    return DepsConfig(max_rounds=args.replan_rounds, selector=args.selector,
                      check_plan=args.check_plan, seed=args.seed)


def stand_in(llm: Optional[str]) -> Optional[str]:
    """What the stand-in planner knows, for row labels and summaries; None for an LLM."""
    return {"": "stand-in (the true recipe table minus injected omissions)",
            "observation": "stand-in (the true recipe table minus injected omissions)",
            "standin": "stand-in (the true recipe table minus injected omissions)",
            "standin-off": "stand-in (the true recipe table with off-template mistakes)"}.get(
        str(llm or "").split(":")[0])


def run(args) -> int:
    from pddlkit.llm.errors import LLMError

    from .runner import run_deps

    if args.env not in ENVS:
        print(f"pddlkit run --agent deps: environment {args.env!r} is not supported; use one "
              f"of {', '.join(ENVS)}", file=sys.stderr)
        return 2

    def show(e):
        if not args.quiet and not args.json:
            last = e.failures[-1].explanation if e.failures and not e.won else ""
            print(f"{e.group} {e.task}: {'won' if e.won else 'lost'} after {e.rounds} re-plans, "
                  f"{e.actions} actions" + (f"; {last}" if last else ""))

    llm = args.llm if args.llm not in ("observation", None) else "standin"
    try:
        outcome = run_deps([args.task] if args.task else None, llm, env=args.env,
                           env_options={"peaceful": not args.hostile} if args.env == "crafter"
                           else None, episodes=args.episodes,
                           seed=args.seed, config=_config(args), explainer=args.explainer,
                           max_actions=args.max_actions, on_episode=show)
    except (LLMError, LookupError, ValueError, TypeError, FileNotFoundError, ImportError) as exc:
        print(f"pddlkit run --agent deps: {exc}", file=sys.stderr)
        return 2
    metrics = outcome.metrics()
    if args.json:
        print(json.dumps(metrics, indent=2))
        return 0
    groups = "  ".join(f"{g} {100 * r:.1f}" for g, r in metrics["by_group"].items())
    who = stand_in(llm) or llm
    print(f"[{who}] success {100 * metrics['success']:.1f}% over {metrics['episodes']} episodes "
          f"({groups}); {metrics['rounds']:.2f} re-plans per episode; {metrics['failures']} "
          f"failures, {metrics['explained']} explanations naming the false precondition; "
          f"{metrics['llm_calls']} LLM calls, {metrics['llm_tokens']} tokens, "
          f"${metrics['cost_usd']:.4f}")
    return 0


def bench_agent(cell: dict) -> dict:
    """``agent = "deps"`` in a sweep config; options ``llm``, ``task`` (object or group),
    ``rounds`` (None: unlimited), ``explainer``, ``selector``, ``check_plan``."""
    from .loop import DepsConfig
    from .runner import run_deps

    options = cell.get("options") or {}
    env_options = cell.get("env_options") or {}
    task = options.get("task") or env_options.get("task")
    config = DepsConfig(max_rounds=options.get("rounds"), selector=options.get("selector",
                                                                               "order"),
                        check_plan=bool(options.get("check_plan", False)), seed=cell["seed"])
    env = cell.get("env", "craft")
    crafter = {k: v for k, v in env_options.items() if k in ("peaceful", "length")}
    outcome = run_deps([task] if task else None, options.get("llm", "standin"), env=env,
                       env_options=crafter if env == "crafter" else None,
                       seed=cell["seed"], config=config,
                       explainer=options.get("explainer", "symbolic"))
    return {**outcome.metrics(), "stand_in": stand_in(options.get("llm", "standin"))}
