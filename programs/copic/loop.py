"""The CoPiC loop (seed 000, Algorithm 1): n planning programs per task type propose a plan at
every step, the LoRA critic scores the candidates and one is sampled by its score, the critic
learns with PPO every K steps, and every N episodes a program set whose success rate stays below
the threshold is evolved by the LLM from the last M episodes' results. After learning, programs
and critic are frozen and deployed on unseen tasks without LLM calls (:meth:`Copic.evaluate`).

Choices the paper leaves open (``shared/specs/copic.md`` §4), written down here:

- **Generation**: the init prompt is asked n times, one program per answer (the paper's prompts
  ask for one program); an answer without a program is asked again up to twice, and the error
  goes back in the prompt. **Evolution** asks the evolution prompt n times and replaces the
  whole set; an answer without a program keeps that slot's old program. Evolution stops after
  ``max_rounds`` rounds (the paper gives no cap) and never runs when evaluating.
- **The summary** of the last M episodes is formatting, not an LLM call: the paper's
  ``{<trajectory_i, signal_i>}`` rendered as ``Obs: ... / Act: ...`` lines, "only key parts"
  (Appendix G; ``shared/specs/copic.md`` §1.4). :meth:`Copic.results_text` writes it (the last
  ``world.trajectory_lines`` steps of each episode, its result, then what each program did), and
  it fills the evolution template's ``$results``; so there is no summary template to ask.
- **Programs run in the sandbox** (:mod:`pddlkit.sandbox`), one persistent worker each, called
  in parallel. A program that crashes, times out, returns a malformed plan or fails to load
  proposes nothing that step; its error is kept for the evolution prompt. A program that timed
  out twice in an episode is benched for the rest of it (a loop that never ends would
  otherwise cost its time limit at every step).
- **Candidates**: identical plans are merged (the critic sees each distinct plan once, and every
  program that proposed it is credited). An empty plan is a candidate ("wait") only where
  waiting is a decision (``world.wait_is_a_plan``: SC2, where a program saves resources);
  in the household a program with no command abstains, so the critic never prefers a short
  "do nothing" over a program's real plan. With no candidate the world's fallback plan runs.
- **World-model filter** (``world_model_filter=True``, pddlkit's addition): a candidate whose
  first action is impossible in the believed state (the world's symbolic model) is dropped
  before scoring, and counted as an avoided failure; when every candidate would fail, the
  fallback runs instead. Each program's dropped plans, with the model's reason, go into the
  evolution prompt (they never ran, so nothing else would tell the LLM).
- **Critic modes**: ``"ppo"`` (score, sample, learn), ``"frozen"`` (score, no learning) and
  ``"uniform"`` (the paper's "without critic" ablation: a uniform choice). Sampling is used when
  learning and, by default, when evaluating (``sample_eval``).
- **Steps**: an episode ends on success, when the world says so, or after the world's budget of
  environment actions (SC2: game time; household: 50 commands).
- **Shaping** (``shaping=c``, off by default): for worlds with a model of their own
  (``world.potential()``: the household's ``-h_add``; SC2's relaxed estimate of the steps still
  needed, :meth:`pddlkit.envs.sc2_build.SC2Build.seconds_left`), PPO's reward adds
  ``c * (gamma * phi(s') - phi(s))`` as the TWOSOME agent does (:mod:`pddlkit.critic.twosome`);
  it leaves optimal policies unchanged and turns a reward that arrives late into a signal per
  step. Reported rewards stay the environment's. Measured on SC2 Easy (one good program, two
  flawed; tiny random critic, K = 128, ``benchmarks/copic.py --parts critic``): without shaping
  PPO does not move selection (the paper's reward pays +1 per wanted unit started, so a wasted
  order shows only in *when* the Battlecruisers start, tens of steps later); with
  ``shaping=0.5`` the good program's share of contested steps rose from 0.44 (untrained) to
  0.71 with critic seeds 1 and 2, and held-out success to 0.9 against 0.5-0.55 uniform, but
  not with seed 0 (0.50, success 0.60 = uniform): a random critic's start decides how fast
  it learns (``tests/test_copic.py::test_ppo_with_shaping_moves_selection_to_the_good_program``
  checks seed 2).
- **Episode ends in PPO**: a decision's transition is stored once the next decision (its
  successor state) or the episode's end is reached; steps in between where no program offered
  a plan (the fallback ran) add their reward and shaping term to it, and the last transition
  of an episode is ``done``, so GAE never adds the next episode's first value and the shaping
  terms telescope within the episode as potential-based shaping needs.
- **Context**: when the backend knows its model's context (``local:`` servers do), an evolution
  prompt that would leave less than :data:`ANSWER_TOKENS` for the answer shows fewer of the last
  M episodes, oldest first (the newest always stays), and says how many it left out
  (``Copic.episodes_left_out``); the programs and their counts are never trimmed.
- **Costs**: LLM calls go to the LLM's ledger under the task type's name; critic scoring is
  recorded in the same ledger as model ``critic:<name>`` (prompt tokens in, candidate tokens
  out), as Table 9 counts TinyLlama's tokens.
"""

