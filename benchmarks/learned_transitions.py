"""A learned domain against the transitions of episodes it was frozen in (issue 75's "agrees on
every transition of the test episodes"), beside its agreement by behaviour with the reference.

    .venv/bin/python benchmarks/learned_transitions.py domains/learned/coin-collector/7bbe41a16326 \\
        examples/real-llm/domain-writing-records/qwen-CoinCollector-3-rooms-learned-1000-1021.record.jsonl.gz

For each episode of each record (only episodes that planned with that domain), every command
the agent ran is read back as a transition (:func:`pddlkit.formalizers.evidence.transitions`:
the ground action, the facts believed before it, whether the world took it) and checked
against the domain (:func:`pddlkit.semantics.transitions.check_transitions`). A finding is a
command the world took where the domain's precondition was false in the facts believed, or one
the world refused where it held. What it can and cannot say: the facts before are the model's
beliefs, written from observations under the frozen domain, so a finding is the domain and
those beliefs disagreeing with the world together (a door believed where there is none is a
belief's error; a doorway the domain lets the agent close is the domain's); the findings are
printed by schema and kind with their first example, to be read, not summed into a verdict.

The second figure is the test transitions themselves read by the simulator's rules (never
shown to the model): each episode is played again in the environment from its seed with the
commands it ran, and at every command the world took, the reference domain's ground action
from the simulator's state before it is compared with the domain's own (``pddlkit compare``
with ``states=`` triples: applicable in both, and the same successor on the predicates the
renaming maps). This is "agrees with the reference on every transition of the test
episodes" read strictly, successors and all, not only what the observations could say. A
refused command has no reference successor and is left to the first figure.

The third is ``pddlkit compare``'s behaviour on the reference domain's own problems of the
same seeds: sampled states of the reference, each action applied in both, under the
predicate renaming compare finds.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Optional

REPO = Path(__file__).resolve().parent.parent


def read_events(path: Path) -> list[dict]:
    """A record's events; a file that is not one exits with a line saying so."""
    try:
        data = path.read_bytes()
        text = gzip.decompress(data).decode() if path.suffix == ".gz" else data.decode()
        events = [json.loads(line) for line in text.splitlines() if line.strip()]
    except (OSError, ValueError, EOFError) as exc:
        sys.exit(f"learned_transitions.py: {path} is not a record (JSONL events of `pddlkit "
                 f"run pddlego --record`): {exc}")
    if not all(isinstance(e, dict) and "type" in e for e in events):
        sys.exit(f"learned_transitions.py: {path} is not a record: its lines are not events")
    return events


def by_episode(events: list[dict], domain: Optional[str]) -> dict:
    """The events of each episode that planned with ``domain`` (every files event has it;
    None: every episode that planned)."""
    episodes: dict = {}
    for event in events:
        episodes.setdefault(event.get("episode"), []).append(event)
    return {ep: evs for ep, evs in episodes.items()
            if any(e.get("type") == "files" for e in evs) and (domain is None or
                   all(e["domain"].strip() == domain.strip()
                       for e in evs if e.get("type") == "files"))}


