"""The PDDLego+ loop: formalize, plan, execute the whole plan, grow; refine on errors.

* Inner loop (solver errors): an unreadable answer, PDDL that does not parse or check, no plan,
  or a plan whose actions the environment does not have. pddlkit's diagnostics and why-no-plan
  explanation go back to the formalizer, up to ``max_solver_retries`` times per step (the
  counter resets every step, as in the paper's released code).
* Outer loop (simulation errors): a command fails. The environment is restored to the
  snapshot taken at the start of the step (executed actions are nullified), and the failed
  command, the environment's message and the executed actions go back, up to
  ``max_simulation_retries`` consecutive times.
* Limits: ``action_budget`` environment commands (default 50, METHODS.md); the abort reason is
  recorded. Metrics follow the paper's Appendix A.
* Done: the episode ends when a step is done under :func:`pddlkit.envs.api.ending` (won through
  ``info["won"]``, ``terminated`` or ``env.won``; or terminated or truncated without a win),
  so the formalizer is never asked again after the environment said the task is won. A step
  that is done stops the plan, even one that failed (a truncating step is not rolled back:
  the environment's episode is over). The environment is checked once per class
  (:func:`~pddlkit.envs.api.check_env_once`) after its reset.
* Prompts: every :class:`~.base.Context` comes from :func:`.prompts.prompt_context`, the one
  builder ``formalize_and_plan`` uses too.
* Options beyond the paper, each off by default: ``repair`` fixes trivial slips in code before
  planning (:mod:`.repair`), ``fact_memory`` merges confirmed facts back into each new
  problem file (:mod:`.helps.fact_memory`), ``domain`` freezes the domain file,
  ``declare_objects`` declares in code the objects a problem uses without declaring them,
  typed by the predicates
  (:mod:`.objects`), and ``fresh_answers`` never plans files identical to ones already refused
  (by the checker, the planner or the world; a planner that ran out of time or memory
  refused nothing): such an answer is counted
  (``repeated_answers``) and asked for anew with a message saying it was refused before and
  why (the refusal in full: the planner's diagnostics, not only their heading), instead of
  spending a planner call and a solver retry on it. The repeats of one step are bounded
  apart from the retries (``Limits.max_repeated_answers`` are asked anew; the next one stops
  the episode with its own reason, "repeated answers: limit reached", counted with the
  inner loop's aborts in ``solver_aborts``). ``problem_only``, with a frozen domain, asks an
  LLM formalizer for the problem file alone (no domain written and thrown away; under
  ``constrained`` the grammar is the problem file's). ``refuted_facts`` keeps a
  fact the world refuted (its ``info["failed"]``) out of later problem files until an action
  that adds it has run (:mod:`.helps.refuted_facts`).
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Optional, Sequence, Union

from pddlkit.agents.episode import RecordFile  # JSONL: every event
from pddlkit.llm.usage import usage_since, usage_snapshot
from .answer import Files
from .attempt import Attempt, answer_key, attempt, observed_text
from .base import (INITIAL, SIMULATION_ERROR, SOLVER_ERROR, UPDATE, AsksForTheProblemAlone,
                   CutsItsFiles, FollowsThePlan, Formalizer, InjectsMistakes, KeepsOneValue,
                   LearnsFromTransitions, Memory, PlaysAGivenDomain, ReadsTheLastAnswer,
                   ReportsWork, TrimsItsHistory, ledger_of)
from .evidence import as_transition, believed_states
from .passes import LearnsWhatFailed, LearnsWhatRan
from .playable import playable_domain
from .prompts import prompt_context


@dataclass
class Limits:
    """How far an episode goes: the paper's retry limits (5 each), its action budget, and
    how long one planner call may take.

    ``max_solver_retries``: solver errors fed back in one step before the episode ends (the
    inner loop). ``max_simulation_retries``: failed plan steps fed back in a row before it
    ends (the outer loop). ``action_budget``: commands run in the environment, in all.
    ``planner_timeout``: seconds for one planner call. ``max_repeated_answers``: answers
    identical to refused ones (``fresh_answers``) asked anew in one step; they spend no
    solver retry, so this bounds a model that writes nothing else (last, so the fields
    before keep their places).
    """

    max_solver_retries: int = 5          # the paper's two retry limits
    max_simulation_retries: int = 5
    action_budget: int = 50              # what an episode may spend
    planner_timeout: float = 30.0
    max_repeated_answers: int = 5

    def __post_init__(self) -> None:
        """A count below its least (one action, no retries) or a planner time not above 0
        would end every episode at its first step, or never: refused here, naming the field
        (a count must be a whole number; ``True`` is not one)."""
        for name, least in (("max_solver_retries", 0), ("max_simulation_retries", 0),
                            ("action_budget", 1), ("max_repeated_answers", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(f"Limits.{name} must be a whole number, {least} or more, "
                                 f"not {value!r}")
        seconds = self.planner_timeout
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) \
                or not seconds > 0:
            raise ValueError(f"Limits.planner_timeout must be seconds above 0, not {seconds!r}")


@dataclass
class Metrics:
    """The paper's Appendix A counts for one episode."""

    success: bool = False
    steps: int = 0
    actions: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    planner_calls: int = 0
    solver_errors: int = 0
    solver_fixed: int = 0
    solver_aborts: int = 0
    simulation_errors: int = 0
    simulation_fixed: int = 0
    simulation_aborts: int = 0
    abort_reason: Optional[str] = None
    repairs: int = 0  # trivial slips fixed in code (repair option)
    facts_merged: int = 0  # remembered facts put back (fact_memory option)
    objects_declared: int = 0  # objects declared in code (declare_objects, typed_objects)
    facts_refuted: int = 0  # facts the world refuted, kept out after (refuted_facts option)
    part_calls: int = 0  # calls of the modular mode, one small part each (modular option)
    parts_redrawn: int = 0  # part answers identical to a refused one, drawn again (modular)
    facts_kept_out: int = 0  # removals of refuted facts from problem files
    repeated_answers: int = 0  # answers identical to refused ones, not planned (fresh_answers)
    history_left_out: int = 0  # the most history entries one prompt left out for the context
    loop_seconds: float = 0.0
    planner_seconds: float = 0.0
    #: each problem file against the environment's truth (:mod:`.scoring`; None: not scored)
    files_scored: int = 0
    files_equivalent: Optional[float] = None   # the share equivalent to their reference
    fact_precision: Optional[float] = None     # mean over the files aligned with it
    fact_recall: Optional[float] = None
    domain_agreement: Optional[float] = None   # mean behavioural agreement of the domains


