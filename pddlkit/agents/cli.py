"""``pddlkit run AGENT --env ID [common flags] [environment options] [agent options]``.

    pddlkit run pddlego --env coin-collector --rooms 7 --llm openai:gpt-4o-mini
    pddlkit run deps --env craft --task stone_pickaxe --episodes 3 --json
    pddlkit run ipp --help                       # the agent's own options

The common flags mean the same for every agent: ``--llm`` (an LLM spec, or the agent's
stand-in; default: the stand-in), ``--seed`` and ``--episodes`` (one episode per seed, seed,
seed+1, ...), ``--record`` (every episode's events and its outcome row, appended as JSON
lines), ``--transcript`` (every LLM call, as JSON lines), ``--max-tokens`` (a cap on every LLM
answer), ``--quiet`` (no live lines) and ``--json`` (the rows as a JSON list on stdout).
Exit status: 0 when every episode succeeded, 1 when one did not, 2 for bad input or an error
that stopped the run (130 for Ctrl-C); the rows already played are printed (and recorded)
either way. An episode succeeds as its row says (:attr:`.row.Row.succeeded`): an agent whose
outcome is a win when it was won; an agent whose outcome is a score (IPP: a program's mean
held-out reward) when it was scored, whatever the score, since a low score is a measurement
and not a failed run (its line prints the score, never WON or LOST), and not when there was
nothing to score (no program was written). A script that wants a threshold reads the score
from ``--json``.

``pddlkit run`` alone lists the agents and the usage line and exits 2, playing nothing: a
newcomer who types the bare command is asking what there is, and a whole episode of an agent
they did not choose (with a note about a flag they never gave) answers another question.
``pddlkit run AGENT --help`` shows each option's default; every flag's value is checked by
argparse (:mod:`pddlkit.flags`, an agent's stand-ins by :mod:`.standins`), so a bad one is
refused with the flag's name before anything loads.

The spelling of earlier releases, ``pddlkit run --agent NAME ...`` (and ``pddlkit run --env
...`` for PDDLego+), still works for this release, with a one-line note on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Optional

from pddlkit.flags import argparse_type, non_negative_int, number, positive_int, with_defaults

from .errors import AgentError
from .registry import UnknownAgentError, agent_names, get_agent
from .row import Row
from .spec import (AgentSpec, OptionError, add_option_flags, budget_field,
                   options_from_namespace)

#: environment options, passed to the environment (or to the agent that builds it)
ENV_FLAGS = (("--rooms", positive_int, "coin-collector: number of rooms (default: the "
                                       "environment's)"),
             ("--receptacles", positive_int, "household: number of receptacles (default: the "
                                             "environment's)"),
             ("--difficulty", str, "household: basic&use, clean, cool, heat, slice+ (CoPiC, "
                                   "TWOSOME: a task type); sc2-build: easy, medium, hard "
                                   "(default: the environment's)"),
             ("--task", str, "alfworld: pick, look, clean, heat, cool, pick_two; craft and "
                             "crafter (DEPS): an item or a group MT1..MT8 (default: the "
                             "agent's or the environment's)"),
             ("--floorplan", non_negative_int, "alfworld: the AI2-THOR scene (default: by "
                                               "seed)"))


def count(least: int):
    """argparse type: an integer of at least ``least`` (:func:`pddlkit.flags.number`)."""
    return number(int, least=least)


def writable_file(path: Optional[str], flag: str) -> Optional[str]:
    """Why ``path`` cannot take appended JSON lines (a directory, an unwritable place), or
    None. Checked before anything runs, so no work is lost to a bad path at the end."""
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


def register(sub) -> None:
    p = sub.add_parser("run", help="play episodes with an agent: pddlkit run AGENT --env ID "
                                   "(pddlkit run --help lists the agents)", add_help=False)
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=lambda args: main(args.rest))


def parser_for(spec: AgentSpec) -> argparse.ArgumentParser:
    """The agent's parser: the common flags, the environment options and the agent's own,
    each value checked by its ``type=`` and each option's default shown in the help."""
    p = argparse.ArgumentParser(prog=f"pddlkit run {spec.name}",
                                description=f"{spec.summary}\n\n{spec.help_text()}".rstrip(),
                                formatter_class=with_defaults(
                                    argparse.RawDescriptionHelpFormatter))
    envs = f" ({', '.join(spec.envs)})" if spec.envs else ""
    p.add_argument("--env", default=spec.default_env, required=spec.default_env is None,
                   help=f"an environment id{envs}")
    own = ", ".join(s.spelled() for s in spec.stand_ins)
    default = f"default: {spec.default_llm}" if spec.default_llm else \
        "default: none"
    p.add_argument("--llm", default=spec.default_llm, type=argparse_type(spec.check_llm),
                   metavar="SPEC",
                   help="an LLM spec (openai:gpt-4o-mini, a bare OpenAI model name such as "
                        "gpt-4o, local:qwen2.5-coder-1.5b, hf:FOLDER, replay:FILE, "
                        "scripted:FILE)" + (f" or one of the offline stand-ins {own}" if own
                                            else "") + f" ({default})")
    p.add_argument("--seed", type=non_negative_int, default=0,
                   help="the first episode's seed")
    p.add_argument("--episodes", type=positive_int, default=1, help="seeds seed, seed+1, ...")
    p.add_argument("--record", help="append every episode's events and outcome (JSONL) here "
                                    "(default: no record)")
    p.add_argument("--transcript", help="append every LLM call (JSONL) here (default: none "
                                        "kept)")
    p.add_argument("--max-tokens", type=positive_int, default=None,
                   help="cap on each LLM answer's tokens (small local models may otherwise "
                        "write until their context is full; default: the agent's)")
    budget = f" (sets --{spec.step_budget.replace('_', '-')})" \
        if isinstance(spec.step_budget, str) else "" if spec.step_budget else \
        " (this agent has none)"
    p.add_argument("--max-steps", type=positive_int, default=None,
                   help=f"the step budget per episode, whatever the environment counts{budget} "
                        f"(default: the agent's)")
    p.add_argument("--quiet", action="store_true", help="no live lines")
    p.add_argument("--json", action="store_true", help="print the rows as a JSON list")
    group = p.add_argument_group("environment options")
    for flag, kind, text in ENV_FLAGS:
        group.add_argument(flag, type=kind, help=text)
    add_option_flags(p, spec.options, f"{spec.name} options")
    return p


