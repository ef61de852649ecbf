"""The helps ``formalize_and_plan`` takes, from the same table as ``pddlkit run pddlego``
(issue 74: "no option exists on one path and not the other").

Every help of :data:`.help_table.HELPS` is a keyword of ``formalize_and_plan`` under its
name (``formalize_and_plan(obs, llm=..., env=..., modular=True, schema_check=True)``), and
``small_model=True`` is the ``--small-model`` preset. They are checked as the agent checks
its flags, with the table's own facts: a help that needs another (``novel_goals`` needs
``modular``) or a real LLM is refused naming what to add; one that acts on the domain the
model writes is refused with a frozen ``domain=`` when asked for by name (the preset's are
left out); one that reads the world's machine-readable failures (``refuted_facts``,
``world_literals``: ``info["failed"]`` of pddlkit's own simulators) acts on the failures
of the Steps the caller passes back, and is refused by name, or left out of the preset,
where the environment does not offer them.

The loop's options that are not a call's are listed in :data:`NOT_PER_CALL`, each with
what a caller does instead; a test holds every ``pddlkit run pddlego`` option to being a
keyword, a help or a line there.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Optional

from .help_table import DOMAIN_WRITING, HELPS, MODULAR_HELPS

#: an LLM formalizer's settings a call takes (the agent's options of the same names)
LLM_SETTINGS = ("constrained", "samples", "goal_style", "prompts", "temperature")

#: ``pddlkit run pddlego`` options a single call has no use for, and why
NOT_PER_CALL = {
    "budget": "the caller runs the commands, so it spends its own budget",
    "retries": "solver_retries= bounds the inner loop; after a failed command the caller "
               "decides whether to call again",
    "simulation_retries": "the caller decides how many failed commands it feeds back",
    "library": "pass domain=library.choose(env.id, task)[0] (an entry freezes its domain)",
    "save_domain": "DomainLibrary.save_episode takes a played episode (pddlkit run "
                   "pddlego --save-domain, or pddlkit learn-domain)",
    "reuse_domain": "pass the library's entry as domain=",
    "keep_domain": "the memory= a call returns carries the domain the model wrote to the "
                   "next call of the episode",
    "no_score": "a call scores nothing against the truth",
}

def help_names() -> tuple[str, ...]:
    """Every help keyword, in the table's order."""
    return tuple(h.name for h in HELPS)


def chosen_helps(given: dict[str, Any], *, small_model: bool, writes_parts: bool,
                 frozen: bool, env_id: str) -> dict[str, bool]:
    """The helps a call uses, by name (the preset expanded; its modular helps only with an
    LLM that writes parts), each asked-for one checked (see the module); a ValueError
    naming the fix otherwise."""
    from pddlkit.agents.helps import NEEDS_AN_LLM, unmet_requirement

    asked = {name for name, on in given.items() if on}
    unmet = unmet_requirement(HELPS, asked.__contains__, preset_on=small_model,
                              writes_parts=writes_parts)
    if unmet is not None:
        name, needed = unmet[0].name, unmet[1]
        if needed == NEEDS_AN_LLM:
            raise ValueError(f"formalize_and_plan: {name}=True asks an LLM for one part of "
                             "the files at a time; the stand-in or formalizer given writes "
                             f"whole files (pass an LLM, or leave {name} out)")
        what = "the modular formalizer" if needed == "modular" else needed
        raise ValueError(f"formalize_and_plan: {name}=True is a help of {what}; "
                         f"pass {needed}=True too (or small_model=True)")
    for name in sorted(asked):
        if frozen and name in DOMAIN_WRITING:
            raise ValueError(f"formalize_and_plan: {name}=True acts on the domain the model "
                             "writes; domain= freezes it, so it would do nothing (leave one "
                             "of them out)")
    on = set(asked)
    if small_model:
        on |= {h.name for h in HELPS if h.preset and (writes_parts or (
            h.name != "modular" and h.name not in MODULAR_HELPS))}
        if frozen:
            on -= set(DOMAIN_WRITING) - asked
    return _offered(on, asked, env_id)


def _offered(on: set[str], asked: set[str], env_id: str) -> dict[str, bool]:
    """``on`` without the helps that read what ``env_id`` does not offer (one asked for by
    name is refused: it would do nothing)."""
    from pddlkit.agents.contract import env_spec
    from pddlkit.agents.helps import split_by_offers

    labels = [name.replace("_", "-") for name in on]
    options = SimpleNamespace(**{h.name: h.name in asked for h in HELPS})
    try:
        offers = env_spec(env_id).offers
    except Exception:   # an environment of the caller's own, not registered: all kept
        offers = None
    kept = labels
    if offers is not None:
        try:
            kept, _ = split_by_offers(HELPS, labels, options, env_id, offers)
        except ValueError as exc:
            raise ValueError(f"formalize_and_plan: {exc}") from None
    return {name: name.replace("_", "-") in kept for name in help_names()}


def formalizer_options(helps: dict[str, bool], *, constrained: bool, samples: int,
                       goal_style: Optional[str], prompts: Optional[str],
                       temperature: Optional[float], writes_parts: bool) -> dict[str, Any]:
    """``make_formalizer``'s options for a call: the LLM's settings given (an LLM
    formalizer's only) and the modular formalizer's helps."""
    options: dict[str, Any] = {}
    if writes_parts:
        settings = {"constrained": constrained or None, "samples": samples if samples > 1
                    else None, "goal_style": goal_style, "prompts": prompts,
                    "temperature": temperature}
        options.update({k: v for k, v in settings.items() if v is not None})
    if helps.get("modular"):
        options["modular"] = True
        options.update({name: True for name in MODULAR_HELPS if helps.get(name)})
    return options
