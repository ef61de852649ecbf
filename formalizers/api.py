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
merges the lasting facts of earlier problem files into new ones (see :mod:`.fact_memory`).
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

from .answer import Files
from .attempt import answer_key, attempt, observed_text
from .base import INITIAL, SOLVER_ERROR, UPDATE, FollowsThePlan, Memory
from .loop import ENDED, Limits
from .prompts import prompt_context


#: answers identical to refused ones asked anew in one call (they spend no retry)
MAX_REPEATED_ANSWERS = Limits().max_repeated_answers


@dataclass
class FormalizeMemory:
    """What ``formalize_and_plan`` keeps between calls of one episode."""

    formalizer: Any
    env: Any
    memory: Memory
    previous: Optional[Files] = None
    facts: Any = None  # a FactMemory when fact_memory=True
    #: files already refused and why (fresh_answers=True): never planned again
    refused: dict = field(default_factory=dict)
    #: how the episode ended, once a step said so (it stays ended)
    ended: Optional[Ending] = None
    #: the last plan's steps (``(move kitchen hall north)``): with ``modular=True`` the
    #: formalizer progresses its state through the ones the caller ran
    last_steps: list = field(default_factory=list)
    #: the files of the last plan returned (what fact memory confirms when the caller is
    #: back: not a refused file, which ``previous`` may be)
    planned: Optional[Files] = None


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


def make_formalizer(llm: Any, env_id: str, **options: Any):
    """``standin:pddlego`` / ``standin:pddlego:noisy[:RATE]`` (offline), a formalizer object
    (anything with ``propose``), or an LLM (spec string or object)."""
    if hasattr(llm, "propose"):
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
                       repair: bool = False, fact_memory: bool = False,
                       constrained: bool = False, declare_objects: bool = False,
                       fresh_answers: bool = False, problem_only: bool = False,
                       modular: bool = False, novel_goals: bool = False,
                       local_facts: bool = False, typed_objects: bool = False,
                       ask_missing: bool = False, task_goals: bool = False,
                       command_facts: bool = False, task_focus: bool = False,
                       here_facts: bool = False, **unknown: Any) -> FormalizeResult:
    """Formalize what was observed into PDDL and plan; see the module doc. ``obs`` is one
    observation (what ``action`` produced) or the (command, observation) pairs of every
    command run since the last call. ``declare_objects`` and ``fresh_answers`` are the
    loop's options of the same names (:mod:`.loop`): objects declared in code, and files
    identical to refused ones never planned (refusals are kept in ``memory``; such a repeat
    is asked anew without spending one of the ``solver_retries``, up to
    :data:`MAX_REPEATED_ANSWERS` times a call, after which the call returns with no plan,
    each repeat said in ``diagnostics``); ``problem_only``
    with a frozen ``domain`` asks the LLM for the problem file alone. ``modular`` asks the LLM
    for one small part of the files per call (:mod:`.modular`; ``novel_goals`` offers it only
    goals never true so far while any is reachable, ``local_facts`` lets a sentence's facts
    name only what it names and where the agent is, ``typed_objects`` declares the names the
    model typed though no fact names them, ``ask_missing`` asks for the fact of a predicate the
    planner finds never true and no known fact holds, ``task_goals`` offers the goals naming
    the task's things first, ``command_facts`` reads facts and types from ``env``'s valid
    commands through its action templates (an environment with no commands gives none),
    ``task_focus`` offers only the goals naming every thing the task names while one is
    reachable, ``here_facts`` puts where the agent is in the argument of a fact over two
    places that an action takes it from;
    the agent's ``--world-literals`` is not
    an option here: it reads the world's answer to a refused command, which this function
    does not see); the state is progressed
    through the last plan's steps, one per (command, observation) pair the caller passes.

    The options have the agent's names (``pddlkit run pddlego --solver-retries N
    --planner-timeout S``); the earlier ``max_solver_retries=`` and ``timeout=`` were removed
    (issue 74): a TypeError names the new one, as it names the closest for any other keyword
    this function does not take."""
    if unknown:
        raise _unknown_keyword(next(iter(unknown)))
    pairs, steps = _observed_pairs(obs, action)
    frozen = frozen_domain(domain)   # a missing or broken file fails before any LLM call
    if memory is None:
        helps = {"novel_goals": novel_goals, "local_facts": local_facts,
                 "typed_objects": typed_objects, "ask_missing": ask_missing,
                 "task_goals": task_goals, "command_facts": command_facts,
                 "task_focus": task_focus, "here_facts": here_facts}
        memory = _first_memory(llm, env, task, modular, constrained, helps)
        kind = INITIAL
    else:
        memory = _next_memory(memory, steps)
        kind = UPDATE
    end = _ending(memory, steps)
    if end.done:   # won, or ended by the environment: nothing to plan, no one to ask
        memory.memory.history.extend(pairs)
        memory.ended = end
        prev = memory.previous
        return FormalizeResult(prev.domain if prev else None, prev.problem if prev else None,
                               [], None, [] if end.won else [ENDED[end.reason]], Usage(), memory,
                               done=True, won=end.won)
    if fact_memory:
        from .fact_memory import FactMemory

        if memory.facts is None:
            memory.facts = FactMemory()
        if kind == UPDATE:  # the caller ran the last plan and is back with what it saw
            memory.facts.confirm(memory.planned, seen=observed_text(memory.memory, pairs))
    if kind == UPDATE and isinstance(memory.formalizer, FollowsThePlan):   # what the caller ran
        memory.formalizer.ran(memory.last_steps[:len(pairs)])
    memory.memory.history.extend(pairs)
    if frozen is not None and hasattr(memory.formalizer, "fixed_domain"):
        memory.formalizer.fixed_domain = frozen
        if problem_only and hasattr(memory.formalizer, "problem_only"):
            memory.formalizer.problem_only = True
    if constrained and hasattr(memory.formalizer, "constrained"):
        memory.formalizer.constrained = True
    return _plan(memory, kind, planner, planner_timeout, frozen, solver_retries,
                 repair=repair, facts=memory.facts if fact_memory else None,
                 declare=declare_objects, fresh_answers=fresh_answers)


