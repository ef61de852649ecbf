"""formalize_and_plan and the PDDLego+ loop: offline formalizers win, injected errors are fed
back and repaired, and a hand-written transcript drives the real OpenAIChat over HTTP."""

from __future__ import annotations

import json

import pytest

import pddlkit
from llm_server import ChatServer, answer
from pddlkit.envs import make
from pddlkit.formalizers import Limits, formalize_and_plan, parse_answer, run_episode
from pddlkit.formalizers.answer import AnswerError
from pddlkit.formalizers.llm_formalizer import LLMFormalizer
from pddlkit.formalizers.noisy import KINDS, NoisyFormalizer
from pddlkit.formalizers.observation import ObservationFormalizer
from pddlkit.llm.openai_chat import OpenAIChat
from pddlkit.llm.usage import UsageLedger


@pytest.mark.parametrize("rooms", [3, 5, 7, 9, 11])
def test_observation_formalizer_wins_every_coin_collector_episode(rooms):
    for seed in range(20):
        result = run_episode(make("coin-collector", rooms=rooms), ObservationFormalizer(),
                             seed=seed)
        assert result.won, (rooms, seed, result.metrics, result.errors)
        assert result.metrics.solver_errors == result.metrics.simulation_errors == 0


@pytest.mark.parametrize("kind", KINDS)
def test_each_injected_error_kind_is_fed_back_and_repaired(kind):
    injected = repaired = wins = 0
    for seed in range(6):
        formalizer = NoisyFormalizer(rate=0.6, seed=seed, kinds=(kind,))
        result = run_episode(make("coin-collector", rooms=7), formalizer, seed=seed)
        injected += len(formalizer.injected)
        repaired += len(formalizer.repaired)
        wins += result.won
        m = result.metrics
        assert m.solver_fixed <= m.solver_errors and m.simulation_fixed <= m.simulation_errors
    assert injected > 0 and repaired > 0, (kind, injected, repaired)
    assert wins == 6


def test_noisy_formalizer_at_its_default_rate():
    totals = {"solver_errors": 0, "solver_fixed": 0, "simulation_errors": 0,
              "simulation_fixed": 0, "wins": 0}
    for seed in range(20):
        result = run_episode(make("coin-collector", rooms=5), NoisyFormalizer(seed=seed),
                             seed=seed)
        for k in ("solver_errors", "solver_fixed", "simulation_errors", "simulation_fixed"):
            totals[k] += getattr(result.metrics, k)
        totals["wins"] += result.won
    assert totals["solver_errors"] > 0 and totals["simulation_errors"] > 0, totals
    assert totals["solver_fixed"] > 0 and totals["simulation_fixed"] > 0, totals
    assert totals["wins"] >= 18, totals


def test_retry_limit_aborts_with_the_reason():
    class Stubborn:
        name = "stubborn"

        def propose(self, context):
            raise AnswerError("no JSON")

    result = run_episode(make("coin-collector", rooms=3), Stubborn(), seed=0,
                         limits=Limits(max_solver_retries=2))
    m = result.metrics
    assert not result.won and m.solver_errors == 3 and m.solver_aborts == 1
    assert m.abort_reason == "solver errors: retry limit reached"


# --------------------------------------------------------------------------- the real client

DOMAIN = """(define (domain exploration)
  (:requirements :strips :typing :negative-preconditions :disjunctive-preconditions)
  (:types location direction item)
  (:predicates (at ?l - location) (connected ?a - location ?b - location ?d - direction)
               (door ?a - location ?b - location ?d - direction)
               (open ?a - location ?b - location ?d - direction)
               (in ?i - item ?l - location) (holding ?i - item))
  (:action open-door
    :parameters (?loc1 - location ?loc2 - location ?dir - direction)
    :precondition (and (at ?loc1) (door ?loc1 ?loc2 ?dir))
    :effect (open ?loc1 ?loc2 ?dir))
  (:action move
    :parameters (?from - location ?to - location ?dir - direction)
    :precondition (and (at ?from) (connected ?from ?to ?dir)
                       (or (not (door ?from ?to ?dir)) (open ?from ?to ?dir)))
    :effect (and (not (at ?from)) (at ?to)))
  (:action take
    :parameters (?i - item ?l - location)
    :precondition (and (at ?l) (in ?i ?l))
    :effect (holding ?i)))"""
