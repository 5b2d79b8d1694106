"""The real Claude Code, configured only by `hermes hooks install-into claude` (its default:
Claude Code's http hook type): it reads the file install-into wrote
(`.claude/settings.local.json`, the only setting source of the run), posts its events to the
service URL with the token taken from `$HERMES_HOOKS_TOKEN`, obeys the service's deny, runs no
http hook on SessionStart (there the client checks the service and the token, quiet when both
are right), and blocks a tool call when the service does not answer (`onFailure: "block"`),
after its SessionStart hook said so on the terminal (`systemMessage`).

The service here is a stand-in on 127.0.0.1 that records each request and denies one marked
command (the real one is `hermes hooks serve`); what is checked is the configuration
install-into writes, against the agent that reads it.
"""

from __future__ import annotations

import json
import socket
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from oracle_agents import RUN_TIMEOUT, base_env, hook_responses
from oracle_install import Installed
from oracle_servers import FakeModel, ToolCall

from hermes_hooks.cli import hoist_global_options, hooks_group

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

TOKEN = "oracle-token-0123456789"
WARNING = "hermes-hooks: Claude Code's hooks reach the hermes-hooks service over http"
DENIED = "ORC-INSTALL-denied by the stand-in service"


class Service:
    """A stand-in for `hermes hooks serve`: records (path, authorization, body) and denies a
    PreToolUse whose command mentions ``deny-me``."""

    def __init__(self, failing: str | None = None) -> None:
        self.seen: list[tuple[str, str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 (the SessionStart client's probe)
                given = self.headers.get("Authorization")
                ok = self.path == "/v1/health" and given in (None, f"Bearer {TOKEN}")
                self.send_response(200 if ok else 401)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                outer.seen.append((self.path, self.headers.get("Authorization", ""), body))
                if failing and self.path.endswith(f"/{failing}"):
                    self.send_response(503)  # a service that is up but cannot answer
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                answer: dict[str, Any] = {}
                command = str((body.get("tool_input") or {}).get("command", ""))
                if self.path.endswith("/PreToolUse") and "deny-me" in command:
                    answer = {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                                     "permissionDecision": "deny",
                                                     "permissionDecisionReason": DENIED}}  # fmt: skip
                data = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _free_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"  # closed: nothing answers there


def _install(root: Path, url: str) -> Path:
    home, project = root / "hermes", root / "project"
    (home / "serve").mkdir(parents=True)
    (home / "serve" / "url").write_text(url + "\n")
    project.mkdir()
    argv = ["--home", str(home), "install-into", "claude",
            "--project", str(project), "--yes"]  # fmt: skip
    out = CliRunner().invoke(hooks_group, hoist_global_options(argv), catch_exceptions=False)
    assert out.exit_code == 0, out.output
    return project


def _session_start(output: str) -> dict[str, Any]:
    """What the SessionStart hook (the client) answered: its stdout's JSON and its stderr."""
    said = hook_responses(output, "SessionStart")
    assert len(said) == 1 and said[0]["outcome"] == "success", output[-3000:]
    return {**json.loads(said[0]["stdout"]), "stderr": said[0]["stderr"]}


def _claude(binary: Path, root: Path, project: Path, command: str) -> tuple[str, FakeModel]:
    user = root / "user"
    user.mkdir()
    cmd = [str(binary), "-p", "Run the command, please.", "--output-format", "stream-json",
           "--verbose", "--include-hook-events", "--setting-sources", "local",
           "--allowedTools", "Bash"]  # fmt: skip
    with FakeModel([ToolCall("Bash", {"command": command, "description": "oracle"})]) as model:
        env = base_env(user, model)
        env.update({"ANTHROPIC_BASE_URL": model.url, "ANTHROPIC_API_KEY": "sk-ant-oracle-not-a-key",
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                    "HERMES_HOOKS_TOKEN": TOKEN})  # fmt: skip
        done = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True,
                              timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)  # fmt: skip
    return done.stdout + done.stderr, model


def _tool_results(model: FakeModel) -> str:
    return json.dumps([r.body for r in model.requests if "/v1/messages" in r.path])


def test_claude_code_posts_its_events_to_the_service_and_obeys_its_deny(
    claude_cli: Installed, tmp_path: Path
) -> None:
    service = Service()
    try:
        project = _install(tmp_path, service.url)
        marker = tmp_path / "ran"
        output, model = _claude(claude_cli.binary, tmp_path, project, f"touch {marker} # deny-me")
    finally:
        service.close()
    paths = [p for p, _, _ in service.seen]
    assert "/v1/hooks/claude/PreToolUse" in paths, output[-3000:]
    assert {auth for _, auth, _ in service.seen} == {f"Bearer {TOKEN}"}
    pre = next(b for p, _, b in service.seen if p.endswith("/PreToolUse"))
    assert pre["tool_name"] == "Bash" and "deny-me" in pre["tool_input"]["command"]
    assert "/v1/hooks/claude/SessionStart" not in paths  # Claude Code runs no http hook there
    assert not marker.exists()
    assert DENIED in _tool_results(model)
    # the service answers and takes the token: the SessionStart check says nothing
    started = _session_start(output)
    assert "systemMessage" not in started and WARNING not in output, started


def test_claude_code_blocks_the_call_when_the_service_fails_to_answer_it(
    claude_cli: Installed, tmp_path: Path
) -> None:
    service = Service(failing="PreToolUse")
    try:
        project = _install(tmp_path, service.url)
        marker = tmp_path / "ran"
        output, model = _claude(claude_cli.binary, tmp_path, project, f"touch {marker}")
    finally:
        service.close()
    assert "/v1/hooks/claude/PreToolUse" in [p for p, _, _ in service.seen], output[-3000:]
    assert not marker.exists()
    assert "tool_result" in _tool_results(model)  # the call was made, and refused


def test_claude_code_blocks_the_prompt_when_no_service_answers(
    claude_cli: Installed, tmp_path: Path
) -> None:
    project = _install(tmp_path, _free_url())
    marker = tmp_path / "ran"
    output, model = _claude(claude_cli.binary, tmp_path, project, f"touch {marker}")
    assert not marker.exists()
    assert _tool_results(model) == "[]"  # UserPromptSubmit failed closed: no model call at all
    assert "ECONNREFUSED" in output
    # the SessionStart hook (the client) said why, and the fix, before anything was blocked: in
    # its systemMessage (what Claude Code shows) and on its stderr
    message = _session_start(output)["systemMessage"]
    assert message.startswith(WARNING) and "does not answer" in message, message
    assert f"hermes hooks serve --home {tmp_path / 'hermes'}" in message
    assert "Until then Claude Code blocks every decision event" in message
    assert message in _session_start(output)["stderr"]
