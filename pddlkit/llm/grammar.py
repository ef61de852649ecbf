"""What ``complete(constraint=...)`` takes: a :class:`Grammar` (text in pddlkit's subset of
Lark's notation, :mod:`.lark_subset`) or a :class:`JsonSchema`.

Why Lark: pddlkit already reads PDDL with Lark (``pddlkit/pddl/pddl.lark``), so a grammar in
Lark's notation can be checked here with Lark itself (:meth:`Grammar.accepts`), and the same
text converted for each backend: GBNF for llama.cpp's server (:mod:`.gbnf`), the Lark text as
it is for vLLM-style servers. One grammar, one meaning, whichever server decodes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Mapping, Optional, Union

from .lark_subset import (GrammarError, join_grammars, parse_grammar,  # noqa: F401
                          write_grammar)


# --- what complete() takes -------------------------------------------------------------------

@dataclass(frozen=True)
class Grammar:
    """A grammar the answer must follow (``lark``: the text, in the subset above).

    ``name`` says what it is for in records ("problem file", "skill lines"). Built from text
    it is read once, so a grammar outside the subset fails here, not at a server."""

    lark: str
    name: str = "grammar"
    #: the most ignored items (blanks) between two tokens in the GBNF a server decodes with
    #: (None: any number, as Lark reads files); Lark's own reading stays unbounded
    max_blank: Optional[int] = None

    def __post_init__(self) -> None:
        parse_grammar(self.lark)

    @property
    def kind(self) -> str:
        return "grammar"

    def gbnf(self) -> str:
        """The grammar in llama.cpp's GBNF (:func:`pddlkit.llm.gbnf.to_gbnf`)."""
        from .gbnf import to_gbnf

        return _cached(("gbnf", self.lark, self.max_blank),
                       lambda: to_gbnf(parse_grammar(self.lark), self.max_blank))

    def accepts(self, text: str) -> bool:
        """Whether Lark reads ``text`` with this grammar (LALR when it can, else Earley)."""
        from lark.exceptions import LarkError

        try:
            self.parser().parse(text)
        except LarkError:
            return False
        return True

    def parser(self):
        return _cached(("lark", self.lark), lambda: _lark_parser(self.lark))

    def to_dict(self) -> dict:
        out = {"kind": "grammar", "name": self.name, "lark": self.lark}
        if self.max_blank is not None:
            out["max_blank"] = self.max_blank
        return out


@dataclass(frozen=True)
class JsonSchema:
    """A JSON schema the answer must follow (OpenAI's structured outputs, strict)."""

    schema: Mapping
    name: str = "answer"

    @property
    def kind(self) -> str:
        return "json-schema"

    def to_dict(self) -> dict:
        return {"kind": "json-schema", "name": self.name, "schema": self.schema}

    def __hash__(self) -> int:
        return hash(json.dumps(self.schema, sort_keys=True))


Constraint = Union[Grammar, JsonSchema]


def constraint_from_dict(data: Optional[dict]) -> Optional[Constraint]:
    """The constraint recorded in a transcript or cache row (None when the call had none)."""
    if not data:
        return None
    if data.get("kind") == "grammar":
        return Grammar(data["lark"], data.get("name", "grammar"), data.get("max_blank"))
    if data.get("kind") == "json-schema":
        return JsonSchema(data["schema"], data.get("name", "answer"))
    raise GrammarError(f"unknown constraint kind {data.get('kind')!r}")


def describe_modes(modes) -> str:
    """How a run's constrained calls were decoded, counted: "gbnf x3, unconstrained: ... x1"."""
    from collections import Counter

    counted = Counter(m for m in modes if m)
    return ", ".join(f"{mode} x{n}" for mode, n in counted.items()) or \
        "no LLM call was constrained"


_CACHE: dict = {}


def _cached(key, make):
    if key not in _CACHE:
        if len(_CACHE) > 256:
            _CACHE.clear()
        _CACHE[key] = make()
    return _CACHE[key]


def _lark_parser(text: str):
    """LALR when the grammar is LALR(1) without a shift/reduce conflict, else Earley.

    Why not plain LALR: Lark resolves a shift/reduce conflict by shifting, which refuses texts
    the grammar allows (``(VARIABLE+ "-" type)* VARIABLE*`` reads ``?x ?y)`` as the start of a
    typed list). Lark reports such conflicts only in debug mode, through its logger (its strict
    mode would also refuse every grammar whose terminals overlap, as names and keywords do), so
    the build listens to that logger and takes Earley, which reads any context-free grammar."""
    import logging

    from lark import Lark, logger as lark_logger
    from lark.exceptions import GrammarError as LarkGrammarError

    class Conflicts(logging.Handler):
        def __init__(self) -> None:
            super().__init__(logging.WARNING)
            self.found = False

        def emit(self, record: logging.LogRecord) -> None:
            self.found = self.found or "Shift/Reduce conflict" in record.getMessage()

    conflicts = Conflicts()
    saved = lark_logger.handlers[:], lark_logger.level, lark_logger.propagate
    lark_logger.handlers, lark_logger.propagate = [conflicts], False
    lark_logger.setLevel(logging.WARNING)
    try:
        parser = Lark(text, start="start", parser="lalr", debug=True)
    except LarkGrammarError:    # not LALR(1)
        parser = None
    finally:
        lark_logger.handlers, lark_logger.propagate = saved[0], saved[2]
        lark_logger.setLevel(saved[1])
    if parser is None or conflicts.found:
        return Lark(text, start="start", parser="earley", lexer="dynamic")
    return parser
