"""The helps for small models (issue 46), each against the mistake it is for.

The mistakes are the ones measured with Qwen2.5-Coder 1.5B on CoinCollector: a problem file
with no ``(:objects ...)`` in every answer, the same refused answer returned on every retry, a
coin asserted in a room before any coin was seen. Each stand-in below makes one of them on top
of the observation reader's (right) files, so what a help changes is exactly its mistake.
"""

from __future__ import annotations

import collections
import json
import re

import pytest

from conftest import benchmark_script
from pddlkit.envs import make
from pddlkit.formalizers.answer import Files
from pddlkit.formalizers.loop import Limits, run_episode
from pddlkit.formalizers.objects import declare_objects
from pddlkit.formalizers.observation import ObservationFormalizer
from pddlkit.pddl.model import Atom

DOMAIN = open(__import__("pathlib").Path(__file__).resolve().parent.parent
              / "domains" / "coin-collector" / "domain.pddl").read()


def _strip_objects(problem: str) -> str:
    start = problem.index("(:objects")
    depth = 0
    for i in range(start, len(problem)):
        depth += {"(": 1, ")": -1}.get(problem[i], 0)
        if depth == 0:
            return problem[:start] + problem[i + 1:]
    raise AssertionError("unclosed :objects")


def _events(record) -> list[dict]:
    """An episode record's events (JSON lines)."""
    return [json.loads(line) for line in record.read_text().splitlines()]


class NoObjects(ObservationFormalizer):
    """Right facts and goal, never an (:objects ...) section."""

    name = "no-objects"

    def propose(self, context):
        files = super().propose(context)
        return Files(files.domain, _strip_objects(files.problem))


class SameAnswer(ObservationFormalizer):
    """After its first answer, the same files on every call (a model that ignores feedback)."""

    name = "same-answer"

    def __init__(self, broken: Files) -> None:
        super().__init__("coin-collector")
        self.broken, self.calls = broken, 0

    def propose(self, context):
        self.calls += 1
        return self.broken


class UnseenCoin(ObservationFormalizer):
    """Asserts a coin in a room next to the start before any coin is seen, goal: hold it."""

    name = "unseen-coin"

    def propose(self, context):
        files = super().propose(context)
        problem = files.problem
        if "(in coin" in problem:
            return files
        room = re.search(r"\(connected \S+ (\S+) \S+\)", problem).group(1)
        problem = problem.replace("(:init", f"(:init (in coin {room})", 1)
        if "coin - item" not in problem:
            problem = re.sub(r"- room", "- room\n    coin - item", problem, count=1)
        problem = re.sub(r"\(:goal .*\)\)\s*$", "(:goal (holding coin)))\n", problem, flags=re.S)
        return Files(files.domain, problem)


def test_objects_are_declared_typed_by_the_predicates_and_a_name_of_two_types_is_left_alone():
    problem = """(define (problem p) (:domain coin-collector)
      (:init (at kitchen) (connected kitchen pantry north) (in coin pantry) (at coin))
      (:goal (holding coin)))"""
    files, fixes = declare_objects(Files(DOMAIN, problem))
    assert fixes == ["problem: declared kitchen - room", "problem: declared pantry - room",
                     "problem: declared north - direction"]
    assert "(:objects kitchen - room pantry - room north - direction)" in files.problem
    assert "coin -" not in files.problem   # used as an item and as a room: no guess


def test_declare_objects_repairs_a_problem_file_without_objects():
    without = run_episode(make("coin-collector", rooms=3), NoObjects(), seed=1,
                          limits=Limits(max_solver_retries=2))
    assert not without.won and without.metrics.abort_reason.startswith("solver errors")
    assert "undeclared-object" in without.errors[0]["message"]
    helped = run_episode(make("coin-collector", rooms=3), NoObjects(), seed=1,
                         declare_objects=True, limits=Limits(max_solver_retries=2))
    assert helped.won and helped.metrics.objects_declared > 0
    assert helped.metrics.solver_errors == 0
    # exactly its mistake: the facts and goals planned are the reader's (objects it declared
    # but used in no fact are not declared back: those are the only difference)
    assert all(s.fact_precision == s.fact_recall == 1.0 and not s.missing_goals
               and not s.extra_goals for s in helped.scores)


