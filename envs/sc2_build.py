"""StarCraft II unit building (seed 000, CoPiC, Appendix C.2), as a native build-order
simulator: no game binary can be had here (``shared/specs/copic.md`` §5), so the game's economy
and tech tree are simulated from the data in :mod:`pddlkit.envs.sc2_data`.

The task is a dict of Terran units to train (``{"SCV": 18, "BATTLECRUISER": 2}``); the program
API is the paper's: ``planner(obs, action_space, task) -> list[str]`` with ``obs`` the dict of
Appendix B.3 (``Resource``: supply_cap, supply_left, gas; ``Building`` and ``Unit``: counts,
finished plus in progress, as the paper's ``obtain_unit_count`` adds them), ``action_space`` the
strings ``"BUILD X"`` / ``"TRAIN Y"`` that can start right now, and a plan of at most 5
actions. The reward is :func:`building_ins_reward`, the paper's code restated.

What the paper leaves open, and what this simulator does (``shared/specs/copic.md`` §4.11):

- **A step** lasts ``step_seconds`` (10 s) of game time, and the plan's actions are carried
  out within it as a player would: each one starts at the first moment in the step when it is
  possible (resources, supply, a producer with a free queue slot, finished requirements), so a
  unit whose minerals arrive 3 s into the step starts then, not 7 s later, and build times are
  never rounded to the step. An action that cannot start yet does not hold back the ones after
  it (they start at once when they can); one that cannot start before the step ends is skipped
  with the reason at that moment in ``info["skipped"]``. ``info["started_at"]`` gives each
  started action's game time.
- **Workers** gather on their own: refineries take three SCVs each once finished, the others
  mine, up to 16 per command center; an SCV constructing a building does not mine until it is
  done. Income rates are :data:`~pddlkit.envs.sc2_data.MINERALS_PER_WORKER_S` and
  :data:`~pddlkit.envs.sc2_data.GAS_PER_WORKER_S`.
- **Production queues**, as in the game: a production building holds up to
  :data:`QUEUE_SLOTS` (5) orders and trains them one after the other with no gap; an order is
  paid (minerals, gas and supply) when it is queued, and a queued unit counts as in progress
  (burnysc2's ``already_pending`` counts queue orders the same way). An order goes to the
  producer whose queue ends first. An add-on is built by an idle building with an empty queue,
  which takes no orders meanwhile; one add-on per building; units needing a TechLab need a
  producer that has a finished one. So one Command Center with the minerals trains 5 SCVs in
  5 x 12.14 s = 60.7 s, however the orders are spread over the steps.
- **The episode ends** when every target count is reached by finished units (success), or after
  ``max_seconds`` of game time (30 minutes).
- **As PDDL**: :func:`tech_model` and :func:`tech_goal` (as text: :func:`tech_domain`,
  :func:`tech_problem`) give the tech tree (no costs or counts), for build orders from
  ``pddlkit.plan`` and ``why_no_plan`` on a tree that lacks a building. The simulator checks the
  tree first, in the model's precondition order (:func:`tech_needs`), and both say why in the
  same words (:func:`tech_sentence`, :data:`TECH_MESSAGES`); ``tests/test_world_models.py``
  walks random build orders and checks that they accept the same actions and name the same
  first missing kind. Where they differ by design: the model has no costs, supply, idle
  producers, free SCVs or geysers (a refusal for one of those is the simulator's alone).
  ``tech_model(economy=True)`` (issue 49) adds the numbers: minerals, gas, supply used and the
  cap as numeric fluents (:data:`ECONOMY`, read from :meth:`SC2Build.economy`), each action
  needing and paying its price; it refuses what the simulator refuses for price or supply, in
  the simulator's words before its amounts (:func:`cost_sentence`, :func:`supply_sentence`),
  which the same test checks over random build orders. It plans through a numeric planner
  (``pddlkit.plan(..., planner="auto")`` picks ENHSP); income and time stay outside it.
- **Task families** (Appendix C.2.1): Easy {SCV, BATTLECRUISER}, Medium {SCV, THOR, BANSHEE,
  RAVEN}, Hard {SCV, SIEGETANK, MEDIVAC, VIKINGFIGHTER, GHOST}; counts drawn per seed, SCV 16-22
  and the others 1-4 (the paper's examples: Medium (16, 3, 3, 4) and (22, 4, 3, 5); it gives no
  distribution).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

from . import sc2_data as data
from .api import Step
from .sc2_data import KINDS, TECHLAB_OF

DIFFICULTIES = {
    "easy": ("SCV", "BATTLECRUISER"),
    "medium": ("SCV", "THOR", "BANSHEE", "RAVEN"),
    "hard": ("SCV", "SIEGETANK", "MEDIVAC", "VIKINGFIGHTER", "GHOST"),
}
BUILDINGS = [k for k, v in KINDS.items() if not v.is_unit]
UNITS = [k for k, v in KINDS.items() if v.is_unit]
MAX_PLAN = 5
MAX_SUPPLY = 200
#: orders a production building holds, the one in production included (the game's five)
QUEUE_SLOTS = 5
#: resources are compared with this slack, so an order started at the moment its minerals
#: arrive is not refused for a rounding error
_SLACK = 1e-6


def obtain_unit_count(obs: dict, name: str) -> tuple[int, int]:
    """(finished, in progress) of a unit or building, from an observation's ``_detail``."""
    finished, progress = obs["_detail"].get(name, (0, 0))
    return finished, progress


