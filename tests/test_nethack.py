"""The NetHack adapter (pddlkit.envs.nethack) on real NLE games: a scripted agent drinks on a
seed whose first level shows a fountain or sink, the text rendering reads back as the game's
own screen and status, every skill's keys are NLE actions and back, bad skill calls say why,
and the keystroke budget alone ends an episode."""

from __future__ import annotations

import re
import signal

import pytest
from conftest import need_module


def _ignored(sig: int) -> bool:
    mask = next(line for line in open("/proc/self/status") if line.startswith("SigIgn:"))
    return bool(int(mask.split()[1], 16) >> (sig - 1) & 1)


@pytest.fixture(scope="module")
def nethack():
    need_module("nle", "pip install 'pddlkit[nethack]'")
    from pddlkit.envs import nethack

    return nethack


def test_a_scripted_agent_drinks_where_a_fountain_or_sink_is_reachable(nethack):
    seeds = nethack.task_seeds("drink", count=2)
    assert len(seeds) == 2 and seeds[0] < seeds[1]
    for seed in seeds:
        env = nethack.NetHackTask("drink", seed=seed)
        try:
            env.reset()
            assert any(f["name"] in ("fountain", "sink") for f in env.observe()["Features"])
            assert nethack.scripted_drink(env), f"seed {seed}: {env.message()}"
            assert env.won and 0 < env.keys <= env.max_keys
            with pytest.raises(RuntimeError, match="episode is over"):
                env.skill({"name": "search"})
        finally:
            env.close()


def test_the_rendering_reads_back_as_the_game_screen(nethack):
    env = nethack.NetHackTask("exp-level-3", seed=3)
    try:
        text, info = env.reset()
        assert info == {"won": False, "task": env.task}
        x, y = env.position
        where = re.search(r"You are at x=(\d+), y=(\d+)\. HP (\d+) / (\d+), XP level (\d+), "
                          r"dungeon level (\d+), turn (\d+)", text)
        assert where, text
        stats = env.stats()
        assert (int(where[1]), int(where[2])) == (x, y)
        assert f"{where[3]} / {where[4]}" == stats["HP"]
        assert (int(where[5]), int(where[6]), int(where[7])) == \
            (stats["level"], stats["depth"], stats["time"])
        # the map rows carry the game's own row numbers; the agent's '@' sits at its x
        row = next(line for line in text.splitlines() if line.startswith(f"{y:2d} "))
        left = max(0, x - 16)
        assert row[3 + x - left] == "@"
        assert row[3:] == bytes(env.obs["tty_chars"][y + 1, left:x + 17]).decode(
            "latin-1").rstrip()
        inventory = text.split("Inventory: ", 1)[1]
        assert inventory == "; ".join(f"{k}: {v}" for k, v in env.inventory().items())
        assert len(env.inventory()) >= 2   # a monk starts with gloves, robe, food, a spellbook
    finally:
        env.close()


def test_every_skill_key_is_an_nle_action_and_back(nethack):
    env = nethack.NetHackTask("drink")
    try:
        actions = env.env.unwrapped.actions
        keys = list(nethack.DIRECTIONS.values()) + ["s", "F", "q", "y", "e", ",", "\x1b",
                                                       chr(4), chr(236), chr(13)]
        for key in keys:
            index = env._key_index[ord(key)]
            assert int(actions[index]) == ord(key), repr(key)
        # each direction key moves the agent by its own (dx, dy) on an open floor
        env.reset(3)
        moved = 0
        for (dx, dy), key in nethack.DIRECTIONS.items():
            x, y = env.position
            if not env.walkable(x + dx, y + dy) or nethack.DOORS & {
                    env.memory.get((x, y)), env.memory.get((x + dx, y + dy))}:
                continue
            before = env.keys
            env._key(key)
            if env.position == (x + dx, y + dy):
                moved += 1
            assert env.keys > before
        assert moved >= 1
    finally:
        env.close()


