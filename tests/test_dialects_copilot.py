"""GitHub Copilot hook configurations (``.github/hooks/*.json``) run unchanged through
``hermes_hooks.load()``: its ``bash`` commands, ``cwd``, ``env`` and ``timeoutSec``, its
payloads (millisecond ``timestamp``, ``toolName``, ``toolArgs`` as a JSON string, ``bash``/
``edit``/``view`` tool names) and the one answer it reads (``preToolUse`` deny)."""

from __future__ import annotations

import json
import logging
import time

from dialect_helpers import Agents, agents_fixture, rows_of  # noqa: F401

POLICY = """\
record()
args = json.loads(payload["toolArgs"])
if payload["toolName"] == "bash" and "rm -rf /" in args.get("command", ""):
    print(json.dumps({"permissionDecision": "deny",
                      "permissionDecisionReason": "Dangerous command detected"}))
elif payload["toolName"] == "bash" and args.get("command", "").startswith("npm publish"):
    print(json.dumps({"permissionDecision": "ask", "permissionDecisionReason": "publishing"}))
elif payload["toolName"] == "bash":
    print(json.dumps({"permissionDecision": "allow"}))
"""


def hooks_file(agents: Agents, name: str, hooks: dict) -> None:
    path = agents.project / ".github" / "hooks" / name
    agents.write_json(path, {"version": 1, "hooks": hooks})


def test_pre_tool_use_deny_blocks_and_the_payload_is_copilots(agents: Agents, caplog):
    script = agents.script(agents.project / "scripts" / "policy.py", POLICY)
    hooks_file(agents, "security.json", {"preToolUse": [{
        "type": "command", "bash": "./policy.py", "powershell": "./policy.ps1", "cwd": "scripts",
        "env": {"LOG_LEVEL": "INFO"}, "timeoutSec": 15, "comment": "policy"}]})  # fmt: skip
    caplog.set_level(logging.WARNING, "hermes_hooks")
    hooks = agents.load(["copilot"])
    before = int(time.time() * 1000)
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf /"})
    assert (decision.action, decision.message) == ("block", "Dangerous command detected")
    (run,) = agents.seen(script)
    payload = run["payload"]
    assert set(payload) == {"timestamp", "cwd", "toolName", "toolArgs"}
    assert payload["toolName"] == "bash" and json.loads(payload["toolArgs"]) == {
        "command": "rm -rf /"
    }
    assert isinstance(payload["timestamp"], int) and payload["timestamp"] >= before
    assert payload["cwd"] == str(agents.project)
    assert run["env"]["LOG_LEVEL"] == "INFO"
    asked = hooks.pre_tool_call(tool_name="terminal", args={"command": "npm publish"})
    assert (asked.action, asked.message) == ("approve", "publishing")
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}).action is None
    assert "ignores permissionDecision 'allow'" in caplog.text
    hooks.pre_tool_call(tool_name="patch", args={"path": "a", "old_string": "x", "new_string": "y"})
    edit = agents.seen(script)[-1]["payload"]
    assert edit["toolName"] == "edit"
    assert json.loads(edit["toolArgs"]) == {"path": "a", "old_str": "x", "new_str": "y"}
    (row,) = rows_of(hooks)
    assert (row["protocol"], row["configured_event"], row["timeout"]) == (
        "copilot",
        "preToolUse",
        15,
    )
    assert row["origin"] == str(agents.project / ".github" / "hooks" / "security.json")


def test_other_events_are_heard_and_their_output_ignored(agents: Agents, caplog):
    log = agents.script(agents.project / "log.py", 'record()\nprint(json.dumps({"note": 1}))\n')
    hooks_file(agents, "audit.json", {
        "sessionStart": [{"type": "command", "bash": str(log)}],
        "userPromptSubmitted": [{"type": "command", "bash": str(log)}],
        "postToolUse": [{"type": "command", "bash": str(log)}],
        "sessionEnd": [{"type": "command", "bash": str(log)}],
    })  # fmt: skip
    caplog.set_level(logging.WARNING, "hermes_hooks")
    hooks = agents.load(["copilot"])
    assert hooks.on_session_start(session_id="s", source="new") is None
    assert hooks.user_prompt_submit(user_message="Create a feature").context is None
    hooks.post_tool_call(tool_name="terminal", args={"command": "ls"}, result="a\nb", status="ok")
    hooks.call("on_session_end", session_id="s", reason="complete")
    start, prompt, post, end = (r["payload"] for r in agents.seen(log))
    assert start["source"] == "new"
    assert prompt["prompt"] == "Create a feature"
    assert post["toolResult"] == {"resultType": "success", "textResultForLlm": "a\nb"}
    assert end["reason"] == "complete"
    assert "ignores the answer of userPromptSubmitted" in caplog.text


def test_powershell_only_entries_and_unknown_keys_are_reported(agents: Agents, caplog):
    hooks_file(agents, "win.json", {"preToolUse": [{"type": "command", "powershell": "x.ps1",
                                                   "timeout": 3}], "errorOccurred": []})  # fmt: skip
    caplog.set_level(logging.WARNING, "hermes_hooks")
    assert rows_of(agents.load(["copilot"])) == []
    where = agents.project / ".github" / "hooks" / "win.json"
    assert f"hooks.preToolUse[0] in {where}: unknown key 'timeout'" in caplog.text
    assert "no 'bash' command" in caplog.text


def test_entries_without_a_timeout_get_their_agents_default(agents: Agents):
    """Copilot's ``timeoutSec`` defaults to 30 s and Gemini CLI's to 60000 ms; Codex's own 600 s
    is above our cap, so a Codex or Cursor entry without one gets ours (60 s)."""
    hooks_file(agents, "plain.json", {"preToolUse": [{"type": "command", "bash": "true"}]})
    plain = {"hooks": [{"type": "command", "command": "true"}]}
    agents.write_json(
        agents.project / ".gemini" / "settings.json", {"hooks": {"BeforeTool": [plain]}}
    )
    agents.write_json(agents.project / ".codex" / "hooks.json", {"hooks": {"PreToolUse": [plain]}})
    agents.write_json(agents.project / ".cursor" / "hooks.json",
                      {"version": 1, "hooks": {"beforeShellExecution": [{"command": "true"}]}})  # fmt: skip
    rows = rows_of(agents.load(["copilot", "gemini", "codex", "cursor"]))
    assert {r["protocol"]: r["timeout"] for r in rows} == {
        "copilot": 30,
        "gemini": 60,
        "codex": 60,
        "cursor": 60,
    }


def test_a_permission_decision_copilot_does_not_define_blocks(agents: Agents, caplog):
    """A guard whose answer cannot be read never lets the call through."""
    script = agents.script(agents.project / "odd.py", """\
        print(json.dumps({"permissionDecision": "later"}))
        """)  # fmt: skip
    hooks_file(agents, "odd.json", {"preToolUse": [{"type": "command", "bash": str(script)}]})
    caplog.set_level(logging.WARNING, "hermes_hooks")
    decision = agents.load(["copilot"]).pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert decision.action == "block"
    assert "GitHub Copilot answer permissionDecision='later' is not a value" in decision.message
