"""The benchmark harness: sweeps of agents x environments x difficulty x seeds x LLM specs.

``pddlkit bench CONFIG`` expands a TOML or YAML config into cells (:mod:`.config`), checking
every agent, option, environment, difficulty and seed against the registries first
(:mod:`.resolve`: a sweep that cannot run exits 2 before any episode), runs the cells not
already in the results file under the same options (a cell is its key and the hash of its
resolved options) on local processes that die with the sweep, or on Ray tasks
(:mod:`.executors`), appends one JSON row per episode as each finishes (:mod:`.results`), and
``pddlkit report`` turns the rows into the papers' tables and plots (:mod:`.report`,
:mod:`.plots`).

Agents are plug-ins: the entry-point group ``pddlkit.agents`` maps a name to a function
``run(cell: dict) -> dict`` that plays one episode and returns its metrics. The harness knows
nothing of the environments or the formalizers; ``pddlego`` and ``plangen`` are registered by
``pddlkit.formalizers`` the way a third party would register its own.
"""

from .config import Cell, Sweep, load_sweep
from .results import ResultsFile
from .runner import run_sweep

__all__ = ["Cell", "Sweep", "load_sweep", "ResultsFile", "run_sweep"]