def test_an_identical_refused_answer_never_reaches_the_planner_twice(tmp_path):
    env = make("coin-collector", rooms=3)
    env.reset(0)
    truth = ObservationFormalizer().domain
    no_effect = re.sub(r":effect \(and \(not \(at \?from\)\) \(at \?to\) \(visited \?to\)\)",
                       ":effect (and)", truth)
    assert no_effect != truth
    broken = Files(no_effect, "(define (problem p) (:domain coin-collector) (:objects r - room) "
                              "(:init) (:goal (visited r)))")
    plain = SameAnswer(broken)
    before = run_episode(make("coin-collector", rooms=3), plain, seed=0,
                         limits=Limits(max_solver_retries=3))
    assert before.metrics.planner_calls == 4 == plain.calls    # the same file planned 4 times
    record = tmp_path / "fresh.jsonl"
    fresh = SameAnswer(broken)
    after = run_episode(make("coin-collector", rooms=3), fresh, seed=0,
                        limits=Limits(max_solver_retries=3, max_repeated_answers=4),
                        fresh_answers=True, record=record)
    # planned once; each repeat asked anew without spending a solver retry, up to the
    # repeats' own bound, then the episode stops with its own reason
    assert after.metrics.planner_calls == 1 and after.metrics.solver_errors == 1
    assert after.metrics.repeated_answers == 5 == fresh.calls - 1
    assert after.metrics.abort_reason.startswith("repeated answers: limit reached")
    events = _events(record)
    repeats = [e for e in events if e["type"] == "repeated-answer"]
    assert len(repeats) == 5
    assert "same as one you gave before, which was refused" in repeats[0]["message"]
    assert len([e for e in events if e["type"] == "files"]) == 1
    # the refusal in full, not its heading alone: every line the planner said is repeated
    [refusal] = [e["message"] for e in events if e["type"] == "solver-error"]
    assert len(refusal.strip().splitlines()) > 1
    assert all(line.strip() in repeats[0]["message"] for line in refusal.strip().splitlines())


def test_through_formalize_and_plan_a_repeated_answer_spends_no_retry():
    """The same contract through the Python API: solver_retries=1 plans the refused file
    once, the repeats are asked anew (not retries) up to their bound, and each is said in
    the diagnostics."""
    from pddlkit.formalizers.api import MAX_REPEATED_ANSWERS, formalize_and_plan

    env = make("coin-collector", rooms=3)
    obs, _ = env.reset(0)
    broken = Files(DOMAIN, "(define (problem p) (:domain coin-collector) (:objects r - room) "
                           "(:init) (:goal (visited r)))")
    same = SameAnswer(broken)
    done = formalize_and_plan(obs, llm=same, env=env, solver_retries=1, fresh_answers=True)
    assert done.commands is None
    assert same.calls == 1 + MAX_REPEATED_ANSWERS + 1
    said = [d for d in done.diagnostics if "same as one you gave before" in d]
    assert len(said) == MAX_REPEATED_ANSWERS + 1


def test_files_whose_plan_the_world_refused_are_not_planned_again():
    """The unseen coin: 'take coin' fails in the world; the same files are asked anew."""
    plain = run_episode(make("coin-collector", rooms=3), UnseenCoin(), seed=2,
                        limits=Limits(max_simulation_retries=2))
    fresh = run_episode(make("coin-collector", rooms=3), UnseenCoin(), seed=2,
                        limits=Limits(max_simulation_retries=2), fresh_answers=True)
    assert plain.metrics.simulation_errors >= 1
    failed = [e for e in plain.errors if e["kind"] == "simulation"]
    assert failed and "coin" in failed[0]["message"].lower()
    assert fresh.metrics.repeated_answers >= 1
    # with the help, no file whose plan failed is planned a second time
    planned = [(f.domain, f.problem) for f in fresh.files]
    assert len(planned) == len(set(planned))


def test_the_small_model_preset_is_named_in_every_row():
    from pddlkit.agents import get_agent, run_job

    spec = get_agent("pddlego")
    rows = run_job(spec, env="coin-collector", llm="standin:pddlego:noisy:0.3", seeds=[0, 1],
                   options=spec.make_options({"small_model": True}), env_options={"rooms": 3})
    for row in rows:
        data = row.as_dict()
        assert data["helps"] == ("repair+declare-objects+fresh-answers+fact-memory+"
                                 "problem-only+refuted-facts")
        assert ("helps: repair, declare-objects, fresh-answers, fact-memory, problem-only, "
                "refuted-facts" in data["summary"])
    plain = run_job(spec, env="coin-collector", llm="standin:pddlego:noisy:0.3", seeds=[0],
                    env_options={"rooms": 3})
    assert plain[0].as_dict()["helps"] == "none"
    assert "helps: none (the paper's loop)" in plain[0].as_dict()["summary"]


