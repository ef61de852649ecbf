"""The modular mode on the household (issue 46): ``typed_objects`` and ``ask_missing``.

The scripted model below makes the mistakes Qwen2.5-Coder 1.5B made on the household basic&use
with the preset (records: ``examples/real-llm/small-model-records/household-8-receptacles-
basic-use-preset-0-4.record.jsonl.gz``): it types the receptacles of "you see a cabinet 1, a
countertop 1, ..." right but writes one fact about one of them (``(heater countertop_1)``),
and reads "You are in the middle of a room." as ``(handempty)`` with ``middle`` typed as a
receptacle class, so no fact says where the agent is. After that first observation it reads
each sentence as a careful reader would. Without the two helps every problem file is
unsolvable (nothing to go to, nowhere to go from) and the episode ends at the solver retry
limit after 0 actions, as measured; with them it plays.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import atoms, texts

from pddlkit.envs import make
from pddlkit.formalizers.loop import Limits, run_episode
from pddlkit.formalizers.modular import ModularFormalizer, observed_names
from pddlkit.llm.scripted import ScriptedLLM

REPO = Path(__file__).resolve().parent.parent
DOMAIN = (REPO / "domains" / "household" / "domain.pddl").read_text()
RECEPTACLES = {"cabinet", "countertop", "desk", "drawer", "fridge", "microwave", "sinkbasin",
               "sofa", "shelf", "garbagecan", "diningtable", "sidetable", "dresser", "bed",
               "coffeemachine", "toaster", "stoveburner", "safe", "armchair", "bathtubbasin",
               "sink", "toilet", "cart", "ottoman", "laundryhamper"}


def _part(prompt: str) -> str:
    return re.search(r"Part to write: (?:the )?(\w+)", prompt).group(1)


def _name(words: str) -> str:
    return "_".join(words.lower().split())


def _known(prompt: str, predicate: str) -> list[str]:
    known = prompt.split("Known facts:", 1)[1].split("\n", 1)[0]
    return re.findall(rf"\({predicate} (\S+)\)", known)


def measured(prompt: str) -> str:
    """Qwen's household mistakes on the first observation, a careful reading after it."""
    part = _part(prompt)
    sentence = re.search(r"Sentence: (.*)", prompt).group(1) if "Sentence:" in prompt else ""
    if part == "type":
        out = []
        for word in observed_names([sentence]):
            base = word.rsplit("_", 1)[0]
            kind = ("RTYPE" if word in ("middle", "room")                # the measured slip
                    else "RECEPTACLE" if base in RECEPTACLES and word[-1].isdigit()
                    else "OBJ" if word[-1].isdigit() else "NONE")
            out.append(f"{word}={kind}")
        return " ".join(out)
    if part == "new":
        if "middle of a room" in sentence:
            return "(handempty)"                                         # measured
        if "Looking quickly around you" in sentence:
            return "(heater ?r=countertop_1)"                            # measured
        here = (_known(prompt, "atlocation") or [""])[0]
        found = re.match(r"You arrive at the (\w+ \d+)\.", sentence)
        if found:
            return f"(atlocation ?r={_name(found.group(1))})"
        found = re.match(r"The (\w+ \d+) is closed\.", sentence)
        if found:
            return f"(heater ?r={_name(found.group(1))})"                # measured
        found = re.match(r"(?:You open the|The) (\w+ \d+)(?: is open)?\.", sentence)
        if found:
            return f"(opened ?r={_name(found.group(1))})"
        found = re.match(r"You pick up the (\w+ \d+) from", sentence)
        if found:
            return f"(holds ?o={_name(found.group(1))})"
        found = re.match(r"(?:On the (\w+ \d+), you|In it, you) see (.*)\.", sentence)
        if found:
            where = _name(found.group(1)) if found.group(1) else here
            things = re.findall(r"(\w+ \d+)", found.group(2))
            return "\n".join(f"(inreceptacle ?o={_name(t)} ?r={where})" for t in things) \
                or "(handempty)"
        return "(handempty)"
    if part == "missing":   # where it is: a receptacle it has typed, as a guess would
        offered = re.search(r"Part to write: the missing facts? \((\S+)", prompt).group(1)
        said = prompt.split("What happened so far:", 1)[1]
        if offered == "openable":   # what it read as closed
            closed = re.findall(r"The (\w+ \d+) is closed", said)
            return "\n".join(f"(openable ?r={_name(c)})" for c in closed) or "none"
        name = re.search(r"a (\w+ \d+)", said)
        return f"({offered} ?r={_name(name.group(1))})" if name else "none"
    if part == "which":
        offered = re.search(r"message about: (.*)\? Answer", prompt).group(1)
        return re.split(r", | or ", offered)[0]
    if part == "goal":
        task = re.search(r"Task: put \w+ (\w+) (?:in|on) (\w+)", prompt)
        thing, place = task.group(1), task.group(2)
        offered = prompt.split("nearest first:\n", 1)[1].split("\nPart to write", 1)[0]
        if offered.startswith("(none"):   # no goal reachable: where the task ends (measured)
            return f"(:goal (atlocation {place}_1))"
        goals = offered.splitlines()
        for wanted in (rf"\(inreceptacle {thing}_\d+ {place}_\d+\)", rf"\(holds {thing}_\d+\)",
                       r"\(opened ", r"\(atlocation "):
            pick = next((g for g in goals if re.match(wanted, g)), None)
            if pick:
                return f"(:goal {pick})"
        return f"(:goal {goals[0]})"
    raise AssertionError(f"unexpected part {part}: {prompt[-300:]}")


def room_as_a_place(prompt: str) -> str:
    """The other measured slip: "the middle of a room" typed as two receptacles, and the
    goal that goes to one of them ("go to room": "You don't see any room here.")."""
    part = _part(prompt)
    if part == "type" and "middle of a room" in prompt.split("Sentence:", 1)[1]:
        return "middle=RECEPTACLE room=RECEPTACLE"
    if part == "goal" and "\n(atlocation room)\n" in prompt:
        return "(:goal (atlocation room))"
    return measured(prompt)


def _play(seed: int, model=measured, **helps) -> tuple:
    formalizer = ModularFormalizer(ScriptedLLM(lambda m: model(m[-1]["content"])),
                                   "household", novel_goals=True, **helps)
    env = make("household", receptacles=8, difficulty="basic&use")
    events: list = []
    result = run_episode(env, formalizer, seed=seed, domain=DOMAIN,
                         limits=Limits(action_budget=30, max_solver_retries=3),
                         on_event=lambda kind, data: events.append((kind, data)))
    return result, formalizer, events


