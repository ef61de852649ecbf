"""PLAP's leaderboard as a user runs it (issue 71): a line per game as it ends, and Ctrl-C
keeps the table of the games finished, with one line and exit status 130, no traceback.

The first two tests stand a scripted game in for the engine (the table's arithmetic is
the engine-free part); the last plays real bot games on the MicroRTS engine and is sent a
real SIGINT."""

from __future__ import annotations

import pytest

from pddlkit.envs.microrts import GameMetrics
from pddlkit.skills.plap import leaderboard

ENTRIES = ["standin", "bot:WorkerRush"]


def _scripted(stop_at=None):
    """A stand-in for :func:`leaderboard.play`: blue wins every game at cycle 100 + seed;
    game ``stop_at`` (1-based) is cut by a Ctrl-C. Records each game it is asked for."""
    asked = []

    def play(blue, red, seed, **options):
        asked.append((blue, red, seed))
        if len(asked) == stop_at:
            raise KeyboardInterrupt
        won = GameMetrics(1, 100 + seed, 3, 5, 8, 4, 2)
        lost = GameMetrics(-1, 100 + seed, 1, 2, 3, 2, 4)
        return won, lost
    return play, asked


def test_each_game_prints_its_line_as_it_ends_then_the_table(monkeypatch, capsys):
    play, asked = _scripted()
    printed, shown_when = [], []

    def counting(*args, **kwargs):   # how many game lines were out before each game began
        printed.append(capsys.readouterr().out)
        shown_when.append("".join(printed).count("\ngame "))
        return play(*args, **kwargs)

    monkeypatch.setattr(leaderboard, "play", counting)
    assert leaderboard.main(ENTRIES + ["--games", "2", "--max-cycles", "300"]) == 0
    assert shown_when == [0, 1, 2, 3]   # each game's line was out before the next began
    assert asked == [("standin", "bot:WorkerRush", 0), ("standin", "bot:WorkerRush", 1),
                     ("bot:WorkerRush", "standin", 0), ("bot:WorkerRush", "standin", 1)]
    out = "".join(printed) + capsys.readouterr().out
    assert "game 4/4: bot:WorkerRush (blue) vs standin (red), seed 1: bot:WorkerRush (blue) " \
           "won at cycle 101" in out
    rows = out.split("entry ")[1].splitlines()[1:]
    assert [r.split()[:4] for r in rows] == [["bot:WorkerRush", "0", "50.0%", "2/0/2"],
                                             ["standin", "0", "50.0%", "2/0/2"]]


def test_ctrl_c_keeps_the_table_of_the_games_finished(monkeypatch, capsys):
    play, asked = _scripted(stop_at=3)
    monkeypatch.setattr(leaderboard, "play", play)
    assert leaderboard.main(ENTRIES + ["--games", "2"]) == 130
    out, err = capsys.readouterr()
    assert [line.split(":")[0] for line in out.splitlines() if line.startswith("game ")] == \
        ["game 1/4", "game 2/4"]
    rows = out.split("entry ")[1].splitlines()[1:]
    # both games finished had standin as blue, winning: the table counts those two alone
    assert [r.split()[:4] for r in rows] == [["standin", "2", "100.0%", "2/0/0"],
                                             ["bot:WorkerRush", "-2", "0.0%", "0/0/2"]]
    assert err.strip().splitlines() == [
        "leaderboard: interrupted (Ctrl-C) after 2 of 4 games; the table above counts those "
        "finished"]


def test_ctrl_c_before_any_game_ended_says_there_is_no_table(monkeypatch, capsys):
    play, _ = _scripted(stop_at=1)
    monkeypatch.setattr(leaderboard, "play", play)
    assert leaderboard.main(ENTRIES + ["--games", "1"]) == 130
    out, err = capsys.readouterr()
    assert "entry " not in out and "game 1/" not in out
    assert "after 0 of 2 games; no game had finished, so there is no table" in err


@pytest.mark.jvm   # the MicroRTS engine, a JVM (make test-fast leaves these out)
@pytest.mark.parametrize("to", ["group", "leaderboard"])
def test_a_real_sigint_after_the_first_game_on_the_engine(to):
    """Real bot games on the engine; SIGINT after the first game's line, to the whole
    process group (a terminal's Ctrl-C: the engine's process gets it too) or to the
    leaderboard alone: exit 130, the table of that game, one line, no traceback."""
    import sys

    from conftest import ctrl_c, interruptible, need_microrts

    need_microrts()
    run = interruptible([sys.executable, "-m", "pddlkit.skills.plap.leaderboard",
                         "bot:RandomAI", "bot:PassiveAI", "--games", "3", "--max-cycles", "200"])
    lines = []
    for line in run.stdout:
        lines.append(line)
        if line.startswith("game 1/6: "):
            ctrl_c(run, to)
            break
    rest, err = run.communicate(timeout=120)
    out = "".join(lines) + rest
    assert run.returncode == 130, (out, err)
    assert "Traceback" not in out + err, err
    assert "game 1/6: bot:RandomAI (blue) vs bot:PassiveAI (red), seed 0: " in out
    table = out.split("entry ")[1].splitlines()[1:]
    assert sorted(r.split()[0] for r in table) == ["bot:PassiveAI", "bot:RandomAI"]
    assert all(sum(map(int, r.split()[3].split("/"))) >= 1 for r in table), table
    assert err.strip().splitlines()[-1].startswith("leaderboard: interrupted (Ctrl-C) after ")
