"""An agent's declaration: its name, its options as one dataclass, and the function that plays.

Every front end describes each of its agents with one :class:`AgentSpec` and registers it
under the entry-point group ``pddlkit.agents``. The options dataclass is the single place an
option is written down: its fields become the agent's ``pddlkit run AGENT`` flags (with their
help and defaults), the keys of a ``pddlkit bench`` cell's ``options``, and the defaults of a
call from Python. Field metadata (see :func:`option`) says what argparse needs beyond the
type and default: the help text, choices, a flag spelling other than ``--field-name``, a
parser for the value, and the older names a bench config may still use.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence, Union

from pddlkit.flags import NumberType, argparse_type, number

from .standins import StandIn, parse_stand_in


class OptionError(ValueError):
    """An option the agent does not have, or a value it cannot take."""


def option(default: Any = None, help: str = "", *, choices: Optional[Sequence[str]] = None,
           flag: Optional[str] = None, parse: Optional[Callable[[str], Any]] = None,
           metavar: Optional[str] = None, aliases: Sequence[str] = (),
           minimum: Optional[float] = None, maximum: Optional[float] = None) -> Any:
    """A field of an agent's options dataclass: ``rounds: int = option(5, "refinement rounds
    at most")``. ``flag`` overrides the command-line spelling (``"--no-evolve"`` for a field
    ``evolve`` that defaults to True); ``parse`` turns the text into the value (one of
    :mod:`pddlkit.flags`' types, such as ``probability`` or ``positive_float``, also checks a
    bench config's or a Python caller's number); ``aliases`` are older names a bench config may
    use for it; ``minimum`` and ``maximum`` bound a number (inclusive). A number field is
    always finite: ``nan`` and ``inf`` are refused by argparse, with the flag's name."""
    return field(default=default, metadata={"help": help, "choices": choices, "flag": flag,
                                            "parse": parse, "metavar": metavar,
                                            "aliases": tuple(aliases), "minimum": minimum,
                                            "maximum": maximum})


def at_least(least: float, kind: type = int) -> Callable[[str], Any]:
    """argparse type: a number of ``kind`` of at least ``least`` (:func:`pddlkit.flags.number`)."""
    return number(kind, least=least)


