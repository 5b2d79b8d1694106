"""Gemini CLI hook configurations, as its documentation writes them, run unchanged through
``hermes_hooks.load()``: found in ``.gemini/settings.json``, fed the payload Gemini CLI sends
(its field names, its tool names), their answers read as Gemini CLI reads them."""

from __future__ import annotations

import logging
from datetime import datetime

import pytest
from dialect_helpers import Agents, agents_fixture, group, rows_of  # noqa: F401

SECRET_GUARD = """\
tool_input = payload["tool_input"]
record()
text = tool_input.get("content") or tool_input.get("new_string") or ""
if "api_key" in text.lower():
    print(json.dumps({"decision": "deny", "reason": "Security Policy: the content holds a secret",
                      "systemMessage": "secret blocked"}))
else:
    print(json.dumps({"decision": "allow"}))
"""


def settings(agents: Agents, hooks: dict, **extra) -> None:
    data = {"hooksConfig": {"enabled": True}, "hooks": hooks, **extra}
    agents.write_json(agents.project / ".gemini" / "settings.json", data)


def test_before_tool_guard_blocks_with_the_reason_and_sees_geminis_payload(agents: Agents):
    guard = agents.script(agents.project / ".gemini" / "hooks" / "secrets.py", SECRET_GUARD)
    settings(agents, {"BeforeTool": [group("$GEMINI_PROJECT_DIR/.gemini/hooks/secrets.py",
                                           "write_file|replace", name="secret-scanner",
                                           timeout=5000)]})  # fmt: skip
    hooks = agents.load(["gemini"])
    decision = hooks.pre_tool_call(
        tool_name="write_file", args={"path": "app.py", "content": "API_KEY = 1"}, session_id="s1"
    )
    assert decision.action == "block"
    assert decision.message == "Security Policy: the content holds a secret"
    assert decision.source == "secret-scanner"
    (run,) = agents.seen(guard)
    payload = run["payload"]
    assert set(payload) == {"session_id", "transcript_path", "cwd", "hook_event_name",
                            "timestamp", "tool_name", "tool_input"}  # fmt: skip
    assert payload["hook_event_name"] == "BeforeTool"
    assert payload["tool_name"] == "write_file"
    assert payload["tool_input"] == {"file_path": "app.py", "content": "API_KEY = 1"}
    assert payload["session_id"] == "s1" and payload["cwd"] == str(agents.project)
    datetime.fromisoformat(payload["timestamp"].replace("Z", "+00:00"))
    assert run["env"]["GEMINI_PROJECT_DIR"] == str(agents.project)
    # "allow" is no opinion; the matcher keeps it off other tools
    assert (
        hooks.pre_tool_call(tool_name="patch", args={"path": "a", "new_string": "x"}).action is None
    )
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}).action is None
    assert len(agents.seen(guard)) == 2
    (row,) = rows_of(hooks)
    assert row["protocol"] == "gemini" and row["configured_event"] == "BeforeTool"
    assert row["origin"] == str(agents.project / ".gemini" / "settings.json")
    assert row["timeout"] == 5.0  # milliseconds in Gemini CLI


def test_exit_code_2_blocks_with_stderr_and_rewrites_merge(agents: Agents):
    agents.script(agents.project / "block.py", 'sys.stderr.write("no force push"); sys.exit(2)\n')
    agents.script(agents.project / "rewrite.py", """\
        record()
        print(json.dumps({"hookSpecificOutput": {"tool_input": {"command": "git status -s"},
                                                 "additionalContext": "ran with -s"}}))
        """)  # fmt: skip
    settings(agents, {"BeforeTool": [group("./block.py", "run_shell_command"),
                                     group("./rewrite.py", "run_shell_command")]})  # fmt: skip
    hooks = agents.load(["gemini"])
    blocked = hooks.pre_tool_call(tool_name="terminal", args={"command": "git push -f"})
    assert (blocked.action, blocked.message) == ("block", "no force push")


