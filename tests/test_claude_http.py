"""Claude Code routed over its http hook type (what `hermes hooks install-into claude` writes by
default, docs/agents.md): a stopped service or a token missing from Claude Code's environment
blocks every decision event, so nothing may go quiet. The SessionStart entry (the client: Claude
Code runs no http hook there) checks the service and the token and says what is wrong, with the
fix, in the `systemMessage` Claude Code shows and on stderr; install-into, `doctor` and `list`
say it too. Real `hermes hooks serve` processes, the client command install-into wrote run as a
real process, the CLI through click."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from serve_helpers import free_port, make_home, request, serving

from hermes_hooks.cli import hoist_global_options, hooks_group

SETTINGS = ".claude/settings.local.json"
START = {"session_id": "orc-s1", "hook_event_name": "SessionStart", "source": "startup",
         "cwd": "/tmp", "transcript_path": None}  # fmt: skip
BLOCKED = "Claude Code blocks every decision event"


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    user = tmp_path / "user"
    user.mkdir()
    for var in ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "COPILOT_HOME", "HERMES_HOOKS_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(user))
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    return {"home": make_home(tmp_path / "home"), "project": project}


def cli(world: dict[str, Path], *args: str) -> Any:
    argv = hoist_global_options(["--home", str(world["home"]), *args])
    return CliRunner().invoke(hooks_group, argv, catch_exceptions=False)


def installed(world: dict[str, Path], *via: str) -> dict[str, dict[str, Any]]:
    out = cli(world, "install-into", "claude", *via, "--yes")
    assert out.exit_code == 0, out.output
    data = json.loads((world["project"] / SETTINGS).read_text())
    return {event: groups[0]["hooks"][0] for event, groups in data["hooks"].items()}


def session_start(entry: dict[str, Any], token: str | None) -> subprocess.CompletedProcess[str]:
    """The SessionStart entry's command, as Claude Code runs it (a shell, its environment)."""
    env = {k: v for k, v in os.environ.items() if k != "HERMES_HOOKS_TOKEN"}
    if token is not None:
        env["HERMES_HOOKS_TOKEN"] = token
    return subprocess.run(shlex.split(entry["command"]), input=json.dumps(START),
                          capture_output=True, text=True, timeout=120, env=env)  # fmt: skip


def said(done: subprocess.CompletedProcess[str]) -> tuple[dict[str, Any], str]:
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout)
    # it still answers SessionStart as without the check: the home's context
    context = reply["hookSpecificOutput"]["additionalContext"]
    assert context == "session orc-s1 starts"
    return reply, done.stderr


def test_by_default_decision_events_go_over_http_and_block_when_it_fails(world):
    entries = installed(world)
    for event in ("PreToolUse", "PermissionRequest", "UserPromptSubmit", "Stop"):
        assert entries[event]["type"] == "http" and entries[event]["onFailure"] == "block"
        assert entries[event]["url"].endswith(f"/v1/hooks/claude/{event}")
    start = shlex.split(entries["SessionStart"]["command"])
    assert start[2:5] == ["client", "claude", "SessionStart"] and start[-1] == "--check-http"


def test_session_start_warns_when_the_service_is_down(world):
    home = world["home"]
    (home / "serve").mkdir(mode=0o700)
    (home / "serve" / "url").write_text(f"http://127.0.0.1:{free_port()}\n")
    entry = installed(world)["SessionStart"]
    reply, stderr = said(session_start(entry, "some-token"))
    message = reply["systemMessage"]
    assert "does not answer" in message and f"hermes hooks serve --home {home}" in message
    assert BLOCKED in message
    assert message in stderr  # on the terminal too
    assert "HERMES_HOOKS_TOKEN is not set" not in message  # it is set: not blamed


def test_session_start_warns_when_no_service_ever_ran(world):
    entry = installed(world)["SessionStart"]
    reply, stderr = said(session_start(entry, "some-token"))
    assert "no hermes-hooks service has run" in reply["systemMessage"]
    assert f"hermes hooks serve --home {world['home']}" in reply["systemMessage"]
    assert reply["systemMessage"] in stderr


def test_session_start_warns_when_the_token_is_unset_or_wrong_and_is_quiet_when_all_is_well(
    world,
):
    home = world["home"]
    with serving(home) as service:
        entry = installed(world)["SessionStart"]
        export = f'export HERMES_HOOKS_TOKEN="$(cat {home / "serve" / "token"})"'
        unset, stderr = said(session_start(entry, None))
        assert (
            "$HERMES_HOOKS_TOKEN is not set in Claude Code's environment"
            in (unset["systemMessage"])
        )
        assert export in unset["systemMessage"] and BLOCKED in unset["systemMessage"]
        assert unset["systemMessage"] in stderr
        assert "does not answer" not in unset["systemMessage"]  # the service is up
        wrong, stderr = said(session_start(entry, service.token + "x"))
        assert "is not the token of the service" in wrong["systemMessage"]
        assert "answered 401" in wrong["systemMessage"] and export in wrong["systemMessage"]
        assert wrong["systemMessage"] in stderr
        good = session_start(entry, service.token)
        reply, stderr = said(good)
        assert "systemMessage" not in reply and stderr == ""


