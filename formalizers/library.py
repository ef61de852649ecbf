"""DomainLibrary: domains learned in won episodes, checked before they are reused.

PDDLego+ found that freezing learned domains helps weaker models but can hurt when a frozen
domain is incomplete. So an entry keeps what its episodes showed about the world, and
:meth:`DomainLibrary.verify` re-checks the domain against it before reuse, in both directions:

- it must parse, pass pddlkit's static checks and still solve every stored problem (each plan
  validated): a domain that lost an action or an effect fails with the diagnostics and the
  why-no-plan explanation, which name what is missing;
- every command the environment carried out must be applicable in the model at its state,
  and every command the environment *refused* must be inapplicable there (``checks.json``):
  a domain that lost a precondition (``(at ?loc1)`` gone from ``open-door``) plans happily and
  solves its problems, and only this direction catches it, naming the refused command.

Entries are content-addressed: the id is the hash of the domain as pddlkit writes it, and
it is recomputed on every read, so a ``domain.pddl`` edited after it was saved is flagged
(:attr:`DomainEntry.changed`), never trusted. Reuse (:meth:`DomainLibrary.choose`) tries the
entries best first (same task, then most episodes won) until one verifies.

Layout: ``<root>/<env>/<hash12>/`` holds ``domain.pddl``, ``meta.json`` (environment, tasks,
models, episodes won, sha256, dates), ``problems/*.pddl`` and ``checks.json`` (per stored
problem, the PDDL actions the environment ran from its state and, if it refused the next one,
that action with the command and the environment's answer), and, for a domain ``pddlkit
learn-domain`` saved, ``transitions.json`` (every transition it was learnt from: a later save
or verify refuses a domain one contradicts) and ``learning.json`` (what learning cost). The
default root is
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
from typing import Optional, Sequence, Union

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
    #: why the entry cannot be trusted as stored (its domain changed since it was saved), or None
    changed: Optional[str] = None

    @property
    def id(self) -> str:
        return f"{self.env}/{self.sha256[:12]}"

    @property
    def domain_text(self) -> str:
        return (self.path / "domain.pddl").read_text(encoding="utf-8", errors="replace")

    def learning(self) -> dict:
        """What learning the domain cost (``learning.json``, written by ``pddlkit
        learn-domain``: model, seeds, episodes, won, transitions, seconds, tokens, agreement);
        {} for an entry saved from a won episode."""
        path = self.path / "learning.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        except (ValueError, OSError):
            return {}
        return data if isinstance(data, dict) else {}

    def aspects(self) -> dict[str, str]:
        """predicate -> the aspect of the state it was written for (``where the player
        is``), as learning read them from the model's predicates (``learning.json``'s
        ``aspects``, with ``--predicate-slots``); only the domain's own predicates, {} when
        none was saved. Over the entry reused, the helps that play by them act
        (:class:`..base.PlaysLearnedAspects`)."""
        from pddlkit.pddl.reader import read_domain

        said = self.learning().get("aspects")
        if not isinstance(said, dict):
            return {}
        dom, _ = read_domain(self.domain_text)
        names = {p.name.lower() for p in dom.predicates} if dom is not None else set()
        return {str(k).lower(): str(v) for k, v in said.items() if str(k).lower() in names}

    def problems(self) -> list[Path]:
        return sorted((self.path / "problems").glob("*.pddl"))

    def checks(self) -> list[dict]:
        """The stored world checks (see the module doc); [] when there are none."""
        path = self.path / "checks.json"
        if not path.is_file():
            return []
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, list) else []

    def to_dict(self) -> dict:
        return {"id": self.id, "env": self.env, "sha256": self.sha256, "tasks": self.tasks,
                "models": self.models, "episodes_won": self.episodes_won,
                "problems": len(self.problems()), "created": self.created,
                "updated": self.updated}


@dataclass
class Verification:
    """What :meth:`DomainLibrary.verify` did: of the ``problems`` stored, how many it ``tried``
    to plan (0 when the entry was refused before planning: a changed file, a domain that does
    not check) and how many of those were ``solved``."""

    ok: bool
    entry: str
    problems: int
    solved: int
    messages: list[str] = field(default_factory=list)
    tried: Optional[int] = None   # None: every stored problem (as before this field existed)

    def __post_init__(self) -> None:
        if self.tried is None:
            self.tried = self.problems

    def format(self) -> str:
        verdict = "OK" if self.ok else "FAILED"
        if self.tried == 0 and self.problems:
            head = (f"{self.entry}: {verdict} (none of the {self.problems} stored problems "
                    "tried: see below)")
        else:
            head = f"{self.entry}: {verdict} ({self.solved}/{self.tried} stored problems solved)"
        return "\n".join([head] + ["  " + m.replace("\n", "\n  ") for m in self.messages])


class DomainRejected(ValueError):
    """:meth:`DomainLibrary.save` was given a domain that does not pass pddlkit's checks: the
    library keeps only domains that parse and check, so that ``verify`` can read them back."""

    def __init__(self, env: str, diagnostics: Sequence[str]) -> None:
        self.env, self.diagnostics = env, list(diagnostics)
        shown = "\n  ".join(self.diagnostics[:5])
        more = f"\n  (and {len(self.diagnostics) - 5} more)" if len(self.diagnostics) > 5 else ""
        super().__init__(f"the domain for {env} was not saved: it does not pass the static "
                         f"checks (fix it, then save again):\n  {shown}{more}")

    def __reduce__(self):
        return (type(self), (self.env, self.diagnostics))


class DomainLibrary:
    def __init__(self, root: Union[str, os.PathLike, None] = None) -> None:
        self.root = Path(root) if root else default_root()
        #: entries that could not be read, each with what is wrong and what to do
        self.skipped: list[str] = []
        #: why the last save_episode saved nothing (the domain contradicts the episode)
        self.not_saved: list[str] = []

    # ------------------------------------------------------------------ storing

    def save(self, env: str, domain: str, problems: list[str], *, task: str = "",
             model: str = "", checks: Sequence[dict] = (), transitions: Sequence = (),
             learning: Optional[dict] = None, won: int = 1) -> DomainEntry:
        """Add ``won`` won episodes (one, unless learn-domain's several won with it): their
        domain (deduplicated by hash), the problems it planned on, and ``checks``:
        ``{"problem": text, "ran": [PDDL actions], "refused": {"action", "command",
        "observation"} or None}`` (see the module doc). A domain that does not
        pass pddlkit's static checks is refused (:class:`DomainRejected`), nothing written."""
        import pddlkit

        report = pddlkit.check(domain)
        if not report.ok:
            raise DomainRejected(env, [d.format() for d in report.errors])
        contradicted = _contradicted(domain, transitions)
        if contradicted:
            raise DomainRejected(env, contradicted)
        digest = digest_of(domain)
        folder = self.root / env / digest[:12]
        (folder / "problems").mkdir(parents=True, exist_ok=True)
        entry = self._read(folder) or DomainEntry(folder, env, digest, created=time.time())
        (folder / "domain.pddl").write_text(domain.rstrip() + "\n")
        # each stored problem's text (as written: stripped, one final newline) to its file
        names = {p.read_text(errors="replace"): p.name for p in entry.problems()}
        planned = sum(name.startswith("p") for name in names.values())
        for text in problems:
            text = text.rstrip() + "\n"
            if text not in names and planned < MAX_PROBLEMS:
                planned += 1
                names[text] = f"p{planned:03d}.pddl"
                (folder / "problems" / names[text]).write_text(text)
        known = entry.checks()
        for check in checks:
            text = check["problem"].rstrip() + "\n"
            name = names.get(text)
            if name is None:
                if len(names) >= 2 * MAX_PROBLEMS:
                    continue
                name = names[text] = f"c{len(names) + 1:03d}.pddl"
                (folder / "problems" / name).write_text(text)
            record = {"problem": name, "ran": list(check.get("ran", [])),
                      "refused": check.get("refused")}
            if record not in known and len(known) < 4 * MAX_PROBLEMS:
                known.append(record)
        (folder / "checks.json").write_text(json.dumps(known, indent=1) + "\n")
        if transitions:   # what the domain was learnt from: verify reads them again
            try:
                kept = [_transition_dict(t) for t in _stored_transitions(folder)]
            except (ValueError, OSError, KeyError, TypeError):   # unreadable: written anew
                kept = []
            stored = kept + [_transition_dict(t) for t in transitions]
            (folder / "transitions.json").write_text(json.dumps(stored, indent=1) + "\n")
        if learning:
            (folder / "learning.json").write_text(json.dumps(learning, indent=2) + "\n")
        entry.episodes_won += max(1, int(won))
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
        checks = episode_checks(result)
        self.not_saved = _disagreements(domain, checks)
        if self.not_saved:   # won, but the domain contradicts what the environment did
            return None
        return self.save(env_id or result.env_id, domain, problems[-MAX_PROBLEMS:],
                         task=result.task, model=model or result.formalizer, checks=checks)

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
        """An entry by its id (``coin-collector/7bbe41a16326``), or by its hash alone (what a
        row's ``domain_source`` prints, ``library:7bbe41a16326``) when one entry has it."""
        entry_id = entry_id.removeprefix("library:")
        env, slash, prefix = entry_id.partition("/")
        if not slash:   # a hash alone: every environment's entries
            matches = [e for e in self.entries() if e.sha256.startswith(env)]
        else:
            matches = [e for e in self.entries(env) if e.sha256.startswith(prefix)]
        if len(matches) != 1:
            known = ", ".join(e.id for e in self.entries()) or "none"
            raise LookupError(f"{'no' if not matches else 'more than one'} domain {entry_id!r} "
                              f"in {self.root} (entries: {known})")
        return matches[0]

    def ranked(self, env: str, task: Optional[str] = None) -> list[DomainEntry]:
        """``env``'s entries best first: learned on the same task, then most won, newest."""
        return sorted(self.entries(env), reverse=True,
                      key=lambda e: (task in e.tasks if task else False, e.episodes_won,
                                     e.updated))

    def find(self, env: str, task: Optional[str] = None) -> Optional[DomainEntry]:
        """The best entry for ``env`` (see :meth:`ranked`), verified or not."""
        ranked = self.ranked(env, task)
        return ranked[0] if ranked else None

    def choose(self, env: str, task: Optional[str] = None, planner="fast-downward"
               ) -> tuple[Optional[DomainEntry], list["Verification"]]:
        """The best entry that verifies, and the verification of each one tried before it
        (a good entry behind a broken one is still found)."""
        failed = []
        for entry in self.ranked(env, task):
            check = self.verify(entry, planner)
            if check.ok:
                return entry, failed
            failed.append(check)
        return None, failed

    # ------------------------------------------------------------------ checking

    def verify(self, entry: Union[DomainEntry, str], planner="fast-downward",
               timeout: float = 30.0) -> Verification:
        import pddlkit

        if isinstance(entry, str):
            entry = self.get(entry)
        if entry.changed:
            return Verification(False, entry.id, len(entry.problems()), 0, [entry.changed],
                                tried=0)
        domain_file = entry.path / "domain.pddl"
        report = pddlkit.check(domain_file)
        messages = [d.format() for d in report.errors]
        problems = entry.problems()
        if not report.ok:
            return Verification(False, entry.id, len(problems), 0,
                                ["the domain does not pass the static checks:"] + messages,
                                tried=0)
        if not problems:
            return Verification(False, entry.id, 0, 0, ["no stored problems to verify against"])
        solved = 0
        for p in problems:
            result = pddlkit.plan(domain_file, p, planner=planner, timeout=timeout)
            if result.solved:
                solved += 1
            else:
                messages.append(f"{p.name}: {result.format(timings=False)}")
        try:
            records = entry.checks()
            disagreements = [m for record in records for m in _world_check(
                report.domain, entry.path / "problems" / record["problem"], record["problem"],
                record)]
        except (ValueError, OSError, KeyError, TypeError) as exc:
            disagreements = [f"checks.json cannot be read ({exc}); fix or delete it"]
        messages += disagreements
        try:
            contradicted = _contradicted(entry.domain_text, _stored_transitions(entry.path))
        except (ValueError, OSError, KeyError, TypeError) as exc:
            contradicted = [f"transitions.json cannot be read ({exc}); fix or delete it"]
        messages += contradicted
        disagreements = disagreements or contradicted
        return Verification(solved == len(problems) and not disagreements, entry.id,
                            len(problems), solved, messages)

    def _read(self, folder: Path) -> Optional[DomainEntry]:
        """The entry in ``folder``; a broken one is skipped and named in ``self.skipped``
        (one unreadable meta.json must not hide the rest of the library)."""
        meta = folder / "meta.json"
        if not meta.is_file():
            return None
        if not (folder / "domain.pddl").is_file():
            self.skipped.append(f"{folder}: domain.pddl is missing; restore it or delete the "
                                "folder")
            return None
        try:
            data = json.loads(meta.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError("it is not a JSON object")
            missing = [k for k in ("env", "sha256") if not isinstance(data.get(k), str)]
            if missing:
                raise ValueError(f"it lacks {' and '.join(repr(k) for k in missing)}")
            entry = DomainEntry(folder, data["env"], data["sha256"], list(data.get("tasks", [])),
                                list(data.get("models", [])), int(data.get("episodes_won", 0)),
                                float(data.get("created", 0.0)),
                                float(data.get("updated", 0.0)))
            actual = digest_of((folder / "domain.pddl").read_text(encoding="utf-8"))
            if actual != entry.sha256 or not entry.sha256.startswith(folder.name):
                entry.changed = (f"domain.pddl changed since it was saved: its hash is "
                                 f"{actual[:12]}, the entry is {entry.sha256[:12]}; this is not "
                                 f"the domain that won, so it is not trusted (save it again, "
                                 f"or restore the file)")
            return entry
        except (ValueError, TypeError, UnicodeDecodeError, OSError) as exc:
            self.skipped.append(f"{meta}: not a library entry ({exc}); fix the file or delete "
                                "the folder")
            return None


def entry_of_file(path: Union[str, os.PathLike]) -> Optional[DomainEntry]:
    """The library entry whose ``domain.pddl`` ``path`` is (its ``meta.json`` beside it),
    when the file is still the domain that was saved; else None."""
    path = Path(path)
    if path.name != "domain.pddl":
        return None
    folder = path.resolve().parent
    entry = DomainLibrary(folder.parent.parent)._read(folder)
    return entry if entry is not None and entry.changed is None else None


def digest_of(domain: str) -> str:
    """An entry's id: the SHA-256 of the domain as pddlkit writes it."""
    return hashlib.sha256(_canonical(domain).encode()).hexdigest()


def episode_checks(result) -> list[dict]:
    """What a won episode showed about the world, for :meth:`DomainLibrary.verify`: per plan
    it ran, the problem file and the PDDL actions the environment carried out from its state;
    per command the environment refused as the first of its plan, the problem file written
    next (the same state, now with what the refusal taught: a closed door is in it) and the
    refused action, command and answer. A refusal after other commands of its plan is not
    kept: the environment was restored, and the next file need not know what those showed."""
    refusals = {e["plan"]: e for e in getattr(result, "errors", ())
                if e.get("kind") == "simulation" and "plan" in e}
    out = []
    plans = getattr(result, "actions", ())
    for i, actions in enumerate(plans):
        if i >= len(result.planned) or not actions:
            continue
        ran = result.ran[i] if i < len(result.ran) else 0
        if ran:
            out.append({"problem": result.files[result.planned[i]].problem,
                        "ran": actions[:ran], "refused": None})
        refused = refusals.get(i)
        if refused is not None and ran == 0 and i + 1 < len(result.planned):
            out.append({"problem": result.files[result.planned[i + 1]].problem, "ran": [],
                        "refused": {"action": actions[0], "command": refused["command"],
                                    "observation": refused["message"]}})
    return out


def _transition_dict(t) -> dict:
    out = {"action": t.action, "before": sorted(t.before), "succeeded": t.succeeded,
           "objects": dict(t.objects), "where": t.where}
    if t.observed is not None:
        out["observed"] = sorted(t.observed)
    return out


def _stored_transitions(folder: Path) -> list:
    """The transitions an entry was saved with (``transitions.json``; [] when none)."""
    from pddlkit.semantics.transitions import Transition

    path = folder / "transitions.json"
    if not path.is_file():
        return []
    return [Transition(d["action"], frozenset(d["before"]), bool(d["succeeded"]), None,
                       dict(d.get("objects") or {}), d.get("where", ""),
                       frozenset(d["observed"]) if "observed" in d else None)
            for d in json.loads(path.read_text(encoding="utf-8"))]


def _contradicted(domain_text: str, transitions: Sequence) -> list[str]:
    """What the transitions say against the domain (issue 75: the library refuses a domain
    that contradicts a transition it was learnt from), one line per finding (five at most)."""
    if not transitions:
        return []
    from pddlkit.semantics.transitions import check_transitions

    try:
        found = check_transitions(domain_text, list(transitions))
    except ValueError as exc:
        return [str(exc)]
    return [f"a transition it was learnt from contradicts it: {f.format()}" for f in found[:5]]


def _disagreements(domain_text: str, checks: Sequence[dict]) -> list[str]:
    """What ``checks`` (with problem texts) say against a domain not yet saved."""
    from pddlkit.pddl.reader import parse_domain

    try:
        domain = parse_domain(domain_text)
    except Exception:  # noqa: BLE001 - a won episode's domain parses; be safe
        return []
    return [m for n, check in enumerate(checks)
            for m in _world_check(domain, check["problem"], f"problem {n + 1}", check)]


def _world_check(domain, problem_source, name: str, record: dict) -> list[str]:
    """What the model says against one record (see the module doc), on the problem
    ``problem_source`` (a path or the text) shown as ``name``: [] when it agrees, else one
    line naming the command and the problem."""
    from pddlkit.diagnostics import PDDLError
    from pddlkit.pddl.reader import read_problem
    from pddlkit.semantics.simulate import simulate
    from pddlkit.semantics.world import World

    try:
        problem, diags = read_problem(problem_source)
    except PDDLError:   # unreadable: the stored-problems check reports it with its file
        return []
    if problem is None or any(d.is_error for d in diags):
        return []   # a problem of an earlier vocabulary: it says nothing about this model
    world = World(domain, problem)
    state = world.initial_state
    for action in record.get("ran", []):
        tried = simulate(world, state, action)
        if tried.problem is not None:
            return []   # names this file does not know: it says nothing here
        if not tried.applicable:
            return [f"{name}: the model refuses {action}, which the environment carried out "
                    f"(" + (str(tried.first) if tried.first else tried.problem or "?") + ")"]
        state = tried.successor
    refused = record.get("refused")
    if refused:
        tried = simulate(world, state, refused["action"])
        if tried.problem is None and tried.applicable:
            return [f"{name}: the model allows {refused['action']} ({refused['command']!r}), "
                    f"which the environment refused: {refused['observation']!r}; a "
                    f"precondition is missing"]
    return []


def _canonical(domain: str) -> str:
    """The domain as pddlkit writes it, so formatting and comments do not split entries."""
    try:
        from pddlkit.pddl.reader import parse_domain
        from pddlkit.pddl.writer import write_domain

        return write_domain(parse_domain(domain))
    except Exception:  # an unreadable domain is never saved from a won episode; be safe
        return domain
