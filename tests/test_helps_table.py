"""Helps declared once (issue 74, pddlkit.agents.helps and formalizers/help_table.py), and
rows that say how often each help changed something (issue 73).

A toy table shows that one line makes a help a flag with its --help text, a member of the
preset, a checked requirement and a counted column; PDDLego+'s own table is checked to be
the one its options, preset and row read."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import fields, make_dataclass

import pytest

from pddlkit.agents import AgentError, get_agent, option, run_job
from pddlkit.agents.helps import (Help, acted, acted_column, check_requirements, option_fields,
                                  preset, preset_help, split_by_offers)
from pddlkit.agents.spec import add_option_flags

TOY = (Help("toy_help", "a toy that counts what it does", events=("toy-acted",)),
       Help("needs_toy", "a help of the toy", requires=("toy_help",), preset=False,
            needs_llm=True, reads="failures", events=("needs-toy",)))


def _toy_options():
    return make_dataclass("ToyOptions", option_fields(TOY) + [
        ("preset_on", bool, option(False, preset_help(TOY, "the toy preset")))])


def test_one_line_of_a_table_is_a_flag_a_preset_member_and_a_counted_column():
    options = _toy_options()
    parser = argparse.ArgumentParser()
    add_option_flags(parser, options, "toy")
    text = parser.format_help()
    assert "--toy-help" in text and "a toy that counts what it does" in text
    assert "--needs-toy" in text and "the toy preset: --toy-help" in " ".join(text.split())
    assert preset(TOY) == ("toy_help",)
    counts = Counter({"toy-acted": 3, "other": 9})
    assert acted(TOY, ["toy-help", "needs-toy"], counts) == {"toy-help": 3, "needs-toy": 0}
    assert acted_column({"toy-help": 3, "needs-toy": 0}) == "toy-help 3, needs-toy 0"
    assert acted_column({}) == "none"


def test_a_help_without_what_it_needs_is_refused_by_name():
    options = _toy_options()
    with pytest.raises(AgentError, match="--needs-toy is a help of --toy-help"):
        check_requirements(TOY, options(needs_toy=True), stand_in=None)
    check_requirements(TOY, options(needs_toy=True, preset_on=True), stand_in=None,
                       preset_on=True)
    with pytest.raises(AgentError, match="--needs-toy asks an LLM.*standin:x"):
        check_requirements(TOY, options(toy_help=True, needs_toy=True), stand_in="standin:x")
    with pytest.raises(AgentError, match="--needs-toy reads the world's machine-readable "
                                         "failures, which toy-env does not offer"):
        split_by_offers(TOY, ["needs-toy"], options(needs_toy=True), "toy-env", ())
    assert split_by_offers(TOY, ["toy-help", "needs-toy"], options(), "toy-env", ()) == \
        (["toy-help"], ["needs-toy"])


def test_pddlego_reads_its_options_preset_and_checks_from_its_table():
    from pddlkit.formalizers.agents import SMALL_MODEL, PDDLegoOptions
    from pddlkit.formalizers.help_table import HELPS, MODULAR_HELPS, READS_FAILURES

    names = {f.name for f in fields(PDDLegoOptions)}
    assert {h.name for h in HELPS} <= names and "small_model" in names
    # the preset's members, in the order rows list them (as before the table)
    assert SMALL_MODEL == ("modular", "repair", "declare_objects", "fresh_answers",
                           "fact_memory", "problem_only", "refuted_facts", "novel_goals",
                           "local_facts", "typed_objects", "ask_missing", "world_literals",
                           "task_goals", "command_facts", "task_focus", "here_facts",
                           "schema_check", "predicate_slots", "schema_slots",
                           "place_goals", "refused_steps", "final_effects")
    assert READS_FAILURES == ("refuted-facts", "world-literals")
    assert "novel_goals" in MODULAR_HELPS and "repair" not in MODULAR_HELPS
    small = next(f for f in fields(PDDLegoOptions) if f.name == "small_model")
    assert all(h.flag in small.metadata["help"] for h in HELPS if h.preset)
    assert all(h.events for h in HELPS)   # every help can be counted
    # the helps of the domain the model writes say on their lines that a frozen one conflicts
    from pddlkit.formalizers.help_table import DOMAIN_WRITING, FROZEN

    assert set(DOMAIN_WRITING) == {h.name for h in HELPS if h.conflicts} == {
        "schema_check", "predicate_slots", "schema_slots", "place_goals", "refused_steps",
        "unlisted_refusals", "try_untried", "lacked_literals", "door_slots",
        "final_effects"}
    # the two that play over a learned entry reused, by its aspects, conflict with --domain
    # alone, and need what learning needs or --reuse-domain
    plays_reused = {h.name: (h.conflicts, h.requires) for h in HELPS
                    if h.conflicts and h.conflicts != FROZEN}
    assert plays_reused == {
        "place_goals": (("domain",), ("modular", "predicate_slots|reuse_domain")),
        "refused_steps": (("domain",), ("modular", "schema_check|reuse_domain"))}


def test_a_rows_helps_acted_counts_the_events_of_its_own_record(tmp_path):
    """The noisy stand-in's slips: --repair fixes some (``repair`` events in the record);
    --fresh-answers never acts when no answer repeats: 0, not left out."""
    spec = get_agent("pddlego")
    record = tmp_path / "record.jsonl"
    seeds = [0, 1, 2]
    rows = run_job(spec, env="coin-collector", llm="standin:pddlego:noisy", seeds=seeds,
                   options=spec.make_options({"repair": True, "fresh_answers": True}),
                   record=record, env_options={"rooms": 3})
    events = [json.loads(line) for line in record.read_text().splitlines()]
    for seed, row in zip(seeds, rows):
        repairs = sum(e["type"] == "repair" for e in events if e["episode"] == seed)
        repeats = sum(e["type"] == "repeated-answer" for e in events if e["episode"] == seed)
        assert row.columns["helps_acted"] == f"repair {repairs}, fresh-answers {repeats}"
    assert any(e["type"] == "repair" for e in events)   # the help did act somewhere


def test_a_help_in_the_goal_policy_slot_is_its_file_and_its_table_line(tmp_path, monkeypatch):
    """A toy help written as one file (its ``offer``) and one table line: the modular
    formalizer takes its switch by name, runs it in the goal policy slot after the table's
    own, and counts it as acting when it changed the goals offered; a hook that cannot be
    loaded is an AgentError naming the help."""
    from pddlkit.formalizers import help_table
    from pddlkit.formalizers.modular import ModularFormalizer
    from pddlkit.llm.scripted import ScriptedLLM

    (tmp_path / "toy_goal_help.py").write_text(
        "def offer(formalizer, reached):\n    return list(reversed(reached))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    toy = Help("toy_goals", "offer the goals backwards", requires=("modular",),
               needs_llm=True, events=("toy-goals",),
               hooks=(("goal_policy", "toy_goal_help:offer"),))
    monkeypatch.setattr(help_table, "HELPS", help_table.HELPS + (toy,))
    monkeypatch.setattr(help_table, "MODULAR_HELPS", help_table.MODULAR_HELPS + ("toy_goals",))
    reached = [(False, 1, "(at kitchen)"), (False, 2, "(at pantry)")]
    off = ModularFormalizer(ScriptedLLM(["none"]), "coin-collector")
    assert off._goal_policy(list(reached)) == reached and not off.acted["toy-goals"]
    on = ModularFormalizer(ScriptedLLM(["none"]), "coin-collector", toy_goals=True)
    assert on._goal_policy(list(reached)) == reached[::-1]
    assert on.acted["toy-goals"] == 1
    with pytest.raises(TypeError, match="no help toy_gaols"):
        ModularFormalizer(ScriptedLLM(["none"]), "coin-collector", toy_gaols=True)
    broken = Help("toy_goals", "x", hooks=(("goal_policy", "toy_goal_help:nothing"),))
    monkeypatch.setattr(help_table, "HELPS", help_table.HELPS[:-1] + (broken,))
    with pytest.raises(AgentError, match="help toy_goals: its goal_policy hook "
                                         "toy_goal_help:nothing cannot be loaded"):
        on._goal_policy(list(reached))


def test_pddlegos_slot_helps_are_files_named_by_their_table_lines():
    """The goal helps (novel_goals, task_goals, task_focus, place_goals), local_facts and the
    strategies are each a file of formalizers/helps/ named by their table line, and load."""
    from pddlkit.agents.helps import hooked
    from pddlkit.formalizers.help_table import HELPS

    names = [h.name for h, _ in hooked(HELPS, "goal_policy", lambda h: True)]
    assert names == ["novel_goals", "task_goals", "task_focus", "place_goals"]
    assert [h.name for h, _ in hooked(HELPS, "sentence_facts", lambda h: True)] == \
        ["local_facts"]
    assert [h.name for h, _ in hooked(HELPS, "strategy", lambda h: True)] == \
        ["typed_objects", "ask_missing", "world_literals", "command_facts", "here_facts",
         "refused_steps"]


def test_every_pddlego_help_but_three_is_a_file_of_formalizers_helps():
    """Issue 74: one file per help. Every table line has ``formalizers/helps/<name>.py``
    (``refuted_facts`` too), except the three named with where their code is; a help added
    without its file, or a file whose help left the table, fails here."""
    import pkgutil

    from pddlkit.formalizers import helps
    from pddlkit.formalizers.help_table import HELPS

    files = {m.name for m in pkgutil.iter_modules(helps.__path__)}
    table = {h.name for h in HELPS}
    assert table - files == set(helps.WITHOUT_FILE)
    assert files - table == set()


def test_a_strategy_help_keeps_its_own_state_for_one_episode():
    """A help with a ``strategy`` hook (ask_missing, here_facts) is one object an episode,
    made at its first use while its switch is on: what it asked is forgotten with the
    episode, and a help turned off has none."""
    from pddlkit.formalizers.helps.ask_missing import AskMissing
    from pddlkit.formalizers.modular import ModularFormalizer
    from pddlkit.llm.scripted import ScriptedLLM

    on = ModularFormalizer(ScriptedLLM(["none"]), "coin-collector", ask_missing=True)
    ask = on._strategy("ask_missing")
    assert isinstance(ask, AskMissing) and on._strategy("ask_missing") is ask
    ask.asked["at"] = 2
    on._reset()   # the next episode
    assert on._strategy("ask_missing") is not ask and not on._strategy("ask_missing").asked
    assert on._strategy("here_facts") is None   # off
    on.ask_missing = False
    assert on._strategy("ask_missing") is None


def test_the_formalizer_reaches_each_strategy_by_the_role_it_plays():
    """Issue 74: the modular formalizer asks its strategies by role (a protocol of
    ``formalizers/modular/roles.py``), never by name: every strategy of the table plays at
    least one role, and the formalizer's own files name no strategy help's name in a call."""
    import inspect
    import re as _re

    from pddlkit.formalizers import modular
    from pddlkit.formalizers.modular import formalizer as formalizer_module
    from pddlkit.formalizers.modular.roles import ROLES

    for name, cls in formalizer_module._strategy_classes():
        played = [role.__name__ for role in ROLES if isinstance(cls(), role)]
        assert played, f"{name}'s strategy plays no role"
    sources = "".join(inspect.getsource(m) for m in (
        modular.formalizer, modular.corrections, modular.facts, modular.goals,
        modular.reading, modular.writing, modular.prompting))
    assert not _re.findall(r"_strategy\(\"", sources)


def test_a_strategy_in_an_existing_role_is_its_file_and_its_table_line(tmp_path, monkeypatch):
    """A toy strategy (a class that declares one object, a DeclaresNames) written as one
    file and one table line: the modular formalizer makes it once an episode while its
    switch is on and joins its objects to the problem file's, with no call of its own."""
    from pddlkit.formalizers import help_table
    from pddlkit.formalizers.modular import ModularFormalizer
    from pddlkit.formalizers.modular.roles import DeclaresNames
    from pddlkit.llm.scripted import ScriptedLLM

    (tmp_path / "toy_strategy_help.py").write_text(
        "class Lantern:\n"
        "    def __init__(self):\n        self.made = True\n"
        "    def objects(self, formalizer, named, count=True):\n"
        "        formalizer.acted['toy-lantern'] += count\n"
        "        return [] if 'lantern' in named else ['lantern - thing']\n"
        "    def withdrawn(self, name):\n        pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    toy = Help("toy_lantern", "declare a lantern", requires=("modular",), needs_llm=True,
               events=("toy-lantern",), hooks=(("strategy", "toy_strategy_help:Lantern"),))
    monkeypatch.setattr(help_table, "HELPS", help_table.HELPS + (toy,))
    monkeypatch.setattr(help_table, "MODULAR_HELPS",
                        help_table.MODULAR_HELPS + ("toy_lantern",))
    domain = ("(define (domain d) (:requirements :strips :typing) (:types thing)"
              " (:predicates (lit ?t - thing)))")
    on = ModularFormalizer(ScriptedLLM(["none"]), "coin-collector", toy_lantern=True)
    on.fixed_domain = domain
    [lantern] = on._roles(DeclaresNames)
    assert type(lantern).__name__ == "Lantern" and on._strategy("toy_lantern") is lantern
    assert on._typed_objects([], "") == ["lantern - thing"] and on.acted["toy-lantern"] == 1
    on.toy_lantern = False   # the switch decides
    assert on._roles(DeclaresNames) == [] and on._typed_objects([], "") == []


