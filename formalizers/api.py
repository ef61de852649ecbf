"""``formalize_and_plan(obs)``: one observation in; PDDL, a checked plan and its commands out.

The contract: pass what the agent saw and either an ``llm`` (a spec string such as
"openai:gpt-4o-mini", an LLM object, or "standin:pddlego" for the offline formalizer; the
removed "observation" and "noisy:R" are refused, naming the new spelling) or a ``memory``
returned by an earlier call (which carries the formalizer and the episode so far), and the
``env`` whose actions the plan must use (an id such as "coin-collector" or an environment
object).

Nothing is guessed. With no ``llm=``, the configured default is used (``pddlkit.configure(
llm=...)`` or ``PDDLKIT_LLM``); with none, the call raises :class:`~pddlkit.llm.defaults.
NoLLMConfigured` naming both ways (the offline ``standin:pddlego`` formalizer, which reads the
answer from the environment, is used only when asked for by name). With no ``env=``, the
model formalizes from the observations alone (``prompts/observation-only``: the actions are
its own) and the commands are the plan's PDDL actions, ``(move kitchen hall)``. ``domain=`` is
read and checked before any LLM call. The ``memory`` given is never changed: each result
carries a new one, so the same memory passed twice records its steps once each time.

Done and won follow :mod:`pddlkit.envs.api`'s contract (:func:`~pddlkit.envs.api.ending`): a
step is won when its ``info["won"]`` is true, or, with no ``"won"`` in its info, when it
``terminated``; or when the environment's ``won`` attribute is True (the older signal, still
read). Once a step is done (won, or terminated or truncated without a win), the call returns
``done=True`` (and ``won``) with ``commands == []`` and asks no one. A step's signals reach this
call only when the caller passes what ``env.step`` returned, ``[(c, env.step(c)) for c in
step.commands]``; the observation text alone carries none, so for an environment with no bool
``won`` attribute that is warned about (a ``UserWarning``) instead of guessed.

The environment is checked once (:func:`~pddlkit.envs.api.check_env_once`: every piece it
needs on each new instance, and a run of reset and one step once per class, on a copy, so
the caller's episode is untouched); a missing piece is an
:class:`~pddlkit.envs.api.EnvCheckError` (a TypeError) naming each one and its fix. The prompt
is built by :func:`.prompts.prompt_context`, the builder ``pddlkit run pddlego`` uses, so the
same environment gives the same prompt on both paths (the valid actions are
``env.admissible_commands()``).

The call runs the inner refine loop: the formalizer writes the files,
pddlkit checks and plans, and solver errors go back to the formalizer up to
``solver_retries`` times. It returns a :class:`FormalizeResult` and never raises for a
model's mistakes: an unsolved result carries the diagnostics met.

What the agent saw is either one observation (text: the first call's, or what ``action``
produced) or, after running a plan, every (command, observation) pair in the order run:
``formalize_and_plan([(c, env.step(c)) for c in step.commands], memory=...)`` (each
observation a Step, which also says when the episode is over, or its text).
All of them enter the episode memory, so a reader never links the room before a plan to the
room after it, and an LLM sees every step, as in :func:`.loop.run_episode`.

``domain=`` freezes a domain (a path, text or a DomainLibrary entry): the formalizer's domain
is replaced by it, so only the problem file is learned. ``repair=True`` fixes trivial slips in
code before planning (listed in ``diagnostics`` as "repaired in code: ..."); ``fact_memory=True``
merges the lasting facts of earlier problem files into new ones (see :mod:`.helps.fact_memory`).
``constrained=True`` has an LLM answer under the answer's grammar
(:func:`pddlkit.pddl.grammars.answer_grammar`: the environment's actions fixed, facts over the
frozen domain's predicates when there is one, every list bounded) where its server takes
grammars; off by default, as in the paper. Offline formalizers write no tokens and ignore it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence, Union

from pddlkit.envs.api import (GOING_ON, Ending, Step, as_step, check_env,  # re-exported
                              check_env_once, ending, env_won)
from pddlkit.llm.usage import Usage, usage_since, usage_snapshot

from .base import UPDATE, AsksAnLLM, Memory, ledger_of
from .call_options import LLM_SETTINGS, chosen_helps, formalizer_options, help_names
from .loop import ENDED, Limits, freeze_domain
from .playable import playable_domain


#: answers identical to refused ones asked anew in one call (they spend no retry)
MAX_REPEATED_ANSWERS = Limits().max_repeated_answers


@dataclass
class FormalizeMemory:
    """What ``formalize_and_plan`` keeps between calls of one episode: the formalizer, the
    environment, and the episode as :func:`.loop.run_episode` plays it (``episode``: the
    same inner loop, the same learning from what ran, the same helps; issue 74's one
    driver), which each call copies before it changes anything."""

    formalizer: Any
    env: Any
    episode: Any   # a loop._Episode
    #: how the episode ended, once a step said so (it stays ended)
    ended: Optional[Ending] = None
    #: the last call found a plan, whose run the next call's pairs report
    pending: Any = None
    #: the first call's helps (all of the table's, on or off) and LLM settings: they hold
    #: for the episode, and a later call may repeat them but not change them
    settings: dict = field(default_factory=dict)

    #: the episode so far (the task, every (command, observation), the files); the last
    #: files written, planned or refused; the FactMemory (fact_memory=True, else None; its
    #: ``facts`` are pddlkit ``Atom``s, in the order first confirmed);
    #: the files refused and why (fresh_answers=True: never planned again)
    memory = property(lambda self: self.episode.memory)
    previous = property(lambda self: self.episode.previous)
    facts = property(lambda self: self.episode.facts)
    refused = property(lambda self: self.episode.refused or {})


@dataclass
class FormalizeResult:
    domain: Optional[str]
    problem: Optional[str]
    commands: Optional[list[str]]
    plan: Any
    diagnostics: list[str] = field(default_factory=list)
    #: the LLM calls, tokens and dollars this call spent (``usage.calls``; ``usage["calls"]``
    #: reads as the dict it was before)
    usage: Usage = field(default_factory=Usage)
    memory: Optional[FormalizeMemory] = None
    #: the episode is over (won, or ended by the environment): there is nothing left to plan,
    #: ``commands`` is ``[]`` and no one was asked
    done: bool = False
    #: the task is won (see the done/won contract in :mod:`pddlkit.envs.api`)
    won: bool = False

    @property
    def solved(self) -> bool:
        return self.commands is not None


@dataclass
class ObservationOnly:
    """What ``formalize_and_plan`` plans for when no environment is given: no command
    templates (the model defines the actions), and the plan given back as PDDL actions."""

    task: str = ""
    id: str = "observation-only"
    action_schema: tuple = ()
    won: bool = False

    def commands_for_plan(self, plan) -> list[str]:
        return [str(step) for step in plan.steps]

    def admissible_commands(self) -> list[str]:
        """None known: the model's actions are its own."""
        return []


def _stand_in(llm: Any) -> Optional[tuple[str, Any]]:
    """(name, rate) when ``llm`` names an offline formalizer (``standin:pddlego[:noisy[:RATE]]``;
    None is the observation reader); None for an LLM; a ValueError naming the spec for a bad
    rate or an old spelling (``observation``, ``noisy:RATE``: removed, the new one named)."""
    if llm is None:
        return "observation", None
    from pddlkit.agents.standins import parse_stand_in

    from .standins import STAND_INS

    return parse_stand_in(llm, STAND_INS, "pddlego")


def _is_formalizer(llm: Any) -> bool:
    """Whether ``llm=`` is a formalizer of the caller's own (anything with ``propose``, as
    :class:`.base.Formalizer` says; its ``name`` is optional here), used as it is."""
    return callable(getattr(llm, "propose", None))


def make_formalizer(llm: Any, env_id: str, **options: Any):
    """``standin:pddlego`` / ``standin:pddlego:noisy[:RATE]`` (offline), a formalizer object
    (anything with ``propose``), or an LLM (spec string or object)."""
    if _is_formalizer(llm):
        return llm
    stand_in = _stand_in(llm)
    if stand_in is not None and stand_in[0] == "observation":
        from .observation import ObservationFormalizer

        return ObservationFormalizer(env_id)
    if stand_in is not None:
        from .noisy import NoisyFormalizer

        rate = stand_in[1] if stand_in[1] is not None else options.pop("rate", None)
        return NoisyFormalizer(env_id, **({"rate": rate} if rate is not None else {}), **options)
    if options.pop("modular", False):
        from .modular import ModularFormalizer

        return ModularFormalizer(llm, env_id, **options)
    from .llm_formalizer import LLMFormalizer

    return LLMFormalizer(llm, env_id, **options)