from __future__ import annotations

import logging
import random
import zlib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Optional, Sequence

from pddlkit.llm.context import fit_by_dropping, room
from pddlkit.sandbox import Policy, SandboxWorker

from ..answer import ProgramAnswerError, extract_program
from .world import Executed, ProgramWorld, plan_text

log = logging.getLogger("pddlkit.programs.copic")
CRITIC_MODES = ("ppo", "frozen", "uniform")
#: tokens an evolution prompt leaves for the answer (one program)
ANSWER_TOKENS = 1536


@dataclass
class CopicConfig:
    programs: int = 3                 # n (Table 7)
    episodes_per_round: int = 20      # N
    summary_episodes: int = 5         # M
    threshold: float = 0.9            # the paper gives none
    max_rounds: int = 5               # evolution rounds at most
    critic: str = "ppo"               # ppo | frozen | uniform
    evolve: bool = True
    world_model_filter: bool = False
    sample_eval: bool = True
    call_timeout: float = 0.5         # seconds per program call
    shaping: float = 0.0              # potential-based shaping weight (worlds with a model)
    bench_after_timeouts: int = 2
    seed: int = 0

    def __post_init__(self) -> None:
        if self.critic not in CRITIC_MODES:
            raise ValueError(f"critic must be one of {', '.join(CRITIC_MODES)}, got "
                             f"{self.critic!r}")
        if self.programs < 1:
            raise ValueError("programs (n) must be at least 1")
        if not 1 <= self.summary_episodes <= self.episodes_per_round:
            raise ValueError("summary_episodes (M) must be between 1 and episodes_per_round (N)")
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError("threshold must be between 0 and 1")


@dataclass
class ProgramStats:
    """What one program did since its set was made: for the evolution prompt."""

    proposals: int = 0
    chosen: int = 0
    errors: Counter = field(default_factory=Counter)
    failed: Counter = field(default_factory=Counter)   # (action, reason) of its chosen plans
    #: (first action, the world model's reason) of its plans the filter dropped unrun
    rejected: Counter = field(default_factory=Counter)


class Program:
    """One planning program in its sandbox worker."""

    def __init__(self, body: str, source: str, policy: Policy) -> None:
        self.body = body          # what the LLM wrote (what the prompts show)
        self.source = source      # what runs (the body with the world's API around it)
        self.worker = SandboxWorker(source, policy)
        self.stats = ProgramStats()
        self.timeouts = 0

    def close(self) -> None:
        self.worker.close()


