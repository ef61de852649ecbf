"""Every exception class of the project pickles round trip.

A bench worker (a process of the pool, or a Ray task) hands whatever it raises back to the
sweep by pickling it; an exception whose ``__init__`` takes other arguments than its message
(``UnknownEnvError(env_id, known)``) used to be rebuilt from the message alone, failed, and
took the whole pool down with ``BrokenProcessPool``. The classes are found by walking every
module of every package ``pyproject.toml`` maps, so a class added later is covered without
editing this test; its arguments are made from its signature's annotations.
"""

from __future__ import annotations

import importlib
import inspect
import pickle
import pkgutil
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _packages() -> list[str]:
    """The import names of the source folders (``[tool.setuptools] package-dir``)."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return list(data["tool"]["setuptools"]["package-dir"])


def exception_classes() -> dict[str, type[BaseException]]:
    """Every exception class defined at module level in the project's modules."""
    found: dict[str, type[BaseException]] = {}
    broken: list[str] = []
    for name in _packages():
        package = importlib.import_module(name)
        modules = [name] + [m.name for m in pkgutil.walk_packages(
            package.__path__, name + ".", onerror=broken.append)]
        for module_name in modules:
            module = importlib.import_module(module_name)
            for obj in vars(module).values():
                if (inspect.isclass(obj) and issubclass(obj, BaseException)
                        and obj.__module__ == module.__name__):
                    found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    assert not broken, f"packages that cannot be walked: {broken}"
    return found


def _sample(annotation: Any, name: str) -> Any:
    """A value for a required argument, from its annotation (text, under PEP 563)."""
    text = str(annotation)
    if "Diagnostic" in text:
        from pddlkit.diagnostics import Diagnostic, Severity

        return [Diagnostic("unclosed-paren", Severity.ERROR, "expected ')'", "d.pddl", 3, 5,
                           "(:action a", "add 1 ')'")]
    if "ErrorKind" in text:
        from pddlkit.sandbox.errors import ErrorKind

        return ErrorKind.CRASH
    if "ProgramError" in text:
        from pddlkit.sandbox.errors import ErrorKind, ProgramError

        return ProgramError(ErrorKind.TIMEOUT, "took too long", 4, "while True: pass")
    if text.startswith(("list", "Sequence", "tuple")):
        return ["coin-collector", "household"]
    if text in ("int", "float"):
        return 3
    if text == "str" or annotation is inspect.Parameter.empty:
        return f"the {name} given"
    raise AssertionError(f"no sample value for {name}: {text}; add one to _sample")


def _instance(cls: type[BaseException]) -> BaseException:
    own_init = any("__init__" in vars(k) for k in cls.__mro__
                   if k.__module__.startswith("pddlkit"))
    if not own_init:
        return cls("what went wrong")
    params = inspect.signature(cls).parameters.values()
    args = [_sample(p.annotation, p.name) for p in params
            if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return cls(*args)


CLASSES = exception_classes()


def test_the_walk_finds_the_exception_classes_of_every_package():
    # the ones that used to break, and one per package at least
    for name in ("pddlkit.envs.registry.UnknownEnvError", "pddlkit.diagnostics.PDDLError",
                 "pddlkit.sandbox.errors.ProgramError", "pddlkit.llm.errors.BadAnswerError",
                 "pddlkit.planners.registry.UnknownPlannerError",
                 "pddlkit.bench.config.ConfigError", "pddlkit.critic.errors.CriticError",
                 "pddlkit.formalizers.answer.AnswerError"):
        assert name in CLASSES
    assert len(CLASSES) >= 40


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_an_exception_pickles_round_trip(name):
    exc = _instance(CLASSES[name])
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is type(exc)
    assert str(back) == str(exc)
    assert vars(back).keys() == vars(exc).keys()
    for key, value in vars(exc).items():
        assert getattr(back, key) == value, key
