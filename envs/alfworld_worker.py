"""The ALFWorld side of :class:`pddlkit.envs.alfworld_adapter.ALFWorldEnv`: one game, driven
over a JSON-lines pipe.

Why a separate interpreter: ALFWorld plays through TextWorld's PDDL engine, which needs
``fast-downward-textworld``; that package installs a top-level ``fast_downward`` package with
its own (2020) translator, over the ``fast_downward.translate`` namespace that pddlkit's
planners import. The two cannot share a site-packages, so ALFWorld lives in its own venv
(``make alfworld`` builds ``.venv-alfworld``) and this script runs there. It imports nothing
of pddlkit: :mod:`alfworld_games` is loaded from beside this file.

Protocol: one JSON object per line each way. Requests ``{"op": "reset", "floorplan", "task",
"seed", "games_dir"}``, ``{"op": "step", "command"}``, ``{"op": "close"}``; every answer has
``ok``; a failure is ``{"ok": false, "error": "...", "kind": "ValueError"}`` and the worker
stays up. Anything the libraries print goes to stderr, so stdout carries only answers.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import traceback
from pathlib import Path


#: translations kept by :func:`_remember_translations` (a game's two, for a few games)
TRANSLATIONS_KEPT = 8


def _remember_translations() -> None:
    """Make TextWorld's PDDL-to-SAS translation remember its answers in this process.

    Why: every ``reset`` builds a new ``PddlState``, which translates the game's domain and
    problem with Fast Downward's translator twice (plain and optimized): 0.75 s of a 0.9 s
    reset, and the host resets on every ``restore`` (PDDLego+ puts the world back after a
    failed plan). The translation is a function of its texts and options, and ``PddlState``
    only reads the task it returns, so the same texts get the same objects back; the game
    state itself is loaded into TextWorld's planner library afresh by each reset."""
    import fast_downward

    translate = fast_downward.pddl2sas
    if getattr(translate, "remembers", False):
        return
    kept: dict = {}

    def pddl2sas(domain: str, problem: str, verbose: bool = False, optimize=False):
        key = (domain, problem, bool(verbose), bool(optimize))
        if key not in kept:
            if len(kept) >= TRANSLATIONS_KEPT:
                kept.pop(next(iter(kept)))
            kept[key] = translate(domain, problem, verbose=verbose, optimize=optimize)
        return kept[key]

    pddl2sas.remembers = True
    fast_downward.pddl2sas = pddl2sas


def _load_games():
    path = Path(__file__).with_name("alfworld_games.py")
    spec = importlib.util.spec_from_file_location("alfworld_games", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Game:
    """One loaded game: TextWorld's PddlEnv with ALFWorld's entity names ("apple 1")."""

    def __init__(self) -> None:
        import textworld
        from textworld.envs import PddlEnv
        from alfworld.agents.environment.alfred_tw_env import AlfredDemangler

        self.games = _load_games()
        _remember_translations()
        infos = textworld.EnvInfos(admissible_commands=True, won=True)
        self.env = AlfredDemangler(PddlEnv(infos), shuffle=False)
        self.loaded = None

    def reset(self, floorplan, task: str, seed: int, games_dir: str) -> dict:
        full = self.games.task_type(task)
        out = Path(games_dir)
        out.mkdir(parents=True, exist_ok=True)
        stem = f"v{self.games.VERSION}-{'any' if floorplan is None else floorplan}-{full}-s{seed}"
        path = out / f"{stem}.tw-pddl"
        if path.is_file():
            data = json.loads(path.read_text())
        else:
            data = self.games.make_game(floorplan, full, seed)
            tmp = path.with_suffix(f".tmp{os.getpid()}")
            tmp.write_text(json.dumps(data))
            tmp.replace(path)
        if self.loaded != path:
            self.env.load(str(path))
            self.loaded = path
        state = self.env.reset()
        names = {eid: info.name for eid, info in self.env._entity_infos.items()
                 if info.name and info.name.strip()}
        return {"observation": state.feedback, "won": bool(state["won"]),
                "admissible": list(state["admissible_commands"]),
                "names": {k: v.strip() for k, v in names.items()},
                "game": data["pddlkit"], "path": str(path),
                "domain": data["pddl_domain"], "problem": data["pddl_problem"]}

    def step(self, command: str) -> dict:
        state, _, _ = self.env.step(command)
        action = state.get("_last_action")
        return {"observation": state.feedback, "won": bool(state["won"]),
                "admissible": list(state["admissible_commands"]),
                "action": action.name if action is not None else None}


def main() -> None:
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    sys.stdout = sys.stderr  # library prints must not corrupt the protocol
    game = None
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            op = request.get("op")
            if op == "close":
                answers.write(json.dumps({"ok": True}) + "\n")
                break
            if op == "ping":
                answers.write(json.dumps({"ok": True, "python": sys.version.split()[0]}) + "\n")
                continue
            if game is None:
                game = Game()
            if op == "reset":
                result = game.reset(request.get("floorplan"), request["task"],
                                    int(request.get("seed", 0)), request["games_dir"])
            elif op == "step":
                if game.loaded is None:
                    raise RuntimeError("step before reset")
                result = game.step(str(request["command"]))
            else:
                raise ValueError(f"unknown op {op!r}")
            answers.write(json.dumps({"ok": True, **result}) + "\n")
        except Exception as exc:  # the host turns this into a clear error; the worker lives on
            traceback.print_exc(file=sys.stderr)
            answers.write(json.dumps({"ok": False, "error": str(exc),
                                      "kind": type(exc).__name__}) + "\n")


if __name__ == "__main__":
    main()
