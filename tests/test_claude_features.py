"""Claude Code handler features through ``hermes_hooks.load()`` with real settings.json files and
real hook scripts: ``if``, the ``args`` exec form, ``async`` / ``asyncRewake``, ``onFailure``,
``type: mcp_tool``, the 10,000-character context cap and ``{``-prefixed invalid JSON."""

from __future__ import annotations

import json
import logging
import stat
from pathlib import Path
from typing import Any

import pytest
from hermes_hooks.builtin_plugins.shell_hooks.matching import Rule, bash_matches, path_matches

import hermes_hooks
from tests.shell_helpers import shell_plugin, write_settings


def _script(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _load(home: Path, hooks: dict[str, Any], **kw: Any) -> Any:
    write_settings(home / "settings.json", hooks)
    return hermes_hooks.load(home, accept_hooks=True, entry_points=False, **kw)


def _group(handler: dict[str, Any], matcher: str = "Bash") -> list[dict[str, Any]]:
    return [{"matcher": matcher, "hooks": [handler]}]


# ---------------------------------------------------------------------- if


def test_if_runs_the_hook_only_for_matching_tool_calls(home: Path, tmp_path: Path) -> None:
    log_file = tmp_path / "ran.log"
    guard = _script(
        tmp_path / "guard.sh",
        f"cat >> {log_file}\necho 'no git here' >&2\nexit 2\n",
    )
    hooks = _load(home, {"PreToolUse": _group({"type": "command", "command": guard,
                                                "if": "Bash(git *)"})})  # fmt: skip
    ls = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls -la"})
    assert ls.action is None and not log_file.exists()  # the process never started
    git = hooks.pre_tool_call(tool_name="terminal", args={"command": "git push --force"})
    assert git.action == "block" and git.message == "no git here"
    compound = hooks.pre_tool_call(tool_name="terminal", args={"command": "cd x && git status"})
    assert compound.action == "block"
    bare = hooks.pre_tool_call(tool_name="terminal", args={"command": "gitk"})
    assert bare.action is None
    assert len(log_file.read_text().splitlines()) == 2


def test_if_on_file_tools_uses_path_globs(home: Path, tmp_path: Path) -> None:
    hook = _script(tmp_path / "ts.sh", "echo 'ts only' >&2\nexit 2\n")
    hooks = _load(home, {"PreToolUse": _group(
        {"type": "command", "command": hook, "if": "Edit(*.ts)"}, matcher="Edit|Write")})  # fmt: skip
    assert hooks.pre_tool_call(tool_name="patch", args={"path": "src/a.ts"}).action == "block"
    assert hooks.pre_tool_call(tool_name="patch", args={"path": "src/a.py"}).action is None
    # the rule names Edit: a Write call does not match it
    assert hooks.pre_tool_call(tool_name="write_file", args={"path": "b.ts"}).action is None


def test_if_on_a_non_tool_event_never_runs_and_is_reported(
    home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    hook = _script(tmp_path / "ctx.sh", "echo context\n")
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = _load(home, {"UserPromptSubmit": [
            {"hooks": [{"type": "command", "command": hook, "if": "Bash(git *)"}]}]})  # fmt: skip
    assert "never runs" in caplog.text and "settings.json" in caplog.text
    assert hooks.user_prompt_submit(user_message="hi").context is None


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        ("Bash", "terminal", {"command": "anything"}, True),
        ("Bash(npm run test:*)", "terminal", {"command": "npm run test -- -x"}, True),
        ("Bash(npm run test:*)", "terminal", {"command": "npm run build"}, False),
        ("Bash(ls *)", "terminal", {"command": "lsof"}, False),
        ("Bash(ls*)", "terminal", {"command": "lsof"}, True),
        ("Read(//etc/**)", "read_file", {"path": "/etc/passwd"}, True),
        ("Read(//etc/**)", "read_file", {"path": "/home/x"}, False),
        ("WebFetch(domain:example.com)", "web_extract", {"url": "https://a.example.com/x"}, True),
        ("WebFetch(domain:example.com)", "web_extract", {"url": "https://example.org/"}, False),
        ("mcp__github", "mcp__github__create_issue", {}, True),
        ("mcp__github__*", "mcp__gitlab__x", {}, False),
    ],
)
def test_permission_rules(rule: str, tool: str, args: dict[str, Any], expected: bool) -> None:
    assert Rule.parse(rule).matches(tool, args, cwd="/w", project="/w") is expected