def test_tool_input_rewrite_and_no_context_on_before_tool(agents: Agents, caplog):
    """Gemini CLI 0.61 reads ``tool_input`` from a BeforeTool answer but gives its
    ``additionalContext`` to nobody (tests/oracle case before-additional-context): neither do we,
    and we say so."""
    script = agents.script(agents.project / "rewrite.py", """\
        record()
        print(json.dumps({"hookSpecificOutput": {"tool_input": {"command": "git status -s"},
                                                 "additionalContext": "ran with -s"}}))
        """)  # fmt: skip
    settings(agents, {"BeforeTool": [group(str(script), "run_shell_command")]})
    hooks = agents.load(["gemini"])
    caplog.set_level(logging.WARNING, "hermes_hooks")
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "git status", "x": 1})
    assert decision.action is None
    assert decision.args == {"command": "git status -s", "x": 1}
    assert decision.context is None
    assert "Gemini CLI ignores hookSpecificOutput.additionalContext on BeforeTool" in caplog.text
    assert agents.seen(script)[0]["payload"]["tool_name"] == "run_shell_command"


def test_before_agent_and_session_start_add_context_after_agent_retries(agents: Agents):
    ctx = agents.script(agents.project / "ctx.py", """\
        record()
        event = payload["hook_event_name"]
        print(json.dumps({"hookSpecificOutput": {"hookEventName": event,
                                                 "additionalContext": "branch: main"}}))
        """)  # fmt: skip
    retry = agents.script(agents.project / "retry.py", """\
        record()
        if "TODO" in payload["prompt_response"] and not payload["stop_hook_active"]:
            print(json.dumps({"decision": "deny", "reason": "Finish the TODOs first."}))
        else:
            print("{}")
        """)  # fmt: skip
    settings(agents, {"BeforeAgent": [group(str(ctx))], "SessionStart": [group(str(ctx), "startup")],
                      "AfterAgent": [group(str(retry))]})  # fmt: skip
    hooks = agents.load(["gemini"])
    prompt = hooks.user_prompt_submit(user_message="fix it", session_id="s1")
    assert prompt.action is None and prompt.context == "branch: main"
    assert hooks.on_session_start(session_id="s1", source="startup") == "branch: main"
    assert hooks.on_session_start(session_id="s1", source="resume") is None  # matcher
    verdict = hooks.call("pre_verify", session_id="s1", final_response="done, TODO tests")
    assert verdict is not None and verdict.message == "Finish the TODOs first."
    first, second = (r["payload"] for r in agents.seen(ctx))
    assert first["hook_event_name"] == "BeforeAgent" and first["prompt"] == "fix it"
    assert second["hook_event_name"] == "SessionStart" and second["source"] == "startup"
    (after,) = (r["payload"] for r in agents.seen(retry))
    assert after["hook_event_name"] == "AfterAgent"
    assert after["prompt_response"] == "done, TODO tests" and after["stop_hook_active"] is False


def test_sequential_group_runs_in_order_each_seeing_the_last_rewrite(agents: Agents):
    first = agents.script(agents.project / "first.py", """\
        record()
        print(json.dumps({"hookSpecificOutput": {"tool_input": {"command": "ls -a"}}}))
        """)  # fmt: skip
    second = agents.script(agents.project / "second.py", """\
        record()
        print(json.dumps({"decision": "deny", "reason": "saw " + payload["tool_input"]["command"]}))
        """)  # fmt: skip
    third = agents.script(agents.project / "third.py", "record()\nprint('{}')\n")
    settings(agents, {"BeforeTool": [{"matcher": "run_shell_command", "sequential": True, "hooks": [
        {"type": "command", "command": str(first)}, {"type": "command", "command": str(second)},
        {"type": "command", "command": str(third)}]}]})  # fmt: skip
    hooks = agents.load(["gemini"])
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert (decision.action, decision.message) == ("block", "saw ls -a")
    assert agents.seen(third) == []  # a block ends a sequential group
    assert len(agents.seen(first)) == 1


