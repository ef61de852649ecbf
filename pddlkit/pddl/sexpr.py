"""From text to a bracket tree, recovering from unbalanced parentheses.

The tokens follow the lexical grammar in ``pddl.lark``, read line by line in
:func:`read_sexpr` (lark's lexer over the same grammar, with :func:`read_sexpr_tokens`, is the
reference; a test compares them). The tree is built in the same pass by a small shift/reduce
loop rather than by lark's LALR parser, because the loop
knows PDDL's structure well enough to recover where LLM-written files usually go wrong: a
missing ``)`` is reported at the point where it becomes certain (a new ``(:action`` or
``:effect`` appears inside an unfinished construct, or the file ends), naming the construct
that was left open and the line it was opened on, and parsing resumes as if it had been closed.

Speed (issue 20: at least as fast as Fast Downward's translator parser, which keeps no
positions). Measured on nomystery p10 (0.93 MB), best of 5: lark's lexer plus a token loop took
1.5 s; one compiled expression per line 0.25 s; ``str.split`` on lines without a comment or a
variable 0.09 s for the tree; compiling this same module with Cython (tried, not kept) took
that to 0.057 s, not enough alone and a C compiler on every install. What closed the gap is
doing less: no position is computed for the names inside :init facts, most of a large problem's
tokens, until a diagnostic needs one (:func:`place_tokens`), which brings the tree to 0.046 s;
with the reader's cache of known names, domain plus problem take 0.084 s against FD's 0.119 s
(``benchmarks/parse.py``).
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
        # (list.__init__ is not called: the new list is already empty)
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


#: the most lists open at once: real PDDL nests a few dozen deep (the IPC's deepest formulas
#: stay under 100); beyond this the input is junk, and reading it would only cost memory
MAX_DEPTH = 1000


def read_sexpr(text: str, sink: DiagnosticSink) -> list:
    """The top-level items of ``text`` as SLists and tokens; problems go to ``sink``.

    One pass over the tokens of each line (:func:`_line_values`): a '(' becomes an SList
    when the token after it is known (a section keyword such as ``(:action`` closes what is
    still open, as in :func:`read_sexpr_tokens`), a ')' closes one, and names and variables
    become :class:`Token` objects carrying their position, except inside the facts of a
    problem's ``(:init ...)``: there they stay plain ``str`` and no position is computed,
    because those are most of a large problem's tokens and a well-formed fact needs none.
    :func:`place_tokens` gives such a list its tokens' positions when a diagnostic needs
    them. Positions are found with ``str.find`` from where the last located token ended:
    names hold no parentheses and comments only end a line, so a '(' or ')' is found from
    there even after unlocated names. With :func:`place_tokens` over the whole tree it is the
    same tree with the same diagnostics as :func:`read_sexpr_tokens` over lark's tokens
    (``tests/test_reader.py`` compares them on the corpus and on noise)."""
    top: list = []
    stack: list[SList] = []
    pending = None          # (line, column) of a '(' whose list waits for the next token
    last_line = 0           # the last line with a token, for the end of the file
    init = None             # the problem's (:init ...) list while it is open
    new = Token.__new__
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        values = _line_values(line)
        if not values:
            continue
        last_line = number
        at = 0              # where the last located token ends
        located = 0         # how many of the line's tokens lie before ``at``
        find = line.find
        for i, value in enumerate(values):
            if pending is not None:
                if len(stack) > 1 and value[0] not in "()?" and value.lower() in SECTION_KEYWORDS:
                    _close_until(stack, 1, sink, f"({value}", _at(*pending))
                if len(stack) >= MAX_DEPTH:   # no PDDL nests this deep: junk, stop here
                    sink.add("too-deeply-nested", f"more than {MAX_DEPTH} lists open at once: "
                             "this is not PDDL (or a generator gone wrong); reading stopped",
                             line=pending[0], column=pending[1],
                             hint="check that the file is the PDDL you meant to pass")
                    return top
                lst = SList(*pending)
                if len(stack) == 1 and value[0] not in "()?" and value.lower() == ":init":
                    init = lst
                (stack[-1] if stack else top).append(lst)
                stack.append(lst)
                pending = None
            if value == "(":
                at = find("(", at) + 1
                located = i + 1
                pending = (number, at)
            elif value == ")":
                at = find(")", at) + 1
                located = i + 1
                if stack:
                    lst = stack.pop()
                    lst.end_line, lst.end_column = number, at
                else:
                    _unexpected_close(sink, number, at)
            elif init is not None and value[0] != ":" and len(stack) > 2 and stack[1] is init:
                stack[-1].append(value)
            else:
                if located < i:
                    for skipped in values[located:i]:   # unlocated :init names before this one
                        at = find(skipped, at) + len(skipped)
                located = i + 1
                at = find(value, at) + 1
                tok = new(Token, value)
                tok.line = number
                tok.column = at
                if (value[0] == ":" and len(stack) > 1 and value.lower() in ACTION_KEYWORDS
                        and stack[-1].head() not in (":action", ":durative-action")):
                    depth = _action_depth(stack)
                    if depth is not None:
                        _close_until(stack, depth + 1, sink, value, tok)
                (stack[-1] if stack else top).append(tok)
                at += len(value) - 1
    if pending is not None:
        lst = SList(*pending)
        (stack[-1] if stack else top).append(lst)
        stack.append(lst)
    if stack:
        last = None
        if last_line:
            column, value = _line_tokens(lines[last_line - 1])[-1]
            last = (last_line, column, len(value))
        _unclosed_at_end(stack, sink, last)
    return top


def _line_values(line: str) -> list:
    """The texts of one line's tokens. A line with no comment and no variable, most of a
    large problem file, is split by ``str.split`` (the same whitespace as the expression's
    ``\\s``); any other line goes through the expression of ``pddl.lark``'s terminals."""
    if ";" in line or "?" in line:
        return [m.group(m.lastindex) for m in _TOKEN.finditer(line) if m.lastindex is not None]
    return line.replace("(", " ( ").replace(")", " ) ").split()


def _line_tokens(line: str) -> list:
    """``(column, text)`` of each token of one line, 1-based columns."""
    out = []
    at = 0
    for value in _line_values(line):
        at = line.find(value, at) + 1
        out.append((at, value))
        at += len(value) - 1
    return out


def place_tokens(lst: SList, line_text) -> SList:
    """Give the plain-``str`` tokens under ``lst`` (inside :init facts, where
    :func:`read_sexpr` computes no position) their :class:`Token` form with line and column,
    in place, and return ``lst``. ``line_text(n)`` is line ``n`` of the text (as
    :meth:`DiagnosticSink.line_text` gives it). The text is read again from the list's '(':
    its tokens map one to one onto the tree in reading order, a ')' following each list that
    was closed (a list closed by recovery has none)."""
    stream = _tokens_from(line_text, lst.line, lst.column)
    next(stream)  # the list's own '('
    _place(lst, stream)
    return lst


def _tokens_from(line_text, number: int, column: int):
    while True:
        line = line_text(number)
        if line is None:
            return
        for at, value in _line_tokens(line):
            if at >= column:
                yield number, at, value
        number, column = number + 1, 0


def _place(lst: SList, stream) -> None:
    for i, item in enumerate(lst):
        number, column, value = next(stream)
        if item.__class__ is SList:
            _place(item, stream)
            if item.closed:
                next(stream)
        elif item.__class__ is not Token:
            tok = Token(item)
            tok.line, tok.column = number, column
            lst[i] = tok


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
    """A PDDL file's text. A file that is not text (a NUL byte, or bytes that are not UTF-8:
    a binary, an archive, random data) raises :class:`NotText` naming the first bad byte,
    so it is one clear error rather than hundreds of syntax errors about its bytes."""
    data = Path(path).read_bytes()
    nul = data.find(b"\0", 0, 1 << 20)
    if nul >= 0:
        raise NotText(f"it is not text: byte {nul} is 0x00 (a binary file?)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotText(f"it is not UTF-8 text: byte {exc.start} is {data[exc.start]:#04x} "
                      f"(a binary file, or text in another encoding: save it as UTF-8)") from None


class NotText(ValueError):
    """A file whose bytes are not UTF-8 text."""