"""Cursor hook configurations (``.cursor/hooks.json``) run unchanged through
``hermes_hooks.load()``: Cursor's events (``beforeShellExecution``, ``beforeReadFile``,
``afterFileEdit``, ``stop``, ...), its payloads (``conversation_id``, ``workspace_roots``, the
command, the file and its content) and its answers (``permission``, ``user_message``,
``agent_message``, ``followup_message``)."""

from __future__ import annotations

import logging

from dialect_helpers import Agents, agents_fixture, rows_of  # noqa: F401

AUDIT_SHELL = """\
record()
command = payload["command"]
if "curl" in command:
    print(json.dumps({"permission": "deny", "user_message": "Network commands are blocked.",
                      "agent_message": "curl is not allowed in this repo; use the fixtures."}))
elif command.startswith("git push"):
    print(json.dumps({"permission": "ask", "user_message": "Push?"}))
else:
    print(json.dumps({"permission": "allow"}))
"""


def hooks_json(agents: Agents, hooks: dict, where=None) -> None:
    path = where or agents.project / ".cursor" / "hooks.json"
    agents.write_json(path, {"version": 1, "hooks": hooks})


def test_before_shell_execution_permissions_and_payload(agents: Agents):
    script = agents.script(agents.project / ".cursor" / "hooks" / "audit.py", AUDIT_SHELL)
    hooks_json(agents, {"beforeShellExecution": [{"command": ".cursor/hooks/audit.py"}]})
    hooks = agents.load(["cursor"])
    denied = hooks.pre_tool_call(tool_name="terminal", args={"command": "curl x.io"},
                                 session_id="conv-1", turn_id="gen-1", model="gpt-5")  # fmt: skip
    assert denied.action == "block"
    assert denied.message == "curl is not allowed in this repo; use the fixtures."
    asked = hooks.pre_tool_call(tool_name="terminal", args={"command": "git push"})
    assert (asked.action, asked.message) == ("approve", "Push?")
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}).action == "allow"
    assert hooks.pre_tool_call(tool_name="read_file", args={"path": "a"}).action is None
    first = agents.seen(script)[0]["payload"]
    assert first == {
        "conversation_id": "conv-1",
        "generation_id": "gen-1",
        "model": "gpt-5",
        "hook_event_name": "beforeShellExecution",
        "workspace_roots": [str(agents.project)],
        "transcript_path": None,
        "command": "curl x.io",
        "cwd": str(agents.project),
        "sandbox": False,
    }
    assert agents.seen(script)[0]["env"]["CURSOR_PROJECT_DIR"] == str(agents.project)
    (row,) = rows_of(hooks)
    assert row["protocol"] == "cursor" and row["configured_event"] == "beforeShellExecution"


def test_before_read_file_sees_the_content_and_may_deny(agents: Agents):
    (agents.project / ".env").write_text("API_KEY=secret\n")
    script = agents.script(agents.user / ".cursor" / "hooks" / "env.py", """\
        record()
        deny = payload["file_path"].endswith(".env")
        print(json.dumps({"permission": "deny" if deny else "allow"}))
        """)  # fmt: skip
    hooks_json(agents, {"beforeReadFile": [{"command": "./hooks/env.py"}]},
               agents.user / ".cursor" / "hooks.json")  # fmt: skip
    hooks = agents.load(["cursor"])
    decision = hooks.pre_tool_call(
        tool_name="read_file", args={"path": str(agents.project / ".env")}
    )
    assert decision.action == "block"
    assert decision.message == "blocked by shell hook ./hooks/env.py"  # Cursor sent none
    (run,) = agents.seen(script)
    assert run["payload"]["content"] == "API_KEY=secret\n"
    assert run["payload"]["attachments"] == []
    (row,) = rows_of(hooks)
    assert row["origin"] == str(agents.user / ".cursor" / "hooks.json")


def test_after_file_edit_hears_edits_and_stop_follows_up(agents: Agents):
    edits = agents.script(agents.project / "fmt.py", "record()\n")
    stop = agents.script(agents.project / "stop.py", """\
        record()
        if payload["loop_count"] < 1:
            print(json.dumps({"followup_message": "Now run the tests."}))
        else:
            print("{}")
        """)  # fmt: skip
    hooks_json(agents, {"afterFileEdit": [{"command": str(edits)}],
                        "stop": [{"command": str(stop), "loop_limit": 3}]})  # fmt: skip
    hooks = agents.load(["cursor"])
    hooks.post_tool_call(tool_name="patch", args={"path": "a.ts", "old_string": "1",
                         "new_string": "2"}, result="ok", status="ok")  # fmt: skip
    hooks.post_tool_call(tool_name="terminal", args={"command": "ls"}, result="ok", status="ok")
    (edit,) = (r["payload"] for r in agents.seen(edits))
    assert edit["hook_event_name"] == "afterFileEdit" and edit["file_path"] == "a.ts"
    assert edit["edits"] == [{"old_string": "1", "new_string": "2"}]
    verdict = hooks.call("pre_verify", session_id="c", final_response="done", attempt=0)
    assert verdict is not None and verdict.message == "Now run the tests."
    assert agents.seen(stop)[0]["payload"]["status"] == "completed"


