"""The MicroRTS side of :class:`pddlkit.envs.microrts.MicroRTS`: the real engine (``microrts.jar``
through JPype) in its own process, driven over a JSON-lines pipe.

Why a separate process: a JVM cannot be stopped and started again in one process, starts threads
that a later ``fork`` (the bench harness's process pool) would copy half-alive, and prints Java
stack traces on its own; here it lives and dies with this worker, and the host reads only
answers. This script imports nothing of pddlkit.

Protocol: one JSON object per line each way; every answer has ``ok``; a failure is ``{"ok":
false, "error": "...", "kind": "..."}`` and the worker stays up.

- ``{"op": "start", "home", "map", "opponent", "seed", "player"}``: load the map, make the
  opponent AI (seeded where it draws random numbers; ``"external"``: the other side is played
  from Python too), answer the state and the unit table;
- ``{"op": "step", "actions": [{"unit", "type", "direction", "unit_type", "x", "y"}, ...],
  "opponent_actions": [...]}``: issue the player's actions that the engine allows (the others
  come back in ``rejected`` with the reason), let the opponent act (its AI, or the
  ``opponent_actions`` of an external opponent), advance one cycle, answer the state;
- ``{"op": "play", "home", "map", "ai0", "ai1", "seed", "max_cycles"}``: a whole bot-vs-bot
  game inside the worker, answering winner, cycles and metrics;
- ``{"op": "close"}``.

A state is ``{"time", "width", "height", "resources": [p0, p1], "units": [{"id", "type",
"player", "x", "y", "hp", "resources", "action"[, "producing"]}], "walls": [[x, y], ...], "gameover",
"winner"}`` (walls: the map's wall cells, which nothing can enter); ``metrics`` per
player: units produced, resources spent, damage dealt and taken, and the resources held at the
start (for harvested = now + spent - start), all read from the engine's units cycle by cycle.
"""

from __future__ import annotations

import json
import os
import random
import sys
import traceback

AIS = {
    "RandomBiasedAI": ("ai.RandomBiasedAI", "utt"),
    "RandomAI": ("ai.RandomAI", "utt"),
    "PassiveAI": ("ai.PassiveAI", "utt"),
    "WorkerRush": ("ai.abstraction.WorkerRush", "utt"),
    "LightRush": ("ai.abstraction.LightRush", "utt"),
    "HeavyRush": ("ai.abstraction.HeavyRush", "utt"),
    "RangedRush": ("ai.abstraction.RangedRush", "utt"),
    "NaiveMCTS": ("ai.mcts.naivemcts.NaiveMCTS", "utt"),
    "CoacAI": ("ai.coac.CoacAI", "utt"),
}
ACTION_TYPES = {"noop": 0, "move": 1, "harvest": 2, "return": 3, "produce": 4, "attack": 5}
ACTION_NAMES = {v: k for k, v in ACTION_TYPES.items()}


