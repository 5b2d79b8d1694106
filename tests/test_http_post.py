"""The http_post built-in against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import hermes_hooks


@pytest.fixture
def server():
    received: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            received.append({"path": self.path, "body": body, "auth": self.headers.get("X-Token")})
            if self.path == "/redirect":
                self.send_response(307)
                self.send_header("Location", "http://localhost:9/elsewhere")
                self.end_headers()
                return
            self.send_response(204)
            self.end_headers()

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", received
    httpd.shutdown()


def test_posts_each_firing_of_its_events(home, server, monkeypatch):
    base, received = server
    monkeypatch.setenv("HOOK_TOKEN", "t0k3n")
    config = {
        "http_post": {"url": f"{base}/audit", "events": ["PostToolUse", "on_session_end"],
                      "headers": {"X-Token": "$HOOK_TOKEN"}},
        "allowed_http_hook_urls": [f"{base}/*"],
        "allowed_env_vars": ["HOOK_TOKEN"],
    }  # fmt: skip
    hooks = hermes_hooks.load(home, config, entry_points=False)
    hooks.post_tool_call(tool_name="terminal", args={"command": "ls"}, result="ok", status="ok")
    hooks.on_session_end(session_id="s1")
    assert [r["body"]["event"] for r in received] == ["post_tool_call", "on_session_end"]
    assert received[0]["body"]["args"] == {"command": "ls"} and received[0]["auth"] == "t0k3n"


def test_a_url_outside_the_allow_list_is_refused(home, server, caplog):
    base, received = server
    hooks = hermes_hooks.load(home, {"http_post": {"url": f"{base}/audit"}}, entry_points=False)
    hooks.post_tool_call(tool_name="t", result="ok")
    assert received == [] and "builtin:http_post" not in hooks.records
    assert any("not in allowed_http_hook_urls" in r.getMessage() for r in caplog.records)


def test_no_redirect_to_another_host_and_failures_never_block(home, server, caplog):
    base, received = server
    config = {"http_post": {"url": f"{base}/redirect"}, "allowed_http_hook_urls": [f"{base}/*"]}
    hooks = hermes_hooks.load(home, config, entry_points=False)
    assert hooks.post_tool_call(tool_name="t", result="ok") is None
    assert [r["path"] for r in received] == ["/redirect"]  # the redirect was not followed
    assert any("refused a redirect to another host" in r.getMessage() for r in caplog.records)
