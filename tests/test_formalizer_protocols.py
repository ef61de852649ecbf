"""The loop and the agent reach a formalizer's optional parts through small protocols
(``formalizers/base.py``), not attribute probes (issue 74): each formalizer pddlkit ships
says which it has, and a formalizer of the caller's own that has one gets what the loop
gives through it."""

from __future__ import annotations

import pytest

from pddlkit.envs import make
from pddlkit.formalizers.base import (AsksAnLLM, AsksForTheProblemAlone, CutsItsFiles,
                                      DecodesUnderGrammars, DrawsAtRandom, DrawsSamples,
                                      Formalizer, InjectsMistakes, PlaysAGivenDomain,
                                      TrimsItsHistory, ledger_of)
from pddlkit.formalizers.loop import run_episode
from pddlkit.llm.scripted import ScriptedLLM
from pddlkit.llm.usage import UsageLedger


def _made(kind: str):
    from pddlkit.formalizers.api import make_formalizer

    if kind == "llm":
        return make_formalizer(ScriptedLLM(["x"], ledger=UsageLedger()), "coin-collector")
    if kind == "modular":
        return make_formalizer(ScriptedLLM(["x"], ledger=UsageLedger()), "coin-collector",
                               modular=True)
    if kind == "noisy":
        return make_formalizer("standin:pddlego:noisy", "coin-collector")
    return make_formalizer("standin:pddlego", "coin-collector")


GIVEN = {PlaysAGivenDomain, AsksForTheProblemAlone}
FITS = {TrimsItsHistory, CutsItsFiles}
HAS = {
    "llm": GIVEN | FITS | {AsksAnLLM, DecodesUnderGrammars, DrawsSamples},
    "modular": GIVEN | FITS | {AsksAnLLM, DecodesUnderGrammars},
    "noisy": {DrawsAtRandom, InjectsMistakes},
    "observation": set(),
}
PARTS = (PlaysAGivenDomain, AsksForTheProblemAlone, TrimsItsHistory, CutsItsFiles, AsksAnLLM,
         DecodesUnderGrammars, DrawsSamples, DrawsAtRandom, InjectsMistakes)


@pytest.mark.parametrize("kind", sorted(HAS))
def test_each_formalizer_says_which_optional_parts_it_has(kind):
    formalizer = _made(kind)
    assert isinstance(formalizer, Formalizer)
    assert {p for p in PARTS if isinstance(formalizer, p)} == HAS[kind]
    assert (ledger_of(formalizer) is not None) == (AsksAnLLM in HAS[kind])


class _OwnFormalizer:
    """A caller's formalizer that plays on a given domain: it writes whole files from the
    observation stand-in's reading, with the frozen domain in place of its own."""

    name = "own"

    def __init__(self) -> None:
        from pddlkit.formalizers.observation import ObservationFormalizer

        self.inner = ObservationFormalizer("coin-collector")
        self.fixed_domain = None
        self.problem_only = False
        self.domains_seen: list[str] = []

    def propose(self, context):
        files = self.inner.propose(context)
        self.domains_seen.append(self.fixed_domain)
        return type(files)(self.fixed_domain or files.domain, files.problem)


def test_a_callers_formalizer_that_plays_a_given_domain_is_given_it():
    from pddlkit.domains import path as domain_path

    domain = domain_path("coin-collector/domain.pddl").read_text()
    own = _OwnFormalizer()
    assert isinstance(own, PlaysAGivenDomain) and not isinstance(own, AsksAnLLM)
    result = run_episode(make("coin-collector", rooms=3), own, seed=0, domain=domain,
                         problem_only=True)
    assert own.domains_seen and set(own.domains_seen) == {domain}
    assert own.problem_only is True
    assert result.won
    del own.problem_only   # one with the domain's attribute alone is given it too
    own.domains_seen = []
    assert isinstance(own, PlaysAGivenDomain) and not isinstance(own, AsksForTheProblemAlone)
    assert run_episode(make("coin-collector", rooms=3), own, seed=0, domain=domain).won
    assert set(own.domains_seen) == {domain} and not hasattr(own, "problem_only")
