"""The agents layer (pddlkit.agents): one CLI shape, one row shape, every common flag on every
agent, bench counts over rows that carry rates, sweeps whose rows use the LLM they name, and
the import graph (the core imports no front end; no front end imports another)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pddlkit.agents import Row, agent_names, get_agent
from pddlkit.bench.report import markdown
from pddlkit.envs import make

REPO = Path(__file__).resolve().parent.parent
FRONT_ENDS = ("formalizers", "programs", "skills", "critic")


def _run(*args, env=None, timeout=600):
    """``pddlkit run *args`` in this process (tests/cli_runner.py), with no response cache."""
    from cli_runner import run_cli

    return run_cli("run", *args, env={"PDDLKIT_NO_CACHE": "1", **(env or {})})


def _plangen_answers(folder: Path) -> Path:
    """A scripted model that answers CoinCollector's true plan (from the full PDDL world the
    environment is built on), one command a call, for seeds 1 and 2."""
    import pddlkit
    from pddlkit.pddl.writer import write_domain, write_problem

    commands = []
    for seed in (1, 2):
        env = make("coin-collector", rooms=3)
        env.reset(seed)
        planned = pddlkit.plan(write_domain(env.domain), write_problem(env.problem))
        commands += env.commands_for_plan(planned.plan)
    path = folder / "answers.json"
    path.write_text(json.dumps([json.dumps({"actions": [c]}) for c in commands]))
    return path


#: each agent with settings that keep one episode short
FAST = {
    "pddlego": ["--env", "coin-collector", "--rooms", "3", "--llm", "standin:pddlego:noisy"],
    "plangen": ["--env", "coin-collector", "--rooms", "3"],
    "ipp": ["--env", "grasp", "--train", "4", "--eval", "4", "--rounds", "1", "--workers", "1"],
    "deps": ["--env", "craft", "--task", "wooden_pickaxe"],
    "copic": ["--env", "sc2-build", "--difficulty", "easy", "--copic-critic", "uniform",
              "--programs", "1", "--no-evolve", "--round-episodes", "1", "--summary-episodes",
              "1", "--eval-episodes", "1"],
    "plap": ["--env", "microrts", "--max-cycles", "150", "--plan-every", "50"],
    "twosome": ["--env", "household", "--receptacles", "8", "--critic-device", "cpu",
                "--train-episodes", "1", "--eval-episodes", "1", "--budget", "3",
                "--ppo-steps", "4"],
}
#: agents whose stand-in (or scripted model) asks through a pddlkit LLM, so the transcript fills
ASKS_AN_LLM = ("plangen", "ipp", "deps", "copic", "plap")


def test_every_agent_is_registered_with_fast_settings_here():
    assert sorted(FAST) == agent_names()


@pytest.mark.slow
@pytest.mark.parametrize("agent", sorted(FAST))
def test_every_common_flag_works_on_every_agent(agent, tmp_path, request):
    args = list(FAST[agent])
    if agent == "plangen":
        args += ["--llm", f"scripted:{_plangen_answers(tmp_path)}"]
    if agent == "twosome":
        args += ["--critic-model", str(request.getfixturevalue("tiny"))]
    record, transcript = tmp_path / "run.jsonl", tmp_path / "llm.jsonl"
    llm_flags = ["--transcript", transcript, "--max-tokens", 40]
    if not get_agent(agent).uses_llm:   # TWOSOME: refused, not dropped in silence
        refused = _run(agent, *args, *llm_flags, "--quiet")
        assert refused.returncode == 2 and "makes no LLM call" in refused.stderr
        assert "--max-tokens, --transcript" in refused.stderr
        llm_flags = []
    done = _run(agent, *args, "--seed", 1, "--episodes", 2, "--record", record, *llm_flags,
                "--quiet", "--json")
    assert done.returncode in (0, 1), done.stderr[-3000:]
    rows = json.loads(done.stdout)  # --quiet and --json: nothing but the rows on stdout
    assert [r["seed"] for r in rows] == [1, 2] and all(r["agent"] == agent for r in rows)
    for r in rows:
        assert {"won", "success_rate", "trials", "llm_calls", "prompt_tokens", "stand_in"} \
            <= set(r)
        assert isinstance(r["won"], bool) and 0.0 <= r["success_rate"] <= 1.0
        assert r["won"] == (r["success_rate"] == 1.0)
    events = [json.loads(line) for line in record.read_text().splitlines()]
    assert [e["episode"] for e in events if e["type"] == "start"] == [1, 2]
    outcomes = [e for e in events if e["type"] == "outcome"]
    assert [e["seed"] for e in outcomes] == [1, 2]
    assert [e["won"] for e in outcomes] == [r["won"] for r in rows]
    # won, or for an agent whose outcome is a score (IPP), scored (pddlkit.agents.cli)
    assert done.returncode == (0 if all(Row.from_dict(r).succeeded for r in rows) else 1)
    assert transcript.exists() or not llm_flags
    if agent in ASKS_AN_LLM:
        calls = [json.loads(line) for line in transcript.read_text().splitlines()]
        assert calls and all(c["request"]["max_tokens"] <= 40 for c in calls), calls[:1]
        assert sum(r["llm_calls"] for r in rows) == len(calls)


def test_run_lists_the_agents_and_each_agent_has_its_own_help():
    listing = _run("--help")
    assert listing.returncode == 0
    for name in agent_names():
        assert f"  {name} " in listing.stdout
    deps = _run("deps", "--help")
    assert deps.returncode == 0 and "--replan-rounds" in deps.stdout
    assert "--copic-critic" not in deps.stdout and "--max-tokens" in deps.stdout
    unknown = _run("dep")
    assert unknown.returncode == 2 and "did you mean 'deps'" in unknown.stderr


def test_an_environment_the_agent_does_not_play_is_one_line():
    done = _run("deps", "--env", "coin-collector")
    assert done.returncode == 2 and "use one of craft, crafter" in done.stderr
    assert "Traceback" not in done.stderr
    # an agent that names no environments plays text worlds: a game is refused the same way
    game = _run("pddlego", "--env", "sc2-build", "--llm", "standin:pddlego")
    assert game.returncode == 2 and "sc2-build is a game with an interface of its own" \
        in game.stderr and "Traceback" not in game.stderr


def test_the_report_counts_trials_not_rows_that_carry_a_rate():
    """A DEPS row at half its tasks, and a pre-agents-layer row whose success was a rate, are
    neither counted as won cells."""
    base = {"env": "craft", "difficulty": "-", "level_index": 0, "llm": "standin",
            "stand_in": "stand-in"}
    rows = [{**base, "agent": "deps", "seed": 0, "won": False, "success_rate": 0.5,
             "trials": 4},
            {**base, "agent": "deps", "seed": 1, "won": True, "success_rate": 1.0, "trials": 4},
            {**base, "agent": "old", "seed": 0, "success": 0.25}]
    table = markdown(rows).split("Success rate (%) by difficulty: craft", 1)[1].split("###")[0]
    lines = {ln.split("|")[1].strip(): ln.split("|")[-2].strip() for ln in table.splitlines()
             if ln.startswith("| ") and "agent" not in ln}
    assert lines["deps [stand-in]"] == "75"  # 6 of 8 tasks, not 2 of 2 "successful" cells
    assert lines["old [stand-in]"] == "25"
    from pddlkit.agents.row import row_won

    assert [row_won(r) for r in rows] == [False, True, False]


def test_a_sweep_over_llms_runs_each_llm_it_names(tmp_path):
    """CoPiC and DEPS bench cells used to read the LLM from their options, so a sweep over
    ``llms`` ran the stand-in under every model's label."""
    from pddlkit.bench import load_sweep, run_sweep
    from pddlkit.bench.results import ResultsFile

    for name, answer in (("a", "I would rather not."), ("b", "no plan today")):
        (tmp_path / f"{name}.json").write_text(json.dumps([answer] * 40))
    config = tmp_path / "sweep.toml"
    config.write_text(f"""
name = "llms"
seeds = 1
[[agents]]
agent = "deps"
llms = ["scripted:{tmp_path / 'a.json'}", "scripted:{tmp_path / 'b.json'}"]
options = {{ replan_rounds = 1 }}
[[agents]]
agent = "copic"
llms = ["scripted:{tmp_path / 'a.json'}", "scripted:{tmp_path / 'b.json'}"]
options = {{ critic = "uniform", programs = 1, evolve = false, eval = 1 }}
[[envs]]
env = "craft"
options = {{ task = "wooden_pickaxe" }}
[[envs]]
env = "sc2-build"
options = {{ difficulty = "easy" }}
""")
    sweep = load_sweep(config, output=tmp_path / "out")
    sweep.cells[:] = [c for c in sweep.cells if (c.kind, c.env) in (("deps", "craft"),
                                                                      ("copic", "sc2-build"))]
    outcome = run_sweep(sweep, executor_name="inline", progress=False)
    rows = ResultsFile(sweep.results_path).rows()
    deps = [r for r in rows if r["kind"] == "deps"]
    assert sorted(r["llm"] for r in deps) == sorted(f"scripted:{tmp_path / n}.json"
                                                    for n in "ab")
    # the scripted model was asked (its answers are unreadable plans), not the stand-in
    assert all(r["stand_in"] is None and r["unreadable"] > 0 and not r["won"] for r in deps)
    copic = [error for key, error in outcome.failed if key.startswith("copic")]
    assert len(copic) == 2 and all("wrote no program" in e for e in copic), outcome.failed


