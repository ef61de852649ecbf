"""``pddlkit learn-domain``: the model writes the domain over several dev episodes, each
schema checked against every transition the agent observed; the version that explains all of
them is saved to the library, for test episodes to reuse frozen (issue 75).

    pddlkit learn-domain --env coin-collector --llm local:qwen2.5-coder-1.5b --episodes 3
    pddlkit run pddlego --env coin-collector --llm local:qwen2.5-coder-1.5b --small-model \\
        --constrained --reuse-domain --seed TEST_SEED --episodes 10

How, and why so:

* The episodes are ``pddlkit run pddlego`` with ``--small-model --keep-domain`` (and
  ``--constrained`` where the LLM's server takes grammars): one formalizer plays them all, so
  the predicates and schemas the model wrote in the first episode, and every transition they
  were checked against (``--schema-check``), carry over to the next; only the facts start
  anew. Dev seeds only (0-99): a domain learnt on a test seed would make the test row a
  training row.
* The domain kept is the last one the episodes planned with. It is saved only when it
  explains every transition of every episode (:func:`pddlkit.semantics.transitions.
  check_transitions`: the commands the world took and refused, against the facts believed
  before each), and at least one episode was won with it; otherwise the first finding (or
  that none was won) is printed and nothing is saved. Why the win: a few refused commands are
  easy to explain (measured: with ``--predicate-slots`` a ``random`` model's domain
  explained every transition of two 10-step episodes, agreeing with the reference on 1% of
  sampled transitions). The library
  stores the transitions (``transitions.json``) and refuses, then and at every
  ``verify``, a domain that contradicts one of them.
* ``learning.json`` beside it says what the learning cost and how it went: the model, the
  seeds, the episodes won, the transitions explained, the seconds and tokens spent, the
  aspect of the state each predicate was written for (``--predicate-slots``: over the
  entry reused, ``place_goals`` and ``refused_steps`` play by them), and,
  where pddlkit has the environment's reference domain, the agreement by behaviour with it
  (``pddlkit compare``'s sampled transitions on the dev seeds' own problems: a score read
  from the simulator's rules after learning, never shown to the model).
* Nothing is read from the simulator's hidden state while learning: the model sees the
  observations, and code the commands and the world's answers.
"""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional

#: learning runs on dev seeds only (the benchmarks' test seeds come after them: --split test)
DEV_SEEDS = range(0, 100)


@dataclass
class Learned:
    """What :func:`learn_domain` did: the domain it kept (None: no episode planned), whether
    it was saved (``entry``: the library id) or why not (``findings``), and the costs."""

    env: str
    model: str
    seeds: list[int]
    won: int
    transitions: int
    seconds: float
    tokens: int
    domain: Optional[str] = None
    findings: list[str] = field(default_factory=list)
    entry: Optional[str] = None
    agreement: Optional[float] = None
    why_not: str = ""

    def format(self) -> str:
        head = (f"learn-domain {self.env} with {self.model}: {len(self.seeds)} dev episodes "
                f"(seeds {self.seeds[0]}-{self.seeds[-1]}), {self.won} won, "
                f"{self.transitions} transitions, {self.seconds:.0f} s, {self.tokens} tokens")
        if self.entry:
            tail = f"saved as {self.entry}: it explains every transition"
            if self.agreement is not None:
                tail += f"; agreement with the reference by behaviour {self.agreement:.2f}"
        else:
            tail = "not saved: " + (self.why_not or "; ".join(self.findings[:3]))
        return head + "\n" + tail

    def to_dict(self) -> dict:
        return asdict(self)


def learn_domain(env_id: str, llm: str, episodes: int, *, first_seed: int = 0,
                 budget: int = 30, library: Optional[str] = None,
                 env_options: Optional[dict] = None, constrained: bool = True,
                 record: Optional[str] = None, max_tokens: Optional[int] = None,
                 helps: Optional[str] = None) -> Learned:
    """Play ``episodes`` dev episodes from ``first_seed`` with the domain kept from one to
    the next, and save the last domain to the library when it explains every transition.
    ``helps``: the helps to play with, as a row's ``helps`` column writes them
    (``modular+repair+...``); None, the ``--small-model`` preset (:func:`_with_helps`)."""
    from pddlkit.agents import get_agent, run_job
    from pddlkit.semantics.transitions import check_transitions

    from .evidence import transitions as read_transitions

    seeds = list(range(first_seed, first_seed + episodes))
    outside = [s for s in seeds if s not in DEV_SEEDS]
    if episodes < 1:
        raise ValueError(f"learn-domain plays 1 or more dev episodes; got --episodes {episodes}")
    if outside:
        raise ValueError(f"learn-domain plays dev seeds only (0-99); {episodes} episodes from "
                         f"seed {first_seed} reach seeds {seeds[0]}-{seeds[-1]}: learning on "
                         "a test seed would make its row a training row")
    spec = get_agent("pddlego")
    options = spec.make_options({**_with_helps(helps), "keep_domain": True,
                                 "constrained": constrained, "budget": budget})
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(record) if record else Path(scratch) / "learn.jsonl"
        started = time.monotonic()
        rows = run_job(spec, env=env_id, llm=llm, seeds=seeds, options=options,
                       env_options=env_options or {}, record=path, max_tokens=max_tokens)
        seconds = time.monotonic() - started
        events = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    evidence = read_transitions(events)
    used = [r.as_dict() for r in rows]
    learned = Learned(env_id, llm, seeds, sum(bool(r.get("won")) for r in used),
                      len(evidence), round(seconds, 1),
                      sum(int(r.get("prompt_tokens") or 0) + int(r.get("completion_tokens")
                                                                  or 0) for r in used))
    files = [e for e in events if e.get("type") == "files"]
    if not files:
        said = next((f"seed {r['seed']} {_stopped(r['summary'])}" for r in used
                     if r.get("summary")), "")
        learned.why_not = ("no episode got as far as files to plan with"
                           + (f" ({said})" if said else ""))
        return learned
    learned.domain = files[-1]["domain"]
    try:
        learned.findings = [f.format() for f in check_transitions(learned.domain, evidence)]
    except ValueError as exc:
        learned.findings = [str(exc)]
    if learned.findings:
        learned.why_not = f"it does not explain every transition: {learned.findings[0]}"
        return learned
    learned.agreement = _agreement(env_id, learned.domain, seeds, env_options or {})
    if not learned.won:
        learned.why_not = (f"no episode was won with it (it explains all {len(evidence)} "
                           "transitions, but a few refused commands are easy to explain: a "
                           "domain is saved once it has reached a goal)")
        return learned
    _save(learned, library, events, evidence)
    return learned


