"""Each problem file a formalizer writes, scored against the environment's truth (issue 45).

A success rate says whether an episode was won; it does not say how close a wrong file was.
Where the environment knows its truth, the PDDLego+ loop scores every file it is given
(:class:`Scorer`, used by :func:`~.loop.run_episode`):

* the reference problem is the one a perfect reader of the observations so far writes: the
  ``observation`` formalizer's reader for the environments it reads (CoinCollector, the
  household, ALFWorld, TextWorld's coin games), else the environment's own
  ``reference_problem()`` (every :class:`~pddlkit.envs.pddl_world.PDDLWorldEnv`, so an own
  environment built on PDDL scores too); the reference domain is the environment's
  ``domain``. An environment with neither is not scored, and the record says why once;
* the file's domain is compared with the reference domain by behaviour
  (:func:`pddlkit.compare.compare_domains`, on transitions sampled from the reference problem
  of the step where that domain first appeared; the same domain text is compared once);
* alignment: the file's problem is compared in the reference's vocabulary. When the domain's
  predicates have the reference's names the problem is compared as written; when the domain
  comparison renamed predicates, the problem's facts are translated by that renaming if every
  mapping is a plain renaming (no negation) and its confidence (the share of the candidate's
  mapped predicates backed by matched literals, not by name alone) is at least
  :data:`MIN_CONFIDENCE`; otherwise the file is scored as not aligned (no fact figures) and
  says why. An unreadable domain leaves the names as written;
* the problem comparison (:func:`pddlkit.compare.compare_problems`): equivalent up to a
  renaming of objects or not, init fact precision and recall, goal literals missing and extra.
  A problem file that cannot be read scores as not equivalent with precision and recall 0
  (nothing in it can be used).

The episode's figures (:func:`summary`): the share of scored files equivalent to their
reference, the mean fact precision and recall over the aligned files, the mean behavioural
agreement of the domains. Scoring changes nothing the formalizer sees.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Optional

from pddlkit.compare import (CompareInputError, compare_domains, compare_problems, load_domain,
                             load_problem)
from pddlkit.pddl.model import And, Atom, Domain, Exists, Forall, Imply, Not, Or, Problem

from .answer import Files

#: the least share of evidence-backed predicate mappings for a renamed vocabulary to be used
MIN_CONFIDENCE = 0.5
#: transitions sampled per distinct domain
TRANSITIONS = 100
#: differences kept per file in the record
SHOWN = 5


@dataclass
class FileScore:
    """One problem file against its reference (see the module docstring)."""

    step: int
    file: int                       # index into EpisodeResult.files
    readable: bool
    equivalent: bool
    aligned: bool
    alignment: str                  # "same names", "renamed (confidence 0.83): ...", why not
    fact_precision: Optional[float] = None
    fact_recall: Optional[float] = None
    goal_precision: Optional[float] = None
    goal_recall: Optional[float] = None
    missing_facts: list[str] = field(default_factory=list)
    extra_facts: list[str] = field(default_factory=list)
    missing_goals: list[str] = field(default_factory=list)
    extra_goals: list[str] = field(default_factory=list)
    domain_equivalent: Optional[bool] = None
    domain_agreement: Optional[float] = None
    first_disagreement: Optional[str] = None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class _DomainVerdict:
    domain: Optional[Domain]
    equivalent: Optional[bool] = None
    agreement: Optional[float] = None
    first: Optional[str] = None
    renaming: Optional[dict] = None       # candidate predicate -> (reference, order)
    alignment: str = "same names"
    aligned: bool = True


class Scorer:
    """Scores the files of one episode. :meth:`for_env` returns ``(scorer, why_not)``."""

    def __init__(self, env: Any, reference_domain: Domain, reader: Any = None) -> None:
        self.env = env
        self.domain = reference_domain
        self.reader = reader            # an observation reader, or None: env.reference_problem
        self._domains: dict[str, _DomainVerdict] = {}

    @classmethod
    def for_env(cls, env: Any) -> tuple[Optional["Scorer"], str]:
        from .observation import observation_readers

        truth = getattr(env, "domain", None)
        readers = observation_readers()
        env_id = getattr(env, "id", None)
        if env_id in readers:
            reader = readers[env_id]()
            try:
                domain = truth if isinstance(truth, Domain) else load_domain(reader.domain)
            except CompareInputError as exc:
                return None, f"the reference domain cannot be read: {exc}"
            return cls(env, domain, reader), ""
        if isinstance(truth, Domain) and callable(getattr(env, "reference_problem", None)):
            return cls(env, truth), ""
        return None, (f"{env_id or type(env).__name__} gives no reference to score against: no "
                      "observation reader knows it and it has no reference_problem() (a "
                      "PDDLWorldEnv has one)")

    def reference(self, memory) -> Problem:
        """The reference problem for what ``memory`` holds (the step's observations)."""
        if self.reader is not None:
            known = self.reader.read(memory.task, memory.history, memory.failures)
            return load_problem(self.reader.problem(known), "reference")
        return self.env.reference_problem()

    def score(self, files: Files, memory, step: int, index: int) -> FileScore:
        reference = self.reference(memory)
        verdict = self._domain(files.domain, reference)
        try:
            candidate = load_problem(files.problem, "candidate")
        except CompareInputError as exc:
            return FileScore(step, index, False, False, False, f"the problem cannot be read: "
                             f"{exc}", 0.0, 0.0, 0.0, 0.0, domain_equivalent=verdict.equivalent,
                             domain_agreement=verdict.agreement,
                             first_disagreement=verdict.first)
        shared = dict(domain_equivalent=verdict.equivalent, domain_agreement=verdict.agreement,
                      first_disagreement=verdict.first)
        if not verdict.aligned:
            return FileScore(step, index, True, False, False, verdict.alignment, **shared)
        if verdict.renaming:
            candidate = _translate(candidate, verdict.renaming)
        result = compare_problems(reference, candidate, self.domain)
        return FileScore(
            step, index, True, result.equivalent, True, verdict.alignment,
            result.fact_precision, result.fact_recall, result.goal_precision,
            result.goal_recall,
            [d.format() for d in result.missing_facts[:SHOWN]],
            [d.format() for d in result.extra_facts[:SHOWN]],
            [d.format() for d in result.missing_goals[:SHOWN]],
            [d.format() for d in result.extra_goals[:SHOWN]], **shared)

    def _domain(self, text: str, reference: Problem) -> _DomainVerdict:
        if text in self._domains:
            return self._domains[text]
        try:
            candidate = load_domain(text, "candidate")
        except CompareInputError:
            verdict = _DomainVerdict(None, alignment="the domain cannot be read: names taken "
                                                     "as written")
        else:
            compared = compare_domains(self.domain, candidate, [reference],
                                       transitions=TRANSITIONS)
            b = compared.behaviour
            verdict = _DomainVerdict(candidate, compared.equivalent,
                                     b.agreement if b is not None and b.transitions else None,
                                     b.first.explain() if b is not None and b.first else None)
            renamed = [m for m in compared.predicate_mapping if not m.identity]
            if renamed:
                backed = sum(1 for m in compared.predicate_mapping if m.evidence > 0)
                confidence = backed / len(compared.predicate_mapping)
                shown = ", ".join(m.format() for m in renamed[:SHOWN])
                if any(m.negated for m in renamed):
                    verdict.aligned = False
                    verdict.alignment = (f"not aligned: a predicate is the negation of the "
                                         f"reference's ({shown})")
                elif confidence < MIN_CONFIDENCE:
                    verdict.aligned = False
                    verdict.alignment = (f"not aligned: renaming confidence {confidence:.2f} "
                                         f"is under {MIN_CONFIDENCE} ({shown})")
                else:
                    verdict.renaming = {m.candidate: (m.reference, m.order)
                                        for m in compared.predicate_mapping}
                    verdict.alignment = f"renamed (confidence {confidence:.2f}): {shown}"
        self._domains[text] = verdict
        return verdict


def _translate(problem: Problem, renaming: dict) -> Problem:
    """The problem's init facts and goal atoms in the reference's predicate names (argument
    order as the mapping says); a predicate with no mapping keeps its name."""
    def rename(atom: Atom) -> Atom:
        if atom.predicate not in renaming:
            return atom
        reference, order = renaming[atom.predicate]
        args = [None] * len(order)
        for position, source in enumerate(order):
            if source < len(args) and position < len(atom.args):
                args[source] = atom.args[position]
        if any(a is None for a in args):
            return atom
        return Atom(reference, tuple(args), atom.pos)

    return Problem(problem.name, problem.domain_name, problem.requirements, problem.objects,
                   tuple(rename(a) for a in problem.init), problem.numeric_init,
                   _map_atoms(problem.goal, rename), problem.metric)


def _map_atoms(formula, rename):
    """``formula`` with ``rename`` applied to every atom in it."""
    if isinstance(formula, Atom):
        return rename(formula)
    if isinstance(formula, (And, Or)):
        return replace(formula, parts=tuple(_map_atoms(p, rename) for p in formula.parts))
    if isinstance(formula, Not):
        return replace(formula, formula=_map_atoms(formula.formula, rename))
    if isinstance(formula, Imply):
        return replace(formula, condition=_map_atoms(formula.condition, rename),
                       consequence=_map_atoms(formula.consequence, rename))
    if isinstance(formula, (Exists, Forall)):
        return replace(formula, body=_map_atoms(formula.body, rename))
    return formula


def summary(scores: list[FileScore]) -> dict:
    """The episode's figures: files scored, the share equivalent, mean fact precision and
    recall over aligned files, mean domain agreement (None where nothing was measured)."""
    aligned = [s for s in scores if s.fact_precision is not None]
    agreements = [s.domain_agreement for s in scores if s.domain_agreement is not None]

    def mean(values: list) -> Optional[float]:
        return round(sum(values) / len(values), 4) if values else None

    return {"files_scored": len(scores),
            "files_equivalent": mean([1.0 if s.equivalent else 0.0 for s in scores]),
            "fact_precision": mean([s.fact_precision for s in aligned]),
            "fact_recall": mean([s.fact_recall for s in aligned]),
            "domain_agreement": mean(agreements)}


def pooled(rows: list[dict]) -> str:
    """The figures of several episodes' rows as one table cell: the share of scored problem
    files equivalent to the truth (pooled over files), and the mean fact precision and
    recall over the episodes that measured them; "n/a" when no file was scored."""
    files = sum(int(r.get("files_scored") or 0) for r in rows)
    if not files:
        return "n/a"
    equivalent = sum((r.get("files_equivalent") or 0.0) * int(r.get("files_scored") or 0)
                     for r in rows)
    precision = [r["fact_precision"] for r in rows if r.get("fact_precision") is not None]
    recall = [r["fact_recall"] for r in rows if r.get("fact_recall") is not None]
    cell = f"{equivalent:.0f}/{files} equivalent"
    if precision:
        cell += (f", fact P {sum(precision) / len(precision):.2f} "
                 f"R {sum(recall) / len(recall):.2f}")
    return cell