def test_a_pass_over_the_files_is_its_file_and_its_table_line(tmp_path, monkeypatch):
    """A toy help whose hook is a pass over each answer's files (issue 74: the loop's
    passes are the helps' hooks): one file and one table line, and run_episode runs it
    before every plan, writes its event and counts it as acting; the table's own passes
    are repair, declare_objects, fact_memory and refuted_facts, in that order."""
    from pddlkit.agents.helps import acted, hooked
    from pddlkit.envs import make
    from pddlkit.formalizers import help_table
    from pddlkit.formalizers.api import make_formalizer
    from pddlkit.formalizers.loop import run_episode

    (tmp_path / "toy_pass_help.py").write_text(
        "class TitlePass:\n"
        "    counter, event, key = None, 'toy-pass', 'fixes'\n"
        "    def __init__(self):\n        self.seen = 0\n"
        "    def apply(self, files, context):\n"
        "        self.seen += 1\n"
        "        return files, [f'read files {self.seen} of the episode']\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    toy = Help("toy_pass", "read every answer's files", events=("toy-pass",),
               hooks=(("files_pass", "toy_pass_help:TitlePass"),))
    monkeypatch.setattr(help_table, "HELPS", help_table.HELPS + (toy,))
    events: list[tuple[str, dict]] = []
    result = run_episode(make("coin-collector", rooms=3), make_formalizer(
        "standin:pddlego", "coin-collector"), seed=1, helps=["toy-pass"],
        on_event=lambda kind, data: events.append((kind, data)))
    passed = [data for kind, data in events if kind == "toy-pass"]
    files = [data for kind, data in events if kind == "files"]
    assert result.won and len(passed) == len(files) > 0
    assert passed[-1]["fixes"] == [f"read files {len(files)} of the episode"]
    kinds = {"toy-pass": len(passed)}
    assert acted(help_table.HELPS, ["toy-pass"], kinds) == {"toy-pass": len(passed)}
    names = [h.name for h, _ in hooked(help_table.HELPS[:-1], "files_pass", lambda h: True)]
    assert names == ["repair", "declare_objects", "fact_memory", "refuted_facts"]