def test_rule_helpers_read_what_they_cannot_parse_as_a_match() -> None:
    assert bash_matches("git *", "echo 'unterminated")  # unreadable: the hook runs
    assert path_matches("/src/**", "/w/src/a/b.py", "/w", "/w")
    assert not path_matches("/src/**", "/w/lib/a.py", "/w", "/w")


# ---------------------------------------------------------------------- args (exec form)


def test_args_runs_the_program_without_a_shell(home: Path, tmp_path: Path) -> None:
    out = tmp_path / "argv.json"
    prog = tmp_path / "show argv.py"
    prog.write_text(
        "#!/usr/bin/env python3\nimport json, sys\n"
        f"json.dump(sys.argv[1:], open({str(out)!r}, 'w'))\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',"
        " 'permissionDecision': 'deny', 'permissionDecisionReason': 'exec form'}}))\n"
    )
    prog.chmod(0o755)
    hooks = _load(home, {"PreToolUse": _group(
        {"type": "command", "command": str(prog), "args": ["$(echo no)", "a b", "*"]})})  # fmt: skip
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert decision.action == "block" and decision.message == "exec form"
    assert json.loads(out.read_text()) == ["$(echo no)", "a b", "*"]  # no shell touched them
    row = next(r for r in hooks.rows() if r.get("source") == "shell")
    assert row["args"] == ["$(echo no)", "a b", "*"] and row["status"] == "active"
    assert str(prog) in row["scripts"]  # the program is what the approval pins


def test_args_must_be_a_list_of_strings(
    home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = _load(home, {"PreToolUse": _group(
            {"type": "command", "command": "/bin/echo", "args": "one two"})})  # fmt: skip
    assert "'args' must be a list of strings" in caplog.text
    assert not hooks.has_hook("pre_tool_call")


# ---------------------------------------------------------------------- onFailure


@pytest.mark.parametrize("output", ["exit 1", "echo '{not json'", "sleep 5"])
def test_on_failure_block_blocks_when_the_hook_fails(
    home: Path, tmp_path: Path, output: str
) -> None:
    hook = _script(tmp_path / "broken.sh", f"cat >/dev/null\n{output}\n")
    handler = {"type": "command", "command": hook, "onFailure": "block", "timeout": 1}
    hooks = _load(home, {"PreToolUse": _group(handler)})
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert decision.action == "block" and "broken.sh" in (decision.message or "")


def test_on_failure_continue_is_the_default(home: Path, tmp_path: Path) -> None:
    hook = _script(tmp_path / "broken.sh", "exit 1\n")
    hooks = _load(home, {"PreToolUse": _group({"type": "command", "command": hook,
                                                "onFailure": "continue"})})  # fmt: skip
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}).action is None


# ---------------------------------------------------------------------- { invalid JSON