def test_without_the_helps_the_measured_mistakes_leave_every_file_unsolvable():
    result, _formalizer, _events = _play(1)
    assert not result.won and result.metrics.actions == 0
    assert "solver" in (result.metrics.abort_reason or "")


def test_typed_objects_and_ask_missing_repair_exactly_those_mistakes_and_say_so():
    result, formalizer, events = _play(1, typed_objects=True, ask_missing=True)
    assert result.metrics.actions > 0, result.metrics.abort_reason
    declared = [f for kind, data in events if kind == "objects-declared" for f in data["fixes"]]
    assert any("cabinet_1 - receptacle" in f and "no fact names it" in f for f in declared)
    asked = [c for c in formalizer.calls if c.part == "missing atlocation"]
    assert len(asked) == 1 and asked[0].outcome == "used"
    assert {c.part for c in formalizer.calls if c.part.startswith("missing ")} <= {
        "missing atlocation", "missing openable"}   # openable: once every place was visited
    # the first file that planned holds the asked fact and declares the typed receptacles
    planned = next(f for f in result.files if "(atlocation cabinet_1)" in f.problem)
    assert "sinkbasin_1 - receptacle" in planned.problem
    # middle was typed as a receptacle class: declared as one, never as a place to be
    assert "middle - rtype" in planned.problem and "(atlocation middle)" not in planned.problem


@pytest.mark.parametrize("seed", [1, 2])
def test_with_both_helps_the_measured_reader_wins_a_game_it_lost(seed):
    """Seed 2's vase is in a closed drawer: found only after every place was visited and the
    ``missing`` part asked which receptacles can be opened."""
    result, formalizer, _events = _play(seed, typed_objects=True, ask_missing=True)
    assert result.won, result.metrics.abort_reason
    if seed == 2:
        asked = [c for c in formalizer.calls if c.part == "missing openable"]
        assert len(asked) == 1 and asked[0].outcome == "used"
        assert "(openable drawer_2)" in result.files[-1].problem


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3, 4])
def test_world_literals_correct_the_facts_from_the_world_s_answer_and_win(seed):
    """"The cabinet 1 is closed." after a put: the world says ``(opened cabinet_1)`` failed,
    and the failed step's precondition ``(or (not (openable ?r)) (opened ?r))`` then says the
    cabinet can be opened. Asked which predicate, the reader (as Qwen did) names one that
    takes away where the agent is."""
    lost, _formalizer, _events = _play(seed, typed_objects=True, ask_missing=True)
    assert not lost.won
    result, formalizer, events = _play(seed, typed_objects=True, ask_missing=True,
                                       world_literals=True)
    assert result.won, result.metrics.abort_reason
    corrected = [f for kind, data in events if kind == "facts-corrected" for f in data["facts"]]
    assert "(openable cabinet_1)" in corrected
    assert not any(c.part == "correction" for c in formalizer.calls)


def test_each_help_alone_is_not_enough_for_those_mistakes():
    result, _formalizer, _events = _play(1, typed_objects=True)   # still nowhere to go from
    assert not result.won and result.metrics.actions == 0
    result, _formalizer, _events = _play(1, ask_missing=True)     # only where facts name
    assert not result.won


def test_the_missing_part_takes_one_fact_of_its_predicate_or_none_under_its_grammar():
    formalizer = ModularFormalizer(ScriptedLLM(lambda m: "none"), "household", ask_missing=True)
    formalizer.fixed_domain = DOMAIN
    formalizer.name_types = {"cabinet_1": "receptacle", "middle": "rtype", "creditcard_1": "obj"}
    from pddlkit.formalizers.base import Context, Memory, SOLVER_ERROR

    context = Context(kind=SOLVER_ERROR, env_id="household", valid_actions=[], n_actions=0,
                      memory=Memory("put some cd in cabinet.", [
        ("look", "You see a cabinet 1 and a creditcard 1. You are in the middle of a room.")]),
        signatures="", error="why no plan:\n  - (gotolocation ?from ?to) can never fire: its "
        "precondition (atlocation ?from) is never true: no reachable state has one")
    grammar = formalizer._missing_grammar("atlocation", context)
    assert grammar.accepts("(atlocation ?r=cabinet_1)") and grammar.accepts("none")
    assert not grammar.accepts("(atlocation ?r=middle)")         # typed as a class
    assert not grammar.accepts("(atlocation ?r=creditcard_1)")   # an object, not a receptacle
    assert not grammar.accepts("(holds ?o=creditcard_1)")        # another predicate
    kept, _ = formalizer._read("missing atlocation", "(atlocation ?r=cabinet_1)", context, {})
    assert kept == ["(atlocation cabinet_1)"]
    kept, _ = formalizer._read("missing atlocation", "(atlocation?r= cabinet_1)", context, {})
    assert kept == ["(atlocation cabinet_1)"]       # measured: no space before the label
    kept, why = formalizer._read("missing atlocation", "none", context, {})
    # an answer, not drawn again; where the agent is, a placeholder holds (see below)
    assert kept == ["(atlocation unknown_receptacle)"] and "placeholder" in why[0]
    kept, why = formalizer._read("missing openable", "none", context, {})
    assert kept == [] and why == ["the model said none"]   # not single-valued: nothing
    kept, why = formalizer._read("missing atlocation", "(atlocation ?r=desk_9)", context, {})
    assert kept is None and "desk_9" in why[0]
    # asked at most MISSING_ASKS times per predicate; a predicate some fact holds is not asked
    assert formalizer._missing_predicate(context.error) == "atlocation"
    formalizer._strategy("ask_missing").asked["atlocation"] = 2
    assert formalizer._missing_predicate(context.error) is None
    formalizer._strategy("ask_missing").asked.clear()
    formalizer.base = atoms(["(atlocation cabinet_1)"])
    assert formalizer._missing_predicate(context.error) is None


