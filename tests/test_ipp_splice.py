"""The failing function found by its line and put back after a rewrite (programs/splice.py,
issue 76): only the program's text is read, nothing runs."""

from __future__ import annotations

from pddlkit.programs.splice import failing_function, splice

PROGRAM = """import heapq


def helper(x):
    return x + 1


@staticmethod
def other(y):
    return y


def solve(grid):
    return [helper(1)]
"""


def test_the_failing_line_names_its_top_level_function_with_its_decorators():
    assert failing_function(PROGRAM, 5).name == "helper"
    span = failing_function(PROGRAM, 10)
    assert (span.name, span.first, span.last) == ("other", 8, 10)
    assert failing_function(PROGRAM, 14).name == "solve"


def test_a_whole_program_is_asked_for_when_the_line_says_nothing_of_one_function():
    assert failing_function(PROGRAM, 1) is None           # an import, no function
    assert failing_function(PROGRAM, 0) is None           # no line
    assert failing_function("def solve(g):\n    return []\n", 2) is None   # one function
    assert failing_function("def solve(g):\nelse:\n", 2) is None          # does not parse


def test_the_answer_replaces_its_function_adds_new_ones_and_missing_imports():
    asked = failing_function(PROGRAM, 5)
    out = splice(PROGRAM, asked, "import math\n\ndef helper(x):\n    return math.floor(x)\n\n"
                                 "def extra():\n    return 0\n")
    assert "return math.floor(x)" in out and "return x + 1" not in out
    assert out.index("import math") < out.index("def helper")
    assert "def extra():" in out and out.count("def solve(grid):") == 1
    assert "@staticmethod\ndef other(y):" in out
    compile(out, "<spliced>", "exec")


def test_a_whole_program_answered_replaces_every_function_it_defines():
    asked = failing_function(PROGRAM, 5)
    out = splice(PROGRAM, asked, "def helper(x):\n    return 2\n\n\ndef solve(grid):\n"
                                 "    return []\n")
    assert out.count("def helper") == 1 and out.count("def solve") == 1
    assert "return 2" in out and "return []" in out and "def other" in out


def test_an_answer_that_does_not_parse_takes_the_functions_lines_as_written():
    asked = failing_function(PROGRAM, 5)
    out = splice(PROGRAM, asked, "def helper(x):\n    if x:\n")
    lines = out.split("\n")
    assert lines[3:5] == ["def helper(x):", "    if x:"] and "def solve(grid):" in out
