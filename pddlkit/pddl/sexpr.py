"""From text to a bracket tree, recovering from unbalanced parentheses.

The tokens follow the lexical grammar in ``pddl.lark``, read line by line in
:func:`read_sexpr` (lark's lexer over the same grammar, with :func:`read_sexpr_tokens`, is the
reference; a test compares them). The tree is built in the same pass by a small shift/reduce
loop rather than by lark's LALR parser, because the loop
knows PDDL's structure well enough to recover where LLM-written files usually go wrong: a
missing ``)`` is reported at the point where it becomes certain (a new ``(:action`` or
``:effect`` appears inside an unfinished construct, or the file ends), naming the construct
that was left open and the line it was opened on, and parsing resumes as if it had been closed.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from ..diagnostics import DiagnosticSink

# Sections that only ever appear directly inside (define ...).
SECTION_KEYWORDS = frozenset(
    {
        ":requirements", ":types", ":constants", ":predicates", ":functions", ":action",
        ":derived", ":objects", ":init", ":goal", ":metric", ":durative-action",
    }
)
# Keywords that only ever appear directly inside (:action ...) / (:durative-action ...).
ACTION_KEYWORDS = frozenset({":parameters", ":precondition", ":effect"})


class SList(list):
    """A bracketed list of tokens and lists, with the position of its '(' and ')'."""

    __slots__ = ("line", "column", "end_line", "end_column", "closed")

    def __init__(self, line: int, column: int):
        super().__init__()
        self.line = line
        self.column = column
        self.end_line = line
        self.end_column = column
        self.closed = True

    def head(self) -> str | None:
        if self and isinstance(self[0], str):
            return self[0].lower()
        return None

    def describe(self) -> str:
        """'(:action move' / '(define' / '(and' — how a person would name this construct."""
        words = []
        for item in self[:2]:
            if not isinstance(item, str):
                break
            words.append(str(item))
            if not item.startswith(":") and item.lower() != "define":
                break
        if words and words[0].lower() == "define" and len(self) > 1 and isinstance(self[1], SList):
            inner = self[1]
            words.append("(" + " ".join(str(x) for x in inner[:2] if isinstance(x, str)) + ")")
        return "(" + " ".join(words)


class Token(str):
    """A token: its text, with ``type`` (``LPAR``, ``RPAR``, ``ATOM`` or ``VARIABLE``, read off
    the text) and the 1-based ``line`` and ``column`` where it starts, as lark's tokens carry
    them."""

    __slots__ = ("line", "column")

    @property
    def type(self) -> str:
        first = self[:1]
        return ("LPAR" if first == "(" else "RPAR" if first == ")" else
                "VARIABLE" if first == "?" else "ATOM")


# The terminals of pddl.lark, one group each; a match with no group is a comment. Whitespace
# is what no alternative matches, so finditer steps over it.
_TOKEN = re.compile(r"(\()|(\))|(\?[^\s();?]*)|([^\s();?]+)|;[^\n]*")


@lru_cache(maxsize=1)
def _lexer():
    from lark import Lark

    grammar = (Path(__file__).parent / "pddl.lark").read_text()
    return Lark(grammar, parser="lalr", lexer="basic", propagate_positions=False)


def lark_tokenize(text: str):
    """Lark's tokens for ``text`` from ``pddl.lark``: with :func:`read_sexpr_tokens`, the
    reference :func:`read_sexpr` agrees with (str subclasses with ``.type``, ``.line`` and
    ``.column``)."""
    return _lexer().lex(text)


def read_sexpr(text: str, sink: DiagnosticSink) -> list:
    """The top-level items of ``text`` as SLists and tokens; problems go to ``sink``.

    One pass over the tokens of each line (:func:`_line_tokens`): a '(' becomes an SList
    when the token after it is known (a section keyword such as ``(:action`` closes what is
    still open, as in :func:`read_sexpr_tokens`), a ')' closes one, and only names and
    variables become :class:`Token` objects. It builds the same tree with the same
    diagnostics as :func:`read_sexpr_tokens` over lark's tokens (``tests/test_reader.py``
    compares them on the corpus)."""
    top: list = []
    stack: list[SList] = []
    pending = None          # (line, column) of a '(' whose list waits for the next token
    last = None             # (line, column, length) of the last token, for the end of file
    new = Token.__new__
    for number, line in enumerate(text.split("\n"), 1):
        tokens = _line_tokens(line)
        if tokens:
            last = (number, tokens[-1][2], len(tokens[-1][1]))
        for kind, value, column in tokens:
            if pending is not None:
                if kind == 4 and len(stack) > 1 and value.lower() in SECTION_KEYWORDS:
                    _close_until(stack, 1, sink, f"({value}", _at(*pending))
                lst = SList(*pending)
                (stack[-1] if stack else top).append(lst)
                stack.append(lst)
                pending = None
            if kind == 1:
                pending = (number, column)
            elif kind == 2:
                if stack:
                    lst = stack.pop()
                    lst.end_line, lst.end_column = number, column
                else:
                    _unexpected_close(sink, number, column)
            else:
                tok = new(Token, value)
                tok.line = number
                tok.column = column
                if (kind == 4 and value[0] == ":" and len(stack) > 1
                        and value.lower() in ACTION_KEYWORDS
                        and stack[-1].head() not in (":action", ":durative-action")):
                    depth = _action_depth(stack)
                    if depth is not None:
                        _close_until(stack, depth + 1, sink, value, tok)
                (stack[-1] if stack else top).append(tok)
    if pending is not None:
        lst = SList(*pending)
        (stack[-1] if stack else top).append(lst)
        stack.append(lst)
    if stack:
        _unclosed_at_end(stack, sink, last)
    return top


def _line_tokens(line: str) -> list:
    """``(kind, text, column)`` of each token of one line (kind: the group of ``_TOKEN``).
    A line with no comment and no variable, most of a large problem file, is split by
    ``str.split`` (the same whitespace as the expression's ``\\s``) and each token found
    from where the last one ended; any other line goes through the expression."""
    if ";" in line or "?" in line:
        return [(m.lastindex, m.group(m.lastindex), m.start() + 1)
                for m in _TOKEN.finditer(line) if m.lastindex is not None]
    out = []
    append = out.append
    at = 0
    find = line.find
    for value in line.replace("(", " ( ").replace(")", " ) ").split():
        at = find(value, at) + 1
        append((1 if value == "(" else 2 if value == ")" else 4, value, at))
        at += len(value) - 1
    return out


def _at(line: int, column: int) -> Token:
    tok = Token("(")
    tok.line, tok.column = line, column
    return tok


def _unexpected_close(sink: DiagnosticSink, line: int, column: int) -> None:
    sink.add(
        "unexpected-close-paren",
        "unexpected ')': nothing is open here",
        line=line,
        column=column,
        hint="delete this ')', or add the '(' it was meant to close",
        expected=("(",),
    )


def _unclosed_at_end(stack: list[SList], sink: DiagnosticSink, last) -> None:
    innermost = stack[-1]
    others = len(stack) - 1
    more = f" ({others} enclosing construct(s) also still open)" if others else ""
    line = last[0] if last is not None else 1
    col = (last[1] + last[2]) if last is not None else 1
    sink.add(
        "unclosed-paren",
        f"expected ')' to close {innermost.describe()} opened at line {innermost.line}, "
        f"but the file ends{more}",
        line=line,
        column=col,
        hint=f"add {len(stack)} ')': one to close '{innermost.describe()}' from line "
        f"{innermost.line}, the others where their constructs end",
        expected=(")",),
    )
    for lst in stack:
        lst.closed = False


def read_sexpr_tokens(tokens, sink: DiagnosticSink) -> list:
    """The reference tree builder over a token sequence (lark's): what :func:`read_sexpr`
    did before it read the text in one pass."""
    top: list = []
    stack: list[SList] = []
    tokens = list(tokens)
    n = len(tokens)
    i = 0
    while i < n:
        tok = tokens[i]
        kind = tok.type
        if kind == "LPAR":
            nxt = tokens[i + 1] if i + 1 < n else None
            if nxt is not None and stack and len(stack) > 1 and nxt.type == "ATOM":
                word = nxt.lower()
                if word in SECTION_KEYWORDS:
                    _close_until(stack, 1, sink, f"({nxt}", tok)
            lst = SList(tok.line, tok.column)
            (stack[-1] if stack else top).append(lst)
            stack.append(lst)
        elif kind == "RPAR":
            if stack:
                lst = stack.pop()
                lst.end_line, lst.end_column = tok.line, tok.column
            else:
                _unexpected_close(sink, tok.line, tok.column)
        else:
            if (
                kind == "ATOM"
                and len(stack) > 1
                and tok.lower() in ACTION_KEYWORDS
                and stack[-1].head() not in (":action", ":durative-action")
            ):
                # ':effect' inside an unfinished precondition: close back to the action.
                depth = _action_depth(stack)
                if depth is not None:
                    _close_until(stack, depth + 1, sink, str(tok), tok)
            (stack[-1] if stack else top).append(tok)
        i += 1
    if stack:
        last = tokens[-1] if tokens else None
        _unclosed_at_end(stack, sink, (last.line, last.column, len(last)) if last else None)
    return top


def _action_depth(stack: list[SList]) -> int | None:
    for depth in range(len(stack) - 1, -1, -1):
        if stack[depth].head() in (":action", ":durative-action"):
            return depth
    return None


def _close_until(stack: list[SList], depth: int, sink: DiagnosticSink, what: str, tok) -> None:
    """Force-close lists above ``depth``, reporting the innermost one that was left open."""
    if len(stack) <= depth:
        return
    innermost = stack[-1]
    count = len(stack) - depth
    sink.add(
        "unclosed-paren",
        f"expected ')' to close {innermost.describe()} opened at line {innermost.line} "
        f"before {what} at line {tok.line}",
        line=tok.line,
        column=tok.column,
        hint=f"add {count} ')' before line {tok.line} to close '{innermost.describe()}' "
        f"from line {innermost.line}",
        expected=(")",),
    )
    while len(stack) > depth:
        lst = stack.pop()
        lst.closed = False
        lst.end_line, lst.end_column = tok.line, tok.column


def read_file_text(path: str | Path) -> str:
    data = Path(path).read_bytes()
    return data.decode("utf-8", errors="replace")
