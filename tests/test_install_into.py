"""`hermes hooks install-into` / `uninstall-from`: each agent's own hook file, written through
the CLI on real temp dirs, read back by our own readers, and the fault matrix of a command that
writes someone else's config (garbage, edits, refusals, typos, no approval)."""

from __future__ import annotations

import json
import logging
import os
import shlex
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

import hermes_hooks
from hermes_hooks import catalogue
from hermes_hooks.cli import hoist_global_options, hooks_group

AGENTS = ["claude", "codex", "gemini", "cursor", "copilot"]
#: Where each agent keeps a project's hooks (what the agents' docs say; install-into finds it
#: through the shell hooks' readers).
PROJECT_FILE = {
    "claude": ".claude/settings.local.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
    "cursor": ".cursor/hooks.json",
    "copilot": ".github/hooks/hermes-hooks.json",
}


@pytest.fixture
def world(home, tmp_path, monkeypatch):
    """A user folder, a project (the working directory) and a home, nothing else."""
    user = tmp_path / "user"
    user.mkdir()
    for var in ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "COPILOT_HOME", "HERMES_HOOKS_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(user))
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    return {"home": home, "user": user, "project": project}


def cli(world, *args):
    argv = hoist_global_options(["--home", str(world["home"]), *args])
    return CliRunner().invoke(hooks_group, argv, catch_exceptions=False)


def expected_events(agent):
    """The agent's events that one of ours stands for, read off the hookspecs here."""
    names = []
    for info in catalogue.events().values():
        declared = info.claude if agent == "claude" else info.dialect_events(agent)
        names += [e.name for e in declared if e.name not in names]
    return names


def entries(agent, data):
    """(event, entry) for every hook entry in an agent file."""
    out = []
    for event, items in data["hooks"].items():
        for item in items:
            for entry in [item] if agent in ("cursor", "copilot") else item["hooks"]:
                out.append((event, entry))
    return out


def command_of(agent, entry):
    return entry.get("bash" if agent == "copilot" else "command")


# ---------------------------------------------------------------------- what is written


@pytest.mark.parametrize("agent", AGENTS)
def test_install_into_routes_every_mapped_event_and_our_readers_read_it_back(world, agent, caplog):
    out = cli(world, "install-into", agent, "--yes")
    assert out.exit_code == 0, out.output
    path = world["project"] / PROJECT_FILE[agent]
    data = json.loads(path.read_text())
    written = entries(agent, data)
    assert sorted(e for e, _ in written) == sorted(expected_events(agent))
    for event, entry in written:
        if entry.get("type") == "http":
            assert entry["url"].endswith(f"/v1/hooks/{agent}/{event}")
            continue
        words = shlex.split(command_of(agent, entry))
        # Claude Code's one client entry (SessionStart, where it runs no http hook) checks the
        # http route the others take
        check = ["--check-http"] if agent == "claude" else []
        assert words[1:] == ["hooks", "client", agent, event, "--home", str(world["home"]), *check]
        assert Path(words[0]).name == "hermes"
    # our own readers take every entry as that agent's hook of that event, with no complaint
    config = {"hooks_sources": [agent], "allowed_http_hook_urls": ["http://127.0.0.1:8765/*"]}
    caplog.set_level(logging.WARNING, logger="hermes_hooks")
    hooks = hermes_hooks.load(world["home"], config=config)
    try:
        rows = [r for r in hooks.rows() if r.get("origin") == str(path)]
    finally:
        hooks.close()
    assert sorted(r["configured_event"] for r in rows) == sorted(expected_events(agent))
    complaints = [
        r.getMessage()
        for r in caplog.records
        if str(path) in r.getMessage() and "a deny cannot be carried over" not in r.getMessage()
    ]
    assert complaints == []


