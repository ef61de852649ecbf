"""Issue 44, item 6 ("Smaller"): what a newcomer meets first on the command line.

Each test fails on the code before the fix: ``pddlkit run`` alone played an episode; help
never showed defaults; bad values (``standin:abc``, ``--replan-rounds -1``, ``standin:7``,
``--policy-lr -1``) went past argparse to fail (or not) after things loaded; ``print(ledger)``
showed an address; a bare model name was refused; a plot's legend missed agents of its
second panel. None of them loads a model or plays an episode.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from pddlkit.agents import OptionError, agent_names, get_agent
from pddlkit.agents.cli import parser_for

REPO = Path(__file__).resolve().parent.parent


def test_run_alone_lists_the_agents_and_plays_nothing():
    """No arguments: the listing and usage on stderr, exit 2; no episode, no note about a
    flag that was never given."""
    from cli_runner import run_cli

    out = run_cli("run")
    assert out.returncode == 2, out.stdout[-500:]
    assert "usage: pddlkit run AGENT" in out.stderr and "agents:" in out.stderr
    for name in agent_names():
        assert f"  {name} " in out.stderr
    assert "episode" not in out.stdout and "note:" not in out.stderr


def _all_parsers() -> list[argparse.ArgumentParser]:
    """Every agent's ``pddlkit run AGENT`` parser and every ``pddlkit`` subcommand's."""
    from pddlkit.cli import build_parser

    parsers = [parser_for(get_agent(name)) for name in agent_names()]
    todo = [build_parser()]
    while todo:
        p = todo.pop()
        parsers.append(p)
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo.extend(action.choices.values())
    return parsers


def test_every_help_shows_each_options_default(monkeypatch):
    """An option with a default that says something (not None, an on/off switch or "") shows
    it as "(default: X)", unless its own help already says what the default is."""
    monkeypatch.setenv("COLUMNS", "2000")   # one line per option, to find each one's help
    checked = 0
    for parser in _all_parsers():
        text = parser.format_help()
        for action in parser._actions:
            default = action.default
            if not action.option_strings or default in (None, "", argparse.SUPPRESS) or \
                    isinstance(default, bool) or "default" in (action.help or "").lower():
                continue
            # the option's entry: its line and the help under it, up to the next entry
            lines = text.splitlines()
            first = next(i for i, ln in enumerate(lines)
                         if ln.startswith(f"  {action.option_strings[0]}"))
            entry = [lines[first]] + [ln for ln in lines[first + 1:first + 3]
                                      if ln.startswith(" " * 6)][:1]
            assert f"(default: {default})" in " ".join(entry), (parser.prog, entry)
            checked += 1
    assert checked > 40   # every agent's numbers and the subcommands' options were seen


@pytest.mark.parametrize("agent, args, words", [
    ("deps", ["--llm", "standin:deps:abc"],
     ["standin:deps:abc", "from 0 to 1", "e.g. standin:deps:0.3"]),
    ("deps", ["--llm", "standin:deps:7"], ["standin:deps:7", "from 0 to 1"]),
    ("deps", ["--llm", "standin:deps:off:-0.1"], ["standin:deps:off:-0.1", "from 0 to 1"]),
    ("deps", ["--llm", "standin:abc"], ["standin:abc: this spelling was removed",
                                        "standin:deps:abc", "from 0 to 1"]),
    ("deps", ["--llm", "standin-off:0.1"], ["standin-off:0.1: this spelling was removed; "
                                            "write standin:deps:off:0.1"]),
    ("deps", ["--replan-rounds", "-1"], ["--replan-rounds", "0 or more, or inf"]),
    ("deps", ["--replan-rounds", "two"], ["--replan-rounds", "'two'"]),
    ("plap", ["--llm", "standin:plap:noisy:1.5"], ["standin:plap:noisy:1.5", "from 0 to 1"]),
    ("plap", ["--llm", "standin-noisy"], ["standin-noisy: this spelling was removed; write "
                                          "standin:plap:noisy"]),
    ("pddlego", ["--llm", "standin:pddlego:noisy:abc"],
     ["standin:pddlego:noisy:abc", "from 0 to 1"]),
    ("pddlego", ["--llm", "observation"], ["observation: this spelling was removed; write "
                                           "standin:pddlego (pddlkit llm list"]),
    ("pddlego", ["--llm", "standin:pddlego:loud"],
     ["no stand-in mode 'loud'", "its stand-ins: standin:pddlego, standin:pddlego:noisy[:RATE]"]),
    ("pddlego", ["--llm", "standin:deps"], ["a stand-in of deps, not of pddlego"]),
    ("pddlego", ["--temperature", "-1"], ["--temperature", "0 or more"]),
    ("pddlego", ["--planner-timeout", "0"], ["--planner-timeout", "above 0"]),
    ("ipp", ["--llm", "standin:ipp:cary"], ["standin:ipp:cary", "did you mean 'carry'"]),
    ("copic", ["--llm", "standin:copic:no-opn"], ["standin:copic:no-opn",
                                                  "did you mean 'no-open'"]),
    ("copic", ["--threshold", "1.5"], ["--threshold", "from 0 to 1"]),
    ("copic", ["--policy-lr", "inf"], ["--policy-lr", "'inf'"]),
    ("twosome", ["--policy-lr", "-1"], ["--policy-lr", "0 or more"]),
    ("twosome", ["--policy-lr", "nan"], ["--policy-lr", "'nan'"]),
    ("twosome", ["--ppo-steps", "0"], ["--ppo-steps", "1 or more"]),
    ("plangen", ["--llm", "opnai:gpt-4o"], ["did you mean 'openai:gpt-4o'?"]),
    ("plangen", ["--seed", "-1"], ["--seed", "0 or more"]),
    ("pddlego", ["--rooms", "0"], ["--rooms", "from 1 to 100"]),
])
def test_a_bad_value_is_refused_by_argparse_with_the_flags_name(agent, args, words, capsys):
    """argparse itself refuses (exit 2, "argument --flag: ..."), so nothing has loaded yet:
    the value never reaches the agent."""
    with pytest.raises(SystemExit) as stop:
        parser_for(get_agent(agent)).parse_args(args)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and f"argument {args[0]}: " in err, err
    assert "invalid" not in err and "could not convert" not in err, err
    for word in words:
        assert word in err, err


def test_good_values_and_model_names_pass_the_same_checks():
    deps = parser_for(get_agent("deps"))
    for llm in ("standin", "standin:deps:0", "standin:deps:off:1", "standin:deps", "gpt-4o",
                "openai:gpt-4o-mini", "local:", "scripted:answers.json"):
        assert deps.parse_args(["--llm", llm]).llm == llm
    assert deps.parse_args(["--replan-rounds", "inf"]).agent_replan_rounds is None
    assert parser_for(get_agent("ipp")).parse_args(["--llm", "standin:ipp:carry,cost"]).llm


def test_a_config_or_a_caller_gets_the_same_ranges_as_the_flags():
    """``make_options`` (a bench cell's options, run_job's) checks what argparse checks."""
    with pytest.raises(OptionError, match="'threshold' must be from 0 to 1, got 1.5"):
        get_agent("copic").make_options(threshold=1.5)
    with pytest.raises(OptionError, match="'replan_rounds'"):
        get_agent("deps").make_options(replan_rounds=-1)
    with pytest.raises(OptionError, match="'policy_lr'"):
        get_agent("twosome").make_options(policy_lr=float("nan"))
    assert get_agent("copic").make_options(threshold=1).threshold == 1.0


def test_the_deps_runner_names_a_bad_stand_in_spec():
    """From Python too: the stand-in's rate is read by the shared parser, not float()."""
    from pddlkit.skills.deps.runner import run_deps

    for spec in ("standin:deps:abc", "standin:deps:1.5"):
        with pytest.raises(ValueError, match=f"{spec}: the error rate must be a number from "
                                             f"0 to 1"):
            run_deps(["wooden_pickaxe"], spec)
    with pytest.raises(ValueError, match="standin:0.5: this spelling was removed; write "
                                         "standin:deps:0.5"):
        run_deps(["wooden_pickaxe"], "standin:0.5")


