"""The LLM layer: the real openai client against a local HTTP server, the SQLite cache across
processes, the ledger, transcripts and replay, scripted answers, spec strings."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from llm_server import ChatServer, answer, hang, status
from pddlkit.llm import (BadAnswerError, Completion, LLMConnectionError, LLMError,
                         LLMRateLimited, LLMRequestError, LLMServerError, LLMSpecError, LLMTimeout,
                         ReplayMissError, extract_json)
from pddlkit.llm.cache import ResponseCache
from pddlkit.llm.openai_chat import OpenAIChat
from pddlkit.llm.scripted import ReplayLLM, ScriptedLLM
from pddlkit.llm.spec import load_llm
from pddlkit.llm.usage import PriceTable, UsageLedger

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def server():
    srv = ChatServer()
    yield srv
    srv.stop()


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """No test touches the user's cache; no key or model leaks in from the environment."""
    monkeypatch.setenv("PDDLKIT_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PDDLKIT_MODEL", "PDDLKIT_NO_CACHE",
                 "PDDLKIT_TRANSCRIPT", "PDDLKIT_PRICES"):
        monkeypatch.delenv(name, raising=False)


def chat(server, tmp_path, **kw) -> OpenAIChat:
    kw.setdefault("cache", tmp_path / "llm.sqlite")
    kw.setdefault("ledger", UsageLedger())
    kw.setdefault("backoff", 0.01)
    return OpenAIChat(kw.pop("model", "gpt-4o-mini"), base_url=server.url, **kw)


# --------------------------------------------------------------------------- OpenAIChat over HTTP


def test_answer_with_usage_and_cost(server, tmp_path):
    server.script.append(answer("(define (domain d))", prompt_tokens=1000, completion_tokens=500))
    llm = chat(server, tmp_path)
    c = llm.complete([{"role": "system", "content": "You write PDDL."},
                      {"role": "user", "content": "A domain, please."}], max_tokens=64)
    assert c.text == "(define (domain d))"
    assert (c.prompt_tokens, c.completion_tokens, c.model, c.cached) == (1000, 500, "gpt-4o-mini",
                                                                         False)
    assert c.latency_s > 0
    sent = server.requests[0]
    assert sent["messages"][0] == {"role": "system", "content": "You write PDDL."}
    assert sent["max_tokens"] == 64 and sent["temperature"] == 0.0
    usage = llm.ledger.run
    assert usage.calls == 1 and usage.total_tokens == 1500
    assert usage.cost_usd == pytest.approx((1000 * 0.15 + 500 * 0.60) / 1e6)


def test_429_then_success_honours_retry_after(server, tmp_path):
    server.script.extend([status(429, "slow down", {"Retry-After": "1"}), answer("done")])
    llm = chat(server, tmp_path)
    t0 = time.monotonic()
    assert llm.complete("hi").text == "done"
    assert time.monotonic() - t0 >= 0.95  # backoff alone would wait about 0.01 s
    assert len(server.requests) == 2


def test_retry_after_is_capped_by_max_backoff(server, tmp_path):
    server.script.extend([status(429, "slow down", {"Retry-After": "3600"}), answer("done")])
    llm = chat(server, tmp_path, max_backoff=0.2)
    t0 = time.monotonic()
    assert llm.complete("hi").text == "done"
    assert time.monotonic() - t0 < 5


def test_500_past_the_bound_is_a_clear_error(server, tmp_path):
    server.script.extend([status(500, "boom")] * 10)
    llm = chat(server, tmp_path, max_retries=2)
    with pytest.raises(LLMServerError) as err:
        llm.complete("hi")
    assert len(server.requests) == 3
    assert err.value.attempts == 3 and err.value.status == 500
    assert "HTTP 500 after 3 attempts" in str(err.value) and "boom" in str(err.value)
    assert err.value.hint
    assert llm.ledger.run.calls == 0  # nothing was answered, nothing counted


