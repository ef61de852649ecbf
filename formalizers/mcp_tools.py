"""PDDLego+'s tools for ``pddlkit mcp`` (issue 50), plugged in through the ``pddlkit.mcp_tools``
entry point so the core's server names no front end.

* ``domains_list`` / ``domains_show`` / ``domains_verify``: the user's library of learned
  domains (:class:`.library.DomainLibrary`, under the server's ``PDDLKIT_DATA_DIR`` or the default
  folder; a client cannot point the server at another folder).
* ``formalize_step``: one :func:`.api.formalize_and_plan` call for a client that holds its own
  environment. The first call names the LLM, the environment id (its action schema and
  prompts) and, optionally, a frozen domain (PDDL text); it returns a ``memory`` handle. Later
  calls pass the handle with the (command, observation) pairs run since, and get the next plan.
  The handles live in the server process (:data:`MAX_MEMORIES` at most, the oldest dropped
  first); an unknown handle is an error as data. The offline stand-in
  (``standin:pddlego``) needs a pddlkit environment id, since it reads the environment.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from typing import Any, Optional

from pddlkit.service.access import checked_llm
from pddlkit.service.tools import Refused, _name, _text, answered, described

#: formalize_step memories kept at once (the oldest is dropped first)
MAX_MEMORIES = 64
_MEMORIES: "OrderedDict[str, Any]" = OrderedDict()


def _library():
    from .library import DomainLibrary

    return DomainLibrary()


@answered
def domains_list(env: Optional[str] = None) -> dict:
    """The learned domains in the user's library (optionally of one environment)."""
    library = _library()
    entries = [e.to_dict() for e in library.entries(_name(env, "env") if env else None)]
    lines = [f"{e['id']}: won {e.get('episodes_won', 0)}" for e in entries]
    return {"ok": True, "entries": entries,   # where the library lives is the server's
            "skipped": len(library.skipped),        # business, not the client's
            "text": "\n".join(lines) or "no learned domains in the server's library"}


def _entry(entry: str):
    """The library's entry ``entry``, or :class:`Refused` naming the argument."""
    name = _name(entry, "entry", parts=2)
    try:
        return _library().get(name)
    except LookupError:
        raise Refused("unknown-entry", f"no domain {name!r} in the server's library, or more "
                      "than one", "domains_list gives the ids", "entry") from None


@answered
def domains_show(entry: str) -> dict:
    """One learned domain: its PDDL text and what the library knows of it."""
    found = _entry(entry)
    return {"ok": True, **found.to_dict(), "domain": found.domain_text,
            "text": found.domain_text}


@answered
def domains_verify(entry: str) -> dict:
    """Check a learned domain and plan its stored problems again."""
    result = _library().verify(_entry(entry))
    return {"ok": result.ok, **result.__dict__, "text": result.format()}


