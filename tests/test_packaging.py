"""The distribution imports its mapped packages both editable and from a built wheel."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
MAPPED = ["pddlkit.formalizers", "pddlkit.envs", "pddlkit.critic", "pddlkit.domains",
          "pddlkit.skills"]


def test_editable_install_imports_mapped_packages():
    code = ("import importlib, pddlkit;"
            f"mods=[importlib.import_module(m) for m in {MAPPED!r}];"
            "print('\\n'.join(m.__file__ for m in mods))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd="/", check=True).stdout.split()
    assert [Path(p).parent.name for p in out] == ["formalizers", "envs", "critic", "domains",
                                                  "skills"]
    assert all(Path(p).is_relative_to(REPO) for p in out)


@pytest.mark.slow
def test_built_wheel_contains_and_imports_mapped_packages(tmp_path):
    # built from a clean copy: an editable install's *.egg-info (SOURCES.txt) would add files
    # the package-data globs miss, hiding what a wheel built from a fresh checkout lacks
    import shutil

    source = tmp_path / "src"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".git", ".venv*", "*.egg-info", "build", "dist", "__pycache__", "bench-runs"))
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-v",
         "-w", str(tmp_path / "dist"), str(source)],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    # data folders are declared packages (setup.py), so setuptools warns of none
    assert "absent from the `packages` configuration" not in result.stdout + result.stderr
    wheel = next((tmp_path / "dist").glob("pddlkit-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for expected in ["pddlkit/formalizers/__init__.py", "pddlkit/envs/__init__.py",
                     "pddlkit/critic/__init__.py", "pddlkit/pddl/pddl.lark",
                     "pddlkit/domains/coin-collector/domain.pddl",
                     "pddlkit/domains/craft/recipes.json", "pddlkit/domains/craft/tasks.json",
                     "pddlkit/skills/deps/loop.py", "pddlkit/skills/prompts/deps/planner.txt",
                     "pddlkit/skills/prompts/deps/explainer.txt",
                     "pddlkit/skills/prompts/plap/situation.txt",
                     "pddlkit/domains/microrts/skills.pddl", "pddlkit/envs/microrts_worker.py",
                     "pddlkit/programs/prompts/copic/sc2/init.txt",
                     "pddlkit/planners/java/EnhspHarness.java"]:
        assert expected in names
    shipped = sorted(str(f.relative_to(REPO / "domains")) for f in
                     (REPO / "domains" / "learned").rglob("*") if f.is_file())
    assert len(shipped) > 4  # every file of the bundled library, at any depth
    missing = [f for f in shipped if f"pddlkit/domains/{f}" not in names]
    assert not missing, missing
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = ("import sys, importlib;"
            f"sys.path.insert(0, {str(site)!r});"
            "import pddlkit;"
            f"mods=[importlib.import_module(m) for m in {MAPPED!r}];"
            "from pddlkit.domains import path;"
            "from pddlkit import check;"
            "r = check(path('coin-collector/domain.pddl'), path('coin-collector/p3.pddl'));"
            "assert r.ok, r.format();"
            "from pddlkit.formalizers.library import DomainLibrary;"
            "from pddlkit.domains import ROOT; lib = DomainLibrary(ROOT / 'learned');"
            "assert len(lib.entries()) == 5 and not lib.skipped, lib.skipped;"
            "assert all(e.problems() for e in lib.entries() if e.env == 'household');"
            "print(pddlkit.__file__); print('\\n'.join(m.__file__ for m in mods))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/")
    assert out.returncode == 0, out.stderr[-2000:]
    assert all(line.startswith(str(site)) for line in out.stdout.split())


def test_import_is_light():
    """``import pddlkit`` must not pull lark, unified-planning or openai, nor scan installed
    packages' entry points (importlib.metadata: 62-180 ms when ``__all__`` was built at
    import); ``__all__`` and ``dir()`` still list the front ends' exports when asked."""
    code = ("import sys, pddlkit; heavy=[m for m in ('lark','unified_planning','openai',"
            "'importlib.metadata') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_groups_entry_points_are_read_once_until_forgotten(monkeypatch):
    """Lookups by name (an env id, an agent, an LLM kind) read the installed metadata once per
    group (each read of every distribution's metadata took about 12 ms, 14% of a replay)."""
    import importlib.metadata

    from pddlkit import plugins

    reads = []
    real = importlib.metadata.entry_points
    monkeypatch.setattr(plugins, "entry_points",
                        lambda **kw: reads.append(kw) or real(**kw))
    plugins.forget_plugins()
    try:
        first = plugins.entry_points_of("pddlkit.agents")
        assert plugins.entry_points_of("pddlkit.agents") is first and len(reads) == 1
        assert [ep.name for ep in first] == sorted(ep.name for ep in first) and first
        plugins.forget_plugins()
        assert plugins.entry_points_of("pddlkit.agents") == first and len(reads) == 2
    finally:
        plugins.forget_plugins()


def test_all_is_built_when_asked_and_lists_the_front_ends_exports():
    import pddlkit

    assert "formalize_and_plan" in pddlkit.__all__ and "check" in dir(pddlkit)
    namespace: dict = {}
    exec("from pddlkit import *", namespace)
    assert "check" in namespace and "__version__" in namespace


@pytest.mark.parametrize("name", ["parse_domain", "check", "validate_plan", "PDDLError"])
def test_lazy_exports_resolve(name):
    import pddlkit

    assert getattr(pddlkit, name) is not None