def test_persistent_429_is_rate_limited_error(server, tmp_path):
    server.script.extend([status(429, "quota")] * 5)
    with pytest.raises(LLMRateLimited) as err:
        chat(server, tmp_path, max_retries=1).complete("hi")
    assert err.value.attempts == 2 and "429" in str(err.value)


def test_a_hanging_server_times_out(server, tmp_path):
    server.script.extend([hang(5), hang(5)])
    # (a loopback server is taken for a local model, which gets no retry after a time-out
    # unless asked: this test stands for a remote one)
    llm = chat(server, tmp_path, timeout=0.5, max_retries=1, retry_timeouts=True)
    t0 = time.monotonic()
    with pytest.raises(LLMTimeout) as err:
        llm.complete("hi")
    assert time.monotonic() - t0 < 4
    assert "did not answer within 0.5s, 2 attempts" in str(err.value)


def test_a_timed_out_request_is_not_sent_again_when_retries_of_timeouts_are_off(server, tmp_path,
                                                                               caplog):
    """What ``local:`` does: a CPU server would generate the whole answer again."""
    server.script.extend([hang(3), answer("late")])
    llm = chat(server, tmp_path, timeout=0.5, max_retries=3, retry_timeouts=False)
    with pytest.raises(LLMTimeout) as err:
        llm.complete("hi")
    assert "1 attempt" in str(err.value) and len(server.requests) == 1
    server.script.clear()
    server.script.extend([hang(3), answer("second try")])
    with caplog.at_level("WARNING", logger="pddlkit.llm"):  # retried: said, never silent
        assert chat(server, tmp_path, timeout=0.5, max_retries=3, cache=False,
                    retry_timeouts=True).complete("again").text == "second try"
    assert any("asking again" in r.getMessage() for r in caplog.records)


def test_the_local_spec_waits_for_generation_and_does_not_resend(monkeypatch):
    from pddlkit.llm import local_server

    class Running:
        model, base_url = "qwen2.5-coder-1.5b", "http://127.0.0.1:9/v1"

    from pddlkit.llm.openai_chat import LOCAL_TIMEOUT

    monkeypatch.setattr(local_server, "start", lambda model: Running)
    llm = load_llm("local:", cache=False)
    assert llm.timeout == LOCAL_TIMEOUT and llm.retry_timeouts is False
    assert llm.model == "qwen2.5-coder-1.5b"
    remote = OpenAIChat("m", base_url="https://api.example.com/v1", cache=False)
    assert remote.timeout == 120.0 and remote.retry_timeouts is True


def test_connection_refused_names_the_url(tmp_path):
    llm = OpenAIChat("m", base_url="http://127.0.0.1:9/v1", cache=False, max_retries=1,
                     backoff=0.01, ledger=UsageLedger())
    with pytest.raises(LLMConnectionError) as err:
        llm.complete("hi")
    assert "127.0.0.1:9" in str(err.value) and "server running" in err.value.hint