@dataclass
class EpisodeResult:
    env_id: str
    seed: Optional[int]
    task: str
    formalizer: str
    metrics: Metrics
    files: list[Files] = field(default_factory=list)
    plans: list[list[str]] = field(default_factory=list)
    errors: list[dict] = field(default_factory=list)
    planned: list[int] = field(default_factory=list)  # indices of ``files`` that gave a plan
    #: each plan's PDDL actions (parallel to ``plans``), and how many of its commands ran
    actions: list[list[str]] = field(default_factory=list)
    ran: list[int] = field(default_factory=list)
    #: each file's score against the environment's truth (parallel to ``files`` when scored)
    scores: list = field(default_factory=list)
    #: the frozen domain's actions left out, the environment having no command for them
    #: (:mod:`.playable`)
    left_out: list[str] = field(default_factory=list)

    @property
    def won(self) -> bool:
        return self.metrics.success


def run_episode(env, formalizer: Formalizer, *, seed: Optional[int] = None,
                planner: Any = "fast-downward", limits: Optional[Limits] = None,
                record: Union[str, os.PathLike, None] = None, on_event=None,
                domain: Optional[str] = None, repair: bool = False,
                fact_memory: bool = False, score: bool = True, declare_objects: bool = False,
                fresh_answers: bool = False, problem_only: bool = False,
                refuted_facts: bool = False, helps: Sequence[str] = ()) -> EpisodeResult:
    """Play one episode of ``env`` with ``formalizer``; never raises for model mistakes.

    ``domain`` freezes the domain file (reuse from a DomainLibrary): whatever domain the
    formalizer writes is replaced by it, so only the problem file is learned. ``repair`` and
    ``fact_memory``, ``declare_objects``, ``fresh_answers``, ``problem_only`` and
    ``refuted_facts`` are the options described in the module doc; ``helps`` names more
    helps of the table by name (one whose hook is a pass over the files, :mod:`.passes`,
    runs with the ones above, in the table's order). ``score`` compares each
    file with the environment's truth where it has one (:mod:`.scoring`: a ``score`` event
    per file, the episode's figures in :class:`Metrics`); ``score=False`` skips it."""
    from pddlkit.envs.api import check_env_once, ending_at_reset

    from .scoring import Scorer

    limits = limits or Limits()
    log = RecordFile(record)
    obs, info = env.reset(seed)
    check_env_once(env, purpose="play", context="run_episode")
    end = ending_at_reset(info, env)
    memory = Memory(env.task, [("look around", obs)])
    result = EpisodeResult(env.id, getattr(env, "seed", seed), env.task,
                           getattr(formalizer, "name", type(formalizer).__name__), Metrics())
    m = result.metrics
    ledger = ledger_of(formalizer)
    before = usage_snapshot(ledger)
    emit = emitter(log, on_event)
    emit("start", env=env.id, seed=result.seed, task=env.task, observation=obs,
         formalizer=result.formalizer)
    scorer, why_not = Scorer.for_env(env) if score else (None, "")
    if domain is not None:   # less the actions the environment has no command for
        domain, result.left_out = playable_domain(domain, env, emit)
    switches = {"repair": repair, "fact_memory": fact_memory,
                "declare_objects": declare_objects, "fresh_answers": fresh_answers,
                "refuted_facts": refuted_facts}
    episode = _Episode(env, formalizer, planner, limits, emit, memory, result, domain,
                       scorer=scorer, helps=[*helps, *(k for k, on in switches.items() if on)])
    if why_not:
        emit("score-unavailable", reason=why_not)
    if domain is not None:
        freeze_domain(formalizer, domain, problem_only)
    started = time.monotonic()
    try:
        end = episode.play(end)
    except _Abort:
        return finish_metrics(result, ledger, before, started, emit)
    m.success = end.won
    if not m.success and m.abort_reason is None:
        m.abort_reason = stop_reason(end, m.actions, limits.action_budget)
        emit("abort", reason=m.abort_reason)
    return finish_metrics(result, ledger, before, started, emit)


