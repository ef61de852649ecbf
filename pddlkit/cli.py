"""The ``pddlkit`` command line.

Subcommands: ``check`` (static checks, human or --json output), ``validate`` (simulate a plan),
``plan`` (plan with Fast Downward or any registered planner), ``planners`` (what is installed),
``envs`` (the text environments), ``bench`` and ``report`` (sweeps: :mod:`pddlkit.bench`),
``demo`` (the offline demonstration run by ``make demo``). Exit status: 0 when there is no
error (``plan``: a plan was found), 1 when the input has errors or there is no plan, 2 for
usage errors. Bad PDDL never produces a traceback.

Input is read bounded (issue 43): a path must name a regular file of at most 64 MiB (``check
--max-bytes``, ``PDDLKIT_MAX_PDDL_BYTES``), checked before it is opened, so a device, a FIFO or
``/dev/zero`` is one diagnostic, never a hang or a ``MemoryError``; ``-`` reads standard input
up to the same limit. ``check`` prints at most :data:`~pddlkit.diagnostics.MAX_SHOWN` (20)
diagnostics, each with at most 120 characters of its line, then ``and N more diagnostics``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Optional, Sequence

from .markup import plain


def _cmd_check(args) -> int:
    from .checks import CheckReport, check
    from .diagnostics import MAX_SHOWN, diagnostics_to_json
    from .pddl.reader import refusal
    from .pddl.sexpr import InputRefused

    try:
        report = check(_source(args.domain, args.max_bytes),
                       _source(args.problem, args.max_bytes) if args.problem else None,
                       planner=None if args.planner in (None, "any") else args.planner,
                       max_bytes=args.max_bytes)
    except InputRefused as exc:   # standard input refused: too large, not text
        report = CheckReport([refusal(exc, "<stdin>")])
    if args.json:
        print(json.dumps({"ok": report.ok, "errors": len(report.errors),
                          "warnings": len(report.warnings),
                          "diagnostics": json.loads(diagnostics_to_json(report.diagnostics))},
                         indent=2))
    else:
        if report.diagnostics:
            print(report.format(MAX_SHOWN))
        files = args.domain + (f" + {args.problem}" if args.problem else "")
        verdict = "OK" if report.ok else "FAILED"
        n_err, n_warn = report.counts()
        print(f"{verdict}: {files}: {n_err} error(s), {n_warn} warning(s)")
        if report.ok and args.planner is None:   # which planners: information, not the verdict
            from .planners.registry import planners_line

            print(planners_line(report.features))
    return 0 if report.ok else 1


def _source(value: str, max_bytes: Optional[int] = None):
    """A PDDL input named on the command line: ``-`` as the text read from standard input
    (at most the size limit; InputRefused past it or for bytes that are not text), anything
    else as a Path, which the reader refuses unless it is a regular file within the limit
    (a pipe or a device, ``/dev/stdin`` included, is given as ``-`` instead)."""
    if value == "-":
        from .pddl.sexpr import decode_text, read_stream_bytes

        return decode_text(read_stream_bytes(sys.stdin.buffer, max_bytes))
    return Path(value)


def _plan_lines(value: str) -> list[str]:
    """A plan file's lines, read like a PDDL file (bounded, a regular file or ``-``; bytes
    that are not UTF-8 replaced, as the plan reader does); InputRefused or OSError."""
    from .pddl.sexpr import read_file_bytes, read_stream_bytes

    data = (read_stream_bytes(sys.stdin.buffer) if value == "-" else read_file_bytes(value))
    return data.decode("utf-8", errors="replace").split("\n")


def max_bytes(text: str) -> int:
    """argparse type for --max-bytes: a positive number of bytes (``64M``, ``1G`` too)."""
    from .pddl.sexpr import parse_bytes

    try:
        return parse_bytes(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _cmd_validate(args) -> int:
    from .checks import check
    from .diagnostics import PDDLError, diagnostics_to_json, format_diagnostics
    from .pddl.plan import parse_plan
    from .semantics.validate import validate_plan

    from .diagnostics import MAX_SHOWN
    from .pddl.reader import refusal
    from .pddl.sexpr import InputRefused

    def refused(diagnostics, why: str) -> int:
        if args.json:
            print(json.dumps({"valid": False, "error": why,
                              "diagnostics": json.loads(diagnostics_to_json(diagnostics))},
                             indent=2))
        else:
            print(format_diagnostics(diagnostics, MAX_SHOWN))
            print(f"FAILED: {why}")
        return 1

    # PDDL itself, with numbers: Fast Downward's limits are for planning, not for validation
    try:
        report = check(_source(args.domain), _source(args.problem), planner=None)
    except InputRefused as exc:
        return refused([refusal(exc, "<stdin>")], "standard input could not be read")
    if not report.ok:
        return refused(report.errors, "the domain/problem have errors; fix them before "
                                      "validating a plan")
    try:
        plan = parse_plan(_plan_lines(args.plan), file=args.plan)
    except PDDLError as exc:
        return refused(list(exc.diagnostics), "the plan could not be read")
    except InputRefused as exc:
        name = "<stdin>" if args.plan == "-" else args.plan
        return refused([refusal(exc, name)], "the plan could not be read")
    except OSError as exc:
        from .diagnostics import Diagnostic, Severity

        return refused([Diagnostic("file-not-found", Severity.ERROR, f"cannot read {args.plan}: "
                                   f"{exc.strerror or exc}", file=args.plan,
                                   hint="check the path of the plan file")],
                       "the plan could not be read")
    result = validate_plan(report.domain, report.problem, plan)
    if args.json:
        out = {"valid": result.valid, "steps_executed": result.steps_executed,
               "goal_satisfied": result.goal_satisfied, "cost": result.cost,
               "explanation": result.explain()}
        if result.failure is not None:
            f = result.failure
            out["failure"] = {"step": f.index + 1, "action": str(f.step), "line": f.step.line,
                              "reason": f.reason, "message": f.message,
                              "unsatisfied": [u.text for u in f.unsatisfied]}
        out["unsatisfied_goal"] = [u.text for u in result.unsatisfied_goal]
        print(json.dumps(out, indent=2))
    else:
        print(("VALID: " if result.valid else "INVALID: ") + result.explain())
    return 0 if result.valid else 1


def seconds(text: str) -> float:
    """argparse type for a time limit: a positive, finite number of seconds."""
    from .planners.protocol import LimitError, check_timeout

    try:
        return check_timeout(float(text), "the time limit", no_limit="")
    except (ValueError, LimitError) as exc:
        if isinstance(exc, LimitError):
            raise argparse.ArgumentTypeError(str(exc)) from None
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None


def _cmd_plan(args) -> int:
    from .planners import UnknownPlannerError, plan

    options = {}
    if args.alias:
        options["alias"] = args.alias
    try:
        result = plan(_source(args.domain), _source(args.problem), planner=args.planner,
                      timeout=args.timeout, memory_limit=args.memory_limit,
                      cache=args.cache or False, **options)
    except (UnknownPlannerError, ValueError, TypeError) as exc:
        print(f"pddlkit plan: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(result.to_json(include_log=args.log))
    else:
        print(result.format())
        if args.log and result.log:
            print("--- planner log ---\n" + result.log)
    return 0 if result.solved else 1


def _cmd_planners(args) -> int:
    from .planners import available_planners
    from .planners.capabilities import describe

    infos = available_planners(include_up=not args.no_up)
    if args.json:
        print(json.dumps([{"name": i.name, "source": i.source, "available": i.available,
                           "reason": i.reason,
                           "supports": sorted(i.supports) if i.supports is not None else None}
                          for i in infos], indent=2))
        return 0
    width = max(len(i.name) for i in infos)
    for i in infos:
        state = "ok" if i.available else "unavailable: " + i.reason
        can = "chooses per task" if i.name == "auto" else describe(i.supports)
        print(f"{i.name:<{width}}  {i.source:<20}  {state:<4}  plans: {can}")
    return 0


def _cmd_demo(args) -> int:
    from .demo import run_demo

    return run_demo()


def _cmd_mcp(args) -> int:
    from .llm.errors import LLMSpecError
    from .service.calls import CallLimits
    from .service.server import serve

    try:
        limits = CallLimits(seconds=args.call_timeout, memory_mb=args.call_memory_mb,
                            queue=args.queue, sessions=args.sessions,
                            **({"workers": args.workers} if args.workers else {}))
        return serve(http=args.http, host=args.host, port=args.port, limits=limits,
                     llms=args.llm or (), token=args.token)
    except (RuntimeError, LLMSpecError, ValueError) as exc:   # the SDK missing, a bad --llm
        print(f"pddlkit mcp: {exc}", file=sys.stderr)
        return 2


def _list_llms(as_json: bool) -> int:
    """``pddlkit llm list``: the kinds an ``--llm`` spec may name (built-in and plugins'), and
    every agent's offline stand-ins with what each knows."""
    from .agents.registry import catalogue
    from .llm.spec import ENTRY_POINT_GROUP, KIND_HELP, known_kinds
    from .plugins import entry_points_of

    plugins = {ep.name: ep.value for ep in entry_points_of(ENTRY_POINT_GROUP)}
    kinds = [{"kind": kind, "what": KIND_HELP.get(kind) or f"a plugin's ({plugins.get(kind)})"}
             for kind in known_kinds()]
    stand_ins = catalogue()
    if as_json:
        print(json.dumps({"kinds": kinds, "stand_ins": stand_ins}, indent=2))
        return 0
    print("LLM kinds (--llm KIND:ARGUMENT):")
    width = max(len(k["kind"]) for k in kinds)
    for k in kinds:
        print(f"  {k['kind']:<{width}}  {k['what']}")
    print("\nOffline stand-ins (--llm of the agent named; no model, no network):")
    width = max((len(s["spec"]) for s in stand_ins), default=0)
    for s in stand_ins:
        print(f"  {s['spec']:<{width}}  {s['knows']}")
    return 0


def _cmd_llm(args) -> int:
    from .llm import local_server
    from .llm.errors import LLMError

    if args.prompt_cache and args.action != "serve":
        print(f"pddlkit llm {args.action}: --prompt-cache is an option of serve (the server is "
              "started with it)", file=sys.stderr)
        return 2
    if args.action == "list":
        return _list_llms(args.json)
    try:
        if args.action == "serve":
            server = local_server.start(args.model, port=args.port,
                                        prompt_cache=True if args.prompt_cache else None)
        elif args.action == "status":
            server = local_server.running(args.model)
            if server is None:
                print(f"no local server for {args.model} is running (pddlkit llm serve "
                      f"--model {args.model})")
                return 1
        else:
            stopped = local_server.stop(args.model)
            print(f"stopped the local server for {args.model}" if stopped else
                  f"no local server for {args.model} was running")
            return 0
    except LLMError as exc:
        print(f"pddlkit llm {args.action}: {exc}", file=sys.stderr)
        return 2
    print(f"{server.model} at {server.base_url} (pid {server.pid}"
          f"{', prompt cache on' if server.prompt_cache else ''})\n"
          f"export OPENAI_BASE_URL={server.base_url}\n"
          f"use it as --llm local:{args.model} (or openai:{server.model}@{server.base_url}); "
          f"stop it with: pddlkit llm stop --model {args.model}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from .flags import OneLineErrors

    parser = OneLineErrors(prog="pddlkit", description=plain(__doc__.split("\n")[0]))
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("check", help="read and statically check a domain (and problem)")
    p.add_argument("domain")
    p.add_argument("problem", nargs="?")
    p.add_argument("--json", action="store_true", help="machine-readable diagnostics")
    p.add_argument("--planner", default=None, choices=("fast-downward", "auto", "any"),
                   help="the target, when the verdict should include it: fast-downward (what "
                        "Fast Downward rejects is an error), auto (the planner `plan --planner "
                        "auto` picks by the task's features; numeric fluents: ENHSP), any "
                        "(PDDL itself). Default: the verdict is whether the files are valid "
                        "PDDL, and a line after it says which planners here can plan them")
    p.add_argument("--max-bytes", type=max_bytes, default=None, metavar="N",
                   help="refuse a PDDL file larger than N bytes (e.g. 128M; default "
                        "PDDLKIT_MAX_PDDL_BYTES or 64M)")
    p.set_defaults(func=_cmd_check)

    p = sub.add_parser("validate", help="simulate a plan and say whether it reaches the goal")
    p.add_argument("domain")
    p.add_argument("problem")
    p.add_argument("plan")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_validate)

    p = sub.add_parser("plan", help="find a plan (validated), or explain why there is none")
    p.add_argument("domain")
    p.add_argument("problem")
    p.add_argument("--planner", default="fast-downward",
                   help="a name from `pddlkit planners`, up:<engine> or 'cmd:<command>'")
    p.add_argument("--alias", help="Fast Downward alias: lama-first (default), lama, optimal")
    p.add_argument("--timeout", type=seconds, default=60.0, help="seconds, wall clock")
    p.add_argument("--memory-limit", help="e.g. 4G")
    p.add_argument("--cache", metavar="SQLITE_FILE", help="reuse answers stored in this file "
                   "(created in an existing folder when missing)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--log", action="store_true", help="include the planner's raw log")
    p.set_defaults(func=_cmd_plan)

    p = sub.add_parser("planners", help="list the planners installed and usable here")
    p.add_argument("--json", action="store_true")
    p.add_argument("--no-up", action="store_true", help="skip unified-planning's engines")
    p.set_defaults(func=_cmd_planners)

    p = sub.add_parser("demo", help="offline demonstration on a bundled domain")
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("llm", help="list the LLM kinds and the agents' offline stand-ins "
                                   "(list); a local OpenAI-compatible server for a GGUF model "
                                   "(llama.cpp): serve, status, stop")
    p.add_argument("action", choices=("list", "serve", "status", "stop"))
    p.add_argument("--json", action="store_true", help="list: machine-readable")
    p.add_argument("--model", default="qwen2.5-coder-1.5b",
                   help="a known model (qwen2.5-coder-1.5b, the default; gemma-3-270m) or a "
                        ".gguf file")
    from .flags import number

    p.add_argument("--port", type=number(int, least=1, most=65535),
                   help="default: a free port")
    p.add_argument("--prompt-cache", action="store_true",
                   help="serve: keep evaluated prompts in a RAM store (llama-cpp-python's "
                        "--cache), so a prompt that begins as a recent one did costs only the "
                        "rest; PDDLKIT_LOCAL_PROMPT_CACHE=1 does the same for local: models")
    p.set_defaults(func=_cmd_llm)
    p = sub.add_parser("mcp", help="serve pddlkit's tools over the Model Context Protocol "
                                   "(stdio; --http for streamable HTTP on a loopback port)")
    p.add_argument("--http", action="store_true", help="streamable HTTP at /mcp instead of "
                                                       "stdio")
    p.add_argument("--host", default="127.0.0.1", help="--http: the address to bind")
    p.add_argument("--port", type=number(int, least=1, most=65535), default=8765,
                   help="--http: the port")
    p.add_argument("--token", help="--http: the token every request must send (Authorization: "
                                   "Bearer TOKEN); default PDDLKIT_MCP_TOKEN, else one made "
                                   "and printed at start")
    p.add_argument("--llm", action="append", metavar="SPEC",
                   help="an LLM spec clients may name in formalize_step (repeatable); besides "
                        "these, only the offline stand-ins (standin:...)")
    p.add_argument("--call-timeout", type=number(float, least=0.1), default=60.0,
                   help="seconds a tool call may run before it is stopped (default 60; a "
                        "client may ask for less)")
    p.add_argument("--call-memory-mb", type=number(int, least=64), default=2048,
                   help="MiB a tool call may use, with the processes it starts (default 2048)")
    p.add_argument("--workers", type=number(int, least=1), default=None,
                   help="tool calls that run at once (default: the cores, at least 2)")
    p.add_argument("--queue", type=number(int, least=0), default=16,
                   help="calls that may wait for a worker; more are refused as server-busy")
    p.add_argument("--sessions", type=number(int, least=1), default=8,
                   help="formalize_step memories kept at once (each holds a worker)")
    p.set_defaults(func=_cmd_mcp)
    from .agents.cli import register as register_run
    from .bench.cli import register as register_bench
    from .compare.cli import register as register_compare

    register_run(sub)
    register_bench(sub)
    register_compare(sub)
    _plugin_commands(sub)
    from .flags import show_defaults

    return show_defaults(parser)   # every subcommand's help shows its options' defaults


def _plugin_commands(sub) -> None:
    """Subcommands of front ends (``pddlkit domains``), found through the ``pddlkit.commands``
    entry points, so the core never imports the front ends."""
    from .plugins import entry_points_of

    for ep in entry_points_of("pddlkit.commands"):
        try:
            ep.load()(sub)
        except Exception as exc:  # a broken plugin must not break the CLI
            print(f"pddlkit: command plugin {ep.name!r} failed to load: {exc}", file=sys.stderr)


def _version() -> str:
    from . import __version__

    return f"pddlkit {__version__}"


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The ``pddlkit`` command; Ctrl-C anywhere is one line and the shell's status, 130 (an
    agent's run says more: what was finished, where the record is)."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("pddlkit: interrupted (Ctrl-C)", file=sys.stderr)
        return 130


def _main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["run"]:  # the agent's own parser takes everything after the agent's name
        from .agents.cli import main as run_main

        return run_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    for attr in ("domain", "problem", "plan"):
        value = getattr(args, attr, None)
        if value and Path(value).is_dir():
            inside = sorted(p.name for p in Path(value).glob("*.pddl"))[:6]
            hint = f"; it holds {', '.join(inside)}" if inside else ""
            print(f"pddlkit {args.command}: {value} is a directory, not a PDDL file: give the "
                  f"{attr} file itself{hint}", file=sys.stderr)
            return 2
        if value and value != "-" and not Path(value).exists():
            print(f"pddlkit {args.command}: no such file: {value}", file=sys.stderr)
            return 2
    if sum(getattr(args, attr, None) == "-" for attr in ("domain", "problem", "plan")) > 1:
        print(f"pddlkit {args.command}: only one input can be read from stdin ('-')",
              file=sys.stderr)
        return 2
    try:
        return args.func(args)
    except BrokenPipeError:   # the reader left (| head): stop quietly, as cat does
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
