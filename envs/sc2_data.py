"""StarCraft II Terran game data for the unit-building task (``envs/sc2_build.py``).

Source: the game's own values for Legacy of the Void (patch 5.0.x): minerals, gas, supply,
and build or train time in game loops (22.4 loops per second at "Faster", the speed ladder games
use; Liquipedia lists the same times in seconds). Costs and times were checked one by one
against the values extracted from the game's XML in BurnySc2/sc2-techtree
(``test/fixtures/liquipedia_reference.json``, read, not copied); supply values are the game's as
Liquipedia lists them. Income: a worker on a near mineral patch gathers about 5
minerals per 5.4 s trip (~55 per minute; 16 workers on 8 patches give ~880 per minute, the
commonly quoted saturation figure is 800-900), and three workers on a refinery give ~160 gas per
minute; past two workers per patch and three per refinery, more workers add nothing. These
rates are the simulator's, written down here so that every figure can be checked.

Requirements (tech tree) follow burnysc2's ``sc2/dicts/unit_train_build_abilities.py`` (MIT) as
``shared/specs/copic.md`` §5 records them; producers with a TechLab need that add-on built on the
producing building.
"""

from __future__ import annotations

from dataclasses import dataclass


LOOPS_PER_SECOND = 22.4


@dataclass(frozen=True)
class Kind:
    name: str
    minerals: int
    gas: int
    loops: int                # build or train time in game loops (22.4 per second)
    supply: int = 0           # supply used (units)
    provides: int = 0         # supply provided (buildings)
    producer: str = "SCV"     # who builds or trains it
    needs_techlab: bool = False
    requires: tuple[str, ...] = ()  # finished buildings that must exist
    is_unit: bool = False

    @property
    def seconds(self) -> float:
        return self.loops / LOOPS_PER_SECOND


KINDS: dict[str, Kind] = {k.name: k for k in (
    # buildings (built by an SCV, which is busy while building)
    Kind("COMMANDCENTER", 400, 0, 1600, provides=15),
    Kind("SUPPLYDEPOT", 100, 0, 480, provides=8),
    Kind("REFINERY", 75, 0, 480),
    Kind("BARRACKS", 150, 0, 1040, requires=("SUPPLYDEPOT",)),
    Kind("FACTORY", 150, 100, 960, requires=("BARRACKS",)),
    Kind("STARPORT", 150, 100, 800, requires=("FACTORY",)),
    Kind("GHOSTACADEMY", 150, 50, 640, requires=("BARRACKS",)),
    Kind("ARMORY", 150, 50, 1040, requires=("FACTORY",)),
    Kind("FUSIONCORE", 150, 150, 1040, requires=("STARPORT",)),
    # add-ons (built by their production building, which is busy meanwhile)
    Kind("BARRACKSTECHLAB", 50, 25, 400, producer="BARRACKS"),
    Kind("FACTORYTECHLAB", 50, 25, 400, producer="FACTORY"),
    Kind("STARPORTTECHLAB", 50, 25, 400, producer="STARPORT"),
    # units
    Kind("SCV", 50, 0, 272, supply=1, producer="COMMANDCENTER", is_unit=True),
    Kind("MARINE", 50, 0, 400, supply=1, producer="BARRACKS", is_unit=True),
    Kind("REAPER", 50, 50, 720, supply=1, producer="BARRACKS", is_unit=True),
    Kind("MARAUDER", 100, 25, 480, supply=2, producer="BARRACKS", needs_techlab=True,
         is_unit=True),
    Kind("GHOST", 150, 125, 640, supply=2, producer="BARRACKS", needs_techlab=True,
         requires=("GHOSTACADEMY",), is_unit=True),
    Kind("HELLION", 100, 0, 480, supply=2, producer="FACTORY", is_unit=True),
    Kind("SIEGETANK", 150, 125, 720, supply=3, producer="FACTORY", needs_techlab=True,
         is_unit=True),
    Kind("THOR", 300, 200, 960, supply=6, producer="FACTORY", needs_techlab=True,
         requires=("ARMORY",), is_unit=True),
    Kind("MEDIVAC", 100, 100, 672, supply=2, producer="STARPORT", is_unit=True),
    Kind("VIKINGFIGHTER", 150, 75, 672, supply=2, producer="STARPORT", is_unit=True),
    Kind("BANSHEE", 150, 100, 960, supply=3, producer="STARPORT", needs_techlab=True,
         is_unit=True),
    Kind("RAVEN", 100, 150, 768, supply=2, producer="STARPORT", needs_techlab=True,
         is_unit=True),
    Kind("BATTLECRUISER", 400, 300, 1440, supply=6, producer="STARPORT", needs_techlab=True,
         requires=("FUSIONCORE",), is_unit=True),
)}

TECHLAB_OF = {"BARRACKS": "BARRACKSTECHLAB", "FACTORY": "FACTORYTECHLAB",
              "STARPORT": "STARPORTTECHLAB"}

#: minerals per second gathered by one SCV on a near patch, up to two per patch
MINERALS_PER_WORKER_S = 55 / 60
MINERAL_PATCHES = 8
#: gas per second gathered by one SCV on a refinery, up to three per refinery
GAS_PER_WORKER_S = 160 / 60 / 3
WORKERS_PER_REFINERY = 3
GEYSERS_PER_BASE = 2

#: the starting state of seed 000's example observation (Appendix B.3)
START = {"COMMANDCENTER": 1, "SCV": 12, "minerals": 50, "gas": 0}
