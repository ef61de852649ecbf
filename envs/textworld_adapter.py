"""Real TextWorld games through pddlkit's text-environment API (extra ``textworld``).

``TextWorldEnv(game="coin", level=5, seed=0)`` builds the game ``tw-make tw-coin_collector``
would (rooms, no doors); ``game="simple"`` builds ``tw-make tw-simple`` (doors, keys,
containers); ``game="path/to/game.z8"`` plays a compiled game. Games are generated once per
(kind, options, seed) into ``$PDDLKIT_CACHE_DIR/textworld``.

The walkthrough is kept out of what the agent sees: TextWorld's opening text spells the
solution out ("First off, venture north. And then, ..."), so the first observation starts at
the room description, and ``task`` is a short goal sentence (coin: "find the coin and take
it."; simple: TextWorld's brief objective).

Why a shim: TextWorld imports ``fast_downward.Atom`` and friends at import time, from its own
``fast-downward-textworld`` build, while pddlkit's planners use the ``fast_downward.translate``
namespace from up-fast-downward; both live at ``fast_downward`` and cannot be installed
together. The Inform7 games used here never touch TextWorld's PDDL engine, so before importing
TextWorld the adapter gives the namespace placeholder classes that fail loudly if ever used.

PDDL: a coin game (rooms joined by open exits) is CoinCollector without doors, so its
``action_schema`` is CoinCollector's ``move`` and ``take`` with TextWorld's commands
(``move(?from ?to ?dir) <-> "go {dir}"``), ``domain`` is CoinCollector's ground-truth domain,
and ``commands_for_plan`` maps a plan to commands: a formalizer plays it like the native one.
Other games expose TextWorld's own command templates (``command_templates``) as the schema.

snapshot()/restore(): a snapshot is the seed and the commands since reset, and the running
game's state (:mod:`.textworld_state`: the interpreter's memory through Jericho and what each
TextWorld wrapper's step changes). Restore puts that state back in place when the same game
is loaded, and otherwise resets and replays the commands (TextWorld games are deterministic;
a replayed command costs what a played one does, which made restores most of an explorer's
time). TextWorld's own ``copy()`` was tried and was slower (about 90 ms a copy: a new
interpreter each time).
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from . import textworld_state
from .api import ActionTemplate, Step, info_dict

GAMES = ("coin", "simple")
COIN_SCHEMA = (ActionTemplate("move", ("?from", "?to", "?dir"), "go {dir}"),
               ActionTemplate("take", ("?i", "?r"), "take {i}"))
_FAILURE = re.compile(r"^(You can't|That's not a verb I recognise|I didn't understand|"
                      r"You need to|You don't|You aren't|That's not something|"
                      r"You can only|I only understood|You see no such thing|"
                      r"You have to|It's already|That's already)", re.I)
_INFO = ("look", "inventory")


class TextWorldUnavailable(ImportError):
    pass


def _import_textworld():
    try:
        import fast_downward
    except ImportError:
        fast_downward = None
    if fast_downward is not None and not hasattr(fast_downward, "Atom"):
        class _Unavailable:
            def __init__(self, *args, **kwargs):
                raise TextWorldUnavailable(
                    "TextWorld's PDDL engine needs fast-downward-textworld, which cannot be "
                    "installed beside up-fast-downward; pddlkit plays Inform7 games only")

        fast_downward.Atom = type("Atom", (_Unavailable,), {})
        fast_downward.Operator = type("Operator", (_Unavailable,), {})
        fast_downward.load_lib = _Unavailable
        fast_downward.pddl2sas = _Unavailable
    try:
        import textworld
        import textworld.challenges  # noqa: F401  (registers tw-coin_collector, tw-simple)
    except ImportError as exc:
        raise TextWorldUnavailable(
            f"the TextWorld adapter needs the textworld package ({exc}); "
            "pip install 'pddlkit[textworld]'") from None
    return textworld


def games_dir() -> Path:
    from pddlkit.llm.cache import cache_dir

    return cache_dir() / "textworld"


def make_game(game: str, seed: int, level: int = 5, out_dir: Optional[Path] = None) -> Path:
    """Generate and compile a game as ``tw-make`` would; reuses it when already built."""
    textworld = _import_textworld()
    out_dir = Path(out_dir or games_dir())
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"coin-l{level}-s{seed}" if game == "coin" else f"simple-s{seed}"
    target = out_dir / f"{stem}.z8"
    if target.exists():
        return target
    # built in a folder of its own and moved in with the .z8 last: another process generating
    # the same game (a sweep's workers, parallel tests) never reads a half-written file
    with tempfile.TemporaryDirectory(prefix=f".{stem}-", dir=out_dir) as scratch:
        built = _compile(textworld, game, seed, level, Path(scratch) / target.name)
        for path in sorted(built.parent.iterdir(), key=lambda p: p.suffix == ".z8"):
            os.replace(path, out_dir / path.name)   # coin-l5-s0.json, .ni, then .z8
    return target


def _compile(textworld, game: str, seed: int, level: int, target: Path) -> Path:
    from textworld.challenges import coin_collector, simple

    options = textworld.GameOptions()
    options.seeds = seed
    options.path = str(target)
    options.force_recompile = True
    options.file_ext = ".z8"
    if game == "coin":
        made = coin_collector.make({"level": level}, options=options)
    elif game == "simple":
        made = simple.make({"rewards": "dense", "goal": "brief", "test": False},
                           options=options)
    else:
        raise ValueError(f"unknown TextWorld game kind {game!r}; use one of {GAMES} or a "
                         "path to a compiled game")
    compiled = Path(textworld.generator.compile_game(made, options))
    if compiled != target:
        compiled.replace(target)
    return target


@dataclass(frozen=True)
class TextWorldSnapshot:
    seed: Optional[int]
    history: tuple[str, ...]
    won: bool = False
    #: the game file running when it was taken, and its state there (``None``: replayed)
    game: Optional[Path] = field(default=None, compare=False)
    engine: Optional[textworld_state.EngineState] = field(default=None, compare=False,
                                                          repr=False)


class TextWorldEnv:
    """A TextWorld game (tw-coin_collector, tw-simple, or a compiled file) as a TextEnv."""

    id = "textworld"

    option_bounds = {"level": (1, None)}
    option_help = {"game": "coin (tw-coin_collector), simple (tw-simple), or a compiled game "
                           "file",
                   "level": "the generated game's level",
                   "out_dir": "where generated games are kept (default: a temporary folder)"}

    def __init__(self, game: str = "coin", level: int = 5, seed: Optional[int] = 0, *,
                 max_steps: int = 100, out_dir: Optional[str] = None) -> None:
        self._textworld = _import_textworld()
        self.kind = game if game in GAMES else "file"
        self.path = None if game in GAMES else Path(game)
        if self.path is not None and not self.path.is_file():
            raise FileNotFoundError(f"no compiled TextWorld game at {game}")
        self.level = level
        self.seed = seed
        self.max_steps = max_steps
        self.out_dir = Path(out_dir) if out_dir else None
        self._env = None
        self._loaded: Optional[Path] = None
        self.history: list[str] = []
        self.task = ""
        self.won = False
        self.action_schema: tuple[ActionTemplate, ...] = ()
        self.command_templates: tuple[ActionTemplate, ...] = ()
        self._last = None
        #: the coin games' admissible commands are every command the game would take now
        #: (:mod:`pddlkit.envs.api`): checked on dev seeds 0-2, every "go" to each of the
        #: four directions and "take coin" at each step of a random walk, 180 commands, the
        #: listed ones all taken and the others all refused
        #: (``tests/test_envs_textworld.py``); the other games' lists are not checked
        self.admissible_complete = self.kind == "coin"
        #: the coin games' commands are CoinCollector's (``move {dir}``, ``take {i}``), so
        #: ``--reuse-domain`` plays a domain learned there (:mod:`pddlkit.envs.api`)
        self.learned_domains_of = "coin-collector" if self.kind == "coin" else None
        if self.kind == "coin":
            from pddlkit.envs.coin_collector import ground_truth_domain

            self.domain = ground_truth_domain()

    def _game_path(self) -> Path:
        if self.path is not None:
            return self.path
        return make_game(self.kind, self.seed or 0, self.level, self.out_dir)

    def _open(self) -> None:
        path = self._game_path()
        if self._env is not None and self._loaded == path:
            return
        if self._env is not None:
            self._env.close()
        tw = self._textworld
        infos = tw.EnvInfos(admissible_commands=True, won=True, lost=True, objective=True,
                            command_templates=True, max_score=True)
        self._env = tw.start(str(path), request_infos=infos)
        self._loaded = path

    def reset(self, seed: Optional[int] = None) -> tuple[str, dict]:
        if seed is not None:
            self.seed = seed
        self._open()
        state = self._env.reset()
        self.history = []
        self.won = bool(state.get("won"))
        self._last = state
        templates = state.get("command_templates") or []
        self.command_templates = tuple(ActionTemplate(t, tuple(re.findall(r"\{(\w+)\}", t)), t)
                                       for t in templates)
        self.action_schema = COIN_SCHEMA if self.kind == "coin" else self.command_templates
        if self.kind == "coin":
            self.task = "find the coin and take it."
        else:
            self.task = " ".join((state.get("objective") or "").split())
        obs = _strip_intro(state.feedback)
        return obs, info_dict(self.won, 0, None, self.admissible_commands)

    def step(self, command: str) -> Step:
        if self._env is None:
            raise RuntimeError("call reset() before step()")
        if self.won or len(self.history) >= self.max_steps:
            return Step("The episode is over; call reset().", 0.0, self.won, not self.won,
                        info_dict(self.won, len(self.history), "episode-over", lambda: []))
        state, reward, done = self._env.step(command)
        self.history.append(command)
        self._last = state
        self.won = bool(state.get("won"))
        text = clean(state.feedback)
        error = "failed" if _FAILURE.match(text) else None
        truncated = not self.won and len(self.history) >= self.max_steps
        return Step(text, 1.0 if self.won else 0.0, self.won or bool(state.get("lost")),
                    truncated, info_dict(self.won, len(self.history), error,
                                         self.admissible_commands, lost=bool(state.get("lost")),
                                         score=reward))

    def commands_for_plan(self, plan) -> list[str]:
        """The commands of a plan over ``action_schema`` (coin games: move and take)."""
        by_name = {t.action: t for t in self.action_schema}
        steps = getattr(plan, "steps", plan)
        out = []
        for step in steps:
            name, args = (step.name, step.args) if hasattr(step, "name") else (step[0], step[1:])
            if name not in by_name:
                raise KeyError(f"no command for the action {name!r}")
            out.append(by_name[name].command(args, lambda s: s.replace("_", " ")))
        return out

    def admissible_commands(self) -> list[str]:
        return list((self._last or {}).get("admissible_commands") or [])

    def snapshot(self) -> "TextWorldSnapshot":
        engine = textworld_state.take(self._env, self._last) if self._env is not None else None
        return TextWorldSnapshot(self.seed, tuple(self.history), self.won,
                                 self._loaded if engine is not None else None, engine)

    def restore(self, snapshot: "TextWorldSnapshot") -> None:
        """Put the snapshot's game state back when its game is the one loaded; else reset
        to its seed and replay its commands (games are deterministic)."""
        if snapshot.engine is not None and self._env is not None \
                and snapshot.game == self._loaded:
            self._last = textworld_state.put(self._env, snapshot.engine)
            self.seed = snapshot.seed
            self.history = list(snapshot.history)
            self.won = snapshot.won
            return
        self.reset(snapshot.seed)
        for command in snapshot.history:
            self._last = self._env.step(command)[0]
            self.history.append(command)
        self.won = snapshot.won

    def close(self) -> None:
        if self._env is not None:
            self._env.close()
            self._env = None


def _strip_intro(feedback: str) -> str:
    """Drop TextWorld's banner and the objective (which spells out the walkthrough)."""
    m = re.search(r"^-= .+ =-\s*$", feedback, re.M)
    return clean(feedback[m.start():] if m else feedback)


def clean(text: str) -> str:
    """Drop the interpreter's prompt and status line ('>', '-= Room =-0/1') from feedback."""
    lines = [ln.rstrip() for ln in text.splitlines()]
    return "\n".join(ln for ln in lines if ln.strip() and not ln.lstrip().startswith(">"))