def test_the_helps_are_options_named_in_the_row_and_refused_without_modular():
    from pddlkit.agents import AgentError, get_agent, run_job
    from pddlkit.formalizers.agents import SMALL_MODEL, helps

    spec = get_agent("pddlego")
    options = spec.make_options({"modular": True, "typed_objects": True,
                                 "ask_missing": True, "world_literals": True})
    assert helps(options, "local:x") == ["modular", "typed-objects", "ask-missing",
                                         "world-literals"]
    assert {"typed_objects", "ask_missing", "world_literals"} <= set(SMALL_MODEL)
    preset = helps(spec.make_options({"small_model": True}), "local:x")
    assert preset[-13:] == ["typed-objects", "ask-missing", "world-literals", "task-goals",
                            "command-facts", "task-focus", "here-facts", "schema-check",
                            "predicate-slots", "schema-slots", "place-goals", "refused-steps",
                            "final-effects"]
    assert helps(spec.make_options({"small_model": True, "typed_objects": True}),
                 "local:x") == preset               # named once, not twice
    assert not {"typed-objects", "command-facts"} & set(   # a stand-in writes whole files
        helps(spec.make_options({"small_model": True}), "standin:pddlego"))
    for flag in ("typed_objects", "ask_missing", "world_literals"):
        with pytest.raises(AgentError, match=f"--{flag.replace('_', '-')}.*--modular"):
            run_job(spec, env="household", llm="local:x",
                    options=spec.make_options({flag: True}))


def test_a_typed_name_the_world_says_is_not_there_is_withdrawn_and_only_the_goal_asked():
    """Without the withdrawal, the correction part took away where the agent was (the failed
    step's precondition ``(atlocation ...)``) and no plan moved again."""
    result, formalizer, events = _play(1, room_as_a_place, typed_objects=True, ask_missing=True)
    failed = [d["command"] for kind, d in events if kind == "simulation-error"]
    assert failed == ["go to room"]                       # once: never offered again
    assert formalizer.name_types["room"] == "NONE"
    assert not any(c.part == "correction" for c in formalizer.calls)
    assert result.won, result.metrics.abort_reason
    last = result.files[-1].problem
    assert "room - receptacle" not in last and "middle - receptacle" in last


def test_a_name_some_fact_holds_or_the_model_did_not_type_is_not_withdrawn():
    formalizer = ModularFormalizer(ScriptedLLM(lambda m: "none"), "household",
                                   typed_objects=True)
    formalizer.fixed_domain = DOMAIN
    formalizer.name_types = {"room": "receptacle", "desk_1": "receptacle"}
    formalizer._strategy("typed_objects").declared = {"room", "desk_1"}
    formalizer.base = atoms(["(atlocation desk_1)"])
    formalizer.failed("(gotolocation room desk_1)", {"failed": {"object": "desk_1"}})
    assert formalizer.name_types["desk_1"] == "receptacle" and formalizer._withdrawn is None
    formalizer.failed("(gotolocation desk_1 sofa_1)", {"failed": {"object": "sofa_1"}})
    assert formalizer._withdrawn is None
    formalizer.failed("(gotolocation desk_1 room)", {"failed": {"literal": "(x)"}})
    assert formalizer._withdrawn is None
    formalizer.typed_objects = False
    formalizer.failed("(gotolocation desk_1 room)", {"failed": {"object": "room"}})
    assert formalizer.name_types["room"] == "receptacle"


def _world_corrections(formalizer) -> list[str]:
    """What ``world_literals`` would correct now (its strategy, formalizers/helps)."""
    return formalizer._strategy("world_literals").corrections(formalizer)


def test_world_corrections_follow_the_failed_literal_through_the_precondition():
    formalizer = ModularFormalizer(ScriptedLLM(lambda m: "none"), "household",
                                   world_literals=True)
    formalizer.fixed_domain = DOMAIN
    formalizer.base = atoms(["(atlocation cabinet_1)", "(holds cd_1)", "(opened cabinet_1)"])
    formalizer.failed("(putobject cd_1 cabinet_1)",
                      {"failed": {"literal": "(opened cabinet_1)", "holds": False}})
    assert _world_corrections(formalizer) == ["(not (opened cabinet_1))",
                                               "(openable cabinet_1)"]
    formalizer.failed("(gotolocation desk_1 cabinet_1)",
                      {"failed": {"literal": "(atlocation desk_1)", "holds": False}})
    assert _world_corrections(formalizer) == []   # the model's facts already said so
    formalizer.failed("(pickupobject cd_1 cabinet_1)", {"failed": {"object": "cd_1"}})
    assert _world_corrections(formalizer) == []   # no literal named: the model is asked
    formalizer.failed("(nosuchaction cd_1)",
                      {"failed": {"literal": "(holds cd_1)", "holds": False}})
    assert _world_corrections(formalizer) == []


def test_world_literals_drop_the_facts_about_a_thing_the_world_says_is_not_there():
    """Qwen wrote "You are in the middle of a room" as ``(heater middle)``; "go to middle":
    "You don't see any middle here." The facts about it go, and only the goal is asked."""
    formalizer = ModularFormalizer(ScriptedLLM(lambda m: "none"), "household",
                                   world_literals=True)
    formalizer.fixed_domain = DOMAIN
    formalizer.name_types = {"middle": "receptacle"}
    formalizer.base = atoms(["(atlocation countertop_1)", "(heater middle)", "(openable middle)"])
    formalizer.failed("(gotolocation countertop_1 middle)", {"failed": {"object": "middle"}})
    assert texts(formalizer.base) == ["(atlocation countertop_1)"]
    assert formalizer.world_corrected == ["(not (heater middle))", "(not (openable middle))"]
    assert formalizer.name_types["middle"] == "NONE" and formalizer._withdrawn == "middle"
    formalizer.world_literals = False           # without the option the facts stay
    formalizer.base = atoms(["(atlocation countertop_1)", "(heater middle)"])
    formalizer.failed("(gotolocation countertop_1 middle)", {"failed": {"object": "middle"}})
    assert "(heater middle)" in texts(formalizer.base) and formalizer._withdrawn is None


def test_after_an_unreadable_goal_the_planner_s_missing_predicate_is_asked_again():
    """Measured: the missing part said ``none`` once, every goal was then redrawn as refused,
    and the facts were re-read five times over while the why-no-plan still held."""
    from pddlkit.formalizers.base import Context, Memory, SOLVER_ERROR

    formalizer = ModularFormalizer(ScriptedLLM(lambda m: "none"), "household", ask_missing=True)
    formalizer.fixed_domain = DOMAIN
    why = ("why no plan:\n  - (gotolocation ?from ?to) can never fire: its precondition "
           "(atlocation ?from) is never true")

    def context(error: str) -> Context:
        return Context(kind=SOLVER_ERROR, env_id="household", valid_actions=[], n_actions=0,
                       memory=Memory("put some cd in cabinet.", []), signatures="", error=error)

    assert formalizer._targets(context(why), {}) == ["missing atlocation", "goal"]
    unreadable = "Your answer could not be read: the goal part: redrawn"
    assert formalizer._targets(context(unreadable), {}) == ["facts", "missing atlocation", "goal"]
    assert formalizer._targets(context(unreadable), {}) == ["facts", "goal"]   # asked twice
    formalizer._strategy("ask_missing").asked.clear()   # it could ask again: only the switch
    formalizer.ask_missing = False                       # stops it now
    assert formalizer._targets(context(unreadable), {}) == ["facts", "goal"]


