"""``pddlkit compare REF CAND``: is the candidate the reference, up to names?

Both files are problems (compared up to a renaming of objects; ``--domain`` gives the domain
they share, for types, constants and which predicates are static) or both are domains
(compared literal by literal and, with ``--problem`` reference problems, by behaviour).
Which they are is read from the files. ``--complete-goals`` (two problems, with ``--domain``)
adds Planetarium's verdict beside the strict one: both goals completed with the atoms every
reachable goal state has, so a goal that only adds what the rest implies is the same goal.
Exit status: 0 equivalent, 1 not (with ``--complete-goals``, by the completed verdict, the
one asked for), 2 when an input cannot be read, an option does not fit the inputs, or the two
are not the same kind (a diagnostic naming the file and a fix, never a traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Optional

from ..diagnostics import Diagnostic, Severity
from .problems import COMPLETION_STATES


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive number")
    return value


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def register(sub) -> None:
    """Add the ``compare`` subcommand to the ``pddlkit`` parser."""
    p = sub.add_parser("compare", help="is a candidate problem or domain the reference, up to "
                                       "names? (0: equivalent, 1: not, 2: unreadable)",
                       formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("reference", help="the reference problem or domain (.pddl)")
    p.add_argument("candidate", help="the candidate problem or domain (.pddl)")
    p.add_argument("--domain", dest="compare_domain", metavar="D",
                   help="for two problems: their domain (types, constants, static predicates)")
    p.add_argument("--problem", dest="compare_problems", metavar="P", action="append",
                   default=[], help="for two domains: a reference problem whose reachable "
                                    "states are sampled to compare behaviour (repeatable)")
    p.add_argument("--transitions", type=_count, default=200,
                   help="for two domains: how many sampled transitions to compare")
    p.add_argument("--seed", type=_seed, default=0, help="for two domains: the walks' seed")
    p.add_argument("--complete-goals", action="store_true",
                   help="for two problems (with --domain): also give Planetarium's verdict, "
                        "both goals completed with the atoms every reachable goal state has "
                        "(the exit status follows it)")
    p.add_argument("--completion-states", type=_count, default=COMPLETION_STATES, metavar="N",
                   help="with --complete-goals: the most states explored from each init (a "
                        "cap hit is said)")
    p.add_argument("--json", action="store_true", help="the comparison as JSON")
    p.set_defaults(func=compare_command)


def compare_command(args) -> int:
    from .domains import compare_domains
    from .inputs import CompareInputError, detect_kind
    from .problems import compare_problems

    try:
        kinds = {role: detect_kind(_path(getattr(args, role), role), role)
                 for role in ("reference", "candidate")}
        if kinds["reference"] != kinds["candidate"]:
            diag = Diagnostic(
                "compare-kind-mismatch", Severity.ERROR,
                f"the reference is a {kinds['reference']} and the candidate a "
                f"{kinds['candidate']}: only two problems or two domains can be compared",
                file=args.candidate,
                hint=f"give a {kinds['reference']} file as the candidate (a problem's domain "
                     "goes after --domain)")
            raise CompareInputError([diag], "the inputs are not of one kind", "candidate")
        if kinds["reference"] == "problem":
            if args.compare_problems:
                raise CompareInputError([_usage(
                    "--problem is for comparing two domains; for two problems, give their "
                    "domain with --domain", "--problem")], "wrong option", "input")
            domain = _path(args.compare_domain, "domain") if args.compare_domain else None
            if args.complete_goals and domain is None:
                raise CompareInputError([Diagnostic(
                    "compare-usage", Severity.ERROR, "--complete-goals explores the states "
                    "reachable in the problems' domain, and no --domain was given",
                    hint="give the domain with --domain D")], "wrong option", "input")
            result = compare_problems(_path(args.reference, "reference"),
                                      _path(args.candidate, "candidate"), domain,
                                      complete_goals=args.complete_goals,
                                      completion_states=args.completion_states)
        else:
            for given, option, why in (
                    (args.compare_domain, "--domain", "to compare two domains by behaviour, "
                                                      "give reference problems with --problem"),
                    (args.complete_goals, "--complete-goals", "two domains have no goals to "
                                                              "complete")):
                if given:
                    raise CompareInputError([_usage(f"{option} is for comparing two problems; "
                                                    f"{why}", option)], "wrong option", "input")
            problems = [_path(p, "reference problem") for p in args.compare_problems]
            result = compare_domains(_path(args.reference, "reference"),
                                     _path(args.candidate, "candidate"), problems,
                                     transitions=args.transitions, seed=args.seed)
    except CompareInputError as exc:
        return _refused(exc, args.json)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(result.format())
    verdict = getattr(result, "completion", None) or result
    return 0 if verdict.equivalent else 1


def _usage(message: str, option: str) -> Diagnostic:
    return Diagnostic("compare-usage", Severity.ERROR, message, hint=f"drop {option}")


def _path(value: Optional[str], role: str) -> Path:
    """A named file as a Path, or a CompareInputError naming ``role`` when it is missing or
    not a regular file (stdin is not accepted: the kind is read from the file)."""
    from .inputs import CompareInputError

    path = Path(value or "")
    if path.is_file():
        return path
    if path.is_dir():
        inside = sorted(p.name for p in path.glob("*.pddl"))[:6]
        more = f" (it holds {', '.join(inside)})" if inside else ""
        message, hint = (f"{value} is a directory, not a PDDL file{more}",
                         f"give the {role}'s .pddl file itself")
    else:
        message, hint = f"no such file: {value}", f"check the {role}'s path"
    diag = Diagnostic("file-not-found", Severity.ERROR, message, file=value, hint=hint)
    raise CompareInputError([diag], f"the {role} cannot be read", role)


def _refused(exc, as_json: bool) -> int:
    if as_json:
        print(json.dumps({"error": exc.summary, "role": exc.role,
                          "diagnostics": [d.to_dict() for d in exc.diagnostics]}, indent=2))
    else:
        for d in exc.diagnostics:
            print(d.format(), file=sys.stderr)
        print(f"pddlkit compare: {exc.summary}", file=sys.stderr)
    return 2