def _agents_help() -> str:
    lines = ["usage: pddlkit run AGENT --env ID [options]  (pddlkit run AGENT --help: its "
             "options)", "", "agents:"]
    for name in agent_names():
        try:
            summary = get_agent(name).summary
        except UnknownAgentError as exc:
            summary = f"(cannot load: {exc})"
        lines.append(f"  {name:<10} {summary}")
    return "\n".join(lines)


def legacy(argv: list[str]) -> tuple[list[str], Optional[str]]:
    """``--agent NAME ...`` (or flags and no agent: PDDLego+) as ``NAME ...``, with the note to
    print; no arguments at all stay none (the listing, not an episode)."""
    if not argv or not argv[0].startswith("-"):
        return argv, None
    if argv and argv[0] in ("-h", "--help"):
        return argv, None
    argv = list(argv)
    name, old = "pddlego", "pddlkit run --env ..."
    for i, word in enumerate(argv):
        if word == "--agent" and i + 1 < len(argv):
            name = argv[i + 1]
            del argv[i:i + 2]
            old = f"pddlkit run --agent {name}"
            break
        if word.startswith("--agent="):
            name = word.split("=", 1)[1]
            del argv[i]
            old = f"pddlkit run --agent {name}"
            break
    try:
        renamed = get_agent(name).renamed
    except UnknownAgentError:
        renamed = {}
    argv = [renamed.get(word, word) for word in argv]
    return [name, *argv], (f"pddlkit run: note: '{old}' is now 'pddlkit run {name} ...'; the "
                           f"old spelling works for this release only")


