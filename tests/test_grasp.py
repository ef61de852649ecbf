"""GRASP's rules on hand-made grids (each rule, each edge case), the published corpus, and
the baselines scored through the sandbox."""

from __future__ import annotations

import pytest

from conftest import SHARED, _need
from pddlkit.envs.grasp import (GREEDY_PROGRAM, RANDOM_PROGRAM, SETTINGS, UNLIMITED, Grid,
                                Instance, instances, load_corpus, parse_ascii, run_in_process,
                                simulate, split)
from pddlkit.sandbox import SandboxPool


def _grid(*rows: str) -> Grid:
    """Rows of an 11x11 grid; shorter rows and missing rows are padded with empty cells."""
    cells = [list(r.ljust(11)) for r in rows] + [[" "] * 11 for _ in range(11 - len(rows))]
    start = next((r, c) for r, row in enumerate(cells) for c, v in enumerate(row) if v == "A")
    return Grid(tuple(tuple(r) for r in cells), start)


def _inst(grid: Grid, diagonals=False, carry=UNLIMITED, cost=0.0) -> Instance:
    return Instance(grid, diagonals, carry, cost)


def test_take_walk_back_drop_scores_the_units_in_the_start_cell():
    g = _grid("AEE")
    out = simulate(_inst(g), ["RIGHT", "TAKE", "RIGHT", "TAKE", "LEFT", "LEFT", "DROP"])
    assert out.score == 2 and out.delivered == 2 and out.actions_used == 7
    assert [e.what for e in out.events] == ["moved", "took", "moved", "took", "moved", "moved",
                                            "dropped"]


def test_every_action_costs_take_and_drop_included():
    out = simulate(_inst(_grid("AE"), cost=0.3), ["RIGHT", "TAKE", "LEFT", "DROP"])
    assert out.score == pytest.approx(1 - 0.3 * 4)


def test_carried_energy_does_not_count_and_drop_away_is_lost():
    g = _grid("AEE")
    assert simulate(_inst(g), ["RIGHT", "TAKE"]).score == 0
    away = simulate(_inst(g), ["RIGHT", "TAKE", "RIGHT", "DROP", "LEFT", "LEFT"])
    assert away.score == 0 and away.events[3].what == "dropped-away"
    # energy dropped away lies there and can be taken again
    again = simulate(_inst(g), ["RIGHT", "TAKE", "DROP", "TAKE", "LEFT", "DROP"])
    assert again.score == 1


def test_blocked_moves_use_an_action_and_do_nothing():
    g = _grid("AO", "E")
    out = simulate(_inst(g), ["UP", "LEFT", "RIGHT", "DOWN", "TAKE", "UP", "DROP"])
    assert [e.what for e in out.events[:3]] == ["blocked-edge", "blocked-edge",
                                                "blocked-obstacle"]
    assert out.score == 1 and out.actions_used == 7


def test_diagonals_only_when_allowed():
    g = _grid("A", " E")
    moves = ["DOWNRIGHT", "TAKE", "UPLEFT", "DROP"]
    assert simulate(_inst(g, diagonals=True), moves).score == 1
    four = simulate(_inst(g, diagonals=False), moves)
    assert four.score == 0 and four.events[0].what == "diagonal-not-allowed"


def test_the_carry_limit():
    g = _grid("AEEE")
    moves = ["RIGHT", "TAKE", "RIGHT", "TAKE", "RIGHT", "TAKE", "LEFT", "LEFT", "LEFT", "DROP"]
    assert simulate(_inst(g, carry=2), moves).score == 2
    assert simulate(_inst(g, carry=2), moves).events[5].what == "take-carry-limit"
    assert simulate(_inst(g, carry=UNLIMITED), moves).score == 3


def test_take_on_an_empty_cell_and_unknown_actions():
    out = simulate(_inst(_grid("A")), ["TAKE", "JUMP", "take", "DROP"])
    assert [e.what for e in out.events] == ["take-empty", "unknown-action", "take-empty",
                                            "drop-nothing"]


def test_the_list_is_cut_to_twenty_actions():
    g = _grid("AE")
    moves = ["UP"] * 19 + ["RIGHT", "TAKE", "LEFT", "DROP"]
    out = simulate(_inst(g, cost=0.3), moves)
    assert out.actions_used == 20 and out.cut == 3 and out.score == pytest.approx(-6)
    assert "3 action(s) beyond the limit" in out.account()


def test_the_account_names_each_symptom():
    out = simulate(_inst(_grid("AO")), ["RIGHT", "TAKE", "DROP", "UPLEFT"])
    text = out.account()
    assert "obstacle" in text and "no energy" in text and "carrying nothing" in text
    assert "diagonal" in text


def test_parse_ascii_reads_the_published_drawing():
    drawing = "    0   1\n  +---+\n" + "".join(
        f" {r}|" + "|".join(" A " if (r, c) == (0, 0) else " E " if c == 1 else "   "
                           for c in range(11)) + "|\n  +---+\n" for r in range(11))
    cells = parse_ascii(drawing)
    assert cells[0][0] == "A" and cells[5][1] == "E" and cells[5][2] == " "
    with pytest.raises(ValueError, match="11x11"):
        parse_ascii(" 0| A |\n")


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(_need(SHARED / "corpus" / "grasp" / "grids"))