def test_decision_events_fail_closed_in_the_agents_own_setting(world):
    for agent in ("claude", "cursor"):
        assert cli(world, "install-into", agent, "--yes").exit_code == 0
    claude = dict(
        entries("claude", json.loads((world["project"] / PROJECT_FILE["claude"]).read_text()))
    )
    # by default every Claude Code event it runs an http hook on goes over http; a decision
    # event blocks when the service does not answer
    for event in ("PreToolUse", "PermissionRequest", "UserPromptSubmit", "Stop"):
        assert claude[event]["type"] == "http" and claude[event]["onFailure"] == "block", event
    # an event that decides nothing does not block
    assert claude["SessionEnd"]["type"] == "http" and "onFailure" not in claude["SessionEnd"]
    # except where Claude Code skips http hooks: the client, which checks the http route
    assert claude["SessionStart"]["type"] == "command" and "onFailure" not in claude["SessionStart"]
    assert shlex.split(claude["SessionStart"]["command"])[-1] == "--check-http"
    cursor = dict(
        entries("cursor", json.loads((world["project"] / PROJECT_FILE["cursor"]).read_text()))
    )
    assert cursor["beforeShellExecution"]["failClosed"] is True
    assert cursor["stop"]["failClosed"] is True
    assert "failClosed" not in cursor["sessionEnd"]
    assert "failClosed" not in cursor["afterShellExecution"]  # Cursor reads no answer there


@pytest.mark.parametrize("via", [[], ["--via", "auto"], ["--via", "http"]])
def test_claude_via_http_blocks_on_failure_and_never_writes_the_token(world, via):
    """http is the default (auto); ``--via http`` stays as its older name."""
    serve = world["home"] / "serve"
    serve.mkdir()
    (serve / "token").write_text("s3cret-token-value")
    (serve / "url").write_text("http://127.0.0.1:9911\n")
    out = cli(world, "install-into", "claude", *via, "--yes")
    assert out.exit_code == 0, out.output
    text = (world["project"] / PROJECT_FILE["claude"]).read_text()
    assert "s3cret-token-value" not in text
    claude = dict(entries("claude", json.loads(text)))
    assert claude["PreToolUse"] == {
        "type": "http",
        "url": "http://127.0.0.1:9911/v1/hooks/claude/PreToolUse",
        "headers": {"Authorization": "Bearer $HERMES_HOOKS_TOKEN"},
        "allowedEnvVars": ["HERMES_HOOKS_TOKEN"],
        "timeout": 30,
        "onFailure": "block",
    }
    assert "HERMES_HOOKS_TOKEN" in out.output  # says where the token has to come from
    assert claude["SessionStart"]["type"] == "command"  # Claude Code runs no http hook there
    assert all(e["type"] == "http" for name, e in claude.items() if name != "SessionStart")


def test_claude_via_client_routes_every_event_through_the_client(world):
    """``--via client``: the in-process fallback when the service is down, for every event."""
    out = cli(world, "install-into", "claude", "--via", "client", "--yes")
    assert out.exit_code == 0, out.output
    claude = dict(
        entries("claude", json.loads((world["project"] / PROJECT_FILE["claude"]).read_text()))
    )
    assert sorted(claude) == sorted(expected_events("claude"))
    for event, entry in claude.items():
        assert entry["type"] == "command", event
        words = shlex.split(entry["command"])
        assert words[1:] == ["hooks", "client", "claude", event, "--home", str(world["home"])]
    assert claude["PreToolUse"] == {
        "type": "command",
        "command": claude["PreToolUse"]["command"],
        "onFailure": "block",
    }
    assert claude["PermissionRequest"]["onFailure"] == "block"
    assert "onFailure" not in claude["SessionEnd"] and "onFailure" not in claude["SessionStart"]
    assert "HERMES_HOOKS_TOKEN" not in out.output  # the client reads the token file itself


def test_via_http_is_refused_for_an_agent_without_http_hooks(world):
    out = cli(world, "install-into", "codex", "--via", "http", "--yes")
    assert out.exit_code == 2 and "only Claude Code has an http hook type" in out.output
    assert not (world["project"] / ".codex").exists()


def test_user_scope_writes_the_users_own_files(world, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codexhome"))
    for agent in AGENTS:
        assert cli(world, "install-into", agent, "--user", "--yes").exit_code == 0
    user = world["user"]
    for path in (
        user / ".claude" / "settings.json",
        tmp_path / "codexhome" / "hooks.json",
        user / ".gemini" / "settings.json",
        user / ".cursor" / "hooks.json",
        user / ".copilot" / "hooks" / "hermes-hooks.json",
    ):
        assert path.is_file(), path
    assert list(world["project"].iterdir()) == []


# ---------------------------------------------------------------------- merging, idempotence


ORIGINAL = """{"permissions": {"allow": ["Bash(ls)"]},
   "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./mine.sh"}]}],
             "Stop": [{"hooks": [{"type": "command", "command": "./stop.sh"}]}]}}
"""


def test_merge_keeps_the_users_hooks_and_uninstall_restores_the_file_byte_for_byte(world):
    path = world["project"] / ".claude" / "settings.local.json"
    path.parent.mkdir()
    path.write_text(ORIGINAL)
    out = cli(world, "install-into", "claude", "--yes")
    assert out.exit_code == 0, out.output
    assert "+++" in out.output and "./mine.sh" in path.read_text()  # a diff was shown
    data = json.loads(path.read_text())
    assert data["permissions"] == {"allow": ["Bash(ls)"]}
    assert data["hooks"]["PreToolUse"][0] == {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "./mine.sh"}],
    }
    assert (path.parent / "settings.local.json.hermes-hooks.bak").read_text() == ORIGINAL
    out = cli(world, "uninstall-from", "claude", "--yes")
    assert out.exit_code == 0, out.output
    assert path.read_text() == ORIGINAL