def freeze_domain(formalizer, domain: str, problem_only: bool) -> None:
    """A frozen domain given to the formalizer that writes its files (a constrained
    answer's facts are over its predicates), and ``problem_only`` with it."""
    if isinstance(formalizer, PlaysAGivenDomain):
        formalizer.fixed_domain = domain
        if problem_only and isinstance(formalizer, AsksForTheProblemAlone):
            formalizer.problem_only = True


class _Abort(Exception):
    """The episode ends before its budget; the reason is in its metrics and its record."""


class _Episode:
    """One episode while :func:`run_episode` plays it: the inner loop (:meth:`plan_step`),
    the plan run in the world (:meth:`run_plan`), what the formalizer and the helps learn
    from it (:meth:`learn`) and the revision after a failed step (:meth:`step_failed`).
    A class because these share a dozen values of the episode."""

    def __init__(self, env, formalizer, planner, limits: Limits, emit, memory: Memory,
                 result: EpisodeResult, domain: Optional[str], *, scorer,
                 helps: Sequence[str] = ()) -> None:
        from .helps.fact_memory import FactMemory
        from .passes import passes_for

        self.env, self.formalizer, self.planner = env, formalizer, planner
        self.limits, self.emit, self.memory, self.result = limits, emit, memory, result
        self.m = result.metrics
        self.domain = domain
        names = {name.replace("-", "_") for name in helps}
        #: code's passes over each answer's files, the helps' hooks (:mod:`.passes`)
        self.passes = passes_for(names)
        #: the fact memory's pass, when on (``formalize_and_plan``'s memory shows it)
        self.facts = next((p for p in self.passes if isinstance(p, FactMemory)), None)
        #: files -> why they were refused (``fresh_answers``)
        self.refused: Optional[dict] = {} if "fresh_answers" in names else None
        self.scorer = scorer   # None: files are not scored
        self.kind, self.error, self.failed, self.executed = INITIAL, None, None, []
        self.previous: Optional[Files] = None
        self.sim_retries = 0
        #: an LLM error is raised to the caller (``formalize_and_plan``), not an abort
        self.raise_llm_errors = False

    def abort(self, reason: str) -> None:
        self.m.abort_reason = reason
        self.emit("abort", reason=reason)
        raise _Abort(reason)

    def play(self, end):
        """Steps until the environment ends the episode or the action budget is spent;
        the environment's last ending. Raises :class:`_Abort`."""
        m = self.m
        while not end.done and m.actions < self.limits.action_budget:
            m.steps += 1
            snapshot = self.env.snapshot()
            tried = self.plan_step()
            self.planned(tried)
            done, failure, seen, end = self.run_plan(tried, end)
            self.after_plan(done, failure, seen, snapshot)
        if end.won and isinstance(self.formalizer, ReadsTheLastAnswer):
            self.read_last()
        return end

    def read_last(self) -> None:
        """The world's answer to the winning command, read by a formalizer that asks for it
        (:class:`.base.ReadsTheLastAnswer`); a model's error here ends nothing (the episode
        is won), and what it did is recorded."""
        from pddlkit.llm.errors import LLMError

        from .answer import AnswerError

        context = prompt_context(self.env, UPDATE, self.memory, self.previous, None, None, [])
        try:
            read = self.formalizer.read_last(context)
        except (AnswerError, LLMError) as exc:
            self.emit("last-answer-unread", step=self.m.steps, message=str(exc))
            read = True
        if read:
            _record_work(self.formalizer, self.m, self.emit)

    def planned(self, tried: Attempt) -> None:
        """A plan the inner loop found: kept with its PDDL actions, recorded."""
        result = self.result
        result.planned.append(len(result.files) - 1)
        result.plans.append(tried.commands)
        result.actions.append([str(a) for a in tried.plan.steps] if tried.plan else [])
        result.ran.append(0)
        self.emit("plan", step=self.m.steps, commands=tried.commands)

    def after_plan(self, done: list[str], failure, seen: list, snapshot) -> None:
        """What follows a plan's run: what is learned from it, then the failed step fed back
        (:meth:`step_failed`) or the next request an update."""
        failure = self.learn(done, failure, seen)
        if failure is not None:
            self.step_failed(snapshot, done, failure[:2])
            return
        if self.sim_retries:
            self.m.simulation_fixed += 1
        self.sim_retries = 0
        self.kind, self.error, self.failed, self.executed = UPDATE, None, None, []

    def plan_step(self) -> Attempt:
        """The inner loop: files asked for and planned until a plan maps to commands, each
        solver error fed back; raises :class:`_Abort` at a retry limit."""
        from pddlkit.llm.errors import LLMError

        m, limits = self.m, self.limits
        solver_retries = repeats = 0
        while True:
            context = prompt_context(self.env, self.kind, self.memory, self.previous,
                                     self.error, self.failed, self.executed)
            try:
                tried = attempt(self.formalizer, context, self.env, self.planner,
                                limits.planner_timeout, self.domain, passes=self.passes,
                                refused=self.refused)
            except LLMError as exc:  # an LLM that stays unavailable ends the episode
                if self.raise_llm_errors:   # formalize_and_plan: the caller's to handle
                    raise
                _record_work(self.formalizer, m, self.emit)   # the answers it gave first
                self.abort(f"llm: {exc.message}")
            self.error = tried.error
            self.record_attempt(tried)
            if tried.repeated:   # not planned and no solver error: asked anew, bounded
                m.repeated_answers += 1
                repeats += 1
                self.emit("repeated-answer", step=m.steps, message=tried.error)
                if repeats > limits.max_repeated_answers:
                    m.solver_aborts += 1   # the inner loop's aborts, as the retry limit's
                    self.abort("repeated answers: limit reached (the model kept writing "
                               "files already refused)")
                self.kind, self.failed, self.executed = SOLVER_ERROR, None, []
                continue
            if tried.files is not None:
                self.keep_files(tried)
            if tried.commands is not None:
                if solver_retries:
                    m.solver_fixed += 1
                return tried
            if self.refused is not None and tried.files is not None \
                    and not tried.unfinished:
                self.refused[answer_key(tried.files)] = self.error
            m.solver_errors += 1
            solver_retries += 1
            self.result.errors.append({"step": m.steps, "kind": "solver",
                                       "message": self.error})
            self.emit("solver-error", step=m.steps, message=self.error)
            if solver_retries > limits.max_solver_retries:
                m.solver_aborts += 1
                self.abort("solver errors: retry limit reached")
            self.kind, self.failed, self.executed = SOLVER_ERROR, None, []

    def record_attempt(self, tried: Attempt) -> None:
        """What the formalizer and code did in one pass, counted and recorded."""
        m, emit, formalizer = self.m, self.emit, self.formalizer
        _record_work(formalizer, m, emit)
        if isinstance(formalizer, TrimsItsHistory) and formalizer.history_left_out:
            left_out = formalizer.history_left_out
            m.history_left_out = max(m.history_left_out, left_out)
            emit("history-trimmed", step=m.steps, left_out=left_out)
        if isinstance(formalizer, CutsItsFiles) and formalizer.files_cut:
            emit("files-cut", step=m.steps, cuts=formalizer.files_cut)
        for done_by, changed in tried.edits:   # what code's passes did to the files
            if done_by.counter is not None:
                setattr(m, done_by.counter, getattr(m, done_by.counter) + len(changed))
            emit(done_by.event, step=m.steps, **{done_by.key: changed})

    def keep_files(self, tried: Attempt) -> None:
        """Files that were planned: kept, recorded and scored."""
        self.memory.files.append(tried.files)
        self.result.files.append(tried.files)
        self.previous = tried.files
        injected = {"mistake": getattr(self.formalizer.last_mistake, "kind", None)} \
            if isinstance(self.formalizer, InjectsMistakes) else {}
        self.emit("files", step=self.m.steps, domain=tried.files.domain,
                  problem=tried.files.problem, **injected)
        if self.scorer is not None:
            _score(self.scorer, self.result, self.memory, self.m.steps, self.emit)
        self.m.planner_calls += 1
        self.m.planner_seconds += tried.planner_seconds

    def run_plan(self, tried: Attempt, end, outside: Optional[list] = None):
        """The plan's commands in the world until one fails, the budget is spent or the
        episode ends: (commands that ran, the failure (command, message, info) or None,
        the plan's transitions, the environment's ending). ``outside``: the (command, Step)
        pairs a caller ran itself (``formalize_and_plan``), read instead of stepping the
        world; the plan's transitions only while they follow the plan."""
        from pddlkit.envs.api import as_step, ending

        m, result, commands = self.m, self.result, tried.commands
        done: list[str] = []
        failure = None
        seen: list = []   # the plan's transitions, for a formalizer that learns from them
        steps = result.actions[-1]
        one = self.formalizer.one_value() \
            if isinstance(self.formalizer, KeepsOneValue) else ()   # the player's place
        beliefs = believed_states(tried.files.domain, tried.files.problem, steps, one) \
            if tried.files is not None and len(steps) == len(commands) else None
        if outside is not None:
            if [c for c, _ in outside] != commands[:len(outside)]:
                beliefs = None   # not the plan's commands: no belief to hold them against
            commands = [c for c, _ in outside]
        for k, command in enumerate(commands):
            if outside is not None:
                step = outside[k][1]
            elif m.actions >= self.limits.action_budget:
                break
            else:
                step = as_step(self.env.step(command), f"step({command!r})", self.env)
            m.actions += 1
            self.memory.history.append((command, step.observation))
            self.emit("action", step=m.steps, command=command, observation=step.observation,
                      error=step.error)
            evidence = beliefs.event(k, command, steps[k], not step.error) \
                if beliefs is not None and k < len(steps) else None
            if evidence is not None:   # issue 75: what the command is evidence of
                self.emit("transition", step=m.steps, **evidence)
                seen.append(as_transition(evidence, f"step {m.steps}: {command}",
                                          step.observation))
            end = ending(step, self.env)
            if step.error and not end.done:
                failure = (command, step.observation, step.info)
                break
            if not step.error:
                done.append(command)
                result.ran[-1] = len(done)
            if end.done:   # won, lost or truncated: nothing more to run or to ask
                break
        return done, failure, seen, end

    def learn(self, done: list[str], failure, seen: list):
        """What the formalizer and the helps learn from the plan that ran: its transitions,
        the state after it, facts the world refuted (said with the failure's message, which
        is returned) and the step that failed."""
        formalizer, ran = self.formalizer, self.result.actions[-1]
        if seen and isinstance(formalizer, LearnsFromTransitions):
            formalizer.observe(seen)
        follows = isinstance(formalizer, FollowsThePlan)   # the modular mode keeps the state
        if failure is None and follows:
            formalizer.ran(ran[:len(done)])
        step_failed = ran[len(done)] if failure is not None and len(done) < len(ran) else None
        if self.previous is not None:   # the passes' on_ran / on_failed hooks
            failure = self.passes_learn(ran[:len(done)], failure, step_failed)
        if failure is not None and follows:   # the modular mode aims its revision at the step
            formalizer.failed(step_failed, failure[2])
        return failure

    def passes_learn(self, steps: list[str], failure, step: Optional[str]):
        """Each pass's ``on_ran`` (the plan ran: ``steps``) or ``on_failed`` (a command was
        refused: ``failure``, from plan ``step``) hook (:mod:`.passes`), in the table's
        order; what one learned is recorded and counted, and said with the failure's
        message, which is returned."""
        for one in self.passes:
            if failure is None and isinstance(one, LearnsWhatRan):
                learned = one.on_ran(self.previous, steps, observed_text(self.memory))
            elif failure is not None and isinstance(one, LearnsWhatFailed):
                learned = one.on_failed(self.previous, failure, step)
            else:
                continue
            if learned is None:
                continue
            if learned.counter:
                setattr(self.m, learned.counter,
                        getattr(self.m, learned.counter) + len(learned.values))
            self.emit(learned.event, step=self.m.steps, **{learned.key: learned.values},
                      **learned.fields)
            if learned.said and failure is not None:
                failure = (failure[0], failure[1] + learned.said, failure[2])
        return failure

    def step_failed(self, snapshot, done: list[str], failure: tuple[str, str]) -> None:
        """A plan step failed in the world: the world is restored to before the plan and
        the failure is fed back; raises :class:`_Abort` at the retry limit."""
        m, memory = self.m, self.memory
        if self.refused is not None and self.previous is not None:   # its plan fails
            self.refused[answer_key(self.previous)] = (f"its plan failed in the world: "
                                                       f"'{failure[0]}': {failure[1]}")
        if snapshot is not None:   # else the caller ran the plan, and keeps its world
            self.env.restore(snapshot)
            del memory.history[len(memory.history) - len(done) - 1:]
        m.simulation_errors += 1
        self.sim_retries += 1
        self.failed, self.error, self.executed = failure[0], failure[1], done
        memory.failures.append((len(memory.history), tuple(done), self.failed, self.error))
        self.result.errors.append({"step": m.steps, "kind": "simulation",
                                   "command": self.failed, "message": self.error,
                                   "executed": done, "plan": len(self.result.plans) - 1})
        self.emit("simulation-error", step=m.steps, command=self.failed, message=self.error,
                  executed=done)
        if self.sim_retries > self.limits.max_simulation_retries:
            m.simulation_aborts += 1
            self.abort("simulation errors: retry limit reached")
        self.kind = SIMULATION_ERROR


