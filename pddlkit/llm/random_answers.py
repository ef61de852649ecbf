"""``random[:SEED]``: an LLM that knows nothing, the floor every model row is compared with.

Why: a constrained pipeline can win games whatever the model says (a grammar that allows three
goals, code that writes the rest). A model's row means something only beside the row of answers
drawn with no understanding at all, through the same pipeline, on the same seeds. This backend
is that model:

- **Under a grammar** (``complete(constraint=Grammar)``, as PDDLego+'s modular parts and
  whole files, PLAP's skill lines and DEPS's plans ask), each answer is drawn at random from
  the grammar the server would decode with (its GBNF, :meth:`Grammar.gbnf`): at every choice
  between alternatives one is taken uniformly among those that can still finish within the
  answer's length, every character of a class uniformly (printable ASCII for a negated
  class). A grammar of eleven facts gives each fact 1/11. The answer always follows the
  grammar (checked; a grammar it cannot draw from is an error naming it).
- **Without a grammar** it answers as a stand-in that knows nothing would: an empty text, or
  ``{}`` where JSON is asked. ``Completion.constraint_mode`` says which it did (``random:
  grammar`` or ``random: no grammar, answered knowing nothing``), so a record shows where the
  floor had nothing to choose.

Answers are deterministic per seed: each is drawn from a generator seeded with the seed, the
request (its messages, grammar and settings) and how many times this backend was asked that
request before, so a run replays exactly, and a retry of the same request gets a fresh draw
as a sampling model's would. Nothing is cached (the answers are free), and the model is
named ``random`` (``random:SEED`` with a seed) in every ledger, transcript and row.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from functools import lru_cache
from typing import Any, Optional

from .base import BaseLLM
from .errors import LLMSpecError
from .messages import Completion, Request

#: the longest answer drawn when a request names no ``max_tokens`` (characters)
DEFAULT_MAX_CHARS = 400
#: characters per token, to turn a request's ``max_tokens`` into a length to draw within
CHARS_PER_TOKEN = 4
#: what a negated character class draws from: printable ASCII and the newline
PRINTABLE = [chr(c) for c in range(32, 127)] + ["\n"]
#: the most alternatives taken in one answer, against grammars that recurse without end
MAX_STEPS = 100_000

NO_GRAMMAR = "random: no grammar, answered knowing nothing"


def parse_seed(argument: Optional[str]) -> int:
    """The seed of ``random[:SEED]`` (0 when none is given)."""
    if argument is None or not argument.strip():
        return 0
    try:
        return int(argument)
    except ValueError:
        raise LLMSpecError(f"random:{argument}: the seed must be an integer, e.g. random:7",
                           hint="random (seed 0) or random:SEED") from None


class RandomLLM(BaseLLM):
    """Answers drawn at random under each request's grammar (see the module's docstring)."""

    default_cache = False

    def __init__(self, seed: int = 0, **options: Any) -> None:
        unknown = sorted(set(options) - {"cache", "ledger", "transcript"})
        if unknown:
            raise LLMSpecError(f"random: takes no option {', '.join(unknown)}; it knows only "
                               "its seed (random:SEED)")
        super().__init__(**options)
        self.seed = seed
        self.model = "random" if seed == 0 else f"random:{seed}"
        self._asked: Counter = Counter()

    def constraint_support(self, constraint: Any) -> tuple[Optional[str], str]:
        if getattr(constraint, "kind", None) == "grammar":
            return "random: grammar", ""
        return None, "random answers draw only under a grammar; a JSON schema is answered " \
                     "knowing nothing"

    def _generate(self, request: Request) -> Completion:
        key = request.key(self.model)
        self._asked[key] += 1
        digest = hashlib.sha256(f"{self.seed}|{key}|{self._asked[key]}".encode()).digest()
        rng = random.Random(int.from_bytes(digest[:8], "big"))
        constraint = request.constraint
        if getattr(constraint, "kind", None) == "grammar":
            max_chars = (request.max_tokens * CHARS_PER_TOKEN if request.max_tokens
                         else DEFAULT_MAX_CHARS)
            text = draw_accepted(constraint, rng, max_chars)
            mode = "random: grammar"
        else:
            text = "{}" if request.response_format == "json" else ""
            mode = NO_GRAMMAR
        prompt = sum(len(content) for _, content in request.messages) // CHARS_PER_TOKEN
        return Completion(text=text, model=self.model, prompt_tokens=prompt,
                          completion_tokens=max(1, len(text) // CHARS_PER_TOKEN),
                          constraint_mode=mode)


# --- drawing from a GBNF grammar -------------------------------------------------------------

#: draws tried for one answer before the last is taken as it is (see :func:`draw_accepted`)
TRIES = 20


def draw_accepted(grammar: Any, rng: random.Random, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """A text drawn from ``grammar``'s GBNF that Lark also reads with the grammar.

    Why both: the GBNF a server decodes with lets two names abut where Lark's lexer, reading
    the longest name, sees one (``- uU`` drawn as the type ``u`` and the object ``U``). A model
    that writes words rarely splits one that way; a random draw often does. So a draw Lark
    refuses is drawn again (at most :data:`TRIES` times; the last draw stands after that),
    which keeps the floor's answers to texts the grammar means."""
    text = ""
    for _ in range(TRIES):
        text = draw(grammar.gbnf(), rng, max_chars)
        if grammar.accepts(text):
            break
    return text


