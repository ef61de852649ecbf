"""The core's answers as data: what an agent asks of a world model, one function each, text in
and JSON-ready dicts out (issue 50). ``pddlkit mcp`` serves them over the Model Context
Protocol (:mod:`.server`); they take no MCP types, so a program can call them too.

Every function:

* takes PDDL as text (what an LLM or a client holds), never a path (the server reads none of
  its own files for a client: PDDL text must open with ``(``, and anything else is refused,
  whatever its length or form), each input at most
  :data:`MAX_INPUT_BYTES` (``PDDLKIT_MCP_MAX_BYTES`` overrides): larger input is refused as
  ``input-too-large`` naming the argument, before anything is parsed;
* caps planner time at :data:`MAX_PLAN_SECONDS` (a larger ``timeout`` is refused, naming the
  cap): a tool call never holds a client for minutes;
* answers ``ok`` with one meaning in every tool: the answer is a yes (check: no errors;
  plan: solved; validate_plan: the plan is valid; explain: a reason for no plan was found;
  compare: equivalent, or the domains agree), with the answer's own fields beside it;
* returns ``{"ok": true, ...}`` with its answer, or ``{"ok": false, "error": {"code",
  "message", "hint", "argument"}}`` (and the diagnostics, when PDDL was wrong): never a
  traceback. ``text`` is the same answer in words, for a model to read.

What each answers: :func:`check` (is this PDDL right, and if not where), :func:`plan` (plan it,
validated; the planner named or ``auto``), :func:`validate_plan` (does this plan work, and if
not which step and which atom), :func:`explain` (why is there no plan), :func:`compare` (is this
problem the same as that one up to renaming; do two domains agree by behaviour).
"""

from __future__ import annotations

import os
from typing import Any, Optional

#: the largest input (one argument) a tool reads, in bytes
MAX_INPUT_BYTES = int(os.environ.get("PDDLKIT_MCP_MAX_BYTES", 1 << 20))
#: the longest planner time a tool call may ask for, in seconds
MAX_PLAN_SECONDS = 120.0
DEFAULT_PLAN_SECONDS = 30.0
#: the most items a list argument (compare's problems, formalize_step's pairs) may hold
MAX_LIST_ITEMS = 100


class Refused(Exception):
    """An input a tool will not take: the error, as data."""

    def __init__(self, code: str, message: str, hint: str = "", argument: str = "",
                 diagnostics: Optional[list] = None) -> None:
        super().__init__(message)
        self.data = {"code": code, "message": message, "hint": hint, "argument": argument}
        self.diagnostics = diagnostics or []

    def __reduce__(self):
        # rebuilt from its fields, not from the message alone, so it crosses a process pool
        return (type(self), (self.data["code"], self.data["message"], self.data["hint"],
                             self.data["argument"], self.diagnostics))

    def answer(self) -> dict:
        out: dict[str, Any] = {"ok": False, "error": self.data,
                               "text": f"{self.data['message']}"
                                       + (f" (hint: {self.data['hint']})" if self.data["hint"]
                                          else "")}
        if self.diagnostics:
            out["diagnostics"] = self.diagnostics
        return out


