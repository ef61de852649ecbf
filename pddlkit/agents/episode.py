"""A job (what ``pddlkit run AGENT`` or a bench cell asks for) and its episodes.

An :class:`Episode` owns what every front end used to do its own way: the JSONL record (one
line per event, ``{"type": ..., "time": ..., "episode": seed, ...}``, appended, so a run
stopped halfway keeps what it wrote; an episode an interrupt cut ends with an
``interrupted`` event holding what it had spent: :meth:`Job.interrupted`), the live
transcript (the agent's ``describe`` turns an event into a line for people), the LLM-usage
scope (calls and tokens spent between the episode's start and its row, read from the
process-wide ledger every pddlkit LLM records into unless given its own), and the metrics,
which end as one :class:`~.row.Row`.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Union

from pddlkit.llm.usage import Usage, usage_since, usage_snapshot

from .row import Row
from .spec import AgentSpec


def _ledger():
    from pddlkit.llm.usage import DEFAULT_LEDGER

    return DEFAULT_LEDGER


class RecordFile:
    """JSON lines appended to ``path`` (nothing when ``path`` is None)."""

    def __init__(self, path: Union[str, os.PathLike, None]) -> None:
        self.path = Path(path) if path else None
        if self.path:
            self.path.parent.mkdir(parents=True, exist_ok=True)

    def write(self, kind: str, **data: Any) -> None:
        if self.path is None:
            return
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"type": kind, **data, "time": time.time()},
                                ensure_ascii=False, default=str) + "\n")


@dataclass
class Job:
    """What to play: ``spec`` on ``env`` (with ``env_options``) with ``llm``, one episode per
    seed in ``seeds``, with the agent's ``options`` dataclass. ``record`` is the JSONL file
    every episode appends to; ``show`` prints live lines (None: quiet); ``ledger`` is the
    usage ledger episodes are scoped on (default: the process-wide one)."""

    spec: AgentSpec
    env: str
    llm: str
    seeds: list[int]
    options: Any
    env_options: dict = field(default_factory=dict)
    record: Union[str, os.PathLike, None] = None
    max_tokens: Optional[int] = None
    show: Optional[Callable[[str], None]] = None
    ledger: Any = None
    #: the seed of a stand-in's own randomness (a bench cell's, so cells that share a seed
    #: differ); None: each episode's seed
    rng_seed: Optional[int] = None
    #: the step budget ``--max-steps`` gave (None: the agent's and the environment's own);
    #: :meth:`make_env` gives it to a text world, so its own limit follows the agent's
    max_steps: Optional[int] = None
    #: where every LLM call is appended (JSONL); None: ``$PDDLKIT_TRANSCRIPT`` or nowhere
    transcript: Union[str, os.PathLike, None] = None

    def __post_init__(self) -> None:
        self._record = RecordFile(self.record)
        if self.ledger is None:
            self.ledger = _ledger()
        self._playing: Optional[Episode] = None   # the episode begun and not yet ended by a row
        self._cut: Optional[dict] = None          # what :meth:`interrupted` wrote, once

    def make_env(self, **given: Any) -> Any:
        """The job's environment, the one way every front end gets it: the registry's
        ``make(env, **options)`` (through its ``pddlkit.env_specs`` entry point) with the job's
        environment options, less the ones the agent reads itself
        (:attr:`~.spec.AgentSpec.env_options`), plus what the agent gives (``given``: an
        item DEPS chose, PLAP's map). A ``--max-steps`` budget goes to a text world's own step
        limit (a game counts its steps its own way; the agent passes its budget there)."""
        from .contract import TEXT_KINDS, env_spec

        spec = env_spec(self.env)
        own = set(self.spec.env_options_help())
        options = {k: v for k, v in self.env_options.items() if k not in own}
        options.update(given)
        if self.max_steps is not None and spec.kind in TEXT_KINDS \
                and "max_episode_steps" not in options and spec.budget not in options:
            options["max_episode_steps"] = self.max_steps
        return spec.make(**options)

    def make_llm(self, spec: Optional[str] = None, *, own_ledger: bool = False) -> Any:
        """The job's LLM, the one way an agent gets it, as :meth:`make_env` is for the
        environment (issue 74: "the Job owns the LLM"): ``spec`` (default: the job's
        ``llm``) loaded with the job's ledger, so every call counts in the job's rows; its
        token cap and transcript are the job's (:meth:`llm_settings`). A front end's
        stand-in (``standin``, ``standin:<agent>...``, a removed stand-in word), or None,
        comes back as it is, for the front end to read (or refuse); anything else is a
        model, a bare name being OpenAI's, as ``--llm`` reads it. An agent calls this after
        its own option checks: loading may start a local server. ``own_ledger``: the model
        records into a ledger of its own whose parent is the job's (a runner that reads
        figures of its own run, as CoPiC's tokens per task type; every call still counts in
        the job's rows, :mod:`pddlkit.llm.usage`)."""
        from pddlkit.llm.spec import STAND_IN_KIND, STAND_IN_WORDS, load_llm

        spec = self.llm if spec is None else spec
        if not isinstance(spec, str):
            return spec
        head = spec.strip().split(":", 1)[0]
        if not spec.strip() or head == STAND_IN_KIND or head in STAND_IN_WORDS:
            return spec
        if own_ledger:
            from pddlkit.llm.usage import UsageLedger

            return load_llm(spec, ledger=UsageLedger(parent=self.ledger))
        return load_llm(spec, ledger=self.ledger)

    def env_option(self, name: str, default: Any = None) -> Any:
        """An environment option the agent reads itself (PLAP's ``match``), or ``default``."""
        value = self.env_options.get(name)
        return default if value is None else value

    @contextmanager
    def llm_settings(self) -> Iterator[None]:
        """While the job plays, every LLM the agent makes caps its answers at
        ``max_tokens`` and appends its calls to ``transcript``: set here once, for every
        agent, whether the job came from the command line, a sweep or :func:`run_job`
        (:mod:`pddlkit.llm.call_settings`: process-wide, so worker threads an agent starts
        see it too; the process's environment is not touched)."""
        from pddlkit.llm.call_settings import call_settings

        with call_settings(max_tokens=self.max_tokens or None,
                           transcript=self.transcript or None):
            yield

    def play(self) -> Iterator[Row]:
        """The agent's rows, one per seed, played under :meth:`llm_settings`."""
        with self.llm_settings():
            try:
                yield from self.spec.play(self)
            except KeyboardInterrupt:   # whoever plays the job (CLI, run_job, a sweep)
                self.interrupted()
                raise

    @property
    def stand_in(self) -> Optional[str]:
        return self.spec.stand_in_label(self.llm)

    def episode(self, seed: Optional[int]) -> "Episode":
        self._playing = Episode(self, seed)
        return self._playing

    def interrupted(self) -> Optional[dict]:
        """What the episode cut by an interrupt (Ctrl-C, a time limit's SIGINT) had done:
        written to the record as an ``interrupted`` event (its seed, seconds, and the LLM
        calls and tokens the job's ledger counted since it began) and returned, so the work
        spent on it is not lost with its row; None when no episode was in progress. A
        stand-in counts its calls in a ledger of its own, so its event says ``stand_in`` and
        its counts here are the job ledger's (none of the stand-in's). :meth:`play` calls it
        on the interrupt; a second call returns the same, writing nothing."""
        if self._playing is None:
            return self._cut
        episode = self._playing
        data = {"seconds": round(time.monotonic() - episode.started, 3), **episode.usage(),
                "stand_in": self.stand_in}
        episode._start()
        self._record.write("interrupted", episode=episode.seed, **data)
        self._cut, self._playing = {"seed": episode.seed, **data}, None
        return self._cut


class Episode:
    """One episode of a job; ``emit`` events while playing, then ``row(...)`` once."""

    def __init__(self, job: Job, seed: Optional[int]) -> None:
        self.job, self.seed = job, seed
        self.rng_seed = job.rng_seed if job.rng_seed is not None else (seed or 0)
        self.started = time.monotonic()
        self._before = usage_snapshot(job.ledger)
        # the "start" line: written with the agent's own first event when that is a "start"
        # (a loop's, with the task and first observation), else before whatever comes first
        self._header: Optional[dict] = {"agent": job.spec.name, "env": job.env, "llm": job.llm,
                                        "seed": seed, "env_options": job.env_options}
        #: the episode's events by kind, and a ``help-acted`` event's counts by help: what
        #: :func:`pddlkit.agents.helps.acted` reads for the row's ``helps_acted``
        self.counts: Counter = Counter()

    def _start(self, data: Optional[dict] = None) -> None:
        if self._header is not None:
            header, self._header = self._header, None
            self.job._record.write("start", episode=self.seed, **{**header, **(data or {})})

    def emit(self, kind: str, **data: Any) -> None:
        """An event: appended to the record; shown live if the agent describes it. A loop's
        own ``outcome`` event is not written: the episode's outcome is its row."""
        if kind == "outcome":
            return
        if kind == "help-acted":
            self.counts.update(data.get("counts") or {})
        else:
            self.counts[kind] += 1
        if kind == "start" and self._header is not None:
            self._start(data)
        else:
            self._start()
            self.job._record.write(kind, episode=self.seed, **data)
        if self.job.show is not None and self.job.spec.describe is not None:
            line = self.job.spec.describe(kind, data)
            if line:
                self.job.show(line)

    def on_event(self, kind: str, data: dict) -> None:
        """``emit`` in the ``on_event(kind, data)`` shape front-end loops call."""
        self.emit(kind, **data)

    def usage(self) -> dict:
        """The LLM usage since the episode began, from the job's ledger (the one scope:
        :func:`pddlkit.llm.usage.usage_since`)."""
        return usage_since(self.job.ledger, self._before).to_dict()

    def row(self, won: bool, success_rate: Optional[float] = None, trials: int = 1,
            summary: str = "", usage: Union[dict, Usage, None] = None, *,
            score: Optional[float] = None,
            measure: str = "", **columns: Any) -> Row:
        """The episode's row, with its usage and stand-in; written to the record as
        ``outcome``. ``success_rate`` defaults to 1.0 or 0.0 from ``won``. ``usage`` (calls,
        prompt_tokens, completion_tokens, cost_usd) is for an agent whose LLM keeps a ledger
        of its own (a stand-in's); by default it is the job ledger's count for the episode.
        An agent whose outcome is a score gives ``measure`` (what it measures) and ``score``
        (None when nothing was scored): the row is then printed as its score, never as a win
        (:class:`~.row.Row`)."""
        used = self.usage() if usage is None else usage
        used = used if isinstance(used, Usage) else Usage.from_dict(used)
        counted = Usage(calls=used.calls, prompt_tokens=used.prompt_tokens,
                        completion_tokens=used.completion_tokens,
                        cost_usd=round(used.cost_usd, 6))
        row = Row(self.job.spec.name, self.job.env, self.job.llm, self.seed, won,
                  float(won) if success_rate is None else success_rate, trials, counted,
                  round(time.monotonic() - self.started, 3), self.job.stand_in,
                  dict(columns), summary, score, measure)
        self._start()
        self.job._record.write("outcome", episode=self.seed, **row.as_dict())
        if self.job._playing is self:
            self.job._playing = None
        return row
