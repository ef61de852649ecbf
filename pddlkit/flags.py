"""The argparse types and the help formatter every ``pddlkit`` command shares.

Why one place: a bad flag value must be refused by argparse, with the flag's name, before
anything loads (a model, an environment, a sweep's workers). argparse names the flag only
when the ``type=`` function raises :class:`argparse.ArgumentTypeError`; a plain ValueError
becomes "invalid _rounds value: '-1'", and a bare ``float`` takes ``nan``, ``inf`` and any
sign. So every number flag goes through :func:`number` (or one of the named ones below), which
refuses with the value, the range and an example, and every command's help shows each option's
default through :func:`show_defaults`.

    p.add_argument("--episodes", type=positive_int, default=1)
    p.add_argument("--threshold", type=probability, default=0.9)
    show_defaults(parser)              # "(default: 1)" after each option's help
"""

from __future__ import annotations

import argparse
import math
from typing import Any, Callable, Optional, Union

Number = Union[int, float]


class NumberType:
    """An argparse ``type=``: the text as ``kind`` (int or float), finite, within
    [``least``, ``most``] and above ``above`` when those are given; anything else is an
    :class:`argparse.ArgumentTypeError` saying what the flag takes. Called on a number (a
    bench config's value, a Python caller's) it checks the same range, so one declaration holds
    on every path."""

    def __init__(self, kind: type = int, *, least: Optional[Number] = None,
                 most: Optional[Number] = None, above: Optional[Number] = None,
                 name: Optional[str] = None) -> None:
        if kind not in (int, float):
            raise TypeError(f"a number flag is an int or a float, not {kind.__name__}")
        self.kind, self.least, self.most, self.above = kind, least, most, above
        self.__name__ = name or f"{kind.__name__}"   # argparse shows it in some messages

    def describe(self) -> str:
        """The range, in words, to follow "must be": "1 or more", "from 0 to 1"."""
        least, most, above = (f"{x:g}" if x is not None else None
                              for x in (self.least, self.most, self.above))
        if least is not None and most is not None:
            return f"from {least} to {most}"
        if above is not None:
            return f"above {above}"
        if least is not None:
            return f"{least} or more"
        if most is not None:
            return f"{most} or less"
        return f"a finite {'whole ' if self.kind is int else ''}number"

    def example(self) -> str:
        """A value it takes, for the message: the least whole number (1 when 0 is allowed),
        or a number halfway through the float range (0.5 for a rate)."""
        low = self.least if self.least is not None else self.above if self.above is not None \
            else 0
        if self.kind is int:
            value = max(int(low) + (self.above is not None), 1)
            return str(value if self.most is None or value <= self.most else int(low))
        high = self.most if self.most is not None else low + 1.0
        return f"{(float(low) + float(high)) / 2:.6g}"   # 0.6, not 0.6000000000000001

    def refuse(self, value: Any, number: bool = True) -> argparse.ArgumentTypeError:
        """The error for ``value``: out of range (``number``), or not a number at all."""
        if number:
            return argparse.ArgumentTypeError(f"must be {self.describe()}, got {value!r} (e.g. "
                                              f"{self.example()})")
        what = "a whole number" if self.kind is int else "a number"
        return argparse.ArgumentTypeError(f"{value!r} is not {what}; it must be "
                                          f"{self.describe()} (e.g. {self.example()})")

    def __call__(self, value: Any) -> Number:
        if isinstance(value, str):
            try:
                number: Number = self.kind(value.strip())
            except ValueError:
                raise self.refuse(value, number=False) from None
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.refuse(value, number=False)
        elif self.kind is int and not float(value).is_integer():
            raise self.refuse(value, number=False)
        else:
            number = self.kind(value)
        if isinstance(number, float) and not math.isfinite(number):
            raise self.refuse(value)
        if (self.least is not None and number < self.least) or \
                (self.most is not None and number > self.most) or \
                (self.above is not None and number <= self.above):
            raise self.refuse(value)
        return number

    def __repr__(self) -> str:
        return f"<{self.describe()}>"


def number(kind: type = int, *, least: Optional[Number] = None, most: Optional[Number] = None,
           above: Optional[Number] = None) -> NumberType:
    """An argparse type for ``kind`` numbers in a range (see :class:`NumberType`)."""
    return NumberType(kind, least=least, most=most, above=above)


#: the shared set: counts, sizes, rates and weights
non_negative_int = NumberType(int, least=0, name="non_negative_int")
positive_int = NumberType(int, least=1, name="positive_int")
probability = NumberType(float, least=0.0, most=1.0, name="probability")
positive_float = NumberType(float, above=0.0, name="positive_float")
non_negative_float = NumberType(float, least=0.0, name="non_negative_float")
finite_float = NumberType(float, name="finite_float")


def argparse_type(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """``parse`` as an argparse type: a ValueError or TypeError it raises becomes an
    :class:`argparse.ArgumentTypeError` carrying its message, so argparse names the flag and
    says why ("argument --replan-rounds: re-plans must be 0 or more ..."), instead of
    "invalid _rounds value"."""
    if isinstance(parse, NumberType):
        return parse

    def typed(text: str) -> Any:
        try:
            return parse(text)
        except (ValueError, TypeError) as exc:
            raise argparse.ArgumentTypeError(str(exc) or f"cannot take {text!r}") from None
    typed.__name__ = getattr(parse, "__name__", "value")
    return typed


class _DefaultsMixin:
    """Appends "(default: X)" to an option's help, unless the help already says what its
    default is, or the default says nothing (None, an on/off switch, SUPPRESS, "")."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if "%(default)" in text or "default" in text.lower() or not action.option_strings:
            return text
        if default is None or default is argparse.SUPPRESS or isinstance(default, bool) or \
                default == "" or isinstance(action, (argparse._HelpAction,
                                                     argparse._VersionAction)):
            return text
        return f"{text} (default: %(default)s)" if text else "(default: %(default)s)"


def with_defaults(formatter: type = argparse.HelpFormatter) -> type:
    """``formatter`` (a HelpFormatter class) that also shows each option's default."""
    if issubclass(formatter, _DefaultsMixin):
        return formatter
    return type(f"Defaults{formatter.__name__}", (_DefaultsMixin, formatter), {})


def show_defaults(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Make ``parser`` and every subcommand parser under it (plug-ins' included) show each
    option's default in their help, keeping each one's own formatter (raw text stays raw)."""
    seen: set[int] = set()
    todo = [parser]
    while todo:
        p = todo.pop()
        if id(p) in seen:
            continue
        seen.add(id(p))
        p.formatter_class = with_defaults(p.formatter_class)
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo.extend(action.choices.values())
    return parser


class OneLineErrors(argparse.ArgumentParser):
    """An argument parser whose errors are one line and a pointer to ``--help``: argparse's
    default prints the whole usage block first (a dozen lines for ``pddlkit run pddlego``),
    and the line that matters, ``argument --seed: must be 0 or more``, comes last. Exit
    status 2, as argparse's."""

    def error(self, message: str):  # type: ignore[override]
        import sys

        self.exit(2, f"{self.prog}: error: {message}\n(see {self.prog} --help)\n")