def test_brace_prefixed_invalid_json_fails_on_a_decision_event(
    home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    hook = _script(tmp_path / "half.sh", "echo '{\"hookSpecificOutput\": {'\n")
    hooks = _load(home, {"PreToolUse": [{"hooks": [{"type": "command", "command": hook}]}]})
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert decision.action is None and decision.context is None
    assert "starts with '{' but is not a JSON object" in caplog.text
    assert hooks.failures[(hook, "pre_tool_call")] == 1


def test_brace_prefixed_invalid_json_on_a_context_event_is_text_and_reported(
    home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Claude Code 2.1.330 gives it to the model as text (tests/oracle: prompt-brace-text-is-context)
    hook = _script(tmp_path / "half.sh", "echo '{\"hookSpecificOutput\": {'\n")
    hooks = _load(home, {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": hook}]}]})
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        decision = hooks.user_prompt_submit(user_message="hi", session_id="s")
    assert decision.context == '{"hookSpecificOutput": {'
    assert "read as plain text, as Claude Code does: fix the JSON" in caplog.text


def test_plain_text_still_becomes_context(home: Path, tmp_path: Path) -> None:
    hook = _script(tmp_path / "plain.sh", "echo 'branch: main'\n")
    hooks = _load(home, {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": hook}]}]})
    assert hooks.user_prompt_submit(user_message="hi").context == "branch: main"


# ---------------------------------------------------------------------- context cap


def test_context_over_10000_characters_is_saved_to_a_file(home: Path, tmp_path: Path) -> None:
    big = "x" * 12_000 + "END"
    hook = _script(
        tmp_path / "big.sh",
        "python3 -c \"import json; print(json.dumps({'hookSpecificOutput': {'hookEventName': "
        "'UserPromptSubmit', 'additionalContext': 'x' * 12000 + 'END'}}))\"\n",
    )
    plain = _script(tmp_path / "plain.sh", "python3 -c \"print('y' * 10001)\"\n")
    hooks = _load(home, {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": hook}, {"type": "command", "command": plain}]}]})  # fmt: skip
    context = hooks.user_prompt_submit(user_message="hi").context
    parts = context.split("\n\n[hook output cut")
    assert len(parts) == 3  # both texts were cut
    saved = sorted((home / "hook-output").glob("context-*.txt"))
    assert len(saved) == 2
    assert {p.read_text() for p in saved} == {big, "y" * 10001}
    for path in saved:
        assert str(path) in context
    assert all(len(chunk) < 10_000 for chunk in context.split("[hook output cut"))


def test_context_at_the_limit_is_kept_whole(home: Path, tmp_path: Path) -> None:
    hook = _script(tmp_path / "exact.sh", "python3 -c \"print('z' * 10000)\"\n")
    hooks = _load(home, {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": hook}]}]})
    assert hooks.user_prompt_submit(user_message="hi").context == "z" * 10000
    assert not (home / "hook-output").exists()


# ---------------------------------------------------------------------- async / asyncRewake


class _Host:
    def __init__(self) -> None:
        self.injected: list[tuple[str, str]] = []

    def inject_message(self, content: str, role: str = "user") -> bool:
        self.injected.append((content, role))
        return True


def test_async_rewake_exit_2_wakes_the_model_through_inject_message(
    home: Path, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    hook = _script(
        tmp_path / "tests.sh",
        f"cat >/dev/null\nwhile [ ! -e {gate} ]; do sleep 0.05; done\n"
        "echo 'tests failed: 3 errors in test_x.py' >&2\nexit 2\n",
    )
    hooks = _load(home, {"PostToolUse": _group(
        {"type": "command", "command": hook, "asyncRewake": True, "timeout": 30},
        matcher="Edit|Write")})  # fmt: skip
    host = _Host()
    hooks.set_host(host)
    # the firing does not wait for the hook (it waits on the gate): no feedback now
    feedback = hooks.post_tool_call(tool_name="write_file", args={"path": "a"}, result="ok",
                                    status="ok", session_id="s1")  # fmt: skip
    assert feedback is None and host.injected == []
    gate.touch()
    hooks.close()  # waits for background hooks
    assert len(host.injected) == 1
    message, role = host.injected[0]
    assert role == "user" and "tests failed: 3 errors in test_x.py" in message
    assert hooks.take_wakeups() == []


def test_async_hook_without_a_host_keeps_its_message_for_the_host(
    home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    rewake = _script(tmp_path / "rewake.sh", "cat >/dev/null\necho 'look again' >&2\nexit 2\n")
    context = _script(
        tmp_path / "ctx.sh",
        'cat >/dev/null\necho \'{"hookSpecificOutput": {"hookEventName": "PostToolUse", '
        '"additionalContext": "lint: 2 warnings"}}\'\n',
    )
    quiet = _script(tmp_path / "quiet.sh", "cat >/dev/null\nexit 2\n")  # async only: no wake
    hooks = _load(home, {"PostToolUse": _group({"type": "command", "command": rewake,
        "asyncRewake": True}) + _group({"type": "command", "command": context, "async": True})
        + _group({"type": "command", "command": quiet, "async": True})})  # fmt: skip
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        assert hooks.post_tool_call(tool_name="terminal", result="ok", status="ok",
                                    session_id="s2") is None  # fmt: skip
        hooks.close()
    assert "no inject_message" in caplog.text
    assert hooks.take_wakeups("other") == []
    wakes = {w.kind: w for w in hooks.take_wakeups("s2")}
    assert set(wakes) == {"rewake", "context"}
    assert "look again" in wakes["rewake"].message
    assert wakes["context"].text == "lint: 2 warnings"
    assert hooks.take_wakeups("s2") == []


def test_async_flags_are_listed(home: Path, tmp_path: Path) -> None:
    hook = _script(tmp_path / "bg.sh", "exit 0\n")
    hooks = _load(home, {"Stop": [{"hooks": [{"type": "command", "command": hook,
                                              "async": True}]}]})  # fmt: skip
    row = next(r for r in hooks.rows() if r.get("source") == "shell")
    assert row["async"] is True and row["async_rewake"] is False


# ---------------------------------------------------------------------- mcp_tool


class _McpHost:
    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.calls: list[tuple[str, str, dict[str, Any]]] = []

    def call_mcp_tool(self, server: str, tool: str, arguments: dict[str, Any]) -> Any:
        self.calls.append((server, tool, arguments))
        return self.answer


_MCP = {"type": "mcp_tool", "server": "policy", "tool": "check_command",
        "input": {"command": "${tool_input.command}", "note": "tool ${tool_name}"}}  # fmt: skip


def test_mcp_tool_hook_calls_the_host_and_reads_the_answer(home: Path) -> None:
    deny = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": "policy says no"}}  # fmt: skip
    host = _McpHost({"content": [{"type": "text", "text": json.dumps(deny)}]})
    hooks = _load(home, {"PreToolUse": _group(_MCP)}, host=host)
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf /"})
    assert decision.action == "block" and decision.message == "policy says no"
    assert host.calls == [("policy", "check_command", {"command": "rm -rf /", "note": "tool Bash"})]
    row = next(r for r in hooks.rows() if r.get("source") == "shell")
    assert row["type"] == "mcp_tool" and row["status"] == "active"


def test_mcp_tool_error_result_is_a_failed_run(home: Path) -> None:
    host = _McpHost({"isError": True, "content": [{"type": "text", "text": "server down"}]})
    hooks = _load(home, {"PreToolUse": _group(_MCP)}, host=host)
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}).action is None
    assert hooks.failures[("mcp_tool policy/check_command", "pre_tool_call")] == 1


def test_mcp_tool_without_a_host_is_listed_as_failed_and_blocks_as_a_guard(
    home: Path, tmp_path: Path
) -> None:
    ctx = dict(_MCP, input={})
    hooks = _load(home, {
        "PreToolUse": _group(_MCP),
        "UserPromptSubmit": [{"hooks": [ctx]}],
    })  # fmt: skip
    rows = [r for r in hooks.rows() if r.get("source") == "shell"]
    assert {r["status"] for r in rows} == {"failed"}
    assert all("no MCP client" in r["error"] for r in rows)
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert decision.action == "block" and "no MCP client" in (decision.message or "")
    assert hooks.user_prompt_submit(user_message="hi").action == "block"


def test_mcp_tool_needs_server_and_tool(home: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = _load(home, {"PreToolUse": _group({"type": "mcp_tool", "tool": "x"})})
    assert "needs 'server'" in caplog.text
    assert shell_plugin(hooks) is None


def test_unknown_handler_type_is_reported(home: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        _load(home, {"PreToolUse": _group({"type": "agent", "prompt": "x"})})
    assert "hook type 'agent' is not supported" in caplog.text


def test_cli_test_and_doctor_run_background_hooks_in_the_foreground(
    home: Path, tmp_path: Path
) -> None:
    from click.testing import CliRunner

    from hermes_hooks.cli import hoist_global_options, hooks_group

    hook = _script(tmp_path / "bg.sh", "cat >/dev/null\necho 'rewake me' >&2\nexit 2\n")
    write_settings(home / "settings.json", {"PreToolUse": _group(
        {"type": "command", "command": hook, "asyncRewake": True})})  # fmt: skip
    run = CliRunner().invoke(hooks_group, hoist_global_options(
        ["--home", str(home), "--accept-hooks", "test", "PreToolUse", "--json"]))  # fmt: skip
    data = json.loads(run.output)
    assert data["hooks"][0]["exit_code"] == 2 and data["hooks"][0]["answer"] is None
    assert data["result"].get("action") is None  # its answer decides nothing
    run = CliRunner().invoke(hooks_group, hoist_global_options(
        ["--home", str(home), "--accept-hooks", "doctor"]))  # fmt: skip
    assert "Traceback" not in run.output and "bg.sh" in run.output


def test_a_required_guard_is_never_sent_to_the_background(
    home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    hook = _script(tmp_path / "guard.sh", "cat >/dev/null\necho no >&2\nexit 2\n")
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = _load(home, {"PreToolUse": _group(
            {"type": "command", "command": hook, "async": True, "required": True})})  # fmt: skip
    assert "runs in the foreground" in caplog.text
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}).action == "block"


def test_mcp_tool_call_past_its_timeout_is_a_timed_out_run(home: Path) -> None:
    import threading

    release = threading.Event()

    class Slow(_McpHost):
        def call_mcp_tool(self, server: str, tool: str, arguments: dict[str, Any]) -> Any:
            release.wait(30)
            return "{}"

    handler = dict(_MCP, timeout=0.2, onFailure="block")
    hooks = _load(home, {"PreToolUse": _group(handler)}, host=Slow(None))
    try:
        decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    finally:
        release.set()
    assert decision.action == "block" and "timed out" in (decision.message or "")


# ---------------------------------------------------------------------- PermissionRequest updatedInput


def test_permission_request_allow_with_updated_input_rewrites_the_call(
    home: Path, tmp_path: Path
) -> None:
    answer = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {
        "behavior": "allow", "updatedInput": {"file_path": "/tmp/safe.txt", "content": "x"}}}}  # fmt: skip
    hook = _script(tmp_path / "perm.sh", f"cat >/dev/null; echo '{json.dumps(answer)}'\n")
    hooks = _load(
        home, {"PermissionRequest": _group({"type": "command", "command": hook}, "Write")}
    )
    got = hooks.permission_request(tool_name="write_file", args={"path": "/etc/x", "content": "x"})
    assert got.action == "allow"
    assert got.args == {"path": "/tmp/safe.txt", "content": "x"}  # read back in the host's names


def test_permission_answer_args_from_python_and_deny_keeps_none() -> None:
    from hermes_hooks.answers import PermissionAnswers
    from hermes_hooks.answers.results import InvalidAnswer, PermissionAnswer

    read = PermissionAnswers().normalise
    assert read({"action": "allow", "args": {"command": "ls"}}, "p").args == {"command": "ls"}
    assert read({"action": "deny", "args": {"command": "ls"}}, "p").args is None
    with pytest.raises(InvalidAnswer):
        PermissionAnswer("allow", args="ls")  # type: ignore[arg-type]  # the check under test


@pytest.mark.parametrize(
    "command",
    [
        "rm\t-rf x",
        "(rm -rf x)",
        "echo $(rm -rf x)",
        "{ rm -rf x; }",
        "if true; then rm -rf x; fi",
        "! rm -rf x",
        "FOO=1 rm -rf x",
        "timeout 5 rm -rf x",
        "sudo /bin/rm -rf x",
        "bash -c 'rm -rf x'",
        "r''m -rf x",
    ],
)
def test_an_if_rule_matches_each_simple_command_the_line_runs(command: str) -> None:
    from hermes_hooks.builtin_plugins.shell_hooks.matching import Rule

    rule = Rule.parse("Bash(rm *)")
    assert rule.matches("terminal", {"command": command}, cwd="/", project="/")
    assert not rule.matches("terminal", {"command": "echo 'rm -rf x'"}, cwd="/", project="/")


# ---------------------------------------------------------------------- what Claude Code reads
# (found by the generated oracle corpus, tests/oracle/claude_generated.py, on Claude Code 2.1.330)


@pytest.mark.parametrize(
    ("matcher", "fires"),
    [
        ("Write, Bash", True),  # a list: split on "," as on "|", each name trimmed
        ("Bash,Write", True),
        (" Bash", True),
        ("Write | Bash", True),
        ("Write Bash", False),  # one name with a space in it
        ("Bash-Write", False),
        ("Bas", False),  # names match whole
        ("(?<n>Bash)", True),  # a JavaScript named group
        ("(?i)bash", False),  # Python-only syntax: JavaScript refuses it, so it matches nothing
        ("(?P<n>Bash)", False),
        ("\\ABash", False),  # JavaScript reads \A as the letter A
        ("Ba[", False),
        ("^Ba", True),
    ],
)
def test_a_matcher_is_read_in_claude_code_grammar(
    home: Path, tmp_path: Path, matcher: str, fires: bool
) -> None:
    guard = _script(tmp_path / "guard.sh", "echo 'no shell' >&2\nexit 2\n")
    hooks = _load(home, {"PreToolUse": _group({"type": "command", "command": guard}, matcher)})
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert (decision.action == "block") is fires, decision


def test_a_stray_hermes_action_allow_does_not_turn_a_deny_into_an_allow(
    home: Path, tmp_path: Path
) -> None:
    answer = {"action": "allow", "hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "deny",
        "permissionDecisionReason": "no rm"}}  # fmt: skip
    guard = _script(tmp_path / "guard.sh", f"cat >/dev/null\necho '{json.dumps(answer)}'\n")
    hooks = _load(home, {"PreToolUse": _group({"type": "command", "command": guard})})
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf x"})
    assert decision.action == "block" and decision.message == "no rm"
    legacy = {"action": "allow", "decision": "block", "reason": "legacy no"}
    _script(tmp_path / "guard.sh", f"cat >/dev/null\necho '{json.dumps(legacy)}'\n")
    hooks = _load(home, {"PreToolUse": _group({"type": "command", "command": guard})})
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf x"})
    assert decision.action == "block" and decision.message == "legacy no"


def _answer(decision: str, reason: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                              "permissionDecision": decision,
                                              "permissionDecisionReason": reason}})  # fmt: skip


@pytest.mark.parametrize("code", [1, 3, 127])
def test_stdout_json_is_read_on_a_failing_exit_code(home: Path, tmp_path: Path, code: int) -> None:
    guard = _script(tmp_path / "guard.sh",
                    f"cat >/dev/null\necho '{_answer('deny', 'denied anyway')}'\n"
                    f"echo oops >&2\nexit {code}\n")  # fmt: skip
    hooks = _load(home, {"PreToolUse": _group({"type": "command", "command": guard})})
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf x"})
    assert decision.action == "block" and decision.message == "denied anyway"
    _script(tmp_path / "guard.sh",
            f"cat >/dev/null\necho '{_answer('allow', 'fine')}'\nexit {code}\n")  # fmt: skip
    hooks = _load(home, {"PreToolUse": _group({"type": "command", "command": guard})})
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}).action == "allow"


def test_a_fail_closed_hook_that_exits_1_blocks_even_when_it_printed_allow(
    home: Path, tmp_path: Path
) -> None:
    guard = _script(tmp_path / "guard.sh",
                    f"cat >/dev/null\necho '{_answer('allow', 'fine')}'\nexit 1\n")  # fmt: skip
    hooks = _load(home, {"PreToolUse": _group(
        {"type": "command", "command": guard, "onFailure": "block"})})  # fmt: skip
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}).action == "block"


def test_exit_2_reads_stdout_json_too(home: Path, tmp_path: Path) -> None:
    def run(stdout: str) -> Any:
        guard = _script(tmp_path / "guard.sh",
                        f"cat >/dev/null\necho '{stdout}'\necho 'from stderr' >&2\nexit 2\n")  # fmt: skip
        hooks = _load(home, {"PreToolUse": _group({"type": "command", "command": guard})})
        return hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})

    deny = run(_answer("deny", "from json"))  # a deny's reason is the message
    assert deny.action == "block" and deny.message == "from json"
    allow = run(_answer("allow", "fine"))  # exit 2 outranks an allow
    assert allow.action == "block" and allow.message == "from stderr"
    context = run(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                                     "additionalContext": "note this"}}))  # fmt: skip
    assert context.action == "block" and context.message == "from stderr"
    assert context.context == "note this"


