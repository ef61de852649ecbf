"""Grammar-constrained against free decoding, side by side in one run, with the local model
(Qwen2.5-Coder 1.5B Instruct behind llama.cpp's server, over HTTP through the real ``openai``
client): each row is the same ``pddlkit run`` twice, without and with ``--constrained``.

    .venv/bin/python benchmarks/constrained.py              # about 40 minutes on 2 cores
    .venv/bin/python benchmarks/constrained.py --quick      # CoinCollector 3 rooms and PLAP
    .venv/bin/python benchmarks/constrained.py --out examples/real-llm/constrained.md

Columns, per episode: the share of answers that parse (PDDLego+: a domain and a problem file
could be read from the answer; PLAP: the plan's lines the parser kept) and the share that also
pass ``pddlkit check`` with no error (PDDLego+ only), the solver round trips (planner calls),
LLM calls, tokens (prompt + completion) and success. "Files against the truth" (PDDLego+,
:mod:`pddlkit.formalizers.scoring`): how many of the problem files the planner was given are
equivalent to the environment's reference, and the mean fact precision and recall. Then the decoding speed: tokens per second
generating the same number of tokens after the same prompt, free and under the problem-file
grammar (the prompt is read once first, so the time is the generation's).

Nothing here is tuned to the seeds: seed 0, temperature 0, the front ends' default prompts.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

ROWS = [  # (label, agent, arguments, in --quick)
    ("CoinCollector, 3 rooms", "pddlego",
     ["--env", "coin-collector", "--rooms", "3", "--budget", "6", "--retries", "2"], True),
    ("CoinCollector, 5 rooms", "pddlego",
     ["--env", "coin-collector", "--rooms", "5", "--budget", "6", "--retries", "2"], False),
    ("household, 8 receptacles", "pddlego",
     ["--env", "household", "--receptacles", "8", "--difficulty", "pick_and_place",
      "--budget", "6", "--retries", "2"], False),
    ("PLAP vs RandomBiasedAI", "plap",
     ["--env", "microrts", "--max-cycles", "600", "--plan-every", "100"], True),
]


def pooled(rows: list[dict]) -> str:
    from pddlkit.formalizers.scoring import pooled as cell

    return cell(rows)


def is_random(model: str) -> bool:
    """Whether a benchmark's model names the random-answer floor (random or random:SEED)."""
    return model == "random" or model.startswith("random:")


def llm_spec(model: str) -> str:
    """The ``--llm`` of a benchmark's model: the random floor as it is (no server), else the
    local llama.cpp server's."""
    return model if is_random(model) else f"local:{model}"


def run_row(agent: str, args: list[str], model: str, constrained: bool, folder: Path,
            timeout: float = 3600) -> dict:
    """One ``pddlkit run AGENT`` with the local model, its rows and its transcript's calls
    (the responses' cache off: every call reaches the server); also used by small_model.py."""
    transcript = folder / f"{agent}-{'c' if constrained else 'f'}-{len(list(folder.iterdir()))}.jsonl"
    command = [sys.executable, "-m", "pddlkit.cli", "run", agent, *args, "--llm",
               llm_spec(model), "--json", "--transcript", str(transcript)]
    if constrained:
        command.append("--constrained")
    start = time.perf_counter()
    done = run_cli(command, timeout, {**os.environ, "PDDLKIT_NO_CACHE": "1"})
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1], "seconds": seconds}
    rows = json.loads(done.stdout)
    calls = [json.loads(line) for line in transcript.read_text().splitlines()] \
        if transcript.exists() else []
    return {"rows": rows, "calls": calls, "seconds": seconds}


class RowInterrupted(KeyboardInterrupt):
    """Ctrl-C (or a time limit's SIGINT) during a row: ``said`` is the row's process's own
    last line, which names the episode it cut, what that episode had spent and where its
    record is."""

    def __init__(self, said: str) -> None:
        super().__init__(said)
        self.said = said


def run_cli(command: list[str], timeout: float, env: Optional[dict]) -> \
        subprocess.CompletedProcess:
    """``subprocess.run`` for a ``pddlkit run``, except when it is stopped. ``subprocess.run``
    killed the process a quarter of a second after a Ctrl-C (and at once at ``timeout``), so
    the episode in progress left nothing of its calls and tokens. Here the process runs in a
    session of its own (tied to this one's life) and is sent exactly one SIGINT, on Ctrl-C or
    at ``timeout``; it then writes its cut episode's ``interrupted`` event and its one line,
    and is killed, with its children, only if it has not ended 30 s later. On Ctrl-C this
    raises :class:`RowInterrupted` with that line; at ``timeout`` the ended process is
    returned (status 130: the caller reports its line as the row's error)."""
    from pddlkit.processes import die_with_parent, kill_group

    parent = os.getpid()

    def prepare() -> None:
        # SIGINT's default action: a benchmark started in the background (nohup, `&`) has it
        # ignored, a child inherits that, and the time limit's SIGINT was then lost (the row
        # ran to its end, or was killed 30 s later with nothing written)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        die_with_parent(parent)

    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env, start_new_session=True,
                               preexec_fn=prepare)
    try:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            stdout, stderr = _stop(process)
        except KeyboardInterrupt:
            _, stderr = _stop(process)
            lines = stderr.strip().splitlines()
            said = lines[-1] if lines else f"the row's process ended with status " \
                                           f"{process.returncode}"
            if process.returncode in (0, 1):
                said = "the row had just finished (its episodes are in its record, not " \
                       "in this table)"
            raise RowInterrupted(said) from None
    finally:
        if process.poll() is None:   # a second Ctrl-C during the grace: nothing left behind
            kill_group(process)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def _stop(process: subprocess.Popen, grace: float = 30) -> tuple[str, str]:
    """One SIGINT, then ``grace`` seconds for the process to write what its cut episode spent
    before its group is killed; its output."""
    from pddlkit.processes import kill_group

    process.send_signal(signal.SIGINT)
    try:
        return process.communicate(timeout=grace)
    except subprocess.TimeoutExpired:
        kill_group(process)
        return process.communicate()