def test_rows_are_one_shape_and_round_trip():
    row = Row("deps", "craft", "standin", 0, False, 0.5, 4, columns={"by_group": {"MT1": 0.5}})
    data = row.as_dict()
    assert data["won"] is False and data["by_group"] == {"MT1": 0.5}
    assert Row.from_dict(data) == row
    with pytest.raises(ValueError, match="success_rate"):
        Row("x", "y", "z", 0, True, 1.5)


def test_bench_options_are_checked_against_the_agents_options():
    from pddlkit.agents import OptionError

    spec = get_agent("deps")
    assert spec.make_options({"rounds": "inf"}).replan_rounds is None
    with pytest.raises(OptionError, match="deps has no option 'replan'; its options are"):
        spec.make_options({"replan": 3})
    with pytest.raises(OptionError, match="must be one of symbolic, llm"):
        spec.make_options({"explainer": "oracle"})
    with pytest.raises(OptionError, match="must be 1 or more"):
        spec.make_options({"max_actions": 0})


def _imports(path: Path) -> list[str]:
    """Absolute module names ``path`` imports (relative imports resolved in its package)."""
    tree = ast.parse(path.read_text())
    folder = path.parent.relative_to(REPO).parts
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = folder[:len(folder) - node.level + 1]
                out.append(".".join(("pddlkit", *base, *([node.module] if node.module else []))
                                    if base[:1] != ("pddlkit",) else
                                    (*base, *([node.module] if node.module else []))))
            elif node.module:
                out.append(node.module)
    return out


