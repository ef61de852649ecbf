"""A small local model through PDDLego+: the paper's mode, each help, and the ``--small-model``
preset, with Qwen2.5-Coder 1.5B Instruct behind llama.cpp's server (over HTTP through the real
``openai`` client), one ``pddlkit run pddlego`` per row, on the same seeds.

    .venv/bin/python benchmarks/small_model.py --rows preset,paper --seeds 10
    .venv/bin/python benchmarks/small_model.py --rows all --seeds 5 --out examples/real-llm/small-model.md
    .venv/bin/python benchmarks/small_model.py --env household --rows preset,paper --seeds 5
    .venv/bin/python benchmarks/small_model.py --env alfworld --rows preset --seeds 1

Rows (``--rows``, comma-separated names, or ``all``): ``paper`` (no help: the paper's loop),
each help alone (``modular``, ``repair``, ``declare-objects``, ``fresh-answers``,
``fact-memory``, ``refuted-facts``, and the modular formalizer's ``novel-goals`` ...
``task-focus``), ``preset`` (``--small-model``), ``preset-before`` (what ``--small-model``
turned on before the household's six helps joined it on 2026-11-28: the rows called
``preset`` in ``small-model.md`` until then), ``preset-free`` (the
preset without grammar-constrained decoding) and ``paper-free`` (the paper's loop without it),
to say whether the grammar helps this model with the other helps and without them,
``preset-library`` (the preset on the library's learned domain instead),
``whole-file-helps`` (the preset's helps without ``--modular``: the model writes the whole
problem file), ``plangen`` (the LLM as planner, for reference), ``written`` (the model writes
the domain too, issue 75) and ``learned`` (a domain the model wrote in ``pddlkit
learn-domain``, frozen: ``--library DIR`` names that library; ``learned-listed`` adds
``--listed-types``; on TextWorld's coin games both reuse the library's CoinCollector entry,
whose commands theirs are, with the aspects it was learned under: ``learned_domains_of``,
:mod:`pddlkit.envs.api`; until 2026-12-06 its file was given, ``--domain``). Every row runs on CoinCollector
(``--rooms``) with CoinCollector's reference domain frozen (``--domain
domains/coin-collector/domain.pddl``: the model writes the problem side only), except
``preset-library`` (the library's learned domain, whose names ``open``/``door``/``?a ?b ?d``
a 1.5B model misreads more) and ``plangen``, which writes no PDDL. ``--env household`` (the
native household, ``--receptacles``, difficulty ``basic&use`` as the issue asks) and ``--env
alfworld`` (a real ALFWorld game, ``pick`` tasks) freeze the household's reference domain
instead: ALFWorld's formalizers write the household's action schema (see
:mod:`pddlkit.envs.alfworld_adapter`). ``--first-seed`` starts the seeds elsewhere, so a
long sweep can be run in parts; every row names its seeds, and the table is rewritten after
each row, so a stopped run keeps the rows it finished. ``--save DIR`` keeps each row's
episodes (JSON) and its record (every episode's events, for counting failure modes);
``--merge DIR`` pools the rows kept there into one table per environment (seeds run in parts
at one commit are one row). Interrupted (Ctrl-C, or ``timeout -s INT`` around a long seed), it
prints one line with the running row's own: the episode it cut, the seconds and LLM calls that
episode had spent; that episode has no row, and with ``--save`` its record ends with an
``interrupted`` event carrying its calls and tokens
(:meth:`pddlkit.agents.episode.Job.interrupted`, :func:`constrained.run_cli`).

Seeds (``--split``): ``dev`` seeds (0-99) are for finding failures and building helps;
``test`` seeds (1000 and up) are run only to report, at one commit, and no help names them
(``tests/test_seed_split.py`` reads every help's docstring and every test for seeds). A
figure quoted as what a model can do comes from test seeds, beside ``--model random`` on the
same seeds: ``random`` (or ``random:SEED``) plays every row with answers drawn at random under
the same grammars (:mod:`pddlkit.llm.random_answers`), no server started, and ``--merge``
gives each model row a ``lift`` column: its won share minus the random row's on the same
seeds, in points.

Columns: won, LLM calls, tokens (prompt + completion), wall seconds, calls per won episode,
mean fact precision and recall of the problem files against the environment's truth
(:mod:`pddlkit.formalizers.scoring`), how the calls were decoded, and the helps the row used
(its own ``helps`` column), and the prompt tokens llama.cpp's server evaluated (read from its
log; it keeps the evaluation of the previous prompt, so a part whose prompt begins as the
last one's did costs only the rest; with ``--prompt-cache`` it also keeps earlier prompts'
evaluations, see :mod:`pddlkit.llm.local_server`) with its prompt speed. Temperature 0, the
responses' cache off (``PDDLKIT_NO_CACHE=1``). The helps were built from failures on dev
seeds (``--split dev``, 0-99, the default); only ``--split test`` rows (1000 and up, which no
help's code or test names: ``tests/test_seed_split.py``) are held out, and only they are
quoted as what a model can do.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from constrained import is_random, llm_spec  # noqa: E402
FROZEN = ["--domain", str(REPO / "domains" / "coin-collector" / "domain.pddl")]
HOUSEHOLD = str(REPO / "domains" / "household" / "domain.pddl")
#: --env -> (the environment's arguments, given --rooms and --receptacles; its frozen domain)
ENVS = {
    "coin-collector": (lambda a: ["--env", "coin-collector", "--rooms", str(a.rooms)], None),
    "household": (lambda a: ["--env", "household", "--receptacles", str(a.receptacles),
                             "--difficulty", "basic&use"], HOUSEHOLD),
    "alfworld": (lambda a: ["--env", "alfworld", "--task", a.task], HOUSEHOLD),
    # TextWorld's own coin games (tw-coin_collector): CoinCollector's reference domain frozen
    "textworld": (lambda a: ["--env", "textworld", "--game", "coin", "--level", str(a.level)],
                  None),
}
#: ALFWorld's six task types, for --task each
ALFWORLD_TASKS = ("pick", "look", "clean", "heat", "cool", "pick_two")
LIBRARY = ["--reuse-domain", "--library", str(REPO / "domains" / "learned")]
#: what ``--small-model`` turned on before the household's six helps joined it (2026-11-28)
PRESET_BEFORE = ["--modular", "--repair", "--declare-objects", "--fresh-answers",
                 "--fact-memory", "--problem-only", "--refuted-facts", "--novel-goals",
                 "--local-facts"]
#: the model a row runs unless --model says another (its kept files carry no model prefix)
DEFAULT_MODEL = "qwen2.5-coder-1.5b"
ROWS = {
    "paper": ("pddlego", [*FROZEN, "--constrained"]),
    # the paper's loop without the grammar: with preset-free, says whether the grammar helps
    # this model without the other helps and with them
    "paper-free": ("pddlego", [*FROZEN]),
    "modular": ("pddlego", [*FROZEN, "--constrained", "--modular"]),
    # novel goals chooses among the modular formalizer's goals: modular with it, against the above
    "novel-goals": ("pddlego", [*FROZEN, "--constrained", "--modular", "--novel-goals"]),
    "local-facts": ("pddlego", [*FROZEN, "--constrained", "--modular", "--local-facts"]),
    # the household's helps: each alone, and over the preset as it was before they joined it
    # (``--small-model`` has them all since 2026-11-28; these rows spell the older set out,
    # so they still mean what they measured)
    "typed-objects": ("pddlego", [*FROZEN, "--constrained", "--modular", "--typed-objects"]),
    "ask-missing": ("pddlego", [*FROZEN, "--constrained", "--modular", "--ask-missing"]),
    "world-literals": ("pddlego", [*FROZEN, "--constrained", "--modular", "--world-literals"]),
    "preset-plus": ("pddlego", [*FROZEN, "--constrained", *PRESET_BEFORE, "--typed-objects",
                                "--ask-missing", "--world-literals"]),
    "task-goals": ("pddlego", [*FROZEN, "--constrained", "--modular", "--task-goals"]),
    "preset-plus-task": ("pddlego", [*FROZEN, "--constrained", *PRESET_BEFORE,
                                     "--typed-objects", "--ask-missing", "--world-literals",
                                     "--task-goals"]),
    "command-facts": ("pddlego", [*FROZEN, "--constrained", "--modular", "--command-facts"]),
    "preset-commands": ("pddlego", [*FROZEN, "--constrained", *PRESET_BEFORE,
                                    "--typed-objects", "--ask-missing", "--world-literals",
                                    "--task-goals", "--command-facts"]),
    "task-focus": ("pddlego", [*FROZEN, "--constrained", "--modular", "--task-focus"]),
    # the preset before them with all six: the preset from 4712218 until --here-facts joined
    "preset-focus": ("pddlego", [*FROZEN, "--constrained", *PRESET_BEFORE,
                                 "--typed-objects", "--ask-missing", "--world-literals",
                                 "--task-goals", "--command-facts", "--task-focus"]),
    # alone, and over the preset: the same helps as ``preset`` since it joined (2026-11-28)
    "here-facts": ("pddlego", [*FROZEN, "--constrained", "--modular", "--here-facts"]),
    "preset-here": ("pddlego", [*FROZEN, "--constrained", "--small-model", "--here-facts"]),
    "repair": ("pddlego", [*FROZEN, "--constrained", "--repair"]),
    "declare-objects": ("pddlego", [*FROZEN, "--constrained", "--declare-objects"]),
    "fresh-answers": ("pddlego", [*FROZEN, "--constrained", "--fresh-answers"]),
    "fact-memory": ("pddlego", [*FROZEN, "--constrained", "--fact-memory"]),
    "refuted-facts": ("pddlego", [*FROZEN, "--constrained", "--refuted-facts"]),
    "preset": ("pddlego", [*FROZEN, "--constrained", "--small-model"]),
    # the rows named ``preset`` in small-model.md before 2026-11-28
    "preset-before": ("pddlego", [*FROZEN, "--constrained", *PRESET_BEFORE]),
    "preset-free": ("pddlego", [*FROZEN, "--small-model"]),
    "preset-library": ("pddlego", [*LIBRARY, "--constrained", "--small-model"]),
    "whole-file-helps": ("pddlego", [*FROZEN, "--constrained", "--repair", "--declare-objects",
                                     "--fresh-answers", "--fact-memory", "--problem-only",
                                     "--refuted-facts"]),
    "plangen": ("plangen", []),
    # issue 75: the model writes the domain (no --domain), each schema checked against every
    # transition the agent observed (--schema-check, in the preset since 2026-12-02)
    "written": ("pddlego", ["--constrained", "--small-model"]),
    # a domain the model wrote in ``pddlkit learn-domain`` (dev seeds), frozen: the library
    # is --library's (its best verified entry for the environment); the row's domain column
    # names the entry and its writer, and its learning columns what learning cost
    "learned": ("pddlego", ["--reuse-domain", "--constrained", "--small-model"]),
    # the same with --listed-types (formalizers/helps/listed_types.py): a type the game's
    # complete list of commands fills closed over the frozen domain too; built from the
    # learned TextWorld row's test seeds, so measured on seeds never used
    "learned-listed": ("pddlego", ["--reuse-domain", "--constrained", "--small-model",
                                   "--listed-types"]),
}


def row_arguments(env_args: list[str], frozen: str | None, args: list[str]) -> list[str]:
    """The row's arguments for this environment: its frozen domain in place of
    CoinCollector's."""
    if frozen is None:
        return [*env_args, *args]
    swapped = [frozen if a == FROZEN[1] else a for a in args]
    return [*env_args, *swapped]