CRASHING_SERVER = """
import http.server, json, os, signal, sys
class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass
    def do_GET(self):   # /v1/models answers, as llama.cpp's server does once loaded
        body = json.dumps({"data": [{"id": "m"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_POST(self):  # the first answer crashes the process, as llama.cpp's AMX kernels do
        os.kill(os.getpid(), signal.SIGSEGV)
server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


@pytest.mark.parametrize("amx", [True, False])
def test_a_local_server_that_crashes_while_answering_says_so_with_its_fix(tmp_path, amx):
    """A server that dies on its first answer (seen: llama.cpp's AMX kernels, a general
    protection fault on a virtualized Xeon) is named with its pid and log, not reported as a
    bare "cannot connect"; with the AMX kernels in its log, the hint is the rebuild."""
    from functools import partial

    from pddlkit.llm import local_server

    process = subprocess.Popen([sys.executable, "-c", CRASHING_SERVER], stdout=subprocess.PIPE,
                               text=True)
    port = int(process.stdout.readline())
    server = local_server.LocalServer("m", "m.gguf", "127.0.0.1", port, process.pid, time.time())
    local_server.servers_dir().mkdir(parents=True)
    (local_server.servers_dir() / "m.log").write_text(
        "load_tensors: CPU_Mapped model buffer size = 877.31 MiB\n"
        + ("load_tensors: AMX model buffer size = 950.71 MiB\n" if amx else "")
        + "INFO:     Uvicorn running on http://127.0.0.1:%d\n" % port)
    assert local_server.gone(server) is None       # alive: nothing to say yet
    llm = OpenAIChat("m", base_url=server.base_url, cache=False, max_retries=1, backoff=0.01,
                     ledger=UsageLedger())
    llm.server_gone = partial(local_server.gone, server)
    try:
        with pytest.raises(LLMConnectionError) as err:
            llm.complete("hi")
    finally:
        process.kill()
        process.wait()
    said = str(err.value)
    assert f"pid {process.pid}" in said and "exited while answering" in said
    assert "Uvicorn running" in said               # the log's last lines
    if amx:
        assert "AMX" in said and "make llm-server" in err.value.hint
        assert "-DGGML_NATIVE=OFF" in err.value.hint
    else:
        assert "AMX" not in said and "dmesg" in err.value.hint
    # with no hook (a server this process did not start) the error stays the plain one
    plain = OpenAIChat("m", base_url=server.base_url, cache=False, max_retries=1,
                       backoff=0.01, ledger=UsageLedger())
    with pytest.raises(LLMConnectionError) as err:
        plain.complete("hi")
    assert "cannot connect" in str(err.value)


def test_the_makefile_builds_llama_cpp_without_amx_on_an_amx_cpu():
    """The build flags follow the CPU: on an AMX CPU native is off and AMX is not named, so
    llama.cpp's AMX kernels are not compiled in; elsewhere no flag is added."""
    def flags(cpu):
        done = subprocess.run(["make", "-s", "--no-print-directory", "-f", "Makefile",
                               "-f", "-", "show", f"CPU_FLAGS={cpu}"], cwd=REPO, text=True,
                              capture_output=True,
                              input="show:\n\t@echo ARGS=$(LLAMA_CMAKE_ARGS)\n")
        assert done.returncode == 0, done.stderr
        return done.stdout.split("ARGS=", 1)[1].split()
    amx = flags("fpu sse avx2 avx512f avx512bw avx512vbmi avx512_vnni avx512_bf16 avx_vnni "
                "amx_tile amx_int8 amx_bf16")
    assert amx[0] == "-DGGML_NATIVE=OFF" and "-DGGML_AVX512=ON" in amx
    assert "-DGGML_AVX512_BF16=ON" in amx and not any("AMX" in a for a in amx)
    assert flags("fpu sse avx2 avx512f avx512bw") == []


def test_401_is_not_retried(server, tmp_path):
    server.script.append(status(401, "invalid api key"))
    with pytest.raises(LLMRequestError) as err:
        chat(server, tmp_path).complete("hi")
    assert len(server.requests) == 1
    assert err.value.status == 401 and "OPENAI_API_KEY" in err.value.hint


def test_the_api_key_goes_only_to_the_url_it_was_configured_for(server, tmp_path,
                                                                 monkeypatch):
    """OPENAI_API_KEY belongs to OPENAI_BASE_URL (or OpenAI's API): a spec or base_url= naming
    another server (a client's listener, say) gets a placeholder, and a 401 there says why and
    how to send the key on purpose (?key_env=)."""
    from pddlkit.llm import load_llm

    monkeypatch.setenv("OPENAI_API_KEY", "sk-operator-secret")
    load_llm(f"openai:m@{server.url}", cache=False).complete("hi")
    chat(server, tmp_path, cache=False).complete("hi")
    assert server.authorizations == ["Bearer not-needed"] * 2
    server.script.append(status(401, "invalid api key"))
    with pytest.raises(LLMRequestError) as err:
        chat(server, tmp_path, cache=False).complete("hi")
    assert "was not sent" in err.value.hint and "key_env=OPENAI_API_KEY" in err.value.hint
    server.authorizations.clear()
    load_llm(f"openai:m@{server.url}?key_env=OPENAI_API_KEY", cache=False).complete("hi")
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/")
    load_llm("openai:m", cache=False).complete("hi")
    chat(server, tmp_path, cache=False, api_key="sk-given").complete("hi")
    assert server.authorizations == ["Bearer sk-operator-secret"] * 2 + ["Bearer sk-given"]
    with pytest.raises(LLMSpecError, match="key_env"):
        load_llm(f"openai:m@{server.url}?token=x")