def building_ins_reward(obs: dict, next_obs: dict, task: dict) -> float:
    """The paper's reward (Appendix C.2.2): +1 for each needed unit started or finished, -1 for
    each unit beyond the target; buildings earn nothing."""
    reward = 0
    negative_reward_scale = -1
    for k in task:
        c_k_obs, u_k_obs = obtain_unit_count(obs, k.upper())
        c_k_next_obs, u_k_next_obs = obtain_unit_count(next_obs, k.upper())
        k_obs = c_k_obs + u_k_obs
        k_next_obs = c_k_next_obs + u_k_next_obs
        if k_obs >= task.get(k):
            reward += negative_reward_scale * (k_next_obs - k_obs)
        elif k_next_obs <= task.get(k):
            reward += k_next_obs - k_obs
        else:
            reward += ((task.get(k) - k_obs) + negative_reward_scale * (k_next_obs - task.get(k)))
    return reward


@dataclass
class Structure:
    kind: str
    done_at: float                 # game time when finished
    busy_until: float = 0.0        # its queue (or its add-on) is worked off by then
    addon: Optional[str] = None    # "BARRACKSTECHLAB", ... once ordered
    addon_done: float = math.inf   # when the add-on is finished
    orders: list = field(default_factory=list)  # finish times of its queued units


@dataclass
class Job:
    kind: str
    done_at: float
    builder_scv: bool = False      # an SCV is away building it


#: the game time limit: 660 s, the one CoPiC's runs use (the paper gives none); the correct
#: build order finishes every difficulty within it on seeds 0-99 and 1000-1099, so a
#: wasteful plan costs the episode (see :mod:`pddlkit.programs.copic.sc2_world`). One
#: default, here, for everyone who makes the environment.
MAX_SECONDS = 660.0