#: why an episode the environment ended without a win stopped (the ``abort_reason``)
ENDED = {"terminated": "the environment ended the episode without a win (terminated)",
         "truncated": "the environment truncated the episode (its own step limit)"}


def stop_reason(end, actions: int, budget: int) -> str:
    """Why an episode that was not won stopped: the environment ended it (terminated; or
    truncated before the budget ran out), else the action budget is spent (an environment's
    limit that falls on the budget's last action reads as the budget, as it always did)."""
    if end.reason == "terminated" or (end.reason == "truncated" and actions < budget):
        return ENDED[end.reason]
    return "action budget spent"


def emitter(log: RecordFile, on_event=None):
    """``emit(kind, **data)``: write an event to the record and pass it to ``on_event``."""
    def emit(kind: str, **data: Any) -> None:
        log.write(kind, **data)
        if on_event is not None:
            on_event(kind, data)
    return emit


def _record_work(formalizer, m: Metrics, emit) -> None:
    """What the formalizer did in the last request beyond its files (:class:`.base.
    ReportsWork`: the modular mode's calls, with what code did with each answer, how often
    each help acted in it), counted and recorded."""
    if not isinstance(formalizer, ReportsWork):
        return
    for kind, data in formalizer.work_done():
        if kind == "objects-declared":
            m.objects_declared += len(data["fixes"])
        elif kind == "parts":
            outcomes = [p["outcome"] for p in data["parts"]]
            m.part_calls += sum(1 for o in outcomes if not o.startswith("skipped, no call"))
            m.parts_redrawn += sum(1 for o in outcomes if o.startswith("redrawn"))
        emit(kind, step=m.steps, **data)