def main(argv: list[str]) -> int:
    argv, note = legacy(list(argv))
    if not argv or argv[0] in ("-h", "--help"):   # alone: the listing, exit 2 (module doc)
        print(_agents_help(), file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if note:
        print(note, file=sys.stderr)
    try:
        spec = get_agent(argv[0])
    except UnknownAgentError as exc:
        print(f"pddlkit run: {exc}", file=sys.stderr)
        return 2
    args = parser_for(spec).parse_args(argv[1:])
    return run(spec, args)


def _row_line(row: Row) -> str:
    """One row for people: its outcome as the row measured it (:meth:`.row.Row.outcome`:
    WON/LOST, or a scored row's score), the agent's summary, the LLM usage, the stand-in."""
    u = row.usage
    usage = f"; LLM calls {u.calls}, tokens {u.prompt_tokens}+{u.completion_tokens}" \
        if u.calls else ""
    who = f" [{row.stand_in}]" if row.stand_in else ""
    return (f"episode seed {row.seed}: {row.outcome()}"
            + (f"; {row.summary}" if row.summary else "") + usage + who)


def tally(rows: list[Row]) -> str:
    """The line after a run of several rows: how many were won, or for scored rows the mean
    of each measure (and how many had nothing to score), so a score agent's run is never
    counted in wins it does not have."""
    parts = []
    wins = [r for r in rows if not r.scored]
    if wins:
        parts.append(f"{sum(r.won for r in wins)}/{len(wins)} episodes won")
    for measure in dict.fromkeys(r.measure for r in rows if r.scored):
        same = [r for r in rows if r.measure == measure]
        scores = [r.score for r in same if r.score is not None]
        text = f"{measure}: mean {sum(scores) / len(scores):.3f} over {len(scores)} " \
               f"episodes" if scores else f"{measure}: nothing scored"
        if scores and len(scores) < len(same):
            text += f" ({len(same) - len(scores)} with nothing to score)"
        parts.append(text)
    return "; ".join(parts)


def options_for(spec: AgentSpec, args) -> Any:
    """The agent's options from parsed flags, ``--max-steps`` put in the agent's own budget
    field for the environment (:func:`~.spec.budget_field`); OptionError for a bad value."""
    if args.max_steps is not None:
        field = budget_field(spec, args.env)
        if field is None:
            raise OptionError(f"--max-steps: {spec.name} on {args.env} has no step budget (its "
                              f"episodes are not counted in steps); leave the flag out")
        setattr(args, f"agent_{field}", args.max_steps)
    return options_from_namespace(spec, args)


def run(spec: AgentSpec, args) -> int:
    from pddlkit.llm.errors import LLMError

    from .episode import Job

    name = f"pddlkit run {spec.name}"
    for path, flag in ((args.record, "--record"), (args.transcript, "--transcript")):
        problem = writable_file(path, flag)
        if problem:
            print(f"{name}: {problem}", file=sys.stderr)
            return 2
    if spec.envs and args.env not in spec.envs:
        print(f"{name}: environment {args.env!r} is not one it plays; use one of "
              f"{', '.join(spec.envs)}", file=sys.stderr)
        return 2
    if not spec.envs:   # it plays text worlds: a game or a set of instances is refused here
        from pddlkit.bench.resolve import EntryError, plays, resolve_env

        try:
            why = plays(spec, resolve_env(args.env))
        except EntryError:  # an unknown id: the environment's own lookup says so below
            why = None
        if why:
            print(f"{name}: {why}", file=sys.stderr)
            return 2
    # every LLM the agent makes reads these (pddlkit.llm.base): one place, every agent
    if args.transcript:
        os.environ["PDDLKIT_TRANSCRIPT"] = args.transcript
    if args.max_tokens:
        os.environ["PDDLKIT_MAX_TOKENS"] = str(args.max_tokens)
    env_options = {flag[2:]: getattr(args, flag[2:]) for flag, _, _ in ENV_FLAGS
                   if getattr(args, flag[2:]) is not None}
    try:
        options = options_for(spec, args)
    except OptionError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 2
    live = not args.quiet and not args.json
    job = Job(spec, args.env, args.llm, [args.seed + i for i in range(args.episodes)], options,
              env_options, args.record, args.max_tokens, print if live else None)
    rows: list[Row] = []
    error = None
    interrupted = False
    try:
        for row in spec.play(job):
            rows.append(row)
            if not args.json:
                print(_row_line(row), flush=True)
    except (AgentError, OptionError, LLMError, LookupError, ValueError, TypeError,
            FileNotFoundError, ImportError, RuntimeError, OSError) as exc:
        error = str(exc).strip() or type(exc).__name__
    except KeyboardInterrupt:
        # Ctrl-C: the episodes finished so far are printed (and are in the record), no
        # traceback; the exit status is the shell's for an interrupt
        error = "interrupted (Ctrl-C)" + (f"; the record so far is in {args.record}"
                                          if args.record else "")
        interrupted = True
    if args.json:
        print(json.dumps([r.as_dict() for r in rows], indent=2, default=str))
    elif rows and (len(rows) > 1 or spec.summarize is not None):
        print(f"\n{tally(rows)}" + (f" (of {len(job.seeds)} asked)" if error else ""))
        for line in (spec.summarize(rows) if spec.summarize else []):
            print(line)
    if error:
        print(f"{name}: {error}", file=sys.stderr)
        return 130 if interrupted else 2
    return 0 if rows and all(r.succeeded for r in rows) else 1