def test_json_mode_extracts_from_a_chatty_answer(server, tmp_path):
    server.script.append(answer('Sure! Here it is:\n```json\n{"objects": ["a", "b"],}\n```\n'))
    c = chat(server, tmp_path).complete("objects?", response_format="json")
    assert c.data == {"objects": ["a", "b"]} and c.json() == c.data
    assert server.requests[0]["response_format"] == {"type": "json_object"}


def test_malformed_json_is_a_clear_error_and_not_cached(server, tmp_path):
    server.script.extend([answer('{"objects": ["a", "b"'), answer('{"objects": []}')])
    llm = chat(server, tmp_path)
    with pytest.raises(BadAnswerError) as err:
        llm.complete("objects?", response_format="json")
    assert "never closed" in err.value.problem and "max_tokens" in err.value.problem
    assert err.value.answer == '{"objects": ["a", "b"'
    assert llm.ledger.run.calls == 1  # the tokens were spent and are counted
    # not cached: asking again reaches the model, which now answers well
    assert llm.complete("objects?", response_format="json").data == {"objects": []}
    assert len(server.requests) == 2


def test_server_without_json_mode_is_asked_again_without_it(server, tmp_path, caplog):
    server.script.extend([status(400, "response_format is not supported"),
                          answer('<json>{"x": 1}</json>'), answer('{"y": 2}')])
    llm = chat(server, tmp_path)
    with caplog.at_level("WARNING", logger="pddlkit.llm"):
        assert llm.complete("x?", response_format="json").data == {"x": 1}
    assert "refused JSON mode" in caplog.text and "not supported" in caplog.text
    assert "response_format" in server.requests[0] and "response_format" not in server.requests[1]
    llm.complete("y?", response_format="json")
    assert "response_format" not in server.requests[2]  # remembered for this client


def test_reasoning_models_get_no_temperature(server, tmp_path):
    chat(server, tmp_path, model="o3-mini").complete("hi", max_tokens=100)
    sent = server.requests[0]
    assert "temperature" not in sent and "max_tokens" not in sent
    assert sent["max_completion_tokens"] == 100


def test_second_identical_call_is_served_from_the_cache(server, tmp_path):
    server.script.append(answer("first", 100, 10))
    llm = chat(server, tmp_path)
    a = llm.complete("same", temperature=0)
    b = llm.complete("same", temperature=0)
    assert len(server.requests) == 1
    assert (b.text, b.cached, b.prompt_tokens) == ("first", True, 100) and not a.cached
    assert llm.ledger.run.calls == 2 and llm.ledger.run.cached_calls == 1
    assert llm.ledger.run.saved_usd > 0 and llm.ledger.run.cost_usd == pytest.approx(
        (100 * 0.15 + 10 * 0.6) / 1e6)
    # a different sampling parameter or seed is a different request
    llm.complete("same", temperature=0.7, seed=1)
    assert len(server.requests) == 2
    # a fresh client on the same file (another process, later) hits too
    assert chat(server, tmp_path).complete("same").cached


