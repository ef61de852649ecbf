"""A sweep's cells are what they say they are, and a sweep that cannot run says so first.

* A stored row is reused only for the cell that measured it: change one option of a finished
  sweep and exactly the cells it touches run again (they once printed "0 episodes run, 120
  already in the results"); rows from before the hash are not reused, with one note.
* A misspelt environment, option or difficulty, and an empty sweep, exit 2 naming it before
  any episode runs (a misspelt environment once ended in ``BrokenProcessPool``, the others in
  one failure per cell or in exit 0 with nothing run).
* A pair the agent's declaration rules out is skipped and said once, not failed per cell.
* ``kill -9`` of ``pddlkit bench`` leaves none of its processes behind.

The agents are the offline stand-ins (``pddlego`` with the observation and noisy formalizers,
``deps`` with its recipe-table stand-in), so each test takes seconds.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

from pddlkit.agents import AgentSpec
from pddlkit.bench import ResultsFile, load_sweep, run_sweep

SWEEP = """
name = "options"
seeds = 2

[[agents]]
label = "reference"
agent = "pddlego"
llm = "standin:pddlego"

[[agents]]
label = "noisy"
agent = "pddlego"
llm = "standin:pddlego:noisy:0.3"
options = { retries = RETRIES }

[[envs]]
env = "coin-collector"
difficulty = "rooms"
levels = [3, 5]
"""


def _config(folder: Path, text: str, name: str = "sweep.toml") -> Path:
    path = folder / name
    path.write_text(text)
    return path


def _bench(*args: str) -> subprocess.CompletedProcess:
    """``pddlkit bench`` in this process (tests/cli_runner.py): what it prints and exits with."""
    from cli_runner import run_cli

    return run_cli("bench", *args, "--no-progress")


def _bench_child(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``pddlkit bench`` in a child process: for what must hold across processes."""
    return subprocess.run([sys.executable, "-m", "pddlkit.cli", "bench", *args, "--no-progress"],
                          capture_output=True, text=True, timeout=timeout)


def test_changing_one_option_runs_exactly_the_cells_it_changes(tmp_path):
    out = tmp_path / "out"
    sweep = load_sweep(_config(tmp_path, SWEEP.replace("RETRIES", "5")), output=out)
    assert len(sweep.cells) == 2 * 2 * 2
    first = run_sweep(sweep, executor_name="inline", progress=False)
    assert first.ran == 8 and first.ok

    # retries 5 -> 0 on the noisy agent: its 4 cells run again, the reference's 4 are reused
    changed = load_sweep(_config(tmp_path, SWEEP.replace("RETRIES", "0")), output=out)
    stream = io.StringIO()
    second = run_sweep(changed, executor_name="inline", progress=False, stream=stream)
    assert (second.ran, second.skipped) == (4, 4), stream.getvalue()
    rows = ResultsFile(out / "results.jsonl").rows()
    assert len(rows) == 8 and len({r["key"] for r in rows}) == 8  # one row per cell
    noisy = {c.key for c in changed.cells if c.agent == "noisy"}
    assert {r["key"] for r in rows if r["options"].get("retries") == 0} == noisy
    assert "4 row(s) were measured with other options" in stream.getvalue()
    assert {c.key for c in changed.cells} == {c.key for c in sweep.cells}
    assert {c.config for c in changed.cells if c.agent == "noisy"}.isdisjoint(
        {c.config for c in sweep.cells})
    assert {r["config"] for r in rows} == {c.config for c in changed.cells}
    old = ResultsFile(out / "results.superseded.jsonl").rows()
    assert sorted(r["key"] for r in old) == sorted(noisy)

    # the default written out, or the option's alias, is the same cell: nothing runs
    same = SWEEP.replace("RETRIES", "0").replace(
        'llm = "standin:pddlego"', 'llm = "standin:pddlego"\noptions = { retries = 5, '
                                   'action_budget = 50 }')
    again = run_sweep(load_sweep(_config(tmp_path, same), output=out), executor_name="inline",
                      progress=False)
    assert (again.ran, again.skipped) == (0, 8)


