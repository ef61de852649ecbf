"""NetHack tasks of seed 000 (CoPiC, Appendix C.1) on the real game through ``nle`` (extra
``nethack``): drink from a sink or fountain, open a box or chest, reach experience level 3 on
the first level. Reward 1 on success, else 0 (the paper's sparse reward).

The paper ran these through NetPlay, which cannot be installed on Python 3.11
(``shared/specs/copic.md`` §5); this adapter is our own layer over NLE with the same idea: a
text rendering of the observation and **named skills** a program calls, each expanded into
NetHack keystrokes here.

- **Game**: NLE's ``NetHackScore-v0`` with the full keyboard (quaff, loot, kick and fight
  need it) and NLE's default character, a neutral male human Monk (the paper's example prompt
  shows a gnomish Ranger; ``character=`` changes it). ``reset(seed)`` seeds NetHack's core and
  display generators, so a seed is the same game every time (``NetHackChallenge-v0`` forbids
  seeding). NetHack itself is 3.6.7 (the paper says 3.6.6).
- **Maps**: plain NetHack places fountains and boxes on the first level only sometimes. Every
  seed is a game, as in the paper (CoPiC's default, ``seeds="all"``); :func:`task_seeds` scans
  for seeds whose first level shows the target, reachable, from the first turn (CoPiC's
  ``seeds="visible-target"``), a much easier set: name it when you report on it. Level 3 needs
  no special map.
- **Success**: *drink* when the game asks "Drink from the fountain/sink?" (or the sink's
  question) and the answer ``y`` is taken; *open-box* when looting a box or chest opens it (the
  game reports it open, empty, or shows its contents) or kicking breaks its lid open; *level 3*
  when the experience level in the status line reaches 3 on dungeon level 1.
- **Budget**: ``max_keys`` keystrokes per episode (600 by default, 2000 for level 3, which
  takes several fights); death ends the episode. Seed 000 does not say its limit. NLE's own
  cap (5000 steps) is set past ``max_keys``, so a larger budget is honoured and the episode
  ends on the last real observation (NLE's own truncation returns a blank one). Level 3 depends on
  it most, since monsters keep appearing as game time passes: the correct stand-in program
  alone reaches level 3 on 15% of seeds at 2000 keys and 45% at 6000 (20 seeds).
- **The observation dict** (the program API) keeps the parts of NetPlay's ``dict_obs`` these
  tasks use: ``Agent Information`` (x, y, game_message), ``Stats``, ``Inventory``,
  ``Features`` (fountains, sinks, stairs, altars... with position and distance), ``Objects``,
  ``Monsters`` and ``Exploration`` (unexplored frontier cells still reachable).
- **Skills**: ``move_to(x, y)``, ``explore()``, ``drink()``, ``loot()``, ``kick(x, y)``,
  ``melee_attack(x, y)``, ``pickup()``, ``search()``, ``rest()``, ``eat(item_letter)``,
  ``finish_task()``; a skill runs
  until done or for at most ``SKILL_KEYS`` keystrokes, and a skill that cannot run says why.
"""

from __future__ import annotations

import signal
import threading
from collections import deque
from dataclasses import dataclass, replace
from typing import Optional

TASKS = ("drink", "open-box", "exp-level-3")
SKILLS = ("move_to", "explore", "drink", "loot", "kick", "melee_attack", "pickup", "search",
          "rest", "eat", "finish_task")
SKILL_KEYS = 40
# NetHack 3.6 map symbols (defsym.h order) that a glyph's cmap index names
WALKABLE_CMAP = {12, 13, 14, 15, 16, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31}
DOORS = {13, 14, 15, 16}   # open or closed doors: no diagonal moves through them
FEATURES = {23: "staircase up", 24: "staircase down", 27: "altar", 28: "grave", 29: "throne",
            30: "sink", 31: "fountain"}
DIRECTIONS = {(0, -1): "k", (1, 0): "l", (0, 1): "j", (-1, 0): "h", (1, -1): "u", (1, 1): "n",
              (-1, 1): "b", (-1, -1): "y"}
HOST_SIGNALS = tuple(getattr(signal, n) for n in ("SIGHUP", "SIGXCPU") if hasattr(signal, n))
OBSERVATION_KEYS = ("glyphs", "blstats", "message", "inv_strs", "inv_letters",
                    "screen_descriptions", "tty_chars")


