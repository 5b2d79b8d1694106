"""A sub-agent is one id on every event that names it: Claude Code's and Codex's
``SubagentStart``/``SubagentStop`` carry the same ``agent_id`` (its session) and the parent's
``session_id``, and trace receipts name the parent session of every call the sub-agent makes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from shell_helpers import load, script

ECHO = script("echo_payload.sh")

START = {
    "parent_session_id": "parent-sess",
    "parent_turn_id": "turn-1",
    "parent_subagent_id": None,
    "child_session_id": "child-sess",
    "child_subagent_id": "sa-0-1f2e",
    "child_role": "leaf",
    "child_goal": "touch the file",
}
STOP = {
    "parent_session_id": "parent-sess",
    "parent_turn_id": "turn-1",
    "child_session_id": "child-sess",
    "child_role": "leaf",
    "child_summary": "done",
    "child_status": "completed",
    "duration_ms": 12,
}


def _echo(out: Path, **entry: Any) -> dict[str, Any]:
    return {"command": ECHO, "env": {"HOOK_OUT": str(out)}, **entry}


def _receipts(trace: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in trace.read_text().splitlines()]


@pytest.mark.parametrize("protocol", ["claude-code", "codex"])
def test_subagent_start_and_stop_carry_the_same_agent_id_and_the_parent_session(
    home: Path, tmp_path: Path, protocol: str
) -> None:
    start, stop = tmp_path / "start.json", tmp_path / "stop.json"
    hooks = load(
        home,
        {
            "SubagentStart": [_echo(start, protocol=protocol)],
            "SubagentStop": [_echo(stop, protocol=protocol)],
        },
    )
    hooks.call("subagent_start", **START)
    hooks.call("subagent_stop", **STOP)
    started, stopped = json.loads(start.read_text()), json.loads(stop.read_text())
    assert started["hook_event_name"] == "SubagentStart"
    assert stopped["hook_event_name"] == "SubagentStop"
    assert started["agent_id"] == stopped["agent_id"] == "child-sess"
    assert started["session_id"] == stopped["session_id"] == "parent-sess"
    assert started["agent_type"] == stopped["agent_type"] == "leaf"


def test_a_host_that_names_no_child_session_still_gets_an_agent_id(
    home: Path, tmp_path: Path
) -> None:
    start = tmp_path / "start.json"
    hooks = load(home, {"SubagentStart": [_echo(start, protocol="claude-code")]})
    hooks.call("subagent_start", **{**START, "child_session_id": None})
    assert json.loads(start.read_text())["agent_id"] == "sa-0-1f2e"


def test_subagent_receipts_carry_the_parent_session_and_the_sub_agent(
    home: Path, tmp_path: Path
) -> None:
    trace = tmp_path / "trace.jsonl"
    hooks = load(
        home,
        {
            "subagent_start": [_echo(tmp_path / "start.json")],
            "subagent_stop": [_echo(tmp_path / "stop.json")],
        },
        trace_file=str(trace),
    )
    hooks.call("subagent_start", **START)
    hooks.call("subagent_stop", **STOP)
    start, stop = _receipts(trace)
    for receipt in (start, stop):
        assert receipt["session_id"] == "parent-sess"
        assert receipt["agent_id"] == "child-sess"
        assert receipt["parent_session_id"] is None  # the parent is no sub-agent


def test_every_receipt_of_a_sub_agents_call_names_its_parent_session(
    home: Path, tmp_path: Path
) -> None:
    # No hook listens to subagent_start: the runtime still learns who started whom.
    trace = tmp_path / "trace.jsonl"
    hooks = load(
        home,
        {"pre_tool_call": [_echo(tmp_path / "pre.json")]},
        trace_file=str(trace),
    )
    call = {"tool_name": "terminal", "args": {"command": "ls"}, "tool_call_id": "c"}
    hooks.pre_tool_call(session_id="parent-sess", **call)
    hooks.call("subagent_start", **START)
    hooks.pre_tool_call(session_id="child-sess", **call)
    # A sub-agent of the sub-agent: its calls name their own parent, the first sub-agent.
    hooks.call(
        "subagent_start",
        **{**START, "parent_session_id": "child-sess", "child_session_id": "grandchild-sess"},
    )
    hooks.pre_tool_call(session_id="grandchild-sess", **call)
    top, child, grandchild = _receipts(trace)
    assert (top["session_id"], top["parent_session_id"], top["agent_id"]) == (
        "parent-sess",
        None,
        None,
    )
    assert (child["session_id"], child["parent_session_id"], child["agent_id"]) == (
        "child-sess",
        "parent-sess",
        "child-sess",
    )
    assert (grandchild["parent_session_id"], grandchild["agent_id"]) == (
        "child-sess",
        "grandchild-sess",
    )