def _text(value: Any, argument: str, required: bool = True, pddl: bool = True
          ) -> Optional[str]:
    """``value`` as text within :data:`MAX_INPUT_BYTES`, or :class:`Refused`; ``pddl``: PDDL
    text, which must open with ``(`` after any comments (so no reader can take it for a path,
    whatever its length: a path-like string of any form, long, relative, ``..``, ``file:``,
    is refused here, and the server opens no file a client names)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise Refused("missing-input", f"{argument} is empty", f"give the {argument} as "
                          "PDDL text", argument)
        return None
    if not isinstance(value, str):
        raise Refused("bad-input", f"{argument} must be text, got "
                      f"{type(value).__name__}", f"give the {argument} as a string", argument)
    size = len(value.encode("utf-8", errors="replace"))
    if size > MAX_INPUT_BYTES:
        raise Refused("input-too-large", f"{argument} is {size:,} bytes, over the limit of "
                      f"{MAX_INPUT_BYTES:,}", "send a smaller file (the limit is "
                      "PDDLKIT_MCP_MAX_BYTES on the server)", argument)
    if pddl and not _opens_pddl(value):   # the server never reads its own files for a client
        raise Refused("not-pddl-text", f"{argument} is not PDDL text (it does not open with "
                      f"'(', so it could be read as a file path: {value.strip()[:60]!r})",
                      f"send the {argument}'s contents, (define ...); this server reads no "
                      "files", argument)
    return value


def _opens_pddl(text: str) -> bool:
    """Whether ``text``'s first character that is not blank or in a ``;`` comment is ``(``."""
    for line in text.splitlines():
        code = line.split(";", 1)[0].strip()
        if code:
            return code.startswith("(")
    return False


#: a name a client may give for a library entry or an environment: no path in it
_NAME = __import__("re").compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def _name(value: Any, argument: str, parts: int = 1) -> str:
    """``value`` as a plain name (``parts`` of them joined by ``/``), or :class:`Refused`: the
    names a client gives pick entries of the server's own lists, never a place on disk."""
    text = value if isinstance(value, str) else ""
    pieces = text.split("/")
    if not (1 <= len(pieces) <= parts and all(_NAME.fullmatch(p) and ".." not in p
                                              for p in pieces)):
        raise Refused("bad-name", f"{argument} must be a name such as coin-collector"
                      f"{'/1a2b3c' if parts > 1 else ''}, got {str(value)[:60]!r}",
                      "names come from the server's own listing (domains_list)", argument)
    return text


def _timeout(value: Any) -> float:
    try:
        if isinstance(value, (str, bool)):   # a number, not its spelling (JSON has numbers)
            raise TypeError(value)
        seconds = float(DEFAULT_PLAN_SECONDS if value is None else value)
    except (TypeError, ValueError):
        raise Refused("bad-input", f"timeout must be a number of seconds, got {value!r}",
                      "e.g. 30", "timeout") from None
    if not 0 < seconds <= MAX_PLAN_SECONDS:
        raise Refused("timeout-out-of-range", f"timeout {seconds:g} s is outside (0, "
                      f"{MAX_PLAN_SECONDS:g}]", f"ask for {MAX_PLAN_SECONDS:g} s at most",
                      "timeout")
    return seconds


def answered(function):
    """Run a tool; its :class:`Refused` and any other exception come back as data."""
    import functools

    @functools.wraps(function)
    def tool(*args: Any, **kwargs: Any) -> dict:
        try:
            return function(*args, **kwargs)
        except Refused as exc:
            return exc.answer()
        except Exception as exc:  # noqa: BLE001 - a tool never answers with a traceback
            return Refused("internal-error", f"{type(exc).__name__}: {exc}",
                           "this is pddlkit's fault: report it with the input").answer()
    return tool


def _checked(domain: str, problem: Optional[str], planner: Optional[str] = None):
    """The check report of the inputs, or :class:`Refused` with its diagnostics."""
    from pddlkit.checks import check as check_files

    report = check_files(domain, problem, planner=planner)
    if not report.ok:
        raise Refused("pddl-errors", f"{len(report.errors)} error(s) in the PDDL",
                      report.errors[0].hint or "fix the errors the diagnostics name",
                      "problem" if report.errors[0].file == "<problem>" else "domain",
                      [d.to_dict() for d in report.diagnostics])
    return report


#: what check may check against (the plan tool's planner names, where they mean the same)
CHECK_TARGETS = ("fast-downward", "auto", "any")


