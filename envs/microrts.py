"""MicroRTS, the real engine, as a pddlkit environment (PLAP's battlefield, seed 002).

The engine is ``microrts.jar`` (installed by :mod:`.microrts_assets`), driven through JPype in
its own process (:mod:`.microrts_worker`), as ALFWorld's engine is. ``MicroRTS(map=
"basesWorkers8x8", opponent="RandomBiasedAI")``; ``reset(seed)`` gives seed 002's textual
battlefield; ``step(actions)`` issues the player's unit actions (``{"unit": id, "type": "move",
"direction": 1}``; types noop, move, harvest, return, produce with ``unit_type``, attack with
``x``, ``y``), lets the opponent act and advances one game cycle. Actions the engine does not
allow (a busy unit, a blocked cell, too few resources) come back in ``info["rejected"]`` with
the reason, never as an exception. ``play(ai0, ai1)`` runs a whole game between two built-in
bots inside the engine.

Choices: the player is player 0 ("blue", PLAP's side against bots); coordinates are (x, y) =
(column, row), as the engine's, and the text says so (PLAP's code printed (row, col) under a
prompt that said (x, y)); a game ends at the engine's game over or at ``max_cycles`` (2000, as
PLAP's code), which is a draw. The unit table is the engine's ``UnitTypeTable`` (the original
version PLAP uses). Metrics per game for the player (seed 002, §V-A), from the engine's units
cycle by cycle: result +1/0/-1, RHR = harvested / game time x 100, RUR = spent / game time x
100, UPR = units produced / game time x 100, CER = damage dealt / damage taken (None when no
damage was taken). Opponents by name: RandomBiasedAI, RandomAI, PassiveAI, WorkerRush,
LightRush, HeavyRush, RangedRush, NaiveMCTS, CoacAI; the random ones are seeded by ``reset``'s
seed (NaiveMCTS's strength still depends on the machine's speed).
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from .api import Step, info_dict
from .microrts_assets import MicroRTSMissing, home as engine_home

WORKER = Path(__file__).with_name("microrts_worker.py")
OPPONENTS = ("RandomBiasedAI", "RandomAI", "PassiveAI", "WorkerRush", "LightRush", "HeavyRush",
             "RangedRush", "NaiveMCTS", "CoacAI")
EXTERNAL = "external"   # the other side is played from Python too (planner against planner)
DIRECTIONS = ("north", "east", "south", "west")
SIDES = ("blue", "red")


class MicroRTSError(RuntimeError):
    """The engine failed or refused a request; the message names what and why."""


@dataclass
class GameMetrics:
    result: int          # +1 win, 0 draw, -1 loss (for the player)
    time: int            # game cycles played
    produced: int
    spent: int
    harvested: int
    dealt: int
    taken: int

    @property
    def rhr(self) -> float:
        return 100.0 * self.harvested / max(1, self.time)

    @property
    def rur(self) -> float:
        return 100.0 * self.spent / max(1, self.time)

    @property
    def upr(self) -> float:
        return 100.0 * self.produced / max(1, self.time)

    @property
    def cer(self) -> Optional[float]:
        return self.dealt / self.taken if self.taken else None

    def as_dict(self) -> dict:
        return {"result": self.result, "time": self.time, "RHR": self.rhr, "RUR": self.rur,
                "UPR": self.upr, "CER": self.cer, "produced": self.produced,
                "spent": self.spent, "harvested": self.harvested, "dealt": self.dealt,
                "taken": self.taken}


def metrics_for(state: dict, metrics: list, player: int) -> GameMetrics:
    m = metrics[player]
    winner = state["winner"]
    result = 0 if winner < 0 or not state["gameover"] else (1 if winner == player else -1)
    harvested = state["resources"][player] + m["spent"] - m["start_resources"]
    return GameMetrics(result, state["time"], m["produced"], m["spent"], harvested, m["dealt"],
                       m["taken"])


class _Worker:
    """The engine process; one JSON line per request and answer."""

    def __init__(self) -> None:
        self.proc: Optional[subprocess.Popen] = None
        self.errors = None   # the engine's stderr (a temporary file): its last words on a crash

    def _ended(self) -> str:
        """How the engine process ended: its exit code (or the signal that killed it) and the
        last lines it wrote to stderr. Waits for it, so the code is known (not None)."""
        import signal

        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        how = f"exit code {code}"
        if code < 0:
            try:
                how = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"killed by signal {-code}"
        said = ""
        if self.errors is not None:
            self.errors.seek(0)
            tail = [line for line in self.errors.read().decode(errors="replace").splitlines()
                    if line.strip()][-3:]
            said = f"; its last words: {' | '.join(tail)}" if tail else ""
        self.proc = None
        return how + said

    def request(self, message: dict) -> dict:
        if self.proc is not None and self.proc.poll() is not None:
            how = self._ended()
            if message.get("op") == "step":
                raise MicroRTSError(f"the MicroRTS engine process ended ({how}) during the "
                                    f"game; reset() starts a fresh engine")
        if self.proc is None:
            import tempfile

            self.errors = tempfile.TemporaryFile()
            self.proc = subprocess.Popen([sys.executable, str(WORKER)], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=self.errors,
                                         text=True, bufsize=1)
        try:
            self.proc.stdin.write(json.dumps(message) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except (BrokenPipeError, OSError) as exc:
            self.proc = None
            raise MicroRTSError(f"the MicroRTS engine process died ({exc}); reset() starts a "
                                f"fresh engine") from None
        if not line:
            raise MicroRTSError(f"the MicroRTS engine process ended ({self._ended()}) while "
                                f"answering {message.get('op')!r}; reset() starts a fresh "
                                f"engine")
        answer = self._decode(line)
        if not answer.get("ok"):
            raise MicroRTSError(f"MicroRTS {message.get('op')}: {answer.get('error')}")
        return answer

    def _decode(self, line: str) -> dict:
        """The answer line; a line something else printed is skipped (up to 1,000 of them)."""
        for _ in range(1000):
            try:
                answer = json.loads(line)
                if isinstance(answer, dict):
                    return answer
            except json.JSONDecodeError:
                pass
            line = self.proc.stdout.readline()
            if not line:
                break
        raise MicroRTSError("the MicroRTS engine process gave no answer (its output was not "
                            "the protocol's); reset() starts a fresh engine")

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.stdin.write(json.dumps({"op": "close"}) + "\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
        self.proc = None


#: engine processes free to lend while :func:`shared_engines` is on (None: it is off)
_FREE: Optional[list] = None


@contextlib.contextmanager
def shared_engines():
    """While on, an environment that is closed gives its engine process back, and a new one
    borrows it instead of starting a JVM (about 3 s on a busy 2-core machine). Each game
    still starts clean: ``reset`` sends the map, the opponent and the seed, and the engine
    builds a new game and reseeds its static random fields (the seed test checks a game in a
    reused engine against a fresh one). An engine that died is not lent again. For a test
    session, or a program that plays many short games one after another; at the end every
    free engine is closed."""
    global _FREE
    outermost = _FREE is None
    if outermost:
        _FREE = []
    try:
        yield
    finally:
        if outermost:
            free, _FREE = _FREE, None
            for engine in free:
                engine.close()


def _borrow() -> "_Worker":
    return _FREE.pop() if _FREE else _Worker()


def _give_back(engine: "_Worker") -> None:
    alive = engine.proc is not None and engine.proc.poll() is None
    if _FREE is not None and alive:
        _FREE.append(engine)
    else:
        engine.close()


class MicroRTS:
    """``MicroRTS(map="basesWorkers8x8", opponent="RandomBiasedAI", max_cycles=2000)``."""

    #: the values an option takes, read by ``pddlkit bench`` before a sweep runs (see
    #: :func:`pddlkit.bench.resolve.check_env_options`)
    option_choices = {"opponent": (*OPPONENTS, EXTERNAL)}
    option_help = {"map": "the map (a file name of the engine's maps)",
                   "opponent": "the built-in bot played against",
                   "player": "the side the agent plays, 0 or 1"}

    def __init__(self, map: str = "basesWorkers8x8", opponent: str = "RandomBiasedAI",
                 max_cycles: int = 2000, player: int = 0) -> None:
        self.home = engine_home()
        self.map_path = self.check_options(map, opponent)
        self.map = map
        self.opponent = opponent
        self.max_cycles = int(max_cycles)
        self.player = int(player)
        self.worker = _borrow()
        self.state: dict = {}
        self.metrics: list = []
        self.units_table: list = []
        self.last_rejected: list = []

    @classmethod
    def check_options(cls, map: str = "basesWorkers8x8", opponent: str = "RandomBiasedAI",
                      **_: object) -> str:
        """The map's path, after the map and the opponent are checked as the constructor
        checks them, with no engine started: a sweep checks every cell this way before its
        first game (:func:`pddlkit.bench.resolve.check_cell_names`). ValueError names what is
        wrong and what there is."""
        if opponent not in OPPONENTS and opponent != EXTERNAL:
            raise ValueError(f"unknown opponent {opponent!r}; use one of {', '.join(OPPONENTS)}"
                             f", or {EXTERNAL!r} to play both sides from Python")
        return cls._map(engine_home(), str(map))

    @staticmethod
    def _map(home: Path, name: str) -> str:
        """A map by name (``basesWorkers8x8``, ``8x8/basesWorkers8x8.xml``) among the engine's,
        or a map file of one's own by path (absolute, or ending in ``.xml``)."""
        maps = home / "maps"
        own = Path(name).expanduser()
        if own.is_absolute() or own.suffix == ".xml" and own.is_file():
            if own.is_file():
                return str(own.resolve())
            raise ValueError(f"no MicroRTS map file {name}: give a map name (such as "
                             f"basesWorkers8x8) or the path of a map .xml file")
        candidates = [maps / name, *maps.glob(f"*/{name}.xml"), *maps.glob(f"{name}.xml")]
        for c in candidates:
            if c.is_file():
                return str(c)
        known = sorted(p.stem for p in maps.glob("8x8/*.xml"))
        raise ValueError(f"no MicroRTS map {name!r}; 8x8 maps: {', '.join(known)}")

    # -- environment API -------------------------------------------------------------------
    @property
    def task(self) -> str:
        return (f"Destroy every unit of {SIDES[1 - self.player]} ({self.opponent}) on "
                f"{self.map} within {self.max_cycles} cycles.")

    def reset(self, seed: Optional[int] = None) -> tuple[str, dict]:
        answer = self.worker.request({"op": "start", "home": str(self.home),
                                      "map": self.map_path, "opponent": self.opponent,
                                      "seed": int(seed or 0), "player": self.player})
        self.state, self.units_table = answer["state"], answer["utt"]
        self.metrics = answer["metrics"]
        return self.describe(), self._info()

    def step(self, actions: Sequence[dict] = (), opponent_actions: Sequence[dict] = ()) -> Step:
        """One cycle; ``opponent_actions`` are the other side's, with ``opponent="external"``."""
        answer = self.worker.request({"op": "step", "actions": list(actions),
                                      "opponent_actions": list(opponent_actions)})
        self.state, self.metrics = answer["state"], answer["metrics"]
        self.last_rejected = [(list(actions)[i] if i >= 0 else None, why)
                              for i, why in answer["rejected"]]
        over = self.state["gameover"]
        truncated = not over and self.state["time"] >= self.max_cycles
        reward = 0.0
        if over:
            reward = 1.0 if self.state["winner"] == self.player else \
                (-1.0 if self.state["winner"] >= 0 else 0.0)
        return Step(self.describe(), reward, over, truncated, self._info())

    def _info(self) -> dict:
        return info_dict(won=self.won, steps=self.state.get("time", 0), error=None,
                         admissible=lambda: [], state=self.state,
                         rejected=list(self.last_rejected))

    @property
    def won(self) -> bool:
        return bool(self.state.get("gameover")) and self.state.get("winner") == self.player

    @property
    def done(self) -> bool:
        return bool(self.state.get("gameover")) or self.state.get("time", 0) >= self.max_cycles

    def game_metrics(self) -> GameMetrics:
        return metrics_for(self.state, self.metrics, self.player)

    def play(self, ai0: str, ai1: str, seed: int = 0) -> tuple[dict, list]:
        """A whole game between two built-in bots; (final state, metrics of both players)."""
        for name in (ai0, ai1):
            if name not in OPPONENTS:
                raise ValueError(f"unknown bot {name!r}; use one of {', '.join(OPPONENTS)}")
        answer = self.worker.request({"op": "play", "home": str(self.home),
                                      "map": self.map_path, "ai0": ai0, "ai1": ai1,
                                      "seed": seed, "max_cycles": self.max_cycles})
        return answer["state"], answer["metrics"]

    def close(self) -> None:
        _give_back(self.worker)   # closed, or lent again under shared_engines()
        self.worker = _Worker()   # a later reset starts a fresh engine

    def __enter__(self) -> "MicroRTS":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the battlefield in words ----------------------------------------------------------
    def unit_table_text(self) -> str:
        rows = [f"- {t['name']}: cost {t['cost']}, HP {t['hp']}, damage {t['min_damage']}"
                + (f"-{t['max_damage']}" if t['max_damage'] != t['min_damage'] else "")
                + f", range {t['range']}, build time {t['produce_time']}"
                for t in self.units_table if t["name"] != "Resource"]
        return "\n".join(rows)

    def describe(self, player: Optional[int] = None) -> str:
        """Seed 002's battlefield text: minerals, then each side's resources and units (type,
        position, HP, carried resources, current action), as ``player`` (default: the
        environment's player) sees it; that side is named."""
        player = self.player if player is None else player
        s = self.state
        minerals = [u for u in s["units"] if u["type"] == "Resource"]
        lines = [f"The game map is a {s['width']}x{s['height']} grid; positions are (x, y), x "
                 f"the column from the left and y the row from the top. Game time: "
                 f"{s['time']} of {self.max_cycles} cycles.",
                 f"Available Mineral Fields: {len(minerals)}"]
        lines += [f"- Mineral Field ({u['x']}, {u['y']}) resource: {u['resources']}"
                  for u in minerals]
        walls = s.get("walls") or []
        if walls:   # impassable cells: no unit can move, build or produce onto them
            lines.append("Walls (impassable): " + ", ".join(f"({x}, {y})" for x, y in walls))
        lines.append(f"You are the **{SIDES[player]}** side.")
        for p in (1 - player, player):
            side = SIDES[p].capitalize()
            lines += ["", f"{side}'s Resource: {s['resources'][p]}", f"{side}'s Units:"]
            own = [u for u in s["units"] if u["player"] == p]
            for kind in ("Base", "Barracks", "Worker", "Light", "Heavy", "Ranged"):
                group = [u for u in own if u["type"] == kind]
                lines.append(f"{kind.lower()}: {len(group)}")
                for u in group:
                    carry = f", carrying {u['resources']}" if u["resources"] and \
                        kind == "Worker" else ""
                    stock = f", stock {u['resources']}" if kind == "Base" else ""
                    lines.append(f"- ({u['x']}, {u['y']}), HP {u['hp']}{carry}{stock}, action: "
                                 f"{u['action']}")
        return "\n".join(lines)


__all__ = ["MicroRTS", "MicroRTSError", "MicroRTSMissing", "GameMetrics", "OPPONENTS"]