#: what was observed: one observation, or (command, observation) pairs; an observation is its
#: text or what ``env.step`` returned (a Step, or gymnasium's 5-tuple), which also says whether
#: the episode is over
Observed = Union[str, Step, Sequence[tuple[str, Any]]]


def _is_step(value: Any) -> bool:
    """What step() returns: a Step, something with its attributes, or a 5-tuple."""
    return isinstance(value, Step) or hasattr(value, "terminated") or (
        isinstance(value, (tuple, list)) and len(value) == 5)


def _observed_pairs(obs: Observed, action: str) -> tuple[list[tuple[str, str]],
                                                          list[Optional[Step]]]:
    """(command, observation text) pairs from any form, and the Step each came with (None
    for text); a clear TypeError for anything else."""
    if isinstance(obs, str) or (not isinstance(obs, (tuple, list)) and _is_step(obs)):
        obs = [(action, obs)]
    try:
        pairs = [tuple(p) for p in obs]
    except TypeError:
        pairs = None
    if not pairs or any(len(p) != 2 or not isinstance(p[0], str)
                        or not (isinstance(p[1], str) or _is_step(p[1])) for p in pairs):
        raise TypeError("formalize_and_plan(obs): obs must be an observation (str, or the "
                        "Step env.step returned) or a non-empty list of (command, observation) "
                        "pairs, each observation a str or a Step, got "
                        f"{type(obs).__name__}: {str(obs)[:80]!r}")
    steps = [None if isinstance(o, str) else as_step(o, f"the observation of {c!r}")
             for c, o in pairs]
    return [(c, o if s is None else s.observation) for (c, o), s in zip(pairs, steps)], steps


def _ending(memory: FormalizeMemory, steps: list[Optional[Step]]) -> Ending:
    """How the episode stands after ``steps``: ended for good once a step said so (the
    contract's :func:`~pddlkit.envs.api.ending`), or the environment's ``won`` says won."""
    if memory.ended is not None:
        return memory.ended
    for step in steps:
        end = ending(step, memory.env) if step is not None else GOING_ON
        if end.done:
            return end
    return Ending(True, True, "won") if env_won(memory.env) else GOING_ON


def _warn_if_a_win_cannot_be_seen(env: Any, steps: list[Optional[Step]]) -> None:
    """An environment with no bool ``won`` says a win only in what step() returns; given the
    text alone, this call could not see it and would ask the LLM again after the win."""
    import warnings

    if isinstance(env, ObservationOnly) or isinstance(getattr(env, "won", None), bool) or \
            all(step is not None for step in steps):
        return
    warnings.warn(f"formalize_and_plan: {type(env).__name__} has no `won` attribute, so a win "
                  "shows only in what its step() returns; pass (command, env.step(command)) "
                  "pairs, not the observation text, or a won task cannot be seen and the LLM "
                  "is asked again", UserWarning, stacklevel=3)