@answered
def check(domain: str, problem: Optional[str] = None, target: Optional[str] = None) -> dict:
    """Statically check a domain (and a problem): every diagnostic with its place and a fix.
    The verdict is whether the files are valid PDDL; which planners here can plan them is
    information beside it (``planners``), unless a ``target`` planner is named."""
    from pddlkit.checks import check as check_files

    domain_text = _text(domain, "domain")
    problem_text = _text(problem, "problem", required=False)
    if target is not None and target not in CHECK_TARGETS:
        raise Refused("bad-input", f"target must be one of {', '.join(CHECK_TARGETS)}, got "
                      f"{target!r}", "leave it out for valid PDDL; fast-downward: what Fast "
                      "Downward rejects is an error too", "target")
    report = check_files(domain_text, problem_text,
                         planner=None if target in (None, "any") else target)
    errors, warnings = report.counts()
    text = report.format(limit=20) if report.diagnostics else "no problems found"
    planners = ""
    if report.ok and target is None:
        from pddlkit.planners.registry import planners_line

        planners = planners_line(report.features)
        text += "\n" + planners
    return {"ok": report.ok, "errors": errors, "warnings": warnings,
            "diagnostics": [d.to_dict() for d in report.diagnostics],
            "features": sorted(report.features), "planners": planners, "text": text}


def _planner(value: Any) -> str:
    """A planner a client may name, or :class:`Refused`. The client chooses among the
    server's planners: ``auto``, ``fast-downward`` (with one of its aliases,
    ``fast-downward:lama``), the installed plug-ins, and unified-planning's installed engines
    (``up:enhsp``). Never a command: ``cmd:...`` runs a shell command, which is the operator's
    to configure (in Python or the CLI), not a client's to send."""
    from pddlkit.planners.registry import known_names

    if value is None:
        return "fast-downward"
    if not isinstance(value, str) or not value.strip():
        raise Refused("bad-input", f"planner must be a planner's name, got {value!r}",
                      "e.g. fast-downward, or auto", "planner")
    name = value.strip()
    base, _, argument = name.partition(":")
    if name == "auto" or (name in known_names() and not argument):
        return name
    if base == "fast-downward" and argument:
        from pddlkit.planners.fast_downward import ALIAS_SHORTHANDS, fd_aliases

        if argument in ALIAS_SHORTHANDS or argument in fd_aliases():
            return name
    if base == "up" and argument:
        from pddlkit.planners.up_engine import up_engine_names

        if argument in up_engine_names():
            return name
    offered = ", ".join(dict.fromkeys(["auto", *known_names(), "fast-downward:ALIAS",
                                       "up:ENGINE"]))
    raise Refused("unknown-planner", f"planner {name[:80]!r} is not one this server offers "
                  f"({offered})", "pddlkit planners lists them on the server; a command "
                  "planner (cmd:) is never taken from a client", "planner")


@answered
def plan(domain: str, problem: str, planner: str = "fast-downward",
         timeout: Optional[float] = None, cache: bool = True) -> dict:
    """A validated plan, or the typed reason there is none (with why-no-plan's sentences).
    ``cache``: answer a task planned before from the plan cache."""
    import pddlkit

    domain_text, problem_text = _text(domain, "domain"), _text(problem, "problem")
    seconds = _timeout(timeout)
    chosen = _planner(planner)
    if not isinstance(cache, bool):
        raise Refused("bad-input", f"cache must be true or false, got {cache!r}", "", "cache")
    try:
        result = pddlkit.plan(domain_text, problem_text, planner=chosen, timeout=seconds,
                              cache=cache)
    except pddlkit.UnknownPlannerError as exc:
        raise Refused("unknown-planner", str(exc), "pddlkit planners lists them; or auto",
                      "planner") from None
    data = result.to_dict()
    out = {"ok": result.solved, **data, "text": result.format()}
    if result.status.value == "error":     # an error has its error object, as every tool's
        first = result.diagnostics[0] if result.diagnostics else None
        out["error"] = {"code": first.code if first else "planner-error",
                        "message": first.message if first else result.format(),
                        "hint": (first.hint or "") if first else "",
                        "argument": "problem" if first and first.file == "<problem>"
                        else "domain" if first else "planner"}
    return out


