"""Every prompt fill is strict (issue 47): a placeholder no value fills, such as a ``$tsk``
typo in a user's own prompt file, is an error naming the file and the values there are,
never sent to the LLM as written."""

from __future__ import annotations

import pytest

from pddlkit.critic.template import PromptTemplate
from pddlkit.formalizers.prompts import Prompts
from pddlkit.llm.prompts import PromptTemplateError


def test_a_formalizer_prompt_with_a_typo_is_refused_naming_the_file(tmp_path):
    (tmp_path / "initial.txt").write_text("$header\nTask: $tsk\n")
    prompts = Prompts.for_env("coin-collector", tmp_path)
    with pytest.raises(PromptTemplateError) as caught:
        prompts.fill("initial", header="h", task="find the coin")
    message = str(caught.value)
    assert "initial.txt" in message and "$tsk" in message and "$task" in message
    # the bundled prompts fill with the values the formalizer gives
    bundled = Prompts.for_env("coin-collector")
    assert "find the coin" in bundled.fill("plangen", task="find the coin", observation="o",
                                           valid_actions="[]", history="h", error="none")


def test_a_critic_template_with_a_typo_is_refused():
    with pytest.raises(PromptTemplateError) as caught:
        PromptTemplate("Task: $task\nSeen: $obsrvation", "mine.txt").render("t", "o")
    assert "mine.txt" in str(caught.value) and "$obsrvation" in str(caught.value)
    assert PromptTemplate.load().render("t", "o", [], ["go"])   # the bundled one fills


def test_formalize_and_plan_takes_the_agents_option_names_and_returns_a_usage():
    """``solver_retries`` and ``planner_timeout`` as ``pddlkit run pddlego`` spells them; the
    earlier names (read for one release with a DeprecationWarning) are refused by a TypeError
    naming the new one (issue 74); the usage is a Usage."""
    from pddlkit.envs import make
    from pddlkit.formalizers import formalize_and_plan
    from pddlkit.llm.usage import Usage

    env = make("coin-collector", rooms=3)
    obs, _ = env.reset(seed=1)
    step = formalize_and_plan(obs, llm="standin:pddlego", env=env, solver_retries=1,
                              planner_timeout=20)
    assert step.solved and isinstance(step.usage, Usage) and step.usage["calls"] == 0
    for old, new in (("max_solver_retries", "solver_retries"), ("timeout", "planner_timeout")):
        with pytest.raises(TypeError) as caught:
            formalize_and_plan(obs, llm="standin:pddlego", env=env, **{old: 1})
        assert str(caught.value) == (f"formalize_and_plan() got an unexpected keyword argument "
                                     f"'{old}': it was removed; write {new}= (the agent's name "
                                     f"for it)")
    with pytest.raises(TypeError, match="'solver_retry' \\(did you mean solver_retries=\\?\\)"):
        formalize_and_plan(obs, llm="standin:pddlego", env=env, solver_retry=1)
    with pytest.raises(ValueError) as caught:     # a removed stand-in spelling, named
        formalize_and_plan(obs, llm="observation", env=env)
    assert str(caught.value) == ("formalize_and_plan: llm=observation: this spelling was "
                                 "removed; write standin:pddlego (pddlkit llm list shows every "
                                 "stand-in)")