def formalize_and_plan(obs: Observed, *, llm: Any = None, planner: Any = "fast-downward",
                       domain: Union[str, Path, None] = None,
                       memory: Optional[FormalizeMemory] = None, env: Any = None,
                       action: str = "look around", task: Optional[str] = None,
                       solver_retries: int = 5, planner_timeout: float = 30.0,
                       constrained: bool = False, small_model: bool = False, samples: int = 1,
                       goal_style: Optional[str] = None, prompts: Optional[str] = None,
                       temperature: Optional[float] = None, **helps: Any) -> FormalizeResult:
    """Formalize what was observed into PDDL and plan; see the module doc. ``obs`` is one
    observation (what ``action`` produced) or the (command, observation) pairs of every
    command run since the last call.

    A call is one step of the loop ``pddlkit run pddlego`` plays (:func:`.loop.run_episode`):
    the same inner loop (``solver_retries``, ``planner_timeout``), and what the commands the
    caller ran teach it the same way: the state progressed through the plan's steps, the
    transitions the model's schemas are checked against, a failed command (a Step whose
    ``error`` is set) fed back as the loop feeds it, with its ``info["failed"]`` where the
    environment gives one. The helps are the loop's, by name, from the one table
    (:mod:`.call_options`): ``repair``, ``fact_memory``, ``declare_objects``,
    ``fresh_answers`` (files identical to refused ones never planned; asked anew without
    spending a retry, up to :data:`MAX_REPEATED_ANSWERS` times a call), ``problem_only``
    (with a frozen ``domain``, the problem file alone), ``refuted_facts``, ``modular`` (one
    small part of the files per call, :mod:`.modular`) and its helps (``novel_goals``,
    ``schema_check``, ...: ``pddlkit run pddlego --help`` says each); ``small_model=True`` is
    the ``--small-model`` preset. ``samples``, ``goal_style``, ``prompts`` and
    ``temperature`` are an LLM formalizer's settings, as the agent's options of the same
    names. The loop's options that are not a call's, and what to do instead:
    :data:`.call_options.NOT_PER_CALL`.

    The earlier ``max_solver_retries=`` and ``timeout=`` were removed (issue 74): a
    TypeError names the new one, as it names the closest for any other keyword this
    function does not take."""
    unknown = [name for name in helps if name not in help_names()]
    if unknown:
        raise _unknown_keyword(unknown[0])
    _check_limits(solver_retries, planner_timeout)
    pairs, steps = _observed_pairs(obs, action)
    frozen = frozen_domain(domain)   # a missing or broken file fails before any LLM call
    settings = dict(constrained=constrained, small_model=small_model, samples=samples,
                    goal_style=goal_style, prompts=prompts, temperature=temperature)
    if memory is None:
        memory = _first_memory(llm, env, task, frozen, dict(
            planner=planner, planner_timeout=planner_timeout, helps=helps, **settings))
    else:
        _same_as_first(memory, settings, helps)
        memory = _next_memory(memory, steps)
    end = _ending(memory, steps)
    episode = memory.episode
    if end.done:   # won, or ended by the environment: nothing to plan, no one to ask
        episode.memory.history.extend(pairs)
        memory.ended = end
        return _without_plan(memory, [], [] if end.won else [ENDED[end.reason]], Usage(),
                             done=True, won=end.won)
    diagnostics: list[str] = []
    episode.emit = _diagnostics_to(diagnostics)
    episode.limits = dataclasses.replace(episode.limits, max_solver_retries=solver_retries,
                                         planner_timeout=planner_timeout)
    episode.planner = planner
    if frozen is not None:   # less the actions the environment has no command for
        episode.domain, _left = playable_domain(frozen, memory.env, episode.emit)
        freeze_domain(memory.formalizer, episode.domain,
                      memory.settings["helps"]["problem_only"])
    _took(memory, pairs, steps)
    return _plan(memory, diagnostics)


