"""What a planner can plan: the PDDL features it supports, checked before it runs.

Why: a planner that cannot read a feature fails in its own words (or, worse, plans a
different task), and ``pddlkit planners`` used to call every installed engine "ok".
A planner declares ``supports`` (a set of :data:`FEATURES`; None or absent: unknown, so it is
tried), :func:`pddlkit.plan` refuses a task that uses a feature its planner lacks, naming the
feature and the planners here that have it, and ``planner="auto"`` picks the first available
planner that supports everything the task uses. The features are the static checks' own
(:data:`pddlkit.checks.COVERS`), so the task's side is computed once, by the checker.
unified-planning engines declare theirs through their ``supported_kind()``.
"""

from __future__ import annotations

from typing import Optional

#: the features a task can use, as the static checks name them
FEATURES = frozenset({"typing", "negative", "disjunctive", "equality", "existential",
                      "universal", "conditional", "costs", "derived", "numeric"})

#: unified-planning's problem-kind features behind each of ours (any one of them will do)
UP_KINDS = {"typing": ("FLAT_TYPING", "HIERARCHICAL_TYPING"),
            "negative": ("NEGATIVE_CONDITIONS",), "disjunctive": ("DISJUNCTIVE_CONDITIONS",),
            "equality": ("EQUALITIES",), "existential": ("EXISTENTIAL_CONDITIONS",),
            "universal": ("UNIVERSAL_CONDITIONS",), "conditional": ("CONDITIONAL_EFFECTS",),
            "costs": ("ACTIONS_COST",),
            # numbers beyond action costs (ENHSP, through up-enhsp)
            "numeric": ("NUMERIC_FLUENTS", "INT_FLUENTS", "REAL_FLUENTS")}


def supported(planner: object) -> Optional[frozenset]:
    """The features ``planner`` declares (``supports``: a set, or a method returning one),
    or None when it declares none."""
    value = getattr(planner, "supports", None)
    if callable(value):
        try:
            value = value()
        except Exception:  # noqa: BLE001 - a broken declaration is no declaration
            return None
    return frozenset(value) if value is not None else None


def from_up_kind(kind_features) -> frozenset:
    """Our features from a unified-planning engine's supported kind."""
    have = set(kind_features)
    return frozenset(f for f, names in UP_KINDS.items() if have & set(names))


def describe(features: Optional[frozenset]) -> str:
    """``all``, ``all but negative, derived`` or ``unknown`` (for ``pddlkit planners``)."""
    if features is None:
        return "unknown (not declared)"
    missing = sorted(FEATURES - features)
    return "all" if not missing else "all but " + ", ".join(missing)


#: how to get a planner for a feature that no planner of a base install plans
INSTALL_FOR = {"numeric": "numeric tasks need a numeric planner: pip install "
                          "'pddlkit[numeric]' (ENHSP through up-enhsp; it needs Java)"}


def who_plans(features: frozenset, infos: list) -> tuple[list[str], list[str]]:
    """``(can, cannot)``: the available planners (``PlannerInfo``s) that declare every one of
    ``features``, and the others as ``name (lacks a, b)``; planners that declare nothing are
    in neither (they might, or might not)."""
    can, cannot = [], []
    for info in infos:
        if not info.available or info.supports is None:
            continue
        lacking = sorted(set(features) - set(info.supports))
        (cannot.append(f"{info.name} (lacks {', '.join(lacking)})") if lacking
         else can.append(info.name))
    return can, cannot


def install_hints(features: frozenset, can: list[str]) -> list[str]:
    """What to install when no planner here plans ``features``."""
    return [] if can else [INSTALL_FOR[f] for f in sorted(features) if f in INSTALL_FOR]
