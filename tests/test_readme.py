"""The README's commands and code, and those of every page under ``docs/``, run as a newcomer
would run them.

Every fenced ``bash`` block's commands and every ``python`` block of ``README.md`` and of each
``docs/*.md`` page are collected (the README links to those pages, and the commands it moved
there are still run), and each one falls in exactly one class; a command the rules below do not
place is a failure, so a command added to the README or a page is either run here or says why
not. Each snippet's id names its page and line (``docs/copic.md:L20:pddlkit``), so a failure
says where to look:

* **quick** (no mark): run to its end within :data:`QUICK_LIMIT_S`; it must exit 0 (``pddlkit
  run`` may exit 1: an episode not won) and print its first line within
  :data:`FIRST_OUTPUT_S`; an optional part in brackets (``[--quick]``) is left out;
* **long** (its comment says ``long:`` and the time it took on 2 cores, a measurement: "5.5
  min on 2 cores", or "over 10 min" for one stopped there): started, it must print its first
  line within :data:`FIRST_OUTPUT_S` and not fail before it is stopped;
* **service**: a command that needs what this machine cannot have, named by rule: an
  OpenAI-compatible service (``openai:``), the local real model (``local:``, ``llm serve``,
  the benchmarks that start its server, which a command stopped at its first line could leave
  running: ``tests/test_real_llm.py`` runs the model, kept short), the Makefile's own targets (``make
  test`` is this suite), or a usage line with placeholders in capitals;
* a ``python`` block runs to its end (quick rules, except that it need not print) unless the line before it is
  ``<!-- readme: sketch -->`` (an API sketch with the reader's own names).

The commands of one block run in order in one scratch folder (the repository's
``benchmarks/``, ``examples/`` and ``domains/`` linked in), as a reader types them: a line may
use what the line before it made (a model folder, a sweep's results). Paths in every page are
relative to the repository's root, so a command reads the same in the README and in ``docs/``;
and every relative link of the README and the pages must lead to a file that exists.

The first-output rule is the issue's: a newcomer who sees nothing for a minute thinks the
command hung.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import REPO

README = REPO / "README.md"
#: the pages whose commands are collected: the README and every page it moved text to
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]
FIRST_OUTPUT_S = 10.0
QUICK_LIMIT_S = 180.0
SKETCH = "<!-- readme: sketch -->"
#: what a service command needs, by rule (see the module docstring)
SERVICES = (("openai:", "an OpenAI-compatible service"),
            ("local:", "the local real model (tests/test_real_llm.py)"),
            ("llm serve", "the local real model (tests/test_real_llm.py)"),
            ("benchmarks/real_llm.py", "the local real model's server (tests/test_real_llm.py)"),
            ("benchmarks/constrained.py", "the local real model's server (tests/test_real_llm.py)"),
            ("make ", "the Makefile's own targets"))
PLACEHOLDER = re.compile(r"\b[A-Z]{3,}\b")
#: an optional part of a usage line (``[--quick]``): left out when the command runs
OPTIONAL = re.compile(r"\s*\[[^\]]*\]")


@dataclass(frozen=True)
class Snippet:
    page: str        # the page it is on, from the repository's root: README.md, docs/copic.md
    line: int        # where it starts on its page
    block: int       # where its fenced block starts (one scratch folder per block and page)
    kind: str        # "bash" or "python"
    text: str        # the command (continuations joined) or the block's code
    comment: str     # a bash command's trailing comment
    sketch: bool = False

    @property
    def id(self) -> str:
        return f"{self.page}:L{self.line}:{self.text.split()[0] if self.text.split() else ''}"

    @property
    def where(self) -> str:
        return f"{self.page} line {self.line}"

    @property
    def service(self) -> str:
        if self.kind != "bash":
            return ""
        for needle, why in SERVICES:
            if needle in self.text:
                return why
        if PLACEHOLDER.search(self.text):
            return "a usage line with placeholders"
        return ""

    @property
    def long(self) -> bool:
        return "long:" in self.comment


def snippets(page: Path = README) -> list[Snippet]:
    """The snippets of one page, in order."""
    name = page.relative_to(REPO).as_posix()
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Snippet] = []
    i = 0
    while i < len(lines):
        fence = re.match(r"^```(\w*)\s*$", lines[i])
        if not fence:
            i += 1
            continue
        kind, start = fence.group(1), i + 1
        end = next(j for j in range(start, len(lines)) if lines[j].startswith("```"))
        body = lines[start:end]
        if kind == "python":
            sketch = i > 0 and lines[i - 1].strip() == SKETCH
            found.append(Snippet(name, start + 1, start, "python", "\n".join(body), "", sketch))
        elif kind == "bash":
            j = 0
            while j < len(body):
                first, text = j, body[j]
                while text.rstrip().endswith("\\") and j + 1 < len(body):
                    j += 1
                    text = text.rstrip()[:-1] + " " + body[j].strip()
                j += 1
                command, _, comment = text.partition(" #")
                if command.strip() and not command.strip().startswith("#"):
                    found.append(Snippet(name, start + first + 1, start, "bash",
                                         command.strip(), comment.strip()))
        i = end + 1
    return found


def _once(found: list[Snippet]) -> list[Snippet]:
    """Each fenced block once: a block a page repeats word for word from an earlier page (the
    README's commands again on their docs page) is run where it first appears (issue 72: it
    ran twice, about a minute)."""
    blocks: dict[tuple, list[Snippet]] = {}
    for s in found:
        blocks.setdefault((s.page, s.block), []).append(s)
    seen: set = set()
    kept: list[Snippet] = []
    for block in blocks.values():
        key = tuple((s.kind, s.text, s.comment) for s in block)
        if key not in seen:
            seen.add(key)
            kept += block
    return kept


SNIPPETS = _once([s for page in PAGES for s in snippets(page)])


_FOLDERS: dict[tuple, Path] = {}


def _workdir(snippet: Snippet, factory) -> Path:
    """The block's scratch folder, made at its first command."""
    key = (snippet.page, snippet.block)
    if key not in _FOLDERS:
        stem = re.sub(r"\W", "-", snippet.page.removesuffix(".md"))
        folder = factory.mktemp(f"{stem}-L{snippet.block}")
        for name in ("benchmarks", "examples", "domains", ".venv"):
            if (REPO / name).exists():
                (folder / name).symlink_to(REPO / name)
        _FOLDERS[key] = folder
    return _FOLDERS[key]


