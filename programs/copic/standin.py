"""CoPiC's offline program writer: a scripted LLM that answers CoPiC's real prompts with real
programs of graded quality, and improves them in evolution only from what the results show.

``CopicWriter("sc2", [(), ("no-fusioncore",), ("no-supply", "no-gas")])`` writes, for the n
init calls of a task type, one program per mistake set in turn (one correct strategy and two
flawed ones here). An evolution prompt carries the current programs and their results; for its
k-th call the writer takes program k, and drops each of its mistakes whose *symptom* shows in
the results (for SC2: a unit the mistake leaves untrained has count 0 in an episode, as the
paper's criterion 1 reads; supply and error messages in the program's own section). A mistake
whose symptom does not show stays. So evolution works here exactly as far as the feedback
carries the evidence, never from the writer's knowledge of what it injected.

As an LLM spec: ``standin`` / ``standin:copic`` (the kind's default sets) or
``standin:copic:A,B;C;`` (programs separated by ``;``, mistakes by ``,``; an empty entry is the
correct program).
"""

from __future__ import annotations

import re
from typing import Callable, Optional, Sequence

from pddlkit.agents.standins import StandIn, names

from .household_programs import HOUSEHOLD_MISTAKES, household_program
from .nethack_programs import NETHACK_MISTAKES, nethack_program
from .sc2_programs import AFFECTS, SC2_MISTAKES, sc2_program

#: per kind: the program sets written by default (one correct, two flawed)
DEFAULT_SETS = {
    "sc2": [(), ("supply-spam", "no-fusioncore", "no-armory", "no-ghostacademy"),
            ("supply-spam", "example-units", "no-gas")],
    "household": [(), ("no-take",), ("no-open", "skip-transform")],
    "nethack": [(), ("no-explore",), ("fountains-only", "no-kick", "attack-pets")],
}


def _contained(mistake: str, section: str) -> bool:
    """A crash or a hang shows as the program's own sandbox errors in the results."""
    kind = {"crash": "crash", "infinite-loop": "timeout"}[mistake]
    return bool(re.search(rf"error \(\d+ times\): {kind}", section))


def _sc2_shows(mistake: str, results: str, section: str) -> bool:
    counts = dict((u, int(n)) for u, n in re.findall(r"\b([A-Z]+) (\d+)/\d+", results))
    if mistake in AFFECTS:
        return any(counts.get(u) == 0 for u in AFFECTS[mistake])
    if mistake == "no-gas":
        return any(n == 0 for u, n in counts.items() if u not in ("SCV", "MARINE", "HELLION"))
    if mistake == "example-units":
        return bool(re.search(r"units not in the task: .*\b(MARINE|REAPER|MARAUDER|HELLION)\b",
                              results))
    if mistake == "no-supply":
        return bool(re.search(r"needs \d+ supply; 0 left", section))
    if mistake in ("crash", "infinite-loop"):
        return _contained(mistake, section)
    return False  # viking-techlab: the results cannot show it


def _episodes(results: str) -> list[str]:
    return re.findall(r"^Episode \d+:.*?(?=^Episode \d+:|^Program \d+:|\Z)", results,
                      re.S | re.M)


def _household_shows(mistake: str, results: str, section: str) -> bool:
    failed = [e for e in _episodes(results) if "(failure" in e.splitlines()[0]]
    acts = [re.findall(r"^\s*Act: (.*)$", e, re.M) for e in failed]
    if mistake == "no-take":
        return any(acts_e and not any("take " in a for a in acts_e) for acts_e in acts)
    if mistake == "no-open":   # a put into a closed receptacle, run or rejected by the model
        # (ALFWorld's command is "put X in/on Y", the household's "move X to Y")
        return bool(re.search(r"(could not do|rejected by the world model before running,) "
                              r"(put|move) [^:]*: .*is closed", section))
    if mistake == "wrong-object":  # a failed episode took objects its task does not name
        for e, acts_e in zip(failed, acts):
            task = e.splitlines()[0].lower()
            taken = re.findall(r"\btake ([a-z]+) \d+ from", " ".join(acts_e))
            if any(f" {kind}" not in task for kind in taken):
                return True
        return False
    if mistake == "skip-transform":
        return any(any(a.startswith("put ") or "; put " in a for a in acts_e)
                   and not any(re.search(r"\b(heat|cool|clean|use) ", a) for a in acts_e)
                   and re.search(r"(clean|hot|cool|examine|look at|heat|cool)", e.lower())
                   for e, acts_e in zip(failed, acts))
    if mistake in ("crash", "infinite-loop"):
        return _contained(mistake, section)
    return False


def _household_build(mistakes: frozenset, prompt: str) -> str:
    m = re.search(r"Method need to be completed for the task: .*\n\s*def (\w+)\(", prompt)
    if not m:
        raise ValueError("the prompt names no task method")
    return household_program(m.group(1), mistakes)