class SC2Build:
    """``SC2Build("hard", seed=3)``: ``obs, info = env.reset()``, then
    ``env.step(["BUILD SUPPLYDEPOT", "TRAIN SCV"])``."""

    id = "sc2-build"
    #: the values an option takes, read by ``pddlkit bench`` before a sweep runs (see
    #: :func:`pddlkit.bench.resolve.check_env_options`)
    option_choices = {"difficulty": tuple(DIFFICULTIES)}
    option_help = {"difficulty": "easy, medium or hard (the unit lists CoPiC uses)",
                   "step_seconds": "game seconds per build decision",
                   "max_seconds": "the game time limit in seconds (default 660: CoPiC's; "
                                  "the paper gives none)"}

    def __init__(self, difficulty: str = "easy", seed: Optional[int] = None, *,
                 task: Optional[dict] = None, step_seconds: float = 10.0,
                 max_seconds: float = MAX_SECONDS) -> None:
        if difficulty not in DIFFICULTIES:
            raise ValueError(f"unknown difficulty {difficulty!r}; use one of "
                             f"{', '.join(DIFFICULTIES)}")
        if task is not None:
            unknown = [k for k in task if k.upper() not in UNITS]
            if unknown:
                raise ValueError(f"unknown unit(s) {unknown} in the task; units: "
                                 f"{', '.join(UNITS)}")
        if step_seconds <= 0 or max_seconds <= 0:
            raise ValueError("step_seconds and max_seconds must be positive")
        self.difficulty = difficulty
        self.seed = seed
        self.fixed_task = {k.upper(): int(v) for k, v in task.items()} if task else None
        self.step_seconds = step_seconds
        self.max_seconds = max_seconds
        self.reset(seed)

    # ------------------------------------------------------------------ episode
    def reset(self, seed: Optional[int] = None) -> tuple[dict, dict]:
        if seed is not None:
            self.seed = seed
        rng = random.Random(self.seed)
        self.task = dict(self.fixed_task) if self.fixed_task else {
            unit: rng.randint(16, 22) if unit == "SCV" else rng.randint(1, 4)
            for unit in DIFFICULTIES[self.difficulty]}
        self.time = 0.0
        self.minerals = float(data.START["minerals"])
        self.gas = float(data.START["gas"])
        self.structures = [Structure("COMMANDCENTER", 0.0)]
        self.units: Counter = Counter({"SCV": data.START["SCV"]})
        self.jobs: list[Job] = []
        self.steps = 0
        self.won = False
        obs = self.observe()
        return obs, {"task": dict(self.task), "action_space": self.action_space()}

    # ------------------------------------------------------------------ counts
    def _finished(self, name: str) -> int:
        if KINDS[name].is_unit:
            return self.units[name]
        if name in TECHLAB_OF.values():
            return sum(1 for s in self.structures if s.addon == name and s.addon_done <= self.time)
        return sum(1 for s in self.structures if s.kind == name and s.done_at <= self.time)

    def _in_progress(self, name: str) -> int:
        return sum(1 for j in self.jobs if j.kind == name and j.done_at > self.time)

    def supply_used(self) -> int:
        pending = sum(KINDS[j.kind].supply for j in self.jobs if KINDS[j.kind].is_unit)
        return sum(KINDS[u].supply * n for u, n in self.units.items()) + pending

    def supply_cap(self) -> int:
        cap = sum(KINDS[s.kind].provides for s in self.structures if s.done_at <= self.time)
        return min(MAX_SUPPLY, cap)

    def observe(self) -> dict:
        detail = {name: (self._finished(name), self._in_progress(name)) for name in KINDS}
        cap = self.supply_cap()
        return {
            "Resource": {"supply_cap": cap, "supply_left": cap - self.supply_used(),
                         "gas": int(self.gas), "minerals": int(self.minerals)},
            "Building": {b: sum(detail[b]) for b in BUILDINGS},
            "Unit": {u: sum(detail[u]) for u in UNITS},
            "_detail": detail,
        }

    def economy(self) -> dict:
        """The economy model's numbers now (:data:`ECONOMY`): minerals and gas (fractions
        kept: income is continuous), supply used (queued units included, as they are paid) and
        the cap (finished buildings, at most 200)."""
        return {"minerals": self.minerals, "gas": self.gas, "supply-used": self.supply_used(),
                "supply-cap": self.supply_cap()}

    def economy_within(self, seconds: float) -> dict:
        """The most the economy can hold within ``seconds`` from now: :meth:`economy` after
        ``seconds`` in which nothing is spent (income only grows, builders come back, depots
        finish), so an action whose price or supply is above it cannot start in that time,
        whatever is done meanwhile. Computed on a copy; this simulator is not advanced."""
        import copy

        ahead = copy.deepcopy(self)
        ahead._advance(seconds)
        return ahead.economy()

    # ------------------------------------------------------------------ rules
    def why_not(self, action: str) -> Optional[str]:
        """None when ``action`` can start now, else the reason it cannot."""
        verb, _, name = action.strip().upper().partition(" ")
        kind = KINDS.get(name)
        if verb not in ("BUILD", "TRAIN") or kind is None:
            return f"unknown action {action!r}: use BUILD <building> or TRAIN <unit>"
        if (verb == "TRAIN") != kind.is_unit:
            return f"{name} is {'a unit: TRAIN' if kind.is_unit else 'a building: BUILD'} it"
        for need in tech_needs(name):   # the tech tree first, in the model's order
            if self._finished(need) == 0:
                return tech_sentence(name, need)
        if kind.minerals > self.minerals + _SLACK or kind.gas > self.gas + _SLACK:
            return (f"{name} costs {kind.minerals} minerals and {kind.gas} gas; there are "
                    f"{int(self.minerals)} and {int(self.gas)}")
        if kind.is_unit and self.supply_used() + kind.supply > self.supply_cap():
            left = self.supply_cap() - self.supply_used()
            return f"{name} needs {kind.supply} supply; {left} left"
        if kind.producer == "SCV":
            if self._free_scvs() < 1:
                return f"{name} needs an SCV free to build it"
            if name == "REFINERY" and self._refineries() >= self._bases() * data.GEYSERS_PER_BASE:
                return "every geyser already has a refinery"
            return None
        if self._producer(kind) is None:
            if name in TECHLAB_OF.values():
                return f"every {kind.producer} already has an add-on or is busy"
            return self._busy_sentence(kind)
        return None

    def _busy_sentence(self, kind) -> str:
        """Why no producer takes an order for the unit ``kind`` (every one that could is
        building an add-on or has a full queue), in those words."""
        which = f"{kind.producer} with a {TECHLAB_OF[kind.producer]}" \
            if kind.needs_techlab else kind.producer
        candidates = [s for s in self.structures if s.kind == kind.producer
                      and s.done_at <= self.time
                      and (not kind.needs_techlab or s.addon == TECHLAB_OF[s.kind])]
        building = any(s.addon is not None and s.addon_done > self.time for s in candidates)
        full = any(self._queued(s) >= QUEUE_SLOTS for s in candidates)
        reasons = [why for why, present in (("is building an add-on", building),
                                            (f"has {QUEUE_SLOTS} orders queued", full))
                   if present]
        return f"every {which} {' or '.join(reasons) or 'is busy'}"

    def _bases(self) -> int:
        return sum(1 for s in self.structures
                   if s.kind == "COMMANDCENTER" and s.done_at <= self.time)

    def _refineries(self) -> int:
        return sum(1 for s in self.structures if s.kind == "REFINERY")

    def _free_scvs(self) -> int:
        return self.units["SCV"] - sum(1 for j in self.jobs if j.builder_scv)

    def _queued(self, s: Structure) -> int:
        return sum(1 for t in s.orders if t > self.time)

    def _producer(self, kind) -> Optional[Structure]:
        """A finished producer for ``kind`` that can take the order now: for an add-on, an idle
        building with an empty queue and no add-on; for a unit, one with a free queue slot
        that is not building an add-on (with a finished TechLab when the unit needs one), the
        one whose queue ends first."""
        if kind.name in TECHLAB_OF.values():
            for s in self.structures:
                if (s.kind == kind.producer and s.done_at <= self.time and s.addon is None
                        and s.busy_until <= self.time):
                    return s
            return None
        able = [s for s in self.structures
                if s.kind == kind.producer and s.done_at <= self.time
                and not (s.addon is not None and s.addon_done > self.time)
                and self._queued(s) < QUEUE_SLOTS
                and not (kind.needs_techlab and (s.addon != TECHLAB_OF[s.kind]
                                                 or s.addon_done > self.time))]
        return min(able, key=lambda s: max(s.busy_until, self.time), default=None)

    def action_space(self) -> list[str]:
        actions = [f"BUILD {b}" for b in BUILDINGS] + [f"TRAIN {u}" for u in UNITS]
        return [a for a in actions if self.why_not(a) is None]

    def _start(self, action: str) -> None:
        name = action.strip().upper().partition(" ")[2]
        kind = KINDS[name]
        self.minerals -= kind.minerals
        self.gas -= kind.gas
        done = self.time + kind.seconds
        if kind.producer == "SCV":
            self.structures.append(Structure(name, done))
            self.jobs.append(Job(name, done, builder_scv=True))
            return
        producer = self._producer(kind)
        if name in TECHLAB_OF.values():
            producer.addon, producer.addon_done = name, done
        else:   # queued behind the producer's orders, trained without a gap
            done = max(producer.busy_until, self.time) + kind.seconds
            producer.orders = [t for t in producer.orders if t > self.time] + [done]
        producer.busy_until = done
        self.jobs.append(Job(name, done))

    def _advance(self, seconds: float) -> None:
        self._advance_to(self.time + seconds)

    def _advance_to(self, end: float) -> None:
        """Income and completions until game time ``end``, in slices that end at each
        completion."""
        while self.time < end:
            upcoming = [j.done_at for j in self.jobs if self.time < j.done_at <= end]
            until = min(upcoming) if upcoming else end
            dt = until - self.time
            miners, gassers = self._workers()
            self.minerals += dt * miners * data.MINERALS_PER_WORKER_S
            self.gas += dt * gassers * data.GAS_PER_WORKER_S
            self.time = until
            for job in [j for j in self.jobs if j.done_at <= self.time]:
                self.jobs.remove(job)
                if KINDS[job.kind].is_unit:
                    self.units[job.kind] += 1

    def _next_event(self, pending: Sequence[str], end: float) -> Optional[float]:
        """The first moment in (now, end] when something a waiting action may need changes: a
        job finishes (a building, a unit, an add-on, a freed queue slot or SCV) or the stock
        reaches a waiting action's cost at the current income; None when nothing does."""
        moments = [j.done_at for j in self.jobs if self.time < j.done_at <= end]
        miners, gassers = self._workers()
        for action in pending:
            kind = KINDS.get(action.strip().upper().partition(" ")[2])
            if kind is None:
                continue
            waits = []
            for cost, stock, rate in (
                    (kind.minerals, self.minerals, miners * data.MINERALS_PER_WORKER_S),
                    (kind.gas, self.gas, gassers * data.GAS_PER_WORKER_S)):
                if cost > stock + _SLACK:
                    waits.append((cost - stock) / rate if rate > 0 else math.inf)
            if waits and 0 < max(waits) < math.inf:
                moments.append(self.time + max(waits))
        moments = [m for m in moments if m <= end]
        return min(moments) if moments else None

    def _workers(self) -> tuple[int, int]:
        free = self._free_scvs()
        refineries = sum(1 for s in self.structures
                         if s.kind == "REFINERY" and s.done_at <= self.time)
        gassers = min(free, refineries * data.WORKERS_PER_REFINERY)
        miners = min(free - gassers, self._bases() * data.MINERAL_PATCHES * 2)
        return miners, gassers

    def seconds_left(self) -> float:
        """An estimate of the game seconds still needed to finish the task: the sum of (a) the
        minerals and gas still to be spent on the missing units and on the missing buildings of
        their tech chains, less the stock, at the current income, and (b) the longest remaining
        chain, each missing building's build time plus the missing units' training time on the
        producers that exist. Gathering and building overlap in the game, so the sum
        overestimates (about twice the time the reference build order takes); a building in
        progress counts as done, and gas flows as from one full refinery if none is finished.
        It is cheap and 0 once the task is done. Its use is a potential for reward shaping: a
        wasteful order (a depot nobody needs) lowers the stock and raises the estimate at once,
        progress along the chain lowers it, so the choice shows in the step's reward, not 60
        steps later; a max of (a) and (b) was tried and hides the waste whenever the chain is
        the longer part."""
        have = {name: self._finished(name) + self._in_progress(name) for name in KINDS}
        minerals = gas = 0.0
        chain_time = 0.0
        missing_buildings: set[str] = set()
        for unit, wanted in self.task.items():
            short = max(0, wanted - self.units[unit])
            if short == 0:
                continue
            to_start = max(0, wanted - have[unit])
            minerals += to_start * KINDS[unit].minerals
            gas += to_start * KINDS[unit].gas
            chain = [b for b in dict.fromkeys(tech_chain(unit)) if have[b] == 0]
            missing_buildings.update(chain)
            producers = max(1, sum(1 for s in self.structures if s.kind == KINDS[unit].producer))
            chain_time = max(chain_time, sum(KINDS[b].seconds for b in chain)
                             + math.ceil(short / producers) * KINDS[unit].seconds)
        if not chain_time:
            return 0.0
        for b in missing_buildings:
            minerals += KINDS[b].minerals
            gas += KINDS[b].gas
        miners, gassers = self._workers()
        mineral_rate = max(1, miners) * data.MINERALS_PER_WORKER_S
        gas_rate = max(data.WORKERS_PER_REFINERY, gassers) * data.GAS_PER_WORKER_S
        resource_time = max(max(0.0, minerals - self.minerals) / mineral_rate,
                            max(0.0, gas - self.gas) / gas_rate)
        return resource_time + chain_time

    def step(self, plan: Sequence[str] | str) -> Step:
        """Run a plan (at most 5 actions; a string is one action, or several separated by
        semicolons or newlines), then advance game time by ``step_seconds``."""
        if self.won or self.time >= self.max_seconds:
            raise RuntimeError("the episode is over: call reset()")
        if isinstance(plan, str):
            plan = [p for p in plan.replace(";", "\n").splitlines() if p.strip()]
        plan = list(plan)
        before = self.observe()
        end = self.time + self.step_seconds
        started, started_at, skipped = [], [], []
        pending = []
        for action in plan[:MAX_PLAN]:
            if isinstance(action, str):
                pending.append(action)
            else:
                skipped.append((str(action), f"not an action: {action!r}"))
        while True:   # start what can start, then wait for the next event within the step
            waiting = []
            for action in pending:
                if self.why_not(action) is None:
                    self._start(action)
                    started.append(action.strip().upper())
                    started_at.append(round(self.time, 2))
                else:
                    waiting.append(action)
            pending = waiting
            moment = self._next_event(pending, end) if pending else None
            if moment is None:
                break
            self._advance_to(moment)
        self._advance_to(end)
        skipped += [(a, self.why_not(a) or "could not start within the step")
                    for a in pending]
        skipped += [(str(a), f"beyond the first {MAX_PLAN} actions") for a in plan[MAX_PLAN:]]
        self.steps += 1
        after = self.observe()
        reward = building_ins_reward(before, after, self.task)
        self.won = all(self.units[u] >= n for u, n in self.task.items())
        truncated = not self.won and self.time >= self.max_seconds
        info = {"won": self.won, "started": started, "started_at": started_at,
                "skipped": skipped, "time": self.time,
                "steps": self.steps, "action_space": self.action_space()}
        return Step(after, float(reward), self.won, truncated, info)  # observation: the dict


