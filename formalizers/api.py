"""``formalize_and_plan(obs)``: one observation in; PDDL, a checked plan and its commands out.

The contract: pass what the agent saw and either an ``llm`` (a spec string such as
"openai:gpt-4o-mini", an LLM object, or "observation" for the offline formalizer) or a
``memory`` returned by an earlier call (which carries the formalizer and the episode so far),
and the ``env`` whose actions the plan must use (an id such as "coin-collector" or an
environment object). The call runs the inner refine loop: the formalizer writes the files,
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
"""

from __future__ import annotations

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

    @property
    def solved(self) -> bool:
        return self.commands is not None


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
                       memory: Optional[FormalizeMemory] = None, env: Any = "coin-collector",
                       action: str = "look around", task: Optional[str] = None,
                       max_solver_retries: int = 5, timeout: float = 30.0,
                       repair: bool = False, fact_memory: bool = False) -> FormalizeResult:
    """Formalize what was observed into PDDL and plan; see the module doc. ``obs`` is one
    observation (what ``action`` produced) or the (command, observation) pairs of every
    command run since the last call."""
    pairs = _observed_pairs(obs, action)
    if memory is None:
        if isinstance(env, str):
            from pddlkit.envs import make

            env = make(env)
            env.reset()
        check_env(env)
        formalizer = make_formalizer(llm, env.id)
        memory = FormalizeMemory(formalizer, env, Memory(task or env.task, []))
        kind = INITIAL
    else:
        kind = UPDATE
    if fact_memory:
        from .fact_memory import FactMemory

        if memory.facts is None:
            memory.facts = FactMemory()
        if kind == UPDATE:  # the caller ran the last plan and is back with what it saw
            memory.facts.confirm(memory.previous)
    memory.memory.history.extend(pairs)
    frozen = _frozen_domain(domain)
    env_ = memory.env
    ledger = getattr(getattr(memory.formalizer, "llm", None), "ledger", None)
    before = usage_snapshot(ledger)
    sigs = env_signatures(env_)
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


def _frozen_domain(domain) -> Optional[str]:
    if domain is None:
        return None
    text = getattr(domain, "domain_text", None)
    if text:
        return text
    p = Path(str(domain))
    if "\n" not in str(domain) and p.is_file():
        return p.read_text()
    return str(domain)
