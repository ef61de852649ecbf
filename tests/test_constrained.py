"""Grammar-constrained generation: the Lark-subset grammars, their GBNF for llama.cpp, the
grammars derived from a domain (held against the whole IPC corpus and mutated files), and
the constraint's way to each server through the real openai client."""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import pytest

from conftest import SHARED, _need
from llm_server import ChatServer, answer, status
from pddlkit.llm.gbnf import gbnf_of
from pddlkit.llm.gbnf_matcher import GBNFMatcher
from pddlkit.llm.grammar import Grammar, GrammarError, JsonSchema
from pddlkit.llm.openai_chat import OpenAIChat
from pddlkit.llm.usage import UsageLedger
from pddlkit.pddl.grammars import ActionSignature, Limits, domain_grammar, problem_grammar
from pddlkit.pddl.reader import parse_domain

IPC = SHARED / "corpus" / "ipc"


def _accepted(grammar: Grammar, text: str) -> GBNFMatcher:
    """Assert that Lark and the GBNF a server gets both accept ``text``; the GBNF's matcher."""
    matcher = GBNFMatcher(grammar.gbnf())
    assert grammar.accepts(text) and matcher.matches(text), text
    return matcher


def _pairs():
    """(domain file, problem file) for every problem of the IPC corpus."""
    root = _need(IPC)
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        for problem in sorted(folder.glob("p*.pddl")):
            domain = folder / "domain.pddl"
            if not domain.exists():
                domain = folder / f"domain-{problem.name}"
            yield domain, problem


def test_the_subset_reads_lark_notation_and_names_what_it_does_not_take():
    g = Grammar('start: "(" item ~ 1..3 ")"\n?item: WORD | "x"i\nWORD: /[a-z]+/\n'
                "%import common.WS\n%ignore WS\n")
    assert g.accepts("(ab X)") and g.accepts("( ab cd ef )") and not g.accepts("(a b c d)")
    gbnf = g.gbnf()
    assert "root ::=" in gbnf and "{0,2}" in gbnf and "[xX]" in gbnf
    matcher = GBNFMatcher(gbnf)
    assert matcher.matches("(ab X)") and matcher.matches("( ab cd ef )")
    assert not matcher.matches("(a b c d)") and not matcher.matches("(abX)")  # abX: one word?
    for bad, words in (('start: "a"\n%declare X\n', "%declare"),
                       ("start: b\n", "b, which is not defined"),
                       ('start: /a$/\n', None),
                       ("start: ~\n", "unexpected")):
        if words is None:
            with pytest.raises(GrammarError, match="anchors"):
                Grammar(bad).gbnf()
            continue
        with pytest.raises(GrammarError, match=re.escape(words)):
            Grammar(bad)


def test_two_names_must_be_spaced_but_a_variable_may_follow_a_name_at_once():
    g = Grammar('start: "(" NAME term* ")"\nterm: NAME | VARIABLE\nNAME: /[a-z]+/\n'
                'VARIABLE: /\\?[a-z]+/\nWS: /[ \\n]+/\n%ignore WS\n')
    matcher = GBNFMatcher(g.gbnf())
    for text in ("(at a b)", "(at?x ?y)", "( at  a\n b )"):
        assert g.accepts(text) and matcher.matches(text), text
    assert not matcher.matches("(at ab)") or g.accepts("(at ab)")
    assert matcher.failure("(at a b") == len("(at a b")   # stops early: the end is named