def test_a_typed_name_only_the_goal_named_is_withdrawn_too():
    """Measured: "open" of "You open the cabinet 1." typed as a receptacle, the goal
    ``(atlocation open)`` (so it was declared by the goal, not as a typed object), "go to
    open": "You don't see any open here.", and the correction part was asked."""
    formalizer = ModularFormalizer(ScriptedLLM(lambda m: "none"), "household",
                                   typed_objects=True)
    formalizer.fixed_domain = DOMAIN
    formalizer.name_types = {"open": "receptacle"}
    formalizer.goal = "(:goal (atlocation open))"
    formalizer.base = atoms(["(atlocation cabinet_1)"])
    formalizer.failed("(gotolocation cabinet_1 open)", {"failed": {"object": "open"}})
    assert formalizer._withdrawn == "open" and formalizer.name_types["open"] == "NONE"


@pytest.mark.parametrize("literal,holds", [
    ("( )", True), ("garbage words", True), ("(opened cabinet_1", True),
    ("(nosuchpred x y)", True), ("(opened cabinet_1))(:goal (and))", True),
    ("(opened cabinet_1) (holds x)", True), ("", True), ("(atlocation desk_1)", True),
    ("(= cabinet_1 cabinet_1)", True), ("(opened cabinet_1)", "false"), (["x"], False)])
def test_a_hostile_or_useless_world_literal_changes_no_fact(literal, holds):
    """Only a ground atom of the failed step's own precondition is applied: not "=" (the
    household's answer to going where the agent already is), not another predicate, not
    text that would land in the problem file."""
    formalizer = ModularFormalizer(ScriptedLLM(lambda m: "none"), "household",
                                   world_literals=True, ask_missing=True)
    formalizer.fixed_domain = DOMAIN
    formalizer.base = atoms(["(atlocation cabinet_1)", "(holds cd_1)"])
    formalizer.failed("(putobject cd_1 cabinet_1)", {"failed": {"literal": literal,
                                                                 "holds": holds}})
    assert _world_corrections(formalizer) == []
    assert not formalizer._apply_world_corrections()
    assert texts(formalizer.base) == ["(atlocation cabinet_1)", "(holds cd_1)"]
    assert formalizer._missing_predicate("") is None     # and nothing odd breaks a read


def test_a_literal_written_loosely_is_still_read_and_a_withdrawn_name_comes_back_when_seen():
    formalizer = ModularFormalizer(ScriptedLLM(lambda m: "none"), "household",
                                   world_literals=True)
    formalizer.fixed_domain = DOMAIN
    formalizer.base = atoms(["(atlocation cabinet_1)", "(holds cd_1)"])
    formalizer.failed("(putobject cd_1 cabinet_1)",
                      {"failed": {"literal": "( Opened  cabinet_1 )", "holds": False}})
    assert _world_corrections(formalizer) == ["(openable cabinet_1)"]
    # "take ladle 1": "You don't see any ladle 1 here." -- until a sentence names it
    formalizer.name_types["ladle_1"] = "obj"
    formalizer.failed("(pickupobject ladle_1 cabinet_1)", {"failed": {"object": " ladle_1 "}})
    assert formalizer.name_types["ladle_1"] == "NONE"
    from pddlkit.formalizers.base import Context, Memory, UPDATE

    context = Context(kind=UPDATE, env_id="household", valid_actions=[], n_actions=0,
                      memory=Memory("put some ladle on countertop.", [
                          ("open drawer 1", "In it, you see a ladle 1.")]), signatures="")
    formalizer._write_facts(context, {})
    assert formalizer.name_types.get("ladle_1") != "NONE"


def test_the_missing_part_offers_only_names_typed_so():
    """Measured by an audit: with the command "look around" in the history, ``look_around``
    and the untyped ``room`` were offered as places to be."""
    from pddlkit.formalizers.base import Context, Memory, SOLVER_ERROR

    formalizer = ModularFormalizer(ScriptedLLM(lambda m: "none"), "household", ask_missing=True)
    formalizer.fixed_domain = DOMAIN
    formalizer.name_types = {"cabinet_1": "receptacle"}
    formalizer.base = atoms(["(inreceptacle cd_1 desk_1)"])
    context = Context(kind=SOLVER_ERROR, env_id="household", valid_actions=[], n_actions=0,
                      memory=Memory("put some cd in cabinet.", [
                          ("look around", "You see a cabinet 1 and a desk 1 in a room.")]),
                      signatures="", error="")
    [places] = formalizer._missing_names(context, "atlocation")
    assert sorted(places) == ["cabinet_1", "desk_1"]


def test_what_the_loop_asks_of_a_formalizer_is_a_protocol_not_a_probe():
    """Issue 74: the loop reaches a formalizer's optional capabilities through small
    runtime_checkable protocols (the modular formalizer follows the plan and reports its
    work; the whole-file LLM formalizer only reports its helps' work; the offline reader
    neither), not through hasattr probes and a read of ``failed``'s signature."""
    from pddlkit.formalizers.base import FollowsThePlan, ReportsWork
    from pddlkit.formalizers.llm_formalizer import LLMFormalizer
    from pddlkit.formalizers.observation import ObservationFormalizer

    modular = ModularFormalizer(ScriptedLLM(lambda m: "none"), "household")
    whole = LLMFormalizer(ScriptedLLM(lambda m: "none"), "household")
    offline = ObservationFormalizer("household")
    assert isinstance(modular, FollowsThePlan) and isinstance(modular, ReportsWork)
    assert isinstance(whole, ReportsWork) and not isinstance(whole, FollowsThePlan)
    assert not isinstance(offline, ReportsWork) and not isinstance(offline, FollowsThePlan)
    modular.acted["task-goals"] += 2
    modular.typed_declared = ["cabinet_1 - receptacle"]
    assert [kind for kind, _ in modular.work_done()] == ["help-acted", "objects-declared"]
    assert modular.work_done() == []        # reported once


def first_offered(prompt: str) -> str:
    """A reader that takes the first goal offered (as Qwen often did), else as measured."""
    if _part(prompt) == "goal":
        offered = prompt.split("nearest first:\n", 1)[1].split("\nPart to write", 1)[0]
        if not offered.startswith("(none"):
            return f"(:goal {offered.splitlines()[0]})"
    return measured(prompt)