@dataclass(frozen=True)
class AgentSpec:
    """One agent. ``play(job)`` plays ``job.seeds`` (one :class:`~.episode.Episode` per seed)
    and yields a :class:`~.row.Row` per episode, as each ends, so a run stopped by an error
    keeps the rows it has; it raises :class:`~.errors.AgentError` (or a ValueError,
    LookupError, ImportError, FileNotFoundError or LLMError, which the CLI reports alike) for
    bad input. ``stand_in(llm)`` says what the agent's offline stand-in knows when ``llm``
    names one, else None. ``envs`` lists the environment ids it plays (empty: any).
    ``default_llm`` is what ``--llm`` means when not given. ``describe(kind, data)`` turns an
    episode event into a line for the live transcript (None: not shown). ``usage`` is the help
    text after the summary (default: the docstring of ``play``'s module)."""

    name: str
    summary: str
    options: type
    play: Callable[..., Any]
    stand_in: Callable[[Optional[str]], Optional[str]] = lambda llm: None
    envs: tuple[str, ...] = ()
    default_llm: str = "standin"
    default_env: Optional[str] = None
    describe: Optional[Callable[[str, dict], Optional[str]]] = None
    #: lines about a whole run's rows, printed after them (a tally, a league table)
    summarize: Optional[Callable[[list], list]] = None
    usage: str = ""
    #: the options field that holds the agent's step budget per episode (``budget``,
    #: ``max_actions``, ``max_cycles``, ``max_keys``), or a function of the environment id
    #: giving it: the common ``--max-steps`` sets it; None: the agent has none there (its
    #: episodes are not step by step, or the environment counts time, not steps)
    step_budget: Union[str, Callable[[str], Optional[str]], None] = None
    #: environment options the agent reads itself, beyond the ones the environment takes
    #: (PLAP's ``match``, DEPS's ``task`` group): names, or a dict of name -> help text; each
    #: is a flag of ``pddlkit run``, and a sweep refuses any other name before it runs
    env_options: Union[tuple, dict] = ()
    #: options of the environment the agent sets itself (PLAP's ``player``, from its side):
    #: not flags of ``pddlkit run``
    sets_env_options: tuple[str, ...] = ()
    #: ``check_env(env_id, env_options)``: the names in one cell's environment options that
    #: the agent gives its own meaning (DEPS's ``task``, an item or a group; PLAP's ``match``)
    #: checked as its run checks them, raising a ValueError with the run's one line (``there
    #: is no object 'stone_pickax' in this world; did you mean 'stone_pickaxe'?``). A sweep
    #: calls it for every cell before the first episode, so a misspelt task or level is
    #: refused once, up front, instead of failing every cell on every rerun. None: the
    #: environment's own declaration (``option_choices``) is all there is to check
    check_env: Optional[Callable[[str, dict], None]] = None
    #: the kinds of environment it plays when ``envs`` names none (:mod:`.contract`)
    kinds: tuple[str, ...] = ("text", "pddl")
    #: what it needs an environment to offer: "commands", "domain", "truth"
    needs: tuple[str, ...] = ()
    #: False for an agent that makes no LLM call (TWOSOME's policy is its critic model):
    #: ``--llm``, ``--max-tokens`` and ``--transcript`` are then refused, not dropped
    uses_llm: bool = True
    #: the offline stand-ins ``--llm`` may name (:class:`~.standins.StandIn`), their arguments
    #: read by one parser, so ``standin:abc`` is refused by argparse with the spec named
    stand_ins: tuple[StandIn, ...] = ()

    def check_llm(self, llm: str) -> str:
        """``llm`` when the agent can take it as ``--llm``: "" (the agent's own default), one
        of its stand-ins with a good argument (``standin:<agent>[:mode]``, or a bare
        ``standin``), or an LLM spec (:func:`pddlkit.llm.spec.parse_spec`, which loads
        nothing; a bare model name is OpenAI's). Otherwise a ValueError that names the spec
        and lists the agent's stand-ins, for argparse to show as the ``--llm`` error before
        anything loads; a removed old spelling of a stand-in (``noisy:0.3``) is refused
        naming the new one (:func:`.standins.parse_stand_in`)."""
        from pddlkit.llm.errors import LLMSpecError
        from pddlkit.llm.spec import STAND_IN_KIND, STAND_IN_WORDS, parse_spec

        text = str(llm).strip()
        named = parse_stand_in(text, self.stand_ins, self.name)
        if text in ("", self.default_llm) or named is not None:
            return text
        if not self.stand_ins and self.stand_in(text) is not None:
            return text     # an agent that does not declare its stand-ins: its own word
        own = ", ".join(s.spelled(self.name) for s in self.stand_ins)
        theirs = f"{self.name}'s stand-ins: {own}" if own else \
            f"{self.name} has no offline stand-in"
        if text.partition(":")[0] in (*STAND_IN_WORDS, STAND_IN_KIND):
            raise ValueError(f"{text}: not a stand-in of {self.name} ({theirs}); name one of "
                             f"those or an LLM (openai:gpt-4o-mini, local:qwen2.5-coder-1.5b, "
                             f"...)" if own else f"{text}: {theirs}; name an LLM "
                             f"(openai:gpt-4o-mini, local:qwen2.5-coder-1.5b, ...)")
        try:
            parse_spec(text)
        except LLMSpecError as exc:
            hint = f"; {exc.hint}" if exc.hint else ""
            raise ValueError(f"{exc.message}{hint} ({theirs})") from None
        return text

    def stand_in_label(self, llm: Optional[str]) -> Optional[str]:
        """What the stand-in ``llm`` names knows (``stand-in (...)``, for row labels), from
        its declaration; None for an LLM."""
        from .standins import knows

        label = knows(llm, self.stand_ins, self.name) if self.stand_ins else None
        return label if label is not None else self.stand_in(llm)

    def env_options_help(self) -> dict[str, str]:
        """The environment options the agent reads itself, with their help."""
        if isinstance(self.env_options, dict):
            return {str(k): str(v) for k, v in self.env_options.items()}
        return {name: f"read by {self.name}" for name in self.env_options}

    def help_text(self) -> str:
        """``usage``, or else the docstring of the module that defines ``play`` (a front end's
        agent module says there what the agent does, with examples and its stand-ins)."""
        if self.usage:
            return self.usage
        import sys

        from pddlkit.markup import plain

        doc = getattr(sys.modules.get(getattr(self.play, "__module__", "")), "__doc__", "")
        return plain(doc or "").strip()

    def make_options(self, values: Optional[dict] = None, **more: Any):
        """The options dataclass from a mapping (a bench cell's ``options``, argparse's
        namespace): keys are field names or their aliases; an unknown key is an
        :class:`OptionError` naming the ones the agent has."""
        return options_from(self.options, {**(values or {}), **more}, self.name)


def fields_of(options: type) -> list[dataclasses.Field]:
    return list(dataclasses.fields(options))