@pytest.mark.slow
def test_every_ipc_file_is_accepted_by_its_derived_grammar_in_lark_and_gbnf():
    """The grammar of PDDL as files are written (any case, comments) derived from each
    domain accepts every corpus problem, in Lark and in the GBNF a server would get; the
    domain grammar accepts every corpus domain."""
    domains = domain_grammar(limits=None, any_case=True, comments=True)
    domain_matcher = GBNFMatcher(domains.gbnf())
    seen_domains: set = set()
    count = 0
    for domain_file, problem_file in _pairs():
        if domain_file not in seen_domains:
            seen_domains.add(domain_file)
            text = domain_file.read_text()
            assert domains.accepts(text), domain_file
            assert domain_matcher.matches(text), domain_file
        grammar = problem_grammar(parse_domain(domain_file), limits=None, any_case=True,
                                  comments=True)
        text = problem_file.read_text()
        if len(text) < 50_000:   # Lark's reading of the largest files adds time, not cases
            assert grammar.accepts(text), problem_file
        assert GBNFMatcher(grammar.gbnf()).matches(text), problem_file
        count += 1
    assert count >= 111 and len(seen_domains) >= 37


def _mutants(text: str, rng: random.Random):
    closes = [m.start() for m in re.finditer(r"\)", text)]
    i = rng.choice(closes)
    yield "a ')' dropped", text[:i] + text[i + 1:]
    opens = [m.start() for m in re.finditer(r"\(", text)]
    i = rng.choice(opens)
    yield "a '(' added", text[:i] + "(" + text[i:]
    yield "a misspelt section", re.sub(":init", ":inits", text, count=1, flags=re.I)
    yield "an empty part", text.replace("(:goal", "(:goal )", 1)
    start = text.lower().find(":init")
    facts = list(re.finditer(r"\(([a-zA-Z][\w-]*) ([^()]*)\)", text[start:]))
    if not facts:
        return
    fact = rng.choice(facts)
    s, e = start + fact.start(1), start + fact.end(1)
    yield "an undeclared predicate", text[:s] + fact.group(1) + "zz" + text[e:]
    s, e = start + fact.start(2), start + fact.end(2)
    yield "an argument too few", text[:s] + " ".join(fact.group(2).split()[:-1]) + text[e:]


@pytest.mark.slow
def test_mutated_problem_files_that_check_rejects_are_refused_by_the_grammar():
    from pddlkit.checks import check

    rng = random.Random(0)
    refused = 0
    for domain_file, problem_file in _pairs():
        if problem_file.name != sorted(problem_file.parent.glob("p*.pddl"))[0].name:
            continue   # the first problem of each domain
        domain_text = domain_file.read_text()
        grammar = problem_grammar(parse_domain(domain_file), limits=None, any_case=True,
                                  comments=True)
        matcher = GBNFMatcher(grammar.gbnf())
        for what, mutant in _mutants(problem_file.read_text(), rng):
            if check(domain_text, mutant).ok:
                continue
            assert not grammar.accepts(mutant), (problem_file, what)
            assert not matcher.matches(mutant), (problem_file, what)
            refused += 1
    assert refused >= 180


def _domain(text: str):
    from pddlkit.pddl.reader import parse_domain as read

    return read(text)


COINS = """(define (domain coins) (:requirements :strips :typing)
  (:types room direction)
  (:predicates (at ?r - room) (connected ?a - room ?b - room ?d - direction)
               (visited ?r - room)))"""


def test_a_generation_grammar_bounds_names_and_lists_and_knows_the_entities():
    domain = _domain(COINS)
    grammar = problem_grammar(domain, objects=["kitchen", "hall", "north", "south"],
                              limits=Limits(objects=3, facts=2))
    ok = ("(define (problem p) (:domain coins) (:objects kitchen hall - room north - direction)"
          " (:init (at kitchen) (connected kitchen hall north)) (:goal (visited hall)))")
    matcher = _accepted(grammar, ok)
    for bad in (ok.replace("(visited hall)", "(visited garden)"),         # never seen
                ok.replace("(at kitchen)", "(at kitchen hall)"),           # arity
                ok.replace("(at kitchen)", "(at kitchen) (at hall) (at kitchen)"),  # 3 facts
                ok.replace("room north", "room north south hall kitchen"),  # 4 names a list
                ok.replace("(define", "; a comment\n(define"),              # no comments
                ok.replace("(:domain coins)", "(:domain other)")):
        assert not matcher.matches(bad), bad
        assert not grammar.accepts(bad), bad
    rambling = ok.replace(" (:init", "\n" * 30 + "(:init")    # blanks until the token limit
    assert not matcher.matches(rambling) and grammar.accepts(rambling)  # Lark reads files
    assert matcher.matches(ok.replace(" (:init", "\n" + " " * 20 + "(:init"))
    free = problem_grammar(domain, limits=Limits(name_length=5))
    assert GBNFMatcher(free.gbnf()).matches(ok.replace("kitchen", "kitch"))
    assert not GBNFMatcher(free.gbnf()).matches(ok)   # "kitchen" is 7 characters