def test_unknown_decision_blocks_and_everything_unknown_is_reported(agents: Agents, caplog):
    odd = agents.script(agents.project / "odd.py", 'print(json.dumps({"decision": "maybe"}))\n')
    settings(agents, {
        "BeforeTool": [{"matcher": "run_shell_command", "colour": "red", "hooks": [
            {"type": "command", "command": str(odd), "retries": 2}]}],
        "BeforeToolSelection": [group("true")],
        "BeforeTol": [group("true")],
    })  # fmt: skip
    caplog.set_level(logging.WARNING, "hermes_hooks")
    hooks = agents.load(["gemini"])
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert decision.action == "block" and "'maybe'" in decision.message
    text = caplog.text
    where = str(agents.project / ".gemini" / "settings.json")
    assert f"hooks.BeforeTool[0] in {where}: unknown key 'colour'" in text
    assert f"hooks.BeforeTool[0].hooks[0] in {where}: unknown key 'retries'" in text
    assert "'BeforeToolSelection' cannot fire here" in text
    assert "unknown Gemini CLI event 'BeforeTol' (did you mean 'BeforeTool'?)" in text


def test_disabled_hooks_and_switched_off_files_are_not_loaded(agents: Agents):
    settings(agents, {"BeforeTool": [group("true", name="off")]},
             hooksConfig={"enabled": True, "disabled": ["off"]})  # fmt: skip
    assert rows_of(agents.load(["gemini"])) == []
    settings(agents, {"BeforeTool": [group("true")]}, hooksConfig={"enabled": False})
    assert rows_of(agents.load(["gemini"])) == []


def test_user_settings_are_read_and_sources_are_opt_in(agents: Agents):
    agents.write_json(agents.user / ".gemini" / "settings.json",
                      {"hooks": {"SessionEnd": [group("true", "exit")]}})  # fmt: skip
    assert rows_of(agents.load([])) == []
    (row,) = rows_of(agents.load(["gemini"]))
    assert row["event"] == "on_session_end" and row["matcher"] == "exit"


@pytest.mark.parametrize("source", ["gemni", 3])
def test_unknown_sources_are_reported(agents: Agents, caplog, source):
    caplog.set_level(logging.WARNING, "hermes_hooks")
    agents.load([source])
    assert f"unknown source {source!r}" in caplog.text


def test_a_rewrite_in_geminis_argument_names_reaches_the_host_in_its_own(agents: Agents):
    """``write_file`` is ``write_file`` with ``file_path`` in Gemini CLI and ``path`` here: the
    ``tool_input`` a hook sends back is renamed back before the host gets it."""
    script = agents.script(agents.project / "move.py", """\
        record()
        args = dict(payload["tool_input"], file_path="safe.py")
        print(json.dumps({"hookSpecificOutput": {"tool_input": args}}))
        """)  # fmt: skip
    settings(agents, {"BeforeTool": [group(str(script), "write_file")]})
    decision = agents.load(["gemini"]).pre_tool_call(
        tool_name="write_file", args={"path": "a.py", "content": "x"}
    )
    assert agents.seen(script)[0]["payload"]["tool_input"] == {"file_path": "a.py", "content": "x"}
    assert decision.args == {"path": "safe.py", "content": "x"}


def test_ask_asks_and_what_cannot_be_carried_over_is_reported(agents: Agents, caplog):
    script = agents.script(agents.project / "ask.py", """\
        print(json.dumps({"decision": "ask", "reason": "push to main?",
                          "hookSpecificOutput": {"clearContext": True}}))
        """)  # fmt: skip
    settings(agents, {"BeforeTool": [group(str(script), "run_shell_command")]})
    caplog.set_level(logging.WARNING, "hermes_hooks")
    decision = agents.load(["gemini"]).pre_tool_call(
        tool_name="terminal", args={"command": "git push"}
    )
    assert (decision.action, decision.message) == ("approve", "push to main?")
    assert (
        "hookSpecificOutput.clearContext (clearing the conversation) is not carried" in caplog.text
    )


