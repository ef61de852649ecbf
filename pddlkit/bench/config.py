"""Sweep configs (TOML or YAML) and their expansion into cells.

A config names the agents, the environments with the option that sets their difficulty, and
the seeds::

    name = "robustness"
    seeds = 20                      # 0..19, or a list
    workers = 2

    [[agents]]
    label = "PDDLego+"              # shown in tables; defaults to agent/llm
    agent = "pddlego"               # an entry point of pddlkit.agents
    llm = "noisy"                   # or llms = ["openai:gpt-4o-mini", "openai:o3-mini"]
    options = { retries = 5, goal_style = "detailed", planner = "fast-downward" }

    [[envs]]
    env = "coin-collector"
    difficulty = "rooms"            # the env option that varies ...
    levels = [3, 5, 7, 9, 11]       # ... over these values
    options = {}                    # fixed env options

``output`` (default ``bench-runs/<name>``, relative to the current directory) holds
``results.jsonl`` and the episode records. Every (agent, llm, env, level, seed) is one cell. A cell's ``key`` names it in the results
file, so a re-run skips it; its ``rng_seed`` (derived from the key) seeds whatever randomness
the agent has of its own, so a cell gives the same episode wherever and whenever it runs.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional, Union


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

    @property
    def key(self) -> str:
        return f"{self.agent}|{self.llm}|{self.env}|{self.difficulty}|{self.seed}"

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

    @property
    def results_path(self) -> Path:
        return self.output / "results.jsonl"

    @property
    def records_dir(self) -> Path:
        return self.output / "records"


def load_sweep(path: Union[str, Path], *, seeds: Optional[int] = None,
               output: Union[str, Path, None] = None, workers: Optional[int] = None,
               agents: Optional[list[str]] = None, envs: Optional[list[str]] = None) -> Sweep:
    """Read a config and expand it; the keyword arguments override it (quick runs)."""
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


def expand(data: dict, *, source: Optional[Path] = None, seeds: Optional[int] = None,
           output: Union[str, Path, None] = None, workers: Optional[int] = None,
           agents: Optional[list[str]] = None, envs: Optional[list[str]] = None) -> Sweep:
    where = str(source) if source else "config"
    name = str(data.get("name") or (source.stem if source else "sweep"))
    seed_list = _seeds(seeds if seeds is not None else data.get("seeds", 1), where)
    agent_specs = _list(data, "agents", where)
    env_specs = _list(data, "envs", where)
    cells: list[Cell] = []
    for i, a in enumerate(agent_specs):
        if "agent" not in a:
            raise ConfigError(f"{where}: agents[{i}] needs 'agent' (e.g. agent = \"pddlego\")")
        llms = a.get("llms") or [a.get("llm", "")]
        for llm in llms:
            label = str(a.get("label") or (f"{a['agent']}/{llm}" if llm else a["agent"]))
            if len(llms) > 1 and a.get("label"):
                label = f"{a['label']}/{llm}"
            if agents and label not in agents and a["agent"] not in agents:
                continue
            for j, e in enumerate(env_specs):
                if "env" not in e:
                    raise ConfigError(f"{where}: envs[{j}] needs 'env' (e.g. env = \"coin-collector\")")
                if envs and e["env"] not in envs:
                    continue
                vary = e.get("difficulty")
                levels = e.get("levels") or [None]
                if vary is None and levels != [None]:
                    raise ConfigError(f"{where}: envs[{j}] has levels but no 'difficulty' option "
                                      "naming what they set (e.g. difficulty = \"rooms\")")
                for k, level in enumerate(levels):
                    env_options = dict(e.get("options") or {})
                    if vary is not None:
                        env_options[vary] = level
                    for seed in seed_list:
                        cells.append(Cell(label, str(a["agent"]), str(llm), str(e["env"]),
                                          "-" if level is None else str(level), k, seed,
                                          env_options, dict(a.get("options") or {})))
    keys = [c.key for c in cells]
    if len(set(keys)) != len(keys):
        raise ConfigError(f"{where}: two agents share a label and LLM; give each a distinct "
                          "'label'")
    out = Path(output) if output else Path(str(data.get("output") or f"bench-runs/{name}"))
    return Sweep(name, cells, out, int(workers or data.get("workers") or 1), source)


def _seeds(value: Any, where: str) -> list[int]:
    if isinstance(value, int):
        return list(range(value))
    if isinstance(value, list) and all(isinstance(v, int) for v in value):
        return list(value)
    raise ConfigError(f"{where}: 'seeds' must be a number (0..n-1) or a list of numbers, "
                      f"not {json.dumps(value)}")


def _list(data: dict, name: str, where: str) -> list[dict]:
    value = data.get(name)
    if not value or not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ConfigError(f"{where}: '{name}' must be a list of tables ([[{name}]] in TOML)")
    return value
