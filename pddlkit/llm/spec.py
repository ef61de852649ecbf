"""Spec strings: one string names an LLM on a command line or in a config file.

    openai:gpt-4o-mini                         OpenAI (OPENAI_API_KEY)
    openai:qwen2.5-7b@http://localhost:8000/v1  any OpenAI-compatible server (vLLM, Ollama, ...)
    openai                                     the model in PDDLKIT_MODEL
    hf:/path/to/model                          a local Hugging Face model folder
    hf:/path/to/model?adapter=/path/to/lora     ... with a PEFT adapter
    hf:gemma-3-270m                            a known model, in-process (transformers)
    local:qwen2.5-coder-1.5b                   a local llama.cpp server (started or reused);
                                               plain ``local:`` means this model
    local:gemma-3-270m                         ... with the base Gemma 3 270M
    local:/models/model.gguf                   ... for any GGUF file
    replay:run.jsonl                           replay a recorded transcript
    scripted:answers.json                      answers from a JSON list of strings, in order

Installed packages add kinds through the entry-point group ``pddlkit.llms`` (the entry point
names a factory called as ``factory(argument, **options)``).
"""

from __future__ import annotations

import difflib
import json
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Callable, Optional
from urllib.parse import parse_qsl

from .base import LLM
from .errors import LLMSpecError

ENTRY_POINT_GROUP = "pddlkit.llms"


def _openai(arg: Optional[str], **options: Any) -> LLM:
    from .openai_chat import OpenAIChat

    model, base_url = arg, options.pop("base_url", None)
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
    from .local_server import DEFAULT_MODEL, start
    from .openai_chat import OpenAIChat

    server = start(arg or DEFAULT_MODEL)
    # a CPU model takes minutes for a long answer: OpenAIChat waits for a loopback server (an
    # hour at most) rather than time out, and never sends a timed-out request again unasked
    options.setdefault("grammar", "gbnf")   # llama.cpp's server: GBNF grammars per request
    llm = OpenAIChat(server.model, base_url=server.base_url, **options)
    llm.context_tokens = getattr(server, "context", None)  # what front ends trim prompts to
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


BUILTIN_KINDS: dict[str, Callable[..., LLM]] = {
    "openai": _openai, "hf": _hf, "local": _local, "replay": _replay, "scripted": _scripted}


def names_a_model(spec: Optional[str]) -> bool:
    """Whether ``spec`` names an LLM backend (a built-in kind or an installed plugin's), as
    opposed to a front end's offline stand-in (``observation``, ``noisy``, ``standin``...):
    the benchmark harness labels rows of the latter ``stand-in``."""
    if not spec:
        return False
    kind = str(spec).split(":", 1)[0]
    if kind in BUILTIN_KINDS:
        return True
    return kind in {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)}


def load_llm(spec: str, **options: Any) -> LLM:
    """Build the LLM a spec string names; ``options`` go to its constructor (cache=, ...)."""
    if not isinstance(spec, str) or not spec.strip():
        raise LLMSpecError(f"an LLM spec must be a non-empty string such as 'openai:gpt-4o-mini', "
                           f"got {spec!r}")
    kind, sep, arg = spec.strip().partition(":")
    factory = BUILTIN_KINDS.get(kind)
    if factory is None:
        plugins = {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
        if kind in plugins:
            factory = plugins[kind].load()
    if factory is None:
        known = sorted(set(BUILTIN_KINDS) | {ep.name for ep in entry_points(
            group=ENTRY_POINT_GROUP)})
        close = difflib.get_close_matches(kind, known, n=1, cutoff=0.5)
        hint = f"did you mean '{close[0]}:{arg}'?" if close else None
        raise LLMSpecError(f"unknown LLM kind {kind!r} in spec {spec!r}; known kinds: "
                           f"{', '.join(known)}", hint=hint)
    return factory(arg or None, **options)
