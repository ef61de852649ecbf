"""``pddlkit bench CONFIG`` and ``pddlkit report RESULTS``.

Exit status of ``bench``: 2 when the sweep cannot run, said before any episode starts (a
config that does not check, an empty sweep, an executor that is not there); 1 when an
episode failed (it runs again next time); 0 otherwise. Pairs the agents' declarations rule
out are listed once, as ``skipped:`` lines, before the run.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("bench", help="run a sweep: agents x envs x difficulty x seeds (resumable)")
    p.add_argument("config", help="a TOML or YAML sweep config (see examples/)")
    p.add_argument("--seeds", type=int, metavar="N", help="override: seeds 0..N-1")
    p.add_argument("--workers", type=int, metavar="N", help="override: parallel episodes")
    p.add_argument("--executor", default="process", choices=["process", "inline", "ray"],
                   help="local processes (default), this process, or Ray tasks")
    p.add_argument("--ray-address", help="Ray cluster to join ('auto', 'ray://host:10001')")
    p.add_argument("--output", help="override: the folder for results.jsonl and records")
    p.add_argument("--agents", help="only these agent labels or kinds (comma-separated)")
    p.add_argument("--envs", help="only these environments (comma-separated)")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--report", action="store_true", help="print the report when done")
    p.set_defaults(func=bench_command)

    r = sub.add_parser("report", help="tables (markdown) and plots (PNG) from a results file")
    r.add_argument("results", help="results.jsonl, or the sweep's output folder")
    r.add_argument("--plots", help="folder for the PNGs (default: beside the results)")
    r.add_argument("--no-plots", action="store_true")
    r.set_defaults(func=report_command)


def bench_command(args) -> int:
    from pddlkit.agents import UnknownAgentError

    from .config import ConfigError, load_sweep
    from .runner import run_sweep

    try:
        sweep = load_sweep(args.config, seeds=args.seeds, output=args.output,
                           workers=args.workers,
                           agents=args.agents.split(",") if args.agents else None,
                           envs=args.envs.split(",") if args.envs else None)
    except ConfigError as exc:
        print(f"pddlkit bench: {exc}", file=sys.stderr)
        return 2
    for line in sweep.skipped:
        print(f"skipped: {line}", file=sys.stderr)
    print(f"sweep {sweep.name}: {len(sweep.cells)} episodes, {sweep.workers} worker(s), "
          f"executor {args.executor}; results in {sweep.results_path}", file=sys.stderr)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.formatwarning = lambda m, *a, **k: f"warning: {m}\n"
        try:
            outcome = run_sweep(sweep, executor_name=args.executor,
                                progress=not args.no_progress, address=args.ray_address)
        except (UnknownAgentError, RuntimeError) as exc:
            print(f"pddlkit bench: {exc}", file=sys.stderr)
            return 2
    print(f"done: {outcome.ran} episodes run, {outcome.skipped} already in the results, "
          f"{outcome.won}/{outcome.total} won"
          + (f", {len(outcome.failed)} failed (they run again next time)"
             if outcome.failed else ""), file=sys.stderr)
    if args.report:
        report_command(argparse.Namespace(results=str(sweep.results_path), plots=None,
                                          no_plots=False))
    return 0 if outcome.ok else 1


def report_command(args) -> int:
    from .report import markdown
    from .results import ResultsFile

    path = Path(args.results)
    if path.is_dir():
        path = path / "results.jsonl"
    if not path.is_file():
        print(f"pddlkit report: no results file at {path}", file=sys.stderr)
        return 2
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.formatwarning = lambda m, *a, **k: f"warning: {m}\n"
        rows = ResultsFile(path).rows()
    print(markdown(rows))
    if args.no_plots or not rows:
        return 0
    from .plots import write_plots

    try:
        written = write_plots(rows, Path(args.plots) if args.plots else path.parent / "plots")
    except RuntimeError as exc:
        print(f"pddlkit report: {exc}", file=sys.stderr)
        return 1
    for p in written:
        print(f"plot: {p}")
    return 0