def public_obs(obs: dict) -> dict:
    """The observation as the paper's programs see it (no ``_detail``, no minerals)."""
    return {"Resource": {k: v for k, v in obs["Resource"].items() if k != "minerals"},
            "Building": dict(obs["Building"]), "Unit": dict(obs["Unit"])}


def tech_chain(name: str) -> list[str]:
    """The buildings ``name`` needs, deepest first, ending with what produces it (and its
    TechLab where needed); for a building, its requirements then itself."""
    kind = KINDS[name]
    chain: list[str] = []
    for need in kind.requires:
        chain += tech_chain(need)
    if kind.is_unit:
        if kind.producer != "COMMANDCENTER":
            chain += tech_chain(kind.producer)
        if kind.needs_techlab:
            chain.append(TECHLAB_OF[kind.producer])
    elif name in TECHLAB_OF.values():
        chain += tech_chain(kind.producer)
        chain.append(name)
    else:
        chain.append(name)
    return list(dict.fromkeys(chain))


def tech_needs(name: str) -> list[str]:
    """What must exist, finished, before ``name`` can start, in the order the simulator checks
    it (and the tech model states it): its required buildings, its producer, the producer's
    TechLab when it needs one, and a refinery when it costs gas (gas comes from nowhere else)."""
    kind = KINDS[name]
    needs = [*kind.requires, kind.producer]
    if kind.needs_techlab:
        needs.append(TECHLAB_OF[kind.producer])
    if kind.gas and name != "REFINERY":
        needs.append("REFINERY")
    return list(dict.fromkeys(needs))


