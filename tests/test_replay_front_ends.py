"""The other front ends' real-model runs replay through today's code (issue 74: behaviour
kept, proven on real answers): ``benchmarks/replay_front_ends.py`` plays a kept run again with
its row's arguments and ``--llm replay:`` its transcript, and compares the outcomes.

PLAP's fs-tip run without ``--progress`` (Qwen2.5-Coder 1.5B, 3 of 5 games won against
RandomBiasedAI, the row issue 76's target was read from) is replayed whole; a run whose
prompt changed since it was measured is said to be one, with what changed, not counted as a
difference of behaviour."""

from __future__ import annotations

from conftest import benchmark_script, need_microrts

FS_TIP_OFF = "plap-microrts-vs-randombiasedai-5-games-fs-tip-off"


def test_plap_fs_tip_without_progress_replays_to_the_same_games(monkeypatch):
    need_microrts()
    tool = benchmark_script("replay_front_ends", monkeypatch)
    assert tool.row_of(FS_TIP_OFF) == (["plap", "--env", "microrts", "--max-cycles", "600",
                                        "--episodes", "5", "--constrained", "--variant",
                                        "fs-tip"], "off")
    recorded = tool.outcomes(tool.RECORDS / f"{FS_TIP_OFF}.jsonl.gz")
    assert [o["won"] for o in recorded] == [True, True, True, False, False]
    verdict, detail = tool.replay(FS_TIP_OFF, timeout=600)
    assert (verdict, detail) == ("same", "5 episodes, 3 won, 25 calls")


def test_a_run_whose_prompt_changed_is_said_so(monkeypatch):
    tool = benchmark_script("replay_front_ends", monkeypatch)
    miss = ("invalid (first: ReplayMissError: x.jsonl has no recorded answer to this request; "
            "the closest recorded request is on line 1, and they differ in message 0 (user):\n"
            "    --- recorded\n    +++ asked now\n    @@ -61 +61,3 @@\n     same line\n"
            "    +\n    +Write at most 16 lines.\n")
    said = tool._first_change(miss)
    assert "prompt changed" in said and "message 0 (user)" in said
    assert "recorded '(nothing)'" in said and "asked now 'Write at most 16 lines.'" in said
    assert tool.row_of("plap-microrts-vs-randombiasedai-5-games-on-rerun")[1] == "on"
    assert tool.row_of("no-such-run-off") is None
    assert FS_TIP_OFF in tool.kept_runs(["fs-tip"])
