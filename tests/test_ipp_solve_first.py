"""IPP's ``solve_first`` help (issue 76): every request for code is decoded under a grammar
whose answer opens with the requested function's ``def`` line, so a small model writes the
function asked for before any helper; refused, before any call, where the LLM cannot decode
under a grammar."""

from __future__ import annotations

import pytest

from pddlkit.llm.messages import Completion
from pddlkit.llm.scripted import ScriptedLLM
from pddlkit.programs import IPP
from pddlkit.programs.ipp import function_first
from pddlkit.programs.runner import run_task
from pddlkit.programs.tasks import GraspTask
from pddlkit.sandbox import Policy

QUICK = Policy(call_timeout=2.0, cpu_seconds=2, memory_bytes=256 << 20)

SOLVE = """```python
def solve(grid, start_pos, carry_limit, cost_per_step, is_diagonals_allowed, max_actions):
    return helper()

def helper():
    return []
```"""


class GrammarLLM(ScriptedLLM):
    """A scripted LLM that says it decodes under grammars (as a ``local:`` server does) and
    answers each request with a text its grammar, if any, accepts: the test then sees which
    requests were constrained."""

    def constraint_support(self, constraint):
        return ("gbnf", "") if constraint is not None else (None, "no constraint")

    def _generate(self, request):
        done = super()._generate(request)
        if request.constraint is not None:
            assert request.constraint.accepts(done.text), done.text
            return Completion(done.text, done.prompt_tokens, done.completion_tokens,
                              done.model, constraint_mode="gbnf")
        return done


@pytest.fixture(scope="module")
def task():
    from pddlkit.envs.grasp import generate_corpus, instances

    return GraspTask(instances(generate_corpus(seed=0, per_file=1)[:4]))


def test_the_grammar_takes_the_function_first_and_nothing_else():
    grammar = function_first("solve")
    assert grammar.accepts(SOLVE)
    assert not grammar.accepts("```python\ndef helper():\n    return []\n\ndef solve():\n"
                               "    return []\n```")
    assert not grammar.accepts("Here is the code:\n" + SOLVE)
    assert grammar.gbnf().startswith('root ::= "```python\\ndef solve(" CODE "```"')
    with pytest.raises(ValueError, match="a Python name"):
        function_first("solve(grid)")


def test_code_requests_are_constrained_and_counted_the_pseudocode_is_not(task):
    def answer(messages):
        return "take the nearest energy home" if len(messages) == 1 else SOLVE

    llm = GrammarLLM(answer)
    result = IPP(task, llm, workers=1, policy=QUICK, max_rounds=0, solve_first=True).run()
    constrained = [r.constraint is not None for r in llm.requests]
    assert constrained == [False, True]          # the pseudocode turn, then the code
    assert result.rounds[0].decoding == {"gbnf": 1}
    assert result.rounds[0].failures == 0


def test_off_no_request_is_constrained(task):
    def answer(messages):
        return "take the nearest energy home" if len(messages) == 1 else SOLVE

    llm = GrammarLLM(answer)
    result = IPP(task, llm, workers=1, policy=QUICK, max_rounds=0).run()
    assert all(r.constraint is None for r in llm.requests)
    assert result.rounds[0].decoding == {}


def test_an_llm_without_grammars_is_refused_before_any_call():
    calls = []
    with pytest.raises(ValueError, match="solve_first decodes each request for code under a "
                                         "grammar, and this LLM cannot: ScriptedLLM"):
        run_task("grasp", ScriptedLLM(lambda m: calls.append(m) or ""), train=2, evaluate=2,
                 rounds=0, solve_first=True)
    assert calls == []


def test_the_cli_refuses_it_with_the_stand_in_and_names_the_flag():
    from cli_runner import run_cli

    done = run_cli("run", "ipp", "--env", "grasp", "--solve-first", "--rounds", "0")
    assert done.returncode != 0
    assert "--solve-first decodes each request for code under a grammar" in done.stderr
    assert "the stand-in writes its programs without a grammar" in done.stderr
    assert "Traceback" not in done.stderr


def test_off_an_llm_without_the_constraint_keyword_still_works(task):
    """A caller's LLM whose ``complete`` takes no ``constraint`` keyword is asked as before
    when solve_first is off (the keyword goes only with the option)."""
    class Plain:
        model = "plain"

        def complete(self, messages, *, temperature=0.0, max_tokens=None, seed=None,
                     stop=None):
            text = "take the nearest energy home" if len(messages) == 1 else SOLVE
            return Completion(text, 1, 1, "plain")

    result = IPP(task, Plain(), workers=1, policy=QUICK, max_rounds=0).run()
    assert result.rounds[0].failures == 0


def test_the_curriculum_refuses_it(task):
    from cli_runner import run_cli

    done = run_cli("run", "ipp", "--env", "grasp", "--solve-first", "--mode", "curriculum",
                   "--llm", "local:qwen2.5-coder-1.5b")
    assert done.returncode != 0 and "--solve-first constrains requests for code" in done.stderr
    with pytest.raises(ValueError, match="curriculum's steps answer in one chat"):
        IPP(task, GrammarLLM(lambda m: ""), solve_first=True).run_curriculum()


def test_a_solve_first_run_replays_from_its_transcript(task, tmp_path):
    """A transcript of a run under the grammar is replayed under it (``replay:`` answers a
    constraint its recorded requests were decoded under, and no other)."""
    from pddlkit.llm.scripted import ReplayLLM

    def answer(messages):
        return "take the nearest energy home" if len(messages) == 1 else SOLVE

    path = tmp_path / "run.jsonl"
    first = IPP(task, GrammarLLM(answer, transcript=str(path)), workers=1, policy=QUICK,
                max_rounds=0, solve_first=True).run()
    replay = ReplayLLM(path)
    again = IPP(task, replay, workers=1, policy=QUICK, max_rounds=0, solve_first=True).run()
    assert again.rounds[0].decoding == first.rounds[0].decoding == {"gbnf": 1}
    assert again.rounds[0].mean == first.rounds[0].mean
    assert replay.constraint_support(function_first("solve"))[0] == "replay"
    assert replay.constraint_support(function_first("helper"))[0] is None
