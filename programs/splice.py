"""One function of a program, found by a failing line, and put back after the LLM rewrote it
(issue 76: IPP's probe asks for the failing function only).

Why: a program of several functions that crashes in one of them was sent back whole with
"write the whole function solve again"; a 1.5B model then rewrote the main loop or returned
the program unchanged, never touching the helper the error named. Asking for the function
the error's line is in, and keeping the rest of the program as it was, aims the fix at the
part that is wrong and asks the model for fewer tokens.

Rules (the program is only parsed here, never run):

* :func:`failing_function` names the top-level function (decorators included) whose lines
  hold the failing line, when the program parses and has at least two top-level functions; a
  program of one function, a failure outside every function or a program that does not parse
  (a syntax error) is asked for whole, as before.
* :func:`drop_definitions` takes out top-level functions of given names (IPP's skeleton
  drops the model's copies of the helpers it gives), saying which.
* :func:`splice` puts the answer back: each top-level function or class the answer defines
  replaces the program's own of the same name (or is added after the last one), and each
  import of the answer the program lacks goes before the program's first line that is not an
  import. An answer that does not parse replaces the asked-for function's lines as written,
  so the next run reports its syntax error at its own line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_IMPORTS = (ast.Import, ast.ImportFrom)


@dataclass(frozen=True)
class FunctionSpan:
    name: str
    first: int     # 1-based, its first decorator's line when it has one
    last: int      # 1-based, inclusive


def _parse(source: str) -> Optional[ast.Module]:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _spans(tree: ast.Module, kinds: tuple = _DEFS) -> list[FunctionSpan]:
    return [FunctionSpan(node.name, min([node.lineno] + [d.lineno for d in node.decorator_list]),
                         node.end_lineno or node.lineno)
            for node in tree.body if isinstance(node, kinds)]


def failing_function(program: str, line: int) -> Optional[FunctionSpan]:
    """The top-level function of ``program`` holding ``line``, or None when the program should
    be asked for whole (see the module)."""
    tree = _parse(program) if line > 0 else None
    if tree is None:
        return None
    functions = _spans(tree, (ast.FunctionDef, ast.AsyncFunctionDef))
    if len(functions) < 2:
        return None
    return next((s for s in functions if s.first <= line <= s.last), None)


def splice(program: str, asked: FunctionSpan, answer: str) -> str:
    """``program`` with the definitions of ``answer`` in place of its own (see the module)."""
    lines = program.rstrip("\n").split("\n")
    tree, new = _parse(program), _parse(answer)
    if tree is None or new is None:
        return "\n".join(lines[:asked.first - 1] + answer.rstrip("\n").split("\n")
                         + lines[asked.last:]) + "\n"
    answer_lines = answer.rstrip("\n").split("\n")
    own = {s.name: s for s in _spans(tree)}
    replaced: list[tuple[FunctionSpan, list[str]]] = []
    added: list[str] = []
    for span in _spans(new):
        text = answer_lines[span.first - 1:span.last]
        if span.name in own:
            replaced.append((own[span.name], text))
        else:
            added += [""] + text
    for span, text in sorted(replaced, key=lambda r: -r[0].first):   # bottom up: spans hold
        lines[span.first - 1:span.last] = text
    if added:
        lines += added
    have = {ast.unparse(n) for n in tree.body if isinstance(n, _IMPORTS)}
    imports = [ast.unparse(n) for n in new.body if isinstance(n, _IMPORTS)
               and ast.unparse(n) not in have]
    if imports:
        at = next((n.lineno - 1 for n in tree.body if not isinstance(n, _IMPORTS)), len(lines))
        lines[at:at] = imports
    return "\n".join(lines) + "\n"


def drop_definitions(program: str, names) -> tuple[str, list[str]]:
    """``program`` without its functions and classes named in ``names``, and one line for
    each dropped: top-level copies, then copies defined inside a top-level function (the
    function then calls the given one). A nested copy is kept when dropping it would leave
    its block empty or the program unreadable. A program that does not parse comes back as
    it is.

    Why the nested ones: measured with Qwen2.5-Coder 1.5B on DoorKey with the skeleton and
    ``solve_first`` (2026-12-05, ``helps-records/ipp-minigrid-doorkey-probe-skeleton-solve-
    first-on``), every ``solve`` defined its own ``turned``, ``ahead`` and ``walk`` inside
    itself, shadowing the tested ones, and each crashed in its own ``walk``."""
    tree = _parse(program)
    if tree is None:
        return program, []
    spans = [s for s in _spans(tree) if s.name in names]
    said = [f"def {s.name} (lines {s.first}-{s.last}): a copy of a helper the skeleton "
            "gives, dropped" for s in spans]
    program = _without(program, spans)
    nested = _nested_copies(_parse(program), names)
    if nested:
        shorter = _without(program, [span for span, _ in nested])
        if _parse(shorter) is not None:
            program = shorter
            said += [f"def {span.name} inside {outer} (lines {span.first}-{span.last}): a "
                     f"copy of a helper the skeleton gives, dropped ({outer} calls the given "
                     "one)" for span, outer in nested]
    return program, said


def _without(program: str, spans) -> str:
    """``program`` less the lines of ``spans``."""
    if not spans:
        return program
    lines = program.split("\n")
    for span in sorted(spans, key=lambda s: -s.first):
        del lines[span.first - 1:span.last]
    return "\n".join(lines)


def _nested_copies(tree: Optional[ast.Module], names) -> list[tuple[FunctionSpan, str]]:
    """The definitions named in ``names`` inside a top-level function (the outermost such,
    with that function's name), whose block holds something else too."""
    if tree is None:
        return []
    found = []
    for top in tree.body:
        if not isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        stack = [top]
        while stack:
            node = stack.pop()
            for field in ("body", "orelse", "finalbody", "handlers"):
                block = getattr(node, field, None) or []
                for child in block:
                    if isinstance(child, _DEFS) and child.name in names and len(block) > 1:
                        first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                        found.append((FunctionSpan(child.name, first,
                                                   child.end_lineno or child.lineno), top.name))
                    else:
                        stack.append(child)
    return found
