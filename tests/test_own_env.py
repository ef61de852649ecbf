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
        formalize_and_plan("You are somewhere.", llm="standin:pddlego", env=Bare())
    text = str(caught.value)
    for lacking in ("action_schema", "step", "admissible_commands", "action_signatures"):
        assert lacking in text
    assert "examples/own_env.py" in text

    class NoSignatureForSwitch(example.DarkHouse):
        action_signatures = {"go": "?from - room ?to - room"}

    with pytest.raises(TypeError, match="none for switch-on"):
        formalize_and_plan("x", llm="standin:pddlego", env=NoSignatureForSwitch())


def test_an_empty_answer_is_named_in_the_next_prompt_and_asked_again(example):
    """A chat template that ends the answer at once gives an empty answer; the loop says so
    to the model and asks again within its limits."""
    env = example.DarkHouse()
    observation, _ = env.reset()
    llm = ScriptedLLM(["", ""])
    result = formalize_and_plan(observation, llm=llm, env=env, solver_retries=1)
    assert not result.solved and llm.calls == 2
    assert "the answer is empty" in llm.requests[1].messages[-1][1]
    assert any("the answer is empty" in d for d in result.diagnostics)


# --------------------------------------------------------------------------- the done/won contract
# (issue 44, item 3: an own environment that said it was won through `terminated` or
# `info["won"]`, with no `won` attribute, was never done, and the LLM kept being asked)


def _quiet_house(example, signal: str):
    """The example's dark house with no ``won`` attribute: it says the task is won only one way,
    ``signal``: "terminated" (``terminated=True``, no ``won`` in info) or "info" (``info["won"]``,
    never terminated); or, with "lost", its first step ends the episode without a win
    (``terminated=True``, ``info["won"] = False``)."""
    from pddlkit.envs.api import Step

    class QuietHouse:
        id = "quiet-house"
        action_schema = example.DarkHouse.action_schema
        action_signatures = example.DarkHouse.action_signatures

        def __init__(self) -> None:
            self._house = example.DarkHouse()
            self.task = self._house.task

        def reset(self, seed=None):
            observation, _ = self._house.reset(seed)
            return observation, {}

        def step(self, command: str) -> Step:
            s = self._house.step(command)
            info = {"error": s.error}
            if signal == "lost":   # the first door leads into a pit: over, not won
                return Step("You fall into a pit.", 0.0, True, False, {**info, "won": False})
            if signal == "terminated":
                return Step(s.observation, s.reward, s.info["won"], False, info)
            return Step(s.observation, s.reward, False, False, {**info, "won": s.info["won"]})

        def admissible_commands(self):
            return self._house.admissible_commands()

        def snapshot(self):
            return self._house.snapshot()

        def restore(self, snapshot) -> None:
            self._house.restore(snapshot)

    return QuietHouse()


def _standin_answers(example) -> list[str]:
    """The example's stand-in answers for the dark house, as an LLM's JSON: two plans win it
    (go to the corridor; then go to the study and switch the light on)."""
    env = example.DarkHouse()
    observation, _ = env.reset()
    step = formalize_and_plan(observation, llm=example.StandInFormalizer(env.target), env=env)
    answers = []
    while not env.won:
        answers.append(json.dumps({"df": step.domain, "pf": step.problem}))
        pairs = [(c, env.step(c).observation) for c in step.commands]
        step = formalize_and_plan(pairs, memory=step.memory)
    assert len(answers) == 2
    return answers


@pytest.mark.parametrize("signal", ["terminated", "info"])
def test_an_own_env_that_says_won_one_way_ends_won_and_the_llm_is_not_asked_again(example,
                                                                                   signal):
    """Both paths, formalize_and_plan step by step and run_episode: the episode ends won after
    the two answers that win it; spare answers stay unasked."""
    from pddlkit.formalizers import run_episode
    from pddlkit.formalizers.llm_formalizer import LLMFormalizer
    from pddlkit.llm.usage import UsageLedger

    answers = _standin_answers(example) + ["{}"] * 3
    llm = ScriptedLLM(answers, ledger=UsageLedger())
    result = run_episode(_quiet_house(example, signal), LLMFormalizer(llm, "quiet-house"))
    assert result.won, result.metrics
    assert llm.calls == 2 and result.metrics.actions == 3

    env = _quiet_house(example, signal)
    assert not hasattr(env, "won")
    observation, _ = env.reset()
    llm = ScriptedLLM(answers, ledger=UsageLedger())
    step = formalize_and_plan(observation, llm=llm, env=env)
    for _ in range(6):
        if step.done:
            break
        assert step.solved, step.diagnostics
        step = formalize_and_plan([(c, env.step(c)) for c in step.commands], memory=step.memory)
    assert step.done and step.won and step.commands == []
    assert llm.calls == 2


