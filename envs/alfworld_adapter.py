"""ALFWorld text games through pddlkit's text-environment API.

``ALFWorldEnv(task="heat", seed=0)`` (or ``envs.make("alfworld", task="heat", seed=0)``)
plays an ALFWorld game built from what the ``alfworld`` wheel ships (see
:mod:`pddlkit.envs.alfworld_games`): no ALFRED download. Task types are ALFWorld's six
(``pick``, ``look``, ``clean``, ``heat``, ``cool``, ``pick_two``, or their full names);
``floorplan`` picks the AI2-THOR scene (1-30 kitchens, 201-230 living rooms, 301-330
bedrooms, 401-430 bathrooms); by default the seed picks one that can host the task.

Observations are ALFWorld's own text ("You arrive at fridge 1. The fridge 1 is closed."), and a
command that does not apply gets ALFWorld's "Nothing happens."; ``info["error"]`` still says
which: ``"precondition"`` when the command has the shape of an action (``action_schema``) but
cannot be done now, ``"unknown-command"`` when it matches none.

Why a child process: ALFWorld runs on TextWorld's PDDL engine, whose ``fast-downward-textworld``
package cannot be installed beside pddlkit's planners (both own the top-level
``fast_downward``). The game runs in :mod:`pddlkit.envs.alfworld_worker` under the interpreter
of a separate venv, over a JSON-lines pipe: ``make alfworld`` builds ``.venv-alfworld`` (about
a minute: it compiles TextWorld's planner library), or set ``PDDLKIT_ALFWORLD_PYTHON`` to any
interpreter that has ``alfworld`` installed.

PDDL, at two levels:
- What a formalizer writes: ``action_schema`` and ``domain`` are the household's
  (:mod:`pddlkit.envs.household`), which are PDDLego+'s ALFWorld actions
  (``gotolocation(?from ?to) <-> "go to {to}"``, ``pickupobject(?o ?r)``, ...), so the
  formalizers that play the native household play these games too, as the TextWorld coin
  adapter exposes CoinCollector's model.
- The game's own model: ``true_domain`` and ``true_problem`` (parsed; the texts are
  ``true_domain_text`` and ``true_problem_text``) are alfred.pddl and the generated problem,
  in standard PDDL, with ``ALFRED_SCHEMA`` mapping alfred.pddl's actions to commands. A
  planner on them wins the game, which the tests check.
``commands_for_plan`` takes a plan over either (the two schemas differ in arity).

The wheel's ``alfred.pddl`` is not standard PDDL, and ``pddlkit check`` says so
(``raw_domain`` keeps it as shipped): a comma in a variable list,
``(exists (?l - location, ?r - receptacle) ...)`` (error[invalid-name]), and the constants
``SinkBasinType``, ``MicrowaveType``, ``FridgeType``, ``KnifeType`` and ``ButterKnifeType`` used
in actions but declared only in each problem's ``:objects`` (error[undeclared-constant]), which
TextWorld's 2020 translator tolerates. :func:`standard_pddl` removes the comma and moves those
five names to the domain's ``:constants``; nothing else changes.

snapshot()/restore(): a snapshot is the game and the commands since reset; restore resets and
replays them (games are deterministic).

Warm workers: starting the ALFWorld interpreter (importing alfworld and TextWorld) takes 8-20 s,
longer than most episodes. ``close()`` therefore hands a live worker to a pool of idle ones in
this process (at most :data:`IDLE_WORKERS` per interpreter), and the next environment on that
interpreter takes it instead of starting one; every ``reset`` loads its game into TextWorld's
engine afresh (``PddlEnv.load`` then ``reset``), so nothing of the earlier game carries over,
which a test checks. A worker that died, failed or timed out is never pooled; the pool's
workers are closed at exit (and end by themselves when this process dies: their standard input
closes). ``PDDLKIT_ALFWORLD_WARM=0`` turns the pool off: each environment starts its own.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import threading
import select
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from pddlkit.pddl.reader import parse_domain, parse_problem

from .alfworld_games import ALIASES, TASK_TYPES, task_type
from .api import ActionTemplate, Step, info_dict
from .household import TEMPLATES as HOUSEHOLD_SCHEMA, ground_truth_domain

WORKER = Path(__file__).with_name("alfworld_worker.py")
VENV_NAME = ".venv-alfworld"
ENV_VAR = "PDDLKIT_ALFWORLD_PYTHON"
TASKS = ("pick", "look", "clean", "heat", "cool", "pick_two")

#: alfred.pddl's actions and the commands of alfred.twl2 (parameters in the domain's order).
ALFRED_SCHEMA = (
    ActionTemplate("gotolocation", ("?a", "?lstart", "?lend", "?r"), "go to {r}"),
    ActionTemplate("openobject", ("?a", "?l", "?r"), "open {r}"),
    ActionTemplate("closeobject", ("?a", "?l", "?r"), "close {r}"),
    ActionTemplate("pickupobject", ("?a", "?l", "?o", "?r"), "take {o} from {r}"),
    ActionTemplate("putobject", ("?a", "?l", "?o", "?r", "?ot", "?rt"), "move {o} to {r}"),
    ActionTemplate("cleanobject", ("?a", "?l", "?r", "?o"), "clean {o} with {r}"),
    ActionTemplate("heatobject", ("?a", "?l", "?r", "?o"), "heat {o} with {r}"),
    ActionTemplate("coolobject", ("?a", "?l", "?r", "?o"), "cool {o} with {r}"),
    ActionTemplate("toggleobject", ("?a", "?l", "?o", "?r"), "use {o}"),
    ActionTemplate("sliceobject", ("?a", "?l", "?co", "?ko"), "slice {co} with {ko}"),
    ActionTemplate("examinereceptacle", ("?a", "?r"), "examine {r}"),
    ActionTemplate("examineobject", ("?a", "?o"), "examine {o}"),
    ActionTemplate("inventory", ("?a",), "inventory"),
    ActionTemplate("look", ("?a", "?l"), "look"),
)
_NOTHING = "Nothing happens."
#: said on stderr when a game's interpreter starts, before the wait for its first answer
LOADING = ("alfworld: loading the game files and the TextWorld engine in ALFWorld's own "
           "interpreter (10-20 s)...")
#: names alfred.pddl's actions use as constants but leaves to each problem to declare.
DOMAIN_CONSTANTS = (("SinkBasinType", "rtype"), ("MicrowaveType", "rtype"),
                    ("FridgeType", "rtype"), ("KnifeType", "otype"), ("ButterKnifeType", "otype"))


def standard_pddl(domain: str, problem: str) -> tuple[str, str]:
    """alfred.pddl and an ALFWorld problem as standard PDDL (see the module docstring)."""
    domain = re.sub(r"(\?\w+\s+-\s+\w+)\s*,\s*(?=\?)", r"\1 ", domain)
    constants = "\n".join(f"    {name} - {kind}" for name, kind in DOMAIN_CONSTANTS)
    domain, n = re.subn(r"(\n\s*\(:predicates)", f"\n (:constants\n{constants}\n )\n\\1",
                        domain, count=1)
    if not n:
        raise ValueError("alfred.pddl has no (:predicates ...) section to put constants before")
    drop = {f"{name} - {kind}".lower() for name, kind in DOMAIN_CONSTANTS}
    problem = "\n".join(line for line in problem.splitlines()
                         if line.strip().lower() not in drop)
    return domain, problem


class ALFWorldUnavailable(ImportError):
    """No interpreter with ``alfworld`` installed was found."""


class ALFWorldError(RuntimeError):
    """The ALFWorld worker failed; the message carries its error and the end of its log."""


def find_python(explicit: Optional[str] = None) -> Path:
    """The interpreter that runs ALFWorld: ``explicit``, ``$PDDLKIT_ALFWORLD_PYTHON``, or
    ``.venv-alfworld`` beside this checkout or beside the running venv."""
    for candidate in (explicit, os.environ.get(ENV_VAR)):
        if candidate:
            path = Path(candidate)
            if not path.exists():
                raise ALFWorldUnavailable(f"no ALFWorld interpreter at {path} "
                                          f"(from {'python=' if explicit else ENV_VAR})")
            return path
    roots = [Path(__file__).resolve().parent.parent, Path(sys.prefix).parent, Path.cwd()]
    for root in roots:
        path = root / VENV_NAME / "bin" / "python"
        if path.exists():
            return path
    raise ALFWorldUnavailable(
        "ALFWorld needs its own venv (its TextWorld PDDL engine cannot share one with "
        "pddlkit's planners): run `make alfworld` in the pddlkit checkout to build "
        f"{VENV_NAME}, or set {ENV_VAR} to a Python that has `pip install alfworld` done")


#: idle workers kept per interpreter by close() for the next environment (see the module text)
IDLE_WORKERS = 2
WARM_ENV_VAR = "PDDLKIT_ALFWORLD_WARM"
_IDLE: dict[str, list["_Worker"]] = {}
_IDLE_LOCK = threading.RLock()   # re-entrant: __del__ may release a worker inside a locked block
_EXITING = False


def _warm_pool_on() -> bool:
    value = os.environ.get(WARM_ENV_VAR, "1").strip().lower()
    if value not in ("0", "1", "", "false", "true", "no", "yes", "off", "on"):
        raise ValueError(f"{WARM_ENV_VAR}={value!r}: use 1 (keep idle ALFWorld workers for the "
                         "next environment, the default) or 0 (a new worker per environment)")
    return value not in ("0", "false", "no", "off")


def _take_idle(python: Path, timeout: float) -> Optional["_Worker"]:
    """A live idle worker on ``python``, or None."""
    with _IDLE_LOCK:
        workers = _IDLE.get(str(python), [])
        while workers:
            worker = workers.pop()
            if worker.proc.poll() is None:
                worker.timeout = timeout
                return worker
            worker.close()
    return None


def _release(worker: "_Worker", python: Path) -> None:
    """Keep ``worker`` for the next environment on ``python``, or close it."""
    if not _EXITING and worker.proc.poll() is None and _warm_pool_on():
        with _IDLE_LOCK:
            idle = _IDLE.setdefault(str(python), [])
            if len(idle) < IDLE_WORKERS:
                idle.append(worker)
                return
    worker.close()


def close_idle_workers() -> int:
    """Close the idle ALFWorld workers this process keeps; how many there were."""
    with _IDLE_LOCK:
        workers = [w for idle in _IDLE.values() for w in idle]
        _IDLE.clear()
    for worker in workers:
        worker.close()
    return len(workers)


@atexit.register
def _close_at_exit() -> None:
    global _EXITING
    _EXITING = True
    close_idle_workers()


def games_dir() -> Path:
    from pddlkit.llm.cache import cache_dir

    return cache_dir() / "alfworld"


class _Worker:
    """The child interpreter and its pipe; one request at a time."""

    def __init__(self, python: Path, timeout: float) -> None:
        self.timeout = timeout
        #: a request failed on it: closed, not pooled, when its environment closes
        self.failed = False
        self.log = tempfile.TemporaryFile(mode="w+")
        env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1")
        try:
            self.proc = subprocess.Popen([str(python), str(WORKER)], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=self.log, text=True,
                                         env=env, start_new_session=True)
        except OSError as exc:
            raise ALFWorldUnavailable(f"cannot start the ALFWorld interpreter {python}: {exc}")

    def log_tail(self, lines: int = 15) -> str:
        self.log.seek(0)
        return "\n".join(self.log.read().splitlines()[-lines:])

    def call(self, request: dict) -> dict:
        if self.proc.poll() is not None:
            raise ALFWorldError(f"the ALFWorld worker has exited ({self.proc.returncode}):\n"
                                f"{self.log_tail()}")
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise ALFWorldError(f"the ALFWorld worker has exited:\n{self.log_tail()}") from None
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        if not ready:
            self.kill()
            raise ALFWorldError(f"the ALFWorld worker gave no answer to {request['op']!r} "
                                f"within {self.timeout:g} s; it was stopped")
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait()
            raise ALFWorldError(f"the ALFWorld worker died ({code}) during {request['op']!r}:\n"
                                f"{self.log_tail()}")
        answer = json.loads(line)
        if not answer.get("ok"):
            raise ALFWorldError(f"ALFWorld {request['op']} failed: {answer.get('kind')}: "
                                f"{answer.get('error')}")
        return answer

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write('{"op": "close"}\n')
                self.proc.stdin.flush()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.kill()
        self.log.close()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@dataclass(frozen=True)
class ALFWorldSnapshot:
    floorplan: Optional[int]
    task: str
    seed: int
    history: tuple[str, ...]
    won: bool = False


class ALFWorldEnv:
    """ALFWorld text games (six task types, 120 scenes), built from the alfworld wheel."""

    id = "alfworld"
    action_schema = HOUSEHOLD_SCHEMA
    #: the values an option takes, read by ``pddlkit bench`` before a sweep runs (see
    #: :func:`pddlkit.bench.resolve.check_env_options`)
    option_choices = {"task": (*ALIASES, *TASK_TYPES)}
    option_bounds = {"floorplan": (0, None), "timeout": (1, None)}
    option_help = {"task": "pick, look, clean, heat, cool, pick_two (or ALFWorld's full "
                           "task-type name)",
                   "floorplan": "the AI2-THOR scene (default: chosen by the seed)",
                   "python": "the Python that runs the alfworld worker (default: found)",
                   "out_dir": "where built games are kept (default: the cache)",
                   "timeout": "seconds a worker answer may take"}

    def __init__(self, task: str = "pick", seed: int = 0, *, floorplan: Optional[int] = None,
                 max_steps: int = 50, python: Optional[str] = None,
                 out_dir: Optional[str] = None, timeout: float = 120.0) -> None:
        task_type(task)  # fail here, not in the worker, on an unknown task type
        self.python = find_python(python)
        self.task_type = task
        self.floorplan = floorplan
        self.seed = seed
        self.max_steps = max_steps
        self.out_dir = Path(out_dir) if out_dir else None
        self.timeout = timeout
        self._worker: Optional[_Worker] = None
        self.task = ""
        self.won = False
        self.history: list[str] = []
        self.names: dict[str, str] = {}
        self.game: dict[str, Any] = {}
        self.domain = ground_truth_domain()  # the household's: what formalizers write
        self.raw_domain = self.raw_problem = self.true_domain_text = self.true_problem_text = ""
        self.true_domain = self.true_problem = None
        self._admissible: list[str] = []
        #: the history's length after the last command that changed the game (see restore)
        self._changed_at = 0

    def _call(self, request: dict) -> dict:
        if self._worker is None:
            self._worker = _take_idle(self.python, self.timeout) if _warm_pool_on() else None
        if self._worker is None:
            self._worker = _Worker(self.python, self.timeout)
            # the worker's first answer waits on the imports of alfworld and TextWorld and on
            # loading the game: 8-20 s of silence before the first observation otherwise
            print(LOADING, file=sys.stderr, flush=True)
        try:
            return self._worker.call(request)
        except ALFWorldError:
            if self._worker.proc.poll() is not None:
                self._worker.close()
                self._worker = None
            else:
                self._worker.failed = True     # answered with an error: not pooled
            raise

    def reset(self, seed: Optional[int] = None) -> tuple[str, dict]:
        if seed is not None:
            self.seed = seed
        answer = self._call({"op": "reset", "floorplan": self.floorplan, "task": self.task_type,
                             "seed": self.seed, "games_dir": str(self.out_dir or games_dir())})
        self.names = answer["names"]
        self.game = answer["game"]
        self.raw_domain = answer["domain"]
        self.raw_problem = answer["problem"]
        self.true_domain_text, self.true_problem_text = standard_pddl(self.raw_domain,
                                                                      self.raw_problem)
        self.true_domain = parse_domain(self.true_domain_text, file="alfred.pddl")
        self.true_problem = parse_problem(self.true_problem_text, file=Path(answer["path"]).name)
        self.task = self.game["task"].rstrip(".") + "."
        self.history = []
        self._changed_at = 0
        self.won = bool(answer["won"])
        self._admissible = answer["admissible"]
        return answer["observation"].strip(), info_dict(self.won, 0, None, self.admissible_commands)

    def step(self, command: str) -> Step:
        if not self.game:
            raise RuntimeError("call reset() before step()")
        if self.won or len(self.history) >= self.max_steps:
            return Step("The episode is over; call reset().", 0.0, self.won, not self.won,
                        info_dict(self.won, len(self.history), "episode-over", lambda: []))
        command = " ".join(command.split())
        answer = self._call({"op": "step", "command": command})
        self.history.append(command)
        if answer.get("action") is not None:
            self._changed_at = len(self.history)
        self.won = bool(answer["won"])
        self._admissible = answer["admissible"]
        text = answer["observation"].strip()
        error = None
        if answer.get("action") is None and text == _NOTHING:
            error = "precondition" if self.parse(command) else "unknown-command"
        truncated = not self.won and len(self.history) >= self.max_steps
        return Step(text, 1.0 if self.won else 0.0, self.won, truncated,
                    info_dict(self.won, len(self.history), error, self.admissible_commands,
                              action=answer.get("action")))

    def parse(self, command: str) -> Optional[tuple[str, dict[str, str]]]:
        """The action a command names and the names it gives its parameters, or None."""
        for template in self.action_schema + ALFRED_SCHEMA:
            m = template.pattern().match(command)
            if m:
                return template.action, m.groupdict()
        return None

    def display(self, pddl_name: str) -> str:
        """A PDDL object's name as ALFWorld shows it: ``apple_bar__plus_00...`` (alfred.pddl's
        ids) and ``apple_1`` (the household's names) are both "apple 1"."""
        return self.names.get(pddl_name.lower(), pddl_name.replace("_", " "))

    def commands_for_plan(self, plan) -> list[str]:
        """The commands of a plan over the household's actions or over alfred.pddl's."""
        by_shape = {}
        for template in ALFRED_SCHEMA + self.action_schema:
            by_shape.setdefault((template.action, len(template.parameters)), template)
        steps = getattr(plan, "steps", plan)
        out = []
        for step in steps:
            name, args = (step.name, step.args) if hasattr(step, "name") else (step[0], step[1:])
            template = by_shape.get((name.lower(), len(args)))
            if template is None:
                known = sorted({f"{a}/{n}" for a, n in by_shape})
                raise KeyError(f"no ALFWorld command for the action {name!r} with {len(args)} "
                               f"arguments; known: {', '.join(known)}")
            out.append(template.command(args, self.display))
        return out

    def admissible_commands(self) -> list[str]:
        return list(self._admissible)

    def snapshot(self) -> ALFWorldSnapshot:
        return ALFWorldSnapshot(self.floorplan, self.task_type, self.seed, tuple(self.history),
                                self.won)

    def restore(self, snapshot: ALFWorldSnapshot) -> None:
        """Reset to the snapshot's game and replay its commands (games are deterministic).

        When every command since the snapshot did nothing in the game (TextWorld matched no
        action: "Nothing happens.", the state untouched), the game already is the snapshot's
        and only the history is cut back: a failed plan's first command costs no replay (a
        reset and every command of the episode so far, seconds on ALFWorld)."""
        done = len(snapshot.history)
        if (self._worker is not None and self.game and self._changed_at <= done
                and tuple(self.history[:done]) == snapshot.history
                and (snapshot.floorplan, snapshot.task, snapshot.seed)
                == (self.floorplan, self.task_type, self.seed)):
            del self.history[done:]
            self.won = snapshot.won
            return
        self.floorplan, self.task_type = snapshot.floorplan, snapshot.task
        self.reset(snapshot.seed)
        for command in snapshot.history:
            answer = self._call({"op": "step", "command": command})
            self.history.append(command)
            self._admissible = answer["admissible"]
        self._changed_at = len(self.history)
        self.won = snapshot.won

    def close(self) -> None:
        """End this environment; its worker, if alive and sound, waits for the next one."""
        if self._worker is not None:
            worker, self._worker = self._worker, None
            if worker.failed:
                worker.close()
            else:
                _release(worker, self.python)

    def __enter__(self) -> "ALFWorldEnv":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass
