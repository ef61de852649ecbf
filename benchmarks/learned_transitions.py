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

The second figure is ``pddlkit compare``'s behaviour on the reference domain's own problems of
the same seeds (the simulator's rules, never shown to the model): sampled states of the
reference, each action applied in both, under the predicate renaming compare finds.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter
from pathlib import Path

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


def by_episode(events: list[dict], domain: str) -> dict:
    """The events of each episode that planned with ``domain`` (every files event has it)."""
    episodes: dict = {}
    for event in events:
        episodes.setdefault(event.get("episode"), []).append(event)
    return {ep: evs for ep, evs in episodes.items()
            if any(e.get("type") == "files" for e in evs)
            and all(e["domain"].strip() == domain.strip()
                    for e in evs if e.get("type") == "files")}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("entry", help="a library entry's folder (or a domain file)")
    parser.add_argument("records", nargs="+", help="records (.jsonl or .jsonl.gz)")
    parser.add_argument("--env", default="coin-collector",
                        help="the environment whose reference domain and problems compare "
                             "reads (default: coin-collector)")
    parser.add_argument("--rooms", type=int, default=3,
                        help="coin-collector: rooms of the reference problems (default 3)")
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
    for record in args.records:
        for episode, events in sorted(by_episode(read_events(Path(record)), domain).items()):
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
    print("\nagreement by behaviour with the reference (pddlkit compare, the same seeds' "
          "reference problems):")
    from pddlkit.compare import compare_domains
    from pddlkit.envs import make

    env = make(args.env, **({"rooms": args.rooms} if args.env == "coin-collector" else {}))
    problems = []
    for seed in sorted(set(seeds))[:10]:
        env.reset(seed=seed)
        problems.append(env.problem)
    print(compare_domains(env.domain, domain, problems).format())
    return 0


if __name__ == "__main__":
    sys.exit(main())