def tech_sentence(name: str, need: str) -> str:
    """Why ``name`` cannot start while ``need`` (one of :func:`tech_needs`) is missing: the
    simulator's skip reason and the tech model's message (:data:`TECH_MESSAGES`) alike."""
    kind = KINDS[name]
    if kind.needs_techlab and need == TECHLAB_OF[kind.producer]:
        return f"{name} needs a {kind.producer} with a {need}"
    if need == "REFINERY" and need not in kind.requires:
        return f"{name} costs {kind.gas} gas and needs a finished REFINERY to gather it"
    return f"{name} needs a finished {need}"


def _have(name: str) -> str:
    return f"have-{name.lower()}"


def cost_sentence(name: str) -> str:
    """Why ``name`` cannot start for its price: the simulator's skip reason up to its "; there
    are ..." (the amounts), and the economy model's sentence."""
    kind = KINDS[name]
    return f"{name} costs {kind.minerals} minerals and {kind.gas} gas"


def supply_sentence(name: str) -> str:
    """Why the unit ``name`` cannot start for supply, up to the simulator's "; N left"."""
    return f"{name} needs {KINDS[name].supply} supply"


def _tech_messages():
    from pddlkit.semantics.simulate import MessageBook

    # the context is the kind being made: the sentence names it and the missing kind
    book = {(_have(k), True): (lambda args, name, k=k: tech_sentence(name, k)) for k in KINDS}
    # the economy model's comparisons (tech_model(economy=True)): the price, then supply
    book[("minerals", True)] = book[("gas", True)] = lambda args, name: cost_sentence(name)
    book[("supply-cap", True)] = lambda args, name: supply_sentence(name)
    return MessageBook(book)


