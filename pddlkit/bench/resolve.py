"""A sweep's entries checked against the registries before anything runs, and each cell's
config hash.

Why before: a sweep runs for hours over many processes, and a mistake found in a worker is
found once per cell (every cell fails alike) or breaks the pool. So everything a registry can
answer is asked here, in the main process, once per config entry:

* the agent (:func:`pddlkit.agents.get_agent`, or ``"module:NAME"``) and its options, resolved
  by the agent's own options dataclass (:meth:`~pddlkit.agents.AgentSpec.make_options`: the
  names, their types, minimums and choices), so ``retries = -1`` or ``retrys = 5`` is
  refused naming the entry;
* the LLM each cell plays with (:meth:`~pddlkit.agents.AgentSpec.check_llm`, as ``pddlkit
  run --llm`` checks it): a stand-in the agent does not have (``llm = "standin:abc"``) or a
  malformed spec is refused before anything loads;
* the environment id (the registry's ``spec``, through the ``pddlkit.env_specs`` entry
  point);
* which pairs play at all (:func:`plays`, the contract's: :mod:`pddlkit.agents.contract`):
  an agent that declares its environments (``AgentSpec.envs``) plays those; one that
  declares none plays every environment of its kinds (``AgentSpec.kinds``, by default
  ``"text"`` and ``"pddl"``: worlds in words a formalizer can write PDDL for) that offers what
  it needs (``AgentSpec.needs``), never a game with an interface of its own (kind
  ``"game"``: SC2, NetHack, the crafting worlds, MicroRTS) nor a set of program instances
  (kind ``"instances"``), which only an agent naming them can play.
  A pair outside the declaration is skipped and said once, not failed once per cell;
* each environment option's name (the fixed ``options`` and the ``difficulty`` that varies):
  an option of the environment (its factory's parameters, as ``make`` checks them), or one
  the agent declares it reads itself (``AgentSpec.env_options``: PLAP's ``match``); and the
  type of each value given to an option of the environment (``rooms = "seven"``), read from
  the factory's annotations or default. Which values an option takes (which difficulty names
  a household knows) is checked where the environment's class says so, in a class attribute
  ``option_choices = {"difficulty": (...)}``: ``difficulty = "haet"`` is refused with the
  closest name before the sweep runs. Nothing is built to find them out (building every
  environment in the main process would start a JVM for MicroRTS and build ALFWorld's
  games); an option the agent reads itself is not checked, since an agent may give a name
  its own meaning (DEPS's ``task = "MT1"`` is a group). Those names are checked by the
  agent itself (:func:`check_cell_names`: ``AgentSpec.check_env``, the check its own run
  makes), cell by cell, so ``task = "stone_pickax"`` is refused with the run's line and its
  did-you-mean before the first episode, not failed in every cell on every rerun.

The config hash (:func:`config_hash`) is what makes a stored row reusable: the agent kind,
its options *resolved* (so ``retries = 5`` and no ``retries`` at all, its default, are the
same cell, and so are an option and its alias), the environment's options as given, the LLM
spec the cell resolves to and :data:`~.results.RESULT_FORMAT`. Values that are not plain data
are hashed by their type and their repr with memory addresses removed, so the hash is the
same in every process and every run.
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
import hashlib
import inspect
import json
import re
import typing
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, Optional

from pddlkit.agents import AgentSpec, OptionError, UnknownAgentError

from .results import RESULT_FORMAT


class EntryError(ValueError):
    """An entry that cannot run; :mod:`.config` adds the file and the entry's place."""


@dataclass(frozen=True)
class ResolvedAgent:
    """An agent entry with its spec, its options as given (what a worker resolves again)
    and as resolved (what the hash reads), and the LLM the cell plays with."""

    spec: AgentSpec
    options: dict
    resolved: dict
    llm: str


def load_agent(name: str) -> AgentSpec:
    """The agent ``name``: a registered name or ``"package.module:NAME"``."""
    import importlib

    from pddlkit.agents import get_agent

    if ":" not in name:
        return get_agent(name)
    module, _, attr = name.partition(":")
    try:
        spec = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise UnknownAgentError(f"agent {name!r} cannot be loaded: {exc}") from None
    if not isinstance(spec, AgentSpec):
        raise UnknownAgentError(f"agent {name!r} is a {type(spec).__name__}, not an "
                                "AgentSpec (see pddlkit.agents)")
    return spec


def cell_llm(spec: AgentSpec, llm: str, options: dict) -> str:
    """The LLM a cell plays with: the entry's, else an ``llm`` among its options (configs
    written before the agents layer), else the agent's default. The worker resolves it the
    same way (:func:`.executors.run_cell`)."""
    return llm or str(options.get("llm") or "") or spec.default_llm


def resolve_agent(kind: str, options: dict, llm: str) -> ResolvedAgent:
    """The agent and its options, checked by the agent's options dataclass."""
    try:
        spec = load_agent(kind)
    except UnknownAgentError as exc:
        raise EntryError(str(exc)) from None
    given = {k: v for k, v in options.items() if k != "llm"}
    try:
        resolved = spec.make_options(given)
    except (OptionError, ValueError, TypeError) as exc:
        raise EntryError(str(exc)) from None
    llm = cell_llm(spec, llm, options)
    try:
        spec.check_llm(llm)   # a stand-in the agent has, or an LLM spec: as --llm checks it
    except ValueError as exc:
        raise EntryError(f"llm = {llm!r}: {exc}") from None
    return ResolvedAgent(spec, dict(options), canonical(dataclasses.asdict(resolved)), llm)


