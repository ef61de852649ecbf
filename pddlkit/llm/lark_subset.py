"""Pddlkit's subset of Lark's grammar language: its parts, its reader, its writer, and the
joining of grammars (the data that :mod:`.grammar` and :mod:`.gbnf` share).

The subset (what :func:`parse_grammar` reads; anything else is a :class:`GrammarError`
naming the line):

- rules ``name: ...`` (also ``?name`` and ``_name``) and terminals ``NAME: ...`` (a
  priority ``NAME.2`` is read and ignored), alternatives on following lines with ``|``;
- strings ``"..."`` with an optional ``i`` (case-insensitive), character ranges
  ``"a".."z"``, regular expressions ``/.../`` (the flags ``i`` and ``x`` are not taken);
- grouping ``( )``, optional ``[ ]``, the operators ``?``, ``*``, ``+`` and bounded
  repetition ``x ~ n`` or ``x ~ n..m``; an alias ``-> name`` is read and ignored;
- ``%ignore TERMINAL`` (whitespace and comments between the tokens of rules) and
  ``%import common.NAME`` for Lark's common WS, WS_INLINE, NEWLINE, CNAME, LETTER, DIGIT,
  INT, NUMBER, SIGNED_NUMBER, SIGNED_INT, DECIMAL, ESCAPED_STRING.

The start rule is ``start``. Terminals are atomic (no whitespace inside them); rules are
sequences of tokens with the ignored terminals allowed between them, as Lark reads them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Union


class GrammarError(ValueError):
    """A grammar outside the subset, or one that does not hold together (an undefined name)."""


# --- the grammar's parts ---------------------------------------------------------------------

@dataclass(frozen=True)
class Lit:
    text: str
    ci: bool = False          # case-insensitive


@dataclass(frozen=True)
class CharRange:
    low: str
    high: str


@dataclass(frozen=True)
class Regex:
    pattern: str


@dataclass(frozen=True)
class Ref:
    name: str


@dataclass(frozen=True)
class Seq:
    items: tuple


@dataclass(frozen=True)
class Alt:
    options: tuple


@dataclass(frozen=True)
class Repeat:
    item: Any
    low: int
    high: Optional[int]       # None: no upper bound


Expr = Union[Lit, CharRange, Regex, Ref, Seq, Alt, Repeat]


@dataclass
class Definition:
    name: str
    expr: Any
    terminal: bool
    line: int


@dataclass
class ParsedGrammar:
    definitions: dict[str, Definition]
    ignore: list[str] = field(default_factory=list)
    start: str = "start"


# Lark's common terminals that grammars may import (their definitions, in the same subset)
COMMON = {
    "WS": r"/[ \t\f\r\n]+/", "WS_INLINE": r"/[ \t]+/", "NEWLINE": r"/(\r?\n[\t ]*)+/",
    "LETTER": r"/[a-zA-Z]/", "DIGIT": r"/[0-9]/", "INT": r"/[0-9]+/",
    "SIGNED_INT": r"/[+-]?[0-9]+/", "DECIMAL": r"/[0-9]+\.[0-9]*|\.[0-9]+/",
    "NUMBER": r"/[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?|\.[0-9]+([eE][+-]?[0-9]+)?/",
    "SIGNED_NUMBER": r"/[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?/",
    "CNAME": r"/[a-zA-Z_][a-zA-Z0-9_]*/", "ESCAPED_STRING": r'/"([^"\\]|\\.)*"/',
}


# --- reading the subset ----------------------------------------------------------------------

_TOKEN = re.compile(r"""
    (?P<ws>[ \t]+|//[^\n]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*"i?)
  | (?P<regex>/(?:[^/\\\n]|\\.)+/[a-z]*)
  | (?P<range>\.\.)
  | (?P<arrow>->)
  | (?P<number>[0-9]+)
  | (?P<name>[?!]?[A-Za-z_][A-Za-z0-9_]*(?:\.[0-9]+)?)
  | (?P<op>[|()\[\]?*+~:])
""", re.VERBOSE)
_DEFINITION = re.compile(r"^([?!]?[A-Za-z_][A-Za-z0-9_]*)(?:\.[0-9]+)?\s*:(?!:)")


def parse_grammar(text: str) -> ParsedGrammar:
    """Read a grammar in the subset; :class:`GrammarError` names the line of anything else."""
    definitions: dict[str, Definition] = {}
    ignore: list[str] = []
    current: Optional[tuple[str, int, list[str]]] = None
    chunks: list[tuple[str, int, str]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped or stripped.startswith("//"):
            continue
        if stripped.startswith("%"):
            if current:
                chunks.append((current[0], current[1], " ".join(current[2])))
                current = None
            _directive(stripped, number, definitions, ignore)
            continue
        match = _DEFINITION.match(line)
        if match and not line[0].isspace():
            if current:
                chunks.append((current[0], current[1], " ".join(current[2])))
            current = (match.group(1), number, [line[match.end():]])
        elif current and (line[0].isspace() or stripped.startswith("|")):
            current[2].append(stripped)
        else:
            raise GrammarError(f"line {number}: expected a definition 'name: ...', got "
                               f"{stripped[:60]!r}")
    if current:
        chunks.append((current[0], current[1], " ".join(current[2])))
    for name, number, body in chunks:
        bare = name.lstrip("?!")
        if bare in definitions and definitions[bare].line > 0:
            raise GrammarError(f"line {number}: {bare} is defined twice (first on line "
                               f"{definitions[bare].line})")
        expr = _Expression(body, number).parse()
        definitions[bare] = Definition(bare, expr, bare.lstrip("_")[:1].isupper(), number)
    grammar = ParsedGrammar(definitions, ignore)
    _check_names(grammar)
    return grammar


def _directive(text: str, number: int, definitions: dict, ignore: list) -> None:
    words = text.split()
    if words[0] == "%ignore" and len(words) == 2:
        ignore.append(words[1])
        return
    if words[0] == "%import" and len(words) >= 2:
        spec = " ".join(words[1:])
        m = re.fullmatch(r"common\.([A-Z_]+)(?:\s*->\s*([A-Z_]+))?", spec)
        names = [(m.group(1), m.group(2) or m.group(1))] if m else []
        m2 = re.fullmatch(r"common\s*\(([A-Z_,\s]+)\)", spec)
        if m2:
            names = [(n.strip(), n.strip()) for n in m2.group(1).split(",") if n.strip()]
        if not names:
            raise GrammarError(f"line {number}: only '%import common.NAME' is in the subset, "
                               f"got {text!r}")
        for source, alias in names:
            if source not in COMMON:
                raise GrammarError(f"line {number}: common.{source} is not one of the "
                                   f"imports the subset knows ({', '.join(sorted(COMMON))})")
            expr = _Expression(COMMON[source], number).parse()
            definitions[alias] = Definition(alias, expr, True, -number)
        return
    raise GrammarError(f"line {number}: the directive {words[0]!r} is not in the subset "
                       f"(use %ignore or %import common.NAME)")


class _Expression:
    """Recursive descent over one definition's body."""

    def __init__(self, body: str, line: int) -> None:
        self.line = line
        self.tokens: list[tuple[str, str]] = []
        pos = 0
        while pos < len(body):
            m = _TOKEN.match(body, pos)
            if not m:
                raise GrammarError(f"line {line}: cannot read {body[pos:pos + 20]!r}")
            pos = m.end()
            if m.lastgroup != "ws":
                self.tokens.append((m.lastgroup, m.group()))
        self.pos = 0

    def parse(self) -> Any:
        expr = self._alternatives()
        if self.pos != len(self.tokens):
            raise GrammarError(f"line {self.line}: unexpected {self.tokens[self.pos][1]!r}")
        return expr

    def _peek(self) -> tuple[str, str]:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ("end", "")

    def _alternatives(self) -> Any:
        options = [self._sequence()]
        while self._peek() == ("op", "|"):
            self.pos += 1
            options.append(self._sequence())
        return options[0] if len(options) == 1 else Alt(tuple(options))

    def _sequence(self) -> Any:
        items = []
        while True:
            kind, text = self._peek()
            if kind == "end" or (kind == "op" and text in "|)]"):
                break
            if kind == "arrow":           # an alias: the name that follows is dropped
                self.pos += 2
                continue
            items.append(self._item())
        return items[0] if len(items) == 1 else Seq(tuple(items))

    def _item(self) -> Any:
        atom = self._atom()
        kind, text = self._peek()
        if kind == "op" and text in "?*+":
            self.pos += 1
            return Repeat(atom, 1 if text == "+" else 0, 1 if text == "?" else None)
        if kind == "op" and text == "~":
            self.pos += 1
            low = int(self._expect("number"))
            high = low
            if self._peek()[0] == "range":
                self.pos += 1
                high = int(self._expect("number"))
            if high < low:
                raise GrammarError(f"line {self.line}: repetition ~ {low}..{high} is empty")
            return Repeat(atom, low, high)
        return atom

    def _expect(self, kind: str) -> str:
        got, text = self._peek()
        if got != kind:
            raise GrammarError(f"line {self.line}: expected a {kind}, got {text!r}")
        self.pos += 1
        return text

    def _atom(self) -> Any:
        kind, text = self._peek()
        self.pos += 1
        if kind == "op" and text in "([":
            inner = self._alternatives()
            closing = ")" if text == "(" else "]"
            if self._peek() != ("op", closing):
                raise GrammarError(f"line {self.line}: {text!r} is not closed by {closing!r}")
            self.pos += 1
            return inner if text == "(" else Repeat(inner, 0, 1)
        if kind == "string":
            ci = text.endswith("i") and not text.endswith('"')
            value = json.loads(text[:-1] if ci else text)
            if self._peek()[0] == "range":
                self.pos += 1
                high = json.loads(self._expect("string"))
                if len(value) != 1 or len(high) != 1:
                    raise GrammarError(f"line {self.line}: a range joins two characters")
                return CharRange(value, high)
            return Lit(value, ci)
        if kind == "regex":
            body, _, flags = text[1:].rpartition("/")
            if flags:
                raise GrammarError(f"line {self.line}: regular-expression flags ({flags}) are "
                                   "not in the subset; write the cases out, e.g. [aA]")
            return Regex(body.replace("\\/", "/"))
        if kind == "name":
            return Ref(text.lstrip("?!"))
        raise GrammarError(f"line {self.line}: unexpected {text!r}")


def _check_names(grammar: ParsedGrammar) -> None:
    if grammar.start not in grammar.definitions:
        raise GrammarError("the grammar has no 'start' rule")
    for name in grammar.ignore:
        if name not in grammar.definitions:
            raise GrammarError(f"%ignore {name}: {name} is not defined")
    for d in grammar.definitions.values():
        for ref in _refs(d.expr):
            if ref not in grammar.definitions:
                raise GrammarError(f"line {d.line}: {d.name} uses {ref}, which is not defined")
            if d.terminal and not grammar.definitions[ref].terminal:
                raise GrammarError(f"line {d.line}: the terminal {d.name} uses the rule {ref}; "
                                   "terminals are made of terminals")


def _refs(expr: Any):
    if isinstance(expr, Ref):
        yield expr.name
    elif isinstance(expr, (Seq, Alt)):
        for e in (expr.items if isinstance(expr, Seq) else expr.options):
            yield from _refs(e)
    elif isinstance(expr, Repeat):
        yield from _refs(expr.item)


# --- writing the subset back, and joining grammars --------------------------------------------

def write_grammar(grammar: ParsedGrammar) -> str:
    """The grammar as text in the subset (what :func:`parse_grammar` reads back)."""
    lines = [f"{d.name}: {_write(d.expr)}" for d in grammar.definitions.values()]
    lines += [f"%ignore {name}" for name in grammar.ignore]
    return "\n".join(lines) + "\n"


def _write(expr: Any, inner: bool = False) -> str:
    if isinstance(expr, Lit):
        return json.dumps(expr.text) + ("i" if expr.ci else "")
    if isinstance(expr, CharRange):
        return f"{json.dumps(expr.low)}..{json.dumps(expr.high)}"
    if isinstance(expr, Regex):
        return "/" + expr.pattern.replace("/", "\\/") + "/"
    if isinstance(expr, Ref):
        return expr.name
    if isinstance(expr, Seq):
        text = " ".join(_write(i, True) for i in expr.items)
        return f"({text})" if inner else text
    if isinstance(expr, Alt):
        text = " | ".join(_write(o) for o in expr.options)
        return f"({text})" if inner else text
    if isinstance(expr, Repeat):
        body = _write(expr.item, True)
        if isinstance(expr.item, (Repeat,)):
            body = f"({body})"
        if (expr.low, expr.high) == (0, 1):
            return f"{body}?"
        if (expr.low, expr.high) == (0, None):
            return f"{body}*"
        if (expr.low, expr.high) == (1, None):
            return f"{body}+"
        if expr.high is None:     # x{n,}: n times, then any more
            return f"({body} ~ {expr.low} {body}*)"
        return f"{body} ~ {expr.low}" + (f"..{expr.high}" if expr.high != expr.low else "")
    raise GrammarError(f"cannot write {expr!r}")


def _renamed(expr: Any, names: Mapping[str, str]) -> Any:
    if isinstance(expr, Ref):
        return Ref(names.get(expr.name, expr.name))
    if isinstance(expr, Seq):
        return Seq(tuple(_renamed(i, names) for i in expr.items))
    if isinstance(expr, Alt):
        return Alt(tuple(_renamed(o, names) for o in expr.options))
    if isinstance(expr, Repeat):
        return Repeat(_renamed(expr.item, names), expr.low, expr.high)
    return expr


def join_grammars(start: str, parts: Mapping[str, str], shared: tuple[str, ...] = ()) -> str:
    """One grammar from several: each of ``parts`` (a prefix -> a grammar's text) has its
    definitions renamed ``<prefix>_<name>`` (its start rule becomes ``<prefix>``), except the
    ``shared`` terminals, which must be defined alike in every part and are kept once; ``start``
    is the new start rule's body, naming the parts by their prefixes."""
    definitions: dict[str, Definition] = {}
    ignore: list[str] = []
    for prefix, text in parts.items():
        parsed = parse_grammar(text)
        names = {n: (n if n in shared else prefix if n == parsed.start else f"{prefix}_{n}")
                 for n in parsed.definitions}
        for name, d in parsed.definitions.items():
            new = names[name]
            expr = _renamed(d.expr, names)
            if new in definitions and new in shared:
                if definitions[new].expr != expr:
                    raise GrammarError(f"the shared terminal {new} differs between the parts")
                continue
            definitions[new] = Definition(new, expr, d.terminal, 0)
        for name in parsed.ignore:
            if names[name] not in ignore:
                ignore.append(names[name])
    definitions["start"] = Definition("start", _Expression(start, 0).parse(), False, 0)
    joined = ParsedGrammar(definitions, ignore)
    _check_names(joined)
    return write_grammar(joined)


def literal(text: str, any_case: bool = False) -> str:
    """A string literal in the subset (``"define"``, or ``"define"i`` for any case)."""
    return json.dumps(text) + ("i" if any_case and any(c.isalpha() for c in text) else "")


def choice(words, any_case: bool = False) -> str:
    """A choice among literal strings, longest first so that no prefix wins over a word."""
    return " | ".join(literal(w, any_case)
                      for w in sorted(set(words), key=lambda w: (-len(w), w)))