@dataclass
class CopicEpisode:
    seed: Optional[int]
    task_type: str
    won: bool
    steps: int                 # environment actions
    plans: int                 # plans executed
    reward: float
    result: str                # the world's one-line result
    avoided: int = 0           # candidates the world-model filter dropped
    program_errors: int = 0
    trajectory: list = field(default_factory=list)   # (observation, plan) pairs
    round: int = 0
    contested: int = 0         # steps with more than one distinct candidate
    picks: list = field(default_factory=list)   # per program: contested steps it was chosen
    first_failures: int = 0    # executed plans whose first action failed

    def pick_share(self, program: int) -> float:
        """The share of contested steps whose chosen plan came from ``program``."""
        return self.picks[program] / self.contested if self.contested else 0.0


@dataclass
class RoundRecord:
    task_type: str
    round: int
    episodes: int
    success_rate: float
    evolved: bool


class Copic:
    """``Copic(world, llm, critic)``; ``copic.learn(seeds)``; ``copic.evaluate(seeds)``.

    ``world`` is a :class:`~.world.ProgramWorld`; ``llm`` any pddlkit LLM (the offline stand-in
    is :class:`~.standin.CopicWriter`); ``critic`` a :class:`pddlkit.critic.Critic` loaded with
    the ``copic`` prompt template, or None with ``critic="uniform"``.
    """

    def __init__(self, world: ProgramWorld, llm: Any, critic: Any = None,
                 config: Optional[CopicConfig] = None, ppo: Any = None,
                 policy: Optional[Policy] = None) -> None:
        self.world = world
        self.llm = llm
        self.config = config or CopicConfig()
        if critic is None and self.config.critic != "uniform":
            raise ValueError("a critic is needed unless critic='uniform'")
        if self.config.shaping > 0 and not callable(getattr(world, "potential", None)):
            raise ValueError(f"shaping={self.config.shaping} needs a world with a model of its "
                             f"own (a potential() method); {type(world).__name__} has none: "
                             f"use shaping=0")
        self.critic = critic if self.config.critic != "uniform" else None
        self.trainer = None
        if self.critic is not None and self.config.critic == "ppo":
            from pddlkit.critic.ppo import PPOTrainer

            self.trainer = PPOTrainer(self.critic, ppo)
        self.policy = replace(policy or Policy(cpu_seconds=5.0),
                              entry=world.entry, call_timeout=self.config.call_timeout)
        self.rng = random.Random(self.config.seed)
        self.generator = None
        if self.critic is not None:
            import torch

            self.generator = torch.Generator().manual_seed(self.config.seed)
        self.programs: dict[str, list[Program]] = {}
        self.episodes: list[CopicEpisode] = []
        self.rounds: list[RoundRecord] = []
        self.updates: list = []
        self.generation_failures: list[str] = []
        self.episodes_left_out: list[tuple[str, int]] = []  # per evolution that trimmed
        self._rounds: dict[str, int] = {}  # program sets asked for so far, per task type
        self._round_of: dict[str, int] = {}  # learning rounds closed so far, per task type
        self.ledger = getattr(llm, "ledger", None)
        self._pool = ThreadPoolExecutor(max_workers=max(1, self.config.programs))

    # -- programs -------------------------------------------------------------------------
    def _sample_seed(self, task_type: str, slot: int) -> int:
        """The seed of program ``slot`` in the current round of ``task_type``: n slots send n
        requests that differ, so a caching backend (whose key holds messages, temperature and
        seed) gives n samples, not one sample n times; the same run asks the same requests
        again, so a rerun is served from the cache."""
        key = f"{self.config.seed}|{task_type}|{self._rounds.get(task_type, 0)}|{slot}"
        return zlib.crc32(key.encode()) & 0x7FFFFFFF

    def _ask(self, prompt: str, task_type: str, slot: int = 0) -> Optional[str]:
        """One program from the LLM, asked up to three times; None if none came."""
        from pddlkit.llm.errors import LLMError

        messages = [{"role": "user", "content": prompt}]
        seed = self._sample_seed(task_type, slot)
        for _ in range(3):
            try:
                with self._episode(task_type):
                    answer = self.llm.complete(messages, temperature=0.7, seed=seed).text
            except LLMError as exc:
                self.generation_failures.append(f"{task_type}: {exc}")
                return None
            try:
                return extract_program(answer, self.world.program_name)
            except ProgramAnswerError as exc:
                self.generation_failures.append(f"{task_type}: {exc.problem}")
                messages += [{"role": "assistant", "content": answer},
                             {"role": "user", "content": exc.problem}]
        return None

    def _episode(self, name: str):
        import contextlib

        return self.ledger.episode(name) if self.ledger is not None else \
            contextlib.nullcontext()

    def _make(self, body: str) -> Program:
        return Program(body, self.world.program_source(body), self.policy)

    def generate(self, task_type: str) -> list[Program]:
        """The initial program set of a task type (n LLM calls)."""
        prompt = self.world.init_prompt(None)
        bodies = [self._ask(prompt, task_type, slot) for slot in range(self.config.programs)]
        self._rounds[task_type] = self._rounds.get(task_type, 0) + 1
        programs = [self._make(b) for b in bodies if b is not None]
        if not programs:
            last = self.generation_failures[-1] if self.generation_failures else "?"
            raise RuntimeError(f"the LLM wrote no program for {task_type} in "
                               f"{3 * self.config.programs} tries; last problem: {last}")
        self.programs[task_type] = programs
        return programs

    def program_set(self, task_type: str) -> list[Program]:
        return self.programs.get(task_type) or self.generate(task_type)

    def results_text(self, task_type: str, episodes: Sequence[CopicEpisode],
                     left_out: int = 0) -> str:
        """The evolution prompt's results: the last M episodes and what each program did;
        ``left_out`` older episodes are said to be missing (the model's context)."""
        lines = [f"({left_out} older episode{'s' if left_out > 1 else ''} left out to fit the "
                 f"model's context)"] if left_out else []
        for k, e in enumerate(episodes, 1 + left_out):
            lines.append(f"Episode {k}: {e.result} ({'success' if e.won else 'failure'}, "
                         f"{e.steps} steps)")
            shown = e.trajectory[-self.world.trajectory_lines:] \
                if self.world.trajectory_lines else []
            for observation, plan in shown:
                lines += [f"  Obs: {observation}", f"  Act: {plan}"]
        for i, program in enumerate(self.programs.get(task_type, []), 1):
            s = program.stats
            lines.append(f"Program {i}: proposed {s.proposals} plans, {s.chosen} chosen")
            lines += [f"    could not do {a}: {why} ({n} times)"
                      for (a, why), n in s.failed.most_common(6)]
            lines += [f"    rejected by the world model before running, {a}: {why} ({n} times)"
                      for (a, why), n in s.rejected.most_common(6)]
            lines += [f"    error ({n} times): {err}" for err, n in s.errors.most_common(3)]
        return "\n".join(lines)

    def evolve(self, task_type: str, episodes: Sequence[CopicEpisode]) -> list[Program]:
        """A new program set from the current one and the results of ``episodes``."""
        old = self.programs[task_type]
        prompt, left_out = fit_by_dropping(
            lambda kept, n: self.world.evolve_prompt([p.body for p in old],
                                                     self.results_text(task_type, kept, n), None),
            episodes, room(self.llm, ANSWER_TOKENS))
        if left_out:
            self.episodes_left_out.append((task_type, left_out))
        bodies = [self._ask(prompt, task_type, slot) for slot in range(self.config.programs)]
        self._rounds[task_type] = self._rounds.get(task_type, 0) + 1
        new = [self._make(b) if b is not None else self._make(old[i % len(old)].body)
               for i, b in enumerate(bodies)]
        for p in old:
            p.close()
        self.programs[task_type] = new
        return new

    # -- one step -------------------------------------------------------------------------
    def _propose(self, programs: Sequence[Program], args: dict) -> list[Optional[list[str]]]:
        def one(program: Program) -> Optional[list[str]]:
            if program.timeouts >= self.config.bench_after_timeouts:
                return None
            result = program.worker.call(**args)
            program.stats.proposals += 1
            if not result.ok:
                if result.error.kind.value == "timeout":
                    program.timeouts += 1
                program.stats.errors[result.error.format().splitlines()[0]] += 1
                return None
            try:
                return self.world.check_plan(result.value)
            except ValueError as exc:
                program.stats.errors[f"bad-return: {exc}"] += 1
                return None

        return list(self._pool.map(one, programs))

    def _record_critic(self, decision, task_type: str) -> None:
        """The critic's tokens in the ledger, as the decision counted them (no re-tokenizing)."""
        if self.ledger is None or self.critic is None:
            return
        from pddlkit.llm.base import Completion

        with self._episode(task_type):
            self.ledger.record(Completion("", decision.prompt_tokens, decision.candidate_tokens,
                                          model=f"critic:{self.critic.model_name}"))

    def _label(self, plan: Sequence[str]) -> str:
        """A plan's text for the critic and the results (an empty plan is "wait")."""
        label = getattr(self.world, "plan_label", None)
        return (label(plan) if label else plan_text(plan)) or "wait"

    def play(self, seed: Optional[int], *, learn: bool = True,
             sample: Optional[bool] = None) -> CopicEpisode:
        """One episode; ``learn`` adds its steps to the PPO buffer (critic mode "ppo")."""
        sample = learn if sample is None else sample
        world = self.world
        world.reset(seed)
        task_type = world.task_type
        programs = self.program_set(task_type)
        for p in programs:
            p.timeouts = 0
        learning = learn and self.trainer is not None
        shaped = learning and self.config.shaping > 0
        phi = world.potential() if shaped else 0.0
        steps = plans = avoided = errors = first_failures = 0
        total, won, done = 0.0, False, False
        trajectory = []
        contested, picks = 0, [0] * len(programs)
        pending = None   # the last decision's transition, until its successor state is known
        while not done and steps < world.budget:
            proposals = self._propose(programs, world.program_args())
            errors += sum(p is None for p in proposals)
            by_text: dict[str, tuple[list[str], list[int]]] = {}
            for i, plan in enumerate(proposals):
                if plan is not None and (plan or getattr(world, "wait_is_a_plan", False)):
                    by_text.setdefault(self._label(plan), (plan, []))[1].append(i)
            if self.config.world_model_filter:
                for text, (plan, proposers) in list(by_text.items()):
                    reason = world.first_action_fails(plan)
                    if reason:
                        del by_text[text]
                        avoided += 1
                        for i in proposers:   # the cheapest feedback there is: keep it
                            programs[i].stats.rejected[(plan[0] if plan else "wait",
                                                        str(reason))] += 1
            texts = list(by_text)
            prompt = decision = None
            if not texts:
                plan, chosen_by = world.fallback(), []
            elif self.critic is not None:
                prompt = self.critic.template.render(task=world.task_text,
                                                     observation=world.observation_text(),
                                                     candidates=texts)
                if learning and pending is not None:   # its successor is this state
                    self.trainer.add(pending)
                    pending = None
                if learning and self.trainer.ready:
                    self.updates.append(self.trainer.update(self.critic.value(prompt)))
                decision = self.critic.act(prompt, texts, sample=sample,
                                           generator=self.generator)
                self._record_critic(decision, task_type)
                plan, chosen_by = by_text[texts[decision.index]]
            else:
                plan, chosen_by = by_text[texts[self.rng.randrange(len(texts))]]
            before = world.observation_text()
            executed: Executed = world.execute(plan)
            failed = executed.info.get("failed") or ()
            if failed and plan and failed[0][0] == plan[0]:
                first_failures += 1
            plans += 1
            steps += executed.actions
            total += executed.reward
            won, done = executed.won, executed.done or executed.won
            trajectory.append((before, self._label(plan)))
            if len(texts) > 1:
                contested += 1
                for i in chosen_by:
                    picks[i] += 1
            for i in chosen_by:
                programs[i].stats.chosen += 1
                for action, reason in executed.info.get("failed", ()):
                    programs[i].stats.failed[(action, reason)] += 1
            reward = executed.reward
            if shaped:
                after = 0.0 if won else world.potential()
                reward += self.config.shaping * (self.trainer.config.gamma * after - phi)
                phi = after
            if learning and decision is not None:
                from pddlkit.critic.ppo import Transition

                pending = Transition(prompt, texts, decision.index, decision.logprob,
                                     decision.value, reward, False, decision.features)
            elif learning and pending is not None:
                # a step no program offered a plan for (the fallback ran): its reward and
                # shaping term belong to the last decision, whose consequences they are
                pending.reward += reward
        if learning and pending is not None:   # the episode ended: no bootstrap past it
            pending.done = True
            self.trainer.add(pending)
        if learning and self.trainer.ready:
            self.updates.append(self.trainer.update(0.0))
        record = CopicEpisode(seed, task_type, won, steps, plans, total,
                               world.episode_result(won), avoided, errors, trajectory,
                               self._round_of.get(task_type, 0), contested, picks,
                               first_failures)
        return record

    # -- learning and deployment ----------------------------------------------------------
    def learn(self, seeds: Sequence[int], *,
              on_episode: Optional[Callable[[CopicEpisode], None]] = None
              ) -> list[RoundRecord]:
        """Rounds of N episodes per task type on ``seeds`` (cycled), as the paper keeps them:
        each task type counts its own episodes, and once it has N since its program set was
        made, its success rate decides: at the threshold (or after ``max_rounds``
        evolutions) it is done, else its set is evolved from its own last M episodes. A world
        whose seeds mix task types (the household's ``basic&use``) so evolves each type on
        its own evidence. Learning ends when every type met is done."""
        config = self.config
        seeds = list(seeds)
        since: dict[str, list[CopicEpisode]] = {}   # each type's episodes in this round
        done_types: set[str] = set()
        played = 0
        while True:
            seed = seeds[played % len(seeds)]
            played += 1
            record = self.play(seed, learn=True)
            self.episodes.append(record)
            if on_episode:
                on_episode(record)
            task_type = record.task_type
            if task_type not in done_types:
                batch = since.setdefault(task_type, [])
                batch.append(record)
                if len(batch) >= config.episodes_per_round:
                    self._close_round(task_type, batch, done_types)
                    since[task_type] = []
            types = set(since) | done_types
            cap = (config.max_rounds + 1) * config.episodes_per_round * max(1, len(types))
            if (types and types <= done_types) or played >= cap:
                break
        return self.rounds

    def _close_round(self, task_type: str, batch: list[CopicEpisode],
                     done_types: set[str]) -> None:
        config = self.config
        number = self._round_of.get(task_type, 0)
        rate = success_rate(batch)
        evolve = config.evolve and rate < config.threshold and number < config.max_rounds
        self.rounds.append(RoundRecord(task_type, number, len(batch), rate, evolve))
        self._round_of[task_type] = number + 1
        log.info("round %d on %s: success %.2f%s", number, task_type, rate,
                 ", evolving" if evolve else "")
        if evolve:
            self.evolve(task_type, batch[-config.summary_episodes:])
        else:
            done_types.add(task_type)

    def evaluate(self, seeds: Sequence[int]) -> list[CopicEpisode]:
        """Frozen deployment: no LLM calls, no critic updates (programs must exist: call
        :meth:`learn` first, or they are generated once)."""
        return [self.play(s, learn=False, sample=self.config.sample_eval) for s in seeds]

    def close(self) -> None:
        for programs in self.programs.values():
            for p in programs:
                p.close()
        self._pool.shutdown(wait=False)

    def __enter__(self) -> "Copic":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def success_rate(records: Sequence[CopicEpisode]) -> float:
    return sum(r.won for r in records) / len(records) if records else 0.0
