"""``pddlkit run --agent twosome`` (an entry point of ``pddlkit.run_agents``) and the
``twosome`` agent of ``pddlkit bench`` (``pddlkit.agents``).

    pddlkit run --agent twosome --env household --receptacles 8 --difficulty pick_and_place \\
        --episodes 200 --fixed-seed --policy-lr 3e-3 --shaping 0.5 --critic-model gemma-3-270m
"""

from __future__ import annotations

import json
import sys


def add_arguments(parser) -> None:
    group = parser.add_argument_group("twosome (--agent twosome)")
    group.add_argument("--critic-model", default="auto",
                       help="twosome: tinyllama, gemma-3-270m, a model folder or a .gguf file "
                            "(auto: tinyllama if cached, else gemma-3-270m)")
    group.add_argument("--critic-device", default="auto",
                       help="twosome: auto (CUDA in bf16 if present, else CPU), cpu, cuda")
    group.add_argument("--eval-episodes", type=int, default=10,
                       help="twosome: evaluation episodes before and after training")
    group.add_argument("--greedy", action="store_true",
                       help="twosome: evaluate with the most probable command (default: sample "
                            "from the policy)")
    group.add_argument("--fixed-seed", action="store_true",
                       help="twosome: train and evaluate on the --seed layout only")
    group.add_argument("--policy-lr", type=float, default=1e-6,
                       help="twosome: LoRA learning rate (TWOSOME's 1e-6 suits 7B models; small "
                            "models learn at 1e-4..3e-3)")
    group.add_argument("--value-lr", type=float, default=5e-5, help="twosome: value head rate")
    group.add_argument("--ppo-steps", type=int, default=128,
                       help="twosome: environment steps per PPO update (K)")
    group.add_argument("--ppo-batch", type=int, default=32,
                       help="twosome: transitions per policy step (TWOSOME: 32)")
    group.add_argument("--shaping", type=float, default=0.0,
                       help="twosome, copic: weight of the world model's potential-based "
                            "shaping (PDDL worlds, SC2; 0: the environment's reward only)")
    group.add_argument("--history", type=int, default=1,
                       help="twosome: earlier steps shown in the prompt (default 1)")
    group.add_argument("--save-critic", help="twosome: save the trained critic in this folder")
    group.add_argument("--load-critic", help="twosome: start from a saved critic")


def _options(args) -> dict:
    from pddlkit.formalizers.cli import env_options

    return env_options(args)


def run(args) -> int:
    from pddlkit.llm.errors import LLMError

    from .runner import run_twosome

    if args.history < 0:
        print("pddlkit run --agent twosome: --history must be 0 or more", file=sys.stderr)
        return 2
    for name in ("eval_episodes", "ppo_steps", "ppo_batch"):
        if getattr(args, name) < 1:
            print(f"pddlkit run --agent twosome: --{name.replace('_', '-')} must be at least 1",
                  file=sys.stderr)
            return 2

    def show(i, result):
        if not args.quiet and not args.json:
            print(f"episode {i + 1} (seed {result.seed}): {'won' if result.won else 'lost'} in "
                  f"{result.steps} steps: {'; '.join(result.commands[-6:])}")

    try:
        outcome = run_twosome(
            args.env, env_options=_options(args), model=args.critic_model, seed=args.seed,
            episodes=args.episodes, evaluate=args.eval_episodes, budget=args.budget,
            fixed_seed=args.fixed_seed, shaping=args.shaping, device=args.critic_device,
            history=args.history, greedy=args.greedy,
            ppo={"policy_lr": args.policy_lr, "value_lr": args.value_lr,
                 "steps_per_update": args.ppo_steps, "policy_batch": args.ppo_batch},
            load=args.load_critic, save=args.save_critic, on_episode=show)
    except (LLMError, LookupError, ValueError, TypeError, FileNotFoundError, ImportError) as exc:
        print(f"pddlkit run --agent twosome: {exc}", file=sys.stderr)
        return 2
    metrics = outcome.metrics()
    if args.json:
        print(json.dumps(metrics, indent=2))
    else:
        for u in outcome.agent.log.updates:
            print(f"update {u.update}: policy loss {u.policy_loss:.4f}, value loss "
                  f"{u.value_loss:.4f}, entropy {u.entropy:.3f}, KL {u.approx_kl:.4f}, "
                  f"explained variance {u.explained_variance:.3f}")
        mode = "greedy" if args.greedy else "sampled"
        print(f"{outcome.env} with {outcome.model}: {mode} success {outcome.before_rate:.2f} "
              f"untrained -> {outcome.after_rate:.2f} after {metrics['episodes']} episodes "
              f"({metrics['updates']} PPO updates, {outcome.seconds:.0f} s)")
        if outcome.saved:
            print(f"saved the critic in {outcome.saved}")
    return 0


def bench_agent(cell: dict) -> dict:
    """``agent = "twosome"`` in a sweep config; options ``model``, ``episodes``, ``eval``,
    ``budget``, ``fixed_seed``, ``shaping``, ``history``, ``greedy``, ``policy_lr``,
    ``value_lr``, ``ppo_steps``."""
    from .runner import run_twosome

    options = cell.get("options") or {}
    ppo = {k: options[k] for k in ("policy_lr", "value_lr") if k in options}
    if "ppo_steps" in options:
        ppo["steps_per_update"] = options["ppo_steps"]
    outcome = run_twosome(cell["env"], env_options=cell.get("env_options") or {},
                          model=options.get("model", "auto"), seed=cell["seed"],
                          episodes=options.get("episodes", 50), evaluate=options.get("eval", 10),
                          budget=options.get("budget", 50),
                          fixed_seed=bool(options.get("fixed_seed")),
                          shaping=options.get("shaping", 0.0), history=options.get("history", 1),
                          greedy=bool(options.get("greedy")), ppo=ppo)
    return {**outcome.metrics(), "stand_in": None}  # a real model (a known name)