def run_row(agent: str, args: list[str], model: str, first_seed: int, seeds: int,
            budget: int, folder: Path, record: Path | None = None) -> dict:
    from constrained import run_row as run

    recording = ["--record", str(record)] if record else []
    return run(agent, ["--budget", str(budget), "--seed", str(first_seed), "--episodes",
                       str(seeds), *recording, *args], model, False, folder,
               timeout=6 * 3600)


def server_log(model: str) -> Path:
    from pddlkit.llm.local_server import slug, servers_dir

    return servers_dir() / f"{slug(model)}.log"


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


def acted_helps(rows: list[dict]) -> str:
    """The rows' helps, each with how often it changed something over all of them (issue
    73: a help that was on and never acted shows 0); "" for rows recorded before rows
    counted it (their ``helps`` column is shown instead)."""
    total: dict[str, int] = {}
    for row in rows:
        if "helps_acted" not in row:
            return ""
        for item in filter(None, row["helps_acted"].split(", ")):
            if item == "none":
                continue
            label, _, n = item.rpartition(" ")
            total[label] = total.get(label, 0) + int(n)
    return ", ".join(f"{label} {n}" for label, n in total.items()) or "none"


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
    helps = acted_helps(rows) or (rows[0].get("helps", "none") if rows else "?")
    prompt = sum(r.get("prompt_tokens", 0) for r in rows)
    read, seconds = result.get("evaluated", (0, 0.0))
    reuse = (f"{read} of {prompt} ({read / prompt:.0%}), {read / seconds:.0f} tok/s"
             if prompt and seconds else "-")
    domains = ", ".join(sorted({r.get("domain_source", "?") for r in rows})) or "?"
    return [f"{won}/{len(rows)}", str(calls), str(tokens), f"{result['seconds']:.0f}", per_won,
            median_won, pooled(rows), reuse, modes, helps, domains, learning_cell(rows)]


