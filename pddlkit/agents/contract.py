"""The environment contract between the registry and the agents: what an environment declares
(its options, kind, budget keyword and what it offers) and what an agent needs of one.

Why here, in the core: the command line, ``pddlkit bench`` and every front end ask the same
three questions (which environments can this agent play, which flags does this pair take,
how is the environment made), and each used to answer them from a table of its own, so a
flag could be read by one agent and dropped in silence by another. The registry
(:mod:`pddlkit.envs.registry`, reached through the ``pddlkit.env_specs`` entry point, since the
core imports no environment) declares; this module reads the declaration.

* **Kinds.** ``"text"`` (a world played in words, with admissible commands: TextWorld),
  ``"pddl"`` (a text world built on PDDL, which also knows its domain and its truth:
  CoinCollector, the household, ALFWorld), ``"game"`` (an interface of its own: skills,
  build orders, keystrokes) and ``"instances"`` (a program task's training and held-out
  instances, what IPP refines a program on; ``make`` returns an
  :class:`~pddlkit.envs.instance_sets.InstanceSplit`, not an environment).
* **Offers.** ``"commands"`` (admissible commands each step), ``"domain"`` (a PDDL domain
  with the environment's action names), ``"truth"`` (a reference problem at each step, for
  scoring what a model wrote), ``"failures"`` (a refused command's reason in the domain's
  terms, machine-readable, in ``info["failed"]``: pddlkit's own PDDL-backed simulators give
  it; real TextWorld and ALFWorld do not, so helps that read it cannot act there).
* **Options.** An environment's options are its factory's keyword parameters, with the help
  text the class gives in ``option_help`` (or ``register(option_help=...)``) and the values it
  takes in ``option_choices`` (a number's bounds in ``option_bounds``, so ``--rooms 0`` is
  refused by argparse). Each is a command-line flag of ``pddlkit run AGENT --env ID``
  (:func:`env_flags`), except the seed (``--seed`` gives it), the step budget's keyword
  (``--max-steps`` gives it), one the agent's own options name (the agent passes it: IPP's
  ``--train``, PLAP's ``--map``), one the agent sets itself (PLAP's ``player``, from its
  side: :attr:`~.spec.AgentSpec.sets_env_options`) and one whose value is not a plain number, word or switch
  (a dict of timeouts).
* **An agent's needs.** :attr:`~.spec.AgentSpec.envs` names the ids it plays; an agent that
  names none plays every environment whose kind is in :attr:`~.spec.AgentSpec.kinds` and
  that offers all of :attr:`~.spec.AgentSpec.needs` (:func:`plays`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Protocol

KINDS = ("text", "pddl", "game", "instances")
OFFERS = ("commands", "domain", "truth", "failures")
#: kinds played step by step in words: an agent that names no environments plays these
TEXT_KINDS = ("text", "pddl")


@dataclass(frozen=True)
class EnvOption:
    """One option of an environment: its name, default, plain type (int, float, str, bool;
    None: any value), help text and the values it takes (empty: any)."""

    name: str
    default: Any = None
    type: Optional[type] = None
    help: str = ""
    choices: tuple = ()
    #: the smallest and largest number it takes (None: no bound)
    minimum: Optional[float] = None
    maximum: Optional[float] = None

    @property
    def flag(self) -> str:
        """``--rooms``; a switch that is on by default is turned off: ``--no-peaceful``."""
        stem = self.name.replace("_", "-")
        return f"--no-{stem}" if self.type is bool and self.default is True else f"--{stem}"

    @property
    def flaggable(self) -> bool:
        return self.type in (int, float, str, bool)


class EnvContract(Protocol):
    """What the registry's spec of an environment id says (``EnvSpec``)."""

    id: str
    kind: str
    budget: Optional[str]
    offers: tuple

    def declared_options(self) -> list[EnvOption]: ...

    def make(self, **options: Any) -> Any: ...


#: the entry-point group naming the function that looks an environment id up; the core
#: imports no environment package (a test enforces it), so the registry plugs in here
ENV_SPECS_GROUP = "pddlkit.env_specs"


class EnvLookupError(LookupError):
    """An id no registry knows, or no registry installed; the message names the fix."""


def env_spec(env_id: str) -> EnvContract:
    """The registry's spec of ``env_id``, found through the ``pddlkit.env_specs`` entry
    point; an unknown id is an :class:`EnvLookupError` naming the known ones."""
    from ..plugins import entry_points_of

    lookups = entry_points_of(ENV_SPECS_GROUP)
    if not lookups:
        raise EnvLookupError(f"no environment registry is installed (entry-point group "
                             f"{ENV_SPECS_GROUP!r}); reinstall pddlkit: pip install -e .")
    try:
        return lookups[0].load()(env_id)
    except LookupError as exc:
        raise EnvLookupError(str(exc)) from None


def plays(agent, env: EnvContract) -> Optional[str]:
    """None when ``agent`` (an AgentSpec) plays ``env`` by their declarations; else why not,
    in one line that says what it does play."""
    if agent.envs:
        if env.id in agent.envs:
            return None
        return f"{agent.name} plays {', '.join(agent.envs)}"
    kinds = tuple(getattr(agent, "kinds", TEXT_KINDS))
    if env.kind not in kinds:
        what = {"game": "a game with an interface of its own",
                "instances": "a set of program instances", "text": "a text world",
                "pddl": "a text world built on PDDL"}.get(env.kind, env.kind)
        plays_what = "text worlds" if set(kinds) == set(TEXT_KINDS) else \
            f"environments of kind {', '.join(kinds)}"
        return (f"{agent.name} declares no environments of its own, so it plays {plays_what}; "
                f"{env.id} is {what} (kind {env.kind!r})")
    missing = [n for n in getattr(agent, "needs", ()) if n not in getattr(env, "offers", ())]
    if missing:
        return (f"{agent.name} needs an environment that offers {', '.join(missing)}; "
                f"{env.id} offers {', '.join(env.offers) or 'none of these'}")
    return None


def env_flags(agent, env: Optional[EnvContract]) -> list[EnvOption]:
    """The flags ``pddlkit run AGENT --env ID`` takes for the environment (see the module):
    the environment's options the agent does not take itself, then the options the agent
    reads itself (:attr:`~.spec.AgentSpec.env_options`) that the environment does not have."""
    from .spec import fields_of

    own = {f.name for f in fields_of(agent.options)} | set(getattr(agent, "sets_env_options", ()))
    out: list[EnvOption] = []
    names: set[str] = set()
    if env is not None:
        for o in env.declared_options():
            if o.name in ("seed", env.budget) or o.name in own or not o.flaggable:
                continue
            out.append(o)
            names.add(o.name)
    for name, text in dict(agent.env_options_help()).items():
        if name not in names and name not in own:
            out.append(EnvOption(name, None, str, text))
    return out