#: the tech model's false ``(have-x)`` as the simulator's sentence; pass the kind being made as
#: the context: ``TECH_MESSAGES.first_sentence(simulated, context="THOR")``. With the economy
#: model, a false price or supply comparison gives :func:`cost_sentence` or
#: :func:`supply_sentence`, the simulator's words before its amounts.
TECH_MESSAGES = _tech_messages()

#: the economy model's numeric fluents, as :meth:`SC2Build.economy` reads them
ECONOMY = ("minerals", "gas", "supply-used", "supply-cap")


def tech_model(forbid: Sequence[str] = (), economy: bool = False):
    """The Terran tech tree as a PDDL model (:class:`~pddlkit.pddl.model.Domain`): one action
    per kind, ``make-<kind>``, possible once everything :func:`tech_needs` names exists, in that
    order, so the first false precondition is the simulator's skip reason. Kinds in ``forbid``
    have no action (a tech tree that does not know them), so ``why_no_plan`` names what is
    missing.

    Without ``economy`` (the default) costs, time, supply, counts and idle producers stay with
    the simulator: the model answers "in which order?" and "why can this never be made?", and
    Fast Downward plans it. With ``economy`` (issue 49) it is a numeric model over
    :data:`ECONOMY`: after the tree, each action needs its price, ``(>= (minerals) m)`` and
    ``(>= (gas) g)``, and a unit its supply, ``(>= (supply-cap) (+ (supply-used) s))``, in the
    simulator's order; it pays them and a depot or command center raises the cap. It answers
    "can this start now, with what there is?" (:meth:`SC2Build.economy` gives the state's
    numbers). What it leaves out by design: income and time (no action gathers; a plan cannot
    wait for minerals), the cap of 200, a building's supply arriving only once it is finished,
    idle producers, free SCVs and geysers."""
    if economy:
        from pddlkit.pddl.reader import parse_domain

        return parse_domain(tech_domain(forbid, economy=True), "sc2-economy.pddl")
    from pddlkit.pddl.build import action, domain

    actions = [action(f"make-{name.lower()}", (), [f"({_have(n)})" for n in tech_needs(name)],
                      [f"({_have(name)})"])
               for name in KINDS if name not in forbid]
    return domain("sc2-tech", predicates=[f"({_have(n)})" for n in KINDS], actions=actions)


