"""Bring your own environment (examples/own_env.py): formalize_and_plan on a world that is not
a pddlkit PDDL world, through the stand-in formalizer and through an LLM, and the one error
that names everything an environment lacks."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from pddlkit.formalizers import formalize_and_plan
from pddlkit.llm.scripted import ScriptedLLM

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "own_env.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("own_env", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_wins_offline_as_a_user_runs_it():
    done = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "switch on the light in study" in done.stdout and "done in 3 actions" in done.stdout


def test_an_llm_sees_the_worlds_own_signatures_and_its_plan_becomes_its_commands(example):
    env = example.DarkHouse()
    observation, _ = env.reset()
    standin = example.StandInFormalizer(env.target)

    def answer(messages):  # an LLM that writes what the stand-in writes, as JSON
        from pddlkit.formalizers.base import Context, Memory

        files = standin.propose(Context("initial", env.id, Memory(env.task, [
            ("look around", observation)]), [], "", 2))
        return json.dumps({"df": files.domain, "pf": files.problem})

    llm = ScriptedLLM(answer)
    result = formalize_and_plan(observation, llm=llm, env=env)
    assert result.solved and result.commands == ["go to corridor"]
    prompt = llm.requests[0].messages[-1][1]  # (role, content)
    assert ":action go  (command: go to {to})\n:parameters (?from - room ?to - room)" in prompt
    assert ":parameters (?r - room)" in prompt and "switch on the light in {r}" in prompt
    assert "coin" not in prompt.lower() and env.task in prompt  # the generic prompts


def test_what_an_environment_lacks_is_named_in_one_error(example):
    class Bare:
        id = "bare"
        task = "do something"

        def reset(self, seed=None):
            return "You are somewhere.", {}

    with pytest.raises(TypeError) as caught:
        formalize_and_plan("You are somewhere.", llm="observation", env=Bare())
    text = str(caught.value)
    for lacking in ("action_schema", "step", "admissible_commands", "action_signatures"):
        assert lacking in text
    assert "examples/own_env.py" in text

    class NoSignatureForSwitch(example.DarkHouse):
        action_signatures = {"go": "?from - room ?to - room"}

    with pytest.raises(TypeError, match="none for switch-on"):
        formalize_and_plan("x", llm="observation", env=NoSignatureForSwitch())


def test_an_empty_answer_is_named_in_the_next_prompt_and_asked_again(example):
    """A chat template that ends the answer at once gives an empty answer; the loop says so
    to the model and asks again within its limits."""
    env = example.DarkHouse()
    observation, _ = env.reset()
    llm = ScriptedLLM(["", ""])
    result = formalize_and_plan(observation, llm=llm, env=env, max_solver_retries=1)
    assert not result.solved and llm.calls == 2
    assert "the answer is empty" in llm.requests[1].messages[-1][1]
    assert any("the answer is empty" in d for d in result.diagnostics)
