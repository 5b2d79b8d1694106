"""Real HTTP servers on 127.0.0.1 for the http and prompt hook types: a policy service and a
stub OpenAI-compatible ``/chat/completions`` endpoint whose replies a test scripts."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Server:
    url: str
    #: Every request: path, JSON body and headers.
    received: list[dict[str, Any]] = field(default_factory=list)
    #: The stub model's next replies, in order (see :func:`model`).
    script: list[tuple[str, Any]] = field(default_factory=list)


@contextmanager
def _serve(handler: type[BaseHTTPRequestHandler], server: Server) -> Iterator[Server]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    server.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()


class _Base(BaseHTTPRequestHandler):
    state: Server

    def log_message(self, *args: Any) -> None:
        pass

    def _read(self) -> Any:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        doc = json.loads(body) if body else None
        self.state.received.append({"path": self.path, "body": doc, "headers": dict(self.headers)})
        return doc

    def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)


@contextmanager
def policy() -> Iterator[Server]:
    """A shared policy service: ``/policy`` blocks commands with ``rm`` (Hermes answer),
    ``/claude`` denies them the Claude Code way, ``/down`` answers 503, ``/slow`` answers after
    3 s, ``/redirect`` sends elsewhere; any other path answers 200 with no body."""
    state = Server("")

    class Handler(_Base):
        def do_POST(self) -> None:
            doc = self._read() or {}
            command = str((doc.get("tool_input") or {}).get("command", ""))
            if self.path == "/policy" and "rm " in command:
                self._send(
                    200, json.dumps({"action": "block", "message": "policy: no rm"}).encode()
                )
            elif self.path == "/claude" and "rm " in command:
                out = {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                       "permissionDecision": "deny", "permissionDecisionReason": "fleet policy"}}  # fmt: skip
                self._send(200, json.dumps(out).encode())
            elif self.path == "/down":
                self._send(503, b"maintenance", "text/plain")
            elif self.path == "/slow":
                time.sleep(3)
                self._send(200, b"{}")
            elif self.path == "/redirect":
                self.send_response(307)
                self.send_header("Location", "http://localhost:9/elsewhere")
                self.end_headers()
            else:
                self._send(200, b"")

    Handler.state = state
    with _serve(Handler, state) as server:
        yield server


def completion(content: str) -> bytes:
    return json.dumps(
        {
            "id": "c1",
            "object": "chat.completion",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": content},
                }
            ],
        }  # fmt: skip
    ).encode()


@contextmanager
def model() -> Iterator[Server]:
    """A stub OpenAI-compatible endpoint. Each request takes the next item of ``script``:
    ``("reply", text)`` a completion with that content; ``("status", code)`` that HTTP status;
    ``("raw", bytes)`` that body as is; ``("slow", seconds)`` a reply after that long. With an
    empty script it answers ``{"decision": "allow"}``."""
    state = Server("")

    class Handler(_Base):
        def do_POST(self) -> None:
            self._read()
            kind, value = state.script.pop(0) if state.script else ("reply", '{"decision": "allow", "reason": "ok"}')  # fmt: skip
            if kind == "status":
                self._send(value, b'{"error": {"message": "overloaded"}}')
            elif kind == "raw":
                self._send(200, value)
            elif kind == "slow":
                time.sleep(value)
                self._send(200, completion('{"decision": "allow", "reason": "late"}'))
            else:
                self._send(200, completion(value))

    Handler.state = state
    with _serve(Handler, state) as server:
        yield server
