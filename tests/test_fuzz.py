"""Random damage to real files never raises anything but PDDLError, and stays fast."""

from __future__ import annotations

import random
import time

import pytest

from pddlkit import PDDLError, parse_domain, parse_problem
from pddlkit.checks import check

N_MUTATIONS = 3000
TIME_LIMIT_S = 2.0
SOURCES = ["blocks/domain.pddl", "blocks/p15.pddl", "miconic-fulladl/domain.pddl",
           "miconic-fulladl/p001.pddl", "elevators-sat08-strips/domain.pddl",
           "elevators-sat08-strips/p01.pddl", "psr-middle/domain.pddl", "schedule/domain.pddl",
           "assembly/domain.pddl", "gripper/p01.pddl", "rovers/domain.pddl"]


def _mutate(text: str, rng: random.Random) -> str:
    kind = rng.randrange(7)
    if kind == 0:  # delete parentheses
        chars = list(text)
        idx = [i for i, c in enumerate(chars) if c in "()"]
        for i in rng.sample(idx, min(len(idx), rng.randint(1, 3))):
            chars[i] = ""
        return "".join(chars)
    if kind == 1:  # duplicate parentheses
        i = rng.randrange(len(text))
        return text[:i] + rng.choice("()") * rng.randint(1, 3) + text[i:]
    tokens = text.split(" ")
    if kind == 2:  # delete tokens
        for _ in range(rng.randint(1, 4)):
            if tokens:
                tokens.pop(rng.randrange(len(tokens)))
        return " ".join(tokens)
    if kind == 3:  # duplicate tokens
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(tokens))
            tokens.insert(i, tokens[rng.randrange(len(tokens))])
        return " ".join(tokens)
    if kind == 4:  # truncate
        return text[: rng.randrange(len(text))]
    if kind == 5:  # garbage bytes
        i = rng.randrange(len(text))
        junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 12))).decode("latin-1")
        return text[:i] + junk + text[i:]
    # swap two tokens
    i, j = rng.randrange(len(tokens)), rng.randrange(len(tokens))
    tokens[i], tokens[j] = tokens[j], tokens[i]
    return " ".join(tokens)


@pytest.mark.slow
def test_mutated_corpus_files_only_raise_pddl_error(ipc_dir):
    rng = random.Random(20261121)
    texts = [(name, (ipc_dir / name).read_text()) for name in SOURCES]
    domain_for = {name: (ipc_dir / name.split("/")[0] / "domain.pddl").read_text()
                  for name in SOURCES}
    raised = 0
    slowest = 0.0
    for k in range(N_MUTATIONS):
        name, text = texts[k % len(texts)]
        mutated = _mutate(text, rng)
        is_domain = name.endswith("domain.pddl")
        start = time.perf_counter()
        try:
            (parse_domain if is_domain else parse_problem)(mutated)
        except PDDLError as exc:
            raised += 1
            assert exc.diagnostics
        if is_domain:
            check(mutated)
        else:
            check(domain_for[name], mutated)
        elapsed = time.perf_counter() - start
        slowest = max(slowest, elapsed)
        assert elapsed < TIME_LIMIT_S, f"mutation {k} of {name} took {elapsed:.2f}s"
    assert raised > N_MUTATIONS // 3  # most damage is detected
    print(f"\n{N_MUTATIONS} mutations, {raised} rejected, slowest {slowest * 1000:.0f} ms")