def _first_memory(llm: Any, env: Any, task: Optional[str], modular: bool, constrained: bool,
                  helps: dict[str, bool]) -> FormalizeMemory:
    """The memory of a first call: the LLM (the default one if none), the environment (an
    id made, or none: observations only), checked, and the formalizer with its helps."""
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
    if modular and not _writes_with_an_llm(llm):
        raise ValueError("formalize_and_plan: modular=True asks an LLM for one part of the "
                         "files at a time; the stand-in or formalizer given writes whole "
                         "files (pass an LLM, or leave modular out)")
    options = {"constrained": True} if constrained and _writes_with_an_llm(llm) else {}
    for name, on in helps.items():
        if on and not modular:
            raise ValueError(f"formalize_and_plan: {name}=True is a help of the modular "
                             "formalizer; pass modular=True too")
        if on:
            options[name] = True
    if modular:
        options["modular"] = True
    formalizer = make_formalizer(llm, env.id, **options)
    return FormalizeMemory(formalizer, env, Memory(task or env.task, []))


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


def _plan(memory: FormalizeMemory, kind: str, planner: Any, planner_timeout: float,
          frozen: Optional[str], solver_retries: int, *, repair: bool, facts, declare: bool,
          fresh_answers: bool) -> FormalizeResult:
    """The inner loop of one call: files asked for and planned until a plan maps to
    commands or the retries are spent (a repeat of refused files spends none, up to
    :data:`MAX_REPEATED_ANSWERS`)."""
    ledger = getattr(getattr(memory.formalizer, "llm", None), "ledger", None)
    before = usage_snapshot(ledger)
    diagnostics: list[str] = []
    error = None
    retries = repeats = 0
    while retries <= solver_retries and repeats <= MAX_REPEATED_ANSWERS:
        context = prompt_context(memory.env, kind, memory.memory, memory.previous, error)
        tried = attempt(memory.formalizer, context, memory.env, planner, planner_timeout,
                        frozen, repair=repair, facts=facts, declare=declare,
                        refused=memory.refused if fresh_answers else None)
        diagnostics += [f"repaired in code: {fix}" for fix in tried.fixes]
        diagnostics += [f"declared in code: {fix}" for fix in tried.declared]
        error = tried.error
        kind = SOLVER_ERROR
        if tried.repeated:   # not planned: asked anew without spending a retry (bounded)
            repeats += 1
            diagnostics.append(error)
            continue
        if fresh_answers and tried.files is not None and tried.commands is None \
                and not tried.unfinished:
            memory.refused[answer_key(tried.files)] = tried.error
        if tried.files is not None:
            memory.previous = tried.files
        if tried.commands is not None:
            memory.last_steps = [str(step) for step in tried.plan.steps] if tried.plan else []
            memory.planned = tried.files
            return FormalizeResult(tried.files.domain, tried.files.problem, tried.commands,
                                   tried.plan, diagnostics, usage_since(ledger, before), memory)
        diagnostics.append(error)
        retries += 1
    prev = memory.previous
    return FormalizeResult(prev.domain if prev else None, prev.problem if prev else None, None,
                           None, diagnostics, usage_since(ledger, before), memory)


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
             if p.kind is inspect.Parameter.KEYWORD_ONLY]
    close = difflib.get_close_matches(name, taken, n=1, cutoff=0.6)
    return TypeError(head + (f" (did you mean {close[0]}=?)" if close else ""))


def _copied(memory: FormalizeMemory) -> FormalizeMemory:
    """A new memory with the same formalizer and environment, and copies of what grows."""
    import copy

    episode = memory.memory
    return dataclasses.replace(
        memory, memory=dataclasses.replace(episode, history=list(episode.history),
                                           files=list(episode.files),
                                           failures=list(episode.failures)),
        facts=copy.deepcopy(memory.facts), refused=dict(memory.refused))


def _writes_with_an_llm(llm: Any) -> bool:
    """Whether make_formalizer gives an LLMFormalizer for ``llm`` (what takes constrained=)."""
    if hasattr(llm, "propose"):
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
    if hasattr(llm, "propose") or callable(getattr(llm, "complete", None)):
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
