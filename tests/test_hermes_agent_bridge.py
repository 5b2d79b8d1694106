"""hermes-hooks inside the real Hermes Agent: ``hermes chat -q ... --toolsets terminal`` from
hermes-agent 0.19.0 (PyPI), talking to a scripted OpenAI-compatible model on 127.0.0.1.

The model's first answer asks for a ``terminal`` call that would ``touch`` a file; every later
answer ends the turn. What the model receives on each request is recorded, so the tests see what
Hermes sent back after the tool call. Hermes runs as its ``hermes`` console script runs it
(``hermes_cli.main:main``), so which ``hermes`` script pip left in ``bin/`` does not matter here.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from shell_helpers import on_a_terminal
from venvs import HERMES_AGENT, RUN_HERMES, Venv

import hermes_hooks

pytestmark = pytest.mark.slow

DENY = "DENIED-BY-SETTINGS-HOOK: no touching"
EXAMPLE_CONTEXT = "Note from hermes-hook-example"


@pytest.fixture(scope="module")
def plain(venvs):
    """Hermes Agent alone."""
    return venvs.get([HERMES_AGENT])


@pytest.fixture(scope="module")
def bridged(venvs):
    """Hermes Agent, then hermes-hooks and the example native plugin (entry point ``example``)."""
    return venvs.get([HERMES_AGENT], [str(venvs.hermes_hooks_wheel()), str(venvs.example_wheel())])


class Model:
    """A scripted chat-completions server: asks for one terminal call, then says "done". With
    ``delegate``, a session offered ``delegate_task`` first delegates (a sub-agent, whose own
    session is offered the terminal but not ``delegate_task``, then makes the terminal call)."""

    def __init__(self, command: str, *, delegate: bool = False) -> None:
        self.command = command
        self.delegate = delegate
        self.requests: list[dict[str, Any]] = []
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._json({"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                if not self.path.endswith("/chat/completions"):
                    self._json({})  # Hermes probes the endpoint (e.g. /api/show) first
                    return
                model.requests.append(body)
                self._answer(body)

            def _json(self, doc: Any) -> None:
                data = json.dumps(doc).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _answer(self, body: dict[str, Any]) -> None:
                messages = body.get("messages") or []
                offered = {t["function"]["name"] for t in body.get("tools") or []}
                if offered and not any(m.get("role") == "tool" for m in messages):
                    name, arguments = "terminal", {"command": model.command}
                    if model.delegate and "delegate_task" in offered:
                        name, arguments = "delegate_task", {"goal": "run the command"}
                    call = {
                        "index": 0,
                        "id": f"call_{name}",
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(arguments)},
                    }
                    delta: dict[str, Any] = {"role": "assistant", "tool_calls": [call]}
                    finish = "tool_calls"
                else:
                    delta, finish = {"role": "assistant", "content": "done"}, "stop"
                if not body.get("stream"):
                    delta.get("tool_calls", [{}])[0].pop("index", None)
                    self._json(
                        {
                            "id": "x",
                            "object": "chat.completion",
                            "model": "fake-model",
                            "choices": [{"index": 0, "message": delta, "finish_reason": finish}],
                        }
                    )
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for choice in (
                    {"delta": delta, "finish_reason": None},
                    {"delta": {}, "finish_reason": finish},
                ):
                    chunk = {"id": "x", "object": "chat.completion.chunk", "model": "fake-model"}
                    chunk["choices"] = [{"index": 0, **choice}]
                    self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                self.wfile.write(b"data: [DONE]\n\n")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def tool_results(self) -> list[str]:
        """What the model received as tool results, in order."""
        return [
            str(m.get("content"))
            for r in self.requests
            for m in r.get("messages") or []
            if m.get("role") == "tool"
        ]

    def user_messages(self) -> list[str]:
        return [
            str(m.get("content"))
            for r in self.requests
            for m in r.get("messages") or []
            if m.get("role") == "user"
        ]


class Scene:
    """A Hermes home with a terminal command that touches ``target``, a counting
    ``post_tool_call`` hook in config.yaml, and optional Claude Code ``settings.json`` hooks."""

    def __init__(
        self,
        root: Path,
        *,
        enabled: list[str] | None,
        settings: dict[str, Any] | None,
        command: str | None = None,
        extra: dict[str, Any] | None = None,
        delegate: bool = False,
    ):
        self.root = root
        self.home = root / "home"
        self.scripts = self.home / "scripts"
        self.scripts.mkdir(parents=True)
        self.target = root / "touched"
        self.count = root / "post_tool_call.count"
        self.model = Model(command or f"touch {self.target}", delegate=delegate)
        self.script("count.sh", f"cat > /dev/null\necho call >> {self.count}\n")
        config: dict[str, Any] = {
            "model": {
                "provider": "custom",
                "default": "fake-model",
                "base_url": self.model.url,
                "api_key": "sk-test",
            },
            "hooks_auto_accept": True,
            "hooks": {"post_tool_call": [{"command": str(self.scripts / "count.sh")}]},
        }
        if enabled is not None:
            config["plugins"] = {"enabled": enabled}
        for key, value in (extra or {}).items():  # `plugins:` is merged, the rest replaced
            config[key] = {**config.get(key, {}), **value} if key == "plugins" else value
        (self.home / "config.yaml").write_text(json.dumps(config))  # JSON is YAML
        if settings is not None:
            (self.home / "settings.json").write_text(json.dumps({"hooks": settings}))

    def script(self, name: str, body: str) -> str:
        path = self.scripts / name
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(0o755)
        return str(path)

    def plugin(self, name: str, code: str) -> None:
        pdir = self.home / "plugins" / name
        pdir.mkdir(parents=True)
        (pdir / "plugin.yaml").write_text(f"name: {name}\n")
        (pdir / "__init__.py").write_text(textwrap.dedent(code))

    def chat(
        self,
        venv: Venv,
        argv: tuple[str, ...] = ("chat", "-q", "run it", "--toolsets", "terminal", "-Q"),
    ) -> subprocess.CompletedProcess[str]:
        try:
            out = subprocess.run(
                [
                    str(venv.python),
                    "-c",
                    RUN_HERMES,
                    *argv,
                ],
                cwd=self.root,
                env=venv.env(HERMES_HOME=str(self.home), HOME=str(self.root / "user")),
                capture_output=True,
                text=True,
                timeout=120,
            )
        finally:
            self.model.close()
        assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
        return out

    def post_calls(self) -> int:
        return len(self.count.read_text().splitlines()) if self.count.exists() else 0


def pre_tool_use(command: str) -> dict[str, Any]:
    return {
        "PreToolUse": [{"matcher": "terminal", "hooks": [{"type": "command", "command": command}]}]
    }


def deny_answer() -> str:
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": DENY,
        }
    }
    return f"cat > /dev/null\nprintf '%s\\n' '{json.dumps(answer)}'\n"


APPROVER = """
import os

