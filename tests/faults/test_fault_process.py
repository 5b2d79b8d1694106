"""Faults in running hook processes stay with the process that caused them: a killed hook with
an unread payload, an exit status the host's signal setup would lose, spawning that fails."""

from __future__ import annotations

import errno
import os
import selectors
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from hermes_hooks.builtin_plugins.shell_hooks import processes
from shell_helpers import load, script

BIG = b"x" * 70000 + b"\n"  # more than the pipe buffer: the writer is still waiting at the kill


def _reads_and_answers() -> processes.Command:
    return processes.Command(["sh", "-c", "cat >/dev/null; echo answered"], BIG, timeout=5)


class _ExitFirst(selectors.DefaultSelector):  # type: ignore[misc,valid-type]  # the platform's class
    """Hands out a batch's readiness with exits first: the kernel may report a killed child's
    exit and its stdin's breakage in one batch, in either order."""

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        events = super().select(timeout)
        return sorted(events, key=lambda e: e[0].data[1] != "exit")


@pytest.fixture(params=["kernel order", "exits first"])
def batch_order(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.param == "exits first":
        monkeypatch.setattr(selectors, "DefaultSelector", _ExitFirst)


def test_killed_hook_with_an_unread_big_payload_keeps_the_others_answers(
    batch_order: None,
) -> None:
    for _ in range(5):
        sleeper = processes.Command(["sleep", "30"], BIG, timeout=0.2)
        good, killed = processes.run_many([_reads_and_answers(), sleeper])
        assert good.stdout == b"answered\n"
        assert killed.timed_out


def test_guard_block_survives_a_killed_neighbour_with_a_big_payload(
    home: Path, batch_order: None
) -> None:
    hooks = load(
        home,
        {
            "pre_tool_call": [
                {"command": script("block_rm.sh")},
                {"command": "sleep 30", "timeout": 0.2},
            ]
        },
    )
    for _ in range(3):
        d = hooks.pre_tool_call(
            tool_name="terminal", args={"command": "rm -rf /", "content": "x" * 70000}
        )
        assert d.action == "block"
        assert d.message == "rm -rf is not allowed"


@pytest.fixture
def sigchld_ignored() -> Iterator[None]:
    old = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGCHLD, old)


@pytest.fixture
def no_pidfd(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(pid: int, flags: int = 0) -> int:
        raise OSError(errno.ENOSYS, "pidfd_open refused (seccomp)")

    monkeypatch.setattr(os, "pidfd_open", refuse, raising=False)


def _exit2() -> processes.Command:
    return processes.Command(["sh", "-c", "cat >/dev/null; echo no >&2; exit 2"], b"{}\n")


def test_exit_status_with_sigchld_ignored(sigchld_ignored: None) -> None:
    assert processes.run(_exit2()).returncode == 2


def test_exit_status_without_pidfd_open(no_pidfd: None) -> None:
    assert processes.run(_exit2()).returncode == 2


def test_exit_status_with_sigchld_ignored_and_without_pidfd_open(
    sigchld_ignored: None, no_pidfd: None
) -> None:
    assert processes.run(_exit2()).returncode == 2


def test_exit_status_with_a_working_dir_and_sigchld_ignored(
    sigchld_ignored: None, tmp_path: Path
) -> None:
    cmd = _exit2()
    cmd.cwd = str(tmp_path)
    assert processes.run(cmd).returncode == 2


def test_signal_death_is_reported_with_sigchld_ignored(sigchld_ignored: None) -> None:
    out = processes.run(processes.Command(["sh", "-c", "kill -TERM $$"]))
    assert out.returncode == -signal.SIGTERM


def test_exit2_block_with_sigchld_ignored(home: Path, sigchld_ignored: None) -> None:
    hooks = load(
        home,
        {"pre_tool_call": [{"command": script("answer.sh"), "env": {"CODE": "2", "ERR": "nope"}}]},
    )
    d = hooks.pre_tool_call(tool_name="terminal", args={})
    assert (d.action, d.message) == ("block", "nope")


def test_claude_json_answer_without_pidfd_open(home: Path, no_pidfd: None) -> None:
    answer = (
        '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}}'
    )
    hooks = load(
        home,
        {
            "pre_tool_call": [
                {
                    "command": script("answer.sh"),
                    "protocol": "claude-code",
                    "env": {"ANSWER": answer},
                }  # fmt: skip
            ]
        },
    )
    d = hooks.pre_tool_call(tool_name="terminal", args={})
    assert (d.action, d.message) == ("block", "no")