def _economy_action(name: str) -> str:
    kind = KINDS[name]
    pre = [f"({_have(n)})" for n in tech_needs(name)]
    pre += [f"(>= (minerals) {kind.minerals})", f"(>= (gas) {kind.gas})"]
    eff = [f"({_have(name)})", f"(decrease (minerals) {kind.minerals})",
           f"(decrease (gas) {kind.gas})"]
    if kind.is_unit:
        pre.append(f"(>= (supply-cap) (+ (supply-used) {kind.supply}))")
        eff.append(f"(increase (supply-used) {kind.supply})")
    if kind.provides:
        eff.append(f"(increase (supply-cap) {kind.provides})")
    return (f"  (:action make-{name.lower()}\n    :parameters ()\n"
            f"    :precondition (and {' '.join(pre)})\n    :effect (and {' '.join(eff)}))")


def tech_domain(forbid: Sequence[str] = (), economy: bool = False) -> str:
    """:func:`tech_model` as PDDL text."""
    if economy:
        predicates = " ".join(f"({_have(n)})" for n in KINDS)
        functions = " ".join(f"({f})" for f in ECONOMY)
        actions = "\n".join(_economy_action(n) for n in KINDS if n not in forbid)
        return ("(define (domain sc2-economy)\n  (:requirements :strips :numeric-fluents)\n"
                f"  (:predicates {predicates})\n  (:functions {functions})\n{actions})\n")
    from pddlkit.pddl.writer import write_domain

    return write_domain(tech_model(forbid))


