"""The Claude Code events added for issue 13, fired through ``hermes_hooks.load()`` with a real
settings.json and real scripts: what each hook reads and what its answer does."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import hermes_hooks
from hermes_hooks.answers.base import RETRY
from tests.shell_helpers import write_settings


def _recorder(tmp_path: Path, name: str, answer: str = "", code: int = 0) -> tuple[str, Path]:
    """A hook script that saves its stdin to ``<name>.json``, prints ``answer`` and exits."""
    seen = tmp_path / f"{name}.json"
    script = tmp_path / f"{name}.sh"
    script.write_text(
        f"#!/bin/sh\ncat > {seen}\nprintf '%s' '{answer}'\n"
        + (f"echo 'refused by {name}' >&2\n" if code == 2 else "")
        + f"exit {code}\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script), seen


def _load(home: Path, hooks: dict[str, Any]) -> Any:
    write_settings(home / "settings.json", hooks)
    return hermes_hooks.load(home, accept_hooks=True, entry_points=False)


def _cmd(command: str, matcher: str | None = None) -> list[dict[str, Any]]:
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command}]}
    if matcher is not None:
        group["matcher"] = matcher
    return [group]


def test_permission_denied_hears_blocked_calls_and_retry_tells_the_model(
    home: Path, tmp_path: Path
) -> None:
    answer = json.dumps(
        {"hookSpecificOutput": {"hookEventName": "PermissionDenied", "retry": True}}
    )
    denied, seen = _recorder(tmp_path, "denied", answer)
    after, after_seen = _recorder(tmp_path, "after")
    hooks = _load(home, {"PermissionDenied": _cmd(denied, "Bash"), "PostToolUse": _cmd(after)})
    feedback = hooks.post_tool_call(tool_name="terminal", args={"command": "rm -rf /"},
                                    result="", status="blocked", error_message="policy",
                                    tool_call_id="c1", session_id="s")  # fmt: skip
    assert feedback == RETRY
    payload = json.loads(seen.read_text())
    assert payload["hook_event_name"] == "PermissionDenied"
    assert payload["tool_name"] == "Bash" and payload["tool_input"] == {"command": "rm -rf /"}
    assert payload["reason"] == "policy" and payload["tool_use_id"] == "c1"
    assert not after_seen.exists()  # PostToolUse is for calls that ran
    hooks.post_tool_call(tool_name="terminal", args={}, result="ok", status="ok")
    assert after_seen.exists()


def test_stop_failure_fires_when_the_error_ends_the_turn(home: Path, tmp_path: Path) -> None:
    hook, seen = _recorder(tmp_path, "stopfail")
    hooks = _load(home, {"StopFailure": _cmd(hook, "rate_limit")})
    hooks.api_request_error(error="429 Too Many Requests", reason="rate_limit", retryable=True)
    assert not seen.exists()  # the host retries: the turn goes on
    hooks.api_request_error(error="401", reason="authentication_failed", retryable=False)
    assert not seen.exists()  # the matcher names another error
    hooks.api_request_error(error="429 Too Many Requests", reason="rate_limit", retryable=False,
                            last_assistant_message="partial")  # fmt: skip
    payload = json.loads(seen.read_text())
    assert payload["hook_event_name"] == "StopFailure"
    assert payload["error"] == "rate_limit" and payload["error_details"] == "429 Too Many Requests"
    assert payload["last_assistant_message"] == "partial"


def test_post_tool_batch_sees_every_call_and_adds_context(home: Path, tmp_path: Path) -> None:
    answer = json.dumps(
        {"hookSpecificOutput": {"hookEventName": "PostToolBatch", "additionalContext": "2 done"}}
    )
    hook, seen = _recorder(tmp_path, "batch", answer)
    hooks = _load(home, {"PostToolBatch": _cmd(hook)})
    calls = [
        {"tool_name": "terminal", "args": {"command": "ls"}, "tool_call_id": "a", "result": "x"},
        {"tool_name": "read_file", "args": {"path": "/f"}, "tool_call_id": "b", "result": "y"},
    ]
    assert hooks.post_tool_batch(tool_calls=calls, session_id="s") == "2 done"
    payload = json.loads(seen.read_text())
    assert payload["tool_calls"] == [
        {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "a",
         "tool_response": "x"},
        {"tool_name": "Read", "tool_input": {"file_path": "/f"}, "tool_use_id": "b",
         "tool_response": "y"},
    ]  # fmt: skip


def test_pre_model_switch_exit_2_vetoes_and_post_model_switch_adds_context(
    home: Path, tmp_path: Path
) -> None:
    veto, seen = _recorder(tmp_path, "veto", code=2)
    note, _ = _recorder(tmp_path, "note", json.dumps(
        {"hookSpecificOutput": {"hookEventName": "PostModelSwitch", "additionalContext": "on opus"}}
    ))  # fmt: skip
    hooks = _load(home, {"PreModelSwitch": _cmd(veto), "PostModelSwitch": _cmd(note)})
    decision = hooks.pre_model_switch(from_model="sonnet", to_model="opus",
                                      requested_model="opus", source="command",
                                      context_tokens=200_000, session_id="s")  # fmt: skip
    assert decision.action == "block" and decision.message == "refused by veto"
    payload = json.loads(seen.read_text())
    assert payload["hook_event_name"] == "PreModelSwitch"
    assert (payload["from_model"], payload["to_model"], payload["context_tokens"]) == (
        "sonnet", "opus", 200_000)  # fmt: skip
    assert hooks.post_model_switch(from_model="sonnet", to_model="opus") == "on opus"


def test_events_that_cannot_fire_are_reported_with_the_reason(
    home: Path, tmp_path: Path, caplog: Any
) -> None:
    import logging

    hook, _ = _recorder(tmp_path, "task", code=2)
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = _load(home, {"TaskCompleted": _cmd(hook), "FileChanged": _cmd(hook)})
    assert "Claude Code's TaskCompleted never fires in Hermes" in caplog.text
    assert "kanban_task_completed" in caplog.text and "no file watcher" in caplog.text
    assert not [r for r in hooks.rows() if r.get("source") == "shell"]


def test_every_claude_code_event_is_either_fired_or_explained() -> None:
    from hermes_hooks.builtin_plugins.shell_hooks.config import UNFIRED

    from hermes_hooks import catalogue

    fired = {c.name for info in catalogue.events().values() for c in info.claude}
    assert not fired & set(UNFIRED)
    assert len(fired | set(UNFIRED)) == 33  # Claude Code 2.1.x
    page = (Path(__file__).resolve().parents[1] / "docs" / "dialects.md").read_text()
    section = page.partition("## Claude Code events")[2].partition("\n## ")[0]
    fires, _, cannot = section.partition("### Events that cannot fire in Hermes")
    assert [n for n in fired if f"`{n}`" not in fires] == []
    assert [n for n in UNFIRED if f"`{n}`" not in cannot] == []