def test_cache_off_by_argument_and_by_environment(server, tmp_path, monkeypatch):
    chat(server, tmp_path, cache=False).complete("x")
    chat(server, tmp_path, cache=False).complete("x")
    assert len(server.requests) == 2
    monkeypatch.setenv("PDDLKIT_NO_CACHE", "1")
    llm = chat(server, tmp_path)
    assert llm.cache is None
    llm.complete("x")
    llm.complete("x")
    assert len(server.requests) == 4


def test_missing_model_and_key_say_what_to_set(monkeypatch):
    with pytest.raises(LLMRequestError, match="no model") as err:
        OpenAIChat(cache=False)
    assert "PDDLKIT_MODEL" in err.value.hint
    with pytest.raises(LLMRequestError, match="no OpenAI API key"):
        OpenAIChat("gpt-4o", cache=False)


def test_environment_configures_the_client(server, monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("PDDLKIT_MODEL", "qwen2.5-7b")
    llm = load_llm("openai", cache=False, ledger=UsageLedger())
    assert llm.complete("hi").text == "ok"
    assert server.requests[0]["model"] == "qwen2.5-7b"


# --------------------------------------------------------------------------- cache across processes

WRITER = """
import sys
from pddlkit.llm.base import Completion, Request
from pddlkit.llm.cache import ResponseCache
cache = ResponseCache(sys.argv[1])
worker = int(sys.argv[2])
for i in range(int(sys.argv[3])):
    request = Request.build(f"worker {worker} prompt {i}")
    cache.put(request.key("m"), "m", request, Completion(f"answer {worker}/{i}", 3, 2, "m"))
"""


def test_eight_processes_writing_one_cache_lose_nothing(tmp_path):
    path = tmp_path / "shared.sqlite"
    ResponseCache(path)
    n = 150
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(w), str(n)],
                              cwd=REPO) for w in range(8)]
    assert [p.wait(timeout=300) for p in procs] == [0] * 8
    cache = ResponseCache(path)
    assert len(cache) == 8 * n
    from pddlkit.llm.base import Request

    hit = cache.get(Request.build("worker 5 prompt 77").key("m"))
    assert hit.text == "answer 5/77" and hit.cached


# --------------------------------------------------------------------------- ledger


def test_ledger_by_episode_and_model_with_a_price_file(tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"my-local": [1.0, 2.0]}))
    ledger = UsageLedger(PriceTable.from_file(prices))
    llm = ScriptedLLM(lambda m: "x" * 40, model="my-local", ledger=ledger)
    with ledger.episode("ep-1"):
        llm.complete("a" * 400)
        llm.complete("b" * 400)
    with ledger.episode("ep-2"):
        llm.complete("c" * 400)
    assert ledger.episodes["ep-1"].calls == 2 and ledger.episodes["ep-2"].calls == 1
    assert ledger.episodes["ep-1"].prompt_tokens == 200
    assert ledger.run.cost_usd == pytest.approx((300 * 1.0 + 30 * 2.0) / 1e6)
    assert ledger.models["my-local"].calls == 3
    ledger.save(tmp_path / "usage.json")
    saved = json.loads((tmp_path / "usage.json").read_text())
    assert saved["episodes"]["ep-2"]["total_tokens"] == 110
    assert "3 LLM calls" in ledger.summary()


def test_prices_match_dated_model_names_and_local_models_are_free():
    table = PriceTable()
    assert table.lookup("gpt-4o-mini-2024-07-18") == (0.15, 0.60)
    assert table.lookup("gpt-4o-2024-08-06") == (2.50, 10.00)
    assert table.cost("qwen2.5-7b@http://localhost:8000/v1", 10**6, 10**6) == 0.0


def test_bad_price_file_names_the_model(tmp_path):
    bad = tmp_path / "prices.json"
    bad.write_text(json.dumps({"m": 3}))
    with pytest.raises(ValueError, match="price of 'm'"):
        PriceTable.from_file(bad)


# --------------------------------------------------------------------------- transcripts, replay


