"""A frozen domain is planned with only the actions the environment has a command for
(:mod:`pddlkit.formalizers.playable`): CoinCollector's learned domain, reused in TextWorld's
coin game (whose commands are move and take), loses its door actions there and nowhere else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_cli
from conftest import need_module

REPO = Path(__file__).resolve().parent.parent
#: the learned CoinCollector domain the library ships (written by Qwen2.5-Coder 1.5B)
LEARNED = REPO / "domains" / "learned" / "coin-collector" / "7bbe41a16326" / "domain.pddl"


@pytest.fixture
def textworld(tmp_path, monkeypatch):
    from pddlkit.envs.textworld_adapter import _import_textworld

    need_module("textworld", "pip install 'pddlkit[textworld]'", _import_textworld)
    monkeypatch.setenv("PDDLKIT_CACHE_DIR", str(tmp_path / "cache"))


def test_the_actions_without_a_command_are_left_out_and_only_they(textworld):
    from pddlkit.envs import make
    from pddlkit.formalizers.playable import commands_only
    from pddlkit.pddl.reader import read_domain

    learned = LEARNED.read_text()
    env = make("textworld", game="coin", level=5)
    env.reset(1)
    playable, left = commands_only(learned, env)
    assert left == ["open-door", "close-door"]
    dom, _ = read_domain(playable)
    assert [a.name for a in dom.actions] == ["move", "take"]
    coin = make("coin-collector", rooms=3)
    coin.reset(1)
    assert commands_only(learned, coin) == (learned, [])      # every action has its command
    reference = (REPO / "domains" / "coin-collector" / "domain.pddl").read_text()
    assert commands_only(reference, coin) == (reference, [])
    assert commands_only("(define (domain", env) == ("(define (domain", [])   # unreadable
    broken = learned.replace("(:action take", "(:action take :bogus 1", 1)
    assert commands_only(broken, env) == (broken, [])   # an error: the loop's checks say it


def test_formalize_and_plan_says_what_it_left_out(textworld):
    from pddlkit.envs import make
    from pddlkit.formalizers.api import formalize_and_plan

    env = make("textworld", game="coin", level=5)
    obs, _ = env.reset(1)
    result = formalize_and_plan(obs, llm="random", env=env, small_model=True,
                                constrained=True, domain=str(LEARNED))
    assert any(d.startswith("left out of the domain: open-door, close-door (the environment "
                            "has no command for them") for d in result.diagnostics), \
        result.diagnostics


def test_a_reused_domain_is_never_planned_with_an_action_the_game_cannot_run(textworld,
                                                                               tmp_path):
    record = tmp_path / "episode.jsonl"
    done = run_cli("run", "pddlego", "--env", "textworld", "--game", "coin", "--level", "5",
                   "--seed", "1", "--llm", "random", "--constrained", "--small-model",
                   "--domain", str(LEARNED), "--record", str(record))
    assert done.returncode in (0, 1), done.stderr[-2000:]   # 1: the episode was lost
    events = [json.loads(line) for line in record.read_text().splitlines()]
    left = [e for e in events if e["type"] == "domain-actions-left-out"]
    assert [e["actions"] for e in left] == [["open-door", "close-door"]]
    assert not any("no command for the action" in e.get("message", "") for e in events)
    assert "left out of the domain: open-door, close-door (no command here)" in done.stdout