def _nethack_shows(mistake: str, results: str, section: str) -> bool:
    failed = [e for e in _episodes(results) if "(failure" in e.splitlines()[0]]
    if mistake == "no-explore":
        return any(len(re.findall(r"Act: rest\(\)", e)) >= 3 and "Act: explore()" not in e
                   for e in failed)
    if mistake == "fountains-only":
        return any("sink" in e for e in failed)
    if mistake == "no-kick":
        return "locked" in section or any("locked" in e for e in failed)
    if mistake == "attack-pets":
        return bool(re.search(r"Really attack|You kill the poor|You hit the (?:little dog|"
                              r"kitten|pony)", results))
    if mistake in ("crash", "infinite-loop"):
        return _contained(mistake, section)
    return False


def _nethack_build(mistakes: frozenset, prompt: str) -> str:
    from pddlkit.envs.nethack import NetHackTask

    for task in ("drink", "open-box", "exp-level-3"):
        if NetHackTask.TASK_TEXT[task] in prompt:
            return nethack_program(task, mistakes)
    raise ValueError("the prompt names no NetHack task")


KINDS: dict[str, tuple[Callable[[frozenset, str], str], Sequence[str], Callable]] = {
    "sc2": (lambda mistakes, prompt: sc2_program(mistakes), SC2_MISTAKES, _sc2_shows),
    "household": (_household_build, HOUSEHOLD_MISTAKES, _household_shows),
    "nethack": (_nethack_build, NETHACK_MISTAKES, _nethack_shows),
}


def program_sets(rest: Optional[str]) -> Optional[list[tuple[str, ...]]]:
    """The stand-in's argument as program sets: none -> None (defaults); ``A,B;;C`` ->
    [(A, B), (), (C,)] (``standin:copic:A,B;;C``)."""
    if not rest:
        return None
    return [tuple(m.strip() for m in part.split(",") if m.strip()) for part in rest.split(";")]


class CopicWriter:
    """The stand-in (see the module docstring); ``writer.llm()`` is the LLM to pass to CoPiC."""

    def __init__(self, kind: str, program_sets: Optional[Sequence[Sequence[str]]] = None,
                 extra_kinds: Optional[dict] = None) -> None:
        kinds = {**KINDS, **(extra_kinds or {})}
        if kind not in kinds:
            raise ValueError(f"no stand-in programs for {kind!r}; known: {', '.join(kinds)}")
        self.kind = kind
        self.build, known, self.shows = kinds[kind]
        sets = [frozenset(s) for s in (program_sets if program_sets is not None
                                       else DEFAULT_SETS.get(kind, [()]))]
        for s in sets:
            unknown = s - set(known)
            if unknown:
                raise ValueError(f"unknown {kind} mistake(s) {sorted(unknown)}; known: "
                                 f"{', '.join(known)}")
        self.sets = sets or [frozenset()]
        self.by_source: dict[str, frozenset] = {}
        self.init_calls = 0
        self.evolve_calls = 0
        self.repaired: list[str] = []

    def program(self, mistakes: frozenset, prompt: str) -> str:
        text = self.build(mistakes, prompt)
        self.by_source[text.strip()] = mistakes
        return text

    def answer(self, messages: list[dict]) -> str:
        prompt = next((m["content"] for m in messages if m["role"] == "user"), "")
        programs = re.findall(r"Program (\d+):\n```python\n(.*?)```", prompt, re.S)
        if not programs:  # an init prompt
            mistakes = self.sets[self.init_calls % len(self.sets)]
            self.init_calls += 1
            return "```python\n" + self.program(mistakes, prompt) + "```\n"
        k = self.evolve_calls % len(programs)
        self.evolve_calls += 1
        body = programs[k][1].strip()
        mistakes = self.by_source.get(body)
        if mistakes is None:  # not one of ours: answer it unchanged
            return "```python\n" + body + "\n```\n"
        at = prompt.find("\nEpisode 1:")
        results = prompt[at:] if at >= 0 else ""
        section = _section(results, k + 1)
        kept = frozenset(m for m in mistakes if not self.shows(m, results, section))
        self.repaired += sorted(mistakes - kept)
        return "```python\n" + self.program(kept, prompt) + "```\n"

    def llm(self, ledger=None):
        """The stand-in as an LLM, recording into ``ledger`` (default: a fresh one)."""
        from pddlkit.llm import ScriptedLLM
        from pddlkit.llm.usage import UsageLedger

        return ScriptedLLM(self.answer, model=f"standin-copic-{self.kind}",
                           ledger=ledger if ledger is not None else UsageLedger())


def _section(results: str, number: int) -> str:
    """The lines of ``Program <number>:`` in the results."""
    match = re.search(rf"^Program {number}:.*?(?=^Program \d+:|\Z)", results, re.S | re.M)
    return match.group(0) if match else ""


#: what ``--llm`` may name for the stand-in writer: ``standin:copic:A,B;;C`` (each program's
#: mistakes, programs apart by ';'; any world's mistakes here, the world's own checked later)
STAND_INS = (StandIn("standin", names(tuple(dict.fromkeys(
                 m for _, known, _ in KINDS.values() for m in known)), separators=",;"),
                     "standin:copic:no-open;;no-open", form="A,B;C", mode="",
                     knows="stand-in (programs we wrote with injected mistakes; SC2's from the "
                           "simulator's tables)"),)
