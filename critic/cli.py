"""TWOSOME as an agent of :mod:`pddlkit.agents` (entry point ``twosome``): ``pddlkit run
twosome``, ``pddlkit bench`` cells and ``run_job`` all go through :data:`TWOSOME`.

    pddlkit run twosome --env household --receptacles 8 --difficulty pick_and_place \\
        --train-episodes 200 --fixed-seed --policy-lr 3e-3 --shaping 0.5 \\
        --critic-model gemma-3-270m

An episode is one training run: the policy (a language model scoring the admissible commands,
trained with PPO) is evaluated on ``--eval-episodes`` held-out layouts, trained for
``--train-episodes`` episodes, and evaluated again. The row's trials are the evaluation games
after training, ``success_rate`` their share won, ``won`` whether all were; the untrained
rate and ``improved`` are columns. Its LLM usage is the policy's: a decision is one call,
the prompt's tokens in and the candidates' out. (In the earlier ``--agent twosome`` spelling,
now removed, ``--episodes`` meant the training episodes; here it is the common flag, one
training run per seed.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from pddlkit.agents import AgentError, AgentSpec, option
from pddlkit.flags import non_negative_float


@dataclass
class TwosomeOptions:
    train_episodes: int = option(50, "training episodes", aliases=("episodes",), minimum=1)
    eval_episodes: int = option(10, "evaluation episodes before and after training",
                                aliases=("eval",), minimum=1)
    budget: int = option(50, "commands per episode", minimum=1)
    critic_model: str = option("auto", "tinyllama, gemma-3-270m, a model folder or a .gguf "
                                       "file (auto: tinyllama if cached, else gemma-3-270m)",
                               aliases=("model",))
    critic_device: str = option("auto", "auto (CUDA in bf16 if present, else CPU), cpu, cuda")
    greedy: bool = option(False, "evaluate with the most probable command (default: sample "
                                 "from the policy)")
    fixed_seed: bool = option(False, "train and evaluate on the --seed layout only")
    policy_lr: float = option(1e-6, "LoRA learning rate (TWOSOME's 1e-6 suits 7B models; "
                                    "small models learn at 1e-4..3e-3)", parse=non_negative_float)
    value_lr: float = option(5e-5, "value head learning rate", parse=non_negative_float)
    ppo_steps: int = option(128, "environment steps per PPO update (K)", minimum=1)
    ppo_batch: int = option(32, "transitions per policy step (TWOSOME: 32)", minimum=1)
    shaping: float = option(0.0, "weight of the world model's potential-based shaping (PDDL "
                                 "worlds, SC2; 0: the environment's reward only)")
    history: int = option(1, "earlier steps shown in the prompt", minimum=0)
    save_critic: Optional[str] = option(None, "save the trained critic in this folder")
    load_critic: Optional[str] = option(None, "start from a saved critic")


def _check(o: TwosomeOptions) -> None:
    if o.history < 0:
        raise AgentError("--history must be 0 or more")
    for name in ("eval_episodes", "ppo_steps", "ppo_batch", "train_episodes"):
        if getattr(o, name) < 1:
            raise AgentError(f"--{name.replace('_', '-')} must be at least 1")


def play(job):
    from .runner import run_twosome

    o = job.options
    _check(o)
    for seed in job.seeds:
        episode = job.episode(seed)

        def show(i, result):
            episode.emit("training-episode", index=i + 1, seed=result.seed, won=result.won,
                         steps=result.steps, commands=result.commands[-6:])

        episode.emit("loading", model=o.critic_model, device=o.critic_device,
                     episodes=o.train_episodes, evaluate=o.eval_episodes)
        outcome = run_twosome(
            job.env, env_options=job.env_options, model=o.critic_model, seed=seed,
            episodes=o.train_episodes, evaluate=o.eval_episodes, budget=o.budget,
            fixed_seed=o.fixed_seed, shaping=o.shaping, device=o.critic_device,
            history=o.history, greedy=o.greedy,
            ppo={"policy_lr": o.policy_lr, "value_lr": o.value_lr,
                 "steps_per_update": o.ppo_steps, "policy_batch": o.ppo_batch},
            load=o.load_critic, save=o.save_critic, on_episode=show, make_env=job.make_env,
            ledger=job.ledger)
        for u in outcome.agent.log.updates:
            episode.emit("update", update=u.update, policy_loss=u.policy_loss,
                         value_loss=u.value_loss, entropy=u.entropy, kl=u.approx_kl,
                         explained_variance=u.explained_variance)
        m = outcome.metrics()
        m.pop("episodes")
        mode = "greedy" if o.greedy else "sampled"
        summary = (f"{outcome.env} with {outcome.model}: {mode} success "
                   f"{outcome.before_rate:.2f} untrained -> {outcome.after_rate:.2f} after "
                   f"{o.train_episodes} episodes ({m['updates']} PPO updates)"
                   + (f"; saved the critic in {outcome.saved}" if outcome.saved else ""))
        yield episode.row(outcome.after_rate == 1.0, outcome.after_rate,
                          max(1, len(outcome.after)), summary,
                          train_episodes=o.train_episodes, **m)


def describe(kind: str, data: dict) -> Optional[str]:
    if kind == "loading":  # said at once: torch and the model take seconds to load
        return (f"loading the policy model {data['model']} (device {data['device']}; torch "
                f"first), then {data['episodes']} training episodes and {data['evaluate']} "
                "held-out ones")
    if kind == "training-episode":
        return (f"episode {data['index']} (seed {data['seed']}): "
                f"{'won' if data['won'] else 'lost'} in {data['steps']} steps: "
                f"{'; '.join(data['commands'])}")
    if kind == "update":
        return (f"update {data['update']}: policy loss {data['policy_loss']:.4f}, value loss "
                f"{data['value_loss']:.4f}, entropy {data['entropy']:.3f}, KL {data['kl']:.4f}, "
                f"explained variance {data['explained_variance']:.3f}")
    return None


TWOSOME = AgentSpec(
    "twosome", "TWOSOME: a language model as the policy over admissible commands, trained "
    "with PPO (the LoRA critic)", TwosomeOptions, play, default_llm="", default_env="household",
    describe=describe, step_budget="budget",
    needs=("commands",), uses_llm=False)
