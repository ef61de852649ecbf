"""The descriptor: DEPS's templated sentence about what succeeded and what the inventory holds
(App. G: "I succeed on step 1, 2, 3, but I fail on step 4 "<line>". My inventory now has 10
planks, 4 stick."). Only plan-related information is described (the inventory), as in every
example of the paper."""

from __future__ import annotations

from typing import Mapping, Sequence

from pddlkit.envs.craft import inventory_text


def describe_failure(succeeded: Sequence[int], failed: int, line: str,
                     inventory: Mapping[str, int]) -> str:
    steps = ", ".join(str(s) for s in succeeded)
    head = f"I succeed on step {steps}, but I fail on step {failed}" if succeeded \
        else f"I fail on step {failed}"
    return f'{head} "{line}". My inventory now has {inventory_text(inventory)}.'


def describe_success(succeeded: Sequence[int]) -> str:
    return f"I succeed in step {', '.join(str(s) for s in succeeded)}."


def describe_check(failed: int, line: str, inventory: Mapping[str, int]) -> str:
    """pddlkit's plan check: the failure is found before any step is spent."""
    return (f'Before acting, the check finds that step {failed} "{line}" cannot succeed. '
            f"My inventory now has {inventory_text(inventory)}.")


def describe_misstated(step: int, line: str, inventory: Mapping[str, int]) -> str:
    """The plan check's warning that led to a later failure: the step itself can run, its
    recipe is misstated (so the plan's counts run short further on)."""
    return (f'Before acting, the check finds that step {step} "{line}" misstates its recipe. '
            f"My inventory now has {inventory_text(inventory)}.")


def describe_unreadable(errors: Sequence) -> str:
    return "I cannot read the plan: " + "; ".join(str(e) for e in errors) + "."
