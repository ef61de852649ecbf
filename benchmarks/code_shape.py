"""The shape of the code a newcomer has to carry on: file lengths and each function's
cyclomatic complexity, beside issue 74's targets (no file in ``formalizers/`` over 600 lines,
no function over 25).

    .venv/bin/python benchmarks/code_shape.py                # formalizers/
    .venv/bin/python benchmarks/code_shape.py pddlkit skills --most 20

Complexity is McCabe's, counted from the AST much as the ``radon`` tool counts it: 1 for
the function, plus 1 for each ``if``/``elif``, ``for``, ``while``, ``except``, ``assert``,
conditional expression, ``case`` of a ``match``, comprehension ``for`` and its ``if``s, and
each extra operand of ``and``/``or``. Nested functions and classes are counted on their own,
not in the function that holds them. ``tests/test_code_shape.py`` holds
``formalizers/`` to the targets.
"""

from __future__ import annotations

import argparse
import ast
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: issue 74's targets
MAX_LINES = 600
MAX_COMPLEXITY = 25

_BRANCHES = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.ExceptHandler, ast.IfExp,
             ast.Assert, ast.match_case)


@dataclass(frozen=True)
class Function:
    path: str
    name: str        # Class.method or function
    line: int
    complexity: int


def complexity(function: ast.AST) -> int:
    """McCabe's number of ``function`` (see the module text)."""
    count = 1
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                             ast.Lambda)):
            continue
        if isinstance(node, _BRANCHES):
            count += 1
        elif isinstance(node, ast.BoolOp):
            count += len(node.values) - 1
        elif isinstance(node, ast.comprehension):
            count += 1 + len(node.ifs)
        stack.extend(ast.iter_child_nodes(node))
    return count


def functions(path: Path) -> list[Function]:
    """Every function and method of the file at ``path``, nested ones included."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[Function] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append(Function(str(path.relative_to(REPO)), prefix + child.name,
                                      child.lineno, complexity(child)))
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def python_files(folders: list[str]) -> list[Path]:
    return sorted(p for folder in folders for p in (REPO / folder).rglob("*.py")
                  if "__pycache__" not in p.parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", default=["formalizers"])
    parser.add_argument("--most", type=int, default=10, help="rows of each table")
    args = parser.parse_args(argv)
    files = python_files(args.folders)
    lengths = sorted(((len(p.read_text().splitlines()), p) for p in files), reverse=True)
    every = sorted((f for p in files for f in functions(p)), key=lambda f: -f.complexity)
    long_files = [(n, p) for n, p in lengths if n > MAX_LINES]
    complex_functions = [f for f in every if f.complexity > MAX_COMPLEXITY]
    print(f"{', '.join(args.folders)}: {len(files)} files, {len(every)} functions")
    print("\n| longest files | lines | target |\n|---|---|---|")
    for n, path in lengths[:args.most]:
        print(f"| {path.relative_to(REPO)} | {n} | <= {MAX_LINES} |")
    print("\n| most complex functions | complexity | target |\n|---|---|---|")
    for f in every[:args.most]:
        print(f"| {f.path}:{f.line} {f.name} | {f.complexity} | <= {MAX_COMPLEXITY} |")
    print(f"\nfiles over {MAX_LINES} lines: {len(long_files)}; functions over "
          f"{MAX_COMPLEXITY}: {len(complex_functions)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
