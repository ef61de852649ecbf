"""Shared fixtures: the corpus in ../shared, and the rule for when it is missing.

A user's clone has no ../shared: those tests skip with a clear reason. CI sets
PDDLKIT_REQUIRE_CORPUS=1 (in .ci/run), which turns that skip into a failure. The same rule
holds for optional packages (torch, transformers, peft) that `make test` installs: a user who
installed pddlkit without them sees a skip that says so; CI fails instead.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
IPC = SHARED / "corpus" / "ipc"
LLM_PAIRS = SHARED / "corpus" / "llm-pddl" / "pairs.jsonl"


def _missing(reason: str):
    """Skip with ``reason``, or fail under PDDLKIT_REQUIRE_CORPUS=1 (CI)."""
    if os.environ.get("PDDLKIT_REQUIRE_CORPUS") == "1":
        pytest.fail(reason + "; PDDLKIT_REQUIRE_CORPUS=1 requires it")
    pytest.skip(reason, allow_module_level=True)   # also from a module's top level


def _need(path: Path) -> Path:
    if path.exists():
        return path
    _missing(f"corpus not found at {path} (it lives in ../shared beside a developer's "
             "checkout; a user's clone does not have it)")


def need_module(name: str, install: str, importer=None):
    """Import an optional package, or skip (fail under PDDLKIT_REQUIRE_CORPUS=1)."""
    try:
        return importer() if importer else __import__(name)
    except ImportError as exc:
        _missing(f"{name} is not installed ({install}; `make test` installs it): {exc}")


@contextlib.contextmanager
def server_threads() -> Iterator[None]:
    """Start a llama.cpp server inside this block to give it the machine's cores (at most 4),
    unless PDDLKIT_LOCAL_THREADS is already set. The suite runs one test at a time, so while the
    server generates nothing else wants the cores, and llama-cpp-python's own default (half the
    cores: one on 2 cores) generates at about half the speed (2026-11-29, 2 cores: 5.8 against
    10.5 tokens/s; test_real_qwen.py and test_real_llm.py took 23 minutes, 17 with this)."""
    with pytest.MonkeyPatch.context() as patch:
        if not os.environ.get("PDDLKIT_LOCAL_THREADS", "").strip():
            patch.setenv("PDDLKIT_LOCAL_THREADS", str(min(os.cpu_count() or 1, 4)))
        yield


@pytest.fixture(scope="session")
def ipc_dir() -> Path:
    return _need(IPC)


@pytest.fixture(scope="session")
def ipc_manifest(ipc_dir) -> dict:
    return json.loads((ipc_dir / "manifest.json").read_text())


@pytest.fixture(scope="session")
def ipc_instances(ipc_manifest) -> list[dict]:
    return ipc_manifest["instances"]


@pytest.fixture(scope="session")
def llm_pairs() -> list[dict]:
    path = _need(LLM_PAIRS)
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    """A tiny random Llama written to disk (pddlkit.critic.toy): the critic's and TWOSOME's
    model in tests, loaded as a real one is."""
    need_module("torch", "pip install torch==2.13.0")
    need_module("peft", "pip install 'pddlkit[critic]'")
    from pddlkit.critic import toy as tiny_lm

    folder, _ = tiny_lm.build(tmp_path_factory.mktemp("tiny-lm"))
    return folder
