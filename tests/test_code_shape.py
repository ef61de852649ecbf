"""``formalizers/`` stays in the shape issue 74 set (``benchmarks/code_shape.py``): no file
over 600 lines, no function over 25 in McCabe complexity. Why: the formalizer is where helps
and domain writing land, and a 2,102-line module with an 82-branch function is where the
next person stops; a test holds the line where a review would not."""

from __future__ import annotations

import ast

import pytest

from conftest import benchmark_script


@pytest.fixture
def shape(monkeypatch):
    return benchmark_script("code_shape", monkeypatch)


def test_no_formalizer_file_is_over_600_lines_and_no_function_over_25(shape):
    files = shape.python_files(["formalizers"])
    assert len(files) > 30
    long = {str(p.relative_to(shape.REPO)): n for p in files
            if (n := len(p.read_text().splitlines())) > shape.MAX_LINES}
    assert not long, f"over {shape.MAX_LINES} lines: {long}"
    complex_ = [f"{f.path}:{f.line} {f.name} ({f.complexity})" for p in files
                for f in shape.functions(p) if f.complexity > shape.MAX_COMPLEXITY]
    assert not complex_, f"over {shape.MAX_COMPLEXITY}: {complex_}"


def test_the_count_sees_every_kind_of_branch(shape):
    """One of each decision the count knows, in one function, gives 1 + one per decision;
    nested functions are their own."""
    source = '''
def f(a, b, xs):
    if a and b or a:            # if 1, and/or 2
        pass
    elif b:                     # 1
        pass
    for x in xs:                # 1
        while x:                # 1
            x -= 1
    try:
        pass
    except ValueError:          # 1
        pass
    y = 1 if a else 2           # 1
    assert y                    # 1
    z = [x for x in xs if x]    # for 1, if 1
    match a:
        case 1:                 # 1
            pass
        case _:                 # 1
            pass
    def inner():
        if a:
            pass
    return z
'''
    (node,) = ast.parse(source).body
    assert shape.complexity(node) == 1 + 3 + 1 + 1 + 1 + 1 + 1 + 1 + 2 + 2
    assert shape.complexity(node.body[-2]) == 2
