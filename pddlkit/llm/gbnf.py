"""From a grammar in pddlkit's Lark subset (:mod:`.lark_subset`) to llama.cpp's GBNF.

Why a converter and not a second hand-written grammar: the grammar Lark checks and the one the
server decodes with must mean the same thing. The differences that the conversion bridges:

- **Ignored tokens.** Lark skips ``%ignore`` terminals between the tokens of a rule; GBNF is
  read character by character, so the converter writes the separators out. Between two tokens
  that would run together (both end or start with a character other than a bracket or blank,
  such as ``at`` and ``?x``) the separator is mandatory (``sp``: one blank or ignored item,
  then any more); elsewhere it is optional (``ws``). When either side's edge is not known for
  sure (an optional part that may be absent) the optional separator is used, so the GBNF
  accepts what Lark accepts, never less. Terminals are atomic: nothing goes inside them.
- **Case-insensitive strings** (``"define"i``) become one class per letter (``[dD]``).
- **Regular expressions** in terminals are translated through Python's own regex parser into
  GBNF classes, groups and repetitions (anchors and look-arounds are refused by name).
- **Bounded repetition** (``x ~ 2..5``) becomes ``x{2,5}``, which llama.cpp reads natively.
- **Names**: ``start`` is GBNF's ``root``; ``_`` becomes ``-`` (GBNF names are letters, digits
  and dashes).

:class:`~.gbnf_matcher.GBNFMatcher` reads the result as llama.cpp does, so the tests can check
on the whole corpus that the text a server would be asked to follow accepts what it should.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from .lark_subset import (Alt, CharRange, GrammarError, Lit, ParsedGrammar, Ref, Regex,
                          Repeat, Seq, parse_grammar)

try:  # Python 3.11+
    import re._constants as _sre  # type: ignore[import-not-found]
    import re._parser as _sre_parse  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - older Pythons
    import sre_constants as _sre  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

_PUNCT = set("() \t\r\n\f\v")
#: characters that always begin a new token (PDDL reads "(aircraft?a)" as (aircraft ?a), as
#: pddlkit's reader and Fast Downward do), so nothing need separate them from what precedes
_OPENS = set("?")
#: the regular-expression parser's repetition opcodes (POSSESSIVE_REPEAT from Python 3.11)
_REPEATS = tuple(getattr(_sre, name) for name in ("MAX_REPEAT", "MIN_REPEAT",
                                                   "POSSESSIVE_REPEAT") if hasattr(_sre, name))


def to_gbnf(grammar: ParsedGrammar, max_blank: Optional[int] = None) -> str:
    """The GBNF text of ``grammar`` (see the module docstring for what changes).
    ``max_blank`` bounds each run of ignored items between two tokens (None: any length): a
    model decoding under a grammar with unbounded blanks can write newlines until its token
    limit (seen: 7,000 tokens of indentation from Qwen2.5-Coder 1.5B)."""
    return _Converter(grammar, max_blank).convert()


def gbnf_of(lark_text: str, max_blank: Optional[int] = None) -> str:
    """GBNF from grammar text in the subset."""
    return to_gbnf(parse_grammar(lark_text), max_blank)


def gbnf_name(name: str) -> str:
    if name == "start":
        return "root"
    out = name.replace("_", "-")
    return out if out[:1].isalnum() else "x" + out


class _Converter:
    def __init__(self, grammar: ParsedGrammar, max_blank: Optional[int] = None) -> None:
        self.g = grammar
        self.max_blank = max_blank
        self.defs = grammar.definitions
        self.ignored = bool(grammar.ignore)
        self._first: dict[str, tuple[frozenset, bool]] = {}
        self._last: dict[str, tuple[frozenset, bool]] = {}
        self._edges()

    # -- edges: which kinds of characters a part can start or end with, and whether it can
    #    be empty ("atom": a character that would run into a neighbouring atom; "punct": a
    #    bracket or blank; "unknown": not worked out)
    def _edges(self) -> None:
        for table, side in ((self._first, 0), (self._last, -1)):
            for name in self.defs:
                table[name] = (frozenset(), True)   # start from "empty", grow to a fixed point
            changed = True
            while changed:
                changed = False
                for name, d in self.defs.items():
                    value = self._edge(d.expr, side, table)
                    if value != table[name]:
                        table[name] = value
                        changed = True

    def _edge(self, expr: Any, side: int, table: dict) -> tuple[frozenset, bool]:
        if isinstance(expr, Lit):
            if not expr.text:
                return frozenset(), True
            c = expr.text[side]
            return frozenset({"punct" if c in _PUNCT or (side == 0 and c in _OPENS) else
                              "atom"}), False
        if isinstance(expr, CharRange):
            return frozenset({"atom"}), False
        if isinstance(expr, Regex):
            return _regex_edge(expr.pattern, side)
        if isinstance(expr, Ref):
            return table[expr.name]
        if isinstance(expr, Repeat):
            kinds, nullable = self._edge(expr.item, side, table)
            return kinds, nullable or expr.low == 0
        if isinstance(expr, Alt):
            kinds, nullable = frozenset(), False
            for option in expr.options:
                k, n = self._edge(option, side, table)
                kinds, nullable = kinds | k, nullable or n
            return kinds, nullable
        if isinstance(expr, Seq):
            items = expr.items if side == 0 else tuple(reversed(expr.items))
            kinds = frozenset()
            for item in items:
                k, n = self._edge(item, side, table)
                kinds |= k
                if not n:
                    return kinds, False
            return kinds, True
        raise GrammarError(f"cannot convert {expr!r}")

    def first(self, expr: Any) -> tuple[frozenset, bool]:
        return self._edge(expr, 0, self._first)

    def last(self, expr: Any) -> tuple[frozenset, bool]:
        return self._edge(expr, -1, self._last)

    def separator(self, before: frozenset, after: frozenset) -> str:
        if before == {"atom"} and after == {"atom"}:
            return "sp"
        return "ws"

    # -- output
    def convert(self) -> str:
        lines = []
        for name, d in self.defs.items():
            body = self.terminal(d.expr) if d.terminal else self.rule(d.expr)
            if name == self.g.start and self.ignored:   # Lark skips them at both ends too
                body = f"ws ({body}) ws"
            lines.append(f"{gbnf_name(name)} ::= {body}")
        if self.ignored:
            items = " | ".join(self._ignored_item(n) for n in self.g.ignore)
            if self.max_blank is None:
                lines.append(f"ws ::= ({items})*")
                lines.append(f"sp ::= ({items}) ws")
            else:
                lines.append(f"ws ::= ({items}){{0,{self.max_blank}}}")
                lines.append(f"sp ::= ({items}){{1,{max(1, self.max_blank)}}}")
        return "\n".join(lines) + "\n"

    def _ignored_item(self, name: str) -> str:
        """One ignored item: a run of blanks is one character at a time (the ``*`` around it
        repeats it), so the matcher is never asked to split a run two ways."""
        expr = self.defs[name].expr
        if isinstance(expr, Regex):
            parsed = _sre_parse.parse(expr.pattern)
            if len(parsed) == 1 and parsed[0][0] in _REPEATS \
                    and parsed[0][1][0] == 1 and parsed[0][1][1] == _sre.MAXREPEAT:
                return _RegexWriter().pattern(parsed[0][1][2])
        return self.terminal(expr)

    def terminal(self, expr: Any) -> str:
        """A terminal's body: no separators."""
        if isinstance(expr, Lit):
            return _literal(expr)
        if isinstance(expr, CharRange):
            return f"[{_class_char(expr.low)}-{_class_char(expr.high)}]"
        if isinstance(expr, Regex):
            return _RegexWriter().convert(expr.pattern)
        if isinstance(expr, Ref):
            return gbnf_name(expr.name)
        if isinstance(expr, Seq):
            return " ".join(self._wrap(self.terminal(i), i) for i in expr.items)
        if isinstance(expr, Alt):
            return " | ".join(self.terminal(o) for o in expr.options)
        if isinstance(expr, Repeat):
            return self._wrap_group(self.terminal(expr.item), expr.item) + _quantifier(
                expr.low, expr.high)
        raise GrammarError(f"cannot convert {expr!r}")

    def rule(self, expr: Any) -> str:
        """A rule's body: separators between tokens when the grammar ignores any."""
        if not self.ignored:
            return self.terminal(expr)
        if isinstance(expr, Alt):
            return " | ".join(self.rule(o) for o in expr.options)
        if isinstance(expr, Seq):
            return self._sequence(expr.items)
        if isinstance(expr, Repeat):
            return self._sequence((expr,))
        return self.terminal(expr)

    def _part(self, expr: Any) -> str:
        """A part of a rule's sequence that is not itself repeated."""
        if isinstance(expr, (Seq, Alt)):
            return f"({self.rule(expr)})"
        return self.terminal(expr)

    def _sequence(self, items: tuple) -> str:
        out: list[str] = []
        before: Optional[frozenset] = None     # None: nothing before in this sequence
        for item in items:
            if isinstance(item, Repeat):
                last, _ = self.last(item.item)
                head = self._joined(before, item.item)
                tail = f"({self._joined(last, item.item)})"
                if item.high is None:
                    rest = f"{tail}*"
                elif item.high - max(item.low, 1) > 0:
                    rest = f"{tail}{_quantifier(0, item.high - max(item.low, 1))}"
                else:
                    rest = ""
                if item.low == 0:
                    text = f"({head} {rest})?" if rest else f"({head})?"
                else:
                    more = f"{tail}{{{item.low - 1}}}" if item.low > 1 else ""
                    text = " ".join(p for p in (head, more, rest) if p)
                out.append(text)
                before = _after(before, last, item.low == 0)
                continue
            last, nullable = self.last(item)
            out.append(self._joined(before, item))
            before = _after(before, last, nullable)
        return " ".join(out) if out else '""'

    def _joined(self, before: Optional[frozenset], expr: Any) -> str:
        """``expr`` with the separator it needs after ``before`` (None: at a sequence's start,
        where the enclosing sequence has put the separator already). When what comes before
        ends in an atom and ``expr`` is a choice whose options start differently (a term: a
        name, or a ``?variable``), each option gets its own separator, so a name must be
        spaced from the atom before it while a variable need not be."""
        if before is None:
            return self._part(expr)
        first, _ = self.first(expr)
        sep = self.separator(before, first)
        if before == {"atom"} and "atom" in first and len(first) > 1:
            options = self._options(expr)
            if options:
                return "(" + " | ".join(
                    f"{self.separator(before, self.first(o)[0])} {self._part(o)}"
                    for o in options) + ")"
        return f"{sep} {self._part(expr)}"

    def _options(self, expr: Any) -> Optional[tuple]:
        if isinstance(expr, Ref):
            expr = self.defs[expr.name].expr
        if isinstance(expr, Alt) and all(isinstance(o, (Ref, Lit, Regex)) for o in expr.options):
            return expr.options       # names only: splitting never unfolds a recursive rule
        return None

    @staticmethod
    def _wrap(text: str, expr: Any) -> str:
        return f"({text})" if isinstance(expr, Alt) else text

    @staticmethod
    def _wrap_group(text: str, expr: Any) -> str:
        return f"({text})" if isinstance(expr, (Seq, Alt, Repeat)) or " " in text else text