def test_running_install_into_twice_changes_nothing_the_second_time(world):
    assert cli(world, "install-into", "gemini", "--yes").exit_code == 0
    path = world["project"] / PROJECT_FILE["gemini"]
    data = json.loads(path.read_text())  # the user adds a hook of their own after ours
    data["hooks"]["BeforeTool"].append({"hooks": [{"type": "command", "command": "./mine.sh"}]})
    path.write_text(json.dumps(data, indent=2) + "\n")
    before = path.read_bytes()
    out = cli(world, "install-into", "gemini", "--yes")
    assert out.exit_code == 0 and "nothing to change" in out.output
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]  # no backup


def test_uninstall_removes_a_file_install_into_created(world):
    assert cli(world, "install-into", "copilot", "--yes").exit_code == 0
    path = world["project"] / PROJECT_FILE["copilot"]
    assert path.is_file()
    out = cli(world, "uninstall-from", "copilot", "--yes")
    assert out.exit_code == 0, out.output
    assert not path.exists()


def test_install_refreshes_a_stale_entry_of_ours_in_place(world):
    assert cli(world, "install-into", "codex", "--yes").exit_code == 0
    path = world["project"] / PROJECT_FILE["codex"]
    fresh = path.read_text()
    stale = fresh.replace(str(world["home"]), "/old/home")
    path.write_text(stale)
    out = cli(world, "install-into", "codex", "--yes")
    assert out.exit_code == 0, out.output
    assert path.read_text() == fresh


# ---------------------------------------------------------------------- the fault matrix


def test_a_file_that_does_not_parse_is_refused_naming_the_line_and_left_alone(world):
    path = world["project"] / ".gemini" / "settings.json"
    path.parent.mkdir()
    garbage = '{\n  "theme": "dark",\n  oops\n}\n'
    path.write_text(garbage)
    out = cli(world, "install-into", "gemini", "--yes")
    assert out.exit_code == 1
    assert f"{path}: line 3, column 3: not valid JSON" in out.output
    assert "nothing was written" in out.output
    assert path.read_text() == garbage
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


def test_a_file_of_another_shape_is_refused(world):
    path = world["project"] / ".cursor" / "hooks.json"
    path.parent.mkdir()
    path.write_text('{"version": 1, "hooks": ["not", "a", "mapping"]}')
    out = cli(world, "install-into", "cursor", "--yes")
    assert out.exit_code == 1 and "'hooks' must be an object" in out.output
    assert path.read_text() == '{"version": 1, "hooks": ["not", "a", "mapping"]}'


def test_headless_without_yes_refuses_and_writes_nothing(world):
    out = cli(world, "install-into", "cursor")
    assert out.exit_code == 1
    assert "not on a terminal" in out.output and "--yes" in out.output
    assert not (world["project"] / ".cursor").exists()


def test_uninstall_headless_without_yes_keeps_the_entries(world):
    assert cli(world, "install-into", "cursor", "--yes").exit_code == 0
    path = world["project"] / PROJECT_FILE["cursor"]
    before = path.read_bytes()
    out = cli(world, "uninstall-from", "cursor")
    assert out.exit_code == 1 and "not on a terminal" in out.output
    assert path.read_bytes() == before


def test_a_misspelt_agent_gets_a_did_you_mean(world):
    out = cli(world, "install-into", "cluade", "--yes")
    assert out.exit_code == 2
    assert "unknown agent 'cluade' (did you mean 'claude'?)" in out.output
    out = cli(world, "uninstall-from", "gemni", "--yes")
    assert out.exit_code == 2 and "did you mean 'gemini'?" in out.output


