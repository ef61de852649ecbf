"""``pddlkit run --agent copic`` (an entry point of ``pddlkit.run_agents``) and the ``copic``
agent of ``pddlkit bench`` (``pddlkit.agents``).

    pddlkit run --agent copic --env sc2-build --difficulty easy --llm standin --copic-critic uniform
    pddlkit run --agent copic --env household --difficulty pick_heat_then_place --wm-filter
    pddlkit run --agent copic --env nethack-drink --llm openai:gpt-4o --critic-model gemma-3-270m

The critic options (``--critic-model``, ``--critic-device``, ``--policy-lr``, ``--value-lr``,
``--ppo-steps``, ``--ppo-batch``, ``--shaping``, ``--eval-episodes``, ``--save-critic``,
``--load-critic``) are the twosome agent's, shared; ``--shaping`` works on SC2 and the household
(worlds with a model of their own) and is refused with one line elsewhere.
"""

from __future__ import annotations

import json
import sys
from typing import Optional


def add_arguments(parser) -> None:
    group = parser.add_argument_group("copic (--agent copic)")
    group.add_argument("--copic-critic", default="ppo", choices=["ppo", "frozen", "uniform"],
                       help="copic: learn the critic with PPO, keep it frozen, or choose "
                            "uniformly (the paper's no-critic ablation; needs no torch)")
    group.add_argument("--programs", type=int, default=3, help="copic: programs per task (n)")
    group.add_argument("--round-episodes", type=int, default=20,
                       help="copic: episodes between evolution checks (N)")
    group.add_argument("--summary-episodes", type=int, default=5,
                       help="copic: episodes summarized for evolution (M)")
    group.add_argument("--threshold", type=float, default=0.9,
                       help="copic: success rate at which evolution stops")
    group.add_argument("--max-rounds", type=int, default=5, help="copic: evolutions at most")
    group.add_argument("--no-evolve", action="store_true", help="copic: never evolve")
    group.add_argument("--wm-filter", action="store_true",
                       help="copic: drop candidates whose first action the world model "
                            "rejects")
    group.add_argument("--max-seconds", type=float,
                       help="copic: SC2 game-time limit in seconds (default 660)")
    group.add_argument("--max-keys", type=int,
                       help="copic: NetHack keystrokes per episode (default 600; 2000 for "
                            "exp-level-3). Seed 000 does not say its limit; level 3 needs "
                            "game time for monsters to appear, so its success grows with this")


def _options(args) -> dict:
    from pddlkit.formalizers.cli import env_options

    options = env_options(args)
    if args.env == "sc2-build":
        options.pop("receptacles", None)
        if args.max_seconds:
            options["max_seconds"] = args.max_seconds
    if args.env == "household":
        options["budget"] = args.budget
    if args.max_keys is not None:
        if args.max_keys <= 0:
            raise ValueError(f"--max-keys must be a positive number of keystrokes, got "
                             f"{args.max_keys}")
        if not args.env.startswith("nethack-"):
            raise ValueError(f"--max-keys is NetHack's keystroke budget; {args.env} has none "
                             f"(SC2: --max-seconds, household: --budget)")
        options["max_keys"] = args.max_keys
    return options


def stand_in(llm: Optional[str]) -> Optional[str]:
    """What the stand-in program writer knows, for row labels and summaries; None for an LLM."""
    if llm in (None, "", "observation", "standin") or str(llm).startswith("standin:"):
        return ("stand-in (programs we wrote with injected mistakes; SC2's from the "
                "simulator's tables)")
    return None