def test_prompt_gate_fail_closed_and_unknown_permission(agents: Agents, caplog):
    gate = agents.script(agents.project / "gate.py", """\
        stop = "password" in payload["prompt"]
        print(json.dumps({"continue": not stop, "user_message": "Do not paste secrets."}))
        """)  # fmt: skip
    crash = agents.script(agents.project / "crash.py", "raise SystemExit(1)\n")
    odd = agents.script(agents.project / "odd.py", 'print(json.dumps({"permission": "later"}))\n')
    hooks_json(agents, {
        "beforeSubmitPrompt": [{"command": str(gate)}],
        "beforeMCPExecution": [{"command": str(crash), "failClosed": True, "timeout": 5}],
        "beforeShellExecution": [{"command": str(odd), "priority": 1}],
    })  # fmt: skip
    caplog.set_level(logging.WARNING, "hermes_hooks")
    hooks = agents.load(["cursor"])
    prompt = hooks.user_prompt_submit(user_message="my password is x")
    assert (prompt.action, prompt.message) == ("block", "Do not paste secrets.")
    assert hooks.user_prompt_submit(user_message="hello").action is None
    assert hooks.pre_tool_call(tool_name="mcp_db_query", args={"q": 1}).action == "block"
    odd_answer = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert odd_answer.action == "block" and "'later'" in odd_answer.message
    assert (
        "hooks.beforeShellExecution[0] in" in caplog.text
        and "unknown key 'priority'" in caplog.text
    )


def test_a_shell_matcher_is_searched_in_the_command_and_unknown_answer_keys_reported(
    agents: Agents, caplog
):
    script = agents.script(agents.project / "git.py", """\
        record()
        print(json.dumps({"permision": "deny"}))
        """)  # fmt: skip
    hooks_json(agents, {"beforeShellExecution": [{"command": str(script), "matcher": "git"}]})
    caplog.set_level(logging.WARNING, "hermes_hooks")
    hooks = agents.load(["cursor"])
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}).action is None
    assert agents.seen(script) == []
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "git push"}).action is None
    assert len(agents.seen(script)) == 1
    assert (
        "unknown Cursor answer key 'permision' ignored (did you mean 'permission'?)" in caplog.text
    )


def test_updated_input_in_cursors_argument_names_reaches_the_host_in_its_own(agents: Agents):
    script = agents.script(agents.project / "move.py", """\
        record()
        print(json.dumps({"permission": "allow", "updated_input": {"file_path": "safe"}}))
        """)  # fmt: skip
    hooks_json(agents, {"preToolUse": [{"command": str(script), "matcher": "Read"}]})
    decision = agents.load(["cursor"]).pre_tool_call(tool_name="read_file", args={"path": "a"})
    assert agents.seen(script)[0]["payload"]["tool_input"] == {"file_path": "a"}
    assert (decision.action, decision.args) == ("allow", {"path": "safe"})


def test_followup_message_continues_only_where_the_agent_stops(agents: Agents):
    """``followup_message`` keeps the agent going on ``stop``; on a prompt it blocks nothing."""
    script = agents.script(agents.project / "follow.py", """\
        print(json.dumps({"followup_message": "Now run the tests."}))
        """)  # fmt: skip
    hooks_json(agents, {"beforeSubmitPrompt": [{"command": str(script)}]})
    prompt = agents.load(["cursor"]).user_prompt_submit(user_message="hello")
    assert (prompt.action, prompt.message) == (None, None)


def test_continue_false_stops_even_beside_permission_allow(agents: Agents):
    """Cursor's ``continue: false`` stops the agent, whatever ``permission`` says beside it:
    ``{"permission": "allow", "continue": false}`` must not read as an allow (issue 18)."""
    script = agents.script(agents.project / "stop.py", """\
        record()
        print(json.dumps({"permission": "allow", "continue": False,
                          "user_message": "stopping here"}))
        """)  # fmt: skip
    bare = agents.script(agents.project / "bare.py", """\
        print(json.dumps({"permission": "allow", "continue": False}))
        """)  # fmt: skip
    hooks_json(agents, {"beforeShellExecution": [{"command": str(script)}],
                        "preToolUse": [{"command": str(bare), "matcher": "Read"}],
                        "beforeSubmitPrompt": [{"command": str(bare)}]})  # fmt: skip
    hooks = agents.load(["cursor"])
    shell = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert (shell.action, shell.message) == ("block", "stopping here")
    read = hooks.pre_tool_call(tool_name="read_file", args={"path": "a"})
    assert read.action == "block" and "continue" in read.message
    prompt = hooks.call("user_prompt_submit", prompt="hi", session_id="s")
    assert prompt.action == "block"


def test_a_stray_hermes_action_beside_a_deny_is_ignored(agents: Agents):
    """``action`` is no Cursor answer key: reported and ignored, never read as an allow."""
    script = agents.script(agents.project / "deny.py", """\
        print(json.dumps({"permission": "deny", "agent_message": "no", "action": "allow"}))
        """)  # fmt: skip
    hooks_json(agents, {"beforeShellExecution": [{"command": str(script)}]})
    hooks = agents.load(["cursor"])
    denied = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert (denied.action, denied.message) == ("block", "no")
