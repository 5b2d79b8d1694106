"""Shell hooks on the command line: list, test, approve, revoke, doctor."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hermes_hooks.builtin_plugins.shell_hooks import consent
from shell_helpers import script, write_config

from hermes_hooks.cli import hoist_global_options, hooks_group


def _cli(home: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(hooks_group, hoist_global_options(["--home", str(home), *args]))
    return result.exit_code, result.output


@pytest.fixture
def guard(tmp_path: Path) -> Path:
    path = tmp_path / "guard.sh"
    shutil.copy(script("block_rm.sh"), path)
    path.chmod(0o755)
    return path


@pytest.fixture
def configured(home: Path, guard: Path) -> Path:
    write_config(home, {"hooks": {"pre_tool_call": [{"command": str(guard), "matcher": "terminal"}],
                                  "pre_llm_call": [{"command": f"bash {script('answer.sh')}", "env": {"ANSWER": "ctx"}}]}})  # fmt: skip
    return home


def test_list_json_shows_shell_hooks_with_status(configured: Path, guard: Path) -> None:
    code, out = _cli(configured, "list", "--json")
    rows = [r for r in json.loads(out) if r["source"] == "shell"]
    assert code == 0
    assert {(r["event"], r["status"]) for r in rows} == {
        ("pre_tool_call", "unapproved"),
        ("pre_llm_call", "unapproved"),
    }
    [row] = [r for r in rows if r["event"] == "pre_tool_call"]
    assert row["command"] == str(guard) and row["matcher"] == "terminal" and row["timeout"] == 60


def test_test_command_shows_unapproved_hooks_without_running_them(configured: Path) -> None:
    code, out = _cli(configured, "test", "pre_tool_call", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["event"] == "pre_tool_call"
    [hook] = doc["hooks"]
    assert hook["status"] == "unapproved" and not hook["ran"] and hook["exit_code"] is None


def test_test_command_runs_with_force_and_payload_file(configured: Path, tmp_path: Path) -> None:
    payload = tmp_path / "p.json"
    payload.write_text('{"args": {"command": "rm -rf /"}}')
    code, out = _cli(
        configured, "test", "PreToolUse", "--force", "--payload-file", str(payload), "--json"
    )
    doc = json.loads(out)
    [hook] = doc["hooks"]
    assert hook["ran"] and hook["exit_code"] == 0 and hook["elapsed_ms"] >= 0
    assert json.loads(hook["stdout"]) == {"action": "block", "message": "rm -rf is not allowed"}
    assert doc["result"]["action"] == "block"


def test_test_command_for_tool_filters_by_matcher(configured: Path) -> None:
    code, out = _cli(
        configured, "--accept-hooks", "test", "pre_tool_call", "--for-tool", "read_file"
    )
    assert code == 0 and "No shell hook matches pre_tool_call for tool 'read_file'" in out


def test_test_command_human_output(configured: Path) -> None:
    code, out = _cli(configured, "--accept-hooks", "test", "pre_llm_call")
    assert code == 0
    assert "exit code: 0" in out and "stdout: ctx" in out and 'Combined result: "ctx"' in out


def test_test_command_unknown_event_suggests(configured: Path) -> None:
    code, out = _cli(configured, "test", "pre_tools_call")
    assert code == 2 and "did you mean 'pre_tool_call'" in out


def test_approve_selected_and_all(configured: Path, guard: Path) -> None:
    code, out = _cli(configured, "approve", str(guard))
    assert code == 0 and "1 approval(s) written" in out
    entries = json.loads((configured / consent.FILENAME).read_text())["approvals"]
    assert [e["command"] for e in entries] == [str(guard)]
    assert entries[0]["sha256"] == consent.file_sha256(str(guard))
    code, out = _cli(configured, "approve", "--all")
    assert code == 0 and "1 approval(s) written" in out
    assert f"already approved pre_tool_call: {guard}" in out
    rows = json.loads(_cli(configured, "list", "--json")[1])
    assert {r["status"] for r in rows if r["source"] == "shell"} == {"active"}


def test_approve_unknown_command_fails(configured: Path) -> None:
    code, out = _cli(configured, "approve", "/not/configured.sh")
    assert code == 1 and "Not a configured shell hook command" in out


def test_approve_without_arguments_and_without_a_tty_says_how(configured: Path) -> None:
    code, out = _cli(configured, "approve")
    assert code == 2 and "hermes hooks approve --all" in out


def test_revoke_says_how_many(configured: Path, guard: Path) -> None:
    _cli(configured, "approve", "--all")
    code, out = _cli(configured, "revoke", str(guard))
    assert code == 0 and "Revoked 1 approval(s)" in out
    code, out = _cli(configured, "revoke", str(guard))
    assert code == 1 and f"No approval of '{guard}' to revoke" in out
    assert "answer.sh" in out  # what could be revoked is listed


def test_doctor_reports_problems_and_exit_code(configured: Path, guard: Path) -> None:
    code, out = _cli(configured, "doctor")
    assert code == 1 and "unapproved" in out and "3 check(s): 1 ok, 2 with problems" in out
    _cli(configured, "approve", "--all")
    code, out = _cli(configured, "doctor")
    assert code == 0, out
    assert "3 ok, 0 with problems" in out and "synthetic payload answered" in out
    guard.write_text(guard.read_text() + "# changed\n")
    code, out = _cli(configured, "doctor")
    assert code == 1 and "changed since approval" in out


def test_doctor_judges_the_real_argv(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_home = tmp_path / "fakehome"
    fake_home.mkdir()
    (fake_home / "x.sh").write_text(
        "#!/bin/sh\ncat >/dev/null\n"
    )  # not executable: fine through bash
    (fake_home / "y.sh").write_text("#!/bin/sh\n")
    monkeypatch.setenv("HOME", str(fake_home))
    write_config(
        home,
        {
            "hooks": {
                "post_llm_call": [
                    {"command": "bash ~/x.sh"},
                    {"command": "~/y.sh"},
                    {"command": "~/missing.sh"},
                ]
            }
        },
    )
    code, out = _cli(home, "--accept-hooks", "doctor")
    assert code == 1
    assert "✓ command runs as configured" in out
    assert "y.sh is not executable" in out and "missing.sh not found" in out


def test_doctor_flags_bad_answers(home: Path) -> None:
    write_config(
        home,
        {
            "hooks": {
                "pre_tool_call": [
                    {"command": f"bash {script('answer.sh')}", "env": {"ANSWER": "garbage"}}
                ]
            }
        },
    )
    code, out = _cli(home, "--accept-hooks", "doctor")
    assert code == 1 and "not a JSON object" in out


def test_doctor_reports_config_problems(home: Path) -> None:
    write_config(home, {"hooks": {"pre_tools_call": [{"command": "true"}]}})
    code, out = _cli(home, "doctor")
    assert code == 1 and "did you mean 'pre_tool_call'" in out