def test_with_a_frozen_domain_problem_only_asks_for_the_problem_file_alone():
    """A scripted model answering {"pf": ...}: the prompt shows the frozen domain and asks for
    the problem file only, the constrained grammar is the problem file's, and the files
    planned are the frozen domain with the model's problem."""
    from pddlkit.formalizers.llm_formalizer import LLMFormalizer
    from pddlkit.llm.scripted import ScriptedLLM
    from pddlkit.pddl.grammars import problem_answer_grammar
    from pddlkit.pddl.reader import parse_domain

    env = make("coin-collector", rooms=3)
    reader = ObservationFormalizer()
    problems = []

    def answer(messages):
        # the right problem for the start of seed 0, written as the model would
        env0 = make("coin-collector", rooms=3)
        obs, _ = env0.reset(0)
        known = reader.reader.read(env0.task, [("look around", obs)], [])
        problems.append(messages[-1]["content"])
        return json.dumps({"pf": reader.problem(known)})

    llm = ScriptedLLM(answer)
    formalizer = LLMFormalizer(llm, "coin-collector", constrained=True)
    result = run_episode(env, formalizer, seed=0, domain=DOMAIN, problem_only=True,
                         limits=Limits(action_budget=1, max_solver_retries=0))
    assert "The domain file is fixed; do not write it." in problems[0]
    assert '{"pf": "..."}' in problems[0]
    assert result.files and result.files[0].domain == DOMAIN
    request = llm.requests[0]
    grammar = request.constraint
    assert grammar is not None and grammar.name == "problem file"
    assert grammar.accepts(json.dumps({"pf": result.files[0].problem}))
    assert problem_answer_grammar(parse_domain(DOMAIN)).accepts(
        json.dumps({"pf": result.files[0].problem}))


def test_a_fact_the_world_refuted_is_kept_out_of_later_problem_files(tmp_path):
    """The unseen coin again, with refuted_facts: 'take coin' fails, the environment says
    (in coin ROOM) is false (info["failed"]), and no later file the planner gets asserts it."""
    record = tmp_path / "refuted.jsonl"
    result = run_episode(make("coin-collector", rooms=3), UnseenCoin(), seed=2,
                         limits=Limits(max_simulation_retries=2), refuted_facts=True,
                         record=record)
    events = _events(record)
    refuted = [e for e in events if e["type"] == "facts-refuted"]
    assert refuted and refuted[0]["facts"][0].startswith("(in coin ")
    fact = refuted[0]["facts"][0]
    sim = [e for e in events if e["type"] == "simulation-error"]
    assert "false in the world" in sim[0]["message"] and fact in sim[0]["message"]
    first_failure = events.index(refuted[0])
    later = [e for e in events[first_failure:] if e["type"] == "files"]
    assert later and all(fact not in " ".join(e["problem"].split()) for e in later)
    assert result.metrics.facts_refuted >= 1 and result.metrics.facts_kept_out >= 1
    # exactly its mistake: nothing else of the reader's files is removed
    assert all(s.fact_recall == 1.0 for s in result.scores[1:])


def test_samples_use_the_first_answer_that_passes_check():
    """Three answers per request: an unreadable one, one that fails check (no objects), one
    that checks; the third is used, every draw is a call with its own seed."""
    from pddlkit.formalizers.llm_formalizer import LLMFormalizer
    from pddlkit.llm.scripted import ScriptedLLM

    env = make("coin-collector", rooms=3)
    obs, _ = env.reset(0)
    reader = ObservationFormalizer()
    right = reader.reader.problem(reader.reader.read(env.task, [("look around", obs)], []))
    answers = ["I think the answer is obvious.",
               json.dumps({"df": DOMAIN, "pf": _strip_objects(right)}),
               json.dumps({"df": DOMAIN, "pf": right})]
    llm = ScriptedLLM(answers)
    formalizer = LLMFormalizer(llm, "coin-collector", samples=3)
    result = run_episode(env, formalizer, seed=0, limits=Limits(action_budget=1))
    assert llm.calls == 3 and formalizer.samples_drawn == 3 and formalizer.samples_used == [3]
    assert [r.seed for r in llm.requests] == [None, 1, 2]
    assert result.files[0].problem == right.strip() and result.metrics.solver_errors == 0


def test_samples_with_a_stand_in_are_refused_not_dropped():
    from pddlkit.agents import AgentError, get_agent, run_job

    spec = get_agent("pddlego")
    try:
        run_job(spec, env="coin-collector", llm="standin:pddlego:noisy", seeds=[0],
                options=spec.make_options({"samples": 3}))
    except AgentError as exc:
        assert "--samples 3" in str(exc)
    else:
        raise AssertionError("samples with a stand-in was dropped in silence")