def test_bad_skill_calls_say_what_is_wrong(nethack):
    env = nethack.NetHackTask("drink", seed=3)
    try:
        env.reset()
        unknown = env.skill({"name": "fly"})
        assert unknown.failure == f"unknown skill 'fly'; skills: {', '.join(nethack.SKILLS)}"
        assert not unknown.done and unknown.reward == 0.0
        assert env.skill({"name": "move_to", "x": "here"}).failure == \
            "move_to needs integer x and y"
        x, y = env.position
        assert env.skill({"name": "kick", "x": x + 3, "y": y}).failure == \
            "kick needs x, y next to the agent"
        assert env.skill({"name": "eat", "item_letter": "Z"}).failure == \
            "no item 'Z' in the inventory"
        if env.memory.get((x, y)) not in (30, 31):
            assert env.skill({"name": "drink"}).failure == "there is no sink or fountain here"
        assert env.skill({"name": "finish_task"}).failure == "the task is not done yet"
        assert env.skill({"name": "move_to", "x": 0, "y": 0}).failure == \
            "no known path to x=0, y=0"
    finally:
        env.close()


def test_the_keystroke_budget_alone_ends_an_episode(nethack):
    small = nethack.NetHackTask("drink", seed=3, max_keys=23)
    try:
        small.reset()
        before = _ignored(signal.SIGXCPU), _ignored(signal.SIGHUP)  # nohup ignores SIGHUP
        outcomes = []
        while not small.done:
            outcomes.append(small.skill({"name": "rest"}))
        assert small.keys == 23 and outcomes[-1].done and not outcomes[-1].won
        assert sum(o.keys for o in outcomes) == 23 and all(o.keys > 0 for o in outcomes)
        # the episode ends on the last real observation, not NLE's blank final one (which
        # read "HP 0 / 0, XP level 0" and failed a level reached on the last key)
        stats = small.stats()
        assert stats["HP"] != "0 / 0" and stats["level"] >= 1, stats
        # NetHack's end-of-game code ignores SIGHUP and SIGXCPU in this process when a game
        # ends; the adapter puts back what they were (else every process started later,
        # sandbox workers included, would inherit them ignored)
        assert (_ignored(signal.SIGXCPU), _ignored(signal.SIGHUP)) == before
    finally:
        small.close()
    # NLE truncates at 5000 steps on its own; a larger budget is passed to it, one step past
    # ours, so our budget ends the episode
    large = nethack.NetHackTask("exp-level-3", max_keys=6000)
    try:
        assert large.env.unwrapped._max_episode_steps == 6001
    finally:
        large.close()


def test_a_game_that_ends_in_death_is_summarised_with_its_last_real_status(nethack):
    """NLE writes every observation into the same arrays and blanks them when the game ends,
    so the last real observation the adapter kept read "XP level 0, HP 0 / 0" after a death
    (issue 44). On seed 1 a monk who prays again and again is struck down by his god on
    turn 13; the summary must show the status he died with."""
    from nle import nethack as nle

    from pddlkit.programs.copic.nethack_world import NetHackWorld

    world = NetHackWorld("exp-level-3")
    env = world.env
    try:
        world.reset(1)
        pray = chr(int(nle.Command.PRAY))
        for _ in range(40):
            if env.done:
                break
            env._key(pray)
            if "[yn]" in env.top_line():
                env._key("y")
        assert env.done and env.keys < env.max_keys   # the game ended, not the budget
        stats = env.stats()
        assert (stats["HP"], stats["level"], stats["depth"]) == ("14 / 14", 1, 1), stats
        assert env.status_known()
        summary = world.episode_result(False)
        assert "XP level 1, dungeon level 1, HP 14 / 14" in summary, summary
        assert "0 / 0" not in summary and "XP level 0" not in summary
    finally:
        env.close()


def test_a_summary_without_any_status_from_nle_says_unknown(nethack):
    """Before NLE has given an observation there is no status line: the summary says so
    rather than printing zeros (or failing on the missing blstats)."""
    from pddlkit.programs.copic.nethack_world import NetHackWorld

    world = NetHackWorld("drink")
    try:
        summary = world.episode_result(False)
        assert "XP level unknown" in summary and "HP unknown" in summary, summary
        world.reset(0)
        assert "XP level 1, dungeon level 1, HP 14 / 14" in world.episode_result(False)
    finally:
        world.env.close()