SYNTAX_ERROR = DOMAIN.replace("(at ?l - location) (connected", "(at ?l - location (connected")
NO_DOOR_CHECK = DOMAIN.replace("""
                       (or (not (door ?from ?to ?dir)) (open ?from ?to ?dir))""", "")
FIRST_PROBLEM = """(define (problem explore) (:domain exploration)
  (:objects kitchen room_north - location north south east west - direction coin - item)
  (:init (at kitchen) (connected kitchen room_north north) (door kitchen room_north north))
  (:goal (at room_north)))"""
SECOND_PROBLEM = """(define (problem explore) (:domain exploration)
  (:objects kitchen pantry - location north south east west - direction coin - item)
  (:init (at pantry) (connected kitchen pantry north) (connected pantry kitchen south)
         (door kitchen pantry north) (door pantry kitchen south) (open kitchen pantry north)
         (open pantry kitchen south) (in coin pantry))
  (:goal (holding coin)))"""


def _json(df: str, pf: str) -> str:
    return json.dumps({"df": df, "pf": pf})


def test_hand_written_transcript_drives_openai_chat_through_an_episode(tmp_path):
    server = ChatServer()
    try:
        server.script.extend([
            answer(_json(SYNTAX_ERROR, FIRST_PROBLEM), 900, 300),
            answer("```json\n" + _json(NO_DOOR_CHECK, FIRST_PROBLEM) + "\n```", 1000, 300),
            answer(_json(DOMAIN, FIRST_PROBLEM), 1100, 300),
            answer(_json(DOMAIN, SECOND_PROBLEM), 1200, 300),
        ])
        ledger = UsageLedger()
        llm = OpenAIChat("gpt-4o-mini", base_url=server.url, cache=False, ledger=ledger,
                         transcript=tmp_path / "llm.jsonl")
        formalizer = LLMFormalizer(llm, "coin-collector")
        result = run_episode(make("coin-collector", rooms=2), formalizer, seed=0,
                             record=tmp_path / "episode.jsonl")
    finally:
        server.stop()
    m = result.metrics
    assert result.won and m.success
    assert (m.solver_errors, m.solver_fixed, m.simulation_errors, m.simulation_fixed) == (1, 1, 1, 1)
    assert (m.solver_aborts, m.simulation_aborts, m.abort_reason) == (0, 0, None)
    assert m.llm_calls == 4 and m.prompt_tokens == 4200 and m.completion_tokens == 1200
    assert result.plans == [["move north"], ["open door to north", "move north"], ["take coin"]]
    assert result.errors[1]["message"] == "The door to the north is closed."
    # what went to the model: the error fed back in the right prompt
    prompts = [r["messages"][0]["content"] for r in server.requests]
    assert '"df"' in prompts[0] and "find the coin and take it." in prompts[0]
    assert "error" in prompts[1] and "line" in prompts[1]
    assert "This action failed: move north" in prompts[2]
    assert "The door to the north is closed." in prompts[2]
    assert "You are in the pantry." in prompts[3]
    records = [json.loads(x) for x in (tmp_path / "episode.jsonl").read_text().splitlines()]
    kinds = [r["type"] for r in records]
    assert kinds.count("files") == 4 and kinds[-1] == "outcome"
    assert "solver-error" in kinds and "simulation-error" in kinds
    # the LLM transcript replays the same episode with no server
    replayed = run_episode(make("coin-collector", rooms=2),
                           LLMFormalizer(f"replay:{tmp_path / 'llm.jsonl'}", "coin-collector"),
                           seed=0)
    assert replayed.won and replayed.plans == result.plans


# --------------------------------------------------------------------------- API and answers


def test_formalize_and_plan_one_step_then_with_memory():
    env = make("coin-collector", rooms=5, seed=1)
    obs, _ = env.reset()
    first = formalize_and_plan(obs, llm="observation", env=env)
    assert first.solved and first.commands == ["move north"]
    assert "(:goal (at kitchen))" in first.problem and first.diagnostics == []
    step = env.step(first.commands[0])
    second = formalize_and_plan(step.observation, memory=first.memory, env=env,
                                action=first.commands[0])
    assert second.solved and "(visited kitchen)" in second.problem
    frozen = formalize_and_plan(obs, llm="observation", env="coin-collector",
                                domain=pddlkit.domains.path("coin-collector/domain.pddl")
                                if hasattr(pddlkit, "domains") else None)
    assert frozen.solved


