"""Real HTTP servers on 127.0.0.1 for the http and prompt hook types: a policy service and a
stub OpenAI-compatible ``/chat/completions`` endpoint whose replies a test scripts."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: A real-shaped API key ``/leaky`` puts in its error page.
LEAKED_KEY = "sk-ant-api03-" + "Q" * 40


@dataclass
class Server:
    url: str
    #: Every request: path, JSON body and headers.
    received: list[dict[str, Any]] = field(default_factory=list)
    #: The stub model's next replies, in order (see :func:`model`).
    script: list[tuple[str, Any]] = field(default_factory=list)


#: How often a test server's loop looks whether it was asked to stop: ``shutdown()`` waits up to
#: this long (``serve_forever``'s default, 0.5 s, cost every test with a server half a second).
POLL = 0.02


def serve_in_thread(httpd: ThreadingHTTPServer) -> threading.Thread:
    """Run ``httpd`` on a daemon thread until its ``shutdown()``."""
    thread = threading.Thread(target=httpd.serve_forever, args=(POLL,), daemon=True)
    thread.start()
    return thread


@contextmanager
def _serve(handler: type[BaseHTTPRequestHandler], server: Server) -> Iterator[Server]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    server.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    serve_in_thread(httpd)
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
    3 s, ``/redirect`` sends elsewhere, ``/leaky`` answers 500 with :data:`LEAKED_KEY` and 5000
    more bytes; any other path answers 200 with no body."""
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
            elif self.path == "/leaky":  # an error page that echoes a secret, then goes on
                body = f"upstream said: {LEAKED_KEY} " + "x" * 5000
                self._send(500, body.encode(), "text/plain")
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


#: Replies of :func:`misbehaving`, each as the bytes sent (``None``: sent by a function).
MALFORMED = {
    # not an HTTP status line: http.client raises BadStatusLine
    "bad-status": b"HTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}",
    # a chunked body whose chunk is cut short: IncompleteRead
    "incomplete-chunk": b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n{"action"',
    # a status line over http.client's 64 KiB line limit: LineTooLong
    "line-too-long": b"HTTP/1.1 200 " + b"O" * 70000 + b"\r\n\r\n",
    # over a hundred headers: http.client raises a plain HTTPException
    "many-headers": b"HTTP/1.1 200 OK\r\n" + b"X-A: b\r\n" * 120 + b"Content-Length: 2\r\n\r\n{}",
    # Content-Length 50, two bytes of a valid (empty) answer, then the connection is closed
    "short": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{}",
    # the connection closed with no reply at all
    "closed": b"",
}


def _read_request(conn: socket.socket) -> bytes:
    """The request's head and its Content-Length body, read off ``conn``."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip() or 0)
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


@contextmanager
def misbehaving(kind: str) -> Iterator[Server]:
    """A raw-socket server on 127.0.0.1 that answers every request the way ``kind`` names: one
    of :data:`MALFORMED`, or ``drip`` (a 200 whose 60-byte body comes one byte every 0.5 s)."""
    state = Server("")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(POLL)
    state.url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    stop = threading.Event()

    def answer(conn: socket.socket) -> None:
        with conn:
            request = _read_request(conn)
            state.received.append({"raw": request})
            try:
                if kind == "drip":
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 60\r\n\r\n")
                    for byte in b" " * 60:
                        if stop.wait(0.5):
                            return
                        conn.sendall(bytes([byte]))
                else:
                    conn.sendall(MALFORMED[kind])
                    conn.shutdown(socket.SHUT_WR)
                    time.sleep(0.2)  # let the client read before the close
            except OSError:
                pass  # the client gave up

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(None)
            threading.Thread(target=answer, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        stop.set()
        thread.join(timeout=2)
        listener.close()