def test_uninstall_keeps_an_edited_entry_of_ours_and_reports_it(world):
    path = world["project"] / ".codex" / "hooks.json"
    path.parent.mkdir()
    mine = {"type": "command", "command": "./audit.sh"}
    path.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [mine]}]}}))
    assert cli(world, "install-into", "codex", "--yes").exit_code == 0
    data = json.loads(path.read_text())
    edited = data["hooks"]["PreToolUse"][1]["hooks"][0]
    edited["timeout"] = 5
    path.write_text(json.dumps(data, indent=2))
    out = cli(world, "uninstall-from", "codex", "--yes")
    assert out.exit_code == 1
    assert "kept hooks.PreToolUse[1].hooks[0]" in out.output and "changed since" in out.output
    left = json.loads(path.read_text())
    assert left["hooks"] == {"PreToolUse": [{"hooks": [mine]}, {"hooks": [edited]}]}


def test_a_target_that_cannot_be_written_is_refused_with_nothing_half_written(world):
    (world["project"] / ".cursor").write_text("a file where the folder should be\n")
    out = cli(world, "install-into", "cursor", "--yes")
    assert out.exit_code == 1
    assert "cannot write" in out.output and "nothing was written" in out.output
    assert (world["project"] / ".cursor").read_text() == "a file where the folder should be\n"
    assert sorted(p.name for p in world["project"].iterdir()) == [".cursor"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files")
def test_a_read_only_file_is_refused_and_kept(world):
    path = world["project"] / ".codex" / "hooks.json"
    path.parent.mkdir()
    path.write_text('{"hooks": {}}')
    path.chmod(0o444)
    out = cli(world, "install-into", "codex", "--yes")
    assert out.exit_code == 1 and "cannot write" in out.output
    assert path.read_text() == '{"hooks": {}}'
    assert sorted(p.name for p in path.parent.iterdir()) == ["hooks.json"]


def test_install_is_refused_when_the_home_already_reads_the_agents_files(world):
    (world["home"] / "config.yaml").write_text("hooks_sources: [codex]\n")
    out = cli(world, "install-into", "codex", "--yes")
    assert out.exit_code == 1
    assert "hooks_sources lists 'codex'" in out.output and "a loop" in out.output
    assert not (world["project"] / ".codex").exists()


# ---------------------------------------------------------------------- list and doctor


class Health(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's name)
        self.send_response(200 if self.path == "/v1/health" else 404)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def service(world):
    server = ThreadingHTTPServer(("127.0.0.1", 0), Health)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    serve = world["home"] / "serve"
    serve.mkdir(exist_ok=True)
    (serve / "url").write_text(f"http://127.0.0.1:{server.server_address[1]}\n")
    yield server
    server.shutdown()
    server.server_close()


def test_list_shows_which_agents_route_here(world):
    assert cli(world, "install-into", "codex", "--yes").exit_code == 0
    out = cli(world, "list", "--json")
    assert out.exit_code == 0, out.output
    rows = [r for r in json.loads(out.output) if r.get("source") == "agent"]
    assert len(rows) == 1 and rows[0]["agent"] == "codex" and rows[0]["status"] == "routed"
    assert rows[0]["events"] == expected_events("codex") and rows[0]["service_up"] is False
    out = cli(world, "list")
    assert f"codex routes {len(expected_events('codex'))} event(s) here (routed)" in out.output


def test_doctor_warns_when_agents_route_here_and_the_service_is_down(world):
    assert cli(world, "install-into", "gemini", "--yes").exit_code == 0
    out = cli(world, "doctor", "--json")
    doc = json.loads(out.output)
    assert out.exit_code == 0 and doc["ok"] is True
    service = next(c for c in doc["checks"] if c["kind"] == "service")
    assert "warning" in service["notes"][0] and "does not answer" in service["notes"][0]


def test_doctor_says_the_service_answers(world, service):
    assert cli(world, "install-into", "gemini", "--yes").exit_code == 0
    doc = json.loads(cli(world, "doctor", "--json").output)
    check = next(c for c in doc["checks"] if c["kind"] == "service")
    assert check["ok"] and check["notes"][0].endswith("/v1/health answered 200")


def test_doctor_fails_on_an_edited_entry_of_ours(world):
    assert cli(world, "install-into", "cursor", "--yes").exit_code == 0
    path = world["project"] / PROJECT_FILE["cursor"]
    data = json.loads(path.read_text())
    del data["hooks"]["preToolUse"][0]["failClosed"]
    path.write_text(json.dumps(data))
    out = cli(world, "doctor", "--json")
    assert out.exit_code == 1
    agent = next(c for c in json.loads(out.output)["checks"] if c["kind"] == "agent")
    assert agent["problems"] == [
        "hooks.preToolUse[0]: differs from what install-into writes here: an entry of ours "
        "was changed since install-into wrote it; run `hermes hooks install-into cursor` again"
    ]


def test_a_file_that_is_not_utf8_is_refused(world):
    path = world["project"] / ".codex" / "hooks.json"
    path.parent.mkdir()
    path.write_bytes(b'{"hooks": {"\xff\xfe": []}}')
    out = cli(world, "install-into", "codex", "--yes")
    assert out.exit_code == 1 and "not UTF-8" in out.output and str(path) in out.output
    assert path.read_bytes() == b'{"hooks": {"\xff\xfe": []}}'


def test_uninstall_refuses_a_file_that_does_not_parse(world):
    path = world["project"] / ".cursor" / "hooks.json"
    path.parent.mkdir()
    path.write_text('{"version": 1,,}')
    out = cli(world, "uninstall-from", "cursor", "--yes")
    assert out.exit_code == 1 and "line 1, column 15: not valid JSON" in out.output
    assert path.read_text() == '{"version": 1,,}'


def _on_a_terminal(world, answer, *args):
    """Run the real console script with a terminal for stdin and stdout, answering the
    question with ``answer``; its whole output."""
    import pty
    import select
    import shutil
    import subprocess
    import sys

    script = Path(sys.executable).parent / "hermes-hooks"
    assert script.is_file() or shutil.which("hermes-hooks")
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES")}
    env.update(HOME=str(world["user"]), HERMES_HOME=str(world["home"]), NO_COLOR="1")
    proc = subprocess.Popen(
        [str(script), *args], stdin=follower, stdout=follower, stderr=follower,
        cwd=world["project"], env=env, close_fds=True,
    )  # fmt: skip
    os.close(follower)
    seen = b""
    answered = False
    while True:
        ready, _, _ = select.select([leader], [], [], 30)
        if not ready:
            proc.kill()
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the command ended
            break
        if not chunk:
            break
        seen += chunk
        if not answered and b"[y/N]" in seen:
            os.write(leader, answer)
            answered = True
    os.close(leader)
    assert proc.wait(timeout=30) is not None
    return proc.returncode, seen.decode("utf-8", "replace")


def test_on_a_terminal_it_asks_and_writes_only_when_approved(world):
    path = world["project"] / PROJECT_FILE["codex"]
    code, text = _on_a_terminal(world, b"n\n", "install-into", "codex")
    assert code == 1 and "Go ahead with writing" in text and "not approved" in text
    assert not path.exists()
    code, text = _on_a_terminal(world, b"y\n", "install-into", "codex")
    assert code == 0 and f"wrote {path}" in text
    assert "hooks client codex PreToolUse" in path.read_text()


def test_it_says_when_the_agent_would_run_none_of_the_hooks(world, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codexhome"))
    out = cli(world, "install-into", "codex", "--yes")
    assert out.exit_code == 0 and "warning: Codex runs hooks only with `[features]`" in out.output
    (tmp_path / "codexhome").mkdir()
    (tmp_path / "codexhome" / "config.toml").write_text("[features]\nhooks = true\n")
    out = cli(world, "install-into", "codex", "--yes")
    # the real Codex 0.169 runs no hook of a project's .codex/hooks.json in an untrusted folder
    assert out.exit_code == 0 and "only in a folder it trusts" in out.output
    assert f'`[projects."{world["project"]}"]` `trust_level = "trusted"`' in out.output
    (tmp_path / "codexhome" / "config.toml").write_text(
        f'[features]\nhooks = true\n[projects."{world["project"]}"]\ntrust_level = "trusted"\n'
    )
    out = cli(world, "install-into", "codex", "--yes")
    assert "warning" not in out.output
    gemini = world["project"] / ".gemini" / "settings.json"
    gemini.parent.mkdir()
    gemini.write_text('{"hooksConfig": {"enabled": false}}')
    out = cli(world, "install-into", "gemini", "--yes")
    assert out.exit_code == 0 and "hooksConfig.enabled is false" in out.output
    doc = json.loads(cli(world, "doctor", "--json").output)
    notes = [n for c in doc["checks"] if c["kind"] == "agent" for n in c["notes"]]
    assert any("hooksConfig.enabled is false" in n for n in notes)
    claude = world["project"] / ".claude" / "settings.local.json"
    claude.parent.mkdir()
    claude.write_text('{"disableAllHooks": true}')
    out = cli(world, "install-into", "claude", "--yes")
    assert out.exit_code == 0 and "disableAllHooks is true" in out.output


def test_a_linked_settings_file_stays_a_link_and_the_file_behind_it_changes(world):
    dotfiles = world["user"] / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "claude-settings.json"
    real.write_text('{"model": "opus"}\n')
    link = world["user"] / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(real)
    out = cli(world, "install-into", "claude", "--user", "--yes")
    assert out.exit_code == 0, out.output
    assert link.is_symlink() and "/v1/hooks/claude/PreToolUse" in real.read_text()
    assert (dotfiles / "claude-settings.json.hermes-hooks.bak").read_text() == '{"model": "opus"}\n'
    assert cli(world, "uninstall-from", "claude", "--user", "--yes").exit_code == 0
    assert link.is_symlink() and real.read_text() == '{"model": "opus"}\n'


def test_a_new_file_gets_the_users_ordinary_mode(world):
    assert cli(world, "install-into", "codex", "--yes").exit_code == 0
    mask = os.umask(0)
    os.umask(mask)
    mode = (world["project"] / PROJECT_FILE["codex"]).stat().st_mode & 0o777
    assert mode == 0o666 & ~mask


def test_gemini_switches_beside_the_events_are_kept(world):
    path = world["project"] / ".gemini" / "settings.json"
    path.parent.mkdir()
    original = '{"hooks": {"disabled": ["old-guard"], "BeforeTool": []}}\n'
    path.write_text(original)
    assert cli(world, "install-into", "gemini", "--yes").exit_code == 0
    assert json.loads(path.read_text())["hooks"]["disabled"] == ["old-guard"]
    assert cli(world, "uninstall-from", "gemini", "--yes").exit_code == 0
    assert path.read_text() == original


# ---------------------------------------------------------------------- any file of the agent's shape

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_names = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=12)
_commands = st.text(min_size=1, max_size=20).map(lambda t: f"./{t}")


@st.composite
def agent_files(draw):
    agent = draw(st.sampled_from(AGENTS))
    events = st.one_of(st.sampled_from(expected_events(agent)), _names)
    if agent in ("cursor", "copilot"):
        key = "bash" if agent == "copilot" else "command"
        items = st.lists(st.fixed_dictionaries({key: _commands}), max_size=3)
    else:
        handler = st.fixed_dictionaries({"type": st.just("command"), "command": _commands})
        group = st.fixed_dictionaries(
            {"hooks": st.lists(handler, min_size=1, max_size=2)}, optional={"matcher": _names}
        )
        items = st.lists(group, max_size=3)
    data = draw(st.dictionaries(_names.filter(lambda n: n != "hooks"), st.integers(), max_size=3))
    data["hooks"] = draw(st.dictionaries(events, items, max_size=4))
    indent = draw(st.sampled_from([None, 2, 4, "\t"]))
    return agent, json.dumps(data, indent=indent, ensure_ascii=draw(st.booleans())) + "\n"


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=agent_files())
def test_any_file_of_the_agents_shape_survives_install_and_uninstall_byte_for_byte(world, case):
    import tempfile

    agent, original = case
    project = Path(tempfile.mkdtemp(dir=world["project"]))
    path = project / PROJECT_FILE[agent]
    path.parent.mkdir(parents=True)
    path.write_text(original)
    out = cli(world, "install-into", agent, "--project", str(project), "--yes")
    assert out.exit_code == 0, out.output
    installed = path.read_bytes()
    out = cli(world, "install-into", agent, "--project", str(project), "--yes")
    assert "nothing to change" in out.output and path.read_bytes() == installed
    marks = ("hooks client", "/v1/hooks/")
    written = entries(agent, json.loads(installed))
    routed = {e for e, entry in written if any(m in json.dumps(entry) for m in marks)}
    assert routed == set(expected_events(agent))
    out = cli(world, "uninstall-from", agent, "--project", str(project), "--yes")
    assert out.exit_code == 0, out.output
    assert path.read_text() == original


def test_a_project_that_does_not_exist_is_a_usage_error(world):
    out = cli(world, "install-into", "codex", "--project", str(world["project"] / "nope"), "--yes")
    assert out.exit_code == 2 and "does not exist" in out.output
    assert not (world["project"] / "nope").exists()