def test_transcript_replays_call_for_call_without_the_server(server, tmp_path):
    server.script.extend([answer("one"), answer("two"), answer("one again")])
    record = tmp_path / "run.jsonl"
    llm = chat(server, tmp_path, cache=False, transcript=record)
    ledger = llm.ledger
    with ledger.episode("ep-7"):
        texts = [llm.complete("first question").text, llm.complete("second question").text,
                 llm.complete("first question").text]
    server.stop()
    lines = [json.loads(x) for x in record.read_text().splitlines()]
    assert [x["text"] for x in lines] == texts == ["one", "two", "one again"]
    assert lines[0]["episode"] == "ep-7" and lines[0]["usage"]["prompt_tokens"] == 11
    replay = load_llm(f"replay:{record}", ledger=UsageLedger())
    assert replay.model == "gpt-4o-mini"
    assert [replay.complete(q).text for q in ("first question", "second question",
                                              "first question")] == texts
    assert replay.ledger.run.prompt_tokens == 33
    with pytest.raises(ReplayMissError, match="already been replayed"):
        replay.complete("first question")


def test_replay_miss_shows_the_closest_recorded_request(tmp_path):
    record = tmp_path / "run.jsonl"
    llm = ScriptedLLM(["a", "b"], transcript=record, ledger=UsageLedger())
    llm.complete([{"role": "system", "content": "You write PDDL."},
                  {"role": "user", "content": "Room: kitchen.\nExits: north, south."}])
    llm.complete("something else entirely")
    replay = ReplayLLM(record, ledger=UsageLedger())
    with pytest.raises(ReplayMissError) as err:
        replay.complete([{"role": "system", "content": "You write PDDL."},
                         {"role": "user", "content": "Room: kitchen.\nExits: north, east."}])
    text = str(err.value)
    assert "line 1" in text and "message 1 (user)" in text
    assert "-Exits: north, south." in text and "+Exits: north, east." in text
    with pytest.raises(ReplayMissError, match="temperature"):
        replay.complete("something else entirely", temperature=0.5)


def test_broken_transcript_line_is_named(tmp_path):
    record = tmp_path / "run.jsonl"
    record.write_text('{"request": {"messages": [{"role": "user", "content": "x"}]}, "text": "y"}\n'
                      "not json\n")
    with pytest.raises(ValueError, match=r"run.jsonl:2: not a JSON line"):
        ReplayLLM(record)


# --------------------------------------------------------------------------- scripted


def test_scripted_answers_in_order_then_a_clear_error():
    llm = ScriptedLLM(["first", Completion("second", 5, 1, "scripted")], ledger=UsageLedger())
    assert llm.complete("q1").text == "first"
    assert llm.complete("q2").prompt_tokens == 5
    with pytest.raises(LLMError, match="ran out of answers: call 3, but only 2") as err:
        llm.complete("the third question")
    assert "the third question" in str(err.value)
    assert [r.messages[-1][1] for r in llm.requests] == ["q1", "q2", "the third question"]


def test_scripted_function_sees_the_messages():
    llm = ScriptedLLM(lambda msgs: msgs[-1]["content"].upper(), ledger=UsageLedger())
    assert llm.complete("shout").text == "SHOUT"
    assert llm.requests[0].message_dicts == [{"role": "user", "content": "shout"}]


def test_scripted_json_answer_that_is_not_json_raises():
    llm = ScriptedLLM(["no json here"], ledger=UsageLedger())
    with pytest.raises(BadAnswerError, match="no JSON object"):
        llm.complete("q", response_format="json")


def test_bad_messages_are_rejected_before_any_call():
    llm = ScriptedLLM(["x"], ledger=UsageLedger())
    with pytest.raises(ValueError, match="message 0 must be a dict"):
        llm.complete(["just a string in a list"])
    with pytest.raises(ValueError, match="response_format"):
        llm.complete("q", response_format="xml")
    assert llm.calls == 0


# --------------------------------------------------------------------------- specs