def _front_end(module: str):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "pddlkit" and parts[1] in FRONT_ENDS \
        else None


#: the one edge between front ends, by design: CoPiC chooses among its programs with the LoRA
#: critic and trains it with the critic's PPO (seed 000), so programs/copic uses critic/
ALLOWED = {("programs", "critic")}


def test_the_core_imports_no_front_end_and_no_front_end_imports_another():
    core = [p for p in (REPO / "pddlkit").rglob("*.py")]
    for path in core:
        for module in _imports(path):
            assert _front_end(module) is None and not module.startswith("pddlkit.envs"), \
                (str(path.relative_to(REPO)), module)
    for name in FRONT_ENDS:
        for path in (REPO / name).rglob("*.py"):
            for module in _imports(path):
                other = _front_end(module)
                assert other in (None, name) or (name, other) in ALLOWED, \
                    (str(path.relative_to(REPO)), module)


def test_the_core_names_no_front_end_in_its_code():
    """Not by import and not by string either (a lazy re-export by module name, a default
    agent by name): a front end reaches the core through entry points (``pddlkit.exports``,
    ``pddlkit.agents``, ``pddlkit.env_specs``). Docstrings and comments may name them."""
    import re

    named = re.compile(r"\bpddlkit\.(formalizers|programs|skills|critic|envs)\b|^(pddlego|"
                       r"plangen|ipp|copic|deps|plap|twosome)$")
    found = []
    for path in (REPO / "pddlkit").rglob("*.py"):
        tree = ast.parse(path.read_text())
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                           ast.AsyncFunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)
                      and isinstance(node.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and id(node) not in docstrings and named.search(node.value):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.value[:70]!r}")
    assert not found, "\n".join(found)


def _module_graph() -> dict[str, set[str]]:
    """Every pddlkit module and the pddlkit modules it imports, anywhere in it: a lazy import
    inside a function and a TYPE_CHECKING import included, since a cycle hidden behind either
    is still a cycle (a type-only need is a Protocol on the importing side)."""
    roots = {"pddlkit": "pddlkit", **{f: f"pddlkit.{f}" for f in (*FRONT_ENDS, "envs")}}
    modules = {}
    for folder, package in roots.items():
        for path in (REPO / folder).rglob("*.py"):
            parts = [p for p in path.relative_to(REPO / folder).with_suffix("").parts
                     if p != "__init__"]
            modules[".".join([package, *parts])] = path
    graph = {}
    for name, path in modules.items():
        base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found = set()
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                module = ".".join(base[:len(base) - node.level + 1] + [node.module or ""]) \
                    .rstrip(".") if node.level else node.module
                found |= {f"{module}.{a.name}" if f"{module}.{a.name}" in modules else module
                          for a in node.names}
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def test_no_import_cycles():
    graph = _module_graph()
    for start in graph:  # a path from a module back to itself is a cycle
        seen, todo = set(), list(graph[start])
        while todo:
            module = todo.pop()
            assert module != start, f"{start} imports itself through {sorted(seen)[:6]}"
            if module not in seen:
                seen.add(module)
                todo += graph[module]