def _count(event):
    with open(os.environ["HERMES_HOME"] + "/approver.log", "a") as f:
        f.write(event + "\\n")

def register(ctx):
    def pre_tool_call(tool_name=None, **kwargs):
        _count("pre_tool_call")
        return {"action": "approve", "message": "approver: ask a human"}
    ctx.register_hook("pre_tool_call", pre_tool_call)
    ctx.register_hook("pre_llm_call", lambda **kw: _count("pre_llm_call"))
    ctx.register_hook("post_tool_call", lambda **kw: _count("post_tool_call"))
"""


def test_settings_json_deny_stops_the_command_and_the_model_gets_the_message(bridged, tmp_path):
    # A Hermes-style plugin that asks for approval loads before the bridge (directory plugins
    # come before entry points); the deny must still win, and nobody may be asked.
    scene = Scene(tmp_path, enabled=["hermes-hooks", "example", "approver"], settings=None)
    deny = scene.script("deny.sh", deny_answer())
    (scene.home / "settings.json").write_text(json.dumps({"hooks": pre_tool_use(deny)}))
    scene.plugin("approver", APPROVER)
    scene.chat(bridged)
    assert not scene.target.exists()  # the command never ran
    assert len(scene.model.requests) == 2
    assert scene.model.tool_results() == [json.dumps({"error": DENY})]
    assert scene.post_calls() == 1  # the hooks: block ran once for the blocked call
    # The Hermes-style plugin (loaded by Hermes, its hooks adopted by the bridge) ran once per
    # firing: one turn, one tool call.
    ran = (scene.home / "approver.log").read_text().split()
    assert sorted(ran) == ["post_tool_call", "pre_llm_call", "pre_tool_call"]


def test_a_native_plugins_pre_llm_call_context_reaches_the_model(bridged, tmp_path):
    scene = Scene(tmp_path, enabled=["hermes-hooks", "example"], settings=None)
    scene.chat(bridged)
    first_prompt = scene.model.requests[0]["messages"]
    assert EXAMPLE_CONTEXT in first_prompt[-1]["content"]
    assert scene.target.exists()


def test_argument_rewrite_reaches_the_tool_and_post_tool_call_runs_once(bridged, tmp_path):
    scene = Scene(tmp_path, enabled=["hermes-hooks"], settings=None)
    rewritten = tmp_path / "rewritten"
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"command": f"touch {rewritten}"},
        }
    }
    rewrite = scene.script(
        "rewrite.sh", f"cat > /dev/null\nprintf '%s\\n' '{json.dumps(answer)}'\n"
    )
    (scene.home / "settings.json").write_text(json.dumps({"hooks": pre_tool_use(rewrite)}))
    scene.chat(bridged)
    assert rewritten.exists() and not scene.target.exists()
    assert scene.post_calls() == 1
    assert EXAMPLE_CONTEXT not in "".join(scene.model.user_messages())  # not in plugins.enabled


def _observed(scene: Scene, out: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """What a run did, without the parts that differ between any two runs (ids, times)."""
    return {
        "ran": scene.target.exists(),
        "post_calls": scene.post_calls(),
        "stdout": [line for line in out.stdout.splitlines() if not line.startswith("session_id:")],
        "requests": [
            {
                "messages": [
                    {k: m.get(k) for k in ("role", "content", "tool_calls", "name")}
                    for m in r.get("messages") or []
                    if m.get("role") != "system"
                ],
                "tools": sorted(t["function"]["name"] for t in r.get("tools") or []),
            }
            for r in scene.model.requests
        ],
    }


@pytest.mark.parametrize("enabled", [None, []], ids=["no-plugins-key", "empty-list"])
def test_not_enabled_hermes_behaves_as_without_hermes_hooks(plain, bridged, tmp_path, enabled):
    runs = {}
    root = tmp_path / "run"  # the same paths in both runs: they show in what the model sees
    for name, venv in (("plain", plain), ("bridged", bridged)):
        shutil.rmtree(root, ignore_errors=True)
        scene = Scene(root, enabled=enabled, settings=None)
        deny = scene.script("deny.sh", deny_answer())
        (scene.home / "settings.json").write_text(json.dumps({"hooks": pre_tool_use(deny)}))
        runs[name] = _observed(scene, scene.chat(venv))
    assert runs["bridged"] == runs["plain"]
    # Hermes alone ignores settings.json and runs its hooks: block itself.
    assert runs["plain"]["ran"] and runs["plain"]["post_calls"] == 1


REDISCOVERY = """
import json, os
from hermes_cli import plugins