def _took(memory: FormalizeMemory, pairs: list, steps: list) -> None:
    """What the caller ran since the last call, taken in as the loop takes in a plan's run
    (:meth:`.loop._Episode.after_plan`): the commands that follow the last plan, in its
    order, are its run (a failure among them is the plan's); the rest (commands of the
    caller's own, or run after the plan's failed one) go into the history as observations,
    after it. A first call's observation, or pairs after a call with no plan, go into the
    history as they are."""
    from .loop import _Abort

    episode, tried = memory.episode, memory.pending
    memory.pending = None
    followed = 0
    if tried is not None:
        while followed < min(len(pairs), len(tried.commands)) \
                and pairs[followed][0] == tried.commands[followed]:
            followed += 1
    if not followed:   # nothing of a plan ran: what was seen is all there is to take in
        episode.memory.history.extend(pairs)
        if episode.memory.files:
            episode.kind, episode.error, episode.failed, episode.executed = UPDATE, None, \
                None, []
        return
    ran = [(c, s if s is not None else Step(o, 0.0, False, False, {}))
           for (c, o), s in zip(pairs[:followed], steps[:followed])]
    done, failure, seen, _end = episode.run_plan(tried, GOING_ON, outside=ran)
    taken = len(done) + (failure is not None)
    try:
        episode.after_plan(done, failure, seen, None)
    except _Abort:   # no limit on failed commands here: the caller decides (not reached)
        pass
    episode.memory.history.extend(pairs[taken:])   # the caller's own, or after a failure


def _plan(memory: FormalizeMemory, diagnostics: list[str]) -> FormalizeResult:
    """The loop's inner loop (:meth:`.loop._Episode.plan_step`): files asked for and planned
    until a plan maps to commands or the retries are spent."""
    from .loop import _Abort

    episode = memory.episode
    ledger = ledger_of(memory.formalizer)
    before = usage_snapshot(ledger)
    episode.m.steps += 1
    try:
        tried = episode.plan_step()
    except _Abort:
        return _without_plan(memory, None, diagnostics, usage_since(ledger, before))
    episode.planned(tried)
    memory.pending = tried
    return FormalizeResult(tried.files.domain, tried.files.problem, list(tried.commands),
                           tried.plan, diagnostics, usage_since(ledger, before), memory)


def _without_plan(memory: FormalizeMemory, commands: Optional[list], diagnostics: list[str],
                  usage: Usage, **ending: bool) -> FormalizeResult:
    """A result with no plan: the last files written, if any (the episode ended, or the
    retries were spent)."""
    prev = memory.previous
    return FormalizeResult(prev.domain if prev else None, prev.problem if prev else None,
                           commands, None, diagnostics, usage, memory, **ending)


def _diagnostics_to(diagnostics: list[str]):
    """The episode's events as a call's ``diagnostics``: what code repaired or declared,
    the frozen domain's actions left out, each solver error and each repeated answer, in
    order."""
    def emit(kind: str, **data: Any) -> None:
        if kind == "domain-actions-left-out":
            diagnostics.append(f"left out of the domain: {', '.join(data['actions'])} "
                               f"({data['why']})")
        elif kind == "repair":
            diagnostics.extend(f"repaired in code: {fix}" for fix in data["fixes"])
        elif kind == "objects-declared":
            diagnostics.extend(f"declared in code: {fix}" for fix in data["fixes"])
        elif kind in ("solver-error", "repeated-answer"):
            diagnostics.append(data["message"])
    return emit


def _first_memory(llm: Any, env: Any, task: Optional[str], frozen: Optional[str],
                  settings: dict) -> FormalizeMemory:
    """The memory of a first call: the LLM (the default one if none), the environment (an
    id made, or none: observations only), checked, the formalizer with its helps, and the
    episode the calls play."""
    from .loop import EpisodeResult, Metrics, _Episode

    if llm is None:
        from pddlkit.llm.defaults import default_llm

        llm = default_llm("formalize_and_plan")
    _check_llm(llm)
    if env is None:
        if (_stand_in(llm) or ("",))[0] == "observation":
            raise ValueError(f"formalize_and_plan: llm={llm!r} reads the answer from "
                             "an environment's own model; pass env= (an id or an object), "
                             "or an LLM")
        env = ObservationOnly(task or "")
    elif isinstance(env, str):
        from pddlkit.envs import make

        env = make(env)
        env.reset()
    if not isinstance(env, ObservationOnly):   # once per class, on a copy
        check_env_once(env, purpose="formalize", context="formalize_and_plan")
    writes = _writes_with_an_llm(llm)
    _check_settings(llm, writes, settings)
    helps = chosen_helps(settings["helps"], small_model=settings["small_model"],
                         writes_parts=writes, frozen=frozen is not None, env_id=env.id)
    chosen = {k: settings[k] for k in LLM_SETTINGS}
    formalizer = make_formalizer(llm, env.id, **formalizer_options(
        helps, writes_parts=writes, **chosen))
    limits = Limits(max_simulation_retries=1 << 30, action_budget=1 << 30)
    result = EpisodeResult(env.id, None, task or env.task, getattr(
        formalizer, "name", type(formalizer).__name__), Metrics())
    episode = _Episode(env, formalizer, settings["planner"], limits, None,
                       Memory(task or env.task, []), result, frozen, scorer=None,
                       helps=[name for name, on in helps.items() if on])
    episode.raise_llm_errors = True
    return FormalizeMemory(formalizer, env, episode, settings={
        **chosen, "small_model": settings["small_model"], "helps": helps})