def test_the_benchmark_s_preset_rows_name_the_helps_they_measured(monkeypatch, tmp_path):
    """The household's six helps joined ``--small-model`` on 2026-11-28: the benchmark's
    ``preset`` row is now what ``preset-focus`` measured, and ``preset-before`` spells out
    the set the rows called ``preset`` before that date measured."""
    from pddlkit.agents import get_agent
    from pddlkit.formalizers.agents import helps

    small_model = benchmark_script("small_model", monkeypatch)

    spec = get_agent("pddlego")
    _check_merged_spans(small_model, tmp_path)
    # issue 73: the helps cell sums how often each help acted over the rows (0 kept)
    assert small_model.acted_helps([{"helps_acted": "repair 2, novel-goals 0"},
                                    {"helps_acted": "repair 1, novel-goals 0"}]) == \
        "repair 3, novel-goals 0"
    assert small_model.acted_helps([{"helps": "constrained"}]) == ""   # older rows

    def used(row: str) -> list[str]:
        flags = [a[2:].replace("-", "_") for a in small_model.ROWS[row][1]
                 if a.startswith("--") and a != "--domain"]
        return helps(spec.make_options({flag: True for flag in flags}), "local:x")

    assert used("preset") == used("preset-here")   # --here-facts joined the preset
    # --schema-check joined the preset on 2026-12-02, --predicate-slots and --schema-slots
    # on 2026-12-03, --place-goals later that day, --refused-steps on 2026-12-06,
    # --final-effects on 2026-12-07 (they act only where the model writes the domain, so the
    # frozen-domain rows leave them out of their helps column)
    assert used("preset-focus") == [h for h in used("preset") if h not in (
        "here-facts", "schema-check", "predicate-slots", "schema-slots", "place-goals",
        "refused-steps", "final-effects")]
    assert used("preset-before") == ["modular", "repair", "declare-objects", "fresh-answers",
                                     "fact-memory", "problem-only", "refuted-facts",
                                     "novel-goals", "local-facts", "constrained"]
    assert used("preset-plus")[-4:] == ["typed-objects", "ask-missing", "world-literals",
                                        "constrained"]


def _check_merged_spans(small_model, folder) -> None:
    """``--merge`` pools rows kept seed by seed (one run per seed, so a stopped session
    loses one episode at most): runs that follow on read as one span of seeds."""
    row = {"won": True, "llm_calls": 4, "prompt_tokens": 100, "completion_tokens": 10,
           "loop_seconds": 60.0, "helps": "constrained"}
    for first in (0, 1, 2, 5):
        (folder / f"paper-{first}-{first}.json").write_text(json.dumps({
            "row": "paper", "where": "CoinCollector 3 rooms", "first": first, "last": first,
            "budget": 30, "model": "m", "commit": "abc", "result": {
                "rows": [row], "calls": [], "seconds": 60.0, "evaluated": [0, 0.0]}}))
    table = small_model.merged(folder)
    assert "| paper | 0..2, 5..5 | 4/4 | - | 16 |" in table, table
    # the random floor's row and the model's on the same seeds, kept in one folder, are two
    # files (the floor's record was overwritten by the model's when they shared a name)
    names = {small_model.stem(m, "CoinCollector 3 rooms", "learned", 1000, 1021)
             for m in ("random", "random:1", small_model.DEFAULT_MODEL)}
    assert len(names) == 3 and "CoinCollector-3-rooms-learned-1000-1021" in names, names
    # issue 75: what the learned domain cost is its own column; - for a domain no model learnt
    learnt = {"learning_episodes": 3, "learning_seconds": 264.2, "learning_tokens": 32084}
    assert small_model.learning_cell([learnt, learnt]) == "3 episodes, 264 s, 32084 tokens"
    assert small_model.learning_cell([{"domain_source": "reference (x)"}]) == "-"


class WrongExit(ObservationFormalizer):
    """Asserts an exit where the start room has none, ``(connected kitchen ghost west)``, and
    asks to go through it (Qwen's ``(connected corridor kitchen east)``, CoinCollector 3 rooms
    seed 16: the move east failed twice with no literal named, and the episode was lost)."""

    name = "wrong-exit"

    def propose(self, context):
        files = super().propose(context)
        problem = files.problem.replace("(:init", "(:init (connected kitchen ghost west)", 1)
        problem = re.sub(r"- room", "- room\n    ghost - room", problem, count=1)
        problem = re.sub(r"\(:goal .*\)\)\s*$", "(:goal (at ghost)))\n", problem, flags=re.S)
        return Files(files.domain, problem)


def test_a_pattern_the_world_refutes_keeps_every_fact_it_matches_out(tmp_path):
    """"You can't move west: there is no exit in that direction." names no literal (the
    command binds no ``?to``): the world says ``{"pattern": "(connected kitchen ?to west)",
    "holds": false}``, and with refuted_facts no later file asserts an exit west of the
    kitchen, so the move west is not tried again."""
    env = make("coin-collector", rooms=3)
    env.reset(seed=16)
    step = env.step("move west")
    assert step.info["failed"] == {"pattern": "(connected kitchen ?to west)", "holds": False}
    record = tmp_path / "pattern.jsonl"
    run_episode(make("coin-collector", rooms=3), WrongExit(), seed=16,
                limits=Limits(max_simulation_retries=2, max_solver_retries=1),
                refuted_facts=True, record=record)
    events = _events(record)
    refuted = [e for e in events if e["type"] == "facts-refuted"]
    assert refuted and refuted[0]["facts"] == ["(connected kitchen ?to west)"]
    sim = [e for e in events if e["type"] == "simulation-error"]
    assert "false in the world for every ?to" in sim[0]["message"]
    later = [e for e in events[events.index(refuted[0]):] if e["type"] == "files"]
    assert later and all("(connected kitchen ghost west)" not in " ".join(e["problem"].split())
                         for e in later)
    moves = [e for e in events if e["type"] == "action" and e["command"] == "move west"]
    assert len(moves) == 1