def _with_helps(helps: Optional[str]) -> dict:
    """The options of ``helps`` (``modular+repair+...``, the labels rows print; None: the
    ``--small-model`` preset). Why a list: the replay of a learning record made before a help
    joined the preset plays it with the helps its record names
    (``benchmarks/replay_records.py``). A name that is no help of the table is refused."""
    if helps is None:
        return {"small_model": True}
    from .help_table import HELPS

    names = {h.label: h.name for h in HELPS}
    asked = [h for h in helps.split("+") if h and h not in ("none", "constrained")]
    unknown = [h for h in asked if h not in names]
    if unknown:
        raise ValueError(f"--helps: {', '.join(unknown)} is no help of PDDLego+'s (they are "
                         f"{', '.join(sorted(names))})")
    return {names[h]: True for h in asked}


def _won_with(events: list[dict], domain: str) -> int:
    """How many episodes were won planning with ``domain`` (their last files' domain)."""
    last: dict = {}
    won = 0
    for event in events:
        if event.get("type") == "files":
            last[event.get("episode")] = event["domain"]
        elif event.get("type") == "outcome" and event.get("won"):
            won += last.get(event.get("episode")) == domain
    return won


def _stopped(summary: str) -> str:
    """What stopped an episode, from its row's summary (the ``stopped:`` part, else all)."""
    said = summary.partition("stopped: ")[2].partition("; helps:")[0]
    return f"stopped: {said}" if said else summary


def _save(learned: Learned, library: Optional[str], events: list[dict],
          evidence: list) -> None:
    """Save a learned domain that explains every transition, with its problems, its
    evidence and how it was learned; the library's refusal is kept as ``why_not``."""
    from .library import DomainLibrary, DomainRejected

    problems = [e["problem"] for e in events
                if e.get("type") == "files" and e["domain"] == learned.domain]
    meta = {"model": learned.model, "seeds": learned.seeds, "episodes": len(learned.seeds),
            "won": learned.won, "transitions_explained": len(evidence),
            "seconds": learned.seconds, "tokens": learned.tokens,
            "agreement_with_reference": learned.agreement}
    aspects = _aspects(events, learned.domain)
    if aspects:
        meta["aspects"] = aspects
    try:
        entry = DomainLibrary(library).save(
            learned.env, learned.domain, problems[-20:], model=learned.model,
            transitions=evidence, learning=meta, won=_won_with(events, learned.domain),
            task=next((e.get("task", "") for e in events if e.get("type") == "start"), ""))
    except DomainRejected as exc:
        learned.why_not = str(exc)
        return
    learned.entry = entry.id


def _aspects(events: list[dict], domain: str) -> dict[str, str]:
    """predicate -> the aspect its line named in the last predicates answer the episodes
    used (``--predicate-slots``: ``where the player is: (player ?p1 - receptacle)``), for
    the predicates of ``domain``; {} without slotted answers. Saved with the entry, so the
    helps that play by them act over it reused (:meth:`.library.DomainEntry.aspects`)."""
    from pddlkit.pddl.reader import read_domain

    from .helps.predicate_slots import aspects_of

    answers = [p.get("answer", "") for e in events if e.get("type") == "parts"
               for p in e.get("parts", ()) if p.get("part") == "predicates"
               and p.get("outcome") == "used"]
    dom, _ = read_domain(domain)
    if not answers or dom is None:
        return {}
    return aspects_of(answers[-1], list(dom.predicates))


def _agreement(env_id: str, domain: str, seeds: list[int], env_options: dict
               ) -> Optional[float]:
    """Agreement by behaviour with the environment's reference domain on the dev seeds' own
    problems (None where pddlkit has no reference for it)."""
    from pddlkit.compare import compare_domains
    from pddlkit.envs import make

    env = make(env_id, **env_options)
    reference = getattr(env, "domain", None)
    if reference is None or not hasattr(env, "problem"):
        return None
    problems = []
    for seed in seeds[:3]:
        env.reset(seed=seed)
        problems.append(env.problem)
    try:
        return round(compare_domains(reference, domain, problems).behaviour.agreement, 3)
    except Exception:   # noqa: BLE001 - a score, never worth the saved domain
        return None