class Engine:
    def __init__(self) -> None:
        self.jvm = None
        self.gs = None
        self.opponent = None
        self.player = 0

    # -- the JVM ---------------------------------------------------------------------------
    def boot(self, home: str) -> None:
        if self.jvm is not None:
            return
        import jpype
        import jpype.imports  # noqa: F401  (enables "from rts import ...")

        jpype.startJVM(classpath=[f"{home}/microrts.jar", f"{home}/Coac.jar"],
                       convertStrings=True)
        self.jvm = jpype
        # bots print to System.out (CoacAI's warnings); stdout carries only answers
        System = jpype.JClass("java.lang.System")
        System.setOut(System.err)
        from rts.units import UnitTypeTable

        self.utt = UnitTypeTable()

    def make_ai(self, name: str, seed: int):
        if name not in AIS:
            raise ValueError(f"unknown opponent {name!r}; known: {', '.join(AIS)}")
        cls = self.jvm.JClass(AIS[name][0])
        ai = cls(self.utt)
        self._seed(ai, seed)
        return ai

    def static_randoms(self, home: str) -> list:
        """Every static ``java.util.Random`` field of the engine's and bots' classes (found
        once, by reading the jars' class lists). They are shared by every game in this JVM
        (``util.Sampler``, ``GameState.r``, ``UnitAction.r``, ...), so a seed given to the bots
        alone left games irreproducible: :meth:`seed_statics` reseeds them at each game."""
        if getattr(self, "_statics", None) is not None:
            return self._statics
        import zipfile

        Modifier = self.jvm.JClass("java.lang.reflect.Modifier")
        Class = self.jvm.JClass("java.lang.Class")
        loader = self.jvm.JClass("java.lang.ClassLoader").getSystemClassLoader()
        jars = [f"{home}/{jar}" for jar in ("microrts.jar", "Coac.jar")
                if os.path.isfile(f"{home}/{jar}")]
        stamp = [[j, os.path.getsize(j)] for j in jars]
        listing = os.path.join(home, "static-randoms.json")  # the scan is ~2 s: kept
        try:
            with open(listing) as fh:
                saved = json.load(fh)
            names = saved["fields"] if saved.get("jars") == stamp else None
        except (OSError, ValueError, KeyError):
            names = None
        if names is None:
            names = []
            for jar in jars:
                try:
                    entries = zipfile.ZipFile(jar).namelist()
                except (OSError, zipfile.BadZipFile):
                    continue
                for name in entries:
                    if not name.endswith(".class") or "$" in name:
                        continue
                    try:
                        cls = Class.forName(name[:-6].replace("/", "."), False, loader)
                        fields = cls.getDeclaredFields()
                    except Exception:  # noqa: BLE001 - a class that cannot load: no field
                        continue
                    names += [[str(cls.getName()), str(f.getName())] for f in fields
                              if f.getType().getName() == "java.util.Random"
                              and Modifier.isStatic(f.getModifiers())]
            try:
                with open(listing, "w") as fh:
                    json.dump({"jars": stamp, "fields": names}, fh)
            except OSError:
                pass
        found = []
        for class_name, field_name in dict.fromkeys(map(tuple, names)):  # Coac.jar repeats some
            try:
                found.append(Class.forName(class_name, False, loader)
                             .getDeclaredField(field_name))
            except Exception:  # noqa: BLE001
                continue
        self._statics = found
        return found

    def seed_statics(self, home: str, seed: int) -> None:
        """Reseed every static Random field (see :meth:`static_randoms`), each its own stream."""
        Random = self.jvm.JClass("java.util.Random")
        for k, f in enumerate(self.static_randoms(home)):
            try:
                f.setAccessible(True)
                current = f.get(None)
                if current is not None:
                    current.setSeed(seed * 1_000_003 + k)
                else:
                    f.set(None, Random(seed * 1_000_003 + k))
            except Exception:  # noqa: BLE001 - a final field not yet set: nothing to seed
                continue

    def _seed(self, obj, seed: int) -> None:
        """Seed every java.util.Random field of ``obj`` (its class and superclasses)."""
        Random = self.jvm.JClass("java.util.Random")
        cls = obj.getClass()
        while cls is not None:
            for f in cls.getDeclaredFields():
                if f.getType().getName() == "java.util.Random":
                    f.setAccessible(True)
                    if not self.jvm.JClass("java.lang.reflect.Modifier").isStatic(
                            f.getModifiers()):
                        f.set(obj, Random(seed))
            cls = cls.getSuperclass()

    def load(self, home: str, map_path: str):
        from rts import GameState, PhysicalGameState

        pgs = PhysicalGameState.load(map_path, self.utt)
        # the terrain never changes during a game: read once (a JVM call per cell)
        self.walls = [[x, y] for y in range(int(pgs.getHeight()))
                      for x in range(int(pgs.getWidth()))
                      if int(pgs.getTerrain(x, y)) == int(PhysicalGameState.TERRAIN_WALL)]
        return GameState(pgs, self.utt)

    # -- state -----------------------------------------------------------------------------
    def state(self, gs, units: list | None = None) -> dict:
        units = self.unit_list(gs) if units is None else units
        pgs = gs.getPhysicalGameState()
        return {"time": int(gs.getTime()), "width": int(pgs.getWidth()),
                "height": int(pgs.getHeight()),
                "resources": [int(gs.getPlayer(0).getResources()),
                              int(gs.getPlayer(1).getResources())],
                "units": units, "walls": list(getattr(self, "walls", [])),
                "gameover": bool(gs.gameover()), "winner": int(gs.winner())}

    @staticmethod
    def unit_list(gs) -> list:
        units = []
        for u in gs.getPhysicalGameState().getUnits():
            action = gs.getUnitAction(u)
            kind = u.getType()
            name = ACTION_NAMES.get(int(action.getType()), "noop") if action is not None \
                else "noop"
            unit = {"id": int(u.getID()), "type": str(kind.name),
                    "player": int(u.getPlayer()), "x": int(u.getX()), "y": int(u.getY()),
                    "hp": int(u.getHitPoints()), "resources": int(u.getResources()),
                    "action": name, "cost": int(kind.cost)}
            if name == "produce" and action.getUnitType() is not None:
                unit["producing"] = str(action.getUnitType().name)   # paid, not yet on the map
            units.append(unit)
        return units

    def utt_table(self) -> list:
        out = []
        for t in self.utt.getUnitTypes():
            out.append({"name": str(t.name), "cost": int(t.cost), "hp": int(t.hp),
                        "min_damage": int(t.minDamage), "max_damage": int(t.maxDamage),
                        "range": int(t.attackRange), "produce_time": int(t.produceTime),
                        "move_time": int(t.moveTime), "attack_time": int(t.attackTime),
                        "harvest_time": int(t.harvestTime), "return_time": int(t.returnTime),
                        "sight": int(t.sightRadius), "can_move": bool(t.canMove),
                        "can_harvest": bool(t.canHarvest), "stockpile": bool(t.isStockpile)})
        return out

    # -- actions ---------------------------------------------------------------------------
    def unit_action(self, spec: dict):
        from rts import UnitAction

        kind = ACTION_TYPES.get(spec.get("type", "noop"))
        if kind is None:
            raise ValueError(f"unknown action type {spec.get('type')!r}")
        if kind == 5:
            return UnitAction(kind, int(spec["x"]), int(spec["y"]))
        if kind == 4:
            unit_type = self.utt.getUnitType(spec.get("unit_type", ""))
            if unit_type is None:
                raise ValueError(f"unknown unit type {spec.get('unit_type')!r}")
            return UnitAction(kind, int(spec.get("direction", 0)), unit_type)
        if kind == 0:
            return UnitAction(kind)
        return UnitAction(kind, int(spec.get("direction", 0)))

    def issue(self, gs, player: int, actions: list) -> list:
        """Issue what the engine allows; [(index, reason)] for the rest."""
        from rts import PlayerAction

        pa = PlayerAction()
        rejected = []
        used = set()
        for i, spec in enumerate(actions):
            u = gs.getUnit(int(spec.get("unit", -1)))
            if u is None:
                rejected.append([i, "no such unit"])
                continue
            if int(u.getPlayer()) != player:
                rejected.append([i, "not your unit"])
                continue
            if gs.getUnitAction(u) is not None or int(u.getID()) in used:
                rejected.append([i, "the unit is busy with an action"])
                continue
            try:
                ua = self.unit_action(spec)
            except (ValueError, KeyError) as exc:
                rejected.append([i, str(exc)])
                continue
            if not gs.isUnitActionAllowed(u, ua):
                rejected.append([i, "the engine does not allow this action now"])
                continue
            pa.addUnitAction(u, ua)
            used.add(int(u.getID()))
        if not pa.isEmpty():
            pa.fillWithNones(gs, player, 1)
            if not gs.issueSafe(pa):
                rejected.append([-1, "the engine refused the combined actions"])
        return rejected

    # -- metrics ---------------------------------------------------------------------------
    def units(self, gs, units: list | None = None) -> dict:
        """{id: (player, hp, type, cost)} of the players' units (not the minerals)."""
        units = self.unit_list(gs) if units is None else units
        return {u["id"]: (u["player"], u["hp"], u["type"], u["cost"]) for u in units
                if u["player"] >= 0}

    def track(self, gs, metrics: list, last: dict, units: list | None = None) -> dict:
        """Update ``metrics`` from the units now vs ``last`` (:meth:`units` of the cycle
        before): a new id is a unit produced (its cost spent), lost hit points are damage taken
        by its owner and dealt by the other player, a unit gone took its remaining hit points."""
        now = self.units(gs, units)
        for uid, (p, hp, name, cost) in now.items():
            if uid not in last:
                metrics[p]["produced"] += 1
                metrics[p]["spent"] += cost
            elif hp < last[uid][1]:
                metrics[p]["taken"] += last[uid][1] - hp
                metrics[1 - p]["dealt"] += last[uid][1] - hp
        for uid, (p, hp, name, cost) in last.items():
            if uid not in now:
                metrics[p]["taken"] += hp
                metrics[1 - p]["dealt"] += hp
                metrics[p]["lost"] += 1
        return now

    @staticmethod
    def new_metrics(gs) -> list:
        return [{"produced": 0, "spent": 0, "dealt": 0, "taken": 0, "lost": 0,
                 "start_resources": int(gs.getPlayer(p).getResources())} for p in (0, 1)]