def test_fact_memory_does_not_merge_back_a_placeholder_the_new_file_replaced():
    """A room assumed behind a closed door (``east_room``, as the prompts allow) is
    remembered once its plan ran; when the door opened onto the pantry and the new file says
    so, the placeholder (a name no observation used) is not merged back: it would be an
    unvisited room to plan towards for ever. A fact the new file forgot is; a file spelt
    ``( :init`` with no ``(:objects`` gets the merged facts and their objects."""
    from pddlkit.formalizers.helps.fact_memory import FactMemory

    first = ("(define (problem p) (:domain coin-collector) (:objects kitchen east_room "
             "living_room - room east north - direction) (:init (at kitchen) "
             "(connected kitchen east_room east) (has-door kitchen east_room east) "
             "(connected kitchen living_room north)) (:goal (at east_room)))")
    memory = FactMemory()
    memory.confirm(Files(DOMAIN, first))
    assert Atom("connected", ("kitchen", "east_room", "east")) in memory.facts
    later = Files(DOMAIN, "(define (problem p) (:domain coin-collector) ( :init (at kitchen) "
                          "(connected kitchen pantry east) (has-door kitchen pantry east) "
                          "(door-open kitchen pantry east)) (:goal (at kitchen)))")
    seen = ("You are in the kitchen. To the East you see a closed wooden door. To the North "
            "you see the Living Room.\nYou open the wooden door, revealing the pantry.")
    merged = memory.merge(later, seen=seen)
    assert merged.added == ["(connected kitchen living_room north)", "object kitchen - room",
                            "object living_room - room", "object north - direction"]
    assert "east_room" not in merged.files.problem
    assert "(:objects kitchen - room living_room - room north - direction)" in \
        merged.files.problem
    # without the observations, as before: every remembered fact the file lacks
    assert "(connected kitchen east_room east)" in memory.merge(later).added
    # once a file that replaced it is confirmed, the placeholder is forgotten: a later file
    # that forgets both rooms gets the pantry back, not both
    memory.confirm(later, seen=seen)
    forgetful = Files(DOMAIN, "(define (problem p) (:domain coin-collector) (:objects kitchen "
                              "- room) (:init (at kitchen)) (:goal (at kitchen)))")
    back = memory.merge(forgetful, seen=seen).added
    assert "(connected kitchen pantry east)" in back and not any("east_room" in f
                                                                  for f in back)
    # a name the observations used is no placeholder: a second apple of one type is merged
    household = open(__import__("pathlib").Path(__file__).resolve().parent.parent
                     / "domains" / "household" / "domain.pddl").read()
    apples = FactMemory()
    apples.confirm(Files(household, "(define (problem p) (:domain household) (:objects "
                                    "apple_1 - obj apple - otype) (:init (handempty) "
                                    "(objecttype apple_1 apple)) (:goal (holds apple_1)))"))
    two = Files(household, "(define (problem p) (:domain household) (:objects apple_2 - obj "
                           "apple - otype) (:init (handempty) (objecttype apple_2 apple)) "
                           "(:goal (holds apple_2)))")
    assert "(objecttype apple_1 apple)" in apples.merge(
        two, seen="On the table, you see an apple 1 and an apple 2.").added


def test_a_door_opened_from_its_far_side_releases_the_refuted_door_fact():
    """``open-door``'s forall adds the far side's ``door-open`` with its direction left open:
    that is evidence for the refuted fact too."""
    from pddlkit.formalizers.helps.refuted_facts import RefutedFacts, fact_atom

    refuted = RefutedFacts()
    refuted.facts[fact_atom("(door-open pantry kitchen west)")] = \
        "'go west' failed: the door is closed"
    assert refuted.release(["(open-door kitchen pantry east)"], DOMAIN) == \
        ["(door-open pantry kitchen west)"]
    assert not refuted.facts