def test_formalize_and_plan_reports_diagnostics_when_it_cannot_plan():
    from pddlkit.llm import ScriptedLLM

    llm = ScriptedLLM([_json(SYNTAX_ERROR, FIRST_PROBLEM)] * 3, ledger=UsageLedger())
    env = make("coin-collector", rooms=2, seed=0)
    obs, _ = env.reset()
    result = formalize_and_plan(obs, llm=llm, env=env, max_solver_retries=2)
    assert not result.solved and len(result.diagnostics) == 3
    assert "error[" in result.diagnostics[0]
    assert result.usage["calls"] == 3


@pytest.mark.parametrize("text", [
    _json("(define (domain d))", "(define (problem p) (:domain d))"),
    "Here:\n```pddl\n(define (domain d))\n```\n```pddl\n(define (problem p) (:domain d))\n```",
    "(define (domain d) ; (define (problem fake)\n)\n\nand (define (problem p) (:domain d))",
    "<answer>" + _json("(define (domain d))", "(define (problem p) (:domain d))") + "</answer>",
])
def test_answers_are_read_in_every_form(text):
    files = parse_answer(text)
    assert files.domain.startswith("(define (domain d)") and "(problem p)" in files.problem


def test_unreadable_answers_say_what_is_missing():
    with pytest.raises(AnswerError, match='needs string fields "df" and "pf"'):
        parse_answer('{"domain_file": "x"}')
    with pytest.raises(AnswerError, match="the problem file could not be found"):
        parse_answer("(define (domain d))")


def test_prompts_are_files_a_user_can_override(tmp_path):
    (tmp_path / "initial.txt").write_text("MY PROMPT for $task\n$actions")
    env = make("coin-collector", rooms=3, seed=0)
    env.reset()
    mine = LLMFormalizer(pddlkit.ScriptedLLM(["x"]), "coin-collector", prompts=str(tmp_path))
    from pddlkit.formalizers.base import Context, Memory

    context = Context("initial", env.id, Memory(env.task, [("look around", "You are here.")]),
                      ["move north"], "1. :action move", 1)
    text = mine.render(context)
    assert text.startswith("MY PROMPT for find the coin") and "move north" in text
    bundled = LLMFormalizer(pddlkit.ScriptedLLM(["x"]), "coin-collector").render(context)
    assert '"df": "..."' in bundled and "(at ?location)" in bundled
    simple = LLMFormalizer(pddlkit.ScriptedLLM(["x"]), "coin-collector",
                           goal_style="simple").render(context)
    assert "(at ?location)" not in simple


def test_cli_run_prints_a_live_transcript_and_metrics(tmp_path):
    import subprocess
    import sys

    record = tmp_path / "episode.jsonl"
    out = subprocess.run([sys.executable, "-m", "pddlkit.cli", "run", "--env", "coin-collector",
                          "--rooms", "5", "--seed", "3", "--llm", "noisy:0.5", "--record",
                          str(record)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "simulation error on 'move north'" in out.stdout
    assert "episode seed 3: WON" in out.stdout
    assert json.loads(record.read_text().splitlines()[-1])["success"] is True
    bad = subprocess.run([sys.executable, "-m", "pddlkit.cli", "run", "--env", "coin-colector"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "did you mean 'coin-collector'" in bad.stderr


def test_the_core_does_not_import_the_front_ends():
    import subprocess
    import sys

    # the CLI loads front-end subcommands through entry points only when it builds its parser
    code = ("import sys, pddlkit, pddlkit.cli, pddlkit.planners, pddlkit.llm, pddlkit.check; "
            "from pddlkit.domains import path; "
            "pddlkit.plan(path('coin-collector/domain.pddl'), path('coin-collector/p3.pddl')); "
            "print(sorted(m for m in sys.modules if m.startswith(('pddlkit.formalizers', "
            "'pddlkit.envs'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    loaded = eval(out.stdout)
    assert loaded == [], loaded