def _after(before: Optional[frozenset], last: frozenset, may_be_absent: bool) -> frozenset:
    """The edge the next part of a sequence follows: this part's last characters, or, when
    this part may be absent, also whatever came before it ("unknown" at a sequence's start)."""
    if not may_be_absent:
        return last or frozenset({"unknown"})
    return (before if before is not None else frozenset({"unknown"})) | last


def _quantifier(low: int, high: Optional[int]) -> str:
    if (low, high) == (0, 1):
        return "?"
    if (low, high) == (0, None):
        return "*"
    if (low, high) == (1, None):
        return "+"
    if high is None:
        return f"{{{low},}}"
    if low == high:
        return f"{{{low}}}"
    return f"{{{low},{high}}}"


def _escape(c: str) -> str:
    return {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(c, c) \
        if c.isprintable() or c in "\n\t\r" else f"\\x{ord(c):02x}" if ord(c) < 256 \
        else f"\\u{ord(c):04x}"


def _class_char(c: str) -> str:
    """A character inside a class. llama.cpp knows only the escapes \\x \\u \\U \\t \\r
    \\n \\\\ \\" \\[ \\]: a literal '-' goes last and a '^' never first (see
    ``char_class``), so neither needs one; '-' as a range's end is written as \\x2d."""
    if c in "]\\[":
        return "\\" + c
    if c in "-^":
        return f"\\x{ord(c):02x}"
    return {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\f": "\\x0c", "\v": "\\x0b"}.get(c, c) \
        if c.isprintable() or c in "\n\t\r\f\v" else f"\\x{ord(c):02x}"


def _literal(lit: Lit) -> str:
    if not lit.ci or not any(c.isalpha() for c in lit.text):
        return '"' + "".join(_escape(c) for c in lit.text) + '"'
    parts = []
    for c in lit.text:
        if c.isalpha() and c.lower() != c.upper():
            parts.append(f"[{c.lower()}{c.upper()}]")
        else:
            parts.append('"' + _escape(c) + '"')
    return " ".join(parts)


def _regex_edge(pattern: str, side: int) -> tuple[frozenset, bool]:
    """The kinds a regular expression's text can start (side 0) or end (-1) with."""
    try:
        parsed = list(_sre_parse.parse(pattern))
    except re.error as exc:
        raise GrammarError(f"/{pattern}/: {exc}") from None
    chars = _edge_chars(parsed, side)
    if chars is None:
        return frozenset({"atom", "punct"}), True
    kinds, nullable = chars
    return kinds, nullable


def _edge_chars(items: list, side: int):
    items = items if side == 0 else list(reversed(items))
    kinds: frozenset = frozenset()
    for op, av in items:
        k, n = _edge_item(op, av, side)
        kinds |= k
        if not n:
            return kinds, False
    return kinds, True


def _edge_item(op, av, side: int) -> tuple[frozenset, bool]:
    if op == _sre.LITERAL:
        c = chr(av)
        return frozenset({"punct" if c in _PUNCT or (side == 0 and c in _OPENS) else
                          "atom"}), False
    if op == _sre.NOT_LITERAL or op == _sre.ANY:
        return frozenset({"atom", "punct"}), False
    if op == _sre.IN:
        kinds = set()
        negated = any(o == _sre.NEGATE for o, _ in av)
        for o, a in av:
            if o == _sre.LITERAL:
                kinds.add("punct" if chr(a) in _PUNCT else "atom")
            elif o == _sre.RANGE:
                kinds.add("atom")
                if any(a[0] <= ord(c) <= a[1] for c in _PUNCT):
                    kinds.add("punct")
            elif o == _sre.CATEGORY:
                kinds.add("punct" if a in (_sre.CATEGORY_SPACE,) else "atom")
        if negated:   # a negated class: anything it does not list, usually atoms
            kinds = {"atom"} | ({"punct"} if not set(_PUNCT) <= _class_set(av) else set())
        return frozenset(kinds), False
    if op in _REPEATS:
        low, _, sub = av
        kinds, nullable = _edge_chars(list(sub), side)
        return kinds, nullable or low == 0
    if op == _sre.SUBPATTERN:
        return _edge_chars(list(av[-1]), side)
    if op == _sre.BRANCH:
        kinds, nullable = frozenset(), False
        for branch in av[1]:
            k, n = _edge_chars(list(branch), side)
            kinds, nullable = kinds | k, nullable or n
        return kinds, nullable
    return frozenset({"atom", "punct"}), True


def _class_set(av) -> set:
    out = set()
    for o, a in av:
        if o == _sre.LITERAL:
            out.add(chr(a))
        elif o == _sre.RANGE:
            out.update(chr(c) for c in range(a[0], min(a[1], 0x7F) + 1))
        elif o == _sre.CATEGORY and a == _sre.CATEGORY_SPACE:
            out.update(" \t\n\r\f\v")
    return out


class _RegexWriter:
    """Python's parse of a regular expression, written as GBNF."""

    def convert(self, pattern: str) -> str:
        try:
            parsed = _sre_parse.parse(pattern)
        except re.error as exc:
            raise GrammarError(f"/{pattern}/: {exc}") from None
        return self.pattern(parsed)

    def pattern(self, items) -> str:
        items = list(items)
        if not items:
            return '""'
        return " ".join(self.item(op, av) for op, av in items)

    def item(self, op, av) -> str:
        if op == _sre.LITERAL:
            return '"' + _escape(chr(av)) + '"'
        if op == _sre.NOT_LITERAL:
            return f"[^{_class_char(chr(av))}]"
        if op == _sre.ANY:
            return "[^\\n]"
        if op == _sre.IN:
            return self.char_class(av)
        if op in _REPEATS:
            low, high, sub = av
            body = self.pattern(sub)
            sub = list(sub)
            if len(sub) != 1 or sub[0][0] in (_sre.SUBPATTERN, _sre.BRANCH):
                body = f"({body})"
            return body + _quantifier(low, None if high == _sre.MAXREPEAT else high)
        if op == _sre.SUBPATTERN:
            return f"({self.pattern(av[-1])})"
        if op == _sre.BRANCH:
            return "(" + " | ".join(self.pattern(b) for b in av[1]) + ")"
        if op == _sre.AT:
            raise GrammarError("anchors (^, $, \\b) have no GBNF form; leave them out of "
                               "terminals")
        raise GrammarError(f"the regular-expression construct {op} has no GBNF form here")

    def char_class(self, av) -> str:
        negated = False
        parts = []
        trailing = ""     # a literal '-' or '^': last, where llama.cpp reads it as itself
        for o, a in av:
            if o == _sre.NEGATE:
                negated = True
            elif o == _sre.LITERAL and chr(a) in "-^":
                trailing = "".join(sorted(set(trailing + chr(a)), reverse=True))  # ^ before -
            elif o == _sre.LITERAL:
                parts.append(_class_char(chr(a)))
            elif o == _sre.RANGE:
                parts.append(f"{_class_char(chr(a[0]))}-{_class_char(chr(a[1]))}")
            elif o == _sre.CATEGORY:
                parts.append(_CATEGORIES.get(a) or _category_error(a))
            else:
                raise GrammarError(f"the class item {o} has no GBNF form here")
        if not parts and trailing:
            if negated or len(trailing) > 1:   # [^-], [-^]: spelt as code points
                parts.append("".join(f"\\x{ord(c):02x}" for c in trailing))
                trailing = ""
            else:
                return '"' + trailing + '"'
        return f"[{'^' if negated else ''}{''.join(parts)}{trailing}]"


_CATEGORIES = {
    _sre.CATEGORY_SPACE: " \\t\\n\\r\\x0c\\x0b",
    _sre.CATEGORY_DIGIT: "0-9",
    _sre.CATEGORY_WORD: "a-zA-Z0-9_",
}


def _category_error(category) -> str:
    raise GrammarError(f"the class {category} (a negated category such as \\S, \\D or \\W) "
                       "has no GBNF form inside a class; list the characters")