def learning_cell(rows: list[dict]) -> str:
    """What learning the row's domain cost (issue 75), from its rows' ``learning_*`` columns:
    ``3 episodes, 264 s, 32084 tokens``; ``-`` for a domain no model learnt (the reference,
    a given file, or one written in the episode, whose cost is in the row's own columns)."""
    costs = sorted({(r["learning_episodes"], r.get("learning_seconds"), r.get("learning_tokens"))
                    for r in rows if r.get("learning_episodes") is not None}, key=str)
    return "; ".join(f"{e} episodes, {s:.0f} s, {t} tokens" for e, s, t in costs) or "-"


#: dev seeds build helps; test seeds only report (see the module's docstring)
SPLITS = {"dev": (0, 100), "test": (1000, None)}


#: --env -> (environment id, its options as sorted pairs), for the games' identities
IDENTITY = {
    "coin-collector": lambda a: ("coin-collector", (("rooms", a.rooms),)),
    "household": lambda a: ("household", (("difficulty", "basic&use"),
                                          ("receptacles", a.receptacles))),
    "alfworld": lambda a: ("alfworld", (("task", a.task),)),
    "textworld": lambda a: ("textworld", (("game", "coin"), ("level", a.level))),
}


def split_seeds(split: str, first: int | None, seeds: int, identity=None) -> list[int]:
    """The ``seeds`` seeds of ``split`` from ``first`` (the split's start when None): dev seeds
    as they come; test seeds skip any whose game a dev seed builds (``identity``: the
    environment's id and options; :mod:`seed_split`). ValueError when the run leaves the
    split."""
    low, high = SPLITS[split]
    first = low if first is None else first
    last = first + seeds - 1
    if first < low or (high is not None and last >= high):
        where = f"{low}..{high - 1}" if high is not None else f"{low} and up"
        raise ValueError(f"seeds {first}..{last} are not all {split} seeds ({where})")
    if split == "dev" or identity is None:
        return list(range(first, first + seeds))
    from seed_split import test_seeds

    return test_seeds(*identity, seeds, first)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default=DEFAULT_MODEL,
                        help=f"a local model (local:MODEL; default {DEFAULT_MODEL}) or "
                             "random[:SEED], the floor")
    parser.add_argument("--rows", default="paper,preset",
                        help="comma-separated row names, or all: " + ", ".join(ROWS))
    parser.add_argument("--seeds", type=int, default=10, help="how many seeds (default 10)")
    parser.add_argument("--env", choices=list(ENVS), default="coin-collector")
    parser.add_argument("--split", choices=list(SPLITS), default="dev",
                        help="dev seeds (0-99) to build, test seeds (1000 and up) to report")
    parser.add_argument("--first-seed", type=int, default=None,
                        help="the first seed, inside --split (default: the split's first)")
    parser.add_argument("--rooms", type=int, default=3)
    parser.add_argument("--receptacles", type=int, default=8)
    parser.add_argument("--task", choices=[*ALFWORLD_TASKS, "each"], default="pick",
                        help="ALFWorld's task type (--env alfworld); each: one table per type")
    parser.add_argument("--level", type=int, default=5,
                        help="the TextWorld coin game's level (--env textworld)")
    parser.add_argument("--budget", type=int, default=30)
    parser.add_argument("--out", help="also write the table (Markdown) here")
    parser.add_argument("--save", metavar="DIR",
                        help="also keep each row's episodes here (JSON), for --merge")
    parser.add_argument("--prompt-cache", action="store_true",
                        help="start the server with its RAM prompt cache "
                             "(PDDLKIT_LOCAL_PROMPT_CACHE=1); rows are named '+prompt-cache'. "
                             "A server already running without it is refused: give this run "
                             "its own PDDLKIT_CACHE_DIR")
    parser.add_argument("--library", metavar="DIR",
                        help="the learned domains' library for the 'learned' row (what "
                             "`pddlkit learn-domain --library DIR` saved to); also replaces "
                             "the shipped library in 'preset-library'")
    parser.add_argument("--merge", metavar="DIR",
                        help="run nothing: one table per environment from the rows kept "
                             "with --save, seeds pooled per row")
    args = parser.parse_args()
    if args.merge:
        text = merged(Path(args.merge))
        print(text)
        if args.out:
            Path(args.out).write_text(text)
        return
    if args.task != "pick" and args.env != "alfworld":
        parser.error("--task is ALFWorld's task type; give it with --env alfworld")
    if args.level != 5 and args.env != "textworld":
        parser.error("--level is the TextWorld coin game's; give it with --env textworld")
    tasks = ALFWORLD_TASKS if args.task == "each" else (args.task,)
    tables: list[str] = []
    errored = False
    for task in tasks:
        args.task = task
        errored |= table(args, parser, tables)
    if errored:   # a row that could not run is in its table, and the status says so
        sys.exit(1)


