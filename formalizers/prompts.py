"""The paper's prompts, kept as template files per environment (``formalizers/prompts/<env>/``).

Each prompt kind (initial, update, solver_error, simulation_error, and plangen for the
LLM-as-planner baseline) is a text file with
``$name`` placeholders (``string.Template``, so PDDL's parentheses and JSON's braces need no
escaping). ``Prompts.from_dir(path)`` loads a user's own set; a missing file falls back to the
bundled one, so a user can override one prompt kind only.

What a prompt says about the environment (its valid actions, action signatures and number of
actions) comes from one builder, :func:`prompt_context`, which both ``run_episode`` (the CLI
and bench path) and ``formalize_and_plan`` (the Python API) call with the environment itself:
two paths that each filled the :class:`~.base.Context` their own way had drifted apart (the
API sent "Here are some valid actions you can take: []"). The valid actions are
``env.admissible_commands()``, the method every environment must have, read when the prompt
is built (under a millisecond for the household with 20 receptacles).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any, Optional, Sequence, Union

from .answer import Files
from .base import Context, Memory
from .signatures import Signatures, signature

BUNDLED = Path(__file__).resolve().parent / "prompts"
KINDS = ("header", "goal_detailed", "goal_simple", "actions", "initial", "update",
         "solver_error", "simulation_error", "plangen", "problem_only")


#: environments that take another's prompts: the household's are PDDLego+'s ALFWorld prompts.
SAME_PROMPTS = {"alfworld": "household"}
#: environments with no bundled prompts take CoinCollector's with the generic folder's files
#: (the task-neutral header and goal guidance) in their place (see prompts/generic/README.md)
GENERIC = ("generic", "coin-collector")


@dataclass
class Prompts:
    templates: dict[str, Template]
    source: str

    @classmethod
    def for_env(cls, env_id: str, directory: Union[str, Path, None] = None) -> "Prompts":
        base = BUNDLED / SAME_PROMPTS.get(env_id, env_id)
        # a bundled folder may hold only the files that differ (observation-only: actions.txt)
        bundled = ([base] if base.is_dir() else []) + [BUNDLED / name for name in GENERIC]
        own = Path(directory) if directory else None
        templates = {}
        for kind in KINDS:
            for folder in (own, *bundled):
                if folder is not None and (folder / f"{kind}.txt").is_file():
                    templates[kind] = Template((folder / f"{kind}.txt").read_text())
                    break
            else:
                raise FileNotFoundError(f"prompt {kind}.txt is missing for {env_id!r}")
        return cls(templates, str(own or bundled[0]))

    def fill(self, kind: str, **values: Any) -> str:
        """The template ``kind`` with ``values``, strictly: a placeholder no value fills (a
        ``$tsk`` typo in a user's own prompt) is a PromptTemplateError naming the file and
        the values there are, never sent to the LLM as written."""
        from pddlkit.llm.prompts import PromptFile

        return PromptFile(self.templates[kind].template, f"{self.source}/{kind}.txt").fill(
            **values)

    def render(self, kind: str, goal_style: str = "detailed", **values: str) -> str:
        """The prompt of ``kind`` ('initial', 'update', 'solver_error', 'simulation_error')."""
        values = dict(values)
        values["goal_guidance"] = self.fill(f"goal_{goal_style}", **values)
        values["actions"] = self.fill("actions", **values)
        values["header"] = self.fill("header", **values)
        if kind in ("solver_error", "simulation_error"):
            values["update"] = self.fill("update", **values)
        return self.fill(kind, **values).strip() + "\n"


def signatures(domain, templates, declared: Optional[dict] = None) -> Signatures:
    """The actions with a command (:class:`.signatures.Signatures`: records, and the text
    '1. :action move ...\n:parameters (?from - room ...)'); the parameters from the PDDL
    ``domain``, or from ``declared`` (an environment's own ``action_signatures``: ``{"go":
    "?from - room ?to - room"}``) when it has none."""
    records, lines = [], []
    seen: list[str] = []
    for t in templates:
        if t.action in seen:
            continue
        seen.append(t.action)
        if declared is not None:
            params = declared[t.action].strip().strip("()")
        else:
            action = next(a for a in domain.actions if a.name == t.action)
            params = " ".join(f"{p.name} - {' '.join(p.types) if len(p.types) == 1 else '(either ' + ' '.join(p.types) + ')'}"
                              for p in action.parameters)
        record, text = signature(len(seen), t.action, t.template, params)
        lines.append(text)
        if record is not None:
            records.append(record)
    return Signatures(records, "\n".join(lines))


def env_signatures(env) -> Signatures:
    """The action signatures an environment's prompts show: from its PDDL domain, else from
    its ``action_signatures``, else its command templates as they are (no records)."""
    if hasattr(env, "domain"):
        return signatures(env.domain, env.action_schema)
    if getattr(env, "action_signatures", None) is not None:
        return signatures(None, env.action_schema, env.action_signatures)
    return Signatures.read("\n".join(str(t) for t in env.action_schema))


def valid_actions(env) -> list[str]:
    """The valid actions every prompt shows: ``env.admissible_commands()``, read from the
    environment when the prompt is built. Not a step's ``info["admissible_commands"]``: an own
    environment's info need not carry it, and formalize_and_plan never sees an info (it showed
    ``[]`` from Python while ``pddlkit run pddlego`` showed the list). A call that fails is
    an :class:`~pddlkit.envs.api.EnvCheckError` (an environment not reset yet, mostly), never
    an empty list in its place."""
    try:
        return [str(command) for command in env.admissible_commands()]
    except Exception as exc:
        from pddlkit.envs.api import EnvCheckError, EnvProblem

        raise EnvCheckError(type(env).__name__, [EnvProblem(
            "admissible_commands()", f"raised {type(exc).__name__}: {exc}",
            "reset the environment before the first call (the observation is what its reset() "
            "or step() returned), and let admissible_commands() answer in every state after "
            "reset ([] when it cannot list them)")], "the prompt's valid actions") from exc


def prompt_context(env, kind: str, memory: Memory, previous: Optional[Files] = None,
                   error: Optional[str] = None, failed_action: Optional[str] = None,
                   executed: Sequence[str] = ()) -> Context:
    """The one builder of what a formalizer's prompt is rendered from, for ``run_episode``
    (``pddlkit run pddlego``, bench cells) and ``formalize_and_plan`` alike, so the same
    environment in the same state gives the same prompt on both paths: the valid actions
    (:func:`valid_actions`), the action signatures (:func:`env_signatures`) and the number of
    actions are read from ``env`` here, never passed in by a caller."""
    return Context(kind, env.id, memory, valid_actions(env), env_signatures(env),
                   len({t.action for t in env.action_schema}), previous, error, failed_action,
                   list(executed),
                   commands_complete=getattr(env, "admissible_complete", False) is True)


def optional(text: Optional[str]) -> str:
    return text if text else "(none)"
