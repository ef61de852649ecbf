"""Spec strings: one string names an LLM on a command line or in a config file.

    openai:gpt-4o-mini                         OpenAI (OPENAI_API_KEY)
    openai:qwen2.5-7b@http://localhost:8000/v1  any OpenAI-compatible server (vLLM, Ollama, ...)
    openai:m@https://host/v1?key_env=HOST_KEY   ... sent the key in HOST_KEY (OPENAI_API_KEY
                                               goes only to OPENAI_BASE_URL or OpenAI's API)
    openai                                     the model in PDDLKIT_MODEL
    gpt-4o                                     a bare model name: OpenAI's (openai:gpt-4o),
    Qwen/Qwen2.5-7B-Instruct@http://host:8000/v1  ... or an OpenAI-compatible server's
    hf:/path/to/model                          a local Hugging Face model folder
    hf:/path/to/model?adapter=/path/to/lora     ... with a PEFT adapter
    hf:gemma-3-270m                            a known model, in-process (transformers)
    local:qwen2.5-coder-1.5b                   a local llama.cpp server (started or reused);
                                               plain ``local:`` means this model
    local:gemma-3-270m                         ... with the base Gemma 3 270M
    local:/models/model.gguf                   ... for any GGUF file
    replay:run.jsonl                           replay a recorded transcript
    scripted:answers.json                      answers from a JSON list of strings, in order
    random:7                                   answers drawn at random under each request's
                                               grammar (seed 7; plain ``random``: seed 0), the
                                               floor a model's row is compared with

Installed packages add kinds through the entry-point group ``pddlkit.llms`` (the entry point
names a factory called as ``factory(argument, **options)``).
"""

from __future__ import annotations

import difflib
import json
import re
from functools import partial
from pathlib import Path
from typing import Any, Callable, Optional
from urllib.parse import parse_qsl

from ..plugins import entry_points_of
from .base import LLM
from .errors import LLMSpecError

ENTRY_POINT_GROUP = "pddlkit.llms"


def _openai(arg: Optional[str], **options: Any) -> LLM:
    from .openai_chat import OpenAIChat

    model, base_url = arg, options.pop("base_url", None)
    if arg and "?" in arg:
        arg, _, query = arg.rpartition("?")
        model = arg
        given = dict(parse_qsl(query, keep_blank_values=True))
        unknown = sorted(set(given) - {"key_env"})
        if unknown:
            raise LLMSpecError(f"openai:{arg}?{query}: unknown option(s) {', '.join(unknown)}; "
                               "the one option is key_env=VARIABLE (the key to send)")
        options.setdefault("api_key_env", given.get("key_env") or None)
    if arg and "@" in arg:
        model, base_url = arg.split("@", 1)
        if not base_url.startswith(("http://", "https://")):
            raise LLMSpecError(f"'{arg}': the part after @ must be a URL such as "
                               "http://localhost:8000/v1")
    return OpenAIChat(model or None, base_url=base_url, **options)


def _hf(arg: Optional[str], **options: Any) -> LLM:
    from .hf_local import HFLocal

    if not arg:
        raise LLMSpecError("'hf:' needs a model folder, e.g. hf:/models/qwen2.5-0.5b-instruct")
    path, _, query = arg.partition("?")
    options = {**dict(parse_qsl(query)), **options}
    if isinstance(options.get("max_new_tokens"), str):
        options["max_new_tokens"] = int(options["max_new_tokens"])
    return HFLocal(path, **options)


def _local(arg: Optional[str], **options: Any) -> LLM:
    """A local llama.cpp server for a GGUF model (:mod:`.local_server`), started or reused,
    spoken to through the real :class:`~.openai_chat.OpenAIChat` over HTTP."""
    from .local_server import DEFAULT_MODEL, gone, start
    from .openai_chat import OpenAIChat

    server = start(arg or DEFAULT_MODEL)
    # a CPU model takes minutes for a long answer: OpenAIChat waits for a loopback server (an
    # hour at most) rather than time out, and never sends a timed-out request again unasked
    options.setdefault("grammar", "gbnf")   # llama.cpp's server: GBNF grammars per request
    llm = OpenAIChat(server.model, base_url=server.base_url, **options)
    llm.context_tokens = getattr(server, "context", None)  # what front ends trim prompts to
    llm.server_gone = partial(gone, server)   # a crash says so, not "cannot connect"
    return llm


def _replay(arg: Optional[str], **options: Any) -> LLM:
    from .scripted import ReplayLLM

    if not arg:
        raise LLMSpecError("'replay:' needs a transcript file, e.g. replay:run.jsonl")
    return ReplayLLM(arg, **options)