def draw(gbnf: str, rng: random.Random, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """A text drawn at random from ``gbnf`` (llama.cpp's notation, as :mod:`.gbnf` writes it),
    at most ``max_chars`` long where the grammar allows one that short (else its shortest).

    The grammar is read as :class:`~.gbnf_matcher.GBNFMatcher` reads it (alternatives as flat
    lists of characters classes and rule references), and the text is checked by it."""
    matcher, shortest = _read(gbnf)
    rules = matcher.rules
    root = matcher.names["root"]
    if shortest[root] is None:
        raise LLMSpecError("random: the grammar has no finite answer to draw")
    out: list[str] = []
    # frames: [rule, alternative, next element]; the text still owed after each frame's next
    # element is the sum of its remaining elements' shortest lengths
    frames = [[root, _pick(rules[root], shortest, max_chars, rng), 0]]
    for _ in range(MAX_STEPS):
        if not frames:
            break
        rule, alt, index = frames[-1]
        elements = rules[rule][alt]
        if index >= len(elements):
            frames.pop()
            continue
        frames[-1][2] += 1
        element = elements[index]
        if element[0] == "c":
            out.append(_char(element[1], element[2], rng))
            continue
        owed = sum(_rest(rules[r][a], i, shortest) for r, a, i in frames)
        room = max_chars - len(out) - owed
        target = element[1]
        frames.append([target, _pick(rules[target], shortest, room, rng), 0])
    else:
        raise LLMSpecError("random: the grammar did not let an answer end within "
                           f"{MAX_STEPS} steps")
    text = "".join(out)
    if not matcher.matches(text):   # by construction it does; a grammar this misreads is a bug
        raise LLMSpecError(f"random: drew {text[:80]!r}, which the grammar refuses; report it "
                           "with the grammar")
    return text


@lru_cache(maxsize=16)
def _read(gbnf: str) -> tuple:
    """(the grammar read as :class:`~.gbnf_matcher.GBNFMatcher` reads it, each rule's shortest
    length), once per grammar: a run asks under the same few grammars again and again, and
    :func:`draw_accepted` draws up to :data:`TRIES` times an answer."""
    from .gbnf_matcher import GBNFMatcher

    matcher = GBNFMatcher(gbnf)
    return matcher, _shortest(matcher.rules)


def _shortest(rules: list) -> list:
    """Each rule's shortest text length (None: it never ends), by fixed point."""
    best: list = [None] * len(rules)
    changed = True
    while changed:
        changed = False
        for r, alternatives in enumerate(rules):
            for elements in alternatives:
                length = _length(elements, best)
                if length is not None and (best[r] is None or length < best[r]):
                    best[r], changed = length, True
    return best


def _length(elements, best) -> Optional[int]:
    total = 0
    for element in elements:
        if element[0] == "c":
            total += 1
        elif best[element[1]] is None:
            return None
        else:
            total += best[element[1]]
    return total


def _rest(elements, index: int, shortest) -> int:
    return _length(elements[index:], shortest) or 0


def _pick(alternatives: list, shortest, room: int, rng: random.Random) -> int:
    """An alternative, uniformly among those that can end within ``room`` characters; the
    shortest one when none can."""
    lengths = [_length(elements, shortest) for elements in alternatives]
    fits = [i for i, n in enumerate(lengths) if n is not None and n <= room]
    if fits:
        return rng.choice(fits)
    finite = [i for i, n in enumerate(lengths) if n is not None]
    return min(finite, key=lambda i: lengths[i])


def _char(ranges, negated: bool, rng: random.Random) -> str:
    if negated:
        allowed = [c for c in PRINTABLE if not any(lo <= c <= hi for lo, hi in ranges)]
        return rng.choice(allowed)
    ascii_ranges = [(lo, min(hi, "\x7e")) for lo, hi in ranges if lo <= "\x7e"]
    pool = ascii_ranges or list(ranges)
    sizes = [ord(hi) - ord(lo) + 1 for lo, hi in pool]
    lo, hi = rng.choices(pool, weights=sizes)[0]
    return chr(rng.randint(ord(lo), ord(hi)))