def test_task_goals_offers_the_task_s_things_first_and_the_ladle_is_carried_at_once():
    helps = {"typed_objects": True, "ask_missing": True, "world_literals": True}
    wandering, _f, _e = _play(1, first_offered, **helps)
    direct, formalizer, _e = _play(1, first_offered, task_goals=True, **helps)
    assert direct.won and direct.metrics.actions <= 6, direct.metrics.abort_reason
    assert wandering.metrics.actions > 3 * direct.metrics.actions
    goals = [c.answer for c in formalizer.calls if c.part == "goal"]
    assert any("ladle_1" in g for g in goals)


def commands_slips(prompt: str) -> str:
    """The slips the household helps left, measured with Qwen2.5-Coder 1.5B (records:
    ``household-8-receptacles-basic-use-preset-plus-1-4``): receptacles typed as objects (5
    and 2 of the 8 in seeds 3 and 4), ``none`` for which receptacles can be opened (all 4
    episodes), and a thing seen on a receptacle written as held (seed 1, ``(holds
    ladle_1)``)."""
    part = _part(prompt)
    sentence = re.search(r"Sentence: (.*)", prompt).group(1) if "Sentence:" in prompt else ""
    if part == "type":
        return " ".join(f"{w}=OBJ" if w.rsplit("_", 1)[0] in ("cabinet", "drawer", "fridge",
                                                               "desk", "microwave")
                        else f"{w}={k}" for w, k in (x.split("=") for x in
                                                      measured(prompt).split()))
    if part == "missing" and "missing facts (openable" in prompt:
        return "none"
    found = re.match(r"On the (\w+ \d+), you see (.*)\.", sentence)
    if part == "new" and found:
        return "\n".join(f"(holds ?o={_name(t)})" for t in re.findall(r"(\w+ \d+)",
                                                                        found.group(2)))
    return measured(prompt)


def test_commands_are_read_through_the_action_templates():
    from pddlkit.formalizers.modular.parts import _bind_command
    from pddlkit.formalizers.prompts import env_signatures

    env = make("household", receptacles=8, difficulty="basic&use")
    env.reset(seed=2)
    signatures = env_signatures(env).by_name()
    assert _bind_command("take vase 1 from drawer 2", signatures) == (
        "pickupobject", {"?o": "vase_1", "?r": "drawer_2"})
    assert _bind_command("go to  middle of room", signatures) == (
        "gotolocation", {"?to": "middle_of_room"})
    assert _bind_command("open drawer 2", signatures) == ("openobject", {"?r": "drawer_2"})
    assert _bind_command("look", signatures) is None
    assert _bind_command("take (x) from drawer 2", signatures) is None   # not a name


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_command_facts_repair_the_slips_the_household_helps_left(seed):
    """With the household helps those slips lose; read from the valid commands in code, the
    receptacles are receptacles ("go to cabinet 1"), a drawer the agent stands at can be
    opened ("open drawer 2"), and a thing on it is there ("take ladle 1 from countertop 1")."""
    helps = dict(typed_objects=True, ask_missing=True, world_literals=True, task_goals=True)
    lost, _formalizer, _events = _play(seed, commands_slips, **helps)
    assert not lost.won
    result, formalizer, events = _play(seed, commands_slips, command_facts=True, **helps)
    assert result.won, result.metrics.abort_reason
    derived = [f for kind, data in events if kind == "facts-from-commands"
               for f in data["facts"]]
    assert "cabinet_1 - receptacle" in derived
    assert any(f.startswith("(inreceptacle ") for f in derived)
    for _kind, data in events:   # a fact read again after the facts parts is said once
        if _kind == "facts-from-commands":
            assert len(data["facts"]) == len(set(data["facts"]))


def test_a_fact_typing_a_command_s_name_otherwise_is_dropped_and_said():
    from pddlkit.formalizers.base import Context, Memory, UPDATE
    from pddlkit.formalizers.prompts import env_signatures

    env = make("household", receptacles=8, difficulty="basic&use")
    env.reset(seed=2)
    formalizer = ModularFormalizer(ScriptedLLM(lambda m: "none"), "household",
                                   command_facts=True)
    formalizer.fixed_domain = DOMAIN
    formalizer.base = atoms(["(inreceptacle cabinet_1 countertop_1)", "(atlocation middle)",
                       "(handempty)", "(holds vase_1)", "(iscool vase_1)"])
    formalizer.name_types = {"cabinet_1": "obj"}
    context = Context(UPDATE, "household", Memory("put some vase on countertop.", []),
                      ["go to cabinet 1", "open drawer 2", "take vase 1 from drawer 2", "look",
                       "take (vase) from ) drawer", "move  to "],
                      env_signatures(env), 10)
    formalizer._from_commands(context, env_signatures(env).by_name())
    facts = texts(formalizer._facts())
    assert formalizer.name_types["cabinet_1"] == "receptacle"
    assert "(inreceptacle cabinet_1 countertop_1)" not in facts
    assert "(inreceptacle cabinet_1 countertop_1)" in formalizer.command_dropped
    assert {"(atlocation drawer_2)", "(openable drawer_2)", "(inreceptacle vase_1 drawer_2)",
            "(handempty)"} <= set(facts)
    assert "(atlocation middle)" not in facts     # one place: the one the commands say
    assert "(opened drawer_2)" not in facts       # only the atoms that hold, not negations
    # seen there, written as held (measured): the domain never has both, the world says which
    assert "(holds vase_1)" not in facts and "(holds vase_1)" in formalizer.command_dropped
    assert "(iscool vase_1)" in facts             # nothing the command says excludes it
    assert formalizer._exclusive()["holds"] == {"handempty", "inreceptacle"}


def test_command_facts_is_an_option_named_in_the_row_and_refused_without_modular():
    from pddlkit.agents import AgentError, get_agent, run_job
    from pddlkit.formalizers.agents import SMALL_MODEL, helps

    spec = get_agent("pddlego")
    options = spec.make_options({"modular": True, "command_facts": True})
    assert helps(options, "local:x") == ["modular", "command-facts"]
    assert "command_facts" in SMALL_MODEL and "task_focus" in SMALL_MODEL
    with pytest.raises(AgentError, match="--command-facts.*--modular"):
        run_job(spec, env="household", llm="local:x",
                options=spec.make_options({"command_facts": True}))


