"""Codex hook configurations (``$CODEX_HOME/hooks.json``, ``[hooks]`` of ``config.toml``) run
unchanged through ``hermes_hooks.load()``: Codex's payload (``Bash``, ``model``, ``turn_id``,
``tool_use_id``) and Codex's strict reading of ``PreToolUse`` answers (deny only)."""

from __future__ import annotations

import json
import logging

import pytest
from dialect_helpers import Agents, agents_fixture, group, rows_of  # noqa: F401

DENY_RM = """\
record()
command = payload["tool_input"]["command"]
if "rm -rf" in command:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
          "permissionDecision": "deny", "permissionDecisionReason": "Destructive command blocked"}}))
"""


def hooks_json(agents: Agents, hooks: dict, where=None) -> None:
    agents.write_json(where or agents.user / ".codex" / "hooks.json", {"hooks": hooks})


def test_pre_tool_use_deny_blocks_and_the_payload_is_codexs(agents: Agents):
    guard = agents.script(agents.user / ".codex" / "hooks" / "deny_rm.py", DENY_RM)
    entry = group(str(guard), "Bash", timeout=30, statusMessage="Checking")
    hooks_json(agents, {"PreToolUse": [entry]})
    hooks = agents.load(["codex"])
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf build"},
                                   session_id="s1", tool_call_id="call_1", turn_id="t1",
                                   model="gpt-5")  # fmt: skip
    assert (decision.action, decision.message) == ("block", "Destructive command blocked")
    (run,) = agents.seen(guard)
    payload = run["payload"]
    assert payload == {
        "session_id": "s1",
        "transcript_path": None,
        "cwd": str(agents.project),
        "hook_event_name": "PreToolUse",
        "model": "gpt-5",
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf build"},
        "turn_id": "t1",
        "tool_use_id": "call_1",
    }
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}).action is None
    assert hooks.pre_tool_call(tool_name="read_file", args={"path": "x"}).action is None
    assert len(agents.seen(guard)) == 2  # Bash only
    (row,) = rows_of(hooks)
    assert (row["protocol"], row["configured_event"]) == ("codex", "PreToolUse")


def test_config_toml_is_read_and_the_models_tool_names_do_not_match(agents: Agents, monkeypatch):
    """Codex 0.169 matches its shell tool only as ``Bash``: a matcher naming the model's
    ``exec_command`` never fires there (tests/oracle case pre-matcher-model-name), nor here."""
    codex_home = agents.user / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    guard = agents.script(codex_home / "deny.py", DENY_RM)
    entry = f'[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "{guard}"\ntimeout = 10\n'
    (codex_home / "config.toml").write_text(
        'model = "gpt-5"\n\n[[hooks.PreToolUse]]\nmatcher = "exec_command|shell"\n\n' + entry
        + '\n[[hooks.PreToolUse]]\nmatcher = "Bash"\n\n' + entry
    )  # fmt: skip
    hooks = agents.load(["codex"])
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf /"}).action == "block"
    assert len(agents.seen(guard)) == 1  # the Bash group only
    rows = rows_of(hooks)
    assert len(rows) == 2
    assert all(r["origin"] == str(codex_home / "config.toml") and r["timeout"] == 10 for r in rows)


def test_answers_codex_rejects_have_no_effect_and_are_reported(agents: Agents, caplog):
    script = agents.script(agents.project / "allow.py", """\
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
              "permissionDecision": "allow", "updatedInput": {"command": "echo hi"}}}))
        """)  # fmt: skip
    hooks_json(agents, {"PreToolUse": [group(str(script), "Bash")]},
               agents.project / ".codex" / "hooks.json")  # fmt: skip
    caplog.set_level(logging.WARNING, "hermes_hooks")
    hooks = agents.load(["codex"])
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert (decision.action, decision.args) == (None, None)
    assert "rejects permissionDecision 'allow'" in caplog.text
    assert "updatedInput is not carried over" in caplog.text


