"""One result shape for every agent: what ``pddlkit run`` prints and ``pddlkit bench`` stores.

Before this shape, ``success`` meant four things (a won episode, a success *rate*, "the
trained critic beat the untrained one", "the program ran everywhere") and the harness counted
any non-zero rate as a won cell. A :class:`Row` separates them:

* ``won``: the episode was won (for an agent whose episode holds several trials, such as a
  DEPS task list or CoPiC's held-out games: every trial was won);
* ``success_rate``: the share of the episode's ``trials`` that were won, in [0, 1];
* ``trials``: how many trials the rate is over (1 for a plain episode);
* ``score`` and ``measure``: for an agent whose outcome is a score, not a win (IPP: one
  program's mean reward over the held-out instances), the score and what it measures ("mean
  held-out reward"); ``score`` is None when there was nothing to score (no program was
  written). A row with a ``measure`` is a *scored* row: it is printed as its score, never as
  WON or LOST, and ``won``/``success_rate`` keep their meaning (trials that reached the task's
  goal, none where the task has no goal), so "won" never stands for "did not crash";
* ``usage``: LLM calls, prompt and completion tokens and dollars spent in this episode (the
  ledger's :class:`~pddlkit.llm.usage.Usage`, scoped to the episode so runs of several
  episodes do not count twice; flat as ``llm_calls``, ``prompt_tokens``, ... in JSON);
* ``stand_in``: what the stand-in that played knows, or None when a model played;
* ``columns``: the agent's own figures (solver errors, held-out mean, RHR, ...), which the
  report renders after the common ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from pddlkit.llm.usage import Usage

#: the keys every row has, in the order JSON output shows them
COMMON = ("agent", "env", "llm", "seed", "won", "success_rate", "trials", "score", "measure",
          "llm_calls", "prompt_tokens", "completion_tokens", "cost_usd", "seconds", "stand_in",
          "summary")
USAGE_KEYS = ("llm_calls", "prompt_tokens", "completion_tokens", "cost_usd")


@dataclass
class Row:
    agent: str
    env: str
    llm: str
    seed: Optional[int]
    won: bool
    success_rate: float
    trials: int = 1
    usage: Usage = field(default_factory=Usage)  # the ledger's count for the episode
    seconds: float = 0.0
    stand_in: Optional[str] = None
    columns: dict[str, Any] = field(default_factory=dict)
    summary: str = ""  # the agent's line about the episode, for people
    #: a scored row's figure (None: nothing was scored); see the module docstring
    score: Optional[float] = None
    #: what ``score`` measures ("mean held-out reward"); "" for a row whose outcome is a win
    measure: str = ""

    def __post_init__(self) -> None:
        if not 0.0 <= float(self.success_rate) <= 1.0:
            raise ValueError(f"success_rate must be in [0, 1], got {self.success_rate!r}")
        self.won = bool(self.won)
        self.success_rate = float(self.success_rate)
        if self.score is not None:
            self.score = float(self.score)
            if not self.measure:
                raise ValueError("a row with a score says what it measures: give measure=")
            if self.score != self.score or self.score in (float("inf"), float("-inf")):
                raise ValueError(f"score must be a finite number or None (nothing scored), "
                                 f"got {self.score!r}")

    @property
    def scored(self) -> bool:
        """Whether the row's outcome is a score (it has a ``measure``) rather than a win."""
        return bool(self.measure)

    @property
    def succeeded(self) -> bool:
        """What ``pddlkit run``'s exit status reads: a win row succeeded when it was won; a
        scored row when it has a score (whatever its value: a low score is a result, not a
        failure to run), and not when there was nothing to score."""
        return self.score is not None if self.scored else self.won

    def outcome(self) -> str:
        """The row's outcome in words: ``WON``/``LOST`` (with the share of trials won when
        there are several) for a win row; ``mean held-out reward 0.250 (100 instances)`` for a
        scored row, or ``mean held-out reward: none (nothing was scored)``."""
        if self.scored:
            if self.score is None:
                return f"{self.measure}: none (nothing was scored)"
            over = f" ({self.trials} instances)" if self.trials > 1 else ""
            return f"{self.measure} {self.score:.3f}{over}"
        rate = f" ({100 * self.success_rate:.0f}% of {self.trials})" if self.trials > 1 else ""
        return ("WON" if self.won else "LOST") + rate

    @property
    def llm_calls(self) -> int:
        return self.usage.calls

    def as_dict(self) -> dict:
        """Flat, in :data:`COMMON`'s order (the usage as ``llm_calls``, ``prompt_tokens``,
        ``completion_tokens``, ``cost_usd``), then the agent's columns (a column never hides a
        common key)."""
        u = self.usage
        data = {"agent": self.agent, "env": self.env, "llm": self.llm, "seed": self.seed,
                "won": self.won, "success_rate": self.success_rate, "trials": self.trials,
                "score": self.score, "measure": self.measure, "llm_calls": u.calls,
                "prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens,
                "cost_usd": u.cost_usd,
                "seconds": self.seconds, "stand_in": self.stand_in, "summary": self.summary}
        return {**data, **{k: v for k, v in self.columns.items() if k not in data}}

    @classmethod
    def from_dict(cls, data: dict) -> "Row":
        usage = Usage(calls=data.get("llm_calls", 0), prompt_tokens=data.get("prompt_tokens", 0),
                      completion_tokens=data.get("completion_tokens", 0),
                      cost_usd=data.get("cost_usd", 0.0))
        common = {k: data[k] for k in COMMON if k in data and k not in USAGE_KEYS}
        columns = {k: v for k, v in data.items() if k not in COMMON}
        return cls(**{"agent": "", "env": "", "llm": "", "seed": None, "won": False,
                      "success_rate": 0.0, **common}, usage=usage, columns=columns)


def won_trials(row: dict) -> float:
    """Won trials of a stored row; rows written before :class:`Row` existed carry ``success``
    (a bool, or a rate for CoPiC and DEPS), read as a rate over one trial."""
    if "success_rate" in row:
        return float(row["success_rate"]) * int(row.get("trials", 1) or 1)
    value = row.get("success")
    return float(value) if isinstance(value, (int, float)) else float(bool(value))


def trials(row: dict) -> int:
    return int(row.get("trials", 1) or 1) if "success_rate" in row else 1


def row_won(row: dict) -> bool:
    if "won" in row:
        return bool(row["won"])
    value = row.get("success")
    return value is True or (isinstance(value, (int, float)) and value >= 1)