@answered
def formalize_step(observation: str = "", llm: str = "", env: str = "",
                   memory: Optional[str] = None, pairs: Optional[list] = None,
                   domain: Optional[str] = None, modular: bool = False,
                   helps: Optional[list] = None, small_model: bool = False) -> dict:
    """One PDDLego+ step: the observation in, the PDDL, a checked plan and its commands out.
    First call: ``observation``, ``llm`` and ``env`` (an id), and optionally ``helps`` (names
    of ``pddlkit run pddlego``'s helps: ``["repair", "fact_memory"]``) or ``small_model``
    (the preset); then ``memory`` (the handle) and ``pairs`` ([[command, observation], ...]
    run since the last call)."""
    from .api import formalize_and_plan

    if memory:
        held = _MEMORIES.get(str(memory))
        if held is None:
            raise Refused("unknown-memory", f"no formalize_step memory {memory!r} on this "
                          "server (it restarted, or the handle was dropped)", "start again "
                          "without memory", "memory")
        given = _pairs(pairs)
        step = formalize_and_plan(given, memory=held)
    else:
        if not llm or not env:
            raise Refused("missing-input", "the first step needs llm and env",
                          "llm: an LLM spec (local:qwen2.5-coder-1.5b) or standin:pddlego; "
                          "env: an environment id (coin-collector)", "llm" if not llm else "env")
        if not isinstance(modular, bool):
            raise Refused("bad-input", f"modular must be true or false, got {modular!r}", "",
                          "modular")
        text = _text(observation, "observation", pddl=False)
        frozen = _frozen(_text(domain, "domain", required=False))
        spec = _llm(llm)
        if modular and spec.startswith("standin"):
            raise Refused("bad-input", "modular asks an LLM for one part of the files at a "
                          "time; the stand-in writes whole files", "leave modular out, or "
                          "name an LLM the server offers", "modular")
        if not isinstance(small_model, bool):
            raise Refused("bad-input", f"small_model must be true or false, got "
                          f"{small_model!r}", "", "small_model")
        named = _helps(helps)
        try:
            step = formalize_and_plan(text, llm=spec, env=_environment(env), domain=frozen,
                                      small_model=small_model,
                                      **{name: True for name in named},
                                      **({"modular": True} if modular else {}))
        except ValueError as exc:   # a help without what it needs: the caller's to fix
            raise Refused("bad-input", str(exc).replace("formalize_and_plan: ", ""),
                          "change the helps asked for", "helps") from None
    handle = str(memory or uuid.uuid4().hex[:12])
    _MEMORIES[handle] = step.memory
    _MEMORIES.move_to_end(handle)
    while len(_MEMORIES) > MAX_MEMORIES:
        _MEMORIES.popitem(last=False)
    return {"ok": bool(step.solved), "memory": handle, "commands": list(step.commands or []),
            "domain": step.domain, "problem": step.problem,
            "diagnostics": list(step.diagnostics), "usage": step.usage.to_dict(),
            "text": ("plan: " + "; ".join(step.commands)) if step.solved else
                    "no plan: " + "; ".join(step.diagnostics[-3:])}


def _helps(helps: Any) -> list[str]:
    """The helps asked for, as the table's names (a flag's spelling, ``fact-memory``, is
    read too); a Refused naming the ones there are for anything else."""
    from .call_options import help_names

    if helps is None:
        return []
    known = help_names()
    if not isinstance(helps, list) or not all(isinstance(h, str) for h in helps):
        raise Refused("bad-input", "helps must be a list of help names",
                      f"e.g. [\"repair\", \"fact_memory\"]; the helps: {', '.join(known)}",
                      "helps")
    names = [h.strip().replace("-", "_") for h in helps]
    unknown = [h for h in names if h not in known]
    if unknown:
        raise Refused("bad-input", f"no help named {unknown[0][:60]!r}",
                      f"the helps: {', '.join(known)}", "helps")
    return names


def _pairs(pairs: Any) -> list[tuple[str, str]]:
    """``[[command, observation], ...]`` checked: each a pair of texts within the size limit,
    at most :data:`~pddlkit.service.tools.MAX_LIST_ITEMS` of them."""
    from pddlkit.service.tools import MAX_LIST_ITEMS

    shape = "pairs: [[command, observation], ...], each a pair of strings"
    if not isinstance(pairs, list) or not pairs:
        raise Refused("missing-input" if not pairs else "bad-input", "a later step needs the "
                      "pairs run since the last call", shape, "pairs")
    if len(pairs) > MAX_LIST_ITEMS:
        raise Refused("input-too-large", f"{len(pairs)} pairs, over the limit of "
                      f"{MAX_LIST_ITEMS}", "send the steps in several calls", "pairs")
    given = []
    for k, pair in enumerate(pairs):
        if not (isinstance(pair, list) and len(pair) == 2):
            raise Refused("bad-input", f"pairs[{k}] is not a [command, observation] pair",
                          shape, "pairs")
        given.append((_text(pair[0], f"pairs[{k}][0]", pddl=False),
                      _text(pair[1], f"pairs[{k}][1]", pddl=False)))
    return given