def test_ask_asks_for_approval_where_codex_would_fail_open(agents: Agents):
    script = agents.script(agents.project / "ask.py", """\
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
              "permissionDecision": "ask", "permissionDecisionReason": "confirm push"}}))
        """)  # fmt: skip
    hooks_json(agents, {"PreToolUse": [group(str(script))]})
    decision = agents.load(["codex"]).pre_tool_call(tool_name="terminal", args={"command": "x"})
    assert (decision.action, decision.message) == ("approve", "confirm push")


def test_post_tool_use_continue_false_gives_the_stop_reason_as_feedback(agents: Agents):
    """Codex 0.169 shows a PostToolUse ``stopReason`` to the model with the call's output and
    goes on (tests/oracle case post-continue-false)."""
    script = agents.script(agents.project / "stop.py", """\
        print(json.dumps({"continue": False, "stopReason": "tests are red"}))
        """)  # fmt: skip
    hooks_json(agents, {"PostToolUse": [group(str(script), "Bash")]})
    hooks = agents.load(["codex"])
    feedback = hooks.post_tool_call(tool_name="terminal", args={"command": "x"}, result="ok",
                                    status="ok")  # fmt: skip
    assert feedback == "tests are red"


def test_prompt_context_session_start_text_and_stop_continuation(agents: Agents):
    ctx = agents.script(agents.project / "ctx.py", """\
        record()
        if payload["hook_event_name"] == "SessionStart":
            print("Project uses pnpm.")
        else:
            print(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                                     "additionalContext": "ticket ABC-1"}}))
        """)  # fmt: skip
    stop = agents.script(agents.project / "stop.py", """\
        record()
        if not payload["stop_hook_active"]:
            print(json.dumps({"decision": "block", "reason": "Run the tests before stopping."}))
        """)  # fmt: skip
    hooks_json(agents, {"SessionStart": [group(str(ctx), "startup|resume")],
                        "UserPromptSubmit": [group(str(ctx))], "Stop": [group(str(stop))]})  # fmt: skip
    hooks = agents.load(["codex"])
    assert hooks.on_session_start(session_id="s", source="startup", model="gpt-5") == (
        "Project uses pnpm."
    )
    prompt = hooks.user_prompt_submit(user_message="go", session_id="s", turn_id="t2")
    assert prompt.context == "ticket ABC-1"
    verdict = hooks.call("pre_verify", session_id="s", final_response="done", turn_id="t3")
    assert verdict is not None and verdict.message == "Run the tests before stopping."
    start, submit = (r["payload"] for r in agents.seen(ctx))
    assert start["source"] == "startup" and start["model"] == "gpt-5"
    assert submit["prompt"] == "go" and submit["turn_id"] == "t2"
    (stopped,) = (r["payload"] for r in agents.seen(stop))
    assert stopped["hook_event_name"] == "Stop"
    assert stopped["last_assistant_message"] == "done" and stopped["turn_id"] == "t3"


def test_unknown_keys_and_events_are_reported_with_the_file(agents: Agents, caplog):
    hooks_json(agents, {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "prompt", "prompt": "is it safe?"}]}], "PostToolUze": [group("true")]})  # fmt: skip
    path = agents.user / ".codex" / "hooks.json"
    data = path.read_text()
    path.write_text(data.replace('{\n  "hooks"', '{\n  "version": 1,\n  "hooks"', 1))
    caplog.set_level(logging.WARNING, "hermes_hooks")
    assert rows_of(agents.load(["codex"])) == []
    assert f"{path}: unknown key 'version' ignored" in caplog.text
    assert (
        f"hooks.PreToolUse[0].hooks[0] in {path}: hook type 'prompt' is not supported"
        in caplog.text
    )
    assert "unknown Codex event 'PostToolUze' (did you mean 'PostToolUse'?)" in caplog.text