def _hints(options: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(options)
    except Exception:  # a hint that cannot be resolved: fall back to the default's type
        return {}


def value_type(options: type, f: dataclasses.Field) -> Optional[type]:
    """The field's plain type: int, float, str or bool (Optional[...] unwrapped), or None."""
    hint = _hints(options).get(f.name)
    args = typing.get_args(hint)
    if args and type(None) in args:
        hint = next(a for a in args if a is not type(None))
    if hint in (int, float, str, bool):
        return hint
    if f.default is not dataclasses.MISSING and f.default is not None:
        return type(f.default)
    return None


def flag_type(options: type, f: dataclasses.Field) -> Callable[[str], Any]:
    """The argparse ``type=`` of a field: its ``parse`` (a ValueError it raises named as the
    flag's error), else, for a number, a :class:`~pddlkit.flags.NumberType` within the field's
    ``minimum`` and ``maximum`` (finite either way), else ``str``."""
    meta = f.metadata
    if meta.get("parse"):
        return argparse_type(meta["parse"])
    kind = value_type(options, f)
    if kind in (int, float):
        return number(kind, least=meta.get("minimum"), most=meta.get("maximum"))
    return str


def options_from(options: type, values: dict, agent: str = "agent"):
    """The options dataclass from ``values`` (field names or aliases), every value checked as
    its flag would be (type, range, choices): an :class:`OptionError` names the option."""
    import argparse

    names = {}
    for f in fields_of(options):
        names[f.name] = f.name
        for alias in f.metadata.get("aliases", ()):
            names[alias] = f.name
    given: dict[str, Any] = {}
    for key, value in values.items():
        if key not in names:
            known = ", ".join(f.name for f in fields_of(options))
            raise OptionError(f"{agent} has no option {key!r}; its options are: {known}")
        given[names[key]] = value
    for f in fields_of(options):
        if f.name not in given:
            continue
        kind, value = value_type(options, f), given[f.name]
        parse = f.metadata.get("parse")
        try:
            if parse is not None and (isinstance(value, str) or isinstance(parse, NumberType)):
                given[f.name] = argparse_type(parse)(value) if value is not None else None
            elif kind is float and type(value) is int:
                given[f.name] = float(value)
            elif value is not None and kind is not None and not (
                    isinstance(value, kind) and (kind is bool or not isinstance(value, bool))):
                raise OptionError(f"{agent} option {f.name!r} takes a {kind.__name__}, got "
                                  f"{value!r}")
            # the range holds whatever the path: a flag's text, a config's or a caller's number
            checker = parse if isinstance(parse, NumberType) else number(
                kind, least=f.metadata.get("minimum"), most=f.metadata.get("maximum")) \
                if kind in (int, float) else None
            if checker is not None and isinstance(given[f.name], (int, float)) and \
                    not isinstance(given[f.name], bool):
                given[f.name] = checker(given[f.name])
        except argparse.ArgumentTypeError as exc:
            raise OptionError(f"{agent} option {f.name!r} {exc}") from None
        choices = f.metadata.get("choices")
        if choices and given[f.name] not in choices:
            raise OptionError(f"{agent} option {f.name!r} must be one of "
                              f"{', '.join(map(str, choices))}, got {given[f.name]!r}")
    return options(**given)


def add_option_flags(parser, options: type, title: str) -> list[str]:
    """The options dataclass's fields as flags in an argument group; the destinations added.
    Every value is checked by argparse (:func:`flag_type`), so a bad one is refused with the
    flag's name before the agent loads anything."""
    group = parser.add_argument_group(title)
    dests = []
    for f in fields_of(options):
        meta = f.metadata
        flag = meta.get("flag") or "--" + f.name.replace("_", "-")
        kind = value_type(options, f)
        dest = f"agent_{f.name}"
        if kind is bool:
            action = "store_false" if f.default is True else "store_true"
            group.add_argument(flag, dest=dest, action=action, default=f.default,
                               help=meta.get("help", ""))
        else:
            kw: dict[str, Any] = {"dest": dest, "default": f.default, "help": meta.get("help", "")}
            if meta.get("choices"):
                kw["choices"] = list(meta["choices"])
            if not meta.get("choices"):
                kw["metavar"] = meta.get("metavar") or f.name.upper()
            kw["type"] = flag_type(options, f)
            group.add_argument(flag, **kw)
        dests.append(dest)
    return dests


def budget_field(spec: AgentSpec, env: str) -> Optional[str]:
    """The options field ``--max-steps`` sets for ``spec`` on ``env`` (None: none)."""
    budget = spec.step_budget
    return budget(env) if callable(budget) else budget


def options_from_namespace(spec: AgentSpec, namespace) -> Any:
    values = {f.name: getattr(namespace, f"agent_{f.name}") for f in fields_of(spec.options)}
    return spec.options(**values)
