"""Shared by the tests of ``hermes hooks serve`` and ``hermes hooks client``: a home whose
Python plugin decides by markers in the call, a real service started on 127.0.0.1, posting
to it, and the client command run as a real process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

HERMES = shutil.which("hermes") or str(Path(sys.executable).with_name("hermes"))

#: The plugin every served home holds: it decides by the markers in the call's text.
DECIDER = """
import json

def _text(kw):
    return json.dumps(kw, default=str)

def register(ctx):
    def pre(tool_name=None, args=None, session_id=None, **kw):
        text = json.dumps(args or {})
        mark = (args or {}).get("command") or (args or {}).get("path") or ""
        if "BLOCK" in text:
            return {"action": "block", "message": f"blocked {mark} in {session_id}"}
        if "ASK" in text:
            return {"action": "approve", "message": f"ask about {mark}"}
        if "ALLOW" in text:
            return {"action": "allow"}
        if "REWRITE" in text:
            return {"action": "modify", "args": {"command": "echo rewritten " + mark}}
        if "CTX" in text:
            return {"context": f"context for {mark} in {session_id}"}
        return None

    def prompt(user_message=None, session_id=None, **kw):
        if "BLOCK" in (user_message or ""):
            return {"action": "block", "message": f"prompt blocked in {session_id}"}
        if "REWRITE" in (user_message or ""):
            return {"text": user_message.replace("REWRITE", "rewritten")}
        if "CTX" in (user_message or ""):
            return {"context": f"prompt context in {session_id}"}
        return None

    def post(tool_name=None, result=None, status=None, **kw):
        if "CTX" in str(result):
            return f"after {tool_name}: {result}"
        return None

    def verify(final_response=None, session_id=None, **kw):
        if "MORE" in f"{final_response} {session_id}":
            return {"action": "continue", "message": "keep going: MORE"}
        return None

    def permission(tool_name=None, args=None, **kw):
        text = json.dumps(args or {})
        if "DENY" in text:
            return {"action": "deny", "message": "not this one"}
        if "ALLOW" in text:
            return {"action": "allow"}
        return None

    def start(session_id=None, **kw):
        return f"session {session_id} starts"

    def compress(**kw):
        return {"action": "block", "message": "not now"}

    ctx.register_hook("pre_tool_call", pre)
    ctx.register_hook("user_prompt_submit", prompt)
    ctx.register_hook("post_tool_call", post)
    ctx.register_hook("pre_verify", verify)
    ctx.register_hook("permission_request", permission)
    ctx.register_hook("on_session_start", start)
    ctx.register_hook("pre_compress", compress)
"""


def make_home(root: Path, config: dict[str, Any] | None = None, plugin: str = DECIDER) -> Path:
    """A home with the decider plugin (or ``plugin``) and ``config``."""
    home = root
    (home / "plugins" / "decider").mkdir(parents=True, exist_ok=True)
    (home / "plugins" / "decider" / "plugin.yaml").write_text("name: decider\n")
    (home / "plugins" / "decider" / "__init__.py").write_text(plugin)
    (home / "config.yaml").write_text(yaml.safe_dump(config or {}))
    return home


class Service:
    """A running ``hermes hooks serve`` of one home."""

    def __init__(self, home: Path, proc: subprocess.Popen[bytes], url: str) -> None:
        self.home, self.proc, self.url = home, proc, url
        self.token = (home / "serve" / "token").read_text().strip()

    def post(
        self,
        agent: str,
        event: str,
        body: Any,
        token: str | None = None,
        query: str = "",
        timeout: float = 30,
    ) -> tuple[int, Any]:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        return request(
            self.url,
            "POST",
            f"/v1/hooks/{agent}/{event}{query}",
            data,
            {"Authorization": f"Bearer {self.token if token is None else token}"},
            timeout,
        )

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def request(
    url: str, method: str, path: str, body: bytes, headers: dict[str, str], timeout: float = 30
) -> tuple[int, Any]:
    """One HTTP request; the status and the JSON reply."""
    import http.client

    host, port = url[len("http://") :].rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers)
        res = conn.getresponse()
        raw = res.read()
    finally:
        conn.close()
    try:
        return res.status, json.loads(raw)
    except ValueError:
        return res.status, raw


@contextmanager
def serving(home: Path, *extra: str, env: dict[str, str] | None = None) -> Iterator[Service]:
    """``hermes hooks serve --port 0`` of ``home`` until the block ends."""
    url_file = home / "serve" / "url"
    if url_file.exists():
        url_file.unlink()
    proc = subprocess.Popen(
        [HERMES, "hooks", "--home", str(home), "serve", "--port", "0", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    service = None
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise AssertionError(f"serve exited: {proc.stderr.read().decode()}")  # type: ignore[union-attr]
            if url_file.exists():
                url = url_file.read_text().strip()
                try:
                    status, _ = request(url, "GET", "/v1/health", b"", {}, 2)
                    if status == 200:
                        service = Service(home, proc, url)
                        break
                except OSError:
                    pass
            time.sleep(0.05)
        assert service is not None, "the service did not come up"
        yield service
    finally:
        if service is not None:
            service.stop()
        elif proc.poll() is None:
            proc.kill()
            proc.wait(10)


def client(
    agent: str, event: str, payload: Any, home: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``hermes hooks client AGENT EVENT --home HOME`` with ``payload`` on stdin."""
    data = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run(
        [HERMES, "hooks", "client", agent, event, "--home", str(home)],
        input=data,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def free_port() -> int:
    """A port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
