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
    return {"ok": True, "root": str(library.root), "entries": entries,
            "skipped": [str(s) for s in library.skipped],
            "text": "\n".join(lines) or f"no learned domains in {library.root}"}


def _entry(entry: str):
    """The library's entry ``entry``, or :class:`Refused` naming the argument."""
    try:
        return _library().get(_name(entry, "entry", parts=2))
    except LookupError as exc:
        raise Refused("unknown-entry", str(exc), "domains_list gives the ids", "entry") from None


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
                   domain: Optional[str] = None, modular: bool = False) -> dict:
    """One PDDLego+ step: the observation in, the PDDL, a checked plan and its commands out.
    First call: ``observation``, ``llm`` and ``env`` (an id); then ``memory`` (the handle) and
    ``pairs`` ([[command, observation], ...] run since the last call)."""
    from .api import formalize_and_plan

    if memory:
        held = _MEMORIES.get(str(memory))
        if held is None:
            raise Refused("unknown-memory", f"no formalize_step memory {memory!r} on this "
                          "server (it restarted, or the handle was dropped)", "start again "
                          "without memory", "memory")
        given = [(str(c), _text(o, "pairs", pddl=False)) for c, o in (pairs or [])]
        if not given:
            raise Refused("missing-input", "a later step needs the pairs run since the last "
                          "call", "pairs: [[command, observation], ...]", "pairs")
        step = formalize_and_plan(given, memory=held)
    else:
        if not llm or not env:
            raise Refused("missing-input", "the first step needs llm and env",
                          "llm: an LLM spec (local:qwen2.5-coder-1.5b) or standin:pddlego; "
                          "env: an environment id (coin-collector)", "llm" if not llm else "env")
        text = _text(observation, "observation", pddl=False)
        frozen = _text(domain, "domain", required=False)
        step = formalize_and_plan(text, llm=checked_llm(llm), env=_environment(env),
                                  domain=frozen, modular=modular)
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


def _environment(env: Any) -> str:
    """A registered environment's id, or :class:`Refused` naming the known ones (an unknown
    id is the client's error, not pddlkit's)."""
    import difflib

    from pddlkit.envs import registry

    name = _name(env, "env")
    known = sorted(registry.ids())
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
                "(the small-model pipeline)"}})


def tools() -> dict:
    """The tools this front end adds to ``pddlkit mcp`` (the ``pddlkit.mcp_tools`` entry)."""
    return {"domains_list": domains_list, "domains_show": domains_show,
            "domains_verify": domains_verify, "formalize_step": formalize_step}