def _permission(behavior: str, **more: Any) -> str:
    answer = {"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                     "decision": {"behavior": behavior, "message": "not this"}}}  # fmt: skip
    return json.dumps({**more, **answer})


def test_a_stray_action_allow_does_not_lift_a_permission_request_deny(
    home: Path, tmp_path: Path
) -> None:
    hook = _script(tmp_path / "ask.sh",
                   f"cat >/dev/null\necho '{_permission('deny', action='allow')}'\n")  # fmt: skip
    hooks = _load(home, {"PermissionRequest": _group({"type": "command", "command": hook})})
    answer = hooks.permission_request(tool_name="terminal", args={"command": "rm -rf x"},
                                      command="rm -rf x")  # fmt: skip
    assert answer.action == "deny" and answer.message == "not this"


def test_a_permission_request_hook_exiting_2_is_read_by_its_stdout_first(
    home: Path, tmp_path: Path
) -> None:
    def ask(stdout: str) -> Any:
        hook = _script(tmp_path / "ask.sh",
                       f"cat >/dev/null\necho '{stdout}'\necho 'from stderr' >&2\nexit 2\n")  # fmt: skip
        hooks = _load(home, {"PermissionRequest": _group({"type": "command", "command": hook})})
        return hooks.permission_request(tool_name="terminal", args={"command": "ls"},
                                        command="ls")  # fmt: skip

    assert ask(_permission("allow")).action == "allow"  # as Claude Code 2.1.330 does
    deny = ask(_permission("deny"))
    assert deny.action == "deny" and deny.message == "not this"
    plain = ask("no json")
    assert plain.action == "deny" and plain.message == "from stderr"