def test_a_file_the_planner_ran_out_of_time_on_is_not_refused():
    """A planner that ran out of time gave no verdict on the files: the same answer is
    planned again (with more time it may plan), not kept from the planner as refused."""
    from pddlkit.planners import PlanResult, PlanStatus

    class OutOfTime:   # a plugged-in planner that always runs out of time
        name = "out-of-time"
        solved = 0

        def config(self) -> dict:
            return {}

        def solve(self, task, timeout=None, memory_limit=None):
            OutOfTime.solved += 1
            return PlanResult(PlanStatus.TIMEOUT, self.name)

    env = make("coin-collector", rooms=3)
    obs, _ = env.reset(0)
    reader = ObservationFormalizer()
    right = reader.reader.problem(reader.reader.read(env.task, [("look around", obs)], []))
    same = SameAnswer(Files(DOMAIN, right))
    result = run_episode(make("coin-collector", rooms=3), same, seed=0, fresh_answers=True,
                         planner=OutOfTime(), limits=Limits(max_solver_retries=2))
    assert len(result.errors) == 3 and OutOfTime.solved == 3
    assert all(e["message"].startswith("out-of-time: timeout") for e in result.errors)
    assert result.metrics.planner_calls == 3 and result.metrics.repeated_answers == 0


class Scripted(ObservationFormalizer):
    """Answers the problem files given, one a call (the last again once they run out)."""

    name = "scripted"

    def __init__(self, problems: list[str]) -> None:
        super().__init__("coin-collector")
        self.problems, self.calls = problems, 0

    def propose(self, context):
        self.calls += 1
        return Files(DOMAIN, self.problems[min(self.calls, len(self.problems)) - 1])


def _problem(init: str, goal: str, objects: str = "") -> str:
    return ("(define (problem p) (:domain coin-collector) (:objects kitchen pantry ghost - room "
            f"{objects} north west - direction) (:init (at kitchen) (connected kitchen pantry "
            f"north) (has-door kitchen pantry north) {init}) (:goal {goal}))")


def test_the_steps_of_a_plan_that_then_failed_release_nothing(tmp_path):
    """CoinCollector seed 5: the door north is opened, closed, then 'closed' again, which
    refutes ``(door-open kitchen pantry north)``. The next plan opens the door and then fails
    (no exit west): the world is restored, the door is closed again, so the open that ran is
    no evidence, and the next file's door-open is still kept out. Only the step of a plan that
    did not fail releases it."""
    door_open = "(door-open kitchen pantry north)"
    problems = [_problem("", door_open),
                _problem(door_open, f"(not {door_open})"),
                _problem(door_open, f"(not {door_open})"),
                _problem("(connected kitchen ghost west)", f"(and {door_open} (at ghost))"),
                _problem(door_open, "(at pantry)")]
    record = tmp_path / "released.jsonl"
    run_episode(make("coin-collector", rooms=3), Scripted(problems), seed=5,
                limits=Limits(max_simulation_retries=2, max_solver_retries=0),
                refuted_facts=True, record=record)
    events = _events(record)
    by_step = collections.defaultdict(list)
    for e in events:
        by_step[e.get("step")].append(e)
    assert [e["facts"] for e in by_step[3] if e["type"] == "facts-refuted"] == [[door_open]]
    ran = [e["command"] for e in by_step[4] if e["type"] == "action" and not e["error"]]
    assert ran == ["open door to north"] and \
        any(e["type"] == "simulation-error" for e in by_step[4])
    assert not any(e["type"] == "facts-released" for e in by_step[4])
    kept = [f for e in by_step[5] if e["type"] == "facts-kept-out" for f in e["fixes"]]
    assert kept and door_open in kept[0]
    released = [e for e in events if e["type"] == "facts-released"]
    assert released and released[0]["step"] == 5 and released[0]["facts"] == [door_open]


def test_formalize_and_plan_remembers_the_planned_files_not_a_refused_one():
    """A call that ends refused leaves its file as the memory's last; what the caller ran
    was the plan before, so the next call confirms that one, and the refused file's
    invented exit is not remembered."""
    from pddlkit.formalizers.api import formalize_and_plan

    env = make("coin-collector", rooms=3)
    obs, _ = env.reset(5)
    opened = _problem("", "(door-open kitchen pantry north)")
    refused = _problem("(connected kitchen ghost west)", "(holding coin)",   # no coin anywhere
                       objects="coin - item")
    scripted = Scripted([opened, refused])
    first = formalize_and_plan(obs, llm=scripted, env=env, fact_memory=True)
    assert first.commands == ["open door to north"]
    pairs = [(c, env.step(c).observation) for c in first.commands]
    second = formalize_and_plan(pairs, memory=first.memory, fact_memory=True, solver_retries=0)
    assert second.commands is None and "ghost" in second.memory.previous.problem
    third = formalize_and_plan([("look", env.step("look").observation)], memory=second.memory,
                               fact_memory=True, solver_retries=0)
    remembered = third.memory.facts.facts
    assert Atom("connected", ("kitchen", "pantry", "north")) in remembered
    assert not any("ghost" in name for fact in remembered for name in fact.args)


