"""Consent pins what actually runs: each command shape below used to keep running an edited
script as ``active``."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hermes_hooks.builtin_plugins.shell_hooks import consent
from shell_helpers import load, shell_plugin

GUARD = '#!/bin/sh\ncat >/dev/null\necho \'{"action": "block", "message": "guarded"}\'\n'


def _write(path: Path, text: str = GUARD) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _status(hooks: Any) -> str:
    source = shell_plugin(hooks)
    return str(source.consent(source.all_hooks[0]).status)


def _approved(home: Path, entry: dict[str, Any]) -> Any:
    hooks = load(home, {"pre_tool_call": [entry]})  # --accept-hooks approves it
    assert _status(hooks) == "active"
    return hooks


def _edit(path: Path) -> None:
    path.write_text(path.read_text() + "# edited after approval\n")


def test_env_bash_script_is_pinned(home: Path, tmp_path: Path) -> None:
    guard = _write(tmp_path / "guard")
    hooks = _approved(home, {"command": f"/usr/bin/env bash {guard}"})
    _edit(guard)
    assert _status(hooks) == "changed"


def test_interpreter_by_path_pins_the_script(home: Path, tmp_path: Path) -> None:
    guard = _write(tmp_path / "guard", "import sys\nsys.stdin.read()\n")
    hooks = _approved(home, {"command": f"{sys.executable} -u {guard}"})
    _edit(guard)
    assert _status(hooks) == "changed"


def test_script_with_a_script_argument_pins_both(home: Path, tmp_path: Path) -> None:
    guard = _write(tmp_path / "guard")
    rules = _write(tmp_path / "rules.py", "RULES = []\n")
    hooks = _approved(home, {"command": f"{guard} --rules {rules}"})
    _edit(guard)
    assert _status(hooks) == "changed"
    hooks = _approved(home, {"command": f"{guard} --rules {rules}"})
    _edit(rules)
    assert _status(hooks) == "changed"


def test_path_lookup_uses_the_hooks_path_not_the_cwd(home: Path, tmp_path: Path) -> None:
    on_path = _write(tmp_path / "bin" / "myguard.sh")
    _write(tmp_path / "work" / "myguard.sh", "#!/bin/sh\nexit 0\n")
    entry = {
        "command": "myguard.sh",
        "working_dir": str(tmp_path / "work"),
        "env": {"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin"},
    }
    hooks = _approved(home, entry)
    source = shell_plugin(hooks)
    assert source.consent(source.all_hooks[0]).scripts[0] == str(on_path)
    _edit(on_path)
    assert _status(hooks) == "changed"


def test_interpreter_by_name_with_working_dir_pins_the_script(home: Path, tmp_path: Path) -> None:
    guard = _write(tmp_path / "dir" / "guard", "import sys\n")
    hooks = _approved(home, {"command": "python3 guard", "working_dir": str(guard.parent)})
    _edit(guard)
    assert _status(hooks) == "changed"


@pytest.mark.parametrize(
    "command",
    ["cd {dir} && ./guard.sh", "sh {dir}/gua*.sh", "bash -e {dir}/guard.sh 2>/dev/null"],
)
def test_claude_code_command_lines_pin_the_script(home: Path, tmp_path: Path, command: str) -> None:
    guard = _write(tmp_path / "dir" / "guard.sh")
    entry = {"command": command.format(dir=guard.parent), "protocol": "claude-code"}
    hooks = _approved(home, entry)
    _edit(guard)
    assert _status(hooks) == "changed"


@pytest.mark.parametrize(
    "command",
    [
        "FOO=1 timeout 5 sh {dir}/guard.sh",
        "nice -n 5 nohup bash {dir}/guard.sh",
        "(cd {dir} && ./guard.sh)",
        "{{ sh {dir}/guard.sh; }} 2>/dev/null",
        "if true; then sh {dir}/guard.sh; fi",
    ],
)
def test_command_lines_read_by_the_shell_parser_pin_the_script(
    home: Path, tmp_path: Path, command: str
) -> None:
    # wrappers, subshells, groups and compound commands are read by the project's shell parser,
    # so the script behind them is what the approval pins
    from hermes_hooks.builtin_plugins.shell_hooks import consent

    guard = _write(tmp_path / "dir" / "guard.sh")
    line = command.format(dir=guard.parent)
    # the script that runs is the one identified (not `timeout`, `nice` or `nohup`)
    assert consent.of_shell(line, str(tmp_path), dict(os.environ)).script == str(guard)
    hooks = _approved(home, {"command": line, "protocol": "claude-code"})
    _edit(guard)
    assert _status(hooks) == "changed"


def test_sourced_file_is_pinned(home: Path, tmp_path: Path) -> None:
    lib = _write(tmp_path / "lib.sh", "X=1\n")
    guard = _write(tmp_path / "guard.sh")
    entry = {"command": f". {lib} && {guard}", "protocol": "claude-code"}
    hooks = _approved(home, entry)
    _edit(lib)
    assert _status(hooks) == "changed"


def test_pin_key_pins_files_and_directories(home: Path, tmp_path: Path) -> None:
    guard = _write(tmp_path / "guard.sh")
    rules = _write(tmp_path / "rules" / "deny.txt", "rm\n")
    hooks = _approved(home, {"command": str(guard), "pin": [str(tmp_path / "rules")]})
    _edit(rules)
    assert _status(hooks) == "changed"


@pytest.mark.parametrize(
    "change",
    [
        {"env": {"PYTHONPATH": "/elsewhere"}},
        {"env": {"BASH_ENV": "/elsewhere/evil.sh"}},
        {"protocol": "claude-code"},
        {"working_dir": "/"},
    ],
    ids=["PYTHONPATH", "BASH_ENV", "protocol", "working_dir"],
)
def test_approval_is_bound_to_env_protocol_and_working_dir(
    home: Path, tmp_path: Path, change: dict[str, Any]
) -> None:
    guard = _write(tmp_path / "guard.sh")
    _approved(home, {"command": str(guard)})
    hooks = load(home, {"pre_tool_call": [{"command": str(guard), **change}]}, accept=False)
    assert _status(hooks) == "changed"


def test_unidentifiable_script_is_unpinned_and_needs_an_explicit_approval(home: Path) -> None:
    command = "python3 -c 'import sys; sys.stdin.read()'"
    hooks = load(home, {"pre_tool_call": [{"command": command}]}, accept=False)
    source = shell_plugin(hooks)
    hook = source.all_hooks[0]
    assert source.consent(hook).unpinned
    assert source.approve([hook]) == []
    assert source.consent(hook).status == "unapproved"
    assert source.approve([hook], unpinned=True) == [hook]
    assert source.consent(hook).status == "active"


def test_approve_unpinned_through_the_cli(home: Path) -> None:
    command = "python3 -c 'import sys; sys.stdin.read()'"
    load(home, {"pre_tool_call": [{"command": command}]}, accept=False)
    cli = shutil.which("hermes-hooks", path=os.path.dirname(sys.executable))
    assert cli is not None
    refused = subprocess.run([cli, "--home", str(home), "approve", command],
                             capture_output=True, text=True, check=False)  # fmt: skip
    assert "--unpinned" in refused.stderr
    done = subprocess.run([cli, "--home", str(home), "approve", "--unpinned", command],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    hooks = load(home, {"pre_tool_call": [{"command": command}]}, accept=False)
    assert _status(hooks) == "active"


def test_sha256_null_approval_of_an_unpinned_hook_is_not_active(home: Path) -> None:
    command = "sh -c 'cat >/dev/null'"
    home.mkdir(parents=True, exist_ok=True)
    entry = {"event": "pre_tool_call", "command": command, "matcher": None, "sha256": None}
    (home / consent.FILENAME).write_text(json.dumps({"approvals": [entry]}))
    hooks = load(home, {"pre_tool_call": [{"command": command}]}, accept=False)
    assert _status(hooks) == "unpinned"


def test_hermes_entry_older_than_the_script_is_changed(home: Path, tmp_path: Path) -> None:
    guard = _write(tmp_path / "guard.sh")
    home.mkdir(parents=True, exist_ok=True)
    entry = {"event": "pre_tool_call", "command": str(guard),
             "approved_at": "2026-01-01T00:00:00Z", "script_mtime_at_approval": "2020-01-01T00:00:00Z"}  # fmt: skip
    (home / consent.FILENAME).write_text(json.dumps({"approvals": [entry]}))
    hooks = load(home, {"pre_tool_call": [{"command": str(guard)}]}, accept=False)
    assert _status(hooks) == "changed"
    d = hooks.pre_tool_call(tool_name="t", args={})  # not run: nobody to ask, so it blocks
    assert d.action == "block" and "modified after Hermes approved it" in d.message