def _frozen(domain: Optional[str]) -> Optional[str]:
    """A frozen domain's text, checked now: its errors are the client's, as data."""
    if domain is None:
        return None
    import pddlkit

    report = pddlkit.check(domain)
    if not report.ok:
        raise Refused("pddl-errors", f"{len(report.errors)} error(s) in the frozen domain",
                      report.errors[0].hint or "fix the errors the diagnostics name",
                      "domain", [d.to_dict() for d in report.diagnostics])
    return domain


def _llm(llm: Any) -> str:
    """An LLM spec the server offers (:func:`~pddlkit.service.access.checked_llm`) that
    PDDLego+ takes (a stand-in of another agent, or a bad rate, is the client's error)."""
    from pddlkit.agents import get_agent

    spec = checked_llm(llm)
    try:
        return get_agent("pddlego").check_llm(spec) or "standin:pddlego"
    except ValueError as exc:
        raise Refused("bad-llm", str(exc), "standin:pddlego, or a spec the server offers",
                      "llm") from None


def _environment(env: Any) -> str:
    """A registered environment's id that PDDLego+ plays (a text or PDDL world; a game such
    as craft or an instance set such as grasp is another front end's), or :class:`Refused`
    naming those (an unknown id is the client's error, not pddlkit's)."""
    import difflib

    from pddlkit.envs import registry

    name = _name(env, "env")
    known = sorted(registry.ids(kind="pddl") + registry.ids(kind="text"))
    if name not in known:
        close = difflib.get_close_matches(name, known, n=1)
        raise Refused("unknown-env", f"no environment {name!r} (known: {', '.join(known)})",
                      f"did you mean {close[0]!r}?" if close else "use one of those", "env")
    return name


formalize_step.session = "memory"   # its memory lives in the worker that answered (calls.py)
_ENTRY = {"type": "string", "description": "a library entry's id, ENV/SHA-PREFIX, as "
                                           "domains_list gives it"}
described(domains_list, {"env": {"type": "string", "description": "only this environment's "
                                 "entries (an id such as coin-collector)"}})
described(domains_show, {"entry": _ENTRY})
described(domains_verify, {"entry": _ENTRY})
described(formalize_step, {
    "observation": {"type": "string", "description": "the first call: what the agent observes "
                    "(text)"},
    "llm": {"type": "string", "description": "the first call: the LLM, one this server offers: "
            "standin:pddlego (offline) or a spec the operator allowed with pddlkit mcp --llm"},
    "env": {"type": "string", "description": "the first call: the environment's id (its "
            "actions and prompts), e.g. coin-collector"},
    "memory": {"type": "string", "description": "later calls: the handle an earlier answer "
               "gave"},
    "pairs": {"type": "array", "description": "later calls: [[command, observation], ...] run "
              "since the last call", "items": {"type": "array", "items": {"type": "string"},
                                              "minItems": 2, "maxItems": 2}},
    "domain": {"type": "string", "description": "the first call: a frozen domain, as PDDL text "
               "(opening with '('); left out, the LLM writes it"},
    "modular": {"type": "boolean", "description": "the first call: the modular formalizer "
                "(the small-model pipeline)"},
    "helps": {"type": "array", "items": {"type": "string"}, "description": "the first call: "
              "helps of pddlkit run pddlego by name, e.g. [\"repair\", \"fact_memory\"] "
              "(an unknown one is refused with the list)"},
    "small_model": {"type": "boolean", "description": "the first call: every help of "
                    "pddlkit run pddlego's --small-model preset"}})


def tools() -> dict:
    """The tools this front end adds to ``pddlkit mcp`` (the ``pddlkit.mcp_tools`` entry)."""
    return {"domains_list": domains_list, "domains_show": domains_show,
            "domains_verify": domains_verify, "formalize_step": formalize_step}
