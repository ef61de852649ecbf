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
...``, which played PDDLego+), was removed (issue 74): it exits 2 with one line naming the
form to write, ``pddlkit run NAME ...``, and plays nothing (read as before, a flag of the old
form could mean something else now: TWOSOME's ``--episodes`` was its training episodes).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Optional

from pddlkit.flags import (OneLineErrors, argparse_type, non_negative_int, number, positive_int,
                           with_defaults)

from .errors import AgentError
from .registry import UnknownAgentError, agent_names, get_agent
from .row import Row
from .contract import EnvLookupError, EnvOption, env_flags, env_spec, plays
from .spec import (AgentSpec, OptionError, add_option_flags, budget_field,
                   options_from_namespace)

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


def environment(env_id: Optional[str]):
    """The registry's spec of ``env_id`` (:mod:`.contract`), or None when it names none."""
    if not env_id:
        return None
    try:
        return env_spec(env_id)
    except EnvLookupError:
        return None


def add_env_flags(parser, spec: AgentSpec, env) -> list[EnvOption]:
    """The environment's options as flags (:func:`.contract.env_flags`), in a group named
    after it; each defaults to None, so only what was given reaches ``make``."""
    flags = env_flags(spec, env)
    title = f"{env.id} options" if env is not None else "environment options"
    group = parser.add_argument_group(title, None if env is not None else
                                      "name --env ID to see its options (pddlkit envs lists "
                                      "them all)")
    for o in flags:
        text = o.help or f"{o.name} (see pddlkit envs)"
        if o.type is bool:
            group.add_argument(o.flag, dest=f"env_{o.name}", action="store_const",
                               const=not o.default, default=None,
                               help=text + ("" if o.default is not True else " (on by default)"))
            continue
        kw: dict[str, Any] = {"dest": f"env_{o.name}", "default": None,
                              "metavar": o.name.upper()}
        kind = o.type or str
        kw["type"] = number(kind, least=o.minimum, most=o.maximum) if kind in (int, float) \
            else str
        if o.choices:
            kw["choices"] = list(o.choices)
            kw.pop("metavar")
        shown = f" (default: {o.default})" if o.default is not None else ""
        group.add_argument(o.flag, help=text + shown, **kw)
    return flags


def parser_for(spec: AgentSpec, env_id: Optional[str] = None) -> argparse.ArgumentParser:
    """The agent's parser: the common flags, the options of the environment ``env_id`` (the
    agent's default when None; :func:`add_env_flags`) and the agent's own, each value checked
    by its ``type=`` and each option's default shown in the help. No abbreviations: with
    the environment's flags beside the agent's, ``--train`` (an instance set's) would be
    taken for TWOSOME's ``--train-episodes``."""
    p = OneLineErrors(prog=f"pddlkit run {spec.name}", allow_abbrev=False,
                                description=f"{spec.summary}\n\n{spec.help_text()}".rstrip(),
                                formatter_class=with_defaults(
                                    argparse.RawDescriptionHelpFormatter))
    envs = f" ({', '.join(spec.envs)})" if spec.envs else ""
    p.add_argument("--env", default=spec.default_env, required=spec.default_env is None,
                   help=f"an environment id{envs}")
    own = ", ".join(s.spelled(spec.name) for s in spec.stand_ins)
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
    env = environment(env_id or spec.default_env)
    p.set_defaults(env_flags=add_env_flags(p, spec, env))
    add_option_flags(p, spec.options, f"{spec.name} options")
    return p


def _given_env(argv: list[str]) -> Optional[str]:
    """The ``--env`` of ``argv`` (the last one given), read before the parser is built,
    since the environment's options are the parser's flags."""
    found = None
    for i, word in enumerate(argv):
        if word == "--env" and i + 1 < len(argv):
            found = argv[i + 1]
        elif word.startswith("--env="):
            found = word.split("=", 1)[1]
    return found


def refuse_unused(spec: AgentSpec, env_id: str, extra: list[str]) -> str:
    """The one-line error for flags the pair does not take: an option of another
    environment (``--rooms`` on the household) names the flags this one takes."""
    env = environment(env_id)
    flags = [o.flag for o in env_flags(spec, env)]
    words = [w.split("=", 1)[0] for w in extra if w.startswith("-")]
    unknown = ", ".join(dict.fromkeys(words)) or " ".join(extra)
    if env is None:
        return f"unrecognized arguments: {unknown}"
    return (f"{unknown}: not an option of {spec.name} on {env.id}; the options of {env.id} "
            f"are {', '.join(flags) or '(none)'} (pddlkit run {spec.name} --env {env.id} "
            f"--help shows them, with {spec.name}'s own)")


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


def removed_spelling(argv: list[str]) -> Optional[str]:
    """The one line that refuses the spelling of earlier releases (removed, issue 74): ``--agent
    NAME ...``, or flags and no agent named (which played PDDLego+); None for anything else
    (no arguments at all, ``--help``, or an agent named first)."""
    if not argv or not argv[0].startswith("-") or argv[0] in ("-h", "--help"):
        return None
    name = ""
    for i, word in enumerate(argv):
        if word == "--agent" and i + 1 < len(argv):
            name = argv[i + 1]
            break
        if word.startswith("--agent="):
            name = word.split("=", 1)[1]
            break
    if name:
        return (f"pddlkit run: --agent {name}: this spelling was removed; write 'pddlkit run "
                f"{name} ...' (the agent first; pddlkit run {name} --help shows its flags)")
    return (f"pddlkit run: {argv[0]} with no agent named: this spelling was removed; write "
            f"'pddlkit run AGENT {argv[0]} ...' (the agents: {', '.join(agent_names())})")


def main(argv: list[str]) -> int:
    argv = list(argv)
    if not argv or argv[0] in ("-h", "--help"):   # alone: the listing, exit 2 (module doc)
        print(_agents_help(), file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    refused = removed_spelling(argv)
    if refused:
        print(refused, file=sys.stderr)
        return 2
    try:
        spec = get_agent(argv[0])
    except UnknownAgentError as exc:
        print(f"pddlkit run: {exc}", file=sys.stderr)
        return 2
    parser = parser_for(spec, _given_env(argv[1:]))
    args, extra = parser.parse_known_args(argv[1:])
    if extra:
        print(f"pddlkit run {spec.name}: {refuse_unused(spec, args.env, extra)}",
              file=sys.stderr)
        return 2
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


class Refused(Exception):
    """Bad input found before anything plays: the one line to print, exit status 2."""


def build_job(spec: AgentSpec, args):
    """The :class:`~.episode.Job` the parsed flags ask for, every check made first (a path
    that cannot take the record, an environment the agent does not play, LLM flags for an
    agent that makes no LLM call, a bad option value): :class:`Refused` with the line."""
    from .episode import Job

    for path, flag in ((args.record, "--record"), (args.transcript, "--transcript")):
        problem = writable_file(path, flag)
        if problem:
            raise Refused(problem)
    try:
        env = env_spec(args.env)
    except EnvLookupError as exc:
        raise Refused(str(exc)) from None
    why = plays(spec, env)
    if why and spec.envs:
        why = f"environment {args.env!r} is not one it plays; use one of {', '.join(spec.envs)}"
    if why:
        raise Refused(why)
    if not spec.uses_llm:
        given = [flag for flag, value in (("--llm", args.llm != spec.default_llm),
                                          ("--max-tokens", args.max_tokens),
                                          ("--transcript", args.transcript)) if value]
        if given:
            raise Refused(f"{', '.join(given)}: {spec.name} makes no LLM call (see pddlkit run "
                          f"{spec.name} --help); leave {'it' if len(given) == 1 else 'them'} "
                          f"out")
    env_options = {o.name: getattr(args, f"env_{o.name}") for o in args.env_flags
                   if getattr(args, f"env_{o.name}", None) is not None}
    try:
        options = options_for(spec, args)
    except OptionError as exc:
        raise Refused(str(exc)) from None
    live = not args.quiet and not args.json
    return Job(spec, args.env, args.llm, [args.seed + i for i in range(args.episodes)], options,
               env_options, args.record, args.max_tokens, _show if live else None,
               max_steps=args.max_steps, transcript=args.transcript)


def _show(line: str) -> None:
    """A live line, flushed: piped to a file or a pager, stdout is block-buffered, and a
    run's progress (IPP's rounds, a game's plans) would come out only at its end."""
    print(line, flush=True)


def run(spec: AgentSpec, args) -> int:
    from pddlkit.llm.errors import LLMError

    name = f"pddlkit run {spec.name}"
    try:
        job = build_job(spec, args)
    except Refused as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 2
    rows: list[Row] = []
    error = None
    interrupted = False
    try:
        for row in job.play():
            rows.append(row)
            if not args.json:
                print(_row_line(row), flush=True)
    except (AgentError, OptionError, LLMError, LookupError, ValueError, TypeError,
            FileNotFoundError, ImportError, RuntimeError, OSError) as exc:
        error = str(exc).strip() or type(exc).__name__
    except KeyboardInterrupt:
        # Ctrl-C: the episodes finished so far are printed (and are in the record), the one
        # cut says what it had spent (its record ends with an "interrupted" event), no
        # traceback; the exit status is the shell's for an interrupt
        cut = job.interrupted()
        error = "interrupted (Ctrl-C)"
        if cut:
            error += f" in the episode of seed {cut['seed']} after {cut['seconds']:.0f} s"
            if not cut["stand_in"]:   # a stand-in's calls are in its own ledger
                error += f" and {cut['calls']} LLM call(s)"
        if args.record:
            error += f"; the record so far is in {args.record}"
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