def test_formalize_and_plan_takes_command_facts_from_the_env_it_is_given():
    """``formalize_and_plan(command_facts=True, env=...)`` reads that environment's valid
    commands: the receptacles the reader typed as objects are receptacles in the files."""
    from pddlkit.formalizers.api import formalize_and_plan

    env = make("household", receptacles=8, difficulty="basic&use")
    obs, _info = env.reset(seed=3)
    llm = ScriptedLLM(lambda m: commands_slips(m[-1]["content"]))
    result = formalize_and_plan(obs, llm=llm, env=env, domain=DOMAIN, modular=True,
                                typed_objects=True, command_facts=True)
    problem = result.problem or ""
    assert "drawer_1 - receptacle" in problem and "drawer_1 - obj" not in problem
    obs, _info = env.reset(seed=3)
    without = formalize_and_plan(obs, llm=ScriptedLLM(lambda m: commands_slips(
        m[-1]["content"])), env=env, domain=DOMAIN, modular=True, typed_objects=True)
    assert "drawer_1 - obj" in (without.problem or "")     # the reader's slip, unrepaired
    with pytest.raises(ValueError, match="command_facts=True.*modular=True"):
        formalize_and_plan(obs, llm=llm, env=env, domain=DOMAIN, command_facts=True)


def explorer(prompt: str) -> str:
    """Qwen's goal choice with the paper's guidance ("Always searching for the aim object
    first!!!"), measured at 4e7dcff: a place not visited, else a receptacle to open, even with
    the task's goal offered first; the slips of :func:`commands_slips` otherwise."""
    if _part(prompt) == "goal":
        offered = prompt.split("nearest first:\n", 1)[1].split("\nPart to write", 1)[0]
        if not offered.startswith("(none"):
            goals = offered.splitlines()
            pick = next((g for g in goals if g.startswith("(atlocation ")),
                        next((g for g in goals if g.startswith("(opened ")), goals[0]))
            return f"(:goal {pick})"
    return commands_slips(prompt)


@pytest.mark.parametrize("seed", [1, 3])
def test_task_focus_offers_only_the_task_s_goal_once_it_is_reachable(seed):
    """Seed 1: the ladle is on the desk, the second place visited; offered the task's goal
    first, the explorer still visits every place (17 actions); offered it alone, it carries
    the ladle (5). Seed 3: 19 actions, and 13."""
    helps = dict(typed_objects=True, ask_missing=True, world_literals=True, task_goals=True,
                 command_facts=True)
    wandering, _f, _e = _play(seed, explorer, **helps)
    focused, _formalizer, _events = _play(seed, explorer, task_focus=True, **helps)
    assert wandering.won and focused.won, focused.metrics.abort_reason
    assert focused.metrics.actions < wandering.metrics.actions


def test_task_focus_leaves_the_first_of_two_things_where_the_task_wants_it():
    """Seed 0, two credit cards: without the option the explorer put the first one on the
    countertop and went on taking and moving other things (Qwen took the card back, at
    4e7dcff); with it, the card stays and no other object is moved. (The
    game is lost either way: the reader's guess of where it starts, the cabinet, leaves the
    cabinet with the second card unvisited.)"""
    helps = dict(typed_objects=True, ask_missing=True, world_literals=True, task_goals=True,
                 command_facts=True)
    for focus in (False, True):
        _result, _formalizer, events = _play(0, explorer, task_focus=focus, **helps)
        commands = [d["command"] for k, d in events if k == "action"]
        assert "move creditcard 1 to countertop 1" in commands
        after = commands[commands.index("move creditcard 1 to countertop 1"):]
        moved_again = [c for c in after if c.startswith(("take ", "move "))
                       and not c.startswith("move creditcard 1")]
        assert bool(moved_again) is not focus, after


def test_task_focus_leaves_goals_alone_when_no_goal_names_every_task_thing():
    formalizer = ModularFormalizer(ScriptedLLM(lambda m: "none"), "household",
                                   task_focus=True)
    formalizer.fixed_domain = DOMAIN
    formalizer._task_words = {"put", "ladle", "countertop"}
    reached = [(False, 1, "(atlocation drawer_1)"), (False, 1, "(atlocation countertop_1)")]
    from pddlkit.formalizers.helps import task_focus

    assert task_focus.offer(formalizer, reached) == reached          # the ladle not seen yet
    formalizer.base = atoms(["(atlocation desk_1)", "(inreceptacle ladle_1 desk_1)", "(handempty)"])
    reached += [(False, 1, "(holds ladle_1)"), (False, 3, "(inreceptacle ladle_1 countertop_1)")]
    assert task_focus.offer(formalizer, reached) == [
        (False, 3, "(inreceptacle ladle_1 countertop_1)")]
    formalizer.base = atoms(["(atlocation countertop_1)", "(inreceptacle ladle_1 countertop_1)"])
    assert task_focus.offer(formalizer, [(False, 1, "(holds ladle_1)"),
                                         (False, 1, "(atlocation drawer_1)")]) == [
        (False, 1, "(atlocation drawer_1)")]                 # done: left there


def nowhere(prompt: str) -> str:
    """Seed 3 at 0b6ffb5: asked where it is ("You are in the middle of a room"), Qwen said
    ``none`` twice; the slips of :func:`explorer` otherwise."""
    if _part(prompt) == "missing" and "missing fact (atlocation" in prompt:
        return "none"
    return explorer(prompt)


def test_where_the_agent_is_unsaid_a_placeholder_holds_it_and_the_agent_moves(monkeypatch):
    helps = dict(typed_objects=True, ask_missing=True, world_literals=True, task_goals=True,
                 command_facts=True, task_focus=True)
    with monkeypatch.context() as patch:   # as at 0b6ffb5: none, and nothing holds the slot
        patch.setattr(ModularFormalizer, "_placeholder", lambda self, predicate: None)
        lost, _formalizer, _events = _play(3, nowhere, **helps)
    assert not lost.won and lost.metrics.actions == 0
    result, formalizer, events = _play(3, nowhere, **helps)
    assert result.won, result.metrics.abort_reason
    first = next(f.problem for f in result.files if "unknown_receptacle" in f.problem)
    assert "(atlocation unknown_receptacle)" in first
    assert "unknown_receptacle - receptacle" in first or "unknown_receptacle" in first
    commands = [d["command"] for k, d in events if k == "action"]
    assert commands[0].startswith("go to ")
    assert not any("unknown" in c for c in commands)   # never a command of its own