def test_printing_a_ledger_says_what_was_spent():
    from pddlkit.llm import ScriptedLLM, UsageLedger

    llm = ScriptedLLM(["one", "two"], cache=False, ledger=UsageLedger())
    llm.complete("hello there")
    llm.complete("again")
    shown, internal = str(llm.ledger), repr(llm.ledger)
    assert shown.startswith("2 LLM calls (0 from cache), ") and "completion tokens" in shown
    assert "s waiting for answers" in shown
    assert internal.startswith("UsageLedger(calls=2, ") and "models=['scripted']" in internal
    assert "object at 0x" not in shown + internal


def test_a_bare_model_name_is_an_openai_model():
    """``--llm gpt-4o`` as the openai client takes it; a stand-in's word is not a model."""
    from pddlkit.llm import load_llm
    from pddlkit.llm.errors import LLMSpecError
    from pddlkit.llm.spec import parse_spec

    llm = load_llm("gpt-4o", api_key="sk-test", cache=False)
    assert type(llm).__name__ == "OpenAIChat" and llm.model == "gpt-4o"
    local = load_llm("Qwen/Qwen2.5-7B-Instruct@http://127.0.0.1:9/v1", cache=False)
    assert (local.model, local.base_url) == ("Qwen/Qwen2.5-7B-Instruct", "http://127.0.0.1:9/v1")
    assert parse_spec("gpt-4o-mini") == ("openai", "gpt-4o-mini")
    assert parse_spec("standin") == ("standin", None)    # the stand-ins' kind, not a model
    with pytest.raises(LLMSpecError, match="offline stand-in"):
        load_llm("standin")
    with pytest.raises(LLMSpecError, match="offline stand-in"):
        parse_spec("standin-off")   # a removed stand-in spelling is not a bare model name
    with pytest.raises(LLMSpecError) as err:
        parse_spec("opnai")
    assert err.value.hint == "did you mean 'openai'?"
    with pytest.raises(LLMSpecError) as err:
        parse_spec("llama3:8b")
    assert err.value.hint == "a model name with a colon goes after the kind: openai:llama3:8b"


