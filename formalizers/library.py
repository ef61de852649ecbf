"""DomainLibrary: domains learned in won episodes, checked before they are reused.

PDDLego+ found that freezing learned domains helps weaker models but can hurt when a frozen
domain is incomplete. So an entry keeps the problems its episodes planned on, and
:meth:`DomainLibrary.verify` re-checks a domain before reuse: it must parse, pass pddlkit's
static checks, and still solve every stored problem (each plan validated). A domain that lost
an action or an effect fails with pddlkit's diagnostics and why-no-plan explanation, which
name what is missing.

Layout: ``<root>/<env>/<hash12>/`` holds ``domain.pddl``, ``meta.json`` (environment, tasks,
models, episodes won, sha256, dates) and ``problems/*.pddl``. The default root is
``$PDDLKIT_DATA_DIR/domains`` (else ``~/.local/share/pddlkit/domains``); ``domains/learned``
in the repository ships examples.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Union

MAX_PROBLEMS = 20  # stored per entry: enough to catch a lost action, cheap to re-plan


def default_root() -> Path:
    base = os.environ.get("PDDLKIT_DATA_DIR") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "pddlkit")
    return Path(base) / "domains"


@dataclass
class DomainEntry:
    path: Path
    env: str
    sha256: str
    tasks: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    episodes_won: int = 0
    created: float = 0.0
    updated: float = 0.0

    @property
    def id(self) -> str:
        return f"{self.env}/{self.sha256[:12]}"

    @property
    def domain_text(self) -> str:
        return (self.path / "domain.pddl").read_text()

    def problems(self) -> list[Path]:
        return sorted((self.path / "problems").glob("*.pddl"))

    def to_dict(self) -> dict:
        return {"id": self.id, "env": self.env, "sha256": self.sha256, "tasks": self.tasks,
                "models": self.models, "episodes_won": self.episodes_won,
                "problems": len(self.problems()), "created": self.created,
                "updated": self.updated}


@dataclass
class Verification:
    ok: bool
    entry: str
    problems: int
    solved: int
    messages: list[str] = field(default_factory=list)

    def format(self) -> str:
        head = (f"{self.entry}: {'OK' if self.ok else 'FAILED'} ({self.solved}/{self.problems} "
                "stored problems solved)")
        return "\n".join([head] + ["  " + m.replace("\n", "\n  ") for m in self.messages])


class DomainLibrary:
    def __init__(self, root: Union[str, os.PathLike, None] = None) -> None:
        self.root = Path(root) if root else default_root()
        #: entries that could not be read, each with what is wrong and what to do
        self.skipped: list[str] = []

    # ------------------------------------------------------------------ storing

    def save(self, env: str, domain: str, problems: list[str], *, task: str = "",
             model: str = "") -> DomainEntry:
        """Add a won episode: its domain (deduplicated by hash) and the problems it planned on."""
        digest = hashlib.sha256(_canonical(domain).encode()).hexdigest()
        folder = self.root / env / digest[:12]
        (folder / "problems").mkdir(parents=True, exist_ok=True)
        entry = self._read(folder) or DomainEntry(folder, env, digest, created=time.time())
        (folder / "domain.pddl").write_text(domain.rstrip() + "\n")
        stored = {p.read_text() for p in entry.problems()}
        n = len(stored)
        for text in problems:
            if text not in stored and n < MAX_PROBLEMS:
                n += 1
                (folder / "problems" / f"p{n:03d}.pddl").write_text(text.rstrip() + "\n")
                stored.add(text)
        entry.episodes_won += 1
        entry.updated = time.time()
        for value, bucket in ((task, entry.tasks), (model, entry.models)):
            if value and value not in bucket:
                bucket.append(value)
        meta = {k: v for k, v in entry.to_dict().items() if k not in ("id", "problems")}
        (folder / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
        return entry

    def save_episode(self, result, env_id: Optional[str] = None, model: str = "") -> Optional[DomainEntry]:
        """Save a won EpisodeResult's last domain and the problems that gave a plan with it."""
        if not result.won or not result.files:
            return None
        domain = result.files[-1].domain
        planned = getattr(result, "planned", None) or range(len(result.files))
        problems = [result.files[i].problem for i in planned
                    if _canonical(result.files[i].domain) == _canonical(domain)]
        return self.save(env_id or result.env_id, domain, problems[-MAX_PROBLEMS:],
                         task=result.task, model=model or result.formalizer)

    # ------------------------------------------------------------------ finding

    def entries(self, env: Optional[str] = None) -> list[DomainEntry]:
        self.skipped = []
        if not self.root.is_dir():
            return []
        envs = [self.root / env] if env else sorted(p for p in self.root.iterdir() if p.is_dir())
        out = []
        for folder in envs:
            if folder.is_dir():
                out.extend(e for e in (self._read(f) for f in sorted(folder.iterdir())) if e)
        return out

    def get(self, entry_id: str) -> DomainEntry:
        env, _, prefix = entry_id.partition("/")
        matches = [e for e in self.entries(env) if e.sha256.startswith(prefix)]
        if len(matches) != 1:
            known = ", ".join(e.id for e in self.entries()) or "none"
            raise LookupError(f"{'no' if not matches else 'more than one'} domain {entry_id!r} "
                              f"in {self.root} (entries: {known})")
        return matches[0]

    def find(self, env: str, task: Optional[str] = None) -> Optional[DomainEntry]:
        """The most-won entry for ``env``, preferring one learned on the same task."""
        candidates = self.entries(env)
        if not candidates:
            return None
        return max(candidates, key=lambda e: (task in e.tasks if task else False,
                                              e.episodes_won, e.updated))

    # ------------------------------------------------------------------ checking

    def verify(self, entry: Union[DomainEntry, str], planner="fast-downward",
               timeout: float = 30.0) -> Verification:
        import pddlkit

        if isinstance(entry, str):
            entry = self.get(entry)
        domain = entry.domain_text
        report = pddlkit.check(domain)
        messages = [d.format() for d in report.errors]
        problems = entry.problems()
        if not report.ok:
            return Verification(False, entry.id, len(problems), 0,
                                ["the domain does not pass the static checks:"] + messages)
        if not problems:
            return Verification(False, entry.id, 0, 0, ["no stored problems to verify against"])
        solved = 0
        for p in problems:
            result = pddlkit.plan(domain, p.read_text(), planner=planner, timeout=timeout)
            if result.solved:
                solved += 1
            else:
                messages.append(f"{p.name}: {result.format(timings=False)}")
        return Verification(solved == len(problems), entry.id, len(problems), solved, messages)

    def _read(self, folder: Path) -> Optional[DomainEntry]:
        """The entry in ``folder``; a broken one is skipped and named in ``self.skipped``
        (one unreadable meta.json must not hide the rest of the library)."""
        meta = folder / "meta.json"
        if not meta.is_file() or not (folder / "domain.pddl").is_file():
            return None
        try:
            data = json.loads(meta.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError("it is not a JSON object")
            missing = [k for k in ("env", "sha256") if not isinstance(data.get(k), str)]
            if missing:
                raise ValueError(f"it lacks {' and '.join(repr(k) for k in missing)}")
            return DomainEntry(folder, data["env"], data["sha256"], list(data.get("tasks", [])),
                               list(data.get("models", [])), int(data.get("episodes_won", 0)),
                               float(data.get("created", 0.0)), float(data.get("updated", 0.0)))
        except (ValueError, TypeError, UnicodeDecodeError, OSError) as exc:
            self.skipped.append(f"{meta}: not a library entry ({exc}); fix the file or delete "
                                "the folder")
            return None


def _canonical(domain: str) -> str:
    """The domain as pddlkit writes it, so formatting and comments do not split entries."""
    try:
        from pddlkit.pddl.reader import parse_domain
        from pddlkit.pddl.writer import write_domain

        return write_domain(parse_domain(domain))
    except Exception:  # an unreadable domain is never saved from a won episode; be safe
        return domain