def test_an_own_env_that_ends_the_episode_lost_is_not_played_on(example):
    """terminated=True with info["won"] = False: the episode is over, not won; the loop says
    why it stopped and asks the LLM nothing more."""
    from pddlkit.formalizers import run_episode
    from pddlkit.formalizers.llm_formalizer import LLMFormalizer
    from pddlkit.llm.usage import UsageLedger

    answers = _standin_answers(example) + ["{}"] * 3
    llm = ScriptedLLM(answers, ledger=UsageLedger())
    result = run_episode(_quiet_house(example, "lost"), LLMFormalizer(llm, "quiet-house"))
    assert not result.won and llm.calls == 1 and result.metrics.actions == 1
    ended = "the environment ended the episode without a win (terminated)"
    assert result.metrics.abort_reason == ended

    env = _quiet_house(example, "lost")
    observation, _ = env.reset()
    llm = ScriptedLLM(answers, ledger=UsageLedger())
    step = formalize_and_plan(observation, llm=llm, env=env)
    step = formalize_and_plan([(c, env.step(c)) for c in step.commands], memory=step.memory)
    assert step.done and not step.won and step.commands == []
    assert step.diagnostics == [ended] and llm.calls == 1


def test_observation_text_from_an_env_with_no_won_attribute_is_warned_about(example):
    """With only the text, a win said through step() cannot be seen: the call says to pass the
    Step itself."""
    env = _quiet_house(example, "terminated")
    observation, _ = env.reset()
    step = formalize_and_plan(observation, llm=example.StandInFormalizer("study"), env=env)
    pairs = [(c, env.step(c).observation) for c in step.commands]
    with pytest.warns(UserWarning, match=r"pass \(command, env.step\(command\)\) pairs"):
        formalize_and_plan(pairs, memory=step.memory)


def test_register_refuses_an_env_missing_a_method_and_names_it(example):
    from pddlkit.envs import UnknownEnvError, make, register
    from pddlkit.envs.api import EnvCheckError

    class NoAdmissible(example.DarkHouse):
        admissible_commands = None

    with pytest.raises(EnvCheckError) as caught:
        register("dark-house-no-admissible", NoAdmissible)
    error = caught.value
    assert isinstance(error, TypeError)   # what check_env raised before: callers catch it
    assert [p.where for p in error.problems] == ["admissible_commands"]
    assert "admissible_commands() -> list[str]" in error.problems[0].fix
    assert "register('dark-house-no-admissible')" in str(error)
    assert "admissible_commands" in str(error)
    with pytest.raises(UnknownEnvError):
        make("dark-house-no-admissible")   # refused: not registered


def test_the_checker_runs_the_env_once_per_class_and_names_what_it_got_wrong(example):
    """check_env resets and steps the environment: a reset that returns the text alone and a
    step that returns a dict are each named with the fix; a good class is run once, on a copy,
    however many instances formalize_and_plan or register see."""
    import pickle

    from pddlkit.envs import register
    from pddlkit.envs.api import EnvCheckError, check_env

    class TextOnlyReset(example.DarkHouse):
        def reset(self, seed=None):
            return super().reset(seed)[0]

    with pytest.raises(EnvCheckError) as caught:
        check_env(TextOnlyReset())
    assert caught.value.problems[0].where == "reset(0)"
    assert "return (observation, info)" in caught.value.problems[0].fix

    class DictStep(example.DarkHouse):
        def step(self, command):
            return {"observation": super().step(command).observation}

    with pytest.raises(EnvCheckError) as caught:
        check_env(DictStep())
    assert caught.value.problems[0].where.startswith("step(")
    assert "Step" in caught.value.problems[0].fix
    again = pickle.loads(pickle.dumps(caught.value))   # crosses a process boundary intact
    assert again.problems == caught.value.problems and str(again) == str(caught.value)

    class Counted(example.DarkHouse):
        resets = 0

        def reset(self, seed=None):
            type(self).resets += 1
            return super().reset(seed)

    first, second = Counted(), Counted()
    for env in (first, second):
        observation, _ = env.reset()
        formalize_and_plan(observation, llm=example.StandInFormalizer("study"), env=env)
    assert Counted.resets == 3          # the two episodes, and the check once, on a copy
    assert first.steps == second.steps == 0   # the check never stepped the user's env
    register("dark-house-counted", Counted)
    assert Counted.resets == 3          # the class is checked already

    class TaskAtReset(example.DarkHouse):   # register looks for the task after reset
        def __init__(self) -> None:
            super().__init__()
            del self.task

        def reset(self, seed=None):
            self.task = "switch on the light in the study"
            return super().reset(seed)

    assert register("dark-house-task-at-reset", TaskAtReset).id == "dark-house-task-at-reset"


def test_an_env_that_cannot_be_copied_is_checked_without_being_stepped(example):
    """An environment holding a lock (a process, a socket) cannot be copied: the check runs
    only what changes nothing, admissible_commands(), and still names a wrong answer there."""
    import threading

    from pddlkit.envs.api import EnvCheckError, check_env_once

    class Locked(example.DarkHouse):
        def __init__(self) -> None:
            super().__init__()
            self.lock = threading.Lock()

    env = Locked()
    observation, _ = env.reset()
    step = formalize_and_plan(observation, llm=example.StandInFormalizer("study"), env=env)
    assert step.solved and env.steps == 0
    assert check_env_once(env).ran.startswith("read-only")

    class LockedWithText(Locked):
        def admissible_commands(self):
            return "go to kitchen"

    env = LockedWithText()
    observation, _ = env.reset()
    with pytest.raises(EnvCheckError) as caught:
        formalize_and_plan(observation, llm=example.StandInFormalizer("study"), env=env)
    assert caught.value.problems[0].where == "admissible_commands()"
    assert "return a list of str" in caught.value.problems[0].fix