def test_via_client_writes_no_check_and_needs_no_token(world):
    entries = installed(world, "--via", "client")
    assert all(e["type"] == "command" for e in entries.values())
    assert "--check-http" not in entries["SessionStart"]["command"]
    with serving(world["home"]):
        reply, stderr = said(session_start(entries["SessionStart"], None))
    assert "systemMessage" not in reply and stderr == ""


def test_the_check_is_for_claude_only(world):
    done = subprocess.run(
        [shlex.split(installed(world)["SessionStart"]["command"])[0], "hooks", "client",
         "codex", "SessionStart", "--home", str(world["home"]), "--check-http"],
        input="{}", capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "agent claude only" in done.stderr


def test_health_checks_a_token_sent_along(world):
    with serving(world["home"]) as service:
        bearer = {"Authorization": f"Bearer {service.token}"}
        assert request(service.url, "GET", "/v1/health", b"", bearer) == (
            200, {"status": "ok", "service": "hermes-hooks", "token": "accepted"}
        )  # fmt: skip
        status, reply = request(service.url, "GET", "/v1/health", b"", {"Authorization": "x"})
        assert status == 401 and service.token not in json.dumps(reply)


def test_install_into_says_whether_the_service_answers_now_and_the_export_line(world, monkeypatch):
    home = world["home"]
    export = f'export HERMES_HOOKS_TOKEN="$(cat {home / "serve" / "token"})"'
    out = cli(world, "install-into", "claude", "--yes")
    assert export in out.output and "every tool call is blocked" in out.output
    assert "warning: no hermes-hooks service has run" in out.output
    with serving(home) as service:
        monkeypatch.setenv("HERMES_HOOKS_TOKEN", service.token)
        out = cli(world, "install-into", "claude", "--yes")
        assert f"the service at {service.url} answers now and takes $HERMES_HOOKS_TOKEN" in (
            out.output
        )
        assert "warning" not in out.output
        monkeypatch.setenv("HERMES_HOOKS_TOKEN", "wrong")
        out = cli(world, "install-into", "claude", "--yes")
        assert "warning: $HERMES_HOOKS_TOKEN in this shell is not the token" in out.output


def test_doctor_and_list_say_a_down_service_blocks_claudes_tool_calls(world):
    home = world["home"]
    (home / "serve").mkdir(mode=0o700)
    (home / "serve" / "url").write_text(f"http://127.0.0.1:{free_port()}\n")
    installed(world)
    doc = json.loads(cli(world, "doctor", "--json").output)
    service = next(c for c in doc["checks"] if c["kind"] == "service")
    note = service["notes"][0]
    assert "does not answer" in note and "claude blocks" in note and "PreToolUse" in note
    assert "every tool call is blocked until the service answers" in note
    rows = [r for r in json.loads(cli(world, "list", "--json").output) if r["source"] == "agent"]
    assert "PreToolUse" in rows[0]["blocked_when_down"]
    assert "every tool call is blocked" in rows[0]["when_down"]
    text = cli(world, "list").output
    assert "while it is down: claude blocks" in text and "every tool call is blocked" in text
    # through the client instead: the fallback, not a block
    installed(world, "--via", "client")
    text = cli(world, "list").output
    assert "while it is down: the client runs the hooks in-process" in text


def test_a_file_the_previous_default_wrote_is_still_ours_and_uninstalls(world):
    """Before http was the default, `--via auto` wrote the client for decision events and
    SessionStart (no check) and http for the rest: such a file is routed (not "changed"),
    nothing of it blocks while the service is down, and uninstall-from takes it all out."""
    http = installed(world)
    client = installed(world, "--via", "client")
    old = {e: client[e] if "onFailure" in http[e] or e == "SessionStart" else http[e] for e in http}
    path = world["project"] / SETTINGS
    path.write_text(json.dumps({"hooks": {e: [{"hooks": [entry]}] for e, entry in old.items()}}))
    rows = [r for r in json.loads(cli(world, "list", "--json").output) if r["source"] == "agent"]
    assert [r["status"] for r in rows] == ["routed"] and sorted(rows[0]["events"]) == sorted(old)
    assert rows[0]["blocked_when_down"] == []
    assert "the client runs the hooks in-process" in rows[0]["when_down"]
    out = cli(world, "uninstall-from", "claude", "--yes")
    assert out.exit_code == 0, out.output
    assert json.loads(path.read_text()) == {}  # every entry was ours, and taken out