@answered
def validate_plan(domain: str, problem: str, plan: str) -> dict:
    """Simulate ``plan`` (one action per line, ``(move a b)``): valid, or the failing step, its
    action and the atoms that were false."""
    from pddlkit.diagnostics import PDDLError
    from pddlkit.pddl.plan import parse_plan
    from pddlkit.semantics.validate import validate_plan as validate

    domain_text, problem_text = _text(domain, "domain"), _text(problem, "problem")
    plan_text = _text(plan, "plan")
    report = _checked(domain_text, problem_text)
    try:
        steps = parse_plan(plan_text.split("\n"), file="<plan>")
    except PDDLError as exc:
        raise Refused("plan-unreadable", "the plan could not be read", "one action per line, "
                      "such as (move kitchen hall)", "plan",
                      [d.to_dict() for d in exc.diagnostics]) from None
    result = validate(report.domain, report.problem, steps)
    out: dict[str, Any] = {"ok": bool(result.valid), "valid": result.valid,
                           "steps_executed": result.steps_executed,
                           "goal_satisfied": result.goal_satisfied, "cost": result.cost,
                           "unsatisfied_goal": [u.text for u in result.unsatisfied_goal],
                           "failure": None, "text": result.explain()}
    if result.failure is not None:
        f = result.failure
        out["failure"] = {"step": f.index + 1, "action": str(f.step), "reason": f.reason,
                          "message": f.message, "unsatisfied": [u.text for u in f.unsatisfied]}
    return out


@answered
def explain(domain: str, problem: str) -> dict:
    """Why the problem has no plan: unreachable goals, atoms nothing adds, blocked actions."""
    from pddlkit.planners.explain import why_no_plan

    domain_text, problem_text = _text(domain, "domain"), _text(problem, "problem")
    report = _checked(domain_text, problem_text, planner=None)
    found = why_no_plan(report.domain, report.problem)
    if found.sentences:
        return {"ok": True, **found.to_dict(), "solvable": False, "text": found.text()}
    import pddlkit   # nothing blocks it: say whether it has a plan, rather than "no reason"

    result = pddlkit.plan(domain_text, problem_text, timeout=10.0)
    text = (f"the problem has a plan of {len(result.plan)} steps, so nothing stops it: "
            "plan gives it" if result.solved else
            "no reason for it to have no plan was found, and no plan was found in 10 s either "
            f"({result.status}); plan with more time")
    return {"ok": False, **found.to_dict(), "solvable": True if result.solved else None,
            "text": text}


@answered
def compare(reference: str, candidate: str, domain: Optional[str] = None,
            problems: Optional[list] = None, complete_goals: bool = False) -> dict:
    """Two problems (with their ``domain``): equivalent up to renaming, or the differences
    under the best renaming; two domains (with reference ``problems``): agreement by
    behaviour, per action."""
    from pddlkit.compare.domains import compare_domains
    from pddlkit.compare.inputs import CompareInputError
    from pddlkit.compare.problems import compare_problems

    from pddlkit.compare.inputs import detect_kind

    ref, cand = _text(reference, "reference"), _text(candidate, "candidate")
    try:
        kinds = [detect_kind(ref, "reference"), detect_kind(cand, "candidate")]
        if kinds[0] != kinds[1]:
            raise Refused("compare-kind-mismatch", f"the reference is a {kinds[0]} and the "
                          f"candidate a {kinds[1]}: only two problems or two domains can be "
                          "compared", f"give a {kinds[0]} as the candidate (a problem's domain "
                          "goes in domain)", "candidate")
        if kinds[0] == "domain":
            if problems is not None and not isinstance(problems, list):
                raise Refused("bad-input", f"problems must be a list of PDDL texts, got "
                              f"{type(problems).__name__}", "problems: [PDDL text, ...]",
                              "problems")
            if len(problems or []) > MAX_LIST_ITEMS:
                raise Refused("input-too-large", f"{len(problems)} problems, over the limit "
                              f"of {MAX_LIST_ITEMS}", "send fewer", "problems")
            texts = [_text(p, f"problems[{k}]") for k, p in enumerate(problems or [])]
            if not texts:
                raise Refused("missing-input", "two domains are compared by behaviour on "
                              "reference problems; none given", "give problems: [PDDL text]",
                              "problems")
            result = compare_domains(ref, cand, texts)
        else:
            if not isinstance(complete_goals, bool):
                raise Refused("bad-input", "complete_goals must be true or false", "",
                              "complete_goals")
            domain_text = _text(domain, "domain", required=complete_goals)
            result = compare_problems(ref, cand, domain_text, complete_goals=complete_goals)
    except CompareInputError as exc:
        raise Refused("compare-input", exc.summary, "", exc.role,
                      [d.to_dict() for d in exc.diagnostics]) from None
    return {"ok": True, **result.to_dict(), "text": result.format()}