def _sh(agents: Agents, name: str, body: str) -> str:
    path = agents.project / name
    path.write_text("#!/bin/sh\ncat > /dev/null\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize(
    ("body", "action", "message"),
    [
        # stderr is the answer when stdout is empty, whatever the exit code
        ("""echo '{"decision": "deny", "reason": "from stderr"}' >&2""", "block", "from stderr"),
        # JSON is read on any exit code: a deny on exit 1 blocks ...
        (
            """echo '{"decision": "deny", "reason": "exit 1 deny"}'; exit 1""",
            "block",
            "exit 1 deny",
        ),
        # ... and an allow on exit 2 allows (stdout before stderr)
        ("""echo '{"decision": "allow"}'; echo nope >&2; exit 2""", None, None),
        # plain text on any exit but 0 and 1 is a deny with the text as its reason
        ("echo not json; exit 3", "block", "not json"),
        ("echo from stderr >&2; exit 3", "block", "from stderr"),
        ("exec /nonexistent/hook-program", "block", "/nonexistent/hook-program"),
        ("echo stdout wins; echo stderr loses >&2; exit 2", "block", "stdout wins"),
        # a JSON string holding JSON is read again
        ("""echo '"{\\"decision\\": \\"deny\\", \\"reason\\": \\"twice\\"}"'""", "block", "twice"),
        # plain text on exit 0 or 1 is no decision
        ("echo just words; exit 1", None, None),
        ("echo just words", None, None),
    ],
)
def test_streams_and_exit_codes_are_read_as_gemini_reads_them(
    agents: Agents, body, action, message
):
    """Gemini CLI 0.61 (hookRunner.ts; oracle cases before-x*): the answer is stdout, else
    stderr, JSON whatever the exit code; other text on an exit but 0/1 denies with the text."""
    settings(agents, {"BeforeTool": [group(_sh(agents, "h.sh", body), "run_shell_command")]})
    hooks = agents.load(["gemini"])
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert decision.action == action
    if message is not None:
        assert message in decision.message


@pytest.mark.parametrize(
    ("matcher", "fires"),
    [("run_shell_command", True), ("shell", True), ("run.shell.command", True), ("^run_", True),
     ("write_file|run_shell_command", True), (" run_shell_command ", True), ("(run", False),
     ("^shell", False), ("Run_shell_command", False), ("run_shell_command, write_file", False),
     ("write_file", False)],
)  # fmt: skip
def test_a_tool_matcher_is_a_regex_searched_in_the_tool_name(agents: Agents, matcher, fires):
    """Gemini CLI 0.61 (hookPlanner.ts; oracle cases matcher-*): ``new RegExp(matcher)`` tested
    against the tool name, an invalid one compared exactly; ``shell`` selects the shell tool."""
    body = "echo blocked >&2; exit 2"
    settings(agents, {"BeforeTool": [group(_sh(agents, "m.sh", body), matcher)]})
    hooks = agents.load(["gemini"])
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert (decision.action == "block") is fires


def test_a_session_matcher_must_equal_the_source(agents: Agents):
    """Gemini CLI compares a SessionStart matcher with the source exactly: no list, no regex."""
    context = """echo '{"hookSpecificOutput": {"additionalContext": "CTX-%s"}}'"""
    settings(agents, {"SessionStart": [group(_sh(agents, "a.sh", context % "exact"), "startup"),
                                       group(_sh(agents, "b.sh", context % "list"), "startup|resume"),
                                       group(_sh(agents, "c.sh", context % "regex"), "start.*")]})  # fmt: skip
    hooks = agents.load(["gemini"])
    said = hooks.call("on_session_start", session_id="s", source="startup")
    assert "CTX-exact" in str(said) and "CTX-list" not in str(said) and "CTX-regex" not in str(said)


def test_a_command_runs_with_bash_as_in_gemini_cli(agents: Agents):
    """Gemini CLI runs a hook's command with ``bash -c`` (hookRunner.ts; oracle case
    before-bash-syntax): a guard written with bash syntax must work here too (under ``sh`` it
    failed, and its deny was lost)."""
    guard = _sh(agents, "g.sh", """echo '{"decision": "deny", "reason": "bash ran"}'""")
    settings(agents, {"BeforeTool": [group(f"[[ -n x ]] && {guard}", "run_shell_command")]})
    hooks = agents.load(["gemini"])
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert (decision.action, decision.message) == ("block", "bash ran")
