"""A counting HTTP proxy on 127.0.0.1 in front of a real OpenAI-compatible server: it forwards
every request unchanged and adds up the ``usage`` the server put in each chat completion, so
a test can compare pddlkit's ledger with what the server itself reported."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Handler(BaseHTTPRequestHandler):
    server: "UsageProxy"

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        self._forward(None)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self._forward(self.rfile.read(length))

    def _forward(self, body) -> None:
        request = urllib.request.Request(self.server.upstream + self.path[len("/v1"):],
                                         data=body, method=self.command,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=600) as response:
                status, data = response.status, response.read()
        except urllib.error.HTTPError as exc:
            status, data = exc.code, exc.read()
        if self.command == "POST" and status == 200:
            usage = json.loads(data).get("usage") or {}
            with self.server.lock:
                self.server.calls += 1
                self.server.prompt_tokens += int(usage.get("prompt_tokens") or 0)
                self.server.completion_tokens += int(usage.get("completion_tokens") or 0)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class UsageProxy(ThreadingHTTPServer):
    """``with UsageProxy(server.base_url) as proxy:`` point clients at ``proxy.base_url``."""

    daemon_threads = True

    def __init__(self, upstream: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.upstream = upstream.rstrip("/")
        self.lock = threading.Lock()
        self.calls = self.prompt_tokens = self.completion_tokens = 0
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def __enter__(self) -> "UsageProxy":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown()
        self.server_close()
