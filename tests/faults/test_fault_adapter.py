"""Faults in the shell adapter stay with the entry that caused them, and a ``fail_closed`` hook
blocks whenever its own answer is unknown."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from shell_helpers import load, script

BLOCK_RM = script("block_rm.sh")
ANSWER = script("answer.sh")
RM = {"command": "rm -rf /"}


def _guard(**extra: Any) -> dict[str, Any]:
    return {"command": BLOCK_RM, **extra}


def _fire(hooks: Any, **kwargs: Any) -> Any:
    return hooks.pre_tool_call(tool_name="terminal", args=RM, **kwargs)


@pytest.mark.parametrize(
    "bad",
    [
        {"command": ANSWER, "env": {"A=B": "1"}},
        {"command": ANSWER, "env": {"": "1"}},
        {"command": ANSWER, "env": {"X": "a\0b"}},
        {"command": ANSWER + " \0"},
    ],
    ids=["env key with =", "empty env key", "NUL in env value", "NUL in command"],
)
def test_a_bad_entry_fails_alone(
    home: Path, bad: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    hooks = load(home, {"pre_tool_call": [bad, _guard()]})
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        d = _fire(hooks)
    assert (d.action, d.message) == ("block", "rm -rf is not allowed")
    assert any("failed" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(
    "bad",
    [
        {"command": "true", "env": {"A=B": "1"}},
        {"command": "true", "env": {"X": "a\0b"}},
        {"command": "true \0"},
    ],
    ids=["env key with =", "NUL in env value", "NUL in command"],
)
def test_a_bad_fail_closed_entry_blocks_with_its_reason(home: Path, bad: dict[str, Any]) -> None:
    hooks = load(home, {"pre_tool_call": [{**bad, "fail_closed": True}]})
    d = hooks.pre_tool_call(tool_name="terminal", args={})
    assert d.action == "block"
    assert "fail_closed" in d.message


def test_nul_in_session_id_does_not_drop_the_guards(home: Path) -> None:
    hooks = load(home, {"pre_tool_call": [_guard()]})
    d = _fire(hooks, session_id="a\0b")
    assert (d.action, d.message) == ("block", "rm -rf is not allowed")


def test_deleted_cwd_does_not_drop_the_guards(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hooks = load(home, {"pre_tool_call": [_guard()]})
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    d = _fire(hooks)
    assert (d.action, d.message) == ("block", "rm -rf is not allowed")


def test_an_error_inside_the_adapter_blocks_for_fail_closed_hooks(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hermes_hooks.builtin_plugins.shell_hooks import protocol

    hooks = load(home, {"pre_tool_call": [{"command": "true", "fail_closed": True}]})

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("adapter bug")

    monkeypatch.setattr(protocol, "hermes_payload", broken)
    d = hooks.pre_tool_call(tool_name="terminal", args={})
    assert d.action == "block"
    assert "adapter bug" in d.message


def test_a_failing_adapter_blocks_for_each_fail_closed_hook_only(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hermes_hooks.builtin_plugins.shell_hooks import processes

    hooks = load(
        home,
        {
            "pre_tool_call": [
                {"command": "true", "fail_closed": True, "name": "strict"},
                {"command": ANSWER, "name": "lax"},
            ]
        },  # fmt: skip
    )

    def broken(commands: Any) -> Any:
        raise RuntimeError("selector bug")

    monkeypatch.setattr(processes, "run_many", broken)
    d = hooks.pre_tool_call(tool_name="terminal", args={})
    assert (d.action, d.source) == ("block", "strict")
    assert "selector bug" in d.message


def _copy_guard(tmp_path: Path) -> Path:
    guard = tmp_path / "guard.sh"
    guard.write_text(Path(BLOCK_RM).read_text())
    guard.chmod(guard.stat().st_mode | stat.S_IXUSR)
    return guard


def test_fail_closed_guard_changed_after_approval_blocks(home: Path, tmp_path: Path) -> None:
    guard = _copy_guard(tmp_path)
    hooks = load(home, {"pre_tool_call": [{"command": str(guard), "fail_closed": True}]})
    guard.write_text("#!/bin/sh\nexit 0\n")
    d = hooks.pre_tool_call(tool_name="terminal", args={})
    assert d.action == "block"
    assert "hermes hooks approve" in d.message


def test_fail_closed_guard_deleted_after_approval_blocks(home: Path, tmp_path: Path) -> None:
    guard = _copy_guard(tmp_path)
    hooks = load(home, {"pre_tool_call": [{"command": str(guard), "fail_closed": True}]})
    os.unlink(guard)
    d = hooks.pre_tool_call(tool_name="terminal", args={})
    assert d.action == "block"
    assert "hermes hooks approve" in d.message


def test_changed_guard_without_fail_closed_blocks_when_nobody_can_be_asked(
    home: Path, tmp_path: Path
) -> None:
    guard = _copy_guard(tmp_path)
    hooks = load(home, {"pre_tool_call": [{"command": str(guard)}]})
    guard.write_text("#!/bin/sh\nexit 0\n")
    d = hooks.pre_tool_call(tool_name="terminal", args=RM)
    assert d.action == "block" and f"hermes hooks approve {guard}" in d.message