def run(args) -> int:
    from pddlkit.llm.errors import LLMError

    from .loop import CopicConfig
    from .runner import run_copic

    def show(record):
        if not args.quiet and not args.json:
            print(f"round {record.round} {record.task_type} (seed {record.seed}): "
                  f"{'won' if record.won else 'lost'} in {record.steps} steps; {record.result}")

    llm = args.llm if args.llm not in ("observation", None) else "standin"
    try:
        config = CopicConfig(programs=args.programs, episodes_per_round=args.round_episodes,
                             summary_episodes=args.summary_episodes, threshold=args.threshold,
                             max_rounds=args.max_rounds, critic=args.copic_critic,
                             evolve=not args.no_evolve, world_model_filter=args.wm_filter,
                             shaping=getattr(args, "shaping", 0.0) or 0.0, seed=args.seed)
        ppo = {"policy_lr": getattr(args, "policy_lr", 1e-6),
               "value_lr": getattr(args, "value_lr", 5e-5),
               "steps_per_update": getattr(args, "ppo_steps", 128),
               "policy_batch": getattr(args, "ppo_batch", 32)}
        outcome = run_copic(args.env, llm, env_options=_options(args), config=config,
                            critic_model=getattr(args, "critic_model", "auto"),
                            critic_device=getattr(args, "critic_device", "auto"), ppo=ppo,
                            seed=args.seed, evaluate=getattr(args, "eval_episodes", 10),
                            load_critic=getattr(args, "load_critic", None),
                            save_critic=getattr(args, "save_critic", None), on_episode=show)
    except (LLMError, LookupError, ValueError, TypeError, FileNotFoundError, ImportError,
            RuntimeError) as exc:
        print(f"pddlkit run --agent copic: {exc}", file=sys.stderr)
        return 2
    metrics = outcome.metrics()
    if args.json:
        print(json.dumps({**metrics, "costs": outcome.costs()}, indent=2))
        return 0
    for r in outcome.copic.rounds:
        print(f"round {r.round} on {r.task_type}: success {r.success_rate:.2f} over "
              f"{r.episodes} episodes{', evolved the programs' if r.evolved else ''}")
    who = stand_in(args.llm) or args.llm
    print(f"{outcome.env} [{who}]: learning success {outcome.train_rate:.2f}, held-out success "
          f"{outcome.eval_rate:.2f} over {len(outcome.evaluation)} episodes "
          f"(mean {metrics['steps']:.1f} steps), {metrics['llm_calls']} LLM calls, "
          f"{metrics['llm_tokens']} LLM tokens, {metrics['critic_tokens']} critic tokens, "
          f"${metrics['cost_usd']:.4f}, {outcome.seconds:.0f} s")
    if args.wm_filter:
        print(f"world-model filter: {metrics['avoided_failures']} candidates known to fail "
              f"were not run")
    if outcome.writer is not None and outcome.writer.repaired:
        print(f"evolution repaired: {', '.join(outcome.writer.repaired)}")
    return 0


def bench_agent(cell: dict) -> dict:
    """``agent = "copic"`` in a sweep config; options ``llm``, ``critic`` (ppo, frozen,
    uniform), ``model``, ``programs``, ``round_episodes``, ``summary_episodes``, ``max_rounds``,
    ``threshold``, ``evolve``, ``wm_filter``, ``eval``, ``policy_lr``."""
    from .loop import CopicConfig
    from .runner import run_copic

    options = cell.get("options") or {}
    config = CopicConfig(programs=options.get("programs", 3),
                         episodes_per_round=options.get("round_episodes", 20),
                         summary_episodes=options.get("summary_episodes", 5),
                         threshold=options.get("threshold", 0.9),
                         max_rounds=options.get("max_rounds", 5),
                         critic=options.get("critic", "ppo"),
                         evolve=bool(options.get("evolve", True)),
                         world_model_filter=bool(options.get("wm_filter", False)),
                         seed=cell["seed"])
    ppo = {k: options[k] for k in ("policy_lr", "value_lr") if k in options}
    outcome = run_copic(cell["env"], options.get("llm", "standin"),
                        env_options=cell.get("env_options") or {}, config=config,
                        critic_model=options.get("model", "auto"), ppo=ppo, seed=cell["seed"],
                        evaluate=options.get("eval", 10))
    return {**outcome.metrics(), "stand_in": stand_in(options.get("llm", "standin"))}
