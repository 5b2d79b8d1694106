"""Shell hooks: first-use consent pinned to the script's hash."""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from shell_helpers import load, script, shell_plugin

import hermes_hooks
from hermes_hooks import consent


def _guard(tmp_path: Path) -> Path:
    path = tmp_path / "guard.sh"
    shutil.copy(script("block_rm.sh"), path)
    path.chmod(0o755)
    return path


def _rm(hooks: hermes_hooks.Hooks) -> str | None:
    return hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf /"}).action


def _allowlist(home: Path) -> list[dict]:
    return json.loads((home / consent.FILENAME).read_text())["approvals"]


def test_unapproved_hook_is_skipped_with_one_warning_saying_how(
    home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    guard = _guard(tmp_path)
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(home, {"pre_tool_call": [{"command": str(guard)}]}, accept=False)
        assert _rm(hooks) is None
        assert _rm(hooks) is None
    warnings = [r for r in caplog.records if "not approved" in r.message]
    assert len(warnings) == 1
    assert "hermes hooks approve" in warnings[0].message and "--accept-hooks" in warnings[0].message


def test_accept_hooks_approves_and_pins_the_hash(home: Path, tmp_path: Path) -> None:
    guard = _guard(tmp_path)
    hooks = load(home, {"pre_tool_call": [{"command": str(guard), "matcher": "terminal"}]})
    assert _rm(hooks) == "block"
    [entry] = _allowlist(home)
    assert entry["event"] == "pre_tool_call" and entry["command"] == str(guard)
    assert entry["matcher"] == "terminal"
    assert entry["sha256"] == consent.file_sha256(str(guard))
    assert entry["approved_at"].endswith("Z") and entry["script_mtime_at_approval"].endswith("Z")
    assert (home / consent.FILENAME).stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("how", ["env", "config"])
def test_other_ways_to_auto_accept(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    guard = _guard(tmp_path)
    extra = {}
    if how == "env":
        monkeypatch.setenv("HERMES_ACCEPT_HOOKS", "1")
    else:
        extra["hooks_auto_accept"] = True
    hooks = load(home, {"pre_tool_call": [{"command": str(guard)}]}, accept=False, **extra)
    assert _rm(hooks) == "block"


def test_changed_script_does_not_run_and_shows_changed(
    home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    guard = _guard(tmp_path)
    load(home, {"pre_tool_call": [{"command": str(guard)}]})
    guard.write_text(guard.read_text() + "\n# tampered\n")
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = hermes_hooks.load(home, entry_points=False)
        assert _rm(hooks) is None
        assert _rm(hooks) is None
    assert len([r for r in caplog.records if "changed since approval" in r.message]) == 1
    [row] = [r for r in hooks.rows() if r["source"] == "shell"]
    assert row["status"] == "changed"


def test_script_changed_while_running_is_caught_at_the_next_firing(
    home: Path, tmp_path: Path
) -> None:
    guard = _guard(tmp_path)
    hooks = load(home, {"pre_tool_call": [{"command": str(guard)}]})
    assert _rm(hooks) == "block"
    guard.write_text(guard.read_text() + "\n# tampered\n")
    assert _rm(hooks) is None


def test_interpreter_prefixed_command_pins_the_script(home: Path, tmp_path: Path) -> None:
    guard = _guard(tmp_path)
    load(home, {"pre_tool_call": [{"command": f"bash {guard}"}]})
    [entry] = _allowlist(home)
    assert entry["sha256"] == consent.file_sha256(str(guard))


def test_shell_command_pins_every_file_it_names(tmp_path: Path) -> None:
    a = tmp_path / "a.py"
    a.write_text("print(1)\n")
    files = consent.files_of_shell_command(
        "printf x | python3 a.py && echo done", str(tmp_path), {}
    )
    assert files == [str(a)]


def test_widening_a_matcher_needs_reapproval_narrowing_does_not(home: Path, tmp_path: Path) -> None:
    guard = _guard(tmp_path)
    load(home, {"pre_tool_call": [{"command": str(guard), "matcher": "terminal|write_file"}]})
    narrower = load(
        home, {"pre_tool_call": [{"command": str(guard), "matcher": "terminal"}]}, accept=False
    )
    assert _rm(narrower) == "block"
    wider = load(home, {"pre_tool_call": [{"command": str(guard), "matcher": ".*"}]}, accept=False)
    assert _rm(wider) is None
    [row] = [r for r in wider.rows() if r["source"] == "shell"]
    assert row["status"] == "changed" and "matcher widened" in row["error"]


@pytest.mark.parametrize(
    ("approved", "now", "covered"),
    [
        (None, "terminal", True),
        ("*", "x", True),
        ("a|b", "a", True),
        ("a", "a|b", False),
        ("a", None, False),
        ("t.*", "t1", False),
    ],
)
def test_matcher_coverage(approved: str | None, now: str | None, covered: bool) -> None:
    assert consent.covers(approved, now) is covered


def test_hermes_written_entry_is_honoured_and_pinned_with_a_notice(
    home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    guard = _guard(tmp_path)
    home.mkdir(parents=True, exist_ok=True)
    hermes_entry = {"event": "pre_tool_call", "command": str(guard), "approved_at": "2026-01-01T00:00:00Z",
                    "script_mtime_at_approval": consent.mtime_iso(str(guard))}  # fmt: skip
    (home / consent.FILENAME).write_text(
        json.dumps({"approvals": [hermes_entry]}, indent=2, sort_keys=True)
    )
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(
            home, {"pre_tool_call": [{"command": str(guard), "matcher": "terminal"}]}, accept=False
        )
        assert _rm(hooks) == "block"
    assert "now pinned" in caplog.text
    [entry] = _allowlist(home)
    assert entry["sha256"] == consent.file_sha256(str(guard)) and entry["matcher"] == "terminal"
    assert entry["approved_at"] == "2026-01-01T00:00:00Z"


def test_tty_prompt_approves_once_and_remembers_a_no(home: Path, tmp_path: Path) -> None:
    guard = _guard(tmp_path)
    hooks = load(home, {"pre_tool_call": [{"command": str(guard)}]}, accept=False)
    plugin = shell_plugin(hooks)
    questions: list[str] = []
    plugin.ask = lambda text: questions.append(text) or False
    assert _rm(hooks) is None and _rm(hooks) is None
    assert len(questions) == 1
    q = questions[0]
    assert (
        "pre_tool_call" in q
        and str(guard) in q
        and consent.file_sha256(str(guard)) in q
        and "[y/N]" in q
    )

    hooks = load(home, {"pre_tool_call": [{"command": str(guard)}]}, accept=False)
    shell_plugin(hooks).ask = lambda text: True
    assert _rm(hooks) == "block"
    assert len(_allowlist(home)) == 1


def test_approval_written_by_another_process_is_seen_without_restart(
    home: Path, tmp_path: Path
) -> None:
    guard = _guard(tmp_path)
    hooks = load(home, {"pre_tool_call": [{"command": str(guard)}]}, accept=False)
    assert _rm(hooks) is None
    plugin = shell_plugin(hooks)
    other = consent.Allowlist(home / consent.FILENAME)
    other.approve(
        [
            consent.record(
                "pre_tool_call", str(guard), None, consent.file_sha256(str(guard)), str(guard)
            )
        ]
    )
    assert _rm(hooks) == "block"
    assert consent.Allowlist(home / consent.FILENAME).revoke(str(guard)) == 1
    assert _rm(hooks) is None
    assert plugin is shell_plugin(hooks)


def test_thirty_two_processes_approving_at_once_lose_no_entry(tmp_path: Path) -> None:
    path = tmp_path / consent.FILENAME
    code = (
        "import sys; from pathlib import Path; from hermes_hooks import consent\n"
        "consent.Allowlist(Path(sys.argv[1])).approve([consent.record('pre_tool_call', f'hook-{sys.argv[2]}', None, None, None)])\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path), str(i)]) for i in range(32)]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    commands = {e["command"] for e in json.loads(path.read_text())["approvals"]}
    assert commands == {f"hook-{i}" for i in range(32)}
    assert not list(tmp_path.glob("*.tmp"))


def test_revoke_removes_every_approval_of_a_command(tmp_path: Path) -> None:
    allow = consent.Allowlist(tmp_path / consent.FILENAME)
    allow.approve([consent.record("pre_tool_call", "x", None, None, None), consent.record("post_tool_call", "x", "terminal", None, None),
                   consent.record("pre_tool_call", "y", None, None, None)])  # fmt: skip
    assert allow.revoke("x") == 2
    assert [e["command"] for e in allow.entries()] == ["y"]
    assert allow.revoke("x") == 0
