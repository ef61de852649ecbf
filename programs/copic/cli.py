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
from pddlkit.agents.helps import Help, helps_column, helps_on, helps_summary, options_with_helps
from pddlkit.agents.standins import knows
from pddlkit.flags import non_negative_float, positive_float, probability

from .runner import ENV_IDS
from .worlds import kind_of
from .standin import STAND_INS


@dataclass
class _LoopOptions:
    """The options of the paper's loop; the helps beyond it come from :data:`COPIC_HELPS`."""

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
    eval_episodes: int = option(10, "held-out episodes after learning", aliases=("eval",),
                                minimum=1)
    budget: int = option(50, "household and ALFWorld: commands per episode", minimum=1)
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


#: CoPiC's helps beyond the paper's loop, one line each (:mod:`pddlkit.agents.helps`): their
#: options, the rows' helps column and summary come from here
COPIC_HELPS: tuple[Help, ...] = (
    Help("wm_filter", "drop candidates whose first action the world model rejects (SC2: the "
                      "tech tree, and a price or supply the step cannot give)"),
    Help("plan_api", "programs may call the world model: SC2's build_order(goal) (the build "
                     "order the tech tree needs for a unit of the task, from what they have), "
                     "the household's plan(goal) (the plan for the task from what was seen); "
                     "computed in the host, passed to the sandbox as data"),
    Help("derived_tree", "SC2: the example program's tech_tree in the initial prompt is "
                         "written by code from the game's tech tables for the example's and "
                         "the task's units (the paper's lists the example's units only, and a "
                         "small model copies it)"),
)
#: ``pddlkit run copic``'s options: the paper's loop's, then one per help of
#: :data:`COPIC_HELPS`
CopicOptions = options_with_helps("CopicOptions", _LoopOptions, COPIC_HELPS, __name__)


def stand_in(llm: Optional[str]) -> Optional[str]:
    """What the stand-in program writer knows, for row labels and summaries; None for an LLM."""
    return knows(llm, STAND_INS, "copic")


def budget_field(env: str) -> Optional[str]:
    """What ``--max-steps`` sets: the environment kind's step option (NetHack's keystrokes,
    the household's and ALFWorld's commands; SC2 counts game time, ``--max-seconds``, not
    steps), from :mod:`.worlds`."""
    try:
        return kind_of(env).step_option
    except ValueError:
        return None