def _scripted(arg: Optional[str], **options: Any) -> LLM:
    from .scripted import ScriptedLLM

    if not arg:
        raise LLMSpecError("'scripted:' needs a JSON file holding a list of answers")
    try:
        answers = json.loads(Path(arg).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise LLMSpecError(f"scripted:{arg}: cannot read a JSON list of answers ({exc})") from None
    if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
        raise LLMSpecError(f"scripted:{arg}: the file must hold a JSON list of strings")
    return ScriptedLLM(answers, **options)


def _random(arg: Optional[str], **options: Any) -> LLM:
    from .random_answers import RandomLLM, parse_seed

    return RandomLLM(parse_seed(arg), **options)


BUILTIN_KINDS: dict[str, Callable[..., LLM]] = {
    "openai": _openai, "hf": _hf, "local": _local, "replay": _replay, "scripted": _scripted,
    "random": _random}


def names_a_model(spec: Optional[str]) -> bool:
    """Whether ``spec`` names an LLM backend (a built-in kind or an installed plugin's), as
    opposed to a front end's offline stand-in (``standin:<agent>...``, or an old bare word):
    the benchmark harness labels rows of the latter ``stand-in``. (A bare model name counts as
    a stand-in here: old result rows carry no stand-in column, and their stand-ins' names are
    bare words too; newer rows say which they are.)"""
    if not spec:
        return False
    kind = str(spec).split(":", 1)[0]
    if kind == STAND_IN_KIND:
        return False
    if kind in BUILTIN_KINDS:
        return True
    return kind in {ep.name for ep in entry_points_of(ENTRY_POINT_GROUP)}


#: the kind of the agents' offline stand-ins (``standin:<agent>[:mode]``, an entry point of
#: ``pddlkit.llms``: :mod:`pddlkit.agents.standins`): no model, so no row of it is a model's
STAND_IN_KIND = "standin"

#: the front ends' offline stand-ins' old names (removed spellings: an agent refuses them naming
#: ``standin:<agent>...``): a bare word that is one of them (or close to one) is not taken for an
#: OpenAI model name, which would fail only at the first call
STAND_IN_WORDS = ("standin-off", "standin-noisy", "noisy", "observation")

#: what each built-in kind is, for ``pddlkit llm list``
KIND_HELP = {
    "openai": "OpenAI or any OpenAI-compatible server: openai:MODEL[@URL] (or a bare model name)",
    "hf": "a Hugging Face model in-process (transformers): hf:FOLDER[?adapter=LORA]",
    "local": "a local llama.cpp server for a GGUF model, started or reused: local:"
             "qwen2.5-coder-1.5b, local:gemma-3-270m, local:FILE.gguf",
    "replay": "answers replayed from a recorded transcript: replay:run.jsonl",
    "scripted": "answers from a JSON list of strings, in order: scripted:answers.json",
    "random": "answers drawn at random under each request's grammar, knowing nothing (the "
              "floor to compare a model with): random[:SEED]",
    STAND_IN_KIND: "an agent's offline stand-in (no model): standin:AGENT[:MODE][:ARGUMENT]"}

#: kinds whose argument is required, and what to write
NEEDS_ARGUMENT = {"hf": "a model folder, e.g. hf:/models/qwen2.5-0.5b-instruct",
                  "replay": "a transcript file, e.g. replay:run.jsonl",
                  "scripted": "a JSON file holding a list of answers, e.g. scripted:answers.json"}

_MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/+-]*(@https?://\S+)?")


def known_kinds() -> list[str]:
    """The built-in kinds and the installed plugins' (``pddlkit.llms`` entry points)."""
    return sorted(set(BUILTIN_KINDS) | {ep.name for ep in entry_points_of(ENTRY_POINT_GROUP)})


def parse_spec(spec: Any) -> tuple[str, Optional[str]]:
    """(kind, argument) of an LLM spec, checked without building anything (no model loads, no
    server starts), so a command line can refuse a bad ``--llm`` first.

    A bare model name, with no kind (``gpt-4o``, ``Qwen/Qwen2.5-7B-Instruct``, ``gpt-4o@http://
    localhost:8000/v1``), is an OpenAI model, as the openai client takes it: ``("openai",
    "gpt-4o")``. A bare word that names a front end's stand-in (:data:`STAND_IN_WORDS`) or is
    close to a kind (``opnai``) is refused instead: it is more likely a slip than a model.
    :class:`LLMSpecError` for an unknown kind or a missing argument, naming the fix."""
    if not isinstance(spec, str) or not spec.strip():
        raise LLMSpecError(f"an LLM spec must be a non-empty string such as 'openai:gpt-4o-mini', "
                           f"got {spec!r}")
    text = spec.strip()
    kind, sep, arg = text.partition(":")
    known = known_kinds()
    if kind in known:
        if not arg and kind in NEEDS_ARGUMENT:
            raise LLMSpecError(f"'{kind}:' needs {NEEDS_ARGUMENT[kind]}")
        return kind, arg or None
    bare = _MODEL_NAME.fullmatch(text) is not None
    if bare and text not in STAND_IN_WORDS:
        close = difflib.get_close_matches(text, [*known, *STAND_IN_WORDS], n=1, cutoff=0.75)
        if not close:
            return "openai", text
    close = difflib.get_close_matches(kind, [*known, *STAND_IN_WORDS], n=1, cutoff=0.5)
    if kind in STAND_IN_WORDS:
        raise LLMSpecError(f"{text!r} names an agent's offline stand-in, not an LLM: give it to "
                           f"an agent that has it (pddlkit run AGENT --help lists its "
                           f"stand-ins)", hint=f"for a model of that name write openai:{text}")
    hint = f"did you mean '{close[0]}:{arg}'?" if close and sep else \
        f"did you mean '{close[0]}'?" if close else \
        f"a model name with a colon goes after the kind: openai:{text}" if sep else None
    raise LLMSpecError(f"unknown LLM kind {kind!r} in spec {spec!r}; known kinds: "
                       f"{', '.join(known)} (or a bare model name such as gpt-4o-mini)",
                       hint=hint)


def load_llm(spec: str, **options: Any) -> LLM:
    """Build the LLM a spec string names (:func:`parse_spec`: a bare model name is OpenAI's);
    ``options`` go to its constructor (cache=, ...)."""
    kind, arg = parse_spec(spec)
    factory = BUILTIN_KINDS.get(kind)
    if factory is None:
        factory = next(ep for ep in entry_points_of(ENTRY_POINT_GROUP)
                       if ep.name == kind).load()
    return factory(arg, **options)