def taken_steps(env, events: list[dict]) -> list[tuple]:
    """(reference problem, simulator state, reference ground action) for each command of one
    episode's events the world took, played again in ``env`` from the episode's seed, the
    world restored to before a plan where the loop restored it (a ``simulation-error``
    event: ``run_episode`` undoes a plan a step of which failed); [] when the events have no
    seed or a replayed command is refused where the record's was taken (the record is not of
    this environment: nothing is compared rather than a wrong thing)."""
    from pddlkit.semantics.grounding import GroundAction

    seed = next((e.get("seed") for e in events if e.get("type") == "start"), None)
    if seed is None:
        return []
    env.reset(seed=seed)
    out = []
    before_plan = env.snapshot()
    for e in events:
        if e.get("type") == "plan":
            before_plan = env.snapshot()
        elif e.get("type") == "simulation-error":
            env.restore(before_plan)
        if e.get("type") != "action":
            continue
        command = " ".join(str(e.get("command", "")).lower().split())
        resolved = None if env.meta(command) is not None else env.resolve(command)
        if isinstance(resolved, GroundAction):
            out.append((env.problem, env.state, str(resolved)))
        elif e.get("error") is None and resolved is not None:
            return []
        env.step(command)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("entry", help="a library entry's folder (or a domain file)")
    parser.add_argument("records", nargs="+", help="records (.jsonl or .jsonl.gz)")
    parser.add_argument("--env", default="coin-collector",
                        help="the environment whose reference domain and problems compare "
                             "reads (default: coin-collector)")
    parser.add_argument("--rooms", type=int, default=3,
                        help="coin-collector: rooms of the reference problems (default 3)")
    parser.add_argument("--any-episode", action="store_true",
                        help="the simulator's figure over every episode of the records, "
                             "whatever domain it planned with (another domain's test "
                             "commands: the successors of the same steps, read by this "
                             "domain); the belief figure keeps to this domain's own")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from pddlkit.formalizers.evidence import transitions
    from pddlkit.semantics.transitions import check_transitions

    entry = Path(args.entry)
    try:
        domain = (entry / "domain.pddl" if entry.is_dir() else entry).read_text()
    except OSError as exc:
        sys.exit(f"learned_transitions.py: no domain at {entry} (give a library entry's "
                 f"folder or a domain file): {exc}")
    total = found = 0
    kinds: Counter = Counter()
    first: dict = {}
    seeds: list[int] = []
    recorded = [read_events(Path(record)) for record in args.records]   # read once
    for events_of_record in recorded:
        for episode, events in sorted(by_episode(events_of_record, domain).items()):
            evidence = transitions(events)
            findings = check_transitions(domain, evidence)
            bad = {f.index for f in findings}
            total += len(evidence)
            found += len(bad)
            seeds += [e["seed"] for e in events if e.get("type") == "start"][:1]
            for f in findings:
                kinds[(f.schema, f.kind)] += 1
                first.setdefault((f.schema, f.kind), f"seed {episode}: {f.format()}")
            print(f"seed {episode}: {len(evidence)} transitions, {len(bad)} with a finding")
    print(f"\n{len(seeds)} episodes, {total} transitions: {total - found} explained by the "
          f"domain with the facts believed before them, {found} not")
    for (schema, kind), n in kinds.most_common():
        print(f"  {n:3d} {schema} {kind}; first: {first[(schema, kind)]}")
    from pddlkit.compare import compare_domains
    from pddlkit.envs import make

    env = make(args.env, **({"rooms": args.rooms} if args.env == "coin-collector" else {}))
    steps = []
    for events_of_record in recorded:
        played = by_episode(events_of_record, None if args.any_episode else domain)
        for episode, episode_events in sorted(played.items()):
            steps += taken_steps(env, episode_events)
            seeds += [e["seed"] for e in episode_events if e.get("type") == "start"][:1]
    print(f"\nthe test transitions by the simulator's rules ({len(steps)} commands the world "
          f"took, each compared with the reference's ground action at the simulator's state "
          f"before it):")
    if steps:
        taken = compare_domains(env.domain, domain, states=steps, transitions=len(steps))
        b = taken.behaviour
        disagreeing = ", ".join(f"{name} {sum(kinds.values())} ({', '.join(kinds)})"
                                for name, kinds in b.by_action.items())
        print(f"  successors agree on {b.agreeing} of {b.transitions}; disagreeing: "
              f"{disagreeing or 'none'}")
        for action, kind, lit, n in b.tally[:8]:
            print(f"  {n:3d} {action} {kind}: {lit}")
        print("  renaming: " + "; ".join(m.format() for m in taken.predicate_mapping))
    print("\nagreement by behaviour with the reference (pddlkit compare, the same seeds' "
          "reference problems):")
    problems = []
    for seed in sorted(set(seeds))[:10]:
        env.reset(seed=seed)
        problems.append(env.problem)
    print(compare_domains(env.domain, domain, problems).format())
    return 0


if __name__ == "__main__":
    sys.exit(main())
