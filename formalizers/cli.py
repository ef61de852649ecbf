"""``pddlkit domains`` (the library of learned domains) and the formalizer part of ``pddlkit
demo``. Both reach the core CLI through entry points (``pddlkit.commands`` and
``pddlkit.demos`` in pyproject.toml), so the core never imports the front ends; ``pddlkit run
pddlego`` is the agents layer's (:mod:`.agents`).
"""

from __future__ import annotations

import json
import os
import sys


def register(sub) -> None:
    d = sub.add_parser("domains", help="the library of learned domains: list, show, verify")
    d.add_argument("action", choices=["list", "show", "verify"])
    d.add_argument("entry", nargs="?", help="an id such as coin-collector/1a2b3c4d5e6f "
                                            "(verify without one: every entry)")
    d.add_argument("--library", help="library folder (default: the user's)")
    d.add_argument("--env", help="list: only this environment")
    d.add_argument("--json", action="store_true")
    d.set_defaults(func=domains_command)
    learn = sub.add_parser(
        "learn-domain", help="the model writes the domain over dev episodes; the version that "
                             "explains every transition is saved to the library")
    learn.add_argument("--env", required=True, help="an environment id, e.g. coin-collector")
    learn.add_argument("--llm", required=True, help="an LLM spec, e.g. "
                                                    "local:qwen2.5-coder-1.5b or random:0")
    learn.add_argument("--episodes", type=int, default=3, help="dev episodes (default 3)")
    learn.add_argument("--first-seed", type=int, default=0, help="the first dev seed (0-99)")
    learn.add_argument("--budget", type=int, default=30, help="actions per episode")
    learn.add_argument("--library", help="library folder (default: the user's)")
    learn.add_argument("--record", help="write every episode's events here (JSONL)")
    learn.add_argument("--free", action="store_true",
                       help="decode without grammars (default: --constrained)")
    learn.add_argument("--rooms", type=int, help="coin-collector: rooms")
    learn.add_argument("--receptacles", type=int, help="household: receptacles")
    learn.add_argument("--difficulty", help="household: task difficulty, e.g. basic&use")
    learn.add_argument("--helps", help="the helps to learn with, as rows print them "
                                       "(modular+repair+...; default: the --small-model "
                                       "preset): a replay of an older record names its own")
    learn.add_argument("--json", action="store_true")
    learn.set_defaults(func=learn_command)


def learn_command(args) -> int:
    """``pddlkit learn-domain`` (:mod:`.learn`): exit 0 when a domain was saved, 1 when none
    explains every transition, 2 for input it cannot use."""
    from pddlkit.llm.errors import LLMError

    from .learn import learn_domain

    env_options = {k: v for k, v in (("rooms", args.rooms), ("receptacles", args.receptacles),
                                     ("difficulty", args.difficulty)) if v is not None}
    try:
        learned = learn_domain(args.env, args.llm, args.episodes, first_seed=args.first_seed,
                               budget=args.budget, library=args.library,
                               env_options=env_options, constrained=not args.free,
                               record=args.record, helps=args.helps)
    except (ValueError, TypeError, LookupError, LLMError) as exc:   # an unknown env; the
        # LLM's: no key, no server, ...
        print(f"pddlkit learn-domain: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(learned.to_dict(), indent=2) if args.json else learned.format())
    return 0 if learned.entry else 1


def domains_command(args) -> int:
    from .library import DomainLibrary

    library = DomainLibrary(args.library)
    if args.action == "list":
        return _list_domains(library, args)
    if not args.entry and args.action == "verify":   # all of them
        return _verify_domains(library, args)
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


def _list_domains(library, args) -> int:
    """``pddlkit domains list``: 1 when an entry could not be read (each said on stderr)."""
    entries = library.entries(args.env)
    if args.json:
        print(json.dumps([e.to_dict() for e in entries], indent=2))
    elif not entries:
        print(_none_here(library, args))
    for e in entries if not args.json else ():
        print(f"{e.id}  won {e.episodes_won}  problems {len(e.problems())}  "
              f"models {', '.join(e.models) or '-'}  tasks {'; '.join(e.tasks)[:60]}")
    return _said_skipped(library)


def _verify_domains(library, args) -> int:
    """``pddlkit domains verify`` with no entry: every one, 1 unless all hold."""
    results = [library.verify(e) for e in library.entries(args.env)]
    if args.json:
        print(json.dumps([r.__dict__ for r in results], indent=2))
    else:
        print("\n".join(r.format() for r in results) or _none_here(library, args))
    return 1 if _said_skipped(library) or not all(r.ok for r in results) else 0


def _none_here(library, args) -> str:
    """Why a listing is empty: no such folder, no entry for ``--env``, or none at all."""
    if not library.root.is_dir():
        return f"no learned domains: {library.root} does not exist (pass --library DIR)"
    if getattr(args, "env", None):
        known = sorted({e.env for e in library.entries()})
        return (f"no learned domains for {args.env} in {library.root}"
                + (f" (it has: {', '.join(known)})" if known else ""))
    return f"no learned domains in {library.root}"


def _said_skipped(library) -> int:
    """The entries the library could not read, each on stderr; 1 when there was one."""
    for problem in library.skipped:
        print(f"pddlkit domains: skipped {problem}", file=sys.stderr)
    return 1 if library.skipped else 0


def _printer():
    from .agents import describe

    def show(kind: str, data: dict) -> None:
        line = describe(kind, data)
        if line:
            print(line)
    return show


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
