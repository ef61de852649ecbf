"""A small OpenAI-compatible chat server on 127.0.0.1, for driving the real openai client.

Each request takes the next scripted behaviour from ``server.script`` (when it is empty, the
default answer): an answer with usage, an HTTP status with headers, or a hang. Every request
body is kept in ``server.requests``, so tests count what reached the server.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Optional


def answer(text: str, prompt_tokens: int = 11, completion_tokens: int = 7) -> dict:
    return {"text": text, "usage": (prompt_tokens, completion_tokens)}


def status(code: int, message: str = "", headers: Optional[dict] = None) -> dict:
    return {"status": code, "message": message or f"status {code}", "headers": headers or {}}


def hang(seconds: float) -> dict:
    return {"hang": seconds}


class _Handler(BaseHTTPRequestHandler):
    server: "ChatServer"

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self.server.listings += 1
            self._send(200, {"object": "list", "data": [{"id": "test-model", "object": "model",
                                                         "owned_by": self.server.owned_by}]})
        else:
            self._send(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self.server.authorizations.append(self.headers.get("Authorization"))
        behaviour = self.server.next_behaviour(body)
        if "hang" in behaviour:
            time.sleep(behaviour["hang"])
            behaviour = self.server.default
        if "status" in behaviour:
            self._send(behaviour["status"], {"error": {
                "message": behaviour["message"], "type": "test", "code": behaviour["status"]}},
                behaviour["headers"])
            return
        prompt, completion = behaviour["usage"]
        self._send(200, {
            "id": f"chatcmpl-{len(self.server.requests)}", "object": "chat.completion",
            "created": int(time.time()), "model": body.get("model", "test-model"),
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": behaviour["text"]}}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion}})

    def _send(self, code: int, payload: dict, headers: Optional[dict] = None) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
            pass


class ChatServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script: deque = deque()
        self.requests: list[dict] = []
        self.authorizations: list = []   # each POST's Authorization header (key tests)
        self.default = answer("ok")
        self.owned_by = "test"     # what GET /models says owns the model ("llamacpp", "vllm")
        self.listings = 0          # how often GET /models was asked
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def next_behaviour(self, body: dict) -> dict:
        with self._lock:
            self.requests.append(body)
            return self.script.popleft() if self.script else self.default

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
