"""The usage ledger: calls, tokens and dollars, per episode, per model and for the whole run.

Token cost is what the papers compare (CoPiC's 79% cut, IPP's amortized 400x), so every call is
counted here, including those the cache served (counted apart: they cost nothing now, and the
ledger shows what they would have cost). Prices come from a table that users can replace
(``PriceTable.from_file`` or ``PDDLKIT_PRICES=prices.json``), since list prices change.

**What counts as an LLM call, and what as a critic decision** (one definition, for every
agent's row): an *LLM call* is one answer a model generated (a completion through a pddlkit
LLM, served by the cache or not). A *critic decision* is one scoring pass of a critic or a
critic-as-policy over candidates (CoPiC's critic, TWOSOME's policy): it reads tokens and
generates none. Both are recorded in the ledger, a decision under a model name that starts
with ``critic:`` or ``policy:`` (:data:`DECISION_PREFIXES`); :func:`split_usage` separates
them. A row's ``llm_calls``, ``prompt_tokens``, ``completion_tokens`` and ``cost_usd`` are LLM
calls only; ``critic_decisions`` and ``critic_tokens`` are the decisions.

**One scope**: an episode's usage is the ledger's LLM calls since a snapshot
(:func:`usage_since`; critic decisions are their own columns), whoever reads it (an agent's
row, ``formalize_and_plan``'s result, a runner's figures).

**A run's own ledger inside a job's** (issue 74: the Job owns the LLM and its ledger): a runner
that reads per-part figures of its own (CoPiC's tokens per task type, TWOSOME's decisions) keeps
``UsageLedger(parent=job.ledger)``: every call it records counts in the job's ledger too, so the
job's rows read their usage from the job's ledger like every other agent's, and nothing is
rebuilt from a runner's metrics.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator, Optional, Union

#: USD per million tokens (input, output): OpenAI list prices, standard tier, as of 2025.
#: Local models (HFLocal, a vLLM or Ollama server) are not in the table and cost 0.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4-turbo": (10.00, 30.00),
    "gpt-4": (30.00, 60.00),
    "gpt-3.5-turbo": (0.50, 1.50),
    "o1": (15.00, 60.00),
    "o1-mini": (1.10, 4.40),
    "o3": (2.00, 8.00),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
}


@dataclass
class PriceTable:
    """Model name -> (USD per 1M input tokens, USD per 1M output tokens).

    A dated model name ('gpt-4o-mini-2024-07-18') takes the price of its longest listed prefix.
    """

    prices: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_PRICES))

    @classmethod
    def from_file(cls, path: Union[str, os.PathLike]) -> "PriceTable":
        """JSON: {"model": [input_usd_per_1M, output_usd_per_1M], ...}, merged over defaults."""
        data = json.loads(Path(path).read_text())
        table = cls()
        for model, pair in data.items():
            if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
                raise ValueError(f"{path}: price of {model!r} must be [input, output] USD per "
                                 f"1M tokens, got {pair!r}")
            table.prices[model] = (float(pair[0]), float(pair[1]))
        return table

    @classmethod
    def default(cls) -> "PriceTable":
        path = os.environ.get("PDDLKIT_PRICES")
        return cls.from_file(path) if path else cls()

    def lookup(self, model: str) -> Optional[tuple[float, float]]:
        name = model.split("@", 1)[0]
        name = name.split("/")[-1] if name not in self.prices else name
        best = None
        for known in self.prices:
            if (name == known or name.startswith(known + "-")) and (
                    best is None or len(known) > len(best)):
                best = known
        return self.prices[best] if best else None

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float:
        price = self.lookup(model)
        if price is None:
            return 0.0
        return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000


@dataclass
class Usage:
    """Totals for one slice of the run (an episode, a model, or everything)."""

    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    #: what the cached calls would have cost had they gone to the model
    saved_usd: float = 0.0
    latency_s: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: "Usage") -> None:
        for name in ("calls", "cached_calls", "prompt_tokens", "completion_tokens", "cost_usd",
                     "saved_usd", "latency_s"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def to_dict(self) -> dict:
        return {**asdict(self), "total_tokens": self.total_tokens}

    @classmethod
    def from_dict(cls, data: Optional[dict]) -> "Usage":
        """The counts of a :meth:`to_dict` dict; missing keys 0."""
        data = data or {}
        return cls(**{name: data.get(name, 0) for name in (
            "calls", "cached_calls", "prompt_tokens", "completion_tokens", "cost_usd",
            "saved_usd", "latency_s")})

    def __getitem__(self, key: str):
        """``usage["calls"]``: the dict-style reading :meth:`to_dict` gives, kept because
        results returned a dict before they returned a Usage."""
        return self.to_dict()[key]

    def get(self, key: str, default=None):
        """``usage.get("calls", 0)``: the rest of the dict-style reading (see ``__getitem__``)."""
        return self.to_dict().get(key, default)


_EPISODE: contextvars.ContextVar[Optional[str]] = contextvars.ContextVar(
    "pddlkit_llm_episode", default=None)


class UsageLedger:
    """Counts every call; ``with ledger.episode("ep-3"):`` files calls under that episode.

    Tokens of cached calls are counted as tokens (they are part of the episode's context), but
    their cost goes to ``saved_usd``, not ``cost_usd``.
    """

    def __init__(self, prices: Optional[PriceTable] = None,
                 parent: Optional["UsageLedger"] = None) -> None:
        """``parent``: a ledger every call recorded here is recorded in too (a job's, for a
        run that keeps figures of its own; see the module)."""
        self.prices = prices or PriceTable.default()
        self.parent = parent
        self._lock = threading.Lock()
        self.run = Usage()
        self.episodes: dict[str, Usage] = {}
        self.models: dict[str, Usage] = {}

    @contextlib.contextmanager
    def episode(self, name: str) -> Iterator[Usage]:
        token = _EPISODE.set(name)
        with self._lock:
            usage = self.episodes.setdefault(name, Usage())
        try:
            yield usage
        finally:
            _EPISODE.reset(token)

    @staticmethod
    def current_episode() -> Optional[str]:
        return _EPISODE.get()

    def record(self, completion) -> Usage:
        cost = self.prices.cost(completion.model, completion.prompt_tokens,
                                completion.completion_tokens)
        entry = Usage(calls=1, cached_calls=int(completion.cached),
                      prompt_tokens=completion.prompt_tokens,
                      completion_tokens=completion.completion_tokens,
                      cost_usd=0.0 if completion.cached else cost,
                      saved_usd=cost if completion.cached else 0.0,
                      latency_s=0.0 if completion.cached else completion.latency_s)
        episode = _EPISODE.get()
        with self._lock:
            self.run.add(entry)
            self.models.setdefault(completion.model, Usage()).add(entry)
            if episode is not None:
                self.episodes.setdefault(episode, Usage()).add(entry)
        if self.parent is not None:
            self.parent.record(completion)
        return entry

    def reset(self) -> None:
        with self._lock:
            self.run = Usage()
            self.episodes.clear()
            self.models.clear()

    def to_dict(self) -> dict:
        with self._lock:
            return {"run": self.run.to_dict(),
                    "episodes": {k: v.to_dict() for k, v in self.episodes.items()},
                    "models": {k: v.to_dict() for k, v in self.models.items()}}

    def save(self, path: Union[str, os.PathLike]) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n")

    def summary(self) -> str:
        """The LLM calls, then the critic decisions when there are any (see the module: a
        job's ledger holds CoPiC's and TWOSOME's decisions too)."""
        u, decisions = split_usage(self)
        return (f"{u.calls} LLM calls ({u.cached_calls} from cache), {u.prompt_tokens} prompt + "
                f"{u.completion_tokens} completion tokens, ${u.cost_usd:.4f}"
                + (f" (cache saved ${u.saved_usd:.4f})" if u.saved_usd else "")
                + (f"; {decisions.calls} critic decisions over {decisions.prompt_tokens} "
                   "tokens" if decisions.calls else ""))

    def __str__(self) -> str:
        """What ``print(llm.ledger)`` shows: the run's calls, tokens, dollars and time spent
        waiting for answers, not an object address."""
        with self._lock:
            seconds = self.run.latency_s
        return f"{self.summary()}, {seconds:.2f} s waiting for answers"

    def __repr__(self) -> str:
        with self._lock:
            u, episodes, models = self.run, len(self.episodes), sorted(self.models)
        return (f"UsageLedger(calls={u.calls}, cached_calls={u.cached_calls}, "
                f"prompt_tokens={u.prompt_tokens}, completion_tokens={u.completion_tokens}, "
                f"cost_usd={u.cost_usd:.4f}, latency_s={u.latency_s:.2f}, "
                f"episodes={episodes}, models={models})")


#: the process-wide ledger every LLM records into unless given its own
DEFAULT_LEDGER = UsageLedger()


def usage_snapshot(ledger) -> Optional[dict]:
    """The ledger's LLM-call totals now (None without a ledger), for :func:`usage_since`."""
    return llm_calls(ledger).to_dict() if ledger is not None else None


#: model-name prefixes of critic decisions (see the module): not LLM calls
DECISION_PREFIXES = ("critic:", "policy:")


def is_decision(model: str) -> bool:
    """Whether a ledger's model name is a critic's (its entries are decisions)."""
    return str(model).startswith(DECISION_PREFIXES)


def split_usage(ledger) -> tuple[Usage, Usage]:
    """(LLM calls, critic decisions) of the ledger's whole run, by the one definition (see
    the module); two empty Usages without a ledger."""
    calls, decisions = Usage(), Usage()
    if ledger is None:
        return calls, decisions
    with getattr(ledger, "_lock", None) or contextlib.nullcontext():   # worker threads record
        models = [(model, Usage.from_dict(usage.to_dict()))
                  for model, usage in ledger.models.items()]
    for model, usage in models:
        (decisions if is_decision(model) else calls).add(usage)
    return calls, decisions


def llm_calls(ledger) -> Usage:
    """The ledger's LLM calls over its whole run, critic decisions left out (see the module)."""
    return split_usage(ledger)[0]


def usage_since(ledger, before: Optional[dict]) -> Usage:
    """The LLM calls of ``ledger`` since the snapshot ``before`` (:func:`usage_snapshot`;
    nothing without a ledger): the one usage scope (an episode's row,
    ``formalize_and_plan``'s result, a runner's figures all read it; ``.to_dict()`` where a
    record keeps it as data). Critic decisions are not LLM calls: a row counts them in its
    own columns."""
    if ledger is None or before is None:
        return Usage()
    after = llm_calls(ledger).to_dict()
    return Usage.from_dict({k: after[k] - before.get(k, 0) for k in after})