def table(args, parser, tables: list[str]) -> bool:
    """One table: every row of ``--rows`` on the seeds, for one environment (one ALFWorld
    task type); with ``--out`` the file holds ``tables`` so far and this one. True when a
    row could not run (its line says why)."""
    errored = False
    try:
        chosen = split_seeds(args.split, args.first_seed, args.seeds,
                             IDENTITY[args.env](args) if args.split == "test" else None)
    except ValueError as exc:
        parser.error(f"{exc}; --first-seed and --seeds stay inside --split {args.split}")
    except ImportError as exc:   # ALFWorld's or TextWorld's package missing: its fix, no trace
        parser.error(str(exc))
    from seed_split import spans

    runs = spans(chosen)
    args.first_seed = chosen[0]
    names = list(ROWS) if args.rows == "all" else args.rows.split(",")
    unknown = [n for n in names if n not in ROWS]
    if unknown:
        parser.error(f"unknown row(s) {', '.join(unknown)}; rows: {', '.join(ROWS)}, all")
    header = ["row", "won", "LLM calls", "tokens", "wall s", "calls per won",
              "median won min", "files against the truth",
              "prompt tokens the server evaluated", "decoding", "helps (times acted)", "domain",
              "domain learning"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    if {"learned", "learned-listed"} & set(names) and not args.library:
        parser.error("the 'learned' rows reuse a domain learn-domain saved: give --library DIR")
    if args.env == "alfworld" and "preset-library" in names:
        parser.error("preset-library is CoinCollector's learned domain; leave it out here")
    env_args, frozen = ENVS[args.env]
    where = {"coin-collector": f"CoinCollector {args.rooms} rooms",
             "household": f"the household, {args.receptacles} receptacles, basic&use",
             "alfworld": f"ALFWorld (the real game), {args.task} tasks",
             "textworld": f"TextWorld's coin game (the real package), level {args.level}"
             }[args.env]
    last = chosen[-1]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, text=True,
                            capture_output=True).stdout.strip() or "unknown"
    title = (f"{where}, {args.split} seeds {args.first_seed}..{last}, budget {args.budget}, "
             f"{llm_spec(args.model)}, commit {commit}")
    print(title, flush=True)
    print(lines[0], flush=True)
    print(lines[1], flush=True)
    # the rows' processes inherit it, on or off, so a running server started the other way is
    # refused (not reused under the wrong label); checked here once, before any row runs
    os.environ["PDDLKIT_LOCAL_PROMPT_CACHE"] = "1" if args.prompt_cache else "0"
    from pddlkit.llm import local_server
    from pddlkit.llm.errors import LLMError

    try:
        if not is_random(args.model):
            local_server.start(args.model)
    except LLMError as exc:
        parser.error(f"{exc} ({exc.hint})" if getattr(exc, "hint", None) else str(exc))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            agent, row_args = ROWS[name]
            if args.library and "--reuse-domain" in row_args:
                row_args = [*_without_library(row_args), "--library", args.library]
            label = f"{name}+prompt-cache" if args.prompt_cache else name
            log = server_log(args.model)
            start = log.stat().st_size if log.exists() else 0
            record = None
            if args.save:
                Path(args.save).mkdir(parents=True, exist_ok=True)
                record = Path(args.save) / (stem(args.model, where, label, args.first_seed, last)
                                            + ".record.jsonl")
            result = {"rows": [], "calls": [], "seconds": 0.0}
            for first, count in runs:   # test seeds skip games a dev seed builds
                part = run_row(agent, row_arguments(env_args(args), frozen, row_args),
                               args.model, first, count, args.budget, Path(tmp), record)
                if "error" in part:
                    result = part
                    break
                for key in ("rows", "calls"):
                    result[key] += part[key]
                result["seconds"] += part["seconds"]
            result["evaluated"] = evaluated(log, start)
            if "error" in result:
                errored = True
                line = f"| {label} | error: {result['error']} |"
            else:
                line = "| " + " | ".join([label, *cells(result)]) + " |"
            lines.append(line)
            print(line, flush=True)
            if args.save and "error" not in result:
                keep(Path(args.save), label, where, args, commit, result)
            if args.out:
                write(args.out, tables, title, lines, "unfinished: rows still to run")
    total = f"{(time.perf_counter() - started) / 60:.0f} minutes in all on this machine"
    print(total)
    if args.out:
        write(args.out, tables, title, lines, total)
    tables.append(section(title, lines, total))
    return errored