plugins.discover_plugins()
first = plugins.resolve_pre_tool_block("terminal", {"command": "ls"}, tool_call_id="c1")
plugins.invoke_hook("pre_llm_call", session_id="s", user_message="hi")
plugins.discover_plugins(force=True)  # Hermes reloads every plugin, the bridge included
again = plugins.resolve_pre_tool_block("terminal", {"command": "ls"}, tool_call_id="c2")
plugins.invoke_hook("pre_llm_call", session_id="s", user_message="hi")
table = plugins.get_plugin_manager()._hooks
print(json.dumps({
    "blocks": [first, again],
    "ran": open(os.environ["HERMES_HOME"] + "/approver.log").read().split(),
    "table": {e: len(cbs) for e, cbs in table.items() if e in ("pre_tool_call", "pre_llm_call")},
}))
"""


def test_block_beats_an_earlier_approve_in_process_and_after_a_rediscovery(bridged, tmp_path):
    scene = Scene(tmp_path, enabled=["hermes-hooks", "approver"], settings=None)
    scene.model.close()
    deny = scene.script("deny.sh", deny_answer())
    (scene.home / "settings.json").write_text(json.dumps({"hooks": pre_tool_use(deny)}))
    scene.plugin("approver", APPROVER)
    out = bridged.py(REDISCOVERY, cwd=tmp_path, HERMES_HOME=str(scene.home), HOME=str(tmp_path))
    doc = json.loads(out.stdout.strip().splitlines()[-1])
    assert doc["blocks"] == [DENY, DENY]
    assert sorted(doc["ran"]) == ["pre_llm_call"] * 2 + ["pre_tool_call"] * 2
    assert doc["table"] == {"pre_tool_call": 1, "pre_llm_call": 1}  # only the bridge is left


# ---------------------------------------------------------------------- built-ins under hermes chat
# The bridge builds its runtime as load() does (hermes_hooks.runtime.build_runtime): every
# built-in runs inside Hermes.

DANGEROUS = "echo hermes-hooks-dangerous-test-deny"
SECRET = "hunter2-not-for-any-model"


def test_a_dangerous_patterns_deny_blocks_and_the_model_gets_the_message(bridged, tmp_path):
    extra = {"dangerous_patterns": {"enable_groups": ["test"]}}
    scene = Scene(tmp_path, enabled=["hermes-hooks"], settings=None, command=DANGEROUS, extra=extra)
    scene.chat(bridged)
    # What load() decides for the same call, in this process, for the same home.
    standalone = hermes_hooks.load(scene.home, entry_points=False)
    expected = standalone.pre_tool_call(tool_name="terminal", args={"command": DANGEROUS})
    standalone.close()
    assert expected.blocked and expected.source == "builtin:dangerous_patterns"
    assert len(scene.model.requests) == 2
    assert scene.model.tool_results() == [json.dumps({"error": expected.message})]
    assert scene.post_calls() == 1  # the hooks: block still runs once


def test_redact_secrets_scrubs_a_terminal_result_before_the_model_sees_it(bridged, tmp_path):
    secrets = tmp_path / "app.env"
    secrets.write_text(f"DB_HOST=db.internal\nDB_PASSWORD={SECRET}\n")
    # Hermes' own redaction is off, so what is scrubbed here is scrubbed by hermes-hooks.
    extra = {"redact_secrets": True, "security": {"redact_secrets": False}}
    scene = Scene(
        tmp_path, enabled=["hermes-hooks"], settings=None, command=f"cat {secrets}", extra=extra
    )
    scene.chat(bridged)
    [result] = scene.model.tool_results()
    assert "DB_HOST=db.internal" in result  # the command ran; its output reached the model
    assert "DB_PASSWORD=[REDACTED:password]" in result
    assert SECRET not in json.dumps(scene.model.requests)


def test_a_missing_required_guard_blocks_the_tool_call(bridged, tmp_path):
    extra = {"plugins": {"required": ["no-such-guard"]}}
    scene = Scene(tmp_path, enabled=["hermes-hooks"], settings=None, extra=extra)
    scene.chat(bridged)
    assert not scene.target.exists()  # the command never ran
    [result] = scene.model.tool_results()
    assert "required guard 'no-such-guard' is not running" in json.loads(result)["error"]


def test_command_guard_blocks_a_wrapped_destructive_command_under_hermes_chat(bridged, tmp_path):
    # Hermes' own check lets this line through (it knows no forge CLI); ours reads the simple
    # command behind `timeout` and blocks. The line touches the target first, so a guard that let
    # it through would leave a trace; gh is not installed, so even then nothing is deleted.
    command = f"touch {tmp_path / 'touched'}; timeout 5 gh repo delete acme/site --yes"
    scene = Scene(
        tmp_path, enabled=["hermes-hooks"], settings=None, command=command,
        extra={"command_guard": True},
    )  # fmt: skip
    scene.chat(bridged)
    assert not scene.target.exists()  # the line never ran
    [result] = scene.model.tool_results()
    message = json.loads(result)["error"]
    assert "platforms.repo-delete" in message and "gh repo delete acme/site --yes" in message
    assert scene.post_calls() == 1


def _edited_guard_scene(tmp_path: Path) -> tuple[Scene, str]:
    """A scene whose terminal guard (it lets everything through) was approved, then edited."""
    scene = Scene(
        tmp_path, enabled=["hermes-hooks"], settings=None, extra={"hooks_auto_accept": False}
    )
    guard = scene.script("guard.sh", "cat > /dev/null\nexit 0\n")
    config = json.loads((scene.home / "config.yaml").read_text())
    config["hooks"]["pre_tool_call"] = [{"command": guard, "matcher": "terminal"}]
    (scene.home / "config.yaml").write_text(json.dumps(config))
    hermes_hooks.load(scene.home, accept_hooks=True, entry_points=False).close()  # approves both
    with open(guard, "a") as handle:
        handle.write("# edited after approval\n")
    return scene, guard


def test_a_guard_edited_after_approval_is_asked_about_again_under_hermes_chat_on_a_terminal(
    bridged, tmp_path
):
    scene, guard = _edited_guard_scene(tmp_path)
    argv = [str(bridged.python), "-c", RUN_HERMES, "chat", "-q", "run it", "--toolsets",
            "terminal", "-Q"]  # fmt: skip
    env = bridged.env(HERMES_HOME=str(scene.home), HOME=str(scene.root / "user"))
    try:
        text = on_a_terminal(argv, b"y", env=env, cwd=scene.root, timeout=120)
    finally:
        scene.model.close()
    assert "A shell hook changed since you approved it" in text, text[-3000:]
    assert f"changed: {guard}" in text
    assert scene.target.exists()  # approved again as it is: it ran, let the call through
    approvals = json.loads((scene.home / "shell-hooks-allowlist.json").read_text())["approvals"]
    [entry] = [a for a in approvals if a["command"] == guard]
    assert entry["sha256"] == hermes_hooks.builtin_plugins.shell_hooks.consent.file_sha256(guard)


def test_a_guard_edited_after_approval_blocks_headless_hermes_chat_saying_how(bridged, tmp_path):
    # Approved, then edited: Hermes alone would still run it; skipped, the call would run with
    # no guard. Headless, the call is blocked, and the model and the terminal are told how to
    # approve it again.
    scene, guard = _edited_guard_scene(tmp_path)
    out = scene.chat(bridged)
    assert not scene.target.exists()  # the command never ran
    [result] = scene.model.tool_results()
    message = json.loads(result)["error"]
    approve = f"`hermes hooks approve {guard}`"
    assert "changed since approval" in message and approve in message
    assert out.stderr.count(f"hermes-hooks: shell hook {guard!r}") == 1
    assert approve in out.stderr and "changed since approval" in out.stderr
    assert scene.post_calls() == 1  # the approved, unchanged post_tool_call hook still runs


# ---------------------------------------------------------------------- sub-agents


def test_a_sub_agents_receipts_and_payloads_name_its_parent_and_pair_up(bridged, tmp_path):
    trace = tmp_path / "trace.jsonl"
    scene = Scene(
        tmp_path, enabled=["hermes-hooks"], settings=None, delegate=True,
        extra={"trace_file": str(trace)},
    )  # fmt: skip
    seen = tmp_path / "claude-payloads.jsonl"
    log = scene.script("log.sh", f"cat >> {seen}\necho >> {seen}\n")
    group = [{"hooks": [{"type": "command", "command": log}]}]
    settings = {"SubagentStart": group, "SubagentStop": group, **pre_tool_use(log)}
    (scene.home / "settings.json").write_text(json.dumps({"hooks": settings}))
    # One-shot (`-z`): Hermes runs the delegation in this turn (under `chat -q` it goes to the
    # background and the process may end first).
    out = scene.chat(bridged, ("-z", "run it", "--toolsets", "terminal,delegation"))
    asked = [
        sorted(t["function"]["name"] for t in r.get("tools") or []) for r in scene.model.requests
    ]
    # the sub-agent's terminal call ran
    assert scene.target.exists(), (
        asked,
        scene.model.tool_results(),
        out.stdout[-2000:],
        out.stderr[-3000:],
    )
    payloads = [json.loads(line) for line in seen.read_text().splitlines() if line.strip()]
    by_event = {p["hook_event_name"]: p for p in payloads}
    start, stop, call = by_event["SubagentStart"], by_event["SubagentStop"], by_event["PreToolUse"]
    parent, child = start["session_id"], start["agent_id"]
    assert parent and child and parent != child
    assert (stop["session_id"], stop["agent_id"]) == (parent, child)  # one sub-agent: paired
    assert call["session_id"] == child  # Hermes gives the sub-agent's calls its own session
    receipts = [json.loads(line) for line in trace.read_text().splitlines()]
    events = {r["event"]: r for r in receipts}
    for name in ("subagent_start", "subagent_stop"):
        assert (events[name]["session_id"], events[name]["agent_id"]) == (parent, child), name
    in_child = [r for r in receipts if r["event"] in ("pre_tool_call", "post_tool_call")
                and r["session_id"] == child]  # fmt: skip
    assert {r["event"] for r in in_child} == {"pre_tool_call", "post_tool_call"}
    for receipt in in_child:
        assert (receipt["parent_session_id"], receipt["agent_id"]) == (parent, child), receipt
    for receipt in receipts:
        if receipt["session_id"] == parent:
            assert receipt["parent_session_id"] is None, receipt