def test_with_command_facts_a_withdrawn_name_comes_back_only_when_a_command_names_it():
    """Measured at 0b6ffb5: "go to open" refused ("You don't see any open here."), then
    "open" typed a receptacle again from the next "You open the cabinet 1", five times in the
    row. With ``command_facts`` the sentence does not bring it back; a command would."""
    from pddlkit.formalizers.base import Context, Memory, UPDATE
    from pddlkit.formalizers.prompts import env_signatures

    env = make("household", receptacles=8, difficulty="basic&use")
    env.reset(seed=2)
    signatures = env_signatures(env)
    for command_facts, back in ((False, True), (True, False)):
        formalizer = ModularFormalizer(ScriptedLLM(lambda m: "open=RECEPTACLE"),
                                       "household", typed_objects=True,
                                       command_facts=command_facts)
        formalizer.fixed_domain = DOMAIN
        formalizer.name_types = {"open": "receptacle", "cabinet_1": "receptacle"}
        formalizer.failed("(gotolocation cabinet_1 open)", {"failed": {"object": "open"}})
        assert formalizer.name_types["open"] == "NONE"
        context = Context(UPDATE, "household", Memory("put some cd in cabinet.", [
            ("open cabinet 1", "You open the cabinet 1.")]), ["go to cabinet 1"], signatures,
            10)
        formalizer._write_facts(context, signatures.by_name())
        assert (formalizer.name_types.get("open") == "receptacle") is back
    formalizer._withdrawn_names.add("drawer_9")
    formalizer.name_types["drawer_9"] = "NONE"
    context = Context(UPDATE, "household", Memory("put some cd in cabinet.", [
        ("look", "You see a drawer 9.")]), ["go to drawer 9"], signatures, 10)
    formalizer._write_facts(context, signatures.by_name())
    assert formalizer.name_types["drawer_9"] == "receptacle"   # a command names it


def test_hostile_commands_give_no_fact_and_no_name():
    """Commands naming PDDL's or the domain's own words, or junk of any length, are read as
    nothing: the problem file declares no ``and``, ``not`` or ``receptacle`` object."""
    from pddlkit.formalizers.base import Context, Memory, UPDATE
    from pddlkit.formalizers.prompts import env_signatures

    env = make("household", receptacles=8, difficulty="basic&use")
    env.reset(seed=2)
    signatures = env_signatures(env)
    formalizer = ModularFormalizer(ScriptedLLM(lambda m: "none"), "household",
                                   command_facts=True, typed_objects=True)
    formalizer.fixed_domain = DOMAIN
    commands = ["take and from not", "go to either", "take receptacle from obj",
                "go to handempty", "take " + "x" * 5000 + " from drawer 1", "go to é", "",
                "take forall from exists", "go to (:goal (and))", "open drawer_1) (holds x"]
    context = Context(UPDATE, "household", Memory("put some cd in cabinet.", []), commands,
                      signatures, 10)
    formalizer._from_commands(context, signatures.by_name())
    assert texts(formalizer._facts()) == [] and formalizer.name_types == {}
    problem = formalizer._assemble(context, signatures.by_name()).problem
    assert "(:objects )" in problem or "(:objects)" in problem, problem


def _commands_read(commands, base=(), chunk=(), name_types=None, domain=DOMAIN):
    from pddlkit.formalizers.base import Context, Memory, UPDATE
    from pddlkit.formalizers.prompts import env_signatures

    env = make("household", receptacles=8, difficulty="basic&use")
    env.reset(seed=2)
    signatures = env_signatures(env)
    formalizer = ModularFormalizer(ScriptedLLM(lambda m: "none"), "household",
                                   command_facts=True)
    formalizer.fixed_domain = domain
    formalizer.base, formalizer.chunk = atoms(base), atoms(chunk)
    formalizer.name_types = dict(name_types or {})
    formalizer._from_commands(Context(UPDATE, "household", Memory("put some cd in cabinet.",
                                                                   []), list(commands),
                                      signatures, 10), signatures.by_name())
    return formalizer


def test_the_audit_s_command_cases():
    """From an audit of the option as a hostile environment would use it."""
    from pddlkit.formalizers.modular.parts import _bind_command
    from pddlkit.formalizers.prompts import env_signatures

    # a name no PDDL reader takes ("vasé_1") is no name: it would refuse every file
    assert _commands_read(["open vasé 1", "open drawer２"])._facts() == []
    # no command, nothing dropped: the model's own types are not the world's
    kept = _commands_read([], base=["(atlocation countertop_1)", "(handempty)"],
                          name_types={"countertop_1": "obj"})
    assert texts(kept._facts()) == ["(atlocation countertop_1)", "(handempty)"]
    assert kept.command_dropped == []
    # one name at two types: left alone
    two = _commands_read(["take drawer 1 from drawer 1"])
    assert texts(two._facts()) == [] and "drawer_1" not in two.name_types
    # fixed words match whole words
    env = make("household", receptacles=8, difficulty="basic&use")
    env.reset(seed=2)
    signatures = env_signatures(env).by_name()
    assert _bind_command("move potato 1 to countertop 1", signatures) == (
        "putobject", {"?o": "potato_1", "?r": "countertop_1"})
    assert _bind_command("go toaster 1", signatures) is None
    assert _bind_command("take " + "x " * 200 + "from drawer 1", signatures) is None
    # a stale place in the chunk goes even when the command's place is there too
    stale = _commands_read(["take vase 1 from drawer 1"],
                           chunk=["(atlocation middle)", "(atlocation drawer_1)"])
    assert "(atlocation middle)" not in texts(stale._facts())
    assert "(atlocation drawer_1)" in texts(stale._facts())
    # a learned domain's precondition is the model's guess: nothing is read from it
    learned = _commands_read(["take vase 1 from drawer 1"], domain=None)
    assert texts(learned._facts()) == [] and learned.name_types == {}


def test_a_subtype_is_not_a_wrong_type():
    """A domain with ``room - location``: the command's room is a location too."""
    domain = """(define (domain d) (:requirements :strips :typing)
      (:types location - object receptacle obj - location)
      (:predicates (atlocation ?r - location) (inreceptacle ?o - obj ?r - receptacle)
                   (handempty) (holds ?o - obj) (openable ?r - receptacle))
      (:action gotolocation :parameters (?from - location ?to - receptacle)
        :precondition (atlocation ?from) :effect (and (atlocation ?to)
                                                      (not (atlocation ?from))))
      (:action openobject :parameters (?r - receptacle)
        :precondition (and (atlocation ?r) (openable ?r)) :effect (and))
      (:action pickupobject :parameters (?o - obj ?r - receptacle)
        :precondition (and (atlocation ?r) (inreceptacle ?o ?r) (handempty))
        :effect (and (holds ?o) (not (handempty)) (not (inreceptacle ?o ?r)))))"""
    read = _commands_read(["open drawer 1", "go to cabinet 1"],
                          base=["(atlocation drawer_1)", "(atlocation cabinet_1)"],
                          domain=domain)
    facts = texts(read._facts())
    assert "(atlocation drawer_1)" in facts and "(openable drawer_1)" in facts
    assert read.command_dropped == ["(atlocation cabinet_1)"]   # replaced: single-valued


