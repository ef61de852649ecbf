"""Sweep configs (TOML or YAML) and their expansion into cells.

A config names the agents, the environments with the option that sets their difficulty, and
the seeds::

    name = "robustness"
    seeds = 20                      # 0..19, or a list
    workers = 2

    [[agents]]
    label = "PDDLego+"              # shown in tables; defaults to agent/llm
    agent = "pddlego"               # an entry point of pddlkit.agents
    llm = "standin:pddlego:noisy"   # or llms = ["openai:gpt-4o-mini", "openai:o3-mini"]
    options = { retries = 5, goal_style = "detailed", planner = "fast-downward" }

    [[envs]]
    env = "coin-collector"
    difficulty = "rooms"            # the env option that varies ...
    levels = [3, 5, 7, 9, 11]       # ... over these values
    options = {}                    # fixed env options

``output`` (default ``bench-runs/<name>``, relative to the current directory) holds
``results.jsonl`` and the episode records. Every (agent, llm, env, level, seed) is one cell. A
cell's ``key`` names it in the results file; its ``config`` hashes everything else that changes
its result (the agent's resolved options, the environment's options, the LLM spec, the
results' format version: :func:`.resolve.config_hash`), and a re-run reuses a row only when
both match, so changing ``retries`` runs those cells again and no other. Its ``rng_seed``
(derived from the key alone, so an option's change does not also change the draw) seeds
whatever randomness the agent has of its own, so a cell gives the same episode wherever and
whenever it runs.

Expansion is also the check (:mod:`.resolve`): every agent, option, environment, difficulty,
level and seed is resolved before anything runs (a task or level name the agent reads
itself by the agent's own check, the one its run makes), and a config that cannot run is a
:class:`ConfigError` naming the file and the entry. An agent entry may list ``envs = [...]``,
the environments of the sweep it pairs with (default: all it plays); a pair the agent's
declaration rules out is skipped and listed in :attr:`Sweep.skipped`, never failed once per
cell. A sweep with no cell (``seeds = 0``, a ``--envs`` filter naming nothing of the sweep,
no agent playing any environment) is a ConfigError that says why, not a run of nothing.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from .resolve import (EntryError, ResolvedAgent, check_cell_names, check_env_options,
                      config_hash, plays, resolve_agent, resolve_env)


class ConfigError(ValueError):
    """A sweep config that cannot be used; the message names the file and the entry."""


@dataclass(frozen=True)
class Cell:
    agent: str  # label
    kind: str  # the agent entry point
    llm: str
    env: str
    difficulty: str  # the level, as shown
    level_index: int
    seed: int
    env_options: dict = field(default_factory=dict)
    options: dict = field(default_factory=dict)
    #: the hash of what else changes the result (:func:`.resolve.config_hash`); "" for a cell
    #: made by hand, which :func:`.runner.run_sweep` refuses
    config: str = ""

    @property
    def key(self) -> str:
        return f"{self.agent}|{self.llm}|{self.env}|{self.difficulty}|{self.seed}"

    @property
    def identity(self) -> str:
        """What a stored row must match to be reused (:func:`.results.row_identity`)."""
        return f"{self.key}#{self.config}"

    @property
    def rng_seed(self) -> int:
        return int.from_bytes(hashlib.sha256(self.key.encode()).digest()[:4], "big")

    def record_name(self) -> str:
        slug = re.sub(r"[^A-Za-z0-9.+-]+", "_", f"{self.agent}-{self.llm}")
        level = re.sub(r"[^A-Za-z0-9.+-]+", "_", self.difficulty)
        return f"{slug}/{self.env}-{level}-s{self.seed}.jsonl"

    def to_dict(self) -> dict:
        return {**asdict(self), "key": self.key, "rng_seed": self.rng_seed}


@dataclass
class Sweep:
    name: str
    cells: list[Cell]
    output: Path
    workers: int = 1
    source: Optional[Path] = None
    #: agent x environment pairs left out because the agent does not play the environment
    #: (its declaration), each with the reason, to be said once
    skipped: list[str] = field(default_factory=list)

    @property
    def results_path(self) -> Path:
        return self.output / "results.jsonl"

    @property
    def records_dir(self) -> Path:
        return self.output / "records"


def load_sweep(path: Union[str, Path], *, seeds: Optional[int] = None,
               output: Union[str, Path, None] = None, workers: Optional[int] = None,
               agents: Optional[list[str]] = None, envs: Optional[list[str]] = None) -> Sweep:
    """Read a config, check it and expand it; the keyword arguments override it (quick
    runs)."""
    path = Path(path)
    data = _read(path)
    return expand(data, source=path, seeds=seeds, output=output, workers=workers,
                  agents=agents, envs=envs)


def _read(path: Path) -> dict:
    if not path.is_file():
        raise ConfigError(f"{path}: no such config file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not a text file (byte {exc.start} is "
                          f"{exc.object[exc.start]:#04x}); a sweep config is TOML or YAML "
                          "text") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        if path.suffix in (".yaml", ".yml"):
            try:
                import yaml
            except ImportError:
                raise ConfigError(f"{path}: YAML configs need PyYAML (pip install pyyaml), "
                                  "or write the config as TOML") from None
            data = yaml.safe_load(text)
        else:
            import tomllib

            data = tomllib.loads(text)
    except ConfigError:
        raise
    except Exception as exc:  # the parser's own message carries the line
        raise ConfigError(f"{path}: cannot read the config: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the config must be a table of settings")
    return data


@dataclass
class _Agent:
    """One (agent entry, llm) of the config: its label and place, resolved on demand."""

    index: int
    entry: dict
    llm: str
    label: str
    resolved: Optional[ResolvedAgent] = None


def expand(data: dict, *, source: Optional[Path] = None, seeds: Optional[int] = None,
           output: Union[str, Path, None] = None, workers: Optional[int] = None,
           agents: Optional[list[str]] = None, envs: Optional[list[str]] = None) -> Sweep:
    """The cells of a config, every entry checked (see the module's note); ``seeds``,
    ``output``, ``workers``, and the ``agents`` and ``envs`` filters override the config."""
    where = str(source) if source else "config"
    name = str(data.get("name") or (source.stem if source else "sweep"))
    seed_list = _seeds(seeds if seeds is not None else data.get("seeds", 1), where,
                       "--seeds" if seeds is not None else "seeds =")
    count = _workers(workers if workers is not None else data.get("workers", 1), where,
                     "--workers" if workers is not None else "workers =")
    agent_specs = _list(data, "agents", where)
    env_specs = _list(data, "envs", where)
    every_agent: list[_Agent] = []
    for i, a in enumerate(agent_specs):
        if "agent" not in a:
            raise ConfigError(f"{where}: agents[{i}] needs 'agent' (e.g. agent = \"pddlego\")")
        llms = a.get("llms") or [a.get("llm", "")]
        if not isinstance(llms, list) or not all(isinstance(v, str) for v in llms):
            raise ConfigError(f"{where}: agents[{i}]: 'llms' must be a list of LLM specs")
        for llm in llms:
            label = str(a.get("label") or (f"{a['agent']}/{llm}" if llm else a["agent"]))
            if len(llms) > 1 and a.get("label"):
                label = f"{a['label']}/{llm}"
            every_agent.append(_Agent(i, a, str(llm), label))
    for j, e in enumerate(env_specs):
        if "env" not in e:
            raise ConfigError(f"{where}: envs[{j}] needs 'env' (e.g. env = \"coin-collector\")")
    env_ids = [str(e["env"]) for e in env_specs]
    _check_filter("--agents", agents, sorted({x.label for x in every_agent}
                                             | {str(x.entry["agent"]) for x in every_agent}),
                  "agent label or kind", where)
    _check_filter("--envs", envs, env_ids, "environment", where)
    chosen_agents = [x for x in every_agent
                     if not agents or x.label in agents or x.entry["agent"] in agents]
    chosen_envs = [(j, e) for j, e in enumerate(env_specs) if not envs or e["env"] in envs]

    env_entries = {}
    for j, e in chosen_envs:
        env_entries[j] = _env_entry(e, j, where)
    cells: list[Cell] = []
    skipped: list[str] = []
    for x in chosen_agents:
        a, i = x.entry, x.index
        pairs_with = _pairs_with(a, i, env_ids, where)
        if x.resolved is None:
            try:
                x.resolved = resolve_agent(str(a["agent"]), _table(a, "options", where,
                                                                   f"agents[{i}]"), x.llm)
            except EntryError as exc:
                raise ConfigError(f"{where}: agents[{i}] ({x.label}): {exc}") from None
        spec = x.resolved.spec
        for j, e in chosen_envs:
            env, vary, levels, fixed = env_entries[j]
            if pairs_with is not None and env.id not in pairs_with:
                continue
            why = plays(spec, env)
            if why is not None:
                if pairs_with is not None:
                    raise ConfigError(f"{where}: agents[{i}] ({x.label}) lists envs[{j}] "
                                      f"({env.id}) in its 'envs', but {why}")
                skipped.append(f"{x.label} x {env.id}: {why}")
                continue
            try:
                check_env_options(spec, env, fixed, vary, [v for v in levels if v is not None])
            except EntryError as exc:
                raise ConfigError(f"{where}: envs[{j}] ({env.id}) with agents[{i}] "
                                  f"({x.label}): {exc}") from None
            for k, level in enumerate(levels):
                env_options = dict(fixed)
                if vary is not None:
                    env_options[vary] = level
                try:
                    check_cell_names(spec, env, env_options)
                except EntryError as exc:
                    shown = f"{vary} = {json.dumps(level)}: " if vary is not None else ""
                    raise ConfigError(f"{where}: envs[{j}] ({env.id}) with agents[{i}] "
                                      f"({x.label}): {shown}{exc}") from None
                digest = config_hash(spec.name, x.resolved.resolved, env.id, env_options,
                                     x.resolved.llm)
                for seed in seed_list:
                    cells.append(Cell(x.label, str(a["agent"]), x.llm, env.id,
                                      "-" if level is None else str(level), k, seed,
                                      env_options, dict(x.resolved.options), digest))
    if not cells:
        raise ConfigError(f"{where}: empty sweep: no agent of the sweep plays any of its "
                          "environments" + "".join(f"\n  {s}" for s in skipped))
    keys = [c.key for c in cells]
    if len(set(keys)) != len(keys):
        raise ConfigError(f"{where}: two agents share a label and LLM; give each a distinct "
                          "'label'")
    out = Path(output) if output else Path(str(data.get("output") or f"bench-runs/{name}"))
    return Sweep(name, cells, out, count, source, skipped)


def _env_entry(e: dict, j: int, where: str):
    """(EnvSpec, the varied option's name, its levels, the fixed options) of an env entry."""
    try:
        env = resolve_env(str(e["env"]))
    except EntryError as exc:
        raise ConfigError(f"{where}: envs[{j}]: {exc}") from None
    vary = e.get("difficulty")
    if vary is not None and not isinstance(vary, str):
        raise ConfigError(f"{where}: envs[{j}] ({env.id}): 'difficulty' names the option the "
                          f"levels set (e.g. difficulty = \"rooms\"), not {json.dumps(vary)}")
    if "levels" in e and (not isinstance(e["levels"], list) or not e["levels"]):
        raise ConfigError(f"{where}: envs[{j}] ({env.id}): 'levels' must be a list of one "
                          f"value or more, not {json.dumps(e['levels'])}")
    levels = e.get("levels") or [None]
    if vary is None and levels != [None]:
        raise ConfigError(f"{where}: envs[{j}] has levels but no 'difficulty' option "
                          "naming what they set (e.g. difficulty = \"rooms\")")
    if vary is not None and levels == [None]:
        raise ConfigError(f"{where}: envs[{j}] ({env.id}): difficulty = {vary!r} needs "
                          "'levels', the values it takes (e.g. levels = [3, 5, 7])")
    fixed = _table(e, "options", where, f"envs[{j}]")
    if vary is not None and vary in fixed:
        raise ConfigError(f"{where}: envs[{j}] ({env.id}): {vary!r} is both the difficulty "
                          "and a fixed option")
    return env, vary, levels, fixed


def _pairs_with(a: dict, i: int, env_ids: list[str], where: str) -> Optional[set[str]]:
    """An agent entry's own ``envs`` (the environments it pairs with), checked; None: all."""
    if "envs" not in a:
        return None
    listed = a["envs"]
    if not isinstance(listed, list) or not listed or not all(isinstance(v, str) for v in listed):
        raise ConfigError(f"{where}: agents[{i}]: 'envs' must be a list of environment ids")
    for env in listed:
        if env not in env_ids:
            raise ConfigError(f"{where}: agents[{i}]: 'envs' names {env!r}, which is not an "
                              f"environment of the sweep (its environments: "
                              f"{', '.join(env_ids)})")
    return set(listed)


def _check_filter(flag: str, names: Optional[list[str]], known: list[str], what: str,
                  where: str) -> None:
    """Every name of a ``--agents`` / ``--envs`` filter must pick something."""
    if names is None:
        return
    names = [n for n in names if n]
    if not names:
        raise ConfigError(f"{where}: empty sweep: {flag} names nothing")
    unknown = [n for n in names if n not in known]
    if not unknown:
        return
    hints = [f"did you mean {close[0]!r}?" for n in unknown
             for close in [difflib.get_close_matches(n, known, n=1, cutoff=0.6)] if close]
    raise ConfigError(f"{where}: {'empty sweep: ' if len(unknown) == len(names) else ''}"
                      f"{flag} {', '.join(map(repr, unknown))} matches no {what} of the sweep"
                      + (f" ({'; '.join(hints)})" if hints else "")
                      + f"; the sweep's: {', '.join(known)}")


def _table(entry: dict, name: str, where: str, place: str) -> dict:
    value = entry.get(name) or {}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: {place}: '{name}' must be a table (options = {{ ... }})")
    return dict(value)


def _seeds(value: Any, where: str, name: str) -> list[int]:
    if isinstance(value, int) and not isinstance(value, bool):
        if value <= 0:
            raise ConfigError(f"{where}: empty sweep: {name} {value} gives no episodes "
                              "(seeds = N runs seeds 0..N-1: give 1 or more)")
        return list(range(value))
    if isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool)
                                       for v in value):
        if not value:
            raise ConfigError(f"{where}: empty sweep: {name} [] lists no seed")
        if any(v < 0 for v in value):
            raise ConfigError(f"{where}: {name} {json.dumps(value)}: seeds are 0 or more "
                              "(an environment's random generator may refuse a negative one)")
        if len(set(value)) != len(value):
            raise ConfigError(f"{where}: {name} {json.dumps(value)} lists a seed twice")
        return list(value)
    raise ConfigError(f"{where}: 'seeds' must be a number (0..n-1) or a list of numbers, "
                      f"not {json.dumps(value)}")


def _workers(value: Any, where: str, name: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    raise ConfigError(f"{where}: {name} {json.dumps(value)}: the number of parallel episodes "
                      "is 1 or more")


def _list(data: dict, name: str, where: str) -> list[dict]:
    value = data.get(name)
    if not value or not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ConfigError(f"{where}: '{name}' must be a list of tables ([[{name}]] in TOML)")
    return value
