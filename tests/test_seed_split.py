"""Dev and test seeds of the small-model benchmark (issue 73): test seeds build games no dev
seed builds, and no help or test of PDDLego+ names one."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _load_benchmarks():
    """benchmarks/seed_split.py and small_model.py as modules. small_model.py puts the repo and
    benchmarks/ first on sys.path when imported, and benchmarks/envs.py would then hide the
    envs package from every later test (it did: test_envs failed in the whole suite), so
    sys.path is restored at once."""
    saved = list(sys.path)
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import seed_split
        import small_model
    finally:
        sys.path[:] = saved
    return seed_split, small_model


seed_split, small_model = _load_benchmarks()

#: the environments and sizes the README's small-model rows report, with their seed counts
REPORTED = [("coin-collector", (("rooms", 3),), 20), ("coin-collector", (("rooms", 5),), 10),
            ("household", (("difficulty", "basic&use"), ("receptacles", 8)), 10)]


@pytest.mark.parametrize("env_id, options, count", REPORTED,
                         ids=["coin-3", "coin-5", "household"])
def test_test_seeds_build_games_no_dev_seed_builds(env_id, options, count):
    chosen = seed_split.test_seeds(env_id, options, count)
    assert len(chosen) == count and min(chosen) >= seed_split.TEST_START
    dev = seed_split.dev_instances(env_id, options)
    assert not {seed_split.instance(env_id, options, s) for s in chosen} & dev


def test_a_test_seed_whose_game_a_dev_seed_builds_is_skipped():
    """CoinCollector's 3-room houses repeat: seed 1004 builds a house a dev seed builds."""
    options = (("rooms", 3),)
    assert seed_split.instance("coin-collector", options, 1004) in \
        seed_split.dev_instances("coin-collector", options)
    assert 1004 not in seed_split.test_seeds("coin-collector", options, 20)
    assert seed_split.spans([1000, 1001, 1002, 1003, 1005, 1006]) == [(1000, 4), (1005, 2)]


def test_the_benchmark_keeps_a_run_inside_its_split():
    class Args:
        rooms = 3

    assert small_model.split_seeds("dev", None, 5) == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="not all dev seeds"):
        small_model.split_seeds("dev", 98, 5)
    with pytest.raises(ValueError, match="not all test seeds"):
        small_model.split_seeds("test", 10, 5)
    test = small_model.split_seeds("test", None, 20, small_model.IDENTITY["coin-collector"](Args))
    assert test == seed_split.test_seeds("coin-collector", (("rooms", 3),), 20)


#: "seed 17", "seeds 0..9", "seeds 3, 5 and 1004", "seed=1004", "--seed 1004", range(1000, 1020)
SEED_MENTION = re.compile(r"seeds?\b[\s=:\"',]*((?:\d+(?:\s*(?:\.\.|-|,|and|to)\s*)?)+)"
                          r"|range\((\d+),\s*(\d+)\)", re.IGNORECASE)


def _named_seeds(text: str) -> set[int]:
    found: set[int] = set()
    for match in SEED_MENTION.finditer(text):
        if match.group(1):
            numbers = [int(n) for n in re.findall(r"\d+", match.group(1))]
            found.update(numbers)
            for a, b in zip(numbers, numbers[1:]):   # a..b names what lies between
                if 0 <= b - a <= 200:
                    found.update(range(a, b + 1))
        else:
            found.update(range(int(match.group(2)), int(match.group(3))))
    return found


def _pddlego_files() -> list[Path]:
    """PDDLego+'s helps (the formalizers' modules), the benchmark, and every test that runs
    PDDLego+ or imports its modules."""
    files = sorted((REPO / "formalizers").rglob("*.py")) + [REPO / "benchmarks" /
                                                          "small_model.py"]
    for test in sorted((REPO / "tests").glob("test_*.py")):
        if test.name == Path(__file__).name:
            continue
        text = test.read_text()
        if "pddlego" in text or "formalizers" in text:
            files.append(test)
    return files


def test_no_help_or_test_of_pddlego_names_a_test_seed():
    reported = set()
    for env_id, options, count in REPORTED:
        reported.update(seed_split.test_seeds(env_id, options, count))
    files = _pddlego_files()
    # the modular formalizer's modules and the helps' own files are read too
    assert {"modular", "helps"} <= {p.parent.name for p in files}
    named = {}
    for path in files:
        for seed in _named_seeds(path.read_text()) & reported:
            named.setdefault(str(path.relative_to(REPO)), set()).add(seed)
    assert not named, f"test seeds named where helps are built or tested: {named}"


def test_the_seed_reader_finds_the_ways_seeds_are_named():
    assert _named_seeds("seeds 1000..1003 and seed 7; seed=1010; range(1015, 1017)") == \
        {1000, 1001, 1002, 1003, 7, 1010, 1015, 1016}