def resolve_env(env_id: str):
    """The environment's registry entry (``pddlkit.envs.registry.EnvSpec``), found through
    the ``pddlkit.env_specs`` entry point (:func:`pddlkit.agents.contract.env_spec`); an
    unknown id is an :class:`EntryError` naming the ids."""
    from pddlkit.agents.contract import EnvLookupError, env_spec

    try:
        return env_spec(env_id)
    except EnvLookupError as exc:
        raise EntryError(str(exc)) from None


def plays(agent: AgentSpec, env) -> Optional[str]:
    """None when ``agent`` plays the environment ``env`` (an EnvSpec) by their declarations;
    else why not, in words (:func:`pddlkit.agents.contract.plays`)."""
    from pddlkit.agents.contract import plays as by_contract

    return by_contract(agent, env)


def _parameters(env) -> Optional[dict[str, Any]]:
    """The factory's keyword parameters and their type hints (None: it takes any keyword,
    or its signature cannot be read, so names are not checked)."""
    try:
        factory = env.load()
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError, ImportError, AttributeError):
        return None
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return None
    try:
        hints = typing.get_type_hints(factory.__init__ if inspect.isclass(factory) else factory)
    except Exception:  # an annotation that cannot be resolved: the defaults' types instead
        hints = {}
    out: dict[str, Any] = {}
    for name, p in params.items():
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and name != "self" \
                and name not in env.kwargs:
            out[name] = hints.get(name) or (None if p.default is p.empty or p.default is None
                                            else type(p.default))
    return out


def _accepts(hint: Any, value: Any) -> bool:
    """Whether ``value`` (from TOML or YAML) can be given where ``hint`` is annotated; a hint
    other than a plain type (or Optional of one) accepts anything."""
    if hint is None:
        return True
    args = typing.get_args(hint)
    if typing.get_origin(hint) is typing.Union:
        if value is None and type(None) in args:
            return True
        plain = [a for a in args if a is not type(None)]
        return any(_accepts(a, value) for a in plain) if plain else True
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    return True


def check_env_options(agent: AgentSpec, env, fixed: dict, difficulty: Optional[str],
                      levels: list) -> None:
    """Refuse an environment option the pair cannot take, or a value of the wrong type."""
    params = _parameters(env)
    extra = set(agent.env_options)
    names = list(fixed) + ([difficulty] if difficulty is not None else [])
    if params is not None:
        allowed = set(params) | extra
        for name in names:
            if name in allowed:
                continue
            close = difflib.get_close_matches(name, sorted(allowed), n=1, cutoff=0.6)
            what = (f"difficulty = {name!r} names no option of {env.id}" if name == difficulty
                    and name not in fixed else f"{env.id} has no option {name!r}")
            raise EntryError(what + (f" (did you mean {close[0]!r}?)" if close else "")
                             + f"; its options are: {', '.join(params) or '(none)'}"
                             + (f"; {agent.name} also reads {', '.join(sorted(extra))}"
                                if extra else ""))
    hints = params or {}
    given = [(n, v) for n, v in fixed.items()] + [(difficulty, v) for v in levels]
    choices = _choices(env)
    for name, value in given:
        if name in hints and name not in extra and not _accepts(hints[name], value):
            shown = getattr(hints[name], "__name__", None) or str(hints[name]).replace(
                "typing.", "")
            raise EntryError(f"{env.id} option {name!r} takes {shown}, got {value!r}")
        if name in choices and name not in extra and value is not None \
                and value not in choices[name]:
            names = [str(c) for c in choices[name]]
            close = difflib.get_close_matches(str(value), names, n=1, cutoff=0.5)
            raise EntryError(f"{env.id} option {name!r} has no value {value!r}"
                             + (f" (did you mean {close[0]!r}?)" if close else "")
                             + f"; it takes: {', '.join(names)}")


def check_cell_names(agent: AgentSpec, env, env_options: dict) -> None:
    """The task and level names of one cell's environment options, checked by the agent
    (:attr:`~pddlkit.agents.AgentSpec.check_env`, the check its run makes before the first
    episode) and by the environment's class where it has ``check_options`` (names only the
    environment reads, checked without starting it: a MicroRTS map); an :class:`EntryError`
    with their one line."""
    try:
        if agent.check_env is not None:
            agent.check_env(env.id, dict(env_options))
        check = getattr(_factory(env), "check_options", None)
        if callable(check):     # names only the environment reads (a MicroRTS map)
            check(**dict(env_options))
    except ValueError as exc:   # AgentError, OptionError and the agents' own are ValueErrors
        raise EntryError(str(exc).strip() or type(exc).__name__) from None


def _factory(env):
    """The environment's class or factory, when it loads (a missing package is said when the
    cell runs, as before)."""
    try:
        return env.load()
    except (ImportError, AttributeError, ValueError, TypeError):
        return None


def _choices(env) -> dict[str, tuple]:
    """The values each option takes, as the environment declares them (``EnvSpec.
    declared_options``, the ``option_choices`` of its class), if any."""
    try:
        declared = env.declared_options()
    except (AttributeError, ImportError, ValueError, TypeError):
        return {}
    return {o.name: tuple(o.choices) for o in declared if o.choices}


def canonical(value: Any) -> Any:
    """``value`` as plain JSON data, the same in every process (see the module's note)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return canonical(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {str(k): canonical(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((canonical(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, enum.Enum):
        return canonical(value.value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, PurePath):
        return str(value)
    text = re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))
    return f"{type(value).__module__}.{type(value).__qualname__}: {text}"


def config_hash(kind: str, resolved_options: dict, env: str, env_options: dict,
                llm: str) -> str:
    """The hash of everything but the key that changes a cell's result."""
    text = json.dumps({"agent": kind, "options": resolved_options, "env": env,
                       "env_options": canonical(env_options), "llm": llm,
                       "format": RESULT_FORMAT}, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
