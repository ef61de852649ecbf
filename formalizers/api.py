"""``formalize_and_plan(obs)``: one observation in; PDDL, a checked plan and its commands out.

The contract: pass what the agent saw and either an ``llm`` (a spec string such as
"openai:gpt-4o-mini", an LLM object, or "observation" for the offline formalizer) or a
``memory`` returned by an earlier call (which carries the formalizer and the episode so far),
and the ``env`` whose actions the plan must use (an id such as "coin-collector" or an
environment object).

Nothing is guessed. With no ``llm=``, the configured default is used (``pddlkit.configure(
llm=...)`` or ``PDDLKIT_LLM``); with none, the call raises :class:`~pddlkit.llm.defaults.
NoLLMConfigured` naming both ways (the offline ``observation`` formalizer, which reads the
answer from the environment, is used only when asked for by name). With no ``env=``, the
model formalizes from the observations alone (``prompts/observation-only``: the actions are
its own) and the commands are the plan's PDDL actions, ``(move kitchen hall)``. ``domain=`` is
read and checked before any LLM call. Once the environment says the task is won
(``env.won``), the call returns ``done=True`` with no commands and asks no one. The
``memory`` given is never changed: each result carries a new one, so the same memory passed
twice records its steps once each time.

The call runs the inner refine loop: the formalizer writes the files,
pddlkit checks and plans, and solver errors go back to the formalizer up to
``max_solver_retries`` times. It returns a :class:`FormalizeResult` and never raises for a
model's mistakes: an unsolved result carries the diagnostics met.

What the agent saw is either one observation (text: the first call's, or what ``action``
produced) or, after running a plan, every (command, observation) pair in the order run:
``formalize_and_plan([(c, env.step(c).observation) for c in step.commands], memory=...)``.
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

from pddlkit.envs.api import check_env  # beside the env protocol; used here, and re-exported
from pddlkit.llm.usage import usage_delta, usage_snapshot

from .answer import Files
from .base import INITIAL, SOLVER_ERROR, UPDATE, Context, Memory
from .loop import attempt
from .prompts import env_signatures


@dataclass
class FormalizeMemory:
    """What ``formalize_and_plan`` keeps between calls of one episode."""

    formalizer: Any
    env: Any
    memory: Memory
    previous: Optional[Files] = None
    facts: Any = None  # a FactMemory when fact_memory=True


@dataclass
class FormalizeResult:
    domain: Optional[str]
    problem: Optional[str]
    commands: Optional[list[str]]
    plan: Any
    diagnostics: list[str] = field(default_factory=list)
    usage: dict = field(default_factory=dict)
    memory: Optional[FormalizeMemory] = None
    #: the task is won: there is nothing left to plan (``commands`` is then ``[]``)
    done: bool = False

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


def _rate(text: str) -> float:
    """The error rate of 'noisy:RATE': a probability, or a ValueError that says so."""
    try:
        rate = float(text)
    except ValueError:
        rate = float("nan")
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"noisy:{text}: the error rate must be a number from 0 to 1 "
                         "(e.g. noisy:0.3)")
    return rate


def make_formalizer(llm: Any, env_id: str, **options: Any):
    """'observation' / 'noisy' (offline), a formalizer object (anything with ``propose``), or
    an LLM (spec string or object)."""
    if hasattr(llm, "propose"):
        return llm
    if llm in ("observation", None):
        from .observation import ObservationFormalizer

        return ObservationFormalizer(env_id)
    if isinstance(llm, str) and (llm == "noisy" or llm.startswith("noisy:")):
        from .noisy import NoisyFormalizer

        rate = _rate(llm.split(":", 1)[1]) if ":" in llm else options.pop("rate", None)
        return NoisyFormalizer(env_id, **({"rate": rate} if rate is not None else {}), **options)
    from .llm_formalizer import LLMFormalizer

    return LLMFormalizer(llm, env_id, **options)


Observed = Union[str, Sequence[tuple[str, str]]]


def _observed_pairs(obs: Observed, action: str) -> list[tuple[str, str]]:
    """(command, observation) pairs from either form; a clear TypeError for anything else."""
    if isinstance(obs, str):
        return [(action, obs)]
    try:
        pairs = [tuple(p) for p in obs]
    except TypeError:
        pairs = None
    if not pairs or any(len(p) != 2 or not all(isinstance(x, str) for x in p) for p in pairs):
        raise TypeError("formalize_and_plan(obs): obs must be an observation (str) or a "
                        "non-empty list of (command, observation) string pairs, got "
                        f"{type(obs).__name__}: {str(obs)[:80]!r}")
    return pairs


def formalize_and_plan(obs: Observed, *, llm: Any = None, planner: Any = "fast-downward",
                       domain: Union[str, Path, None] = None,
                       memory: Optional[FormalizeMemory] = None, env: Any = None,
                       action: str = "look around", task: Optional[str] = None,
                       max_solver_retries: int = 5, timeout: float = 30.0,
                       repair: bool = False, fact_memory: bool = False,
                       constrained: bool = False) -> FormalizeResult:
    """Formalize what was observed into PDDL and plan; see the module doc. ``obs`` is one
    observation (what ``action`` produced) or the (command, observation) pairs of every
    command run since the last call."""
    pairs = _observed_pairs(obs, action)
    frozen = _frozen_domain(domain)   # a missing or broken file fails before any LLM call
    if memory is None:
        if llm is None:
            from pddlkit.llm.defaults import default_llm

            llm = default_llm("formalize_and_plan")
        _check_llm(llm)
        if env is None:
            if llm == "observation":
                raise ValueError("formalize_and_plan: llm='observation' reads the answer from "
                                 "an environment's own model; pass env= (an id or an object), "
                                 "or an LLM")
            env = ObservationOnly(task or "")
        elif isinstance(env, str):
            from pddlkit.envs import make

            env = make(env)
            env.reset()
        if not isinstance(env, ObservationOnly):
            check_env(env)
        formalizer = make_formalizer(llm, env.id, **(
            {"constrained": True} if constrained and _writes_with_an_llm(llm) else {}))
        memory = FormalizeMemory(formalizer, env, Memory(task or env.task, []))
        kind = INITIAL
    else:
        if not isinstance(memory, FormalizeMemory):
            hint = " (pass step.memory, not the result itself)" \
                if isinstance(memory, FormalizeResult) else ""
            raise TypeError(f"formalize_and_plan: memory= must be the .memory of an earlier "
                            f"result (a FormalizeMemory), got {type(memory).__name__}{hint}")
        memory = _copied(memory)
        kind = UPDATE
    if getattr(memory.env, "won", False):   # the task is won: nothing to plan, no one to ask
        prev = memory.previous
        return FormalizeResult(prev.domain if prev else None, prev.problem if prev else None,
                               [], None, [], {}, memory, done=True)
    if fact_memory:
        from .fact_memory import FactMemory

        if memory.facts is None:
            memory.facts = FactMemory()
        if kind == UPDATE:  # the caller ran the last plan and is back with what it saw
            memory.facts.confirm(memory.previous)
    memory.memory.history.extend(pairs)
    env_ = memory.env
    ledger = getattr(getattr(memory.formalizer, "llm", None), "ledger", None)
    before = usage_snapshot(ledger)
    sigs = env_signatures(env_)
    if frozen is not None and hasattr(memory.formalizer, "fixed_domain"):
        memory.formalizer.fixed_domain = frozen
    if constrained and hasattr(memory.formalizer, "constrained"):
        memory.formalizer.constrained = True
    diagnostics: list[str] = []
    error = None
    for _ in range(max_solver_retries + 1):
        context = Context(kind, env_.id, memory.memory, [], sigs,
                          len({t.action for t in env_.action_schema}), memory.previous, error)
        tried = attempt(memory.formalizer, context, env_, planner, timeout, frozen,
                        repair=repair, facts=memory.facts if fact_memory else None)
        diagnostics += [f"repaired in code: {fix}" for fix in tried.fixes]
        if tried.files is not None:
            memory.previous = tried.files
        if tried.commands is not None:
            return FormalizeResult(tried.files.domain, tried.files.problem, tried.commands,
                                   tried.plan, diagnostics, usage_delta(ledger, before), memory)
        error = tried.error
        diagnostics.append(error)
        kind = SOLVER_ERROR
    prev = memory.previous
    return FormalizeResult(prev.domain if prev else None, prev.problem if prev else None, None,
                           None, diagnostics, usage_delta(ledger, before), memory)


def _copied(memory: FormalizeMemory) -> FormalizeMemory:
    """A new memory with the same formalizer and environment, and copies of what grows."""
    import copy

    episode = memory.memory
    return dataclasses.replace(
        memory, memory=dataclasses.replace(episode, history=list(episode.history),
                                           files=list(episode.files),
                                           failures=list(episode.failures)),
        facts=copy.deepcopy(memory.facts))


def _writes_with_an_llm(llm: Any) -> bool:
    """Whether make_formalizer gives an LLMFormalizer for ``llm`` (what takes constrained=)."""
    if hasattr(llm, "propose") or llm in ("observation", None):
        return False
    return not (isinstance(llm, str) and (llm == "noisy" or llm.startswith("noisy:")))


def _check_llm(llm: Any) -> None:
    """A TypeError naming what ``llm=`` may be, for anything else."""
    if isinstance(llm, str) or hasattr(llm, "propose") or callable(getattr(llm, "complete",
                                                                           None)):
        return
    raise TypeError(f"formalize_and_plan: llm= must be an LLM spec string "
                    f"(\"openai:gpt-4o-mini\", \"local:qwen2.5-coder-1.5b\", \"observation\"), an "
                    f"LLM object with complete(), or a formalizer with propose(); got "
                    f"{type(llm).__name__}: {str(llm)[:60]!r}")


def _frozen_domain(domain) -> Optional[str]:
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