def test_the_readme_counts_the_helps_of_the_table():
    import re
    from pathlib import Path

    from pddlkit.formalizers.help_table import HELPS

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    said = re.search(r"the helps for small\s+models \((\d+), one line each of\s+"
                     r"`formalizers/help_table.py`", readme)
    assert said and int(said.group(1)) == len(HELPS)


@pytest.mark.parametrize("agent, where", [
    ("ipp", "pddlkit.programs.cli:IPP_HELPS"), ("copic", "pddlkit.programs.copic.cli:COPIC_HELPS"),
    ("deps", "pddlkit.skills.deps.cli:DEPS_HELPS"), ("plap", "pddlkit.skills.plap.cli:PLAP_HELPS")])
def test_every_front_end_declares_its_helps_in_one_table(agent, where):
    """IPP, CoPiC, DEPS and PLAP declare their helps as PDDLego+ does: each table line is the
    agent's option (its flag and --help text), and the row's helps column and summary name
    the helps that are on, in the table's order (a count with its value: ``probe-2``)."""
    import importlib
    import re

    from pddlkit.agents.helps import helps_column, helps_on, helps_summary

    module, _, name = where.partition(":")
    table = getattr(importlib.import_module(module), name)
    spec = get_agent(agent)
    parser = argparse.ArgumentParser()
    add_option_flags(parser, spec.options, agent)
    text = " ".join(parser.format_help().split())
    for h in table:
        assert h.flag in text and " ".join(h.help.split())[:40] in text
    none = spec.make_options({})
    assert helps_on(table, none) == [] and helps_column([]) == "none"
    assert helps_summary([]) == "; helps: none (the paper's loop)"
    on = spec.make_options({h.name: 2 if h.counted else True for h in table})
    used = helps_on(table, on)
    assert used == [h.label + ("-2" if h.counted else "") for h in table]
    assert helps_column(used) == "+".join(used)
    assert all(re.fullmatch(r"[a-z\-]+(-\d+)?", label) for label in used)


