"""Shell hooks against a Claude Code hook published on PyPI, run unchanged.

agent-sensorium ships ``sensorium hook pretool``, a PreToolUse handler that reads Claude Code's
JSON on stdin and exits 2 with a message on stderr to block. Its installer writes the
settings.json entry reproduced here. The package is installed into a throw-away venv; without
network access the test is skipped.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from shell_helpers import write_settings
from venvs import VenvPool

import hermes_hooks

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sensorium(venvs: VenvPool) -> Path:
    try:
        venv = venvs.get(["agent-sensorium==0.1.0"])
    except AssertionError as exc:  # pip's failure, with its output
        pytest.skip(f"cannot install agent-sensorium from PyPI: {str(exc)[-300:]}")
    return venv.script("sensorium")


def test_published_claude_code_hook_blocks_rm_rf(
    sensorium: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    monkeypatch.chdir(project)
    hook = {"type": "command", "command": f"{sensorium} hook pretool"}
    write_settings(
        home / "settings.json",
        {"PreToolUse": [{"matcher": "Bash|Edit|Write|MultiEdit", "hooks": [hook]}]},
    )
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    d = hooks.pre_tool_call(
        tool_name="terminal", args={"command": "rm -rf /"}, session_id="s1", tool_call_id="c1"
    )
    assert d.action == "block"
    assert "Catastrophic filesystem wipe" in (d.message or "")
    ok = hooks.pre_tool_call(
        tool_name="terminal", args={"command": "ls"}, session_id="s1", tool_call_id="c2"
    )
    assert ok.action is None
    # not a Bash/Edit/Write call: the matcher keeps the hook out
    assert hooks.pre_tool_call(tool_name="web_search", args={"query": "rm -rf /"}).action is None