def test_rows_without_a_config_hash_are_not_reused_and_said_once(tmp_path):
    out = tmp_path / "out"
    sweep = load_sweep(_config(tmp_path, SWEEP.replace("RETRIES", "5")), output=out,
                       seeds=1)
    assert run_sweep(sweep, executor_name="inline", progress=False).ran == 4
    results = out / "results.jsonl"
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    results.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "config"}) + "\n"
                               for r in rows))  # what the earlier code wrote
    stream = io.StringIO()
    again = run_sweep(sweep, executor_name="inline", progress=False, stream=stream)
    assert (again.ran, again.skipped) == (4, 0)
    notes = [line for line in stream.getvalue().splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and "4 row(s) were written before" in notes[0], notes
    assert len(ResultsFile(results).rows()) == 4


@pytest.mark.parametrize("edit, named", [
    (("coin-collector", "coin-colector"), "unknown environment 'coin-colector'; did you mean "
                                          "'coin-collector'?"),
    (("retries = RETRIES", "retrys = 5"), "pddlego has no option 'retrys'"),
    (("retries = RETRIES", "retries = -1"), "option 'retries' must be 0 or more, got -1"),
    (('difficulty = "rooms"', 'difficulty = "room"'), "difficulty = 'room' names no option of "
                                                      "coin-collector (did you mean 'rooms'?)"),
    (("levels = [3, 5]", 'levels = [3, "five"]'), "option 'rooms' takes int, got 'five'"),
    (("seeds = 2", "seeds = -3"), "empty sweep: seeds = -3 gives no episodes"),
    (('llm = "standin:pddlego"', 'llm = "obsrvation"'), "llm = 'obsrvation':"),
    (('llm = "standin:pddlego"', 'llm = "observation"'),   # removed (issue 74): the new named
     "llm = 'observation': observation: this spelling was removed; write standin:pddlego "),
])
def test_a_sweep_that_cannot_run_exits_2_naming_why_before_any_episode(tmp_path, edit, named):
    text = SWEEP.replace(*edit).replace("RETRIES", "5")
    done = _bench(str(_config(tmp_path, text)), "--output", str(tmp_path / "out"))
    assert done.returncode == 2, done.stderr
    assert named in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()  # nothing ran, nothing was written


def test_a_misspelt_level_value_is_refused_before_any_episode(tmp_path):
    """The environment class's option_choices: 'haet' is no household difficulty."""
    config = _config(tmp_path, """
seeds = 1
[[agents]]
agent = "pddlego"
llm = "standin:pddlego"

[[envs]]
env = "household"
difficulty = "difficulty"
levels = ["heat", "haet"]
""")
    done = _bench(str(config), "--output", str(tmp_path / "out"))
    assert done.returncode == 2, done.stderr
    assert ("household option 'difficulty' has no value 'haet' (did you mean 'heat'?)"
            in done.stderr), done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "out").exists()


@pytest.mark.parametrize("flags, named", [
    (["--seeds", "0"], "empty sweep: --seeds 0 gives no episodes"),
    (["--envs", "household"], "empty sweep: --envs 'household' matches no environment of the "
                              "sweep; the sweep's: coin-collector"),
    (["--agents", "refrence"], "empty sweep: --agents 'refrence' matches no agent label or "
                               "kind of the sweep (did you mean 'reference'?)"),
])
def test_an_empty_sweep_exits_2_naming_why(tmp_path, flags, named):
    config = _config(tmp_path, SWEEP.replace("RETRIES", "5"))
    done = _bench(str(config), "--output", str(tmp_path / "out"), *flags)
    assert done.returncode == 2, done.stderr
    assert named in done.stderr
    assert not (tmp_path / "out").exists()


def test_pairs_an_agent_does_not_play_are_skipped_and_said_once(tmp_path):
    config = _config(tmp_path, """
seeds = 3
[[agents]]
agent = "pddlego"
llm = "standin:pddlego"        # declares none: text worlds, so craft (a game) is skipped

[[agents]]
agent = "deps"                 # declares craft and crafter: coin-collector is skipped

[[envs]]
env = "coin-collector"
options = { rooms = 3 }

[[envs]]
env = "craft"
options = { task = "stone_pickaxe" }
""")
    done = _bench_child(str(config), "--output", str(tmp_path / "out"), "--executor", "inline")
    assert done.returncode == 0, done.stderr
    skipped = [line for line in done.stderr.splitlines() if line.startswith("skipped:")]
    assert skipped == ["skipped: pddlego/standin:pddlego x craft: pddlego declares no "
                       "environments of its own, so it plays text worlds; craft is a game "
                       "with an interface of its own (kind 'game')",
                       "skipped: deps x coin-collector: deps plays craft, crafter"], skipped
    rows = ResultsFile(tmp_path / "out" / "results.jsonl").rows()
    assert sorted((r["kind"], r["env"]) for r in rows) == \
        [("deps", "craft")] * 3 + [("pddlego", "coin-collector")] * 3
    assert "6 episodes run" in done.stderr and "failed" not in done.stderr
    # the hash is the same in another process: this one reuses every row the CLI wrote
    again = run_sweep(load_sweep(config, output=tmp_path / "out"), executor_name="inline",
                      progress=False)
    assert (again.ran, again.skipped) == (0, 6)

    # an entry that asks for a pair its agent does not play is refused, not run
    bad = config.read_text().replace('agent = "deps"', 'agent = "deps"\nenvs = ["coin-collector"]')
    refused = _bench(str(_config(tmp_path, bad, "bad.toml")), "--output", str(tmp_path / "o2"))
    assert refused.returncode == 2
    assert "agents[1] (deps) lists envs[0] (coin-collector) in its 'envs', but deps plays " \
           "craft, crafter" in refused.stderr