def main() -> None:
    engine = Engine()
    out = sys.stdout
    sys.stdout = sys.stderr   # anything printed by libraries goes to stderr
    game = {}
    for line in sys.stdin:
        try:
            req = json.loads(line)
            op = req.get("op")
            if op == "close":
                out.write(json.dumps({"ok": True}) + "\n")
                out.flush()
                break
            if op in ("start", "play"):
                engine.boot(req["home"])
            if op == "start":
                engine.seed_statics(req["home"], int(req.get("seed", 0)))
                gs = engine.load(req["home"], req["map"])
                player = int(req.get("player", 0))
                opponent = None if req["opponent"] == "external" else \
                    engine.make_ai(req["opponent"], int(req.get("seed", 0)))
                metrics = engine.new_metrics(gs)
                last = engine.units(gs)
                game = {"gs": gs, "player": player, "opponent": opponent, "metrics": metrics,
                        "last": last, "coin": random.Random(int(req.get("seed", 0)))}
                answer = {"ok": True, "state": engine.state(gs), "utt": engine.utt_table(),
                          "metrics": metrics}
            elif op == "step":
                if not game:
                    raise RuntimeError("no game: send start first")
                gs = game["gs"]
                other = 1 - game["player"]
                if game["opponent"] is None:    # the other side is played from Python too
                    # the engine gives a contested cell to the side issued first: which side
                    # goes first is a seeded coin each cycle, so neither side is favoured
                    if game["coin"].random() < 0.5:
                        rejected = engine.issue(gs, game["player"], req.get("actions", []))
                        rejected_other = engine.issue(gs, other,
                                                      req.get("opponent_actions", []))
                    else:
                        rejected_other = engine.issue(gs, other,
                                                      req.get("opponent_actions", []))
                        rejected = engine.issue(gs, game["player"], req.get("actions", []))
                else:
                    rejected = engine.issue(gs, game["player"], req.get("actions", []))
                    rejected_other = []
                if not gs.gameover():
                    if game["opponent"] is not None:
                        gs.issueSafe(game["opponent"].getAction(other, gs))
                    gs.cycle()
                units = engine.unit_list(gs)
                game["last"] = engine.track(gs, game["metrics"], game["last"], units)
                answer = {"ok": True, "state": engine.state(gs, units), "rejected": rejected,
                          "rejected_opponent": rejected_other,
                          "metrics": game["metrics"]}
            elif op == "play":
                seed = int(req.get("seed", 0))
                engine.seed_statics(req["home"], seed)
                gs = engine.load(req["home"], req["map"])
                ais = [engine.make_ai(req["ai0"], seed), engine.make_ai(req["ai1"], seed + 1)]
                metrics = engine.new_metrics(gs)
                last = engine.units(gs)
                limit = int(req.get("max_cycles", 2000))
                while not gs.gameover() and gs.getTime() < limit:
                    gs.issueSafe(ais[0].getAction(0, gs))
                    gs.issueSafe(ais[1].getAction(1, gs))
                    gs.cycle()
                    last = engine.track(gs, metrics, last)
                answer = {"ok": True, "state": engine.state(gs), "metrics": metrics}
            else:
                raise ValueError(f"unknown op {op!r}")
        except Exception as exc:  # noqa: BLE001 - every failure goes back as data
            kind = type(exc).__name__
            answer = {"ok": False, "error": f"{kind}: {exc}", "kind": kind,
                      "trace": traceback.format_exc()[-2000:]}
        out.write(json.dumps(answer) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