def tech_goal(goal: Sequence[str], have: Sequence[str] = ("COMMANDCENTER", "SCV"),
              economy: Optional[dict] = None):
    """Make every kind in ``goal`` starting from ``have``: a problem for :func:`tech_model`;
    with ``economy`` (``{"minerals": 50, ...}``, :data:`ECONOMY`) for the economy model."""
    from pddlkit.pddl.build import problem

    return problem("sc2-build", "sc2-economy" if economy is not None else "sc2-tech",
                   init=[f"({_have(n)})" for n in have],
                   numeric=[(f"({k})", v) for k, v in (economy or {}).items()],
                   goal=[f"({_have(g)})" for g in goal])


def tech_problem(goal: Sequence[str], have: Sequence[str] = ("COMMANDCENTER", "SCV"),
                 economy: Optional[dict] = None) -> str:
    """:func:`tech_goal` as PDDL text."""
    from pddlkit.pddl.writer import write_problem

    return write_problem(tech_goal(goal, have, economy))


def tech_state(have: Iterable[str], economy: Optional[dict] = None):
    """The tech model's state where exactly the kinds in ``have`` exist; with ``economy``
    (:meth:`SC2Build.economy`), the economy model's, with those numbers."""
    from pddlkit.semantics.state import State

    return State({(_have(k),) for k in have},
                 {(k,): float(v) for k, v in (economy or {}).items()})


def reference_planner(obs: dict, action_space: list, task: dict) -> list:
    """A correct build-order strategy in the paper's program shape: supply ahead of need, gas,
    the missing tech chain of each wanted unit (requirements, producer, TechLab), one producer per
    8 units, then training; at most 5 actions. It is the offline stand-in's good program."""
    plan = []
    res, have = obs["Resource"], {**obs["Building"], **obs["Unit"]}
    want = [u for u, n in task.items() if n > have.get(u, 0)]
    if res["supply_left"] < 8 and res["supply_cap"] < MAX_SUPPLY:
        plan.append("BUILD SUPPLYDEPOT")
    if any(KINDS[u].gas for u in want) and have["REFINERY"] < 2:
        plan.append("BUILD REFINERY")
    for unit in want:
        for building in tech_chain(unit):
            if have.get(building, 0) == 0:
                plan.append(f"BUILD {building}")
        producer = KINDS[unit].producer
        if unit != "SCV" and have.get(producer, 0) < math.ceil(task[unit] / 8):
            plan.append(f"BUILD {producer}")
        plan.append(f"TRAIN {unit}")
    plan = [a for a in dict.fromkeys(plan) if a in action_space]
    return plan[:MAX_PLAN]