class Unpicklable(Exception):
    """An exception of a third party's agent: its ``__init__`` takes two arguments, so the
    default pickling (rebuilt from the message alone) cannot bring it back."""

    def __init__(self, seed: int, why: str) -> None:
        super().__init__(f"seed {seed}: {why}")


@dataclass
class _NoOptions:
    pass


def _play_odd_seeds_fail(job):
    for seed in job.seeds:
        episode = job.episode(seed)
        if seed % 2:
            raise Unpicklable(seed, "odd seeds are not played")
        yield episode.row(True, summary="played")


#: an agent importable in a worker process as ``test_bench_sweeps:ODD_SEEDS_FAIL``
ODD_SEEDS_FAIL = AgentSpec("odd-seeds-fail", "fails on odd seeds with an exception that does "
                           "not unpickle", _NoOptions, _play_odd_seeds_fail, default_llm="none")


def test_an_exception_that_does_not_unpickle_fails_its_cell_not_the_pool(tmp_path):
    config = _config(tmp_path, """
seeds = 4
workers = 2
[[agents]]
agent = "test_bench_sweeps:ODD_SEEDS_FAIL"
[[envs]]
env = "coin-collector"
""")
    sweep = load_sweep(config, output=tmp_path / "out")
    outcome = run_sweep(sweep, executor_name="process", progress=False, stream=io.StringIO())
    assert outcome.ran == 2 and outcome.won == 2
    assert sorted(key for key, _ in outcome.failed) == sorted(
        c.key for c in sweep.cells if c.seed % 2)
    assert all(error.startswith("Unpicklable: seed ") and "odd seeds are not played" in error
               for _, error in outcome.failed), outcome.failed


def _proc_table() -> dict[int, tuple[int, str, str]]:
    """pid -> (parent pid, state, start time) of every process, from /proc."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        table[int(entry)] = (int(fields[1]), fields[0], fields[19])
    return table


def _descendants(root: int) -> dict[int, str]:
    """The living descendants of ``root``: pid -> start time (to tell a reused pid)."""
    table = _proc_table()
    found: dict[int, str] = {}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, state, started) in table.items():
            if ppid == parent and pid not in found and state != "Z":
                found[pid] = started
                frontier.append(pid)
    return found


def _alive(pid: int, started: str) -> bool:
    now: Optional[tuple[int, str, str]] = _proc_table().get(pid)
    return now is not None and now[2] == started and now[1] != "Z"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_kill_9_of_a_sweep_leaves_no_process(tmp_path):
    config = _config(tmp_path, """