def env_options(env: str, given: dict, o: CopicOptions) -> dict:
    """The environment's options with CoPiC's own that reach it (the kind's ``options``, from
    :mod:`.worlds`); a NetHack-only option given elsewhere is refused, never dropped."""
    kind = kind_of(env)
    options = dict(given)
    if o.max_seconds:
        if "max_seconds" not in kind.options:
            raise AgentError(f"--max-seconds is SC2's game-time limit; {env} has none "
                             f"(household and ALFWorld: --budget, NetHack: --max-keys)")
        options["max_seconds"] = o.max_seconds
    if "budget" in kind.options:
        options["budget"] = o.budget
    if o.max_keys is not None:
        if o.max_keys <= 0:
            raise AgentError(f"--max-keys must be a positive number of keystrokes, got "
                             f"{o.max_keys}")
        if "max_keys" not in kind.options:
            raise AgentError(f"--max-keys is NetHack's keystroke budget; {env} has none "
                             f"(SC2: --max-seconds, household and ALFWorld: --budget)")
        options["max_keys"] = o.max_keys
    if "nethack_seeds" in kind.options:
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
    kind = kind_of(job.env)
    if o.plan_api and not kind.world_model:
        raise AgentError(f"--plan-api gives programs a world model's plans as plan(goal) (SC2's "
                         f"tech tree, the household's PDDL); {job.env} has none (leave "
                         f"--plan-api out)")
    if o.derived_tree and not kind.derived_tree:
        raise AgentError(f"--derived-tree writes the SC2 example program's tech_tree; {job.env} "
                         f"has none (leave --derived-tree out)")
    options = env_options(job.env, job.env_options, o)
    for seed in job.seeds:
        # the job's model (after the checks: loading may start a server), with a ledger of
        # this run's own inside the job's; a stand-in is made by the runner, in the same way
        llm = job.make_llm(own_ledger=True) or "standin"
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
                            on_episode=show, make_env=job.make_env, world_model=o.plan_api,
                            derived_tree=o.derived_tree, ledger=job.ledger)
        for r in outcome.copic.rounds:
            episode.emit("round", round=r.round, task_type=r.task_type,
                         success_rate=r.success_rate, episodes=r.episodes, evolved=r.evolved)
        for record in outcome.evaluation:   # the held-out games, as the learning ones
            episode.emit("held-out game", task_type=record.task_type, seed=record.seed,
                         won=record.won, steps=record.steps, result=record.result,
                         program_errors=record.program_errors)
        for task_type, programs in outcome.copic.programs.items():   # the last program set
            for k, program in enumerate(programs, 1):
                stats = program.stats
                episode.emit("program", task_type=task_type, program=k,
                             proposals=stats.proposals, chosen=stats.chosen,
                             errors=[[text, n] for text, n in stats.errors.most_common(3)],
                             failed=[[f"{a}: {why}", n] for (a, why), n
                                     in stats.failed.most_common(3)])
        m = outcome.metrics()
        m.pop("success")
        games = len(outcome.evaluation)
        summary = (f"learning success {outcome.train_rate:.2f}, held-out success "
                   f"{outcome.eval_rate:.2f} over {games} games (mean {m['steps']:.1f} steps), "
                   f"{m['evolutions']} evolutions, {m['critic_tokens']} critic tokens")
        if o.wm_filter:
            summary += f"; world-model filter: {m['avoided_failures']} candidates known to " \
                       f"fail were not run"
        if o.plan_api:
            seconds = getattr(outcome.copic.world, "plan_seconds", 0.0)
            summary += f"; plan(goal): {seconds:.1f} s of planning in the host"
        used = helps_on(COPIC_HELPS, o)
        summary += helps_summary(used)
        if m["repaired"]:
            summary += f"; evolution repaired: {', '.join(m['repaired'])}"
        source = world_model_source(job.env, used)
        summary += f"; world model: {source}"
        yield episode.row(games > 0 and outcome.eval_rate == 1.0, outcome.eval_rate,
                          max(1, games), summary, costs=outcome.costs(),
                          helps=helps_column(used), domain_source=source, **m)


def world_model_source(env: str, used: list[str]) -> str:
    """Where the world model the helps read came from (issue 73), named as PDDLego+'s rows
    name their domain: SC2's tech tables and the household's PDDL domain are pddlkit's, written
    by hand; ``none`` when no help reads one (the programs are the LLM's alone)."""
    if not used:
        return "none"
    return kind_of(env).world_model or f"reference ({env}'s own model)"


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
    if kind == "held-out game":
        return (f"held-out {data['task_type']} (seed {data['seed']}): "
                f"{'won' if data['won'] else 'lost'} in {data['steps']} steps; {data['result']}"
                + (f"; {data['program_errors']} program errors" if data["program_errors"]
                   else ""))
    if kind == "program":
        errors = "; ".join(f"{text} ({n}x)" for text, n in data["errors"])
        return (f"program {data['program']} ({data['task_type']}): chosen {data['chosen']} of "
                f"{data['proposals']} proposals" + (f"; raised {errors}" if errors else ""))
    if kind == "round":
        return (f"round {data['round']} on {data['task_type']}: success "
                f"{data['success_rate']:.2f} over {data['episodes']} episodes"
                + (", evolved the programs" if data["evolved"] else ""))
    return None


COPIC = AgentSpec(
    "copic", "CoPiC: LLM-written planning programs propose plans, a LoRA critic chooses, the "
    "programs evolve", CopicOptions, play, stand_in=stand_in, envs=ENV_IDS,
    default_env="sc2-build", describe=describe, step_budget=budget_field, stand_ins=STAND_INS)
