"""The modular formalizer's vocabulary: its parts, limits, the record of a call, and the
helpers that read names, atoms, signatures and commands as text (issue 74: one file a job).
"""

from __future__ import annotations

import re
import string
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional


from ..answer import AnswerError, closing_bracket
from ..atoms import atom_of
from ..base import Context

BUNDLED = Path(__file__).parent.parent / "prompts" / "modular"
PARTS = ("context", "predicates", "action", "action_slots", "types", "facts", "goal",
         "correction", "missing", "achiever", "lacked")
#: times the ``missing`` part is asked for one predicate in an episode (``ask_missing``)
MISSING_ASKS = 2
#: facts one ``missing`` answer may give (one for a single-valued predicate: where one is)
MISSING_FACTS = 4
#: ``missing`` parts asked in an episode because no place was left to go (one per predicate)
STALLED_ASKS = 3
#: times a part is drawn again when its answer is one already refused
REDRAWS = 3
#: goals offered to the model at most (the nearest reachable atoms)
GOAL_CANDIDATES = 24
#: answer tokens per part when the run sets no ``max_tokens`` (a part is short by design)
PART_TOKENS = {"predicates": 200, "action": 160, "types": 120, "facts": 200, "goal": 60,
               "correction": 8, "missing": 40, "achiever": 8, "lacked": 24}
#: what the predicates part adds to its answer tokens under ``predicate_slots``: the six
#: labels the grammar writes (about 60 tokens) and room for two predicates a slot
SLOT_LABEL_TOKENS = 120
#: words that are never names of things in an observation
STOP_WORDS = frozenset("""a an the you your are is was be been am i me my it its in into on at to
of and or but for from with by as this that these those there here what which who can cannot
see seen not no nothing do does did have has had will would could should then than so if
just also very some any all one".""".split())


class PartUnwritable(AnswerError):
    """No answer to a part can be written: its grammar has no choice (a facts part for a
    sentence that names nothing a predicate takes, such as "There is no front door here."
    once the world said the front door is not there). A facts part skips that sentence and
    records it as a part with no call; any other part says so as an unreadable answer.
    Measured with Qwen2.5-Coder 1.5B (CoinCollector 3 rooms, seed 14, commit 030c575):
    raised for that sentence, it spent the episode's six solver retries in one second with
    no call made, each retry failing the same way."""


@dataclass
class PartCall:
    """One call of the modular mode: the part it wrote and what code did with the answer."""

    part: str                 # "predicates", "action move", "facts", "goal"
    why: str                  # "initial", "update", "solver_error", "simulation_error"
    answer: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    seed: Optional[int] = None
    outcome: str = "used"     # "used", "redrawn: same as a refused answer", "unreadable", ...
    refused: list[str] = field(default_factory=list)   # lines code refused, with why
    rewritten: list[str] = field(default_factory=list)  # lines code kept changed, with why

    def to_dict(self) -> dict:
        return asdict(self)


def observed_names(texts, unknown: bool = False) -> list[str]:
    """Names that occur in ``texts``: words that are not :data:`STOP_WORDS`, and adjacent
    pairs of such words joined with ``_`` ("living room" -> living, room, living_room); a word
    followed by a number is one name with it ("cabinet 1" -> cabinet_1, as ALFWorld and the
    household name things and their commands say them: measured with Qwen2.5-Coder 1.5B on the
    household, the names offered were ``cabinet``, ``desk``, ..., so no file could name
    ``cabinet_1`` and no plan step could become "go to cabinet 1"). With
    ``unknown``, each also as ``unknown_<name>``: what is behind a closed door has no name in
    any observation, and a model must call it something (``unknown_north``)."""
    out: dict[str, None] = {}
    for text in texts:
        for sentence in re.split(r"[.!?,;:\n]", str(text).lower()):
            words = re.findall(r"[a-z][a-z0-9]*|[0-9]+", sentence)
            for i, word in enumerate(words):
                if word in STOP_WORDS or len(word) < 2 or word.isdigit():
                    continue
                after = words[i + 1] if i + 1 < len(words) else ""
                if after.isdigit():     # "cabinet 1" is one thing: cabinet_1, not cabinet
                    out[f"{word}_{after}"] = None
                    continue
                out[word] = None
                if after and after not in STOP_WORDS and len(after) > 1:
                    out[f"{word}_{after}"] = None
    if unknown:
        for name in list(out):
            out[f"unknown_{name}"] = None
    return list(out)


