"""Shell hooks: the payloads both protocols send, and what every answer means."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hermes_hooks.builtin_plugins.shell_hooks import protocol as wire
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shell_helpers import load, script, write_settings

import hermes_hooks
from hermes_hooks import catalogue
from hermes_hooks.answers import results
from hermes_hooks.answers.results import ToolDecision

ECHO = script("echo_payload.sh")
ANSWER = script("answer.sh")


def _capture(
    home: Path, tmp_path: Path, event: str, kwargs: dict[str, Any], **entry: Any
) -> tuple[bytes, dict[str, str]]:
    out = tmp_path / "payload"
    hooks = load(home, {event: [{"command": ECHO, "env": {"HOOK_OUT": str(out)}, **entry}]})
    hooks.call(event, **kwargs)
    env = dict(line.split("=", 1) for line in (tmp_path / "payload.env").read_text().splitlines())
    return out.read_bytes(), env


def test_hermes_payload_has_exactly_the_six_keys(home: Path, tmp_path: Path) -> None:
    raw, env = _capture(
        home, tmp_path, "pre_tool_call",
        {"tool_name": "terminal", "args": {"command": "ls"}, "session_id": "s1", "task_id": "t", "tool_call_id": "c1"},
    )  # fmt: skip
    assert raw.endswith(b"\n") and raw.count(b"\n") == 1 and b", " not in raw
    payload = json.loads(raw)
    assert list(payload) == [
        "hook_event_name",
        "tool_name",
        "tool_input",
        "session_id",
        "cwd",
        "extra",
    ]
    assert tuple(payload) == wire.HERMES_WIRE_KEYS  # what payloads.py reads hand-written ones by
    assert payload["tool_input"] == {"command": "ls"}
    assert payload["session_id"] == "s1"
    assert payload["extra"] == {"task_id": "t", "tool_call_id": "c1"}
    assert env["EVENT"] == "pre_tool_call" and env["SESSION"] == "s1" and env["HOME_"] == str(home)


def test_hermes_payload_stringifies_non_json_values_and_keeps_parent_session(
    home: Path, tmp_path: Path
) -> None:
    class Thing:
        def __str__(self) -> str:
            return "a thing"

    raw, _ = _capture(
        home, tmp_path, "subagent_stop",
        {"parent_session_id": "p", "session_id": "s", "child_summary": Thing(), "duration_ms": float("nan")},
    )  # fmt: skip
    payload = json.loads(raw)
    assert payload["session_id"] == "s"
    assert payload["extra"]["parent_session_id"] == "p"
    assert payload["extra"]["child_summary"] == "a thing"
    assert payload["extra"]["duration_ms"] == "nan"


def test_hermes_payload_uses_parent_session_when_there_is_no_session(
    home: Path, tmp_path: Path
) -> None:
    raw, _ = _capture(
        home, tmp_path, "subagent_stop", {"parent_session_id": "p", "child_status": "ok"}
    )
    payload = json.loads(raw)
    assert payload["session_id"] == "p" and "parent_session_id" not in payload["extra"]


def test_claude_code_payload_for_pre_tool_use(home: Path, tmp_path: Path) -> None:
    raw, env = _capture(
        home, tmp_path, "pre_tool_call",
        {"tool_name": "write_file", "args": {"path": "a.txt", "content": "x"}, "session_id": "s1",
         "tool_call_id": "call-7", "transcript_path": "/tmp/t.jsonl"},
        protocol="claude-code",
    )  # fmt: skip
    payload = json.loads(raw)
    assert payload["hook_event_name"] == "PreToolUse"
    assert tuple(payload)[: len(wire.CLAUDE_COMMON_KEYS)] == wire.CLAUDE_COMMON_KEYS
    assert payload["tool_name"] == "Write"
    assert payload["tool_input"] == {"file_path": "a.txt", "content": "x"}
    assert payload["tool_use_id"] == "call-7"
    assert payload["transcript_path"] == "/tmp/t.jsonl"
    assert payload["permission_mode"] == "default"
    assert payload["cwd"] == env["PROJECT"]


@pytest.mark.parametrize(
    ("result", "expected"),
    [('{"output": "hi", "exit_code": 0}', {"output": "hi", "exit_code": 0}), ("plain text", {"output": "plain text"}),
     ("[1, 2]", {"output": "[1, 2]"})],
)  # fmt: skip
def test_claude_code_tool_response(
    home: Path, tmp_path: Path, result: str, expected: dict[str, Any]
) -> None:
    raw, _ = _capture(
        home, tmp_path, "post_tool_call",
        {"tool_name": "terminal", "args": {"command": "ls"}, "result": result, "status": "ok"},
        protocol="claude-code",
    )  # fmt: skip
    payload = json.loads(raw)
    assert payload["hook_event_name"] == "PostToolUse" and payload["tool_name"] == "Bash"
    assert payload["tool_response"] == expected


@pytest.mark.parametrize(
    ("event", "kwargs", "fields"),
    [
        ("user_prompt_submit", {"user_message": "hello"}, {"hook_event_name": "UserPromptSubmit", "prompt": "hello"}),
        ("pre_verify", {"stop_hook_active": False}, {"hook_event_name": "Stop", "stop_hook_active": False}),
        ("on_session_start", {"source": "resume"}, {"hook_event_name": "SessionStart", "source": "resume"}),
        ("on_session_end", {"reason": "clear"}, {"hook_event_name": "SessionEnd", "reason": "clear"}),
        ("pre_compress", {"trigger": "manual"}, {"hook_event_name": "PreCompact", "trigger": "manual"}),
        ("notification", {"message": "m", "notification_type": "idle_prompt"},
         {"hook_event_name": "Notification", "message": "m", "notification_type": "idle_prompt"}),
        ("post_tool_call", {"tool_name": "terminal", "args": {}, "status": "error", "error_message": "boom"},
         {"hook_event_name": "PostToolUseFailure", "error": "boom"}),
    ],
)  # fmt: skip
def test_claude_code_event_fields(
    home: Path, tmp_path: Path, event: str, kwargs: dict[str, Any], fields: dict[str, Any]
) -> None:
    raw, _ = _capture(home, tmp_path, event, {"session_id": "s", **kwargs}, protocol="claude-code")
    payload = json.loads(raw)
    assert {k: payload[k] for k in fields} == fields
    assert payload["session_id"] == "s"


def test_tool_mapping_is_host_extendable() -> None:
    wire.map_tool("my_edit", "MultiEdit", {"target": "file_path"})
    try:
        assert wire.claude_tool_name("my_edit") == "MultiEdit"
        assert wire.args_to_claude("my_edit", {"target": "a", "edits": []}) == {
            "file_path": "a",
            "edits": [],
        }
        assert wire.args_from_claude("my_edit", {"file_path": "b"}) == {"target": "b"}
        # read back by every reader of Claude Code names (payload files, transcripts to replay)
        assert wire.host_tool_name("MultiEdit") == "my_edit"
    finally:
        del wire.TOOLS["my_edit"]
        del wire.FROM_CLAUDE["MultiEdit"]


def test_claude_code_updated_input_is_mapped_back(home: Path) -> None:
    answer = json.dumps(
        {
            "hookSpecificOutput": {
                "permissionDecision": "allow",
                "updatedInput": {"file_path": "safe.txt", "content": "x"},
            }
        }
    )
    write_settings(
        home / "settings.json",
        {
            "PreToolUse": [
                {"matcher": "Write", "hooks": [{"type": "command", "command": f"echo '{answer}'"}]}
            ]
        },
    )
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    d = hooks.pre_tool_call(tool_name="write_file", args={"path": "/etc/passwd", "content": "x"})
    assert d.action == "allow" and d.args == {"path": "safe.txt", "content": "x"}


# ---------------------------------------------------------------------- answers

PRE = catalogue.get("pre_tool_call")


@pytest.mark.parametrize(
    ("stdout", "action", "message"),
    [
        ('{"action": "block", "message": "no"}', "block", "no"),
        ('{"action": "approve", "message": "ask", "rule_key": "k"}', "approve", "ask"),
        ('{"decision": "block", "reason": "cc"}', "block", "cc"),
        ('{"decision": "approve"}', "allow", None),  # Claude Code's legacy approve means allow
        (
            '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "d"}}',
            "block",
            "d",
        ),
        ('{"hookSpecificOutput": {"permissionDecision": "ask"}}', "approve", None),
        ('{"hookSpecificOutput": {"permissionDecision": "allow"}}', "allow", None),
        (
            '{"hook_specific_output": {"permission_decision": "deny", "permission_decision_reason": "da"}}',
            "block",
            "da",
        ),
        ('{"continue": false, "stopReason": "halt"}', "block", "halt"),
        (
            '{"action": "block"}',
            "block",
            "blocked by shell hook h",
        ),  # default message names the hook
        ("", None, None),
        ('{"unrelated": 1}', None, None),
    ],
)
def test_tool_answers(stdout: str, action: str | None, message: str | None) -> None:
    answer = wire.parse(PRE, wire.CLAUDE, 0, stdout.encode(), b"", source="h")
    value = answer.value
    assert (value.action if value else None) == action
    if message is not None:
        assert value.message == message


def test_plain_stdout_is_context_for_context_events_and_warned_elsewhere() -> None:
    ctx = wire.parse(
        catalogue.get("pre_llm_call"), wire.HERMES, 0, b"remember X\n", b"", source="h"
    )
    assert ctx.value == "remember X" and ctx.warning is None
    prompt = wire.parse(
        catalogue.get("user_prompt_submit"), wire.CLAUDE, 0, b"extra", b"", source="h"
    )
    assert prompt.value.context == "extra"
    ignored = wire.parse(PRE, wire.HERMES, 0, b"hello", b"", source="h")
    assert ignored.value is None and "not a JSON object" in ignored.warning


def test_exit_2_blocks_with_stderr_even_when_stderr_is_json(home: Path) -> None:
    hooks = load(home, {"pre_tool_call": [{"command": script("exit2_json.sh")}]})
    d = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert d.action == "block" and d.message == '{"reason": "json on stderr"}'


def test_exit_2_on_an_event_that_cannot_block_is_a_failure() -> None:
    answer = wire.parse(catalogue.get("post_llm_call"), wire.CLAUDE, 2, b"", b"nope", source="h")
    assert answer.value is None and "exit code 2" in answer.failure


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        ("user_prompt_submit", results.PromptDecision(action="block", message="why", source="h")),
        ("pre_verify", results.VerifyAnswer(action="continue", message="why", source="h")),
        ("pre_compress", results.CompressAnswer(action="block", message="why", source="h")),
        ("post_tool_call", "why"),
        ("permission_request", results.PermissionAnswer(action="deny", message="why", source="h")),
    ],
)
def test_exit_2_means_block_in_each_event_s_terms(event: str, expected: Any) -> None:
    answer = wire.parse(catalogue.get(event), wire.CLAUDE, 2, b"", b"  why \n", source="h")
    assert answer.value == expected


def test_other_nonzero_exit_is_a_reported_failure_that_does_not_block(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    hooks = load(
        home,
        {
            "pre_tool_call": [
                {"command": ANSWER, "env": {"CODE": "3", "ERR": "kaput"}, "protocol": "claude-code"}
            ]
        },
    )
    d = hooks.pre_tool_call(tool_name="terminal", args={})
    assert d.action is None
    assert "exit code 3: kaput" in caplog.text


def test_json_is_honoured_whatever_the_exit_code_and_a_claude_code_run_still_failed() -> None:
    out = b'{"action": "block", "message": "still"}'
    assert wire.parse(PRE, wire.HERMES, 1, out, b"", source="h").value.action == "block"
    # Claude Code 2.1.330 reads stdout JSON on exit 1 too (tests/oracle/claude_generated.py)
    claude = wire.parse(PRE, wire.CLAUDE, 1, out, b"", source="h")
    assert claude.value.action == "block" and claude.failure == "exit code 1"


@pytest.mark.parametrize(
    "failure",
    ["spawn", "timeout", "unparseable"],
)
def test_fail_closed_turns_failures_into_a_block_naming_the_hook(home: Path, failure: str) -> None:
    entry: dict[str, Any] = {"command": ANSWER, "fail_closed": True, "name": "guard"}
    if failure == "spawn":
        entry["command"] = "/nonexistent/hook.sh"
    elif failure == "timeout":
        entry.update(command="sleep 5", timeout=1)
    else:
        entry["env"] = {"ANSWER": "not json"}
    hooks = load(home, {"pre_tool_call": [entry]})
    d = hooks.pre_tool_call(tool_name="terminal", args={})
    assert d.action == "block" and d.message.startswith("shell hook guard failed")
    assert d.source == "guard"


def test_fail_open_by_default(home: Path) -> None:
    hooks = load(home, {"pre_tool_call": [{"command": "/nonexistent/hook.sh"}]})
    assert hooks.pre_tool_call(tool_name="terminal", args={}).action is None


def test_fail_closed_events_from_config(home: Path) -> None:
    hooks = load(
        home,
        {"pre_tool_call": [{"command": "/nonexistent/hook.sh"}]},
        fail_closed_events=["pre_tool_call"],
    )
    assert hooks.pre_tool_call(tool_name="terminal", args={}).action == "block"


def test_system_message_is_shown_as_a_warning(home: Path, caplog: pytest.LogCaptureFixture) -> None:
    hooks = load(
        home,
        {"pre_tool_call": [{"command": ANSWER, "env": {"ANSWER": '{"systemMessage": "careful"}'}}]},
    )
    hooks.pre_tool_call(tool_name="terminal", args={})
    assert "careful" in caplog.text


def test_transform_hooks_form_a_pipeline(home: Path) -> None:
    first = {"command": ANSWER, "env": {"ANSWER": '{"result": "one"}'}}
    second = {
        "command": f"bash {ANSWER}",
        "protocol": "claude-code",
        "env": {"ANSWER": '{"hookSpecificOutput": {"updatedToolOutput": {"out": 2}}}'},
    }
    hooks = load(home, {"transform_tool_result": [first, second]})
    assert hooks.transform_tool_result(tool_name="terminal", args={}, result="orig") == '{"out":2}'


def test_additional_context_on_pre_tool_use(home: Path) -> None:
    answer = '{"hookSpecificOutput": {"additionalContext": "note this"}}'
    hooks = load(home, {"pre_tool_call": [{"command": ANSWER, "env": {"ANSWER": answer}}]})
    assert hooks.pre_tool_call(tool_name="terminal", args={}).context == "note this"


# ---------------------------------------------------------------------- the parser never fails

EVENTS = list(catalogue.events().values())
#: The typed result each event's answers must come out as, read off the catalogue.
_VALID = {info.name: (info.answer.result,) for info in EVENTS if info.answer.result is not None}

json_answers = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20)
    | st.sampled_from(["block", "approve", "allow", "deny", "ask", "continue", "modify"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(
        st.sampled_from(["action", "message", "decision", "reason", "continue", "stopReason", "context",
                         "hookSpecificOutput", "hook_specific_output", "permissionDecision", "updatedInput",
                         "additionalContext", "updatedToolOutput", "args", "rule_key", "result", "systemMessage",
                         "text", "summary", "behavior", "scope"]) | st.text(max_size=5),
        inner, max_size=5),
    max_leaves=12,
)  # fmt: skip
stdout_bytes = st.binary(max_size=200) | json_answers.map(lambda v: json.dumps(v).encode())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    info=st.sampled_from(EVENTS),
    protocol=st.sampled_from(wire.PROTOCOLS),
    code=st.none() | st.integers(min_value=-255, max_value=255),
    stdout=stdout_bytes,
    stderr=st.binary(max_size=100),
    fail_closed=st.booleans(),
)
def test_answer_parser_never_raises_and_normalises(
    info: catalogue.EventInfo,
    protocol: str,
    code: int | None,
    stdout: bytes,
    stderr: bytes,
    fail_closed: bool,
) -> None:
    answer = wire.parse(
        info,
        protocol,
        code,
        stdout,
        stderr,
        source="h",
        fail_closed=fail_closed,
        tool_name="write_file",
    )
    assert isinstance(answer, wire.Answer)
    value = answer.value
    if value is None:
        return
    if info.name in _VALID:
        assert isinstance(value, _VALID[info.name])
        if isinstance(value, ToolDecision):
            assert value.action in ("block", "approve", "allow", None)
            assert value.args is None or isinstance(value.args, dict)
            assert value.action != "block" or value.message
    elif info.kind == "context":
        assert isinstance(value, str) and value.strip()
    elif info.kind == "transform":
        assert info.answer.normalise(value, None) == value
    else:
        pytest.fail(f"{info.name} ({info.kind}) got a value: {value!r}")


@pytest.mark.parametrize(
    ("dialect", "key"),
    [("codex", "session_id"), ("gemini", "session_id"), ("cursor", "conversation_id")],
)
def test_a_sub_agent_event_carries_the_parent_session_in_every_agent_s_payload(
    dialect: str, key: str
) -> None:
    from hermes_hooks.builtin_plugins.shell_hooks import dialects

    from hermes_hooks.catalogue import events

    info = events()["subagent_stop"]
    agent = dialects.get(dialect)
    assert agent is not None
    payload = agent.payload(info, {"parent_session_id": "p", "child_status": "ok"}, "/w", None)
    assert payload[key] == "p"
    both = agent.payload(info, {"parent_session_id": "p", "session_id": "s"}, "/w", None)
    assert both[key] == "s"


def test_claude_code_payload_and_environment_carry_the_parent_session(
    home: Path, tmp_path: Path
) -> None:
    raw, env = _capture(
        home, tmp_path, "subagent_stop", {"parent_session_id": "p", "child_status": "ok"},
        protocol="claude-code",
    )  # fmt: skip
    assert json.loads(raw)["session_id"] == "p"
    assert env["SESSION"] == "p"