def test_a_domain_grammar_with_the_front_ends_actions_has_exactly_those():
    actions = [ActionSignature("move", (("?from", "room"), ("?to", "room"))),
               ActionSignature("open-door", (("?r", "room"),))]
    grammar = domain_grammar(actions=actions)
    body = ("(define (domain d) (:requirements :typing) (:types room) "
            "(:predicates (at ?r - room) (open ?r - room)) "
            "(:action move :parameters (?from - room ?to - room) "
            ":precondition (and (at ?from) (open ?to)) :effect (and (not (at ?from)) (at ?to))) "
            "(:action open-door :parameters (?r - room) :precondition (at ?r) "
            ":effect (open ?r)))")
    matcher = _accepted(grammar, body)
    for bad in (body.replace("open-door :parameters (?r", "open-door :parameters (?x"),
                body.replace("(:action open-door", "(:action shut-door"),
                body.replace(":predicates", ":predicate")):
        assert not matcher.matches(bad) and not grammar.accepts(bad), bad


# --- the constraint's way to the server ------------------------------------------------------

@pytest.fixture
def server():
    s = ChatServer()
    yield s
    s.stop()


def _llm(server, **options):
    return OpenAIChat("test-model", base_url=server.url, cache=False, ledger=UsageLedger(),
                      **options)


GRAMMAR = Grammar('start: "yes" | "no"\n', "yes or no")
SCHEMA = JsonSchema({"type": "object", "properties": {"plan": {"type": "array", "items": {
    "type": "string"}}}, "required": ["plan"], "additionalProperties": False}, "plan")


def test_a_grammar_reaches_llama_cpp_as_gbnf_and_vllm_as_lark(server):
    server.owned_by = "llamacpp"
    llm = _llm(server)
    done = llm.complete("yes or no?", constraint=GRAMMAR)
    assert server.requests[-1]["grammar"] == GRAMMAR.gbnf() and done.constraint_mode == "gbnf"
    llm.complete("again?", constraint=GRAMMAR)
    assert server.listings == 1   # the server is asked once which grammars it takes
    server.owned_by = "vllm"
    llm = _llm(server)
    done = llm.complete("yes or no?", constraint=GRAMMAR)
    assert server.requests[-1]["guided_grammar"] == GRAMMAR.lark
    assert "grammar" not in server.requests[-1] and done.constraint_mode == "lark"
    plain = _llm(server, grammar="none").complete("yes or no?", constraint=GRAMMAR)
    assert "guided_grammar" not in server.requests[-1]
    assert plain.constraint_mode.startswith("unconstrained: ")
    done = _llm(server).complete("no constraint")
    assert "grammar" not in server.requests[-1] and "guided_grammar" not in \
        server.requests[-1] and done.constraint_mode == ""


def test_a_json_schema_reaches_the_server_as_strict_structured_outputs(server):
    server.default = answer('{"plan": ["go north"]}')
    llm = _llm(server)
    done = llm.complete("plan?", constraint=SCHEMA, response_format="json")
    sent = server.requests[-1]["response_format"]
    assert sent == {"type": "json_schema", "json_schema": {
        "name": "plan", "schema": SCHEMA.schema, "strict": True}}
    assert done.data == {"plan": ["go north"]} and done.constraint_mode == "json-schema"