def _without_library(row_args: list[str]) -> list[str]:
    """The row's arguments less its ``--library DIR`` (``--library`` gives another)."""
    out, skip = [], False
    for arg in row_args:
        if skip or arg == "--library":
            skip = not skip
            continue
        out.append(arg)
    return out


def stem(model: str, where: str, row: str, first: int, last: int) -> str:
    """A kept row's file name: environment, row and seeds, after the model's name unless it
    is the default model (so ``random``'s row and Qwen's on the same seeds, kept in one
    folder, do not overwrite each other's record)."""
    who = "" if model == DEFAULT_MODEL else f"{model}-"
    return re.sub(r"[^\w.-]+", "-", f"{who}{where}-{row}-{first}-{last}")


def keep(folder: Path, name: str, where: str, args, commit: str, result: dict) -> None:
    """One row's episodes and calls as JSON, named by row, environment and seeds."""
    import json

    folder.mkdir(parents=True, exist_ok=True)
    last = max(r["seed"] for r in result["rows"]) if result["rows"] else args.first_seed
    (folder / f"{stem(args.model, where, name, args.first_seed, last)}.json").write_text(json.dumps({
        "row": name, "where": where, "first": args.first_seed, "last": last,
        "seeds": [r["seed"] for r in result["rows"]],
        "split": args.split, "budget": args.budget, "model": args.model, "commit": commit,
        "result": result}))


