"""CoPiC as an agent of :mod:`pddlkit.agents` (entry point ``copic``): ``pddlkit run copic``,
``pddlkit bench`` cells and ``run_job`` all go through :data:`COPIC`.

    pddlkit run copic --env sc2-build --difficulty easy --llm standin --copic-critic uniform
    pddlkit run copic --env household --difficulty pick_heat_then_place --wm-filter
    pddlkit run copic --env nethack-drink --llm openai:gpt-4o --critic-model gemma-3-270m

``--llm standin[:MISTAKES]`` (the default) is the stand-in writer: programs we wrote (SC2's
from the simulator's tables) with injected mistakes, repaired by evolution only when the
results show them.

An episode is one CoPiC run: learning on training seeds (programs written and evolved by the
LLM, the critic trained by PPO), then the frozen programs and critic on ``--eval-episodes``
held-out seeds. Its row's trials are the held-out games, ``success_rate`` their share won and
``won`` whether all were; learning success, evolutions, critic tokens and the rest are
columns. The critic options are the twosome agent's, under the same names; ``--shaping`` works
on SC2 and the household (worlds with a model of their own) and is refused elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from pddlkit.agents import AgentError, AgentSpec, option
from pddlkit.agents.standins import StandIn, names
from pddlkit.flags import non_negative_float, positive_float, probability

from .runner import ENV_IDS
from .standin import KINDS

#: what ``--llm`` may name for the stand-in writer: ``standin:A,B;;C`` (each program's
#: mistakes, programs apart by ';'; any world's mistakes here, the world's own checked later)
STAND_INS = (StandIn("standin", names(tuple(dict.fromkeys(
                 m for _, known, _ in KINDS.values() for m in known)), separators=",;"),
                     "standin:no-open;;no-open", form="A,B;C"),
             StandIn("observation"))


@dataclass
class CopicOptions:
    copic_critic: str = option("ppo", "learn the critic with PPO, keep it frozen, or choose "
                                      "uniformly (the paper's no-critic ablation; needs no "
                                      "torch). ppo and frozen load a language model and "
                                      "score every step with it: on a CPU, Gemma 3 270M takes "
                                      "about 1.7 s a step and 40 s a PPO update, so a run "
                                      "takes many minutes (uniform: seconds)",
                               choices=("ppo", "frozen", "uniform"), aliases=("critic",))
    programs: int = option(3, "programs per task (n)", minimum=1)
    round_episodes: int = option(20, "episodes between evolution checks (N)", minimum=1)
    summary_episodes: int = option(5, "episodes summarized for evolution (M)", minimum=1)
    threshold: float = option(0.9, "success rate at which evolution stops", parse=probability)
    max_rounds: int = option(5, "evolutions at most", minimum=0)
    evolve: bool = option(True, "evolve the programs (--no-evolve: never)", flag="--no-evolve")
    wm_filter: bool = option(False, "drop candidates whose first action the world model "
                                    "rejects")
    eval_episodes: int = option(10, "held-out episodes after learning", aliases=("eval",),
                                minimum=1)
    budget: int = option(50, "household: commands per episode", minimum=1)
    max_seconds: Optional[float] = option(None, "SC2 game-time limit in seconds (default 660)",
                                          parse=positive_float)
    nethack_seeds: str = option("all", "NetHack games: all (every seed, the paper's setting) or "
                                       "visible-target (the target in view at turn 1: easier)")
    max_keys: Optional[int] = option(None, "NetHack keystrokes per episode (default 600; 2000 "
                                           "for exp-level-3)", minimum=1)
    critic_model: str = option("auto", "tinyllama, gemma-3-270m, a model folder or a .gguf "
                                       "file", aliases=("model",))
    critic_device: str = option("auto", "auto (CUDA in bf16 if present, else CPU), cpu, cuda")
    policy_lr: float = option(1e-6, "the critic's LoRA learning rate",
                              parse=non_negative_float)
    value_lr: float = option(5e-5, "the value head's learning rate", parse=non_negative_float)
    ppo_steps: int = option(128, "environment steps per PPO update (K)", minimum=1)
    ppo_batch: int = option(32, "transitions per policy step", minimum=1)
    shaping: float = option(0.0, "weight of the world model's potential-based shaping (SC2, "
                                 "household; 0: the environment's reward only)")
    save_critic: Optional[str] = option(None, "save the trained critic in this folder")
    load_critic: Optional[str] = option(None, "start from a saved critic")


def stand_in(llm: Optional[str]) -> Optional[str]:
    """What the stand-in program writer knows, for row labels and summaries; None for an LLM."""
    if llm in (None, "", "observation", "standin") or str(llm).startswith("standin:"):
        return ("stand-in (programs we wrote with injected mistakes; SC2's from the "
                "simulator's tables)")
    return None


def budget_field(env: str) -> Optional[str]:
    """What ``--max-steps`` sets: NetHack's keystrokes, the household's commands; SC2 counts
    game time (``--max-seconds``), not steps."""
    return "max_keys" if env.startswith("nethack") else "budget" if env == "household" else None


def env_options(env: str, given: dict, o: CopicOptions) -> dict:
    options = dict(given)
    if env == "sc2-build":
        options.pop("receptacles", None)
        if o.max_seconds:
            options["max_seconds"] = o.max_seconds
    if env == "household":
        options["budget"] = o.budget
    if o.max_keys is not None:
        if o.max_keys <= 0:
            raise AgentError(f"--max-keys must be a positive number of keystrokes, got "
                             f"{o.max_keys}")
        if not env.startswith("nethack-"):
            raise AgentError(f"--max-keys is NetHack's keystroke budget; {env} has none "
                             f"(SC2: --max-seconds, household: --budget)")
        options["max_keys"] = o.max_keys
    if env.startswith("nethack-"):
        from .nethack_world import SEED_SETS

        if o.nethack_seeds not in SEED_SETS:
            raise AgentError(f"--nethack-seeds must be one of {', '.join(SEED_SETS)}, got "
                             f"{o.nethack_seeds!r}")
        options["nethack_seeds"] = o.nethack_seeds
    return options


#: CopicConfig's field names and the flags that set them, for its error messages
FLAGS = {"summary_episodes (M)": "--summary-episodes", "episodes_per_round (N)":
         "--round-episodes", "programs (n)": "--programs", "threshold": "--threshold",
         "critic": "--copic-critic"}


def _as_flags(message: str) -> str:
    for name, flag in FLAGS.items():
        message = message.replace(name, flag)
    return message


def play(job):
    from .loop import CopicConfig
    from .runner import run_copic

    o = job.options
    llm = job.llm if job.llm not in ("observation", "") else "standin"
    options = env_options(job.env, job.env_options, o)
    for seed in job.seeds:
        episode = job.episode(seed)

        def show(record):
            episode.emit("game", round=record.round, task_type=record.task_type,
                         seed=record.seed, won=record.won, steps=record.steps,
                         result=record.result)

        try:
            config = CopicConfig(programs=o.programs, episodes_per_round=o.round_episodes,
                                 summary_episodes=o.summary_episodes, threshold=o.threshold,
                                 max_rounds=o.max_rounds, critic=o.copic_critic,
                                 evolve=o.evolve, world_model_filter=o.wm_filter,
                                 shaping=o.shaping, seed=seed)
        except ValueError as exc:   # the loop's names, as the flags that set them
            raise AgentError(_as_flags(str(exc))) from None
        ppo = {"policy_lr": o.policy_lr, "value_lr": o.value_lr,
               "steps_per_update": o.ppo_steps, "policy_batch": o.ppo_batch}
        episode.emit("critic", critic=o.copic_critic, model=o.critic_model,
                     device=o.critic_device, rounds=o.round_episodes, evaluate=o.eval_episodes)
        outcome = run_copic(job.env, llm, env_options=options, config=config,
                            critic_model=o.critic_model, critic_device=o.critic_device,
                            ppo=ppo, seed=seed, evaluate=o.eval_episodes,
                            load_critic=o.load_critic, save_critic=o.save_critic,
                            on_episode=show)
        for r in outcome.copic.rounds:
            episode.emit("round", round=r.round, task_type=r.task_type,
                         success_rate=r.success_rate, episodes=r.episodes, evolved=r.evolved)
        m = outcome.metrics()
        m.pop("success")
        games = len(outcome.evaluation)
        summary = (f"learning success {outcome.train_rate:.2f}, held-out success "
                   f"{outcome.eval_rate:.2f} over {games} games (mean {m['steps']:.1f} steps), "
                   f"{m['evolutions']} evolutions, {m['critic_tokens']} critic tokens")
        if o.wm_filter:
            summary += f"; world-model filter: {m['avoided_failures']} candidates known to " \
                       f"fail were not run"
        if m["repaired"]:
            summary += f"; evolution repaired: {', '.join(m['repaired'])}"
        usage = {"calls": m["llm_calls"], "prompt_tokens": m["prompt_tokens"],
                 "completion_tokens": m["completion_tokens"], "cost_usd": m["cost_usd"]}
        yield episode.row(games > 0 and outcome.eval_rate == 1.0, outcome.eval_rate,
                          max(1, games), summary, usage=usage, costs=outcome.costs(), **m)


def describe(kind: str, data: dict) -> Optional[str]:
    if kind == "critic":  # said before anything loads: a language-model critic is slow on a CPU
        if data["critic"] == "uniform":
            return (f"critic: uniform (no model); {data['rounds']} learning games a round, then "
                    f"{data['evaluate']} held-out games")
        return (f"critic: {data['critic']} on {data['model']} (device {data['device']}); "
                "loading it and scoring every step with it takes many minutes on a CPU (Gemma "
                "3 270M: about 1.7 s a step, 40 s a PPO update); each game prints when it ends; "
                "--copic-critic uniform runs in seconds")
    if kind == "game":
        return (f"round {data['round']} {data['task_type']} (seed {data['seed']}): "
                f"{'won' if data['won'] else 'lost'} in {data['steps']} steps; {data['result']}")
    if kind == "round":
        return (f"round {data['round']} on {data['task_type']}: success "
                f"{data['success_rate']:.2f} over {data['episodes']} episodes"
                + (", evolved the programs" if data["evolved"] else ""))
    return None


COPIC = AgentSpec(
    "copic", "CoPiC: LLM-written planning programs propose plans, a LoRA critic chooses, the "
    "programs evolve", CopicOptions, play, stand_in=stand_in, envs=ENV_IDS,
    default_env="sc2-build", describe=describe, step_budget=budget_field, stand_ins=STAND_INS)