def test_a_server_that_refuses_the_grammar_is_asked_again_without_it_and_says_so(server,
                                                                                   caplog):
    server.owned_by = "llamacpp"
    server.script.append(status(400, "unknown field: grammar"))
    llm = _llm(server)
    done = llm.complete("yes or no?", constraint=GRAMMAR)
    assert len(server.requests) == 2 and "grammar" not in server.requests[-1]
    assert done.text == "ok" and done.constraint_mode.startswith(
        "unconstrained: ") and "refused the grammar" in done.constraint_mode
    assert "refused the grammar" in caplog.text
    llm.complete("again?", constraint=GRAMMAR)
    assert len(server.requests) == 3 and "grammar" not in server.requests[-1]


def test_constraints_enter_the_cache_key_and_the_transcript(tmp_path, server):
    from pddlkit.llm.messages import Request
    from pddlkit.llm.transcript import read_transcript

    plain = Request.build("q")
    assert "constraint" not in plain.to_dict()     # keys of unconstrained calls unchanged
    keys = {plain.key("m"), Request.build("q", constraint=GRAMMAR).key("m"),
            Request.build("q", constraint=Grammar('start: "yes"\n')).key("m"),
            Request.build("q", constraint=SCHEMA).key("m")}
    assert len(keys) == 4
    assert Request.from_dict(Request.build("q", constraint=GRAMMAR).to_dict()).constraint == \
        GRAMMAR
    server.owned_by = "llamacpp"
    llm = OpenAIChat("test-model", base_url=server.url, cache=tmp_path / "c.sqlite",
                     ledger=UsageLedger(), transcript=tmp_path / "t.jsonl")
    first = llm.complete("yes or no?", constraint=GRAMMAR)
    again = llm.complete("yes or no?", constraint=GRAMMAR)
    other = llm.complete("yes or no?")
    assert len(server.requests) == 2 and again.cached and not other.cached
    assert first.constraint_mode == again.constraint_mode == "gbnf"
    records = [r for _, r in read_transcript(tmp_path / "t.jsonl")]
    assert records[0]["constraint_mode"] == "gbnf"
    assert records[0]["request"]["constraint"]["lark"] == GRAMMAR.lark
    from pddlkit.llm.scripted import ReplayLLM

    replayed = ReplayLLM(tmp_path / "t.jsonl", ledger=UsageLedger()).complete(
        "yes or no?", constraint=GRAMMAR)
    assert replayed.text == first.text and replayed.constraint_mode == "gbnf"   # as recorded
    with pytest.raises(ValueError, match="Grammar or JsonSchema"):
        Request.build("q", constraint="start: x")


def test_a_backend_without_constraints_answers_unconstrained_and_says_why():
    from pddlkit.llm.scripted import ScriptedLLM

    done = ScriptedLLM(["yes"]).complete("q", constraint=GRAMMAR)
    assert done.constraint_mode == "unconstrained: ScriptedLLM decodes without constraints"


def test_skill_plan_lines_under_the_grammar_are_never_dropped():
    from pddlkit.skills.plap.grammar import skill_plan_grammar
    from pddlkit.skills.plap.plan import parse_skill_plan

    grammar = skill_plan_grammar(8, 8, max_lines=4)
    plan = ("START OF SKILL_PLAN\n[Harvest Mineral](0, 0)\n[Produce Unit](worker, east)\n"
            "[Build Building](barracks, (3, 4))\n[Attack Enemy](light, base)\nEND OF SKILL_PLAN")
    matcher = _accepted(grammar, plan)
    parsed = parse_skill_plan(plan)
    assert len(parsed.lines) == 4 and not parsed.dropped
    for bad in (plan.replace("(0, 0)", "(0, 9)"),                    # off the 8x8 map
                plan.replace("worker, east", "worker, up"),
                plan.replace("[Harvest Mineral](0, 0)", "Harvest Mineral at 0 0"),
                plan.replace("END", "[Deploy Unit](worker, (1, 1))\nEND")):   # 5 lines
        assert not grammar.accepts(bad) and not matcher.matches(bad), bad