def merged(folder: Path) -> str:
    """The rows kept with --save, pooled per (environment, budget, split, model): episodes and
    calls joined, seconds and evaluated tokens summed; each table says its seeds and commits.
    A model's row gets a ``lift`` column when the random floor played the same row on the same
    seeds: its won share minus the floor's, in points."""
    import gzip
    import json

    groups: dict[tuple, list[dict]] = {}
    files = sorted([*folder.glob("*[0-9].json"), *folder.glob("*[0-9].json.gz")])
    for file in files:   # committed rows are gzipped
        kept = json.loads(gzip.decompress(file.read_bytes()) if file.suffix == ".gz"
                          else file.read_text())
        key = (kept["where"], kept["budget"], kept.get("split", "dev"), kept["model"])
        groups.setdefault(key, []).append(kept)
    pooled_rows = {key: _pool(chunks) for key, chunks in groups.items()}
    header = ["row", "seeds", "won", "lift", "LLM calls", "tokens", "wall s", "calls per won",
              "median won min", "files against the truth",
              "prompt tokens the server evaluated", "decoding", "helps (times acted)", "domain",
              "domain learning"]
    out = ["# A small model through PDDLego+ (`benchmarks/small_model.py`)\n"]
    for (where, budget, split, model), rows in pooled_rows.items():
        commits = sorted({c["commit"] for c in groups[(where, budget, split, model)]})
        out.append(f"## {where}, budget {budget}, {split} seeds, {llm_spec(model)}\n")
        out.append(f"Measured at commit {', '.join(commits)}; each row's domain in its "
                   "`domain` column (see each row's arguments in the script).\n")
        out.append("| " + " | ".join(header) + " |")
        out.append("|" + "---|" * len(header))
        floors = {} if is_random(model) else next(
            (found for (w, b, sp, m), found in pooled_rows.items()
             if (w, b, sp) == (where, budget, split) and is_random(m)), {})
        for name, (seeds, result) in rows.items():
            cell = cells(result)
            lift = "-"
            floor = floors.get(name)
            if floor is not None:   # the floor's episodes on this row's seeds, when it has all
                mine = {r["seed"] for r in result["rows"]}
                same = [r for r in floor[1]["rows"] if r["seed"] in mine]
                if {r["seed"] for r in same} == mine:
                    lift = f"{_share(result) - _share({'rows': same}):+.0f}"
            out.append("| " + " | ".join([name, seeds, cell[0], lift, *cell[1:]]) + " |")
        out.append("")
    out.append("Produced by `benchmarks/small_model.py --merge DIR` from the rows each run "
               "kept with `--save DIR`; lift: won % minus the random row's on the same seeds "
               "(the random row's episodes on this row's seeds; - where it has not played "
               "them all).")
    return "\n".join(out) + "\n"