def test_every_agent_of_any_panel_has_a_legend_entry(tmp_path, monkeypatch):
    """Agent "second-only" played only the second environment: it still has an entry."""
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from pddlkit.bench.plots import success_vs_difficulty

    base = {"level_index": 0, "seed": 0, "success": True, "stand_in": None, "llm": "gpt-4o"}
    rows = [{**base, "agent": "both", "env": "coin-collector", "difficulty": "3"},
            {**base, "agent": "both", "env": "household", "difficulty": "easy"},
            {**base, "agent": "second-only", "env": "household", "difficulty": "easy"}]
    kept = []
    monkeypatch.setattr(plt, "close", kept.append)   # keep the figure to read its legend
    success_vs_difficulty(rows, tmp_path / "plot.png")
    fig = kept[0]
    labels = {t.get_text() for legend in [*fig.legends, *(ax.get_legend() for ax in fig.axes)]
              if legend is not None for t in legend.get_texts()}
    assert labels == {"both", "second-only"} and (tmp_path / "plot.png").exists()


def test_pddlkit_llm_refuses_a_port_out_of_range_naming_the_flag():
    from cli_runner import run_cli

    for port in ("0", "70000", "http"):
        done = run_cli("llm", "status", "--port", port)
        assert done.returncode == 2 and "--port" in done.stderr, (port, done.stderr)


@pytest.mark.parametrize("argv", [["--seed", "-1"], ["--episodes", "0"], ["--max-steps", "0"],
                                  ["--llm", "standin:pddlego:x"]])
def test_a_bad_value_is_one_line_and_a_pointer_to_help(argv, capsys):
    """Issue 71: argparse printed its whole usage block (a dozen lines for pddlego) before the
    one line that matters; now the error is that line, then where the usage is."""
    from pddlkit.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["run", "pddlego", *argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2
    assert len(err) == 2 and err[0].startswith("pddlkit run pddlego: error: argument "
                                               f"{argv[0]}"), err
    assert err[1] == "(see pddlkit run pddlego --help)" and "usage:" not in "\n".join(err)


def test_shipped_text_uses_the_current_spellings():
    """Issue 71: every agent's default and help, and every example sweep, spell stand-ins the
    current way (``--llm noisy`` in ``run pddlego --help`` and ``llm = "observation"`` in
    ``examples/robustness.toml`` were the deprecated spellings the README warns about; since
    issue 74 they are refused, so one left here would be a command that fails)."""
    import re
    import tomllib

    from pddlkit.agents.standins import StandInError, parse_stand_in

    def removed(word: str, agent) -> bool:
        try:
            parse_stand_in(word, agent.stand_ins, agent.name)
        except StandInError as exc:
            return "this spelling was removed" in str(exc)
        return False

    for name in agent_names():
        spec = get_agent(name)
        assert not removed(spec.default_llm, spec), name
        text = parser_for(spec).format_help() + (spec.help_text() or "")
        for line in text.splitlines():
            for word in re.findall(r"--llm\s+(\S+)", line):
                runs = re.search(r"pddlkit run (\S+)", line)
                agent = get_agent(runs.group(1)) if runs else spec
                spelled = re.sub(r"\[.*", "", word.strip("`'\",.;)"))   # standin:deps[:rate]
                assert not removed(spelled, agent), (name, word)
    sweeps = [*(REPO / "examples").rglob("*.toml"), *(REPO / "benchmarks").rglob("*.toml")]
    for path in sorted(sweeps):
        sweep = tomllib.loads(path.read_text())
        for row in sweep.get("agents", []):
            if "llm" in row or "llms" in row:
                agent = get_agent(row.get("agent", "pddlego"))
                for llm in row.get("llms") or [row["llm"]]:
                    assert not removed(llm, agent), (path.name, llm)
