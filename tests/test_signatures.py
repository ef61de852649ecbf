"""The actions a formalizer writes travel as records (issue 74: structure as data): what an
environment's prompt shows and what the formalizers read are one object, and the records
are what the text, read back as it used to be, says."""

from __future__ import annotations

import copy

import pytest

from pddlkit.envs import make
from pddlkit.formalizers.base import INITIAL, Context, Memory
from pddlkit.formalizers.prompts import env_signatures
from pddlkit.formalizers.signatures import CommandSignature, Signatures
from pddlkit.pddl.grammars import ActionSignature


@pytest.mark.parametrize("env_id, options", [("coin-collector", {"rooms": 3}),
                                             ("household", {"receptacles": 8})])
def test_an_environments_records_are_what_its_prompt_text_says(env_id, options):
    env = make(env_id, **options)
    env.reset(seed=1)
    made = env_signatures(env)
    assert made and all(isinstance(s, ActionSignature) for s in made)
    read = Signatures.read(str(made))
    assert list(read) == list(made) and read.by_name() == made.by_name()
    assert str(made) == made.text and ":action" in made.text
    assert {s.command for s in made} <= {t.template for t in env.action_schema}
    assert {s.name for s in made} == {t.action for t in env.action_schema}
    # a copy (the memory formalize_and_plan copies holds them) keeps records and text
    copied = copy.deepcopy(made)
    assert list(copied) == list(made) and copied.text == made.text


def test_a_context_made_with_text_reads_it_once_into_records():
    text = ("1. :action take  (command: take {o} from {r})\n"
            ":parameters (?o - obj ?r - receptacle)\n"
            "2. :action odd  (command: odd {x})\n:parameters (?x - (either a b))")
    context = Context(INITIAL, "household", Memory("task"), [], text, 2)
    assert isinstance(context.signatures, Signatures)
    assert str(context.signatures) == text   # the prompt shows what was given
    assert context.signatures.by_name() == {
        "take": ((("?o", "obj"), ("?r", "receptacle")), "take {o} from {r}")}
    assert Signatures([CommandSignature("go", (("?to", "room"),), "go to {to}")]).text == (
        "1. :action go  (command: go to {to})\n:parameters (?to - room)")