def _check_settings(llm: Any, writes: bool, settings: dict) -> None:
    """An LLM formalizer's settings refused, by name, with a formalizer that has no LLM to
    give them to (``constrained`` excepted: offline formalizers write no tokens and ignore
    it, as documented)."""
    given = [name for name in ("goal_style", "prompts", "temperature")
             if settings[name] is not None]
    if settings["samples"] != 1:
        given.append("samples")
    if settings["samples"] < 1:
        raise ValueError(f"formalize_and_plan: samples must be 1 or more, got "
                         f"{settings['samples']}")
    if given and not writes:
        raise ValueError(f"formalize_and_plan: {given[0]}= is a setting of an LLM "
                         f"formalizer; llm={llm!r} writes its answers without one (pass an "
                         f"LLM, or leave {given[0]} out)")


def _same_as_first(memory: Any, settings: dict, helps: dict) -> None:
    """A later call's helps and settings: the first call's (the formalizer was made with
    them), or a ValueError naming the one that differs, never dropped in silence."""
    first = getattr(memory, "settings", None)
    if not first:
        return
    for name, value in helps.items():
        if bool(value) != first["helps"][name]:
            raise ValueError(f"formalize_and_plan: {name}={bool(value)} differs from the "
                             f"episode's first call ({first['helps'][name]}); the helps are "
                             "set by the first call for the whole episode (leave it out of "
                             "later calls, or start a new episode without memory=)")
    import inspect

    defaults = inspect.signature(formalize_and_plan).parameters
    for name, value in settings.items():
        if value != defaults[name].default and value != first[name]:
            raise ValueError(f"formalize_and_plan: {name}={value!r} differs from the "
                             f"episode's first call ({first[name]!r}); it is set by the "
                             "first call for the whole episode (leave it out of later "
                             "calls, or start a new episode without memory=)")


def _next_memory(memory: Any, steps: list) -> FormalizeMemory:
    """A later call's memory: a copy of the one given (so an earlier result stays as it
    was), refused with a clear error when it is not one."""
    if not isinstance(memory, FormalizeMemory):
        hint = " (pass step.memory, not the result itself)" \
            if isinstance(memory, FormalizeResult) else ""
        raise TypeError(f"formalize_and_plan: memory= must be the .memory of an earlier "
                        f"result (a FormalizeMemory), got {type(memory).__name__}{hint}")
    memory = _copied(memory)
    _warn_if_a_win_cannot_be_seen(memory.env, steps)
    return memory


def _check_limits(solver_retries: int, planner_timeout: float) -> None:
    """The call's own limits, checked by ``Limits`` before anything runs and named as the
    caller wrote them."""
    try:
        Limits(max_solver_retries=solver_retries, planner_timeout=planner_timeout)
    except ValueError as exc:
        said = str(exc).replace("Limits.max_solver_retries", "solver_retries")
        raise ValueError("formalize_and_plan: " + said.replace("Limits.", "")) from None


#: keywords of earlier releases, and their names now
REMOVED_KEYWORDS = {"max_solver_retries": "solver_retries", "timeout": "planner_timeout"}


