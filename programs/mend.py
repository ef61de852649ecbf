"""Mend what code can mend in a generated program before it is run (IPP's ``mend`` option,
issue 48, off by default).

Why: every GRASP program Qwen2.5-Coder 1.5B wrote (160 of 160 held-out instances, with and
without the probe) failed with one ``IndentationError``: its pseudocode had a branch holding
only a comment (``else  // handle obstacle``), and the Python it wrote from it kept the
comment and no statement (``else:`` then ``# Handle obstacle ...``). The probe sent that error
back, and the model returned the same program, at temperature 0 and at 0.7. A block with no
statement has one meaning a person would give it, ``pass``; code adds it, so the rounds are
spent on what the program does rather than on a syntax slip.

What is mended, and nothing else (the program's meaning is never guessed):

* a compound statement (``if``/``elif``/``else``/``for``/``while``/``def``/``try``/...) whose
  block has no statement: ``pass`` is added under its header, one level deeper;
* tabs mixed with spaces in indentation (a ``TabError``): each tab becomes the spaces up to
  the next multiple of 8 (Python's own reading of a tab), only where reading it as 4 gives
  the same program (otherwise the tab's width would decide what the program means), and
  never inside a string.

The header's colon is found with Python's tokenizer (a ``#`` or ``:`` inside a string or a
lambda is not it). The mends are kept only when the program then compiles; otherwise it comes
back unchanged, with no mends, and the sandbox reports its syntax error as without the
option.

Each mend is one sentence naming the line, kept in the round's record (``mends``). The
program is only compiled and tokenized here, never run (generated code runs only in
:mod:`pddlkit.sandbox`).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

#: mends at most per program (each one fixes one empty block; more means something else)
MEND_LIMIT = 20

_EMPTY_BLOCK = re.compile(r"expected an indented block(?: after '?(?P<what>[\w ]+?)'? "
                          r"(?:statement|definition|block)? ?on line (?P<line>\d+))?")


def _compiles(source: str) -> SyntaxError | None:
    """The syntax error compiling ``source`` raises, or None. Compiling runs nothing."""
    try:
        compile(source, "<program>", "exec", dont_inherit=True)
    except SyntaxError as exc:      # IndentationError and TabError are SyntaxErrors
        return exc
    except (ValueError, RecursionError, MemoryError, OverflowError):
        return None                 # not a syntax slip: the sandbox reports it
    return None


def _tokens(source: str) -> list:
    """``source``'s tokens as far as Python's tokenizer reads them (it stops at an error)."""
    out = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            out.append(token)
    except (tokenize.TokenError, SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    return out


def _header_end(source: str, first: int) -> int | None:
    """The 0-based line of the colon that ends the compound statement starting on line
    ``first`` (0-based): the first ``:`` outside brackets whose line ends there (a comment
    aside). Read with Python's tokenizer, so a ``#`` or ``:`` in a string, a dict or a
    lambda inside the header is not taken for it."""
    depth, colon = 0, None
    for token in _tokens(source):
        if token.start[0] - 1 < first:
            continue
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth = max(0, depth - 1)
        elif token.type == tokenize.OP and token.string == ":" and depth == 0:
            colon = token.start[0] - 1
        elif token.type in (tokenize.NEWLINE, tokenize.NL) and depth == 0 and colon is not None:
            return colon
        elif token.type not in (tokenize.COMMENT, tokenize.NL):
            colon = None            # a colon followed by more code on its line
    return None


def _empty_block(source: str, error: SyntaxError) -> tuple[int, int] | None:
    """(the header's first line, the line after which ``pass`` fills the empty block
    ``error`` names), 0-based."""
    found = _EMPTY_BLOCK.search(error.msg or "")
    if found and found.group("line"):
        first = int(found.group("line")) - 1
        end = _header_end(source, first)
        return None if end is None else (first, end)
    lines = source.split("\n")     # an older wording: the error is on the line after it
    k = (error.lineno or 1) - 2
    while k >= 0 and (not lines[k].strip() or lines[k].lstrip().startswith("#")):
        k -= 1
    return (k, k) if k >= 0 and _header_end(source, k) == k else None


def _string_lines(source: str) -> set[int]:
    """0-based lines that begin inside a string spanning lines (their tabs are text)."""
    inside: set[int] = set()
    for token in _tokens(source):
        if token.type == tokenize.STRING and token.end[0] > token.start[0]:
            inside.update(range(token.start[0], token.end[0]))   # 1-based start+1 .. end
    return inside


def _expand_tabs(source: str, width: int, skip: set[int]) -> str:
    lines = source.split("\n")
    return "\n".join(line if n in skip else
                     line[:len(line) - len(line.lstrip())].expandtabs(width) + line.lstrip()
                     for n, line in enumerate(lines))


def _same_meaning(a: str, b: str) -> bool:
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def _mend_tabs(source: str) -> tuple[str, list[str]]:
    """Tabs mixed with spaces (a TabError): expanded, only when reading a tab as 8 columns
    (Python's rule) and as 4 (an editor's) give the same program that compiles; a tab whose
    width would change the program's meaning is left for the sandbox to report."""
    if not isinstance(_compiles(source), TabError):
        return source, []
    skip = _string_lines(source)
    eight, four = _expand_tabs(source, 8, skip), _expand_tabs(source, 4, skip)
    if _compiles(eight) is not None or not _same_meaning(eight, four):
        return source, []
    tabbed = [n + 1 for n, line in enumerate(source.split("\n")) if n not in skip
              and "\t" in line[:len(line) - len(line.lstrip())]]
    return eight, [f"line(s) {', '.join(map(str, tabbed[:5]))}"
                   f"{' ...' if len(tabbed) > 5 else ''}: tabs in the indentation became "
                   f"spaces"]


