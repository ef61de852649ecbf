"""Issue 45's study of pddlkit.compare: LLM-written CoinCollector domains by behaviour, and timing.

(a) Every CoinCollector pair of ../shared/corpus/llm-pddl/pairs.jsonl whose domain parses
(pddlkit's reader, no error) is compared with the reference CoinCollector domain
(domains/coin-collector/domain.pddl, the one pddlkit.envs.coin_collector runs) by
:func:`pddlkit.compare.compare_domains`: states are sampled from reference problems the
environment generates (3, 5, 7, 9 and 11 rooms, two seeds each, as PDDLego+'s difficulty
levels), ``--transitions`` transitions per domain. Pairs share domains, so each distinct
domain is compared once and counted once per pair too. Printed: how many align (every
candidate predicate defined from the reference's), which actions disagree and how, and the
kinds of missing preconditions (the literal the reference requires and the candidate does
not), counted by domain and by pair; the literal comparison's missing preconditions beside
them.

(b) Timing: ``compare_problems`` on IPC problems against a renamed, shuffled copy of
themselves: visitall p11 (1,024 objects, 3,970 init facts: the target, under 1 s) and the
other large ones; and the same with one init fact dropped (the one-edit search). Best of 3,
in this process.

    python benchmarks/compare.py [--transitions 200] [--limit N] [--out examples/compare]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
PAIRS = SHARED / "corpus" / "llm-pddl" / "pairs.jsonl"
IPC = SHARED / "corpus" / "ipc"
REFERENCE = REPO / "domains" / "coin-collector" / "domain.pddl"


def reference_problems() -> list:
    from pddlkit.envs.coin_collector import CoinCollector

    out = []
    for rooms in (3, 5, 7, 9, 11):
        for seed in (0, 1):
            env = CoinCollector(rooms=rooms, seed=seed)
            out.append(env.generate(random.Random(seed)))
    return out


def study_llm_domains(transitions: int, limit: int | None) -> tuple[list[str], dict]:
    from pddlkit.compare import compare_domains
    from pddlkit.compare.domains import ONLY_CANDIDATE, ONLY_REFERENCE, SUCCESSOR
    from pddlkit.pddl.reader import read_domain

    rows = [json.loads(line) for line in PAIRS.read_text().splitlines() if line.strip()]
    coin = [r for r in rows if r["env"] == "CoinCollector"]
    by_domain: dict[str, list[dict]] = defaultdict(list)
    for r in coin:
        by_domain[r["domain"]].append(r)
    problems = reference_problems()
    parsed, unreadable = {}, 0
    for text in by_domain:
        try:
            model, diags = read_domain(text)
        except Exception:   # noqa: BLE001 - the reader raises PDDLError for unreadable text
            model, diags = None, []
        if model is None or any(d.is_error for d in diags):
            unreadable += 1
            continue
        parsed[text] = model
    texts = list(parsed)[:limit] if limit else list(parsed)
    started = time.perf_counter()
    results = {}
    for i, text in enumerate(texts):
        results[text] = compare_domains(REFERENCE, parsed[text], problems,
                                        transitions=transitions, seed=0)
        if (i + 1) % 200 == 0:
            print(f"  ... {i + 1}/{len(texts)} domains, {time.perf_counter() - started:.0f} s",
                  file=sys.stderr)
    elapsed = time.perf_counter() - started
    n_pairs = sum(len(by_domain[t]) for t in texts)

    def weight(text: str) -> int:
        return len(by_domain[text])

    lines = []
    out = {"pairs": len(coin), "distinct_domains": len(by_domain), "parsed": len(parsed),
           "unreadable": unreadable, "compared_domains": len(texts), "compared_pairs": n_pairs,
           "transitions": transitions, "seconds": round(elapsed, 1)}
    lines.append("## (a) LLM-written CoinCollector domains vs the reference, by behaviour\n")
    lines.append(f"CoinCollector pairs: {len(coin)}; distinct domains: {len(by_domain)}; "
                 f"domains that parse: {len(parsed)} ({unreadable} do not); compared: "
                 f"{len(texts)} domains = {n_pairs} pairs; {transitions} sampled transitions "
                 f"each over 10 reference problems (3-11 rooms); {elapsed:.0f} s in all "
                 f"({elapsed / max(len(texts), 1):.2f} s per domain).\n")

    def share(pred) -> tuple[int, int]:
        ds = [t for t in texts if pred(results[t])]
        return len(ds), sum(weight(t) for t in ds)

    aligned = share(lambda r: not r.unmapped_candidate)
    renamed = share(lambda r: r.renamed)
    agree = share(lambda r: r.behaviour and r.behaviour.transitions
                  and not r.behaviour.disagreeing)
    sampled = share(lambda r: r.behaviour and r.behaviour.transitions > 0)
    paired = share(lambda r: any(a.reference and a.candidate for a in r.actions))
    lines.append("| | domains | pairs |\n|---|---:|---:|")
    for label, (d, p) in (("compared", (len(texts), n_pairs)),
                          ("at least one action paired with the reference's", paired),
                          ("every candidate predicate defined from the reference's", aligned),
                          ("predicates renamed (not the same names)", renamed),
                          ("some transition sampled", sampled),
                          ("every sampled transition agrees (on the actions both have)", agree)):
        lines.append(f"| {label} | {d} | {p} |")
    out["aligned"], out["renamed"], out["agree"] = aligned, renamed, agree
    lines.append("")
    missing_actions = Counter()
    for t in texts:
        for a in results[t].missing_actions:
            missing_actions[a] += 1
    lines.append("Reference actions the candidate lacks (domains): "
                 + ", ".join(f"{a} {n}" for a, n in missing_actions.most_common()) + "\n")

    # which actions disagree and how
    kinds = (ONLY_CANDIDATE, ONLY_REFERENCE, SUCCESSOR)
    per_action: dict[str, Counter] = defaultdict(Counter)
    per_action_pairs: dict[str, Counter] = defaultdict(Counter)
    for t in texts:
        b = results[t].behaviour
        if not b:
            continue
        for action, counts in b.by_action.items():
            for kind in counts:
                per_action[action][kind] += 1
                per_action_pairs[action][kind] += weight(t)
    lines.append("Domains (pairs) with at least one disagreeing transition, by action and kind "
                 "(only-candidate: the candidate applies the action where the reference does "
                 "not, a missing precondition; only-reference: the reverse, an extra or "
                 "unaligned precondition; successor: both apply it, the states after differ):\n")
    lines.append("| action | " + " | ".join(kinds) + " |\n|---|" + "---:|" * len(kinds))
    for action in sorted(per_action):
        cells = [f"{per_action[action][k]} ({per_action_pairs[action][k]})" for k in kinds]
        lines.append(f"| {action} | " + " | ".join(cells) + " |")
    out["per_action"] = {a: dict(c) for a, c in per_action.items()}
    lines.append("")

    def literal_table(kind: str, title: str, top: int = 15) -> None:
        doms: Counter = Counter()
        prs: Counter = Counter()
        for t in texts:
            b = results[t].behaviour
            if not b:
                continue
            seen = {(a, lit) for a, k, lit, _ in b.tally if k == kind}
            for key in seen:
                doms[key] += 1
                prs[key] += weight(t)
        lines.append(f"{title}:\n")
        lines.append("| action | literal | domains | pairs |\n|---|---|---:|---:|")
        for (action, lit), n in doms.most_common(top):
            lines.append(f"| {action} | `{lit}` | {n} | {prs[(action, lit)]} |")
        lines.append("")
        out[kind] = [{"action": a, "literal": lit, "domains": n, "pairs": prs[(a, lit)]}
                     for (a, lit), n in doms.most_common(top)]

    literal_table(ONLY_CANDIDATE, "Missing preconditions found by behaviour (the reference's "
                  "false precondition part on a transition only the candidate allows)")
    literal_table(ONLY_REFERENCE, "Preconditions the candidate adds (its false part, in its "
                  "own vocabulary, on a transition only the reference allows)")
    literal_table(SUCCESSOR, "Successor differences (candidate vocabulary)")

    structural: Counter = Counter()
    structural_pairs: Counter = Counter()
    for t in texts:
        for a in results[t].actions:
            if a.reference and a.candidate:
                for lit in a.missing_preconditions:
                    structural[(a.reference, lit)] += 1
                    structural_pairs[(a.reference, lit)] += weight(t)
    lines.append("Missing preconditions by the literal comparison (reference literals with no "
                 "counterpart under the renaming; a literal can be missing and harmless):\n")
    lines.append("| action | literal | domains | pairs |\n|---|---|---:|---:|")
    for (action, lit), n in structural.most_common(12):
        lines.append(f"| {action} | `{lit}` | {n} | {structural_pairs[(action, lit)]} |")
    lines.append("")
    # the paper's case: open-door without a location precondition
    no_at = [t for t in texts if any(a.reference == "open-door" and a.candidate
                                     and "(at ?loc1)" in a.missing_preconditions
                                     for a in results[t].actions)]
    no_at_seen = [t for t in no_at if results[t].behaviour and any(
        a == "open-door" and k == ONLY_CANDIDATE and lit == "(at ?loc1)"
        for a, k, lit, _ in results[t].behaviour.tally)]
    lines.append(f"open-door without `(at ?loc1)` (the PDDLego+ reuse study's incomplete "
                 f"domain), among the domains whose open-door is paired with the reference's: "
                 f"{len(no_at)} domains ({sum(weight(t) for t in no_at)} pairs) by literals; "
                 f"behaviour shows the transition for {len(no_at_seen)} of them (the others "
                 "refuse it for another reason in the states sampled, e.g. a precondition on "
                 "a predicate the reference does not have).\n")
    lines.append("The move precondition `(or (not (has-door ...)) (door-open ...))` is one "
                 "literal for behaviour but two for the literal comparison, which counts every "
                 "atom of a disjunction.\n")
    out["open_door_without_at"] = {"literal": len(no_at), "behaviour": len(no_at_seen)}
    return lines, out


def renamed_copy(problem, seed: int):
    from pddlkit.pddl import model as M

    rng = random.Random(seed)
    names = [o.name for o in problem.objects]
    fresh = [f"zq-{i}" for i in range(len(names))]
    rng.shuffle(fresh)
    table = dict(zip(names, fresh))

    def r(a):
        return table.get(a, a)

    def goal(f):
        if isinstance(f, M.Atom):
            return M.Atom(f.predicate, tuple(r(a) for a in f.args))
        if isinstance(f, M.Not):
            return M.Not(goal(f.formula))
        if isinstance(f, (M.And, M.Or)):
            parts = [goal(p) for p in f.parts]
            rng.shuffle(parts)
            return type(f)(tuple(parts))
        return f

    objects = [M.TypedName(table[o.name], o.types) for o in problem.objects]
    init = [M.Atom(a.predicate, tuple(r(x) for x in a.args)) for a in problem.init]
    rng.shuffle(objects)
    rng.shuffle(init)
    return dataclasses.replace(problem, objects=tuple(objects), init=tuple(init),
                               goal=goal(problem.goal))


def timing() -> tuple[list[str], list[dict]]:
    from pddlkit.compare import compare_problems
    from pddlkit.pddl.reader import parse_domain, parse_problem

    cases = [("visitall-sat11-strips", "p11"), ("visitall-sat11-strips", "p20"),
             ("sokoban-sat08-strips", "p10"), ("airport-adl", "p50"),
             ("satellite", "p33"), ("nomystery-sat11-strips", "p10")]
    lines = ["## (b) Timing: compare_problems against a renamed, shuffled copy\n",
             "| problem | objects | init facts | equivalent: s | one fact dropped: s | target |",
             "|---|---:|---:|---:|---:|---|"]
    rows = []
    for domain_name, inst in cases:
        folder = IPC / domain_name
        domain = parse_domain(folder / "domain.pddl")
        problem = parse_problem(folder / f"{inst}.pddl")
        copy = renamed_copy(problem, 1)
        dropped = dataclasses.replace(copy, init=copy.init[1:])
        best_eq = best_drop = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            same = compare_problems(problem, copy, domain)
            best_eq = min(best_eq, time.perf_counter() - t)
            t = time.perf_counter()
            diff = compare_problems(problem, dropped, domain)
            best_drop = min(best_drop, time.perf_counter() - t)
        assert same.equivalent and not diff.equivalent and len(diff.missing_facts) == 1
        n_obj = len(problem.objects)
        target = ("< 1 s: " + ("met" if best_eq < 1.0 else "MISSED")) \
            if 1000 <= n_obj < 1500 else ""
        lines.append(f"| {domain_name}/{inst} | {n_obj} | {len(set(problem.init))} | "
                     f"{best_eq:.3f} | {best_drop:.3f} | {target} |")
        rows.append({"problem": f"{domain_name}/{inst}", "objects": n_obj,
                     "init": len(set(problem.init)), "equivalent_s": round(best_eq, 3),
                     "one_drop_s": round(best_drop, 3)})
    lines.append("")
    return lines, rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--transitions", type=int, default=200)
    parser.add_argument("--limit", type=int, help="compare only the first N distinct domains")
    parser.add_argument("--out", default=str(REPO / "examples" / "compare"),
                        help="folder for study.md and study.json ('' to print only)")
    parser.add_argument("--skip-study", action="store_true", help="timing only")
    args = parser.parse_args()
    if not PAIRS.exists() or not IPC.exists():
        print(f"the corpus is not at {SHARED / 'corpus'}", file=sys.stderr)
        return 2
    import platform

    lines = ["# pddlkit.compare: issue 45's study\n",
             f"`python benchmarks/compare.py --transitions {args.transitions}"
             + (f" --limit {args.limit}" if args.limit else "") + "` on "
             f"{platform.machine()}, Python {platform.python_version()}.\n"]
    data: dict = {}
    if not args.skip_study:
        study, data["llm_domains"] = study_llm_domains(args.transitions, args.limit)
        lines += study
    timed, data["timing"] = timing()
    lines += timed
    text = "\n".join(lines)
    print(text)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "study.md").write_text(text + "\n")
        (out / "study.json").write_text(json.dumps(data, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    from interrupt import run

    run(main, kept="nothing was kept: the study prints, and is written to --out, at the end")