def test_run_job_plays_an_agent_from_python(tmp_path):
    from pddlkit.agents import run_job

    spec = get_agent("deps")
    rows = run_job(spec, env="craft", seeds=[0, 1], env_options={"task": "wooden_pickaxe"},
                   options=spec.make_options({"replan_rounds": 3}), record=tmp_path / "r.jsonl")
    assert [r.seed for r in rows] == [0, 1] and all(r.trials == 1 for r in rows)
    assert all(r.stand_in and r.llm == "standin" and r.usage.calls >= 1 for r in rows)
    outcomes = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()
                if json.loads(x)["type"] == "outcome"]
    assert [o["won"] for o in outcomes] == [r.won for r in rows]


def test_max_steps_is_one_budget_flag_for_every_agent_and_environment():
    from pddlkit.agents.cli import options_for, parser_for
    from pddlkit.agents.spec import OptionError, budget_field

    where = {"copic": ["--env", "household"]}
    for name in agent_names():
        spec = get_agent(name)
        argv = where.get(name, FAST[name][:2])
        args = parser_for(spec).parse_args([*argv, "--max-steps", "7"])
        field = budget_field(spec, args.env)
        if field is None:
            with pytest.raises(OptionError, match="has no step budget"):
                options_for(spec, args)
            continue
        assert getattr(options_for(spec, args), field) == 7, name
    assert budget_field(get_agent("copic"), "nethack-drink") == "max_keys"
    assert budget_field(get_agent("ipp"), "grasp") is None
    done = _run("ipp", "--env", "grasp", "--max-steps", "3")
    assert done.returncode == 2 and "ipp on grasp has no step budget" in done.stderr
    # the registry passes a step budget to the environment's own keyword, else a TimeLimit
    assert make("craft", max_episode_steps=3).max_actions == 3
    coin = make("coin-collector", rooms=3, max_episode_steps=4)
    assert type(coin).__name__ == "CoinCollector" and coin.max_steps == 4


def test_ctrl_c_ends_a_run_cleanly(tmp_path):
    """An interrupted run prints one line, no traceback, and exits 130 (the shell's code)."""
    import signal
    import time

    record = tmp_path / "run.jsonl"
    # a shell starts background jobs with SIGINT ignored, and a child inherits that (Python
    # then never raises KeyboardInterrupt): the run gets Ctrl-C's default, as at a terminal
    run = subprocess.Popen([sys.executable, "-m", "pddlkit.cli", "run", "ipp", "--env", "grasp",
                            "--record", str(record)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    for _ in range(600):   # the episode has begun (however slow the start on this machine)
        if record.exists() or run.poll() is not None:
            break
        time.sleep(0.1)
    time.sleep(0.5)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130 and "Traceback" not in err, err
    assert "interrupted (Ctrl-C) in the episode of seed 0 after " in err, err
    assert err.rstrip().endswith(f"; the record so far is in {record}"), err
    # the cut episode's work is in the record: its start, then what it had spent
    events = [json.loads(line) for line in record.read_text().splitlines()]
    assert events[0]["type"] == "start" and events[-1]["type"] == "interrupted", events
    assert [e["type"] for e in events].count("interrupted") == 1
    assert events[-1]["episode"] == 0 and events[-1]["seconds"] > 0
    assert {"calls", "prompt_tokens", "completion_tokens"} <= set(events[-1])


def test_ctrl_c_keeps_what_the_cut_episode_spent_with_a_real_client(tmp_path):
    """The real openai client over HTTP: one answer (11 + 7 tokens, unreadable), then the
    next request hangs and Ctrl-C comes; the episode's row is never written, yet its call
    and tokens are: in the one line and in the record's ``interrupted`` event."""
    import signal
    import time

    from llm_server import ChatServer, answer, hang

    server = ChatServer()
    server.script.extend([answer("no PDDL here", 11, 7), hang(120)])
    record = tmp_path / "run.jsonl"
    try:
        run = subprocess.Popen(
            [sys.executable, "-m", "pddlkit.cli", "run", "pddlego", "--env", "coin-collector",
             "--llm", f"openai:test-model@{server.url}", "--record", str(record)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PDDLKIT_NO_CACHE": "1"},
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        for _ in range(600):   # the second request is hanging
            if len(server.requests) >= 2 or run.poll() is not None:
                break
            time.sleep(0.1)
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=60)
    finally:
        server.stop()
    assert run.returncode == 130 and "Traceback" not in err, err
    assert "in the episode of seed 0 after " in err and " s and 1 LLM call(s); the record " \
        "so far is in " in err, err
    events = [json.loads(line) for line in record.read_text().splitlines()]
    assert [e["type"] for e in events].count("interrupted") == 1
    cut = events[-1]
    assert cut["type"] == "interrupted" and cut["stand_in"] is None, cut
    assert (cut["calls"], cut["prompt_tokens"], cut["completion_tokens"]) == (1, 11, 7), cut