def test_the_loop_holds_placeholders_against_what_the_episode_observed(tmp_path):
    """The observation stand-in names an unseen room ``unknown_north_of_X``; with fact memory
    on, the loop gives the merge the episode's observations, so such a placeholder, once the
    room behind it is seen, is not merged back (without them, all the facts merged on this
    episode before the fix were such placeholders)."""
    from pddlkit.formalizers.noisy import NoisyFormalizer

    record = tmp_path / "placeholders.jsonl"
    result = run_episode(make("coin-collector", rooms=9),
                         NoisyFormalizer("coin-collector", rate=1.0, seed=1), seed=1,
                         fact_memory=True, record=record)
    events = _events(record)
    assert any("unknown_north_of" in e["problem"] for e in events if e["type"] == "files")
    merged = [f for e in events if e["type"] == "facts-merged" for f in e["facts"]]
    assert result.metrics.facts_merged == len(merged) > 0
    assert not any("unknown_" in fact for fact in merged), merged


@pytest.mark.slow
@pytest.mark.parametrize("to", ["group", "benchmark"])
def test_an_interrupted_benchmark_row_leaves_its_cut_episode_in_the_record(tmp_path, to):
    """Ctrl-C (the whole process group) or a SIGINT to the benchmark alone, while a row's
    ``pddlkit run`` plays: the benchmark prints one line naming the cut episode (no
    traceback) and exits 130, and the row's record ends with that episode's ``interrupted``
    event (``subprocess.run`` killed the row a quarter of a second after the signal, so a
    seed stopped by a time limit left nothing of its calls and tokens)."""
    import sys
    import time
    from pathlib import Path

    from conftest import ctrl_c, interruptible

    benchmarks = Path(__file__).resolve().parent.parent / "benchmarks"
    record = tmp_path / "row.jsonl"
    driver = tmp_path / "driver.py"
    driver.write_text(
        f"import os, sys\nsys.path.insert(0, {str(benchmarks)!r})\n"
        "from constrained import run_cli\n"
        "from interrupt import interrupted\n"
        "try:\n"
        "    run_cli([sys.executable, '-m', 'pddlkit.cli', 'run', 'ipp', '--env', 'grasp',\n"
        f"             '--record', {str(record)!r}], 600, dict(os.environ))\n"
        "except KeyboardInterrupt as exc:\n"
        "    raise interrupted('driver', exc)\n")
    run = interruptible([sys.executable, str(driver)])
    for _ in range(600):   # the row's episode has begun
        if record.exists() or run.poll() is not None:
            break
        time.sleep(0.1)
    time.sleep(0.5)
    ctrl_c(run, to)
    out, err = run.communicate(timeout=120)
    assert run.returncode == 130 and "Traceback" not in err + out, (out, err)
    assert ("driver: interrupted (Ctrl-C); the rows above are complete; the row that was "
            "running said: pddlkit run ipp: interrupted (Ctrl-C) in the episode of seed 0 "
            "after ") in err, err
    events = _events(record)
    assert events[-1]["type"] == "interrupted" and events[-1]["episode"] == 0, events[-1]
    assert [e["type"] for e in events].count("interrupted") == 1


@pytest.mark.slow
def test_a_benchmark_row_past_its_time_limit_is_stopped_the_same_way(tmp_path, monkeypatch):
    """At ``run_cli``'s own time limit the row is sent one SIGINT (not killed at once, as
    ``subprocess.run`` did): it ends with its one line and its cut episode's event, also when
    the runner was started in the background with SIGINT ignored (the row's process is given
    SIGINT's default action; before, it inherited the ignore, ran to its end with status 0
    and failed this test in suites started with nohup). Three episodes, so the limit falls
    inside one however fast the machine."""
    import os
    import sys

    run_cli = benchmark_script("constrained", monkeypatch).run_cli
    record = tmp_path / "row.jsonl"
    done = run_cli([sys.executable, "-m", "pddlkit.cli", "run", "ipp", "--env", "grasp",
                    "--episodes", "3", "--record", str(record)], 4, dict(os.environ))
    assert done.returncode == 130 and "Traceback" not in done.stderr, done.stderr
    assert re.search(r"pddlkit run ipp: interrupted \(Ctrl-C\) in the episode of seed [012] "
                     r"after ", done.stderr), done.stderr
    events = _events(record)
    assert events[-1]["type"] == "interrupted", events[-1]
    assert [e["type"] for e in events].count("interrupted") == 1