def _score(scorer, result: EpisodeResult, memory, step: int, emit) -> None:
    """Score the last file (see :mod:`.scoring`); a failure to score is recorded, not raised:
    it must not end an episode the model is playing."""
    index = len(result.files) - 1
    try:
        scored = scorer.score(result.files[index], memory, step, index)
    except Exception as exc:  # noqa: BLE001 - recorded with its type, the episode goes on
        emit("score-error", step=step, file=index, error=f"{type(exc).__name__}: {exc}")
        return
    result.scores.append(scored)
    emit("score", **scored.to_dict())


def finish_metrics(result: EpisodeResult, ledger, before, started: float, emit) -> EpisodeResult:
    from .scoring import summary

    m = result.metrics
    if result.scores:
        figures = summary(result.scores)
        m.files_scored = figures["files_scored"]
        m.files_equivalent = figures["files_equivalent"]
        m.fact_precision = figures["fact_precision"]
        m.fact_recall = figures["fact_recall"]
        m.domain_agreement = figures["domain_agreement"]
    used = usage_since(ledger, before)
    m.llm_calls, m.prompt_tokens = used.calls, used.prompt_tokens
    m.completion_tokens, m.cost_usd = used.completion_tokens, round(used.cost_usd, 6)
    m.loop_seconds = time.monotonic() - started
    emit("outcome", **asdict(m))
    return result