def _unknown_keyword(name: str) -> TypeError:
    """The TypeError for a keyword formalize_and_plan does not take: a removed one names its
    new name (:data:`REMOVED_KEYWORDS`), another the closest it takes, if any."""
    import difflib
    import inspect

    head = f"formalize_and_plan() got an unexpected keyword argument {name!r}"
    if name in REMOVED_KEYWORDS:
        return TypeError(f"{head}: it was removed; write {REMOVED_KEYWORDS[name]}= (the "
                         f"agent's name for it)")
    taken = [p.name for p in inspect.signature(formalize_and_plan).parameters.values()
             if p.kind is inspect.Parameter.KEYWORD_ONLY] + list(help_names())
    close = difflib.get_close_matches(name, taken, n=1, cutoff=0.6)
    return TypeError(head + (f" (did you mean {close[0]}=?)" if close else ""))


def _copied(memory: FormalizeMemory) -> FormalizeMemory:
    """A new memory with the same environment, planner and LLM, and copies of the episode
    and of the formalizer (what they learn: the history, the files, the facts, the
    refusals, the counts, the modular formalizer's state and evidence), so a memory passed
    twice gives two independent episodes. A formalizer of the caller's own that cannot be
    copied is shared (its state then grows with both)."""
    import copy

    episode, formalizer = memory.episode, memory.formalizer
    llm = formalizer.llm if isinstance(formalizer, AsksAnLLM) else None
    try:
        own = copy.deepcopy(formalizer, {id(llm): llm} if llm is not None else {})
    except Exception:   # noqa: BLE001 - an object of the caller's that deepcopy refuses
        own = formalizer
    shared = {id(formalizer): own, id(memory.env): memory.env,
              id(episode.planner): episode.planner, id(episode.emit): episode.emit,
              id(episode.scorer): episode.scorer}
    copied = copy.deepcopy(episode, shared)
    return dataclasses.replace(memory, formalizer=own, episode=copied)


def _writes_with_an_llm(llm: Any) -> bool:
    """Whether make_formalizer gives an LLMFormalizer for ``llm`` (what takes constrained=)."""
    if _is_formalizer(llm):
        return False
    return _stand_in(llm) is None


def _check_llm(llm: Any) -> None:
    """A TypeError naming what ``llm=`` may be, for anything else."""
    if isinstance(llm, str):
        from pddlkit.agents.standins import StandInError

        try:
            _stand_in(llm)   # a stand-in with a bad argument, or an old spelling: refused
        except StandInError as exc:
            raise StandInError(f"formalize_and_plan: llm={exc}") from None
        return
    if _is_formalizer(llm) or callable(getattr(llm, "complete", None)):
        return
    raise TypeError(f"formalize_and_plan: llm= must be an LLM spec string "
                    f"(\"openai:gpt-4o-mini\", \"local:qwen2.5-coder-1.5b\", \"standin:pddlego\"), an "
                    f"LLM object with complete(), or a formalizer with propose(); got "
                    f"{type(llm).__name__}: {str(llm)[:60]!r}")


def frozen_domain(domain) -> Optional[str]:
    """The frozen domain's text, read and checked now (before any LLM is asked): a missing
    file is FileNotFoundError, a domain with errors a ValueError listing them."""
    if domain is None:
        return None
    text = getattr(domain, "domain_text", None)
    if not text:
        raw = str(domain)
        looks_like_text = "(" in raw
        if not looks_like_text:
            path = Path(raw)
            if not path.is_file():
                raise FileNotFoundError(f"formalize_and_plan: domain={raw!r} is not a file; "
                                        "pass a path to a .pddl file, its text, or a "
                                        "DomainLibrary entry")
            text = path.read_text(encoding="utf-8", errors="replace")
        else:
            text = raw
    import pddlkit

    report = pddlkit.check(text)
    if not report.ok:
        errors = "\n".join(d.format() for d in report.errors[:5])
        raise ValueError(f"formalize_and_plan: the frozen domain has errors, so no plan could "
                         f"use it:\n{errors}")
    return text