def mend_program(source: str) -> tuple[str, list[str]]:
    """(the mended program, one sentence per mend). A program that compiles, or whose
    error is not one of those the module names, comes back as it was, with no mends; so
    does one whose mends do not make it compile."""
    original = source
    if _compiles(source) is None:
        return source, []
    if "\r" in source:             # Python reads \r\n and a lone \r as line ends; so do we
        source = source.replace("\r\n", "\n").replace("\r", "\n")
    mends: list[str] = []
    tabs_tried = False
    error = _compiles(source)
    for _ in range(MEND_LIMIT):
        if isinstance(error, TabError) and not tabs_tried:
            tabs_tried = True
            source, said = _mend_tabs(source)
            mends += said
            error = _compiles(source)
            continue
        if not isinstance(error, IndentationError) or "expected an indented block" not in \
                (error.msg or ""):
            break
        block = _empty_block(source, error)
        lines = source.split("\n")
        if block is None or block[1] >= len(lines):
            break
        first, end = block
        text = lines[first]
        indent = text[:len(text) - len(text.lstrip())]
        lines.insert(end + 1, indent + "    pass")
        mended = "\n".join(lines)
        again = _compiles(mended)
        if again is not None and (again.msg, again.lineno) == (error.msg, error.lineno):
            break                   # the pass did not fill that block: mend nothing
        mends.append(f"line {first + 1}: `{text.strip()[:60]}` had no statement in its "
                     f"block; code added `pass`")
        source, error = mended, again
    if error is not None:
        return original, []         # what code mended did not make it compile: leave it
    return source, mends


def drop_module_statements(source: str) -> tuple[str, list[str]]:
    """(the program without the statements at its top level that run when it is loaded, one
    sentence per statement dropped): expression statements other than a docstring (``print(
    solve(grid))``, an example call), loops, ``with`` blocks and ``if __name__ ==
    "__main__":`` blocks. Imports, definitions, classes, assignments (constants) and other
    statements stay. Issue 76: the sandbox calls the entry function itself, and a program
    that calls it at load time, on a grid it does not have, fails before it is ever called.

    Applied by IPP before every program runs, with or without ``mend`` (dropping a call the
    sandbox makes itself changes nothing the program means); a program that does not parse
    comes back as it was. Each statement dropped is a sentence in the round's ``dropped``."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return source, []
    spans, said = [], []
    for node in tree.body:
        docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
            and isinstance(node.value.value, str)
        main = isinstance(node, ast.If) and "__name__" in ast.unparse(node.test)
        if (isinstance(node, ast.Expr) and not docstring) or main or \
                isinstance(node, (ast.For, ast.While, ast.With, ast.AsyncFor, ast.AsyncWith)):
            spans.append((node.lineno, node.end_lineno or node.lineno))
            first = ast.get_source_segment(source, node) or ""
            said.append(f"line {node.lineno}: dropped `{first.splitlines()[0][:60]}` at the "
                        "top level (it would run when the program is loaded; the sandbox "
                        "calls the entry function itself)")
    if not spans:
        return source, []
    lines = source.split("\n")
    drop = {k for a, b in spans for k in range(a - 1, b)}
    kept = "\n".join(line for k, line in enumerate(lines) if k not in drop)
    return (kept, said) if _compiles(kept) is None else (source, [])