@pytest.mark.slow
def test_pddlegos_answer_grammar_fixes_the_actions_inside_the_json():
    from pddlkit.pddl.grammars import answer_grammar, parse_signatures

    sigs = parse_signatures("1. :action move  (command: move $dir)\n"
                            ":parameters (?from - room ?to - room ?d - direction)\n"
                            "2. :action open-door  (command: open door to $dir)\n"
                            ":parameters (?loc1 ?loc2 - room ?d - direction)")
    assert [s.parameters for s in sigs][1] == (("?loc1", "room"), ("?loc2", "room"),
                                               ("?d", "direction"))
    grammar = answer_grammar(actions=sigs)
    df = ("(define (domain cc) (:requirements :typing) (:types room direction)\n"
          "(:predicates (at ?r - room) (conn ?a - room ?b - room ?d - direction))\n"
          "(:action move :parameters (?from - room ?to - room ?d - direction) :precondition "
          "(and (at ?from) (conn ?from ?to ?d)) :effect (and (not (at ?from)) (at ?to)))\n"
          "(:action open-door :parameters (?loc1 - room ?loc2 - room ?d - direction) "
          ":precondition (at ?loc1) :effect (conn ?loc1 ?loc2 ?d)))")
    pf = ("(define (problem p) (:domain cc) (:objects kitchen hall - room north - direction)"
          "\n(:init (at kitchen) (conn kitchen hall north)) (:goal (at hall)))")
    answer = json.dumps({"df": df, "pf": pf})
    matcher = _accepted(grammar, answer)
    assert not matcher.matches(json.dumps({"df": df.replace(":action move", ":action go"),
                                           "pf": pf}))
    assert not matcher.matches(answer.replace("\\n", "\n"))   # a raw line break: bad JSON


def test_deps_plans_under_the_grammar_read_without_an_unreadable_line():
    from pddlkit.envs.craft import CraftWorld
    from pddlkit.skills.deps.goals import parse_plan
    from pddlkit.skills.deps.grammar import plan_grammar
    from pddlkit.skills.deps.loop import Deps, DepsConfig, _item_names

    items = _item_names(CraftWorld(task="stick"))
    grammar = plan_grammar(items)
    plan = (" The code for obtaining 4 stick is as follows:\n"
            "def obtain_4_stick(inventory = {}):\n"
            "mine({'log':1}, null); # step 1: mine 1 log without tool\n"
            "craft({'planks':4}, {'log':1}, null); # step 2: craft 4 planks from 1 log\n"
            "craft({'stick':4}, {'planks':2}, null); # step 3: craft 4 stick from 2 planks\n"
            'return "stick"')
    matcher = _accepted(grammar, plan)
    parsed = parse_plan(plan)
    assert [g.item for g in parsed.goals] == ["log", "planks", "stick"] and not parsed.errors
    for bad in (plan.replace("'log':1}, null); # step 1", "'logs':1}, null); # step 1"),
                plan.replace("mine(", "gather(", 1), plan.replace("{'log':1}, null)", "log)", 1)):
        assert not matcher.matches(bad) and not grammar.accepts(bad), bad
    # the loop sends it, and says how each call was decoded (a script decodes freely)
    from pddlkit.llm.scripted import ScriptedLLM

    llm = ScriptedLLM([plan[1:]])
    episode = Deps(llm, config=DepsConfig(constrained=True, max_rounds=0)).run(
        CraftWorld(task="stick"), seed=0)
    assert episode.won and llm.requests[0].constraint == grammar