def test_permission_request_answers_the_approval_and_subagent_stop_guard_is_reported(
    agents: Agents, caplog
):
    script = agents.script(agents.project / "perm.py", """\
        record()
        behavior = "deny" if "push" in payload["tool_input"]["command"] else "allow"
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
              "decision": {"behavior": behavior, "message": "no pushing from the agent"}}}))
        """)  # fmt: skip
    hooks_json(agents, {"PermissionRequest": [group(str(script), "Bash")],
                        "SubagentStop": [group("true")]})  # fmt: skip
    caplog.set_level(logging.WARNING, "hermes_hooks")
    hooks = agents.load(["codex"])
    answer = hooks.call("permission_request", tool_name="terminal", args={"command": "git push"},
                        command="git push", turn_id="t9")  # fmt: skip
    assert (answer.action, answer.message) == ("deny", "no pushing from the agent")
    ok = hooks.call("permission_request", tool_name="terminal", args={"command": "ls"})
    assert ok.action == "allow"
    payload = agents.seen(script)[0]["payload"]
    assert payload["hook_event_name"] == "PermissionRequest" and payload["tool_name"] == "Bash"
    assert payload["turn_id"] == "t9"
    assert "hooks.SubagentStop in" in caplog.text and "a deny cannot be carried over" in caplog.text


def test_decision_approve_is_no_opinion_as_in_codex(agents: Agents, caplog):
    """Codex rejects ``decision: "approve"`` on PreToolUse (the call runs as if the hook had no
    opinion): it approves nothing here either."""
    script = agents.script(agents.project / "approve.py", """\
        print(json.dumps({"decision": "approve", "reason": "looks fine"}))
        """)  # fmt: skip
    hooks_json(agents, {"PreToolUse": [group(str(script), "Bash")]})
    caplog.set_level(logging.WARNING, "hermes_hooks")
    decision = agents.load(["codex"]).pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert decision.action is None
    assert "Codex rejects decision 'approve' on PreToolUse" in caplog.text


def _sh(agents: Agents, name: str, body: str) -> str:
    path = agents.project / name
    path.write_text("#!/bin/sh\ncat > /dev/null\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


def test_a_stray_hermes_action_beside_a_deny_never_reads_as_allow(agents: Agents, caplog):
    """``action`` is no Codex answer key: it is reported and ignored, so the deny beside it
    blocks (it used to read as our ``allow``; issue 18). Codex 0.169 rejects such an answer as
    invalid and runs the call (oracle case pre-x0-stdout-stray-action): never more open."""
    answer = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                     "permissionDecisionReason": "no rm"}, "action": "allow"}  # fmt: skip
    script = _sh(agents, "deny.sh", f"echo '{json.dumps(answer)}'")
    hooks_json(agents, {"PreToolUse": [group(script, "Bash")]})
    caplog.set_level(logging.WARNING, "hermes_hooks")
    hooks = agents.load(["codex"])
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf x"})
    assert (decision.action, decision.message) == ("block", "no rm")
    assert "unknown Codex answer key 'action' ignored" in caplog.text


@pytest.mark.parametrize(
    ("matcher", "fires"),
    [("Bash", True), ("Bash|apply_patch", True), ("Ba.h", True), ("^Ba", True), ("B.*", True),
     ("Bash-x", False), (" Bash", False), ("Bash ", False), ("bash", False), ("ash", False),
     ("exec_command", False), ("Bash(", False)],
)  # fmt: skip
def test_the_matcher_grammar_is_codexs(agents: Agents, matcher, fires):
    """Codex 0.169 (codex-rs/hooks events/common.rs; oracle cases matcher-*): only ASCII
    letters, digits, ``_`` and ``|`` make a list of exact names; a ``.``, ``-`` or space makes
    the matcher a regex searched in the name, and spaces around it are kept."""
    hooks_json(agents, {"PreToolUse": [group(_sh(agents, "m.sh", "echo no >&2; exit 2"), matcher)]})
    hooks = agents.load(["codex"])
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert (decision.action == "block") is fires


def test_a_command_runs_with_bash_as_in_codex(agents: Agents):
    """Codex 0.169 runs a hook's command with ``bash -c`` (oracle case pre-bash-syntax): a
    guard written with bash syntax blocks here too (under ``sh`` it failed with exit 127, and
    Codex reads that as no opinion: the call ran)."""
    guard = _sh(agents, "g.sh", "echo bash ran >&2; exit 2")
    hooks_json(agents, {"PreToolUse": [group(f"[[ -n x ]] && {guard}", "Bash")]})
    hooks = agents.load(["codex"])
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert (decision.action, decision.message) == ("block", "bash ran")