seeds = 60
workers = 2
[[agents]]
agent = "pddlego"
llm = "standin:pddlego:noisy:0.3"
[[envs]]
env = "household"
difficulty = "difficulty"
levels = ["heat", "clean"]
options = { receptacles = 10 }
""")
    results = tmp_path / "out" / "results.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "pddlkit.cli", "bench", str(config),
                             "--output", str(tmp_path / "out"), "--no-progress"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    children: dict[int, str] = {}
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            children = _descendants(proc.pid)
            if results.exists() and results.read_text().count("\n") >= 4 and len(children) >= 2:
                break
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.1)
        assert len(children) >= 2, "the workers never started"
        os.kill(proc.pid, signal.SIGKILL)  # the sweep alone, as a shell's kill -9 would
        proc.wait()
        time.sleep(2)
        left = {pid for pid, started in children.items() if _alive(pid, started)}
        assert not left, f"{len(left)} of the sweep's {len(children)} processes outlived it"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # whatever a failure left, in its group
        except ProcessLookupError:
            pass
        for pid, started in children.items():
            if _alive(pid, started):
                os.kill(pid, signal.SIGKILL)


def _run_line(*args: str) -> str:
    """The one line ``pddlkit run`` refuses ``args`` with, its ``pddlkit run AGENT:`` left out."""
    from cli_runner import run_cli

    done = run_cli("run", *args)
    assert done.returncode == 2, done.stderr
    return done.stderr.strip().splitlines()[-1].split(": ", 1)[1]


@pytest.mark.parametrize("env, entry, level, run_args", [
    ("craft", 'difficulty = "task"\nlevels = ["MT1", "stone_pickax"]', 'task = "stone_pickax": ',
     ("deps", "--task", "stone_pickax")),
    ("craft", 'options = { task = "stone_pickax" }', "", ("deps", "--task", "stone_pickax")),
    ("crafter", 'difficulty = "task"\nlevels = ["diamnd"]', 'task = "diamnd": ',
     ("deps", "--env", "crafter", "--task", "diamnd")),
])
def test_a_misspelt_task_is_refused_before_any_cell_with_the_runs_line(tmp_path, env, entry,
                                                                        level, run_args):
    """Issue 71: a DEPS sweep over ``stone_pickax`` started, failed the cell with a ValueError
    and exited 1 saying it would run again, on every rerun; ``pddlkit run deps --task
    stone_pickax`` refuses it at once. The sweep now refuses it before any cell, with the
    run's own line and its did-you-mean, and exits 2."""
    config = _config(tmp_path, f"""
seeds = 1
[[agents]]
agent = "deps"
[[envs]]
env = "{env}"
{entry}
""")
    done = _bench(str(config), "--output", str(tmp_path / "out"), "--executor", "inline")
    assert done.returncode == 2, done.stderr
    line = _run_line(*run_args)
    assert "did you mean" in line
    assert f"envs[0] ({env}) with agents[0] (deps): {level}{line}" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "failed" not in done.stderr
    assert not (tmp_path / "out").exists()   # no cell started


#: a sweep of PLAP's stand-in on MicroRTS, its difficulty and levels to follow
PLAP_SWEEP = """
seeds = 1
[[agents]]
label = "standin"
agent = "plap"
llm = "standin"
[[envs]]
env = "microrts"
"""


def test_a_misspelt_plap_match_is_refused_before_any_cell(tmp_path):
    """PLAP's levels name a side and an opponent; a bot the engine does not have, a side
    other than blue or red, a planner stand-in PLAP does not have: each refused up front."""
    base = PLAP_SWEEP + """difficulty = "match"
levels = ["blue:RandomBiasedAI", "red:plap:standin:plap:noisy", "blue:bot:LightRush", LEVEL]
"""
    for level, named in (('"blue:WorkerRsh"', "microrts has no opponent 'WorkerRsh' (did you "
                                              "mean 'WorkerRush'?)"),
                         ('"rd:WorkerRush"', "side must be blue or red, got 'rd'"),
                         ('"red:plap:standin:plap:nosy"', "standin:plap:nosy: plap has no "
                                                          "stand-in mode 'nosy' (did you "
                                                          "mean 'noisy'?)"),
                         ('"red:plap:standin-noisy"', "standin-noisy: this spelling was "
                                                      "removed; write standin:plap:noisy ")):
        config = _config(tmp_path, base.replace("LEVEL", level))
        done = _bench(str(config), "--output", str(tmp_path / "out"))
        assert done.returncode == 2, done.stderr
        assert f"with agents[0] (standin): match = {level}: {named}" in done.stderr, done.stderr
        assert not (tmp_path / "out").exists()
    # the well-spelt levels (and the leaderboard's own config) check, and say nothing else
    sweep = load_sweep(_config(tmp_path, base.replace(", LEVEL", "")), output=tmp_path / "o")
    assert len(sweep.cells) == 3
    assert len(load_sweep(Path(__file__).resolve().parent.parent / "benchmarks"
                          / "plap-leaderboard.toml").cells) == 120


def test_a_misspelt_map_only_the_environment_reads_is_refused_before_any_cell(tmp_path):
    """Issue 71's last gap: a name no agent reads, only the environment's constructor (a
    MicroRTS map), failed its cell on every rerun; the environment's ``check_options``, with no
    engine started, refuses it up front as ``pddlkit run plap --map`` does."""
    base = PLAP_SWEEP + """difficulty = "map"
levels = ["basesWorkers8x8", LEVEL]
"""
    config = _config(tmp_path, base.replace("LEVEL", '"basesWorkers8x8Obstacl"'))
    done = _bench(str(config), "--output", str(tmp_path / "out"))
    assert done.returncode == 2, done.stderr
    assert "no MicroRTS map 'basesWorkers8x8Obstacl'" in done.stderr, done.stderr
    assert "basesWorkers8x8Obstacle" in done.stderr and not (tmp_path / "out").exists()
    good = load_sweep(_config(tmp_path, base.replace("LEVEL", '"basesWorkers8x8Obstacle"')),
                      output=tmp_path / "o")
    assert len(good.cells) == 2
