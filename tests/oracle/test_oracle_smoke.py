"""The harness for Gemini CLI and Codex: their hooks fire under the fake servers, a blocking hook
keeps the shell tool from running, and the model is told why.

These smoke cases prove the real CLIs run here and record, in tests/oracle/fixtures/, the exact
payload each event sends and what the model reads about a blocked call (``ORACLE_WRITE_FIXTURES=1``
rewrites them; otherwise the live field names are checked against them), which the dialect
readers are written against. The differential corpora are test_oracle_gemini.py and
test_oracle_codex.py; the smoke cases are not counted in their summary lines.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from oracle_agents import AgentRun, recorder_command, run_codex, run_gemini
from oracle_compare import check_fixtures
from oracle_install import Installed
from oracle_servers import ToolCall

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

FIXTURES = Path(__file__).parent / "fixtures"
BLOCK = "ORC-M-smoke_block no shell commands here"

#: Every hook event each CLI documents (a recording hook on each captures its payload).
GEMINI_EVENTS = ("SessionStart", "BeforeAgent", "BeforeModel", "AfterModel", "BeforeToolSelection",
                 "BeforeTool", "AfterTool", "AfterAgent", "Notification", "PreCompress",
                 "SessionEnd")  # fmt: skip
CODEX_EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")


def _blocker(d: Path) -> str:
    path = d / "block.sh"
    path.write_text(f"#!/bin/sh\ncat > /dev/null\necho '{BLOCK}' >&2\nexit 2\n")
    path.chmod(0o755)
    return str(path)


def _check_fixtures(agent: str, runs: list[tuple[AgentRun, Path]]) -> dict[str, dict[str, Any]]:
    return check_fixtures(FIXTURES / agent, agent, [(run.payloads, d) for run, d in runs])


def _seen(run: AgentRun, needle: str) -> bool:
    return any(needle in json.dumps(r.body) for r in run.requests if isinstance(r.body, dict))


def _holder(obj: Any, needle: str) -> Any:
    """The innermost object of a request body that holds ``needle`` (what the model read)."""
    if isinstance(obj, dict):
        for value in obj.values():
            inner = _holder(value, needle)
            if inner is not None:
                return inner
        return obj if needle in json.dumps(obj) else None
    if isinstance(obj, list):
        return next((h for h in (_holder(v, needle) for v in obj) if h is not None), None)
    return None


def _model_saw(agent: str, run: AgentRun, d: Path) -> None:
    """Record (or check) what the model was sent about the blocked call."""
    body = next(
        r.body for r in run.requests if isinstance(r.body, dict) and BLOCK in json.dumps(r.body)
    )
    seen = json.loads(json.dumps(_holder(body, BLOCK)).replace(str(d), "<case-dir>"))
    path = FIXTURES / agent / "model-sees-block.json"
    if os.environ.get("ORACLE_WRITE_FIXTURES") == "1":
        path.write_text(json.dumps(seen, indent=2) + "\n")
    assert sorted(seen) == sorted(json.loads(path.read_text())), (
        f"{agent}: the block reads otherwise"
    )


def _gemini(binary: Path, d: Path, block: bool) -> AgentRun:
    d.mkdir(parents=True, exist_ok=True)
    rec = d / "payloads.jsonl"
    hooks: dict[str, Any] = {
        e: [{"hooks": [{"type": "command", "command": recorder_command(rec), "name": "recorder"}]}]
        for e in GEMINI_EVENTS
    }
    if block:
        hooks["BeforeTool"].insert(0, {"matcher": "run_shell_command", "hooks": [
            {"type": "command", "command": _blocker(d), "name": "blocker"}]})  # fmt: skip
    call = ToolCall("run_shell_command", {"command": f"touch {d}/ran"})
    run = run_gemini(binary, d, hooks, [call], record=rec)
    assert run.returncode == 0, run.stderr[-1500:]
    assert not [r for r in run.refused() if not r.startswith("CONNECT")]
    return run


def test_gemini_before_tool_blocks_shell(gemini_cli: Installed, tmp_path: Path) -> None:
    """A BeforeTool hook that exits 2 keeps run_shell_command from running; a run without it
    runs the command (and records the AfterTool payload too)."""
    open_dir, tmp_path = tmp_path / "open", tmp_path / "blocked"
    open_run = _gemini(gemini_cli.binary, open_dir, block=False)
    assert (open_dir / "ran").exists(), "without a hook the command should run"
    run = _gemini(gemini_cli.binary, tmp_path, block=True)
    assert not [r for r in run.refused() if not r.startswith("CONNECT")]
    assert not (tmp_path / "ran").exists(), (
        "the BeforeTool hook did not keep the command from running"
    )
    assert _seen(run, "ORC-M-smoke_block"), "the model was not told why the command was blocked"
    first = _check_fixtures("gemini-cli", [(run, tmp_path), (open_run, open_dir)])
    _model_saw("gemini-cli", run, tmp_path)
    before = first["BeforeTool"]
    assert before["tool_name"] == "run_shell_command"
    assert before["tool_input"] == {"command": "touch <case-dir>/ran"}


def _codex(binary: Path, d: Path, block: bool) -> AgentRun:
    d.mkdir(parents=True, exist_ok=True)
    rec = d / "payloads.jsonl"
    hooks: dict[str, Any] = {
        e: [{"hooks": [{"type": "command", "command": recorder_command(rec)}]}]
        for e in CODEX_EVENTS
    }
    if block:
        hooks["PreToolUse"].insert(0, {"matcher": "Bash", "hooks": [
            {"type": "command", "command": _blocker(d)}]})  # fmt: skip
    call = ToolCall("exec_command", {"cmd": f"touch {d}/ran"})
    run = run_codex(binary, d, hooks, [call], record=rec)
    assert run.returncode == 0, run.stderr[-1500:]
    assert not [r for r in run.refused() if not r.startswith("CONNECT")]
    return run


def test_codex_pre_tool_use_blocks_shell(codex_cli: Installed, tmp_path: Path) -> None:
    """A PreToolUse hook that exits 2 keeps exec_command from running; a run without it runs
    the command (and records the PostToolUse payload too)."""
    open_dir, tmp_path = tmp_path / "open", tmp_path / "blocked"
    open_run = _codex(codex_cli.binary, open_dir, block=False)
    assert (open_dir / "ran").exists(), "without a hook the command should run"
    run = _codex(codex_cli.binary, tmp_path, block=True)
    assert not [r for r in run.refused() if not r.startswith("CONNECT")]
    assert not (tmp_path / "ran").exists(), (
        "the PreToolUse hook did not keep the command from running"
    )
    assert _seen(run, "ORC-M-smoke_block"), "the model was not told why the command was blocked"
    first = _check_fixtures("codex", [(run, tmp_path), (open_run, open_dir)])
    _model_saw("codex", run, tmp_path)
    pre = first["PreToolUse"]
    assert pre["tool_name"] == "Bash"
    assert pre["tool_input"] == {"command": "touch <case-dir>/ran"}