def own_copy(obs: dict) -> dict:
    """NLE's observation as arrays of our own. NLE fills the same arrays at every step, so
    an observation kept past the next step (the last real one, kept when the game ends) must
    be copied, or NLE's blank final screen overwrites it: a death then read "XP level 0, HP
    0 / 0" in every summary, and a level 3 reached on a game's last key was not counted."""
    return {k: v.copy() if hasattr(v, "copy") else v for k, v in obs.items()}


def _import_nle():
    try:
        import gymnasium
        import nle  # noqa: F401  (registers the NetHack ids)
        from nle import nethack
    except ImportError as exc:
        raise ImportError(f"the NetHack tasks need the nle package ({exc}): pip install "
                          f"'pddlkit[nethack]'") from None
    return gymnasium, nethack


@dataclass
class SkillOutcome:
    reward: float
    done: bool
    won: bool
    keys: int
    message: str
    failure: Optional[str] = None


class NetHackTask:
    """``NetHackTask("drink")``; ``obs, info = env.reset(seed)``;
    ``env.skill({"name": "move_to", "x": 10, "y": 5})``."""

    id = "nethack"
    #: the values an option takes, read by ``pddlkit bench`` before a sweep runs (see
    #: :func:`pddlkit.bench.resolve.check_env_options`)
    option_choices = {"task": TASKS}
    option_help = {"task": "drink, open-box or exp-level-3",
                   "character": "NLE's character string"}
    TASK_TEXT = {"drink": "Find a sink or a fountain and drink from it.",
                 "open-box": "Find a box or a chest and open it.",
                 "exp-level-3": "Upgrade your experience level to 3 on the first dungeon level."}

    def __init__(self, task: str = "drink", seed: Optional[int] = None, *,
                 max_keys: Optional[int] = None, character: str = "mon-hum-neu-mal") -> None:
        if task not in TASKS:
            raise ValueError(f"unknown NetHack task {task!r}; use one of {', '.join(TASKS)}")
        gymnasium, self._nh = _import_nle()
        self.task_name = task
        self.max_keys = max_keys or (2000 if task == "exp-level-3" else 600)
        # NLE truncates at its own max_episode_steps (5000 by default) and then returns a
        # blank observation; every key here is one NLE step, so NLE gets one step more than
        # our budget and ``max_keys`` alone ends the episode, on a real observation (a level
        # reached on the last key counts). It goes in the spec's kwargs:
        # make(max_episode_steps=) would only add gymnasium's TimeLimit
        spec = gymnasium.spec("NetHackScore-v0")
        self.env = gymnasium.make(replace(spec, kwargs={
            **spec.kwargs, "actions": self._nh.ACTIONS, "observation_keys": OBSERVATION_KEYS,
            "character": character, "max_episode_steps": self.max_keys + 1,
            "allow_all_yn_questions": True}))  # else NLE answers "n" itself
        self._key_index = {int(a): i for i, a in enumerate(self.env.unwrapped.actions)}
        # NetHack's end-of-game code (death, or NLE ending the episode) ignores SIGHUP and
        # SIGXCPU in this very process; they are put back when a game ends (see _game_over)
        self._host_signals = {sig: signal.getsignal(sig) for sig in HOST_SIGNALS}
        self.seed = seed
        self.obs: dict = {}
        self.keys = 0
        self.won = False
        self.done = False
        self.memory: dict[tuple[int, int], int] = {}   # position -> last cmap seen there
        self.objects_seen: dict[tuple[int, int], str] = {}  # position -> object last seen

    # -- episode --------------------------------------------------------------------------
    @property
    def task(self) -> str:
        return self.TASK_TEXT[self.task_name]

    def reset(self, seed: Optional[int] = None) -> tuple[str, dict]:
        if seed is not None:
            self.seed = seed
        if self.seed is not None:
            self.env.unwrapped.seed(self.seed, self.seed, False)
        obs, _ = self.env.reset()
        self.obs = own_copy(obs)
        self.keys, self.won, self.done = 0, False, False
        self.memory = {}
        self.objects_seen = {}
        self.locked: set[tuple[int, int]] = set()   # boxes found locked
        self.visited: set[tuple[int, int]] = set()
        self._cache: dict = {}
        self._remember()
        return self.render(), {"won": False, "task": self.task}

    def close(self) -> None:
        self.env.close()

    # -- reading the screen ---------------------------------------------------------------
    @property
    def position(self) -> tuple[int, int]:
        b = self.obs["blstats"]
        return int(b[self._nh.NLE_BL_X]), int(b[self._nh.NLE_BL_Y])

    def message(self) -> str:
        if "message" not in self.obs:   # before the first observation: nothing said yet
            return ""
        return bytes(self.obs["message"]).rstrip(b"\0").decode("latin-1").strip()

    def top_line(self) -> str:
        """The screen's first row: where NetHack asks its y/n questions."""
        return bytes(self.obs["tty_chars"][0]).decode("latin-1").strip()

    def describe(self, x: int, y: int) -> str:
        return bytes(self.obs["screen_descriptions"][y, x]).rstrip(b"\0").decode("latin-1")

    def _cmap(self, x: int, y: int) -> int:
        g = int(self.obs["glyphs"][y, x])
        return self._nh.glyph_to_cmap(g) if self._nh.glyph_is_cmap(g) else -1

    def _remember(self) -> None:
        self._cache = {}
        self.visited.add(self.position)
        glyphs = self.obs["glyphs"]
        for y in range(glyphs.shape[0]):
            for x in range(glyphs.shape[1]):
                c = self._cmap(x, y)
                if c > 0:
                    self.memory[(x, y)] = c
                if c > 0 or c == -1 and not self._nh.glyph_is_monster(int(glyphs[y, x])):
                    self.objects_seen.pop((x, y), None)
                if c == -1:
                    g = int(glyphs[y, x])
                    if self._nh.glyph_is_object(g):
                        self.objects_seen[(x, y)] = self.describe(x, y)
                    if (x, y) not in self.memory and (self._nh.glyph_is_object(g) or
                                                      self._nh.glyph_is_monster(g)):
                        self.memory[(x, y)] = 19  # something stands on floor

    def walkable(self, x: int, y: int) -> bool:
        return self.memory.get((x, y)) in WALKABLE_CMAP

    def status_known(self) -> bool:
        """Whether NLE gave a status line (its blank final observation has none: every
        figure 0). After the first observation the adapter always keeps a real one, so this
        is False only if NLE never gave one; summaries then say "unknown", not "HP 0 / 0"."""
        return bool(self.obs) and any(int(v) for v in self.obs["blstats"])

    def status_text(self) -> str:
        """``XP level 1, dungeon level 1, HP 14 / 14`` for summaries (``unknown`` when NLE
        gave no status, never the zeros of a blank observation)."""
        if not self.status_known():
            return "XP level unknown, dungeon level unknown, HP unknown (NLE gave no status)"
        s = self.stats()
        return f"XP level {s['level']}, dungeon level {s['depth']}, HP {s['HP']}"

    def stats(self) -> dict:
        nh, b = self._nh, self.obs["blstats"]
        return {"HP": f"{int(b[nh.NLE_BL_HP])} / {int(b[nh.NLE_BL_HPMAX])}",
                "depth": int(b[nh.NLE_BL_DEPTH]), "level": int(b[nh.NLE_BL_XP]),
                "exp": int(b[nh.NLE_BL_EXP]), "gold": int(b[nh.NLE_BL_GOLD]),
                "hunger": int(b[nh.NLE_BL_HUNGER]), "time": int(b[nh.NLE_BL_TIME])}

    def inventory(self) -> dict:
        out = {}
        for letter, text in zip(self.obs["inv_letters"], self.obs["inv_strs"]):
            if int(letter):
                out[chr(int(letter))] = bytes(text).rstrip(b"\0").decode("latin-1")
        return out

    def _things(self) -> tuple[list, list, list]:
        """(features, objects, monsters) on screen, each with x, y and distance."""
        nh, glyphs = self._nh, self.obs["glyphs"]
        ax, ay = self.position
        features, objects, monsters = [], [], []
        for y in range(glyphs.shape[0]):
            for x in range(glyphs.shape[1]):
                g = int(glyphs[y, x])
                entry = {"x": x, "y": y, "distance": max(abs(x - ax), abs(y - ay))}
                if (x, y) == (ax, ay):
                    continue
                if nh.glyph_is_monster(g):
                    monsters.append({"name": self.describe(x, y), **entry,
                                     "tame": bool(nh.glyph_is_pet(g))})
                elif nh.glyph_is_object(g):
                    objects.append({"name": self.describe(x, y), **entry})
                elif self._cmap(x, y) in FEATURES:
                    features.append({"name": FEATURES[self._cmap(x, y)], **entry})
        for o in objects:
            o["locked"] = (o["x"], o["y"]) in self.locked
        for found in (features, objects, monsters):
            found.sort(key=lambda e: e["distance"])
        return features, objects, monsters

    def frontier(self) -> list[tuple[int, int]]:
        """Walkable known cells not yet visited and next to unknown ones (doorways and
        corridor ends lead somewhere new), reachable from the agent, nearest first."""
        if "frontier" in self._cache:
            return self._cache["frontier"]
        paths = self._bfs(self.position)
        out = []
        for (x, y), dist in sorted(paths.items(), key=lambda kv: kv[1]):
            if (x, y) in self.visited:
                continue
            if any((x + dx, y + dy) not in self.memory and 0 <= x + dx < 79 and
                   0 <= y + dy < 21 for dx, dy in DIRECTIONS):
                out.append((x, y))
        self._cache["frontier"] = out
        return out

    def observe(self) -> dict:
        """The program API's observation (see the module docstring)."""
        if "observe" not in self._cache:
            self._cache["observe"] = self._observe()
        return self._cache["observe"]

    def _observe(self) -> dict:
        features, objects, monsters = self._things()
        x, y = self.position
        under = FEATURES.get(self.memory.get((x, y)), self.objects_seen.get((x, y), "floor"))
        if (x, y) in self.objects_seen:
            objects.insert(0, {"name": self.objects_seen[(x, y)], "x": x, "y": y,
                               "distance": 0, "locked": (x, y) in self.locked})
        free = [{"x": x + dx, "y": y + dy} for dx, dy in DIRECTIONS
                if self.walkable(x + dx, y + dy) and not (dx and dy and (
                    self.memory.get((x, y)) in DOORS or self.memory.get((x + dx, y + dy))
                    in DOORS))]
        return {"Agent Information": {"x": x, "y": y, "game_message": self.message(),
                                      "standing_on": under, "free_neighbors": free},
                "Stats": self.stats(), "Inventory": self.inventory(), "Features": features,
                "Objects": objects, "Monsters": monsters,
                "Exploration": [{"x": fx, "y": fy} for fx, fy in self.frontier()[:5]],
                "Task": self.task}

    def render(self, radius: int = 8) -> str:
        """The message, the map around the agent (its own row numbers), stats and inventory."""
        ax, ay = self.position
        rows = []
        for y in range(max(1, ay - radius), min(22, ay + radius + 1)):
            line = bytes(self.obs["tty_chars"][y + 1, max(0, ax - 2 * radius):ax + 2 * radius + 1])
            rows.append(f"{y:2d} {line.decode('latin-1').rstrip()}")
        s = self.stats()
        inv = "; ".join(f"{k}: {v}" for k, v in self.inventory().items())
        return (f"Message: {self.message() or '(none)'}\n" + "\n".join(rows) +
                f"\nYou are at x={ax}, y={ay}. HP {s['HP']}, XP level {s['level']}, dungeon "
                f"level {s['depth']}, turn {s['time']}.\nInventory: {inv}")

    # -- primitive keys -------------------------------------------------------------------
    def _key(self, key: str) -> None:
        if self.done:
            return
        self._step(key)
        self._remember()
        self._dismiss()

    def _step(self, key: str) -> None:
        """One key to NLE: it counts against the budget, and NLE's end of the game is ours."""
        obs, _, terminated, truncated, _ = self.env.step(self._key_index[ord(key)])
        if not (terminated or truncated) or any(int(v) for v in obs["blstats"]):
            # NLE's final observation can be blank: keep the last real one, as a copy (NLE
            # writes every observation into the same arrays, so a kept reference would be
            # blanked too, and a game that ended in death read "HP 0 / 0, XP level 0")
            self.obs = own_copy(obs)
        self.keys += 1
        if terminated or truncated:
            self._game_over()
        self.done = terminated or truncated or self.keys >= self.max_keys

    def _dismiss(self) -> None:
        """Page through --More-- prompts (they need a key before anything else)."""
        for _ in range(8):
            screen = bytes(self.obs["tty_chars"]).decode("latin-1")
            if "--More--" not in screen or self.done:
                return
            self._step("\r")

    def _game_over(self) -> None:
        """Put back the signal dispositions NetHack's end of game changed in this process: a
        host that ignores SIGXCPU passes that on to every process it starts (the sandbox's
        workers set their own), and one that ignores SIGHUP outlives its terminal. Python
        sets handlers only from the main thread; elsewhere they stay as NetHack left them."""
        if threading.current_thread() is not threading.main_thread():
            return
        for sig, handler in self._host_signals.items():
            if handler is not None:
                signal.signal(sig, handler)

    def _bfs(self, start: tuple[int, int]) -> dict[tuple[int, int], int]:
        dist = {start: 0}
        queue = deque([start])
        while queue:
            x, y = queue.popleft()
            for dx, dy in DIRECTIONS:
                nxt = (x + dx, y + dy)
                if nxt in dist or not self.walkable(*nxt):
                    continue
                if dx and dy and (self.memory.get((x, y)) in DOORS or
                                  self.memory.get(nxt) in DOORS):
                    continue
                dist[nxt] = dist[(x, y)] + 1
                queue.append(nxt)
        return dist

    def path_to(self, goal: tuple[int, int]) -> Optional[list[str]]:
        """Direction keys from the agent to ``goal`` over known walkable cells, or None."""
        start = self.position
        if goal == start:
            return []
        back: dict = {start: None}
        queue = deque([start])
        while queue:
            cur = queue.popleft()
            if cur == goal:
                break
            x, y = cur
            for (dx, dy), key in DIRECTIONS.items():
                nxt = (x + dx, y + dy)
                if nxt in back or not (self.walkable(*nxt) or nxt == goal):
                    continue
                if dx and dy and (self.memory.get(cur) in DOORS or
                                  self.memory.get(nxt) in DOORS):
                    continue
                back[nxt] = (cur, key)
                queue.append(nxt)
        if goal not in back:
            return None
        keys, cur = [], goal
        while back[cur] is not None:
            cur, key = back[cur]
            keys.append(key)
        return keys[::-1]

    # -- skills ---------------------------------------------------------------------------
    def skill(self, call: dict) -> SkillOutcome:
        """Run one skill call (``{"name": "move_to", "x": 3, "y": 7}``)."""
        if self.done or self.won:
            raise RuntimeError("the episode is over: call reset()")
        name = call.get("name") if isinstance(call, dict) else None
        before = self.keys
        failure = None
        if name not in SKILLS:
            failure = f"unknown skill {name!r}; skills: {', '.join(SKILLS)}"
        else:
            failure = getattr(self, f"_skill_{name}")(call)
        if not self.won and self.task_name == "exp-level-3":
            s = self.stats()
            self.won = s["level"] >= 3 and s["depth"] == 1
        return SkillOutcome(1.0 if self.won else 0.0, self.done or self.won, self.won,
                            self.keys - before, self.message(), failure)

    def _walk(self, keys: list[str]) -> Optional[str]:
        moves = {k: d for d, k in DIRECTIONS.items()}
        for key in keys[:SKILL_KEYS]:
            x, y = self.position
            self._key(key)
            if self.done:
                return None
            if self.position == (x, y):
                dx, dy = moves[key]
                target = (x + dx, y + dy)
                if not self._nh.glyph_is_monster(int(self.obs["glyphs"][target[1], target[0]])):
                    self.memory[target] = 0   # a boulder, a locked door: not a way through
                    self._cache = {}
                return f"blocked at x={x}, y={y}: {self.message()}"
        return None

    def _target(self, call: dict) -> Optional[tuple[int, int]]:
        try:
            return int(call["x"]), int(call["y"])
        except (KeyError, TypeError, ValueError):
            return None

    def _skill_move_to(self, call: dict) -> Optional[str]:
        goal = self._target(call)
        if goal is None:
            return "move_to needs integer x and y"
        path = self.path_to(goal)
        if path is None:
            return f"no known path to x={goal[0]}, y={goal[1]}"
        return self._walk(path)

    def _skill_explore(self, call: dict) -> Optional[str]:
        for cell in self.frontier():
            if cell != self.position:
                return self._walk(self.path_to(cell) or [])
        for _ in range(5):   # nothing left to walk to: look for hidden passages
            self._key("s")
        return None

    def _skill_drink(self, call: dict) -> Optional[str]:
        under = self.memory.get(self.position)
        if under not in (30, 31):
            return "there is no sink or fountain here"
        self._key("q")
        if "Drink from the" in self.top_line() + self.message():
            self._key("y")
            self.won = self.task_name == "drink"
            return None
        self._key("\x1b")
        return f"the game did not offer to drink from the {FEATURES[under]}"

    def _skill_loot(self, call: dict) -> Optional[str]:
        self._key(chr(236))  # M-l: #loot
        text = self.top_line() + " " + self.message()
        if "loot it?" not in text and "Loot" not in text:
            self._key("\x1b")
            return f"nothing to loot here: {text}"
        self._key("y")
        text = " ".join(bytes(row).decode("latin-1") for row in self.obs["tty_chars"])
        if "locked" in text:
            self.locked.add(self.position)
            return "it is locked: kick it open"
        if self.task_name == "open-box" and any(
                w in text for w in ("You carefully open", "is empty", "Do what with",
                                    "Take something out", "Put something into", "o - ")):
            self.won = True
        self._key("\x1b")
        return None

    def _skill_kick(self, call: dict) -> Optional[str]:
        goal = self._target(call)
        x, y = self.position
        if goal is None or max(abs(goal[0] - x), abs(goal[1] - y)) != 1:
            return "kick needs x, y next to the agent"
        self._key(chr(4))   # ^D: kick
        self._key(DIRECTIONS[(goal[0] - x, goal[1] - y)])
        text = self.message().lower()
        if self.task_name == "open-box" and ("break open the lock" in text or
                                             "lid" in text and "open" in text):
            self.won = True
            self.locked.discard(goal)
        return None

    def _skill_melee_attack(self, call: dict) -> Optional[str]:
        goal = self._target(call)
        if goal is None:
            return "melee_attack needs x and y"
        for _ in range(SKILL_KEYS // 2):
            x, y = self.position
            d = (goal[0] - x, goal[1] - y)
            if max(abs(d[0]), abs(d[1])) != 1:
                path = self.path_to(goal)
                if not path or len(path) < 2:
                    return "no path to the monster"
                self._walk(path[:-1])
                continue
            if not self._nh.glyph_is_monster(int(self.obs["glyphs"][goal[1], goal[0]])):
                return None  # it is gone (dead or fled)
            self._key("F")
            self._key(DIRECTIONS[d])
            if self.done:
                return None
        return None

    def _skill_pickup(self, call: dict) -> Optional[str]:
        self._key(",")
        self._key("\x1b")
        return None

    def _skill_search(self, call: dict) -> Optional[str]:
        for _ in range(5):
            self._key("s")
        return None

    _skill_rest = _skill_search  # five turns in place: NetHack's "s" both searches and waits

    def _skill_eat(self, call: dict) -> Optional[str]:
        letter = str(call.get("item_letter", ""))
        if letter not in self.inventory():
            return f"no item {letter!r} in the inventory"
        self._key("e")
        self._key(letter)
        return None

    def _skill_finish_task(self, call: dict) -> Optional[str]:
        return None if self.won else "the task is not done yet"


def task_seeds(task: str, count: int = 10, start: int = 0, limit: int = 400) -> list[int]:
    """Seeds whose first level shows, from the first turn, what ``task`` needs (a fountain or
    sink for drink, a box or chest for open-box); every seed for level 3."""
    if task == "exp-level-3":
        return list(range(start, start + count))
    words = ("fountain", "sink") if task == "drink" else ("box", "chest")
    env = NetHackTask(task)
    seeds = []
    try:
        for seed in range(start, start + limit):
            env.reset(seed)
            sd = env.obs["screen_descriptions"]
            names = {bytes(cell).rstrip(b"\0").decode("latin-1") for row in sd for cell in row}
            target = [n for n in names if any(w in n for w in words)]
            features, objects, _ = env._things() if target else ([], [], [])
            if any(env.path_to((e["x"], e["y"])) is not None for e in features + objects
                   if any(w in e["name"] for w in words)):
                seeds.append(seed)
            if len(seeds) == count:
                break
    finally:
        env.close()
    return seeds


def scripted_drink(env: NetHackTask) -> bool:
    """Walk to the nearest fountain or sink in view and drink (the check that the adapter and
    its skills play a real game)."""
    for _ in range(20):
        if env.won or env.done:
            break
        obs = env.observe()
        places = [f for f in obs["Features"] if f["name"] in ("fountain", "sink")]
        x, y = obs["Agent Information"]["x"], obs["Agent Information"]["y"]
        if obs["Agent Information"]["standing_on"] in ("fountain", "sink"):
            env.skill({"name": "drink"})
        elif places:
            env.skill({"name": "move_to", "x": places[0]["x"], "y": places[0]["y"]})
        else:
            env.skill({"name": "explore"})
        if (x, y) == env.position and not env.won and places:
            env.skill({"name": "search"})
    return env.won


__all__ = ["NetHackTask", "TASKS", "SKILLS", "task_seeds", "scripted_drink"]