def test_the_corpus_makes_the_papers_16000_instances(corpus):
    assert len(corpus) == 2000
    assert len(instances(corpus)) == 16000 and len(SETTINGS) == 8
    for g in corpus:
        assert g.cells[g.start[0]][g.start[1]] == "A"
        inner = all(3 <= x <= 7 for x in g.start)
        assert inner == (g.start_position == "inner")
    counts = {(g.start_position, g.distribution, g.obstacles) for g in corpus}
    assert len(counts) == 20
    free = [g.obstacle_count for g in corpus if g.obstacles == "free"]
    assert max(free) == 0


def test_the_split_is_seeded_and_disjoint(corpus):
    train, held = split(corpus, 0.5, seed=3)
    assert len(train) + len(held) == 2000 and not set(map(id, train)) & set(map(id, held))
    assert split(corpus, 0.5, seed=3)[0] == train and split(corpus, 0.5, seed=4)[0] != train


def test_the_baselines_through_the_sandbox_match_in_process_and_are_deterministic(corpus):
    sample = instances(corpus[::40])  # 50 grids x 8 settings
    with SandboxPool(GREEDY_PROGRAM, workers=2) as pool:
        sandboxed = pool.map([i.program_args() for i in sample])
    assert all(r.ok for r in sandboxed)
    local = run_in_process(GREEDY_PROGRAM, sample)
    assert [r.value for r in sandboxed] == local
    greedy = [simulate(i, a).score for i, a in zip(sample, local)]
    random_ = [simulate(i, a).score for i, a in zip(sample, run_in_process(RANDOM_PROGRAM,
                                                                           sample))]
    assert greedy == [simulate(i, a).score for i, a in zip(sample, run_in_process(
        GREEDY_PROGRAM, sample))]
    assert sum(greedy) / len(greedy) > sum(random_) / len(random_) + 1
    assert all(len(a) <= 20 for a in local)


def test_our_generator_matches_the_published_statistics_file_by_file(corpus):
    """Energy counts, obstacle counts and start positions per file (start x distribution x
    obstacles), ours against the published grids."""
    from collections import defaultdict
    from statistics import fmean, pstdev

    from pddlkit.envs.grasp import generate_corpus

    ours = generate_corpus(seed=0)
    assert len(ours) == 2000 and generate_corpus(seed=0) == ours != generate_corpus(seed=1)

    def files(grids):
        out = defaultdict(list)
        for g in grids:
            out[(g.start_position, g.distribution, g.obstacles)].append(g)
        return out

    published, generated = files(corpus), files(ours)
    assert set(published) == set(generated) and all(len(v) == 100 for v in generated.values())
    for key, theirs in published.items():
        mine = generated[key]
        e_pub, e_ours = [g.energy for g in theirs], [g.energy for g in mine]
        o_pub, o_ours = [g.obstacle_count for g in theirs], [g.obstacle_count for g in mine]
        # means within four standard errors, spreads within a factor of two
        se = (pstdev(e_pub) + 1) / 10 * 4
        assert abs(fmean(e_pub) - fmean(e_ours)) <= se + 1.5, (key, fmean(e_pub), fmean(e_ours))
        assert 0.5 <= (pstdev(e_ours) + 1) / (pstdev(e_pub) + 1) <= 2, key
        assert abs(fmean(o_pub) - fmean(o_ours)) <= 1.5, key
        assert (max(o_ours) == 0) == (max(o_pub) == 0)
        for g in mine:
            assert g.cells[g.start[0]][g.start[1]] == "A"
            assert all(3 <= x <= 7 for x in g.start) == (key[0] == "inner")


def test_the_search_reference_is_optimal_where_brute_force_can_check():
    from itertools import product

    from pddlkit.envs.grasp import best_search

    for rows, carry, cost in ((("AEE", " E", "OE"), UNLIMITED, 0.0), (("EA E", "E  E"), 2, 0.3),
                              (("A", "EE", "EO E"), 2, 0.0)):
        instance = Instance(_grid(*rows), False, carry, cost, max_actions=6)
        alphabet = ["UP", "DOWN", "LEFT", "RIGHT", "TAKE", "DROP"]
        optimum = max(simulate(instance, list(seq)).score
                      for n in range(7) for seq in product(alphabet, repeat=n))
        assert simulate(instance, best_search(instance)).score == pytest.approx(optimum), rows


@pytest.mark.slow
def test_the_search_beats_the_baselines_on_a_sample(corpus):
    from pddlkit.envs.grasp import best_search
    from pddlkit.programs.standin import grasp_program

    sample = [i for i in instances(corpus[::200]) if i.diagonals and i.carry_limit == 2]
    searched = [simulate(i, best_search(i, beam=500)).score for i in sample]
    # the paper's greedy, and the stand-in's strategy without mistakes (budget- and cost-aware)
    for program in (GREEDY_PROGRAM, grasp_program(frozenset())):
        scores = [simulate(i, a).score for i, a in zip(sample, run_in_process(program, sample))]
        assert all(s >= g - 1e-9 for s, g in zip(searched, scores))
