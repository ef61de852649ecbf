"""A small local model through PDDLego+: the paper's mode, each help, and the ``--small-model``
preset, with Qwen2.5-Coder 1.5B Instruct behind llama.cpp's server (over HTTP through the real
``openai`` client), one ``pddlkit run pddlego`` per row, on the same seeds.

    .venv/bin/python benchmarks/small_model.py --rows preset,paper --seeds 10
    .venv/bin/python benchmarks/small_model.py --rows all --seeds 5 --out examples/real-llm/small-model.md

Rows (``--rows``, comma-separated names, or ``all``): ``paper`` (no help: the paper's loop),
each help alone (``modular``, ``repair``, ``declare-objects``, ``fresh-answers``,
``fact-memory``, ``refuted-facts``), ``preset`` (``--small-model``), ``preset-free`` (the
preset without grammar-constrained decoding, to say whether the grammar helps this model),
``preset-library`` (the preset on the library's learned domain instead),
``whole-file-helps`` (the preset's helps without ``--modular``: the model writes the whole
problem file), ``plangen`` (the LLM as planner, for reference). Every row runs on CoinCollector
(``--rooms``) with CoinCollector's reference domain frozen (``--domain
domains/coin-collector/domain.pddl``: the model writes the problem side only), except
``preset-library`` (the library's learned domain, whose names ``open``/``door``/``?a ?b ?d``
a 1.5B model misreads more) and ``plangen``, which writes no PDDL.

Columns: won, LLM calls, tokens (prompt + completion), wall seconds, calls per won episode,
mean fact precision and recall of the problem files against the environment's truth
(:mod:`pddlkit.formalizers.scoring`), how the calls were decoded, and the helps the row used
(its own ``helps`` column), and the prompt tokens llama.cpp's server evaluated (read from its
log; it keeps the evaluation of the previous prompt, so a part whose prompt begins as the
last one's did costs only the rest) with its prompt speed. Nothing is tuned to the seeds: temperature 0, seeds 0..N-1, the
responses' cache off (``PDDLKIT_NO_CACHE=1``).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
FROZEN = ["--domain", str(REPO / "domains" / "coin-collector" / "domain.pddl")]
LIBRARY = ["--reuse-domain", "--library", str(REPO / "domains" / "learned")]
ROWS = {
    "paper": ("pddlego", [*FROZEN, "--constrained"]),
    "modular": ("pddlego", [*FROZEN, "--constrained", "--modular"]),
    "repair": ("pddlego", [*FROZEN, "--constrained", "--repair"]),
    "declare-objects": ("pddlego", [*FROZEN, "--constrained", "--declare-objects"]),
    "fresh-answers": ("pddlego", [*FROZEN, "--constrained", "--fresh-answers"]),
    "fact-memory": ("pddlego", [*FROZEN, "--constrained", "--fact-memory"]),
    "refuted-facts": ("pddlego", [*FROZEN, "--constrained", "--refuted-facts"]),
    "preset": ("pddlego", [*FROZEN, "--constrained", "--small-model"]),
    "preset-free": ("pddlego", [*FROZEN, "--small-model"]),
    "preset-library": ("pddlego", [*LIBRARY, "--constrained", "--small-model"]),
    "whole-file-helps": ("pddlego", [*FROZEN, "--constrained", "--repair", "--declare-objects",
                                     "--fresh-answers", "--fact-memory", "--problem-only",
                                     "--refuted-facts"]),
    "plangen": ("plangen", []),
}


def run_row(agent: str, args: list[str], model: str, seeds: int, rooms: int, budget: int,
            folder: Path) -> dict:
    from constrained import run_row as run

    return run(agent, ["--env", "coin-collector", "--rooms", str(rooms), "--budget",
                       str(budget), "--episodes", str(seeds), *args], model, False, folder,
               timeout=6 * 3600)


def server_log(model: str) -> Path:
    from pddlkit.llm.local_server import _slug, servers_dir

    return servers_dir() / f"{_slug(model)}.log"


def evaluated(log: Path, start: int) -> tuple[int, float]:
    """(prompt tokens the server evaluated, seconds it took) in the log after byte ``start``:
    llama.cpp keeps the evaluation of the previous prompt, so a prompt that shares its
    beginning with the last one costs only the rest."""
    if not log.exists():
        return 0, 0.0
    with open(log, "rb") as text:
        text.seek(start)
        tail = text.read().decode("utf-8", "replace")
    found = re.findall(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens", tail)
    return sum(int(n) for _ms, n in found), sum(float(ms) for ms, _n in found) / 1000


def cells(result: dict) -> list[str]:
    from pddlkit.formalizers.scoring import pooled
    from pddlkit.llm.grammar import describe_modes

    rows = result["rows"]
    won = sum(1 for r in rows if r.get("won"))
    calls = sum(r.get("llm_calls", 0) for r in rows)
    tokens = sum(r.get("prompt_tokens", 0) + r.get("completion_tokens", 0) for r in rows)
    per_won = f"{calls / won:.0f}" if won else "-"
    walls = [r.get("loop_seconds", 0.0) for r in rows if r.get("won")]
    median_won = f"{statistics.median(walls) / 60:.1f}" if walls else "-"
    modes = describe_modes(c.get("constraint_mode", "") for c in result["calls"]) or "free"
    helps = rows[0].get("helps", "none") if rows else "?"
    prompt = sum(r.get("prompt_tokens", 0) for r in rows)
    read, seconds = result.get("evaluated", (0, 0.0))
    reuse = (f"{read} of {prompt} ({read / prompt:.0%}), {read / seconds:.0f} tok/s"
             if prompt and seconds else "-")
    return [f"{won}/{len(rows)}", str(calls), str(tokens), f"{result['seconds']:.0f}", per_won,
            median_won, pooled(rows), reuse, modes, helps]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--rows", default="paper,preset")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--rooms", type=int, default=3)
    parser.add_argument("--budget", type=int, default=30)
    parser.add_argument("--out", help="also write the table (Markdown) here")
    args = parser.parse_args()
    names = list(ROWS) if args.rows == "all" else args.rows.split(",")
    unknown = [n for n in names if n not in ROWS]
    if unknown:
        parser.error(f"unknown row(s) {', '.join(unknown)}; rows: {', '.join(ROWS)}, all")
    header = ["row", "won", "LLM calls", "tokens", "wall s", "calls per won",
              "median won min", "files against the truth",
              "prompt tokens the server evaluated", "decoding", "helps"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    print(f"CoinCollector {args.rooms} rooms, seeds 0..{args.seeds - 1}, budget {args.budget}, "
          f"local:{args.model}", flush=True)
    print(lines[0], flush=True)
    print(lines[1], flush=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            agent, row_args = ROWS[name]
            log = server_log(args.model)
            start = log.stat().st_size if log.exists() else 0
            result = run_row(agent, row_args, args.model, args.seeds, args.rooms, args.budget,
                             Path(tmp))
            result["evaluated"] = evaluated(log, start)
            if "error" in result:
                line = f"| {name} | error: {result['error']} |"
            else:
                line = "| " + " | ".join([name, *cells(result)]) + " |"
            lines.append(line)
            print(line, flush=True)
    total = f"{(time.perf_counter() - started) / 60:.0f} minutes in all on this machine"
    print(total)
    if args.out:
        Path(args.out).write_text(
            f"# A small model through PDDLego+ (`benchmarks/small_model.py`)\n\n"
            f"CoinCollector {args.rooms} rooms, seeds 0..{args.seeds - 1}, budget "
            f"{args.budget}, local:{args.model}, a frozen domain (see each row's arguments "
            f"in the script).\n\n"
            + "\n".join(lines) + f"\n\n{total}.\n")


if __name__ == "__main__":
    main()