def pddlego_quality(calls: list[dict]) -> tuple[float, float]:
    """(share of answers with both files, share whose files pass check with no error)."""
    from pddlkit.checks import check
    from pddlkit.formalizers.answer import AnswerError, parse_answer

    parsed = passed = 0
    for call in calls:
        try:
            files = parse_answer(call["text"])
        except AnswerError:
            continue
        parsed += 1
        passed += check(files.domain, files.problem).ok
    n = max(1, len(calls))
    return parsed / n, passed / n


def plap_quality(rows: list[dict]) -> float:
    written = sum(r.get("lines_written", 0) for r in rows)
    kept = written - sum(r.get("lines_unreadable", 0) for r in rows)
    return kept / written if written else 0.0


def modes(calls: list[dict]) -> str:
    from pddlkit.llm.grammar import describe_modes

    return describe_modes(c.get("constraint_mode", "") for c in calls)


def speed(model: str) -> tuple[float, float, int]:
    """(free tokens/s, constrained tokens/s, tokens generated each)."""
    from pddlkit.llm import load_llm
    from pddlkit.pddl.grammars import Limits, problem_grammar
    from pddlkit.pddl.reader import parse_domain

    llm = load_llm(f"local:{model}", cache=False)
    domain = parse_domain("(define (domain coins) (:requirements :typing) (:types room) "
                          "(:predicates (at ?r - room) (visited ?r - room)))")
    grammar = problem_grammar(domain, limits=Limits(objects=200, facts=200))
    prompt = (f"[{time.time_ns()}] Write a long PDDL problem file for the domain coins with many "
              "rooms (room1, room2, ...), each connected and visited:\n")
    llm.client.completions.create(model=llm.model, prompt=prompt, max_tokens=1)  # read once
    rates = []
    n = 120
    for extra in ({}, {"grammar": grammar.gbnf()}):
        start = time.perf_counter()
        out = llm.client.completions.create(model=llm.model, prompt=prompt, max_tokens=n,
                                            temperature=0.0, extra_body=extra)
        rates.append(out.usage.completion_tokens / (time.perf_counter() - start))
    return rates[0], rates[1], n


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", help="also write the table (Markdown) here")
    args = parser.parse_args()
    started = time.perf_counter()
    lines = ["| environment | decoding | parse | pass check | files against the truth | "
             "solver round trips | LLM calls | tokens | success | wall s | how the calls were "
             "decoded |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    print(lines[0], flush=True)
    print(lines[1], flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for label, agent, row_args, quick in ROWS:
            if args.quick and not quick:
                continue
            for constrained in (False, True):
                got = run_row(agent, row_args, args.model, constrained, folder)
                what = "constrained" if constrained else "free"
                if "error" in got:
                    line = f"| {label} | {what} | error: {got['error'][:120]} ||||||||"
                else:
                    rows, calls = got["rows"], got["calls"]
                    episodes = max(1, len(rows))
                    if agent == "pddlego":
                        parse, passed = pddlego_quality(calls)
                        trips = sum(r.get("planner_calls", 0) for r in rows) / episodes
                        check_text = f"{100 * passed:.0f}%"
                        truth = pooled(rows)
                    else:
                        parse, check_text, truth = plap_quality(rows), "n/a", "n/a"
                        trips = 0
                    tokens = sum(c["usage"]["prompt_tokens"] + c["usage"]["completion_tokens"]
                                 for c in calls) / episodes
                    won = sum(bool(r.get("won")) for r in rows)
                    line = (f"| {label} | {what} | {100 * parse:.0f}% | {check_text} | "
                            f"{truth} | {trips:.1f} | {len(calls) / episodes:.1f} | {tokens:.0f} | "
                            f"{won}/{len(rows)} | {got['seconds']:.0f} | {modes(calls)} |")
                lines.append(line)
                print(line, flush=True)
    free, constrained, n = speed(args.model)
    tail = (f"\nDecoding speed, {n} tokens after a prompt already read: free {free:.1f} "
            f"tokens/s, under the problem-file grammar {constrained:.1f} tokens/s "
            f"({100 * (constrained / free - 1):+.0f}%).\n\nProduced in "
            f"{(time.perf_counter() - started) / 60:.1f} min on {os.cpu_count()} cores.")
    print(tail)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n" + tail + "\n")


if __name__ == "__main__":
    from interrupt import run

    run(main, kept="the rows above are complete (--out is written at the end)")