def test_spec_with_a_server_url(server):
    llm = load_llm(f"openai:qwen2.5-7b@{server.url}", cache=False, ledger=UsageLedger())
    assert (llm.model, llm.base_url) == ("qwen2.5-7b", server.url)
    assert llm.cache_model == f"qwen2.5-7b@{server.url}"
    assert llm.complete("hi").text == "ok"


def test_spec_errors_say_what_is_known(tmp_path):
    with pytest.raises(LLMSpecError, match="unknown LLM kind 'opnai'") as err:
        load_llm("opnai:gpt-4o")
    assert err.value.hint == "did you mean 'openai:gpt-4o'?"
    with pytest.raises(LLMSpecError, match="must be a URL"):
        load_llm("openai:m@localhost:8000")
    with pytest.raises(LLMError, match="no transcript"):
        load_llm(f"replay:{tmp_path / 'missing.jsonl'}")
    with pytest.raises(LLMError, match="not a Hugging Face model folder"):
        load_llm(f"hf:{tmp_path}")


def test_scripted_spec_reads_a_json_list(tmp_path):
    f = tmp_path / "answers.json"
    f.write_text(json.dumps(["a", "b"]))
    llm = load_llm(f"scripted:{f}", ledger=UsageLedger())
    assert [llm.complete("x").text, llm.complete("x").text] == ["a", "b"]


# --------------------------------------------------------------------------- JSON extraction


@pytest.mark.parametrize("text, value", [
    ('{"a": 1}', {"a": 1}),
    ('  [1, 2]  ', [1, 2]),
    ('Here you go:\n```\n{"a": "}"}\n```', {"a": "}"}),
    ('```python\nx = 1\n```\n```json\n{"b": 2}\n```', {"b": 2}),
    ("<answer>{'a': True, 'b': None}</answer>", {"a": True, "b": None}),
    ('I think {"plan": ["(move a b)"]} is right, not {"other": 1}', {"plan": ["(move a b)"]}),
    ('text {not json} then {"ok": [1,]}', {"ok": [1]}),
])
def test_extract_json_finds_it(text, value):
    assert extract_json(text) == value


@pytest.mark.parametrize("text, problem", [
    ("", "empty"),
    ("no braces at all", "no JSON object"),
    ('{"a": [1, 2', "line 1, column 1 is never closed"),
    ('ok:\n{"a" 1}', "at line 2, column 6"),
])
def test_extract_json_says_what_is_wrong(text, problem):
    with pytest.raises(BadAnswerError) as err:
        extract_json(text)
    assert problem in err.value.problem


def test_prompt_files_have_one_syntax_and_a_missing_value_is_named(tmp_path):
    from string import Template

    from pddlkit.llm.prompts import PromptTemplateError, fill, read_prompt

    root = Path(__file__).resolve().parent.parent
    files = [p for folder in ("formalizers", "programs", "skills", "critic")
             for p in (root / folder / "prompts").rglob("*.txt")]
    assert len(files) > 30
    for path in files:   # every bundled prompt is a valid $name template
        text = path.read_text()
        bad = [m.group(0) for m in Template.pattern.finditer(text) if m.group("invalid")]
        assert not bad, (path, bad)
    (tmp_path / "ask.txt").write_text("Solve ${task} in $steps steps for $$5.")
    prompt = read_prompt(tmp_path, "ask.txt")
    assert prompt.fields == {"task", "steps"}
    assert prompt.fill(task="the maze", steps=3, unused="x") == "Solve the maze in 3 steps for $5."
    with pytest.raises(PromptTemplateError, match=r"ask.txt: no value for \$steps; the values "
                                                  r"here are \$task"):
        prompt.fill(task="the maze")
    with pytest.raises(FileNotFoundError, match="the prompts there: ask.txt"):
        read_prompt(tmp_path, "asks.txt")
    with pytest.raises(PromptTemplateError, match="write \\$\\$ for a dollar sign"):
        fill("costs $5")