def _start(snippet: Snippet, cwd: Path) -> subprocess.Popen:
    venv_bin = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{venv_bin}:{os.environ.get('PATH', '')}",
           "PYTHONUNBUFFERED": "1", "PDDLKIT_CACHE_DIR": str(cwd / ".cache")}
    if snippet.kind == "python":
        argv = [sys.executable, "-c", snippet.text]
    else:
        command = re.sub(r"^python\b", sys.executable, OPTIONAL.sub("", snippet.text))
        argv = ["bash", "-c", command]
    return subprocess.Popen(argv, cwd=str(cwd), env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)


def _watch(proc: subprocess.Popen, stop_at_first: bool, limit: float) -> tuple:
    """(seconds to the first output or None, everything printed, exit code or None)."""
    began, first, out = time.monotonic(), None, []
    fd = proc.stdout.fileno()
    while True:
        left = limit - (time.monotonic() - began)
        if left <= 0 or (stop_at_first and first is not None):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return first, b"".join(out).decode(errors="replace"), None
        ready, _, _ = select.select([fd], [], [], min(left, 1.0))
        if ready:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return first, b"".join(out).decode(errors="replace"), proc.wait()
            if first is None and chunk.strip():
                first = time.monotonic() - began
            out.append(chunk)


def test_every_command_is_placed_in_a_class():
    """A README command the rules cannot place fails here, before anything runs."""
    assert len(SNIPPETS) > 30
    assert {s.page for s in SNIPPETS} > {"README.md"}, "the docs/ pages' commands are collected"
    for s in SNIPPETS:
        if s.kind == "bash" and s.long:
            assert re.search(r"\d+(\.\d+)? (s|min|h)\b", s.comment), \
                f"{s.where}: a long command says how long it took ('5.5 min on 2 cores')"


#: a Markdown link's target: ``[text](target)``, not an image, not inside code
LINK = re.compile(r"(?<![!`])\[[^\]`]*\]\(([^)\s]+)\)")


def test_relative_links_lead_to_files_that_exist():
    """The README links to its pages and they to each other and to the repository's files: a
    page renamed or moved must not leave a link that leads nowhere."""
    broken = []
    for page in PAGES:
        fence = False
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if line.startswith("```"):
                fence = not fence
            if fence:
                continue
            for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue
                path = (page.parent / target.split("#")[0]).resolve()
                if not path.exists():
                    broken.append(f"{page.relative_to(REPO)} line {number}: {target}")
    assert not broken, "links that lead nowhere:\n" + "\n".join(broken)


RUNNABLE = [s for s in SNIPPETS if not s.service and not s.sketch]


@pytest.mark.slow
@pytest.mark.parametrize("snippet", RUNNABLE, ids=[s.id for s in RUNNABLE])
def test_a_readme_command_prints_within_ten_seconds_and_quick_ones_succeed(
        snippet, tmp_path_factory):
    proc = _start(snippet, _workdir(snippet, tmp_path_factory))
    limit = FIRST_OUTPUT_S + 5 if snippet.long else QUICK_LIMIT_S
    first, output, code = _watch(proc, stop_at_first=snippet.long, limit=limit)
    where = f"{snippet.where}: {snippet.text[:120]!r}"
    if snippet.kind == "bash":  # a code block may print nothing: it must end well, and soon
        assert first is not None and first <= FIRST_OUTPUT_S, \
            f"{where} printed nothing for {FIRST_OUTPUT_S:g} s (first output: {first})"
    # ``pddlkit run`` exits 1 when an episode was not won: a result, not a failure
    fine = (0, 1) if snippet.text.startswith("pddlkit run ") else (0,)
    if not snippet.long or code is not None:  # a long command that ended early ended well
        assert code in fine, f"{where} exited {code}:\n{output[-2000:]}"
    assert "Traceback (most recent call last)" not in output, f"{where}:\n{output[-2000:]}"
