"""The real Gemini CLI and Codex run the hooks `hermes hooks install-into` writes for them: each
event reaches `<hermes> hooks client AGENT EVENT` with that agent's own payload for that very
event, and a block printed there keeps the shell tool from running.

`hermes` is a stand-in here (install-into takes the script beside the running Python: the test
points ``sys.executable`` at a folder holding the stand-in), which records its arguments and
stdin and blocks one marked command the way every agent honours (exit 2, reason on stderr); the
real `hermes hooks client` is tested with the service. What is checked is what install-into
writes, against the agents that read it: the `hooks` block of the file it wrote is the agent's
whole hook configuration for the run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from oracle_agents import AgentRun, run_codex, run_gemini
from oracle_install import Installed
from oracle_servers import ToolCall

from hermes_hooks.cli import hoist_global_options, hooks_group

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

BLOCK = "ORC-INSTALL-blocked by the stand-in hermes"


def _stand_in(folder: Path, record: Path) -> None:
    folder.mkdir(parents=True)
    script = folder / "hermes"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        "stdin = sys.stdin.read()\n"
        f"with open({str(record)!r}, 'a') as out:\n"
        "    out.write(json.dumps({'argv': sys.argv[1:], 'stdin': stdin}) + '\\n')\n"
        "if sys.argv[4] in ('PreToolUse', 'BeforeTool') and 'deny-me' in stdin:\n"
        f"    sys.stderr.write({BLOCK!r})\n"
        "    sys.exit(2)\n"
    )
    script.chmod(0o755)


def _hooks_written(
    agent: str, root: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[dict[str, Any], Path]:
    record = root / "client-calls.jsonl"
    _stand_in(root / "bin", record)
    monkeypatch.setattr(sys, "executable", str(root / "bin" / "python"))
    project = root / "written"
    project.mkdir()
    argv = ["--home", str(root / "hermes"), "install-into", agent, "--project", str(project),
            "--yes"]  # fmt: skip
    out = CliRunner().invoke(hooks_group, hoist_global_options(argv), catch_exceptions=False)
    assert out.exit_code == 0, out.output
    path = project / {"gemini": ".gemini/settings.json", "codex": ".codex/hooks.json"}[agent]
    return json.loads(path.read_text())["hooks"], record


def _calls(record: Path) -> list[tuple[list[str], dict[str, Any]]]:
    out = []
    for line in record.read_text().splitlines():
        item = json.loads(line)
        out.append((item["argv"], json.loads(item["stdin"])))
    return out


def _check(run: AgentRun, agent: str, record: Path, marker: Path) -> list[str]:
    assert not marker.exists(), "the block printed by the client did not stop the command"
    assert BLOCK in json.dumps([r.body for r in run.requests]), "the model was not told why"
    calls = _calls(record)
    for argv, payload in calls:
        assert argv[:3] == ["hooks", "client", agent]
        assert payload["hook_event_name"] == argv[3], (argv, payload["hook_event_name"])
    return [argv[3] for argv, _ in calls]


def test_gemini_cli_runs_the_hooks_install_into_writes(
    gemini_cli: Installed, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hooks, record = _hooks_written("gemini", tmp_path, monkeypatch)
    marker = tmp_path / "ran"
    call = ToolCall("run_shell_command", {"command": f"touch {marker} # deny-me"})
    run = run_gemini(gemini_cli.binary, tmp_path / "run", hooks, [call])
    events = _check(run, "gemini", record, marker)
    assert {"SessionStart", "BeforeAgent", "BeforeModel", "BeforeTool"} <= set(events), events


def test_codex_runs_the_hooks_install_into_writes(
    codex_cli: Installed, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hooks, record = _hooks_written("codex", tmp_path, monkeypatch)
    marker = tmp_path / "ran"
    call = ToolCall("exec_command", {"cmd": f"touch {marker} # deny-me"})
    run = run_codex(codex_cli.binary, tmp_path / "run", hooks, [call])
    events = _check(run, "codex", record, marker)
    assert {"SessionStart", "UserPromptSubmit", "PreToolUse"} <= set(events), events