def test_every_help_file_imports_first_in_a_fresh_interpreter():
    """A help file imported before anything else of the formalizers must load: the modular
    package imports the helps, so a help that imports the modular package back at load time
    is a cycle that only a fresh interpreter shows (``predicate_slots`` was one). One child
    process; the formalizers' modules are forgotten before each import."""
    import pkgutil

    from conftest import python_child
    from pddlkit.formalizers import helps

    names = sorted(m.name for m in pkgutil.iter_modules(helps.__path__))
    script = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    for loaded in [m for m in sys.modules if m.startswith('pddlkit.formalizers')]:\n"
        "        del sys.modules[loaded]\n"
        "    importlib.import_module('pddlkit.formalizers.helps.' + name)\n"
        "print('ok')\n")
    done = python_child(script)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_a_toy_help_s_line_and_file_reach_pddlegos_help_preset_and_row(tmp_path):
    """Issue 74: a goal-policy help written as one file and one line of PDDLego+'s own table
    is a flag of ``pddlkit run pddlego --help`` with its text, a member of ``--small-model``,
    and a row's ``helps`` and ``helps_acted`` columns, with nothing else edited. A fresh
    interpreter: the line joins the table before the agent's options are made from it."""
    from pathlib import Path

    from conftest import python_child

    domain = str(Path(__file__).resolve().parent.parent / "domains" / "coin-collector"
                 / "domain.pddl")   # frozen: the goals are offered from the first step

    (tmp_path / "toy_goal_help.py").write_text(
        "def offer(formalizer, reached):\n    return list(reversed(reached))\n")
    script = (
        "import contextlib, io, sys\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "from pddlkit.agents.helps import Help\n"
        "from pddlkit.formalizers import help_table\n"
        "toy = Help('toy_goals', 'offer the goals backwards', requires=('modular',),\n"
        "           needs_llm=True, events=('toy-goals',),\n"
        "           hooks=(('goal_policy', 'toy_goal_help:offer'),))\n"
        "help_table.HELPS += (toy,)\n"
        "help_table.MODULAR_HELPS += ('toy_goals',)\n"
        "from pddlkit.agents import get_agent, run_job\n"
        "from pddlkit.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):\n"
        "    main(['run', 'pddlego', '--help'])\n"
        "text = ' '.join(out.getvalue().split())\n"
        "print('flag', '--toy-goals offer the goals backwards' in text)\n"
        "print('preset', '--toy-goals' in text.split('--small-model', 1)[1])\n"
        "spec = get_agent('pddlego')\n"
        "row, = run_job(spec, env='coin-collector', llm='random', seeds=[3],\n"
        "               options=spec.make_options({'small_model': True, 'constrained': True,\n"
        f"                                          'domain': {domain!r}}}),\n"
        "               env_options={'rooms': 3})\n"
        "print('column', 'toy-goals' in row.columns['helps'])\n"
        "print('acted', row.columns['helps_acted'].split('toy-goals ')[1].split(',')[0])\n")
    done = python_child(script, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    said = dict(line.split(" ", 1) for line in done.stdout.splitlines()
                if line.split(" ", 1)[0] in ("flag", "preset", "column", "acted"))
    assert said["flag"] == "True" and said["preset"] == "True" and said["column"] == "True"
    # random answers on seed 3 reach goals to offer (on seed 0 they reach none): reversed
    assert int(said["acted"]) > 0