def _share(result: dict) -> float:
    rows = result["rows"]
    return 100.0 * sum(1 for r in rows if r.get("won")) / len(rows) if rows else 0.0


def _pool(chunks: list[dict]) -> dict[str, tuple[str, dict]]:
    """Each row's (seed spans, pooled result) from its kept runs: runs kept seed by seed that
    follow on read as one span."""
    rows: dict[str, list[dict]] = {}
    for chunk in chunks:
        rows.setdefault(chunk["row"], []).append(chunk)
    pooled_rows = {}
    for name, parts in rows.items():
        parts.sort(key=lambda c: c["first"])
        result = {"rows": [r for c in parts for r in c["result"]["rows"]],
                  "calls": [x for c in parts for x in c["result"]["calls"]],
                  "seconds": sum(c["result"]["seconds"] for c in parts),
                  "evaluated": (sum(c["result"]["evaluated"][0] for c in parts),
                                sum(c["result"]["evaluated"][1] for c in parts))}
        seeds = sorted({seed for c in parts
                        for seed in c.get("seeds", range(c["first"], c["last"] + 1))})
        runs: list[list[int]] = []
        for seed in seeds:
            if runs and seed == runs[-1][1] + 1:
                runs[-1][1] = seed
            else:
                runs.append([seed, seed])
        pooled_rows[name] = (", ".join(f"{a}..{b}" for a, b in runs), result)
    return pooled_rows


def section(title: str, lines: list[str], total: str) -> str:
    command = "benchmarks/small_model.py " + " ".join(sys.argv[1:])
    return (f"{title}; each row's domain in its `domain` column (see each row's arguments in "
            f"the script).\n\n" + "\n".join(lines) + f"\n\n{total}. Produced by `{command}`.\n")


def write(out: str, tables: list[str], title: str, lines: list[str], total: str) -> None:
    """``out``: the tables finished before this one (other ALFWorld task types), then this."""
    Path(out).write_text("# A small model through PDDLego+ (`benchmarks/small_model.py`)\n\n"
                         + "\n".join([*tables, section(title, lines, total)]))


if __name__ == "__main__":
    from interrupt import run

    run(main, kept=("the rows above are complete; with --out FILE they are in FILE (marked "
                    "unfinished), and with --save DIR each finished row's episodes are in DIR"))