def test_helps_that_read_simulator_failures_are_inactive_where_the_world_gives_none():
    """Issue 73: --world-literals and --refuted-facts read ``info["failed"]``, which only
    pddlkit's own simulators give (the "failures" offer). On real TextWorld the preset runs
    without them and the row says so; asked for by name, they are refused."""
    from cli_runner import run_cli

    common = ["run", "pddlego", "--modular", "--constrained", "--domain",
              "domains/coin-collector/domain.pddl", "--llm", "random", "--seed", "0",
              "--budget", "1", "--json"]
    played = run_cli(*common, "--env", "textworld", "--game", "coin", "--small-model",
                     env={"PDDLKIT_NO_CACHE": "1"})
    assert played.returncode in (0, 1), played.stderr[-2000:]
    [row] = json.loads(played.stdout)
    assert "world-literals" not in row["helps"] and "refuted-facts" not in row["helps"]
    assert "inactive here: refuted-facts, world-literals (textworld gives no " \
           "machine-readable failures" in row["summary"]

    refused = run_cli(*common, "--env", "textworld", "--game", "coin", "--world-literals")
    assert refused.returncode == 2 and "--world-literals reads the world's machine-readable " \
        "failures" in refused.stderr, refused.stderr

    native = run_cli(*common, "--env", "coin-collector", "--rooms", "3", "--small-model",
                     env={"PDDLKIT_NO_CACHE": "1"})
    [row] = json.loads(native.stdout)
    assert "world-literals" in row["helps"] and "inactive here" not in row["summary"]


def test_a_world_literal_the_models_domain_cannot_state_is_not_kept_or_said():
    """The world says what failed in its own domain's terms; over a domain the model wrote
    those names are the simulator's, not the model's: "(atlocation countertop_1)" is neither
    kept out nor said back (Qwen learning the household, dev seed 0), while over the
    reference domain the same literal is."""
    from pathlib import Path

    from pddlkit.formalizers.helps.refuted_facts import RefutedFacts

    failure = ("close countertop 1", "You are not at the countertop 1; go to it first.",
               {"failed": {"literal": "(atlocation countertop_1)", "holds": False}})
    written = ("(define (domain written) (:requirements :strips :typing) (:types receptacle)"
               " (:predicates (player ?p1 - receptacle) (closed ?r - receptacle)))")
    reference = (Path(__file__).resolve().parents[1] / "domains" / "household" /
                 "domain.pddl").read_text()
    mine = RefutedFacts().on_failed(Files(written, "(define (problem p))"), failure, None)
    assert mine is None
    theirs = RefutedFacts().on_failed(Files(reference, "(define (problem p))"), failure, None)
    assert theirs is not None and theirs.values == ["(atlocation countertop_1)"]
    assert "(atlocation countertop_1) is false in the world" in theirs.said


def test_fact_memory_puts_back_no_value_of_a_predicate_the_formalizer_keeps_one_of():
    """While the model writes the domain, the player is at one place whatever its schemas
    say; Qwen2.5-Coder 1.5B's gotolocation added ``(player ?to)`` and deleted nothing, so
    ``player`` read as add-only and fact memory merged every place the player had been back
    (the household, dev seed 0 at 9ceef74: believed at up to nine places). The formalizer
    names such predicates (``one_value``), the loop gives them to the passes, and fact
    memory takes them as fluents; a predicate no one keeps one value of is merged as
    before."""
    from pddlkit.formalizers.attempt import attempt
    from pddlkit.formalizers.base import Context, KeepsOneValue, Memory
    from pddlkit.formalizers.helps.fact_memory import FactMemory
    from pddlkit.formalizers.modular import ModularFormalizer
    from pddlkit.llm.scripted import ScriptedLLM

    domain = ("(define (domain h) (:requirements :strips :typing) (:types receptacle) "
              "(:predicates (player ?r - receptacle) (seen ?r - receptacle)) "
              "(:action gotolocation :parameters (?from - receptacle ?to - receptacle) "
              ":precondition (and) :effect (and (player ?to) (seen ?to))))")

    def problem(here: str) -> str:
        return (f"(define (problem p) (:domain h) (:objects desk_1 sofa_1 - receptacle) "
                f"(:init (player {here}) (seen {here})) (:goal (player desk_1)))")

    memory = FactMemory()
    memory.confirm(Files(domain, problem("sofa_1")))
    assert "(player sofa_1)" in memory.merge(Files(domain, problem("desk_1"))).added
    kept = memory.merge(Files(domain, problem("desk_1")), one_value=frozenset({"PLAYER"}))
    assert kept.added == ["(seen sofa_1)"]

    # the loop's attempt gives the passes the formalizer's one_value
    writing = ModularFormalizer(ScriptedLLM(["none"]), "household")
    writing.predicate_aspects = {"player": "where the player is"}
    assert isinstance(writing, KeepsOneValue)

    class Written:   # the files the model wrote, for the one call
        name = "written"

        def propose(self, context):
            return Files(domain, problem("desk_1"))

        def one_value(self):
            return {"player"}

    seen_by: list = []

    class Spy:   # a pass that keeps the context it was given
        counter, event, key = None, "spy", "spy"

        def apply(self, files, context):
            seen_by.append(context.one_value)
            return files, []

    context = Context("update", "h", Memory("go to the desk"), [], "", 1)
    attempt(Written(), context, env=None, planner="auto", timeout=10, passes=[Spy(), memory])
    assert seen_by == [frozenset({"player"})]