def test_a_jobs_token_cap_and_transcript_reach_the_llms_it_makes_not_the_environment(
        tmp_path, monkeypatch):
    """Issue 74 (the Job owns the LLM): ``--max-tokens`` and ``--transcript`` reach every LLM
    made while the job plays through :mod:`pddlkit.llm.call_settings`, not ``os.environ``;
    outside the job, the user's environment variables still configure them."""
    import os

    from pddlkit.agents.episode import Job
    from pddlkit.agents.registry import get_agent
    from pddlkit.llm import ScriptedLLM
    from pddlkit.llm.call_settings import active, call_settings

    monkeypatch.delenv("PDDLKIT_MAX_TOKENS", raising=False)
    monkeypatch.delenv("PDDLKIT_TRANSCRIPT", raising=False)
    before = dict(os.environ)
    spec = get_agent("pddlego")
    job = Job(spec, "coin-collector", "standin:pddlego", [0], spec.make_options({}),
              max_tokens=7, transcript=tmp_path / "calls.jsonl")
    with job.llm_settings():
        inside = ScriptedLLM(lambda messages: "a b c d e f g h i j")
        assert dict(os.environ) == before          # nothing written to the environment
        with call_settings(max_tokens=3):          # an inner block wins; the rest is kept
            assert active().max_tokens == 3 and str(active().transcript).endswith("calls.jsonl")
        inside.complete("x", max_tokens=100)
    assert inside.max_tokens_cap == 7 and inside.transcript is not None
    assert (tmp_path / "calls.jsonl").read_text().count("\n") == 1
    assert ScriptedLLM(lambda m: "").max_tokens_cap is None   # after the job: none
    assert active().transcript is None
    monkeypatch.setenv("PDDLKIT_MAX_TOKENS", "9")               # the user's own setting
    assert ScriptedLLM(lambda m: "").max_tokens_cap == 9
    with pytest.raises(ValueError, match="positive number of tokens"):
        with call_settings(max_tokens=0):
            pass


def test_the_job_makes_its_agents_llm_on_its_own_ledger(tmp_path):
    """Issue 74, the Job owns the LLM: ``job.make_llm()`` loads the job's spec with the
    job's ledger (every call counts in the job's rows, not in another ledger), and gives a
    front end's stand-in spec back as it is, for the front end to read."""
    import json

    from pddlkit.agents import Job
    from pddlkit.agents.registry import get_agent
    from pddlkit.llm.usage import UsageLedger

    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(["one", "two"]))
    spec = get_agent("pddlego")
    ledger = UsageLedger()
    job = Job(spec, "coin-collector", f"scripted:{answers}", [0], spec.make_options({}),
              ledger=ledger)
    llm = job.make_llm()
    assert llm.ledger is ledger
    assert llm.complete("x").text == "one" and ledger.run.calls == 1
    stand_in = Job(spec, "coin-collector", "standin:pddlego", [0], spec.make_options({}))
    assert stand_in.make_llm() == "standin:pddlego"
    assert stand_in.make_llm(f"scripted:{answers}").ledger is stand_in.ledger


def test_a_runs_own_ledger_counts_in_its_parent_and_usage_counts_llm_calls_only():
    """Issue 74: a runner keeps a ledger of its own inside the job's (UsageLedger(parent=)),
    and a row's usage is the job ledger's LLM calls, a critic's decisions left out."""
    from pddlkit.llm.usage import usage_since, usage_snapshot

    job = UsageLedger()
    job.record(Completion("earlier", 7, 1, "m"))
    before = usage_snapshot(job)
    run = UsageLedger(parent=job)
    run.record(Completion("a program", 10, 4, "m"))
    run.record(Completion("", 30, 2, "critic:tiny"))   # a decision: read tokens, wrote none
    assert run.models["m"].calls == 1 and run.models["critic:tiny"].calls == 1
    assert job.models["m"].calls == 2 and job.models["critic:tiny"].calls == 1
    since = usage_since(job, before)
    assert (since.calls, since.prompt_tokens, since.completion_tokens) == (1, 10, 4)