def _norm(text: str) -> str:
    return " ".join(text.replace("(", " ( ").replace(")", " ) ").split()).lower()


def _balanced(text: str, start: int) -> Optional[str]:
    """The balanced ``(...)`` starting at ``start``, or None when it is not closed."""
    end = closing_bracket(text, start)
    return None if end is None else text[start:end]


#: PDDL's own words, never a thing's name
PDDL_WORDS = frozenset("""object either and not or imply exists forall when define domain
problem increase decrease assign""".split())
#: the longest name a command may give a thing (a longer one is junk, not a name)
MAX_NAME = 64
#: the longest command read (a longer one is junk; matching it could take long)
MAX_COMMAND = 256


def _reserved(dom) -> set[str]:
    """The names a thing may not have: the domain's types, predicates, actions and constants,
    and PDDL's own words."""
    return ({t.name.lower() for t in dom.types} | {p.name.lower() for p in dom.predicates}
            | {a.name.lower() for a in dom.actions} | {c.name.lower() for c in dom.constants}
            | PDDL_WORDS)


def _conjuncts(formula):
    """The atoms of ``formula``'s conjunction (not inside ``or``/``not``), ``=`` left out."""
    from pddlkit.pddl.model import And, Atom

    if isinstance(formula, And):
        for part in formula.parts:
            yield from _conjuncts(part)
    elif isinstance(formula, Atom) and formula.predicate != "=":
        yield formula


def _kind_word(name: str) -> str:
    """The word of a name without its number (``ladle_1``: ladle), as a task says it."""
    return re.sub(r"_\d+$", "", name)


def _head(fact: str) -> str:
    """A fact's predicate ("" for a fact with none)."""
    return atom_of(fact).predicate


def _templates(folder: Optional[str]) -> dict[str, string.Template]:
    out = {}
    for part in PARTS:
        own = Path(folder) / f"modular_{part}.txt" if folder else None
        path = own if own is not None and own.is_file() else BUNDLED / f"{part}.txt"
        out[part] = string.Template(path.read_text())
    return out


def _types(signatures: dict) -> list[str]:
    return list(dict.fromkeys(t for params, _ in signatures.values() for _, t in params if t)) \
        or ["object"]


def template_words(signatures: dict) -> set[str]:
    """The fixed words of the actions' command templates (``open door to {dir}``: open,
    door, to), lower case; an action with no template (its name stands for it) gives none."""
    return {w for _params, template in signatures.values() if "{" in template
            for w in re.findall(r"[a-z][a-z0-9]*", re.sub(r"\{\w+\}", " ", template.lower()))}


def _bind_command(command: str, signatures: dict) -> Optional[tuple[str, dict[str, str]]]:
    """(action, {?param: name}) for a command read through the action's command template
    (``take {o} from {r}`` reads "take vase 1 from drawer 2" as ``?o=vase_1 ?r=drawer_2``;
    a name's words joined with ``_``, as the facts write it; a template's fixed words match
    whole words only: "move potato 1 to ..." is not "move pota ..."); the template with the
    most fixed words wins; None when no template reads it, or the command is longer than
    :data:`MAX_COMMAND` characters or names something no ASCII name can be."""
    text = " ".join(command.lower().split())
    if len(text) > MAX_COMMAND:
        return None
    from pddlkit.envs.api import ActionTemplate

    best: Optional[tuple[int, str, dict[str, str]]] = None
    for name, (params, template) in signatures.items():
        action = ActionTemplate(name, tuple(p for p, _ in params), template)
        slots = action.shown   # the environment's own reading of its command (one matcher)
        try:
            found = action.pattern().fullmatch(text) if slots else None
        except re.error:   # a slot twice, or one no group can be named after: unreadable
            continue
        if not found:
            continue
        values = ["_".join(v.split()) for v in found.groups()]
        if not all(re.fullmatch(r"[a-z][a-z0-9_\-]*", v) for v in values):
            continue
        fixed = len(re.sub(r"\{[^}]+\}", "", template).strip())
        if best is None or fixed > best[0]:
            best = (fixed, name, {"?" + k: v for k, v in zip(slots, values)})
    return (best[1], best[2]) if best else None


def _action_of(command: str, context: Context, signatures: dict) -> Optional[str]:
    """The domain action a command of the environment runs (its template's leading words)."""
    best = None
    for name, (_params, template) in signatures.items():
        head = template.split("{")[0].strip()
        if head and command.lower().startswith(head.lower()) and \
                (best is None or len(head) > len(signatures[best][1].split("{")[0].strip())):
            best = name
    return best
