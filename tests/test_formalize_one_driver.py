"""``formalize_and_plan`` is one step of the loop ``run_episode`` plays (issue 74: one
driver): the same plans from the same answers, the same learning from what the caller ran
(a failed command's correction, the transitions the schema check holds the model's
schemas against), and every option of ``pddlkit run pddlego`` either a keyword, a help
from the one table, or a line saying what a caller does instead."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from pddlkit.envs import make
from pddlkit.formalizers.agents import PDDLegoOptions
from pddlkit.formalizers.api import formalize_and_plan
from pddlkit.formalizers.call_options import NOT_PER_CALL, help_names
from pddlkit.formalizers.loop import Limits, run_episode
from pddlkit.formalizers.modular import ModularFormalizer

from test_modular import DOMAIN, _part, _script, careful
from test_schema_check import _learner


def _loop_plans(answer, **options) -> tuple[list[list[str]], bool, ModularFormalizer]:
    """CoinCollector seed 1, 3 rooms, through ``run_episode``: (each plan's commands, won,
    the formalizer)."""
    plans: list[list[str]] = []
    helps = {k: v for k, v in options.items() if k != "domain"}
    formalizer = ModularFormalizer(_script(answer), "coin-collector", **helps)
    result = run_episode(make("coin-collector", rooms=3), formalizer, seed=1,
                         domain=options.get("domain"), limits=Limits(action_budget=40),
                         on_event=lambda kind, data: kind == "plan" and plans.append(
                             data["commands"]))
    return plans, result.won, formalizer


def _caller_plans(answer, **options):
    """The same game played by a caller of ``formalize_and_plan`` that runs each plan's
    commands itself and passes back what ``env.step`` returned: (each plan's commands, won,
    the last result)."""
    env = make("coin-collector", rooms=3)
    obs, _info = env.reset(seed=1)
    step = formalize_and_plan(obs, llm=_script(answer), env=env, modular=True, **options)
    plans: list[list[str]] = []
    domain = options.get("domain")
    while step.commands and len(plans) < 40:
        plans.append(step.commands)
        ran = []
        for command in step.commands:
            ran.append((command, env.step(command)))
            if ran[-1][1].error or ran[-1][1].terminated:
                break
        step = formalize_and_plan(ran, memory=step.memory, domain=domain)
    return plans, step.won, step


def test_a_caller_gets_the_plans_the_loop_plays_from_the_same_answers():
    loop, loop_won, _ = _loop_plans(careful, domain=DOMAIN)
    called, called_won, last = _caller_plans(careful, domain=DOMAIN)
    assert loop_won and called_won, last.diagnostics
    assert called == loop and len(loop) > 1


def test_a_failed_command_a_caller_passes_back_is_corrected_as_the_loop_corrects_it():
    """The model leaves a closed door out (test_modular's doorless reader): the move through
    it fails in the caller's world, the Step says so, and the correction part names the
    door, as in the loop."""
    def doorless(prompt: str) -> str:
        answer = careful(prompt)
        if _part(prompt) == "new" and "has-door" in answer:
            return answer.splitlines()[0]
        return answer

    plans, won, last = _caller_plans(doorless, domain=DOMAIN)
    formalizer = last.memory.formalizer
    said = [c for c in formalizer.calls if c.part == "correction" and c.answer == "has-door"]
    assert said, [c.part for c in formalizer.calls]
    assert last.memory.episode.m.simulation_errors >= 1
    assert won, last.diagnostics


def test_the_schema_check_holds_the_models_schemas_against_what_a_caller_ran():
    """The domain-writing helps reach a caller too: the move schemas the learner writes
    wrong are refuted by the transitions of the commands the caller ran, and the right one
    is used, as in the loop."""
    prompts: list[str] = []
    _plans, won, last = _caller_plans(_learner(prompts), schema_check=True)
    formalizer = last.memory.formalizer
    assert formalizer.evidence.transitions
    outcomes = [c.outcome for c in formalizer.calls if c.part == "action move"]
    assert any("refuted by a transition" in o for o in outcomes), outcomes
    assert "used" in outcomes and won, last.diagnostics
    loop_prompts: list[str] = []
    _, loop_won, loop_formalizer = _loop_plans(_learner(loop_prompts), schema_check=True)
    assert loop_won
    assert [c.outcome for c in loop_formalizer.calls if c.part == "action move"] == outcomes


def test_every_option_of_the_agent_is_a_keyword_a_help_or_said_to_be_the_callers():
    keywords = {p.name for p in inspect.signature(formalize_and_plan).parameters.values()
                if p.kind is inspect.Parameter.KEYWORD_ONLY}
    fields = {f.name for f in dataclasses.fields(PDDLegoOptions)}
    missing = fields - keywords - set(help_names()) - set(NOT_PER_CALL)
    assert not missing, f"options of pddlkit run pddlego a call neither takes nor names: {missing}"
    assert set(NOT_PER_CALL) <= fields, "a line of NOT_PER_CALL names no option"
    assert not set(NOT_PER_CALL) & keywords


def test_a_call_refuses_a_help_without_what_it_needs_and_names_a_misspelt_one():
    env = make("coin-collector", rooms=3)
    obs, _ = env.reset(seed=1)
    with pytest.raises(ValueError, match="schema_check=True is a help of the modular "
                                         "formalizer; pass modular=True"):
        formalize_and_plan(obs, llm=_script(careful), env=env, schema_check=True)
    with pytest.raises(ValueError, match="schema_check=True acts on the domain the model "
                                         "writes; domain= freezes it"):
        formalize_and_plan(obs, llm=_script(careful), env=env, modular=True,
                           schema_check=True, domain=DOMAIN)
    with pytest.raises(TypeError, match="did you mean schema_check="):
        formalize_and_plan(obs, llm=_script(careful), env=env, schema_chek=True)
    with pytest.raises(ValueError, match="samples= is a setting of an LLM formalizer"):
        formalize_and_plan(obs, llm="standin:pddlego", env=env, samples=3)
    # the preset with a stand-in: the helps that need no LLM, none refused
    step = formalize_and_plan(obs, llm="standin:pddlego", env=env, small_model=True)
    assert step.commands
    assert step.memory.episode.refused is not None   # fresh_answers, from the preset


def test_a_command_of_the_callers_own_that_fails_is_not_the_plans_failure():
    """The caller runs something else than the plan (a move through a wall): what the world
    said is taken in as seen, the plan's files are not refused, nothing is refuted, and the
    next call plans again."""
    env = make("coin-collector", rooms=3)
    obs, _ = env.reset(seed=1)
    first = formalize_and_plan(obs, llm="standin:pddlego", env=env, fresh_answers=True,
                               refuted_facts=True)
    assert first.commands and first.commands[0] != "move east"
    step = env.step("move east")
    assert step.error
    after = formalize_and_plan([("move east", step)], memory=first.memory)
    episode = after.memory.episode
    from pddlkit.formalizers.helps.refuted_facts import RefutedFacts

    refuted, = [p for p in episode.passes if isinstance(p, RefutedFacts)]
    assert not episode.refused and not refuted.facts and not episode.result.errors
    assert after.commands == first.commands
    assert after.memory.memory.history[-1] == ("move east", step.observation)


def test_a_memory_passed_twice_gives_two_episodes_and_is_left_as_it_was():
    """The formalizer is copied with the episode: the schema check's evidence of the memory
    passed does not grow when a call takes in what the caller ran, and two calls from one
    memory give the same answer."""
    prompts: list[str] = []
    env = make("coin-collector", rooms=3)
    obs, _ = env.reset(seed=1)
    step = formalize_and_plan(obs, llm=_script(_learner(prompts)), env=env, modular=True,
                              schema_check=True)
    snapshot = env.snapshot()
    ran = [(command, env.step(command)) for command in step.commands]
    env.restore(snapshot)
    before = len(step.memory.formalizer.evidence.transitions)
    one = formalize_and_plan(ran, memory=step.memory)
    two = formalize_and_plan(ran, memory=step.memory)
    assert len(step.memory.formalizer.evidence.transitions) == before
    assert len(one.memory.formalizer.evidence.transitions) > before
    assert one.memory.formalizer is not two.memory.formalizer
    assert one.memory.formalizer.llm is step.memory.formalizer.llm   # the model is shared
    assert one.commands == two.commands


def test_a_later_call_repeats_the_first_calls_helps_or_is_refused():
    env = make("coin-collector", rooms=3)
    obs, _ = env.reset(seed=1)
    first = formalize_and_plan(obs, llm="standin:pddlego", env=env, small_model=True)
    ran = [(command, env.step(command)) for command in first.commands]
    again = formalize_and_plan(ran, memory=first.memory, fact_memory=True, small_model=True)
    assert again.memory.facts is not None
    with pytest.raises(ValueError, match="fact_memory=False differs from the episode's "
                                         "first call"):
        formalize_and_plan(ran, memory=first.memory, fact_memory=False)
    with pytest.raises(ValueError, match="samples=3 differs"):
        formalize_and_plan(ran, memory=first.memory, samples=3)


def test_a_template_no_pattern_can_read_is_passed_over():
    from pddlkit.formalizers.modular.parts import _bind_command

    signatures = {"swap": ((("?o", "obj"),), "swap {o} with {o}"),
                  "take": ((("?o", "obj"),), "take {o}")}
    assert _bind_command("swap a with b", signatures) is None
    assert _bind_command("take apple 1", signatures) == ("take", {"?o": "apple_1"})


def test_the_job_gives_a_stand_in_back_and_loads_only_after_the_checks(monkeypatch):
    from pddlkit.agents import AgentError, Job, run_job
    from pddlkit.agents.registry import get_agent

    spec = get_agent("pddlego")
    for stand_in in ("standin", "standin:pddlego:noisy:0.3", "noisy:0.3", None):
        job = Job(spec, "coin-collector", stand_in, [0], spec.make_options({}))
        assert job.make_llm() == stand_in
    # an agent's own refusal comes before its model is loaded (here: no key for it)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    ipp = get_agent("ipp")
    with pytest.raises(AgentError, match="--probe tries each program"):
        run_job(ipp, env="minigrid-doorkey", llm="openai:gpt-4o-mini",
                options=ipp.make_options({"probe": 2, "mode": "curriculum"}))


def test_limits_refuse_a_value_that_would_end_or_never_end_an_episode():
    """``Limits`` built in Python (not through the CLI, which checks its flags) refuses a
    budget under one and negative retries, naming the field, rather than running an episode
    that ends at its first step."""
    from pddlkit.formalizers.loop import Limits

    assert Limits(max_solver_retries=0).max_solver_retries == 0
    assert Limits(planner_timeout=float("inf")).planner_timeout == float("inf")
    for field, value in (("action_budget", 0), ("max_solver_retries", -1),
                         ("max_simulation_retries", -2), ("max_repeated_answers", -1),
                         ("action_budget", 1.5), ("max_solver_retries", True)):
        with pytest.raises(ValueError, match=f"Limits.{field} must be a whole number"):
            Limits(**{field: value})
    for value in (0.0, -1, float("nan"), True, "30"):
        with pytest.raises(ValueError, match="Limits.planner_timeout must be seconds above 0"):
            Limits(planner_timeout=value)


@pytest.mark.parametrize("keyword, value", [("solver_retries", -1), ("solver_retries", 1.5),
                                            ("planner_timeout", 0), ("planner_timeout", "9")])
def test_formalize_and_plan_refuses_its_own_limits_by_their_names(keyword, value):
    """A bad ``solver_retries`` or ``planner_timeout`` is refused before any LLM call, under
    the name the caller wrote (not the loop's ``Limits`` field)."""
    with pytest.raises(ValueError, match=f"formalize_and_plan: {keyword} must be"):
        formalize_and_plan("You are in the kitchen.", llm="random:0", **{keyword: value})
