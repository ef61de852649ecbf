"""From text to a bracket tree, recovering from unbalanced parentheses.

The tokens come from the lark grammar in ``pddl.lark``. The tree is built by a small
shift/reduce loop over lark's token stream rather than by lark's LALR parser, because the loop
knows PDDL's structure well enough to recover where LLM-written files usually go wrong: a
missing ``)`` is reported at the point where it becomes certain (a new ``(:action`` or
``:effect`` appears inside an unfinished construct, or the file ends), naming the construct
that was left open and the line it was opened on, and parsing resumes as if it had been closed.
"""

from __future__ import annotations

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


@lru_cache(maxsize=1)
def _lexer():
    from lark import Lark

    grammar = (Path(__file__).parent / "pddl.lark").read_text()
    return Lark(grammar, parser="lalr", lexer="basic", propagate_positions=False)


def tokenize(text: str):
    """Lark tokens (str subclasses with ``.type``, ``.line`` and ``.column``)."""
    return _lexer().lex(text)


def read_sexpr(text: str, sink: DiagnosticSink) -> list:
    """The top-level items of ``text`` as SLists and tokens; problems go to ``sink``."""
    top: list = []
    stack: list[SList] = []
    tokens = list(tokenize(text))
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
                sink.add(
                    "unexpected-close-paren",
                    "unexpected ')': nothing is open here",
                    line=tok.line,
                    column=tok.column,
                    hint="delete this ')', or add the '(' it was meant to close",
                    expected=("(",),
                )
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
        innermost = stack[-1]
        others = len(stack) - 1
        more = f" ({others} enclosing construct(s) also still open)" if others else ""
        line = last.line if last is not None else 1
        col = (last.column + len(last)) if last is not None else 1
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
