"""``pddlkit run`` and the formalizer part of ``pddlkit demo``.

Both reach the core CLI through entry points (``pddlkit.commands`` and ``pddlkit.demos`` in
pyproject.toml), so the core never imports the front ends.

    pddlkit run --env coin-collector --rooms 7 --seed 0 --agent pddlego --llm openai:gpt-4o-mini
    pddlkit run --env coin-collector --llm noisy          # offline, with injected errors
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from dataclasses import asdict
from pathlib import Path
from typing import Any, Optional


def _count(least: int):
    """argparse type: an integer of at least ``least`` (0 episodes would print nothing)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
        if value < least:
            raise argparse.ArgumentTypeError(f"must be {least} or more, got {value}")
        return value
    return parse


def _writable_file(path: Optional[str], flag: str) -> Optional[str]:
    """Why ``path`` cannot take appended JSON lines (a directory, an unwritable place), or
    None. Checked before the episode, so no work is lost to a bad path at the end."""
    if not path:
        return None
    where = Path(path)
    if where.is_dir():
        return f"{flag} {path} is a directory; name a file, e.g. {where / 'episode.jsonl'}"
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        with open(where, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        return f"{flag} {path}: cannot write there ({exc.strerror or exc}); name a file in a " \
               "folder you can write to"
    return None


def _run_agents() -> dict:
    """Agents of other front ends for ``pddlkit run --agent`` (entry points of
    ``pddlkit.run_agents``: an object with ``add_arguments(parser)`` and ``run(args)``)."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group="pddlkit.run_agents")}


def register(sub) -> None:
    p = sub.add_parser("run", help="play episodes with a formalizer (PDDLego+ loop)")
    p.add_argument("--env", default="coin-collector", help="an id from `pddlkit envs`")
    p.add_argument("--rooms", type=int, help="coin-collector: number of rooms")
    p.add_argument("--receptacles", type=int, help="household: number of receptacles")
    p.add_argument("--difficulty", help="household: basic&use, clean, cool, heat, slice+")
    p.add_argument("--task", help="alfworld: pick, look, clean, heat, cool, pick_two")
    p.add_argument("--floorplan", type=int, help="alfworld: the AI2-THOR scene (default: by seed)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--episodes", type=_count(1), default=1, help="seeds seed, seed+1, ...")
    plugins = _run_agents()
    p.add_argument("--agent", default="pddlego", choices=["pddlego", "plangen", *plugins],
                   help="pddlego: the PDDLego+ loop; plangen: the LLM picks each command"
                        + "".join(f"; {name}: from {ep.value.split(':')[0]}"
                                  for name, ep in plugins.items()))
    p.add_argument("--llm", default="observation",
                   help="'observation', 'noisy[:rate]', or an LLM spec (openai:gpt-4o-mini, ...)")
    p.add_argument("--goal-style", default="detailed", choices=["detailed", "simple"])
    p.add_argument("--prompts", help="a folder of prompt templates overriding the bundled ones")
    p.add_argument("--budget", type=_count(1), default=50,
                   help="environment actions per episode")
    p.add_argument("--retries", type=_count(0), default=5,
                   help="solver and simulation retry limits")
    p.add_argument("--max-tokens", type=_count(1), default=None,
                   help="cap on each LLM answer's tokens (small local models may otherwise "
                        "write until their context is full)")
    p.add_argument("--record", help="write the episode record (JSONL) here")
    p.add_argument("--transcript", help="append every LLM call (JSONL) here")
    p.add_argument("--quiet", action="store_true", help="no live transcript")
    p.add_argument("--json", action="store_true", help="print the metrics as JSON")
    p.add_argument("--repair", action="store_true",
                   help="fix trivial PDDL slips in code before spending an LLM call")
    p.add_argument("--fact-memory", action="store_true",
                   help="merge facts confirmed in earlier steps into each new problem file")
    p.add_argument("--library", help="domain library folder (default: the user's)")
    p.add_argument("--save-domain", action="store_true",
                   help="save the domain of each won episode to the library")
    p.add_argument("--reuse-domain", action="store_true",
                   help="freeze the library's best verified domain for this environment")
    for name, ep in plugins.items():  # the agent's own options
        try:
            ep.load().add_arguments(p)
        except Exception as exc:  # a broken plugin must not break `pddlkit run`
            print(f"pddlkit: run agent {name!r} failed to load: {exc}", file=sys.stderr)
    p.set_defaults(func=run_command)

    d = sub.add_parser("domains", help="the library of learned domains: list, show, verify")
    d.add_argument("action", choices=["list", "show", "verify"])
    d.add_argument("entry", nargs="?", help="an id such as coin-collector/1a2b3c4d5e6f")
    d.add_argument("--library", help="library folder (default: the user's)")
    d.add_argument("--env", help="list: only this environment")
    d.add_argument("--json", action="store_true")
    d.set_defaults(func=domains_command)


def domains_command(args) -> int:
    from .library import DomainLibrary

    library = DomainLibrary(args.library)
    if args.action == "list":
        entries = library.entries(args.env)
        if args.json:
            print(json.dumps([e.to_dict() for e in entries], indent=2))
        elif not entries:
            print(f"no learned domains in {library.root}")
        for e in entries if not args.json else ():
            print(f"{e.id}  won {e.episodes_won}  problems {len(e.problems())}  "
                  f"models {', '.join(e.models) or '-'}  tasks {'; '.join(e.tasks)[:60]}")
        for problem in library.skipped:
            print(f"pddlkit domains: skipped {problem}", file=sys.stderr)
        return 1 if library.skipped else 0
    if not args.entry:
        print(f"pddlkit domains {args.action}: give an entry id (see `pddlkit domains list`)",
              file=sys.stderr)
        return 2
    try:
        entry = library.get(args.entry)
    except LookupError as exc:
        print(f"pddlkit domains: {exc}", file=sys.stderr)
        return 2
    if args.action == "show":
        print(json.dumps(entry.to_dict(), indent=2) if args.json else
              f"; {entry.id} ({entry.episodes_won} episodes won)\n{entry.domain_text}")
        return 0
    result = library.verify(entry)
    print(json.dumps(result.__dict__, indent=2) if args.json else result.format())
    return 0 if result.ok else 1


def env_options(args) -> dict:
    options: dict[str, Any] = {}
    for name in ("rooms", "receptacles", "difficulty", "task", "floorplan"):
        value = getattr(args, name)
        if value is not None:
            options[name] = value
    return options


def run_command(args) -> int:
    if args.agent not in ("pddlego", "plangen"):
        # the common flags hold for every agent: the files must be writable before anything
        # runs, and every LLM call goes to --transcript (the LLM layer reads the variable)
        for path, flag in ((args.record, "--record"), (args.transcript, "--transcript")):
            problem = _writable_file(path, flag)
            if problem:
                print(f"pddlkit run: {problem}", file=sys.stderr)
                return 2
        if args.transcript:
            os.environ["PDDLKIT_TRANSCRIPT"] = args.transcript
        return _run_agents()[args.agent].load().run(args)
    from pddlkit.envs import make
    from pddlkit.llm.errors import LLMError

    from .api import make_formalizer
    from .loop import Limits, run_episode
    from .bench_agents import stand_in

    options = {}
    for path, flag in ((args.record if args.episodes == 1 or not args.record
                        else f"{args.record}.{args.seed}", "--record"),
                       (args.transcript, "--transcript")):
        problem = _writable_file(path, flag)
        if problem:
            print(f"pddlkit run: {problem}", file=sys.stderr)
            return 2
    offline = args.llm == "observation" or args.llm.startswith("noisy")
    if args.agent == "plangen" and offline:
        print("pddlkit run: --agent plangen needs an LLM (openai:..., hf:..., replay:..., "
              "scripted:...); the offline formalizers write PDDL", file=sys.stderr)
        return 2
    if not offline:
        options = {"goal_style": args.goal_style, "prompts": args.prompts,
                   "max_tokens": args.max_tokens}
        if args.transcript:
            os.environ["PDDLKIT_TRANSCRIPT"] = args.transcript
    won = 0
    rows = []
    for i in range(args.episodes):
        seed = args.seed + i
        try:
            env = make(args.env, **env_options(args))
            if args.agent == "plangen":
                from .plangen import PlanGenAgent

                formalizer = PlanGenAgent(args.llm, env.id, prompts=args.prompts,
                                          max_tokens=args.max_tokens)
            else:
                formalizer = make_formalizer(args.llm, env.id, **options)
            if args.llm.startswith("noisy"):
                formalizer.rng.seed(seed)
        except (LLMError, LookupError, ValueError, TypeError, FileNotFoundError,
                ImportError) as exc:  # ImportError: TextWorld/ALFWorld not installed
            print(f"pddlkit run: {exc}", file=sys.stderr)
            return 2
        frozen = None
        if args.reuse_domain or args.save_domain:
            from .library import DomainLibrary

            library = DomainLibrary(args.library)
        if args.reuse_domain:
            entry = library.find(env.id, env.task)
            check = library.verify(entry) if entry else None
            if check is None or not check.ok:
                print(f"pddlkit run: no verified domain for {env.id} in {library.root}"
                      + (f":\n{check.format()}" if check else ""), file=sys.stderr)
                return 2
            frozen = entry.domain_text
        show = None if args.quiet or args.json else _printer()
        record = args.record if args.episodes == 1 or not args.record else \
            f"{args.record}.{seed}"
        limits = Limits(max_solver_retries=args.retries, max_simulation_retries=args.retries,
                        action_budget=args.budget)
        try:
            if args.agent == "plangen":
                from .plangen import run_plangen

                result = run_plangen(env, formalizer, seed=seed, record=record, on_event=show,
                                     limits=limits)
            else:
                result = run_episode(env, formalizer, seed=seed, record=record, on_event=show,
                                     limits=limits, domain=frozen, repair=args.repair,
                                     fact_memory=args.fact_memory)
        except ImportError as exc:  # an adapter whose package or venv is missing: at reset
            print(f"pddlkit run: {exc}", file=sys.stderr)
            return 2
        won += result.won
        if args.save_domain and result.won:
            saved = library.save_episode(result, model=args.llm)  # None: no PDDL (plangen)
            if saved is not None and not args.json:
                print(f"saved the domain as {saved.id} in {library.root}")
        rows.append({"seed": seed, **asdict(result.metrics)})
        if not args.json:
            m = result.metrics
            who = f" [{stand_in(args.llm)}]" if stand_in(args.llm) else ""
            print(f"\nepisode seed {seed}: {'WON' if result.won else 'LOST'} in {m.actions} "
                  f"actions, {m.steps} steps; solver errors {m.solver_errors} "
                  f"(fixed {m.solver_fixed}), simulation errors {m.simulation_errors} (fixed "
                  f"{m.simulation_fixed}); LLM calls {m.llm_calls}, tokens "
                  f"{m.prompt_tokens}+{m.completion_tokens}"
                  + (f"; stopped: {m.abort_reason}" if m.abort_reason and not result.won else "")
                  + who)
    if args.json:
        print(json.dumps(rows, indent=2))
    elif args.episodes > 1:
        print(f"\n{won}/{args.episodes} episodes won")
    return 0 if won == args.episodes else 1


def _printer():
    def show(kind: str, data: dict) -> None:
        if kind == "start":
            print(f"== {data['env']} seed {data['seed']}: {data['task']}")
            print(_indent(data["observation"]))
        elif kind == "files":
            goal = _goal(data["problem"])
            print(f"-- step {data['step']}: the formalizer wrote the files; goal: {goal}")
        elif kind == "solver-error":
            print(f"   solver error (fed back):\n{_indent(data['message'], 6)}")
        elif kind == "plan":
            print(f"   plan: {', '.join(data['commands'])}")
        elif kind == "action":
            print(f"   > {data['command']}\n{_indent(data['observation'], 6)}")
        elif kind == "simulation-error":
            print(f"   simulation error on '{data['command']}': {data['message']} "
                  "(environment restored to the start of the step; fed back)")
        elif kind == "repair":
            print("   repaired in code: " + "; ".join(data["fixes"]))
        elif kind == "facts-merged":
            print(f"   fact memory put back: {' '.join(data['facts'])}")
        elif kind == "abort":
            print(f"   aborted: {data['reason']}")
    return show


def _goal(problem: str) -> str:
    from .answer import _close

    start = problem.rfind("(:goal")
    end = _close(problem, start) if start >= 0 else None
    if end is None:
        return "(unreadable)"
    return " ".join(problem[start + len("(:goal"):end - 1].split())


def _indent(text: str, n: int = 3) -> str:
    lines = str(text).splitlines()[:12]
    return textwrap.indent("\n".join(lines), " " * n)


def demo() -> bool:
    """CoinCollector and the household with the noisy formalizer (errors found and refined),
    and CoinCollector with a real
    LLM when OPENAI_API_KEY or OPENAI_BASE_URL is set. Returns whether every episode was won."""
    from pddlkit.envs import make

    from .loop import run_episode
    from .noisy import NoisyFormalizer

    print("\n" + "=" * 78 + "\n7. formalize, plan, execute, refine: CoinCollector, 5 rooms, "
          "noisy formalizer\n" + "=" * 78)
    print("(the offline formalizer makes PDDLego+'s typical mistakes on purpose, and repairs "
          "one only when the feedback names it)")
    formalizer = NoisyFormalizer(rate=0.5, seed=3)
    result = run_episode(make("coin-collector", rooms=5), formalizer, seed=3,
                         on_event=_printer())
    m = result.metrics
    print(f"\n-> {'WON' if result.won else 'LOST'}: injected {formalizer.injected}, repaired "
          f"{formalizer.repaired}; solver errors {m.solver_errors} (fixed {m.solver_fixed}), "
          f"simulation errors {m.simulation_errors} (fixed {m.simulation_fixed})")
    ok = result.won
    print("\n" + "=" * 78 + "\n7b. the same loop in the household: a 'heat' task, 12 receptacles, "
          "noisy formalizer\n" + "=" * 78)
    house = NoisyFormalizer("household", rate=0.5, seed=2)
    result = run_episode(make("household", receptacles=12, difficulty="heat"), house, seed=2,
                         on_event=_printer())
    m = result.metrics
    print(f"\n-> {'WON' if result.won else 'LOST'}: injected {house.injected}, repaired "
          f"{house.repaired}; solver errors {m.solver_errors} (fixed {m.solver_fixed}), "
          f"simulation errors {m.simulation_errors} (fixed {m.simulation_fixed})")
    ok = ok and result.won
    if os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"):
        from .llm_formalizer import LLMFormalizer

        print("\n8. the same with the real LLM (PDDLKIT_MODEL or gpt-4o-mini)")
        try:
            llm = LLMFormalizer(f"openai:{os.environ.get('PDDLKIT_MODEL', 'gpt-4o-mini')}",
                                "coin-collector")
            real = run_episode(make("coin-collector", rooms=5), llm, seed=3,
                               on_event=_printer())
            print(f"-> {'WON' if real.won else 'LOST'}: {real.metrics}")
        except Exception as exc:  # the offline part stands on its own
            print(f"(the LLM run failed: {exc})")
    return ok
