"""Fake model servers on 127.0.0.1 for the oracle tests, and the proxy that refuses the rest.

One :class:`FakeModel` serves all three wire formats the real CLIs speak:

- Anthropic ``POST /v1/messages`` with ``stream: true`` (Claude Code), server-sent events;
- Gemini ``POST /v1beta/models/<model>:generateContent`` and ``:streamGenerateContent?alt=sse``;
- OpenAI ``POST /v1/responses`` (Codex), server-sent events.

It is scripted, not clever: the plan is a list of tool calls, and each request is answered by
counting the tool results the conversation already holds (``n``): while ``n`` is less than the
number of planned calls it asks for call ``n``, afterwards it gives a final text answer. That keeps
it stateless, so retries and extra turns (a Stop hook that keeps the agent going) need no care.
Every request is recorded (path and parsed body): that is how a test learns what the model saw.

The same port is the ``HTTPS_PROXY``/``HTTP_PROXY`` of the agent: a ``CONNECT`` is answered with 403
and an absolute-URI request to another host with 403 too, so nothing leaves the machine.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FINAL_TEXT = "ORACLE-FINAL-ANSWER"


@dataclass
class ToolCall:
    """One tool call the fake model asks for, in the agent's own tool name and arguments."""

    name: str
    input: dict[str, Any]


@dataclass
class Recorded:
    method: str
    path: str
    body: Any
    refused: bool = False


@dataclass
class FakeModel:
    """A scripted model behind one local port. Use as a context manager."""

    calls: list[ToolCall] = field(default_factory=list)
    final_text: str = FINAL_TEXT
    requests: list[Recorded] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # ------------------------------------------------------------------ lifecycle

    def __enter__(self) -> FakeModel:
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep the test output clean
                pass

            def do_CONNECT(self) -> None:  # noqa: N802 - the http.server naming
                model._record("CONNECT", self.path, None, refused=True)
                self.send_response(403, "no network in the oracle tests")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:  # noqa: N802
                model._record("GET", self.path, None, refused=True)
                self._plain(404, b"{}")

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                if self.path.startswith("http://") or self.path.startswith("https://"):
                    model._record("POST", self.path, body, refused=True)  # a proxied request
                    self._plain(403, b"{}")
                    return
                model._record("POST", self.path, body)
                status, ctype, payload = model.answer(self.path, body)
                self._plain(status, payload, ctype)

            def _plain(self, status: int, payload: bytes, ctype: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def _record(self, method: str, path: str, body: Any, refused: bool = False) -> None:
        with self._lock:
            self.requests.append(Recorded(method, path, body, refused))

    # ------------------------------------------------------------------ answers

    def answer(self, path: str, body: Any) -> tuple[int, str, bytes]:
        body = body if isinstance(body, dict) else {}
        if path.startswith("/v1/messages"):
            return 200, "text/event-stream", self._anthropic(body)
        if path.startswith("/v1/responses") or path.startswith("/responses"):
            return 200, "text/event-stream", self._openai(body)
        if ":streamGenerateContent" in path:
            return 200, "text/event-stream", self._gemini(body, stream=True)
        if ":generateContent" in path:
            return 200, "application/json", self._gemini(body, stream=False)
        if ":countTokens" in path:
            return 200, "application/json", b'{"totalTokens": 10}'
        return 404, "application/json", b'{"error": {"message": "not faked"}}'

    def _next_call(self, done: int) -> ToolCall | None:
        return self.calls[done] if done < len(self.calls) else None

    # Anthropic messages ------------------------------------------------

    def main_requests(self, prefix: str) -> list[dict[str, Any]]:
        """The recorded bodies of the agent's main-loop requests (those offering tools)."""
        with self._lock:
            return [
                r.body
                for r in self.requests
                if r.path.startswith(prefix) or prefix in r.path
                if isinstance(r.body, dict) and r.body.get("tools")
            ]

    def _anthropic(self, body: dict[str, Any]) -> bytes:
        done = sum(
            1
            for m in body.get("messages") or []
            if isinstance(m.get("content"), list)
            for part in m["content"]
            if isinstance(part, dict) and part.get("type") == "tool_result"
        )
        call = self._next_call(done) if body.get("tools") else None
        events: list[tuple[str, dict[str, Any]]] = []
        usage = {"input_tokens": 10, "output_tokens": 1}
        message = {"id": f"msg_{done}", "type": "message", "role": "assistant",
                   "model": body.get("model", "claude"), "content": [], "stop_reason": None,
                   "stop_sequence": None, "usage": usage}  # fmt: skip
        events.append(("message_start", {"type": "message_start", "message": message}))
        if call is not None:
            block = {"type": "tool_use", "id": f"toolu_oracle_{done}", "name": call.name,
                     "input": {}}  # fmt: skip
            delta = {"type": "input_json_delta", "partial_json": json.dumps(call.input)}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": self.final_text}
            stop = "end_turn"
        events += [
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": block}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta",
                               "delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": 5}}),
            ("message_stop", {"type": "message_stop"}),
        ]  # fmt: skip
        return b"".join(
            f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events
        )

    # Gemini --------------------------------------------------------------

    def _gemini(self, body: dict[str, Any], *, stream: bool) -> bytes:
        contents = body.get("contents") or []
        done = sum(
            1
            for c in contents
            for part in c.get("parts") or []
            if isinstance(part, dict) and "functionResponse" in part
        )
        offered = bool(body.get("tools"))
        call = self._next_call(done) if offered and stream else None
        if call is not None:
            parts: list[dict[str, Any]] = [
                {"functionCall": {"name": call.name, "args": call.input}}
            ]
        elif not stream:
            # a helper call (routing, next-speaker checks, ...) asks for JSON: say little
            parts = [{"text": '{"reasoning": "oracle", "next_speaker": "user", "model_choice": "flash"}'}]  # fmt: skip
        else:
            parts = [{"text": self.final_text}]
        answer = {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                              "totalTokenCount": 15},
            "modelVersion": "gemini-oracle",
        }  # fmt: skip
        if stream:
            return f"data: {json.dumps(answer)}\n\n".encode()
        return json.dumps(answer).encode()

    # OpenAI responses -------------------------------------------------------

    def _openai(self, body: dict[str, Any]) -> bytes:
        items = body.get("input") or []
        done = sum(
            1
            for item in items
            if isinstance(item, dict)
            and item.get("type") in ("function_call_output", "custom_tool_call_output")
        )
        call = self._next_call(done) if body.get("tools") else None
        rid = f"resp_oracle_{done}"
        if call is not None:
            item: dict[str, Any] = {"type": "function_call", "id": f"fc_oracle_{done}",
                                    "call_id": f"call_oracle_{done}", "name": call.name,
                                    "arguments": json.dumps(call.input), "status": "completed"}  # fmt: skip
        else:
            item = {"type": "message", "role": "assistant", "id": f"msg_oracle_{done}",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": self.final_text,
                                 "annotations": []}]}  # fmt: skip
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": 15}  # fmt: skip
        events = [
            {"type": "response.created", "response": {"id": rid, "status": "in_progress"}},
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed",
             "response": {"id": rid, "status": "completed", "output": [item], "usage": usage}},
        ]  # fmt: skip
        return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)