def _slotted() -> ModularFormalizer:
    """A household formalizer while the model writes the domain (``predicate_slots``), with
    Qwen's predicates of dev seed 0 at 3e72055: where the player is, where each thing is,
    what the player holds."""
    from pddlkit.formalizers.atoms import Signature

    formalizer = ModularFormalizer(ScriptedLLM(lambda m: "none"), "household",
                                   predicate_slots=True)
    formalizer.predicates = [Signature.read("(player ?r - receptacle)"),
                             Signature.read("(thing ?o - obj ?r - receptacle)"),
                             Signature.read("(holds ?o - obj)")]
    formalizer.predicate_aspects = {"player": "where the player is",
                                    "thing": "where each thing is",
                                    "holds": "what the player holds"}
    return formalizer

def test_a_thing_read_as_held_is_no_longer_believed_where_it_was():
    """While the model writes the domain (``predicate_slots``): a new fact of what the
    player holds, or of where a thing is, drops what the older facts said of that thing's
    whereabouts (a thing held is at no place, and at one place at a time), whatever the
    model's schemas say. Qwen2.5-Coder 1.5B learning the household's domain, dev seed 0 at
    3e72055: its pickupobject deleted nothing, the cd taken was believed on the countertop
    still, and the put that followed seemed to change nothing. Over a frozen domain the
    schemas alone say it (nothing dropped)."""
    formalizer = _slotted()
    formalizer._signatures_seen = {
        "pickupobject": ((("?o", "obj"), ("?r", "receptacle")), "take {o} from {r}"),
        "gotolocation": ((("?from", "receptacle"), ("?to", "receptacle")), "go to {to}")}
    assert formalizer._whereabouts() == {"thing": 0, "holds": 0}
    formalizer.base = atoms(["(player countertop_1)", "(thing cd_1 countertop_1)",
                             "(thing sponge_1 countertop_1)"])
    formalizer.chunk = atoms(["(holds cd_1)"])
    facts = texts(formalizer._facts())
    assert "(thing cd_1 countertop_1)" not in facts and "(holds cd_1)" in facts
    assert "(thing sponge_1 countertop_1)" in facts and "(player countertop_1)" in facts
    formalizer.base = atoms(["(player countertop_1)", "(holds cd_1)"])
    formalizer.chunk = atoms(["(thing cd_1 countertop_1)"])
    assert texts(formalizer._facts()) == ["(player countertop_1)", "(thing cd_1 countertop_1)"]
    formalizer.fixed_domain = DOMAIN
    formalizer.chunk = atoms(["(thing cd_1 countertop_1)"])
    assert "(holds cd_1)" in texts(formalizer._facts())


def test_a_sentence_that_says_a_thing_was_put_somewhere_asks_where_it_is():
    """"You move the cd 1 to the countertop 1." states where the cd is: with
    ``predicate_slots`` its facts of where each thing is are asked for once more when the
    facts read from it hold none (Qwen2.5-Coder 1.5B learning the household's domain, dev
    seed 0 at fb180f2, read it as ``(hot cd_1) (player countertop_1)``: the cd was believed
    held still, and the listed "take cd 1 from countertop 1" then refuted a take that
    required the hand free of it). Where nothing is put, nothing is asked."""
    formalizer = _slotted()
    formalizer._sentence = "You move the cd 1 to the countertop 1."
    assert formalizer._stated_predicates() == (["thing"], ["move"])
    # what it reads of where the thing went is evidence of the command (a thing seen on
    # arriving is not: at 12dad66 the put's "(thing cd_1 countertop_1)" was left out, and
    # a putobject that placed nothing was not refuted)
    formalizer.chunk = atoms(["(player countertop_1)"])
    before = list(formalizer.chunk)
    formalizer.chunk += atoms(["(thing cd_1 countertop_1)", "(holds sponge_1)"])
    formalizer._put_read = formalizer._placed_by_sentence(before)
    assert texts(formalizer._observable(formalizer.chunk)) == [
        "(player countertop_1)", "(thing cd_1 countertop_1)", "(holds sponge_1)"]
    formalizer._sentence = "You arrive at the countertop 1."
    assert formalizer._stated_predicates() == ([], [])
    assert formalizer._placed_by_sentence(before) == set()
    # "you see" states where things are (at cc0aa5e "In it, you see a creditcard 2, a
    # pillow 1, and a plate 2." was read (cleaned creditcard_2)), but found, not put
    formalizer._sentence = "In it, you see a creditcard 2, a pillow 1, and a plate 2."
    assert formalizer._stated_predicates() == (["thing"], ["see"])
    assert formalizer._placed_by_sentence(before) == set()


def test_of_the_task_things_goals_its_other_states_come_last_while_the_model_writes():
    """``task_goals`` with ``predicate_slots``: of goals naming as many of the task's
    things, one of a thing's other states (hot, clean) comes after where it is or whether it
    is held (Qwen2.5-Coder 1.5B learning the household's domain, dev seed 0 at 12dad66,
    chose ``(hot creditcard_2)`` three steps in a row for "put two creditcard on
    countertop", each plan a refused cleaning). Without the aspects (a frozen domain) the
    order is as before: by the task's things, then as offered."""
    from pddlkit.formalizers.helps.task_goals import offer

    formalizer = ModularFormalizer(ScriptedLLM(lambda m: "none"), "household",
                                   predicate_slots=True, task_goals=True)
    formalizer._task_words = {"creditcard", "countertop"}
    reached = [(False, 1.0, "(hot creditcard_2)"), (False, 1.0, "(player desk_1)"),
               (False, 2.0, "(holds creditcard_2)"),
               (False, 3.0, "(thing creditcard_2 countertop_1)")]
    assert [r[2] for r in offer(formalizer, reached)] == [
        "(thing creditcard_2 countertop_1)", "(hot creditcard_2)", "(holds creditcard_2)",
        "(player desk_1)"]
    formalizer.predicate_aspects = {"hot": "other states of a thing, such as clean, hot, "
                                           "cold or turned on",
                                    "holds": "what the player holds",
                                    "thing": "where each thing is"}
    assert [r[2] for r in offer(formalizer, reached)] == [
        "(thing creditcard_2 countertop_1)", "(holds creditcard_2)", "(hot creditcard_2)",
        "(player desk_1)"]