def _pddl(what: str) -> dict:
    return {"type": "string", "description": f"{what}, as PDDL text (the file's contents, "
            f"opening with '('; never a path), at most {MAX_INPUT_BYTES:,} bytes"}


#: each tool's arguments as JSON schema, described (the server's input schemas: type, allowed
#: values, units); a tool's parameter with no entry here is a build error of the server
ARGUMENTS = {
    "check": {"domain": _pddl("the domain"), "problem": _pddl("a problem of that domain"),
              "target": {"type": "string", "enum": list(CHECK_TARGETS),
                         "description": "left out (the default): the verdict is valid PDDL, "
                                        "and planners says which planners here plan it; "
                                        "fast-downward: what Fast Downward cannot take is an "
                                        "error too; auto (the planner plan picks by the "
                                        "task's features, ENHSP for numeric tasks) or any: "
                                        "PDDL itself"}},
    "plan": {"domain": _pddl("the domain"), "problem": _pddl("the problem"),
             "planner": {"type": "string", "description": "a planner's name (default "
                         "fast-downward, as in the CLI and Python; enhsp for numeric tasks; "
                         "pddlkit planners lists them), or auto: chosen by the task's "
                         "features"},
             "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_PLAN_SECONDS,
                         "description": f"planner seconds (default {DEFAULT_PLAN_SECONDS:g}, at "
                                        "most the call's limit)"},
             "cache": {"type": "boolean", "description": "answer a task planned before from "
                                                         "the plan cache (default true)"}},
    "validate_plan": {"domain": _pddl("the domain"), "problem": _pddl("the problem"),
                      "plan": {"type": "string", "description": "the plan, one action a line: "
                               "(move kitchen hall)"}},
    "explain": {"domain": _pddl("the domain"), "problem": _pddl("the problem")},
    "compare": {"reference": _pddl("the reference problem (or domain)"),
                "candidate": _pddl("the candidate problem (or domain)"),
                "domain": _pddl("the problems' domain (when comparing problems)"),
                "problems": {"type": "array", "items": _pddl("a reference problem"),
                             "maxItems": MAX_LIST_ITEMS,
                             "description": "reference problems, to compare two domains by "
                                            "behaviour on them"},
                "complete_goals": {"type": "boolean", "description": "two problems: also "
                                   "compare their goals completed with the atoms every "
                                   "reachable goal state has (Planetarium's verdict, beside "
                                   "the strict one; needs domain)"}},
}


def described(function, table: dict):
    """Attach ``table`` (argument -> JSON schema) to a tool, for the server's input schema."""
    function.arguments = table
    return function


#: the tools :mod:`.server` serves, by name, with what each is for (the MCP description)
TOOLS = {"check": check, "plan": plan, "validate_plan": validate_plan, "explain": explain,
         "compare": compare}
for _name_, _tool in TOOLS.items():
    described(_tool, ARGUMENTS[_name_])
#: the argument of plan that is planner time, which must stay below the call's own limit
plan.planner_time, plan.planner_default = "timeout", DEFAULT_PLAN_SECONDS
