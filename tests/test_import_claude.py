"""``hermes hooks import --from claude``: the imported config.yaml decides exactly as the
project's Claude Code files read in place (``hooks_sources: [claude]``), every guard field
carried (the exec form, ``if``, http / prompt / mcp_tool handlers, ``required``, ``pin``,
``persistent``, ...), relative commands run from the project; and anything that cannot be
carried exactly makes the command exit 1, naming each entry, with nothing written.

Hook scripts are the published ones of ``tests/data/hooks`` and small Claude Code guards
written here; the commands they judge are strings in payloads, never run."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from dialect_helpers import Agents, agents_fixture, rows_of  # noqa: F401
from hook_servers import Server, model, policy

import hermes_hooks

DATA = Path(__file__).parent / "data" / "hooks"

#: A Claude Code guard (exit 2 blocks with stderr), run in the exec form with a relative path.
GUARD = """\
import json, sys
payload = json.load(sys.stdin)
if "rm -rf" in str(payload.get("tool_input", {}).get("command", "")):
    print("guard.py: no rm -rf", file=sys.stderr)
    sys.exit(2)
"""


def cli(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("HERMES")}
    full.update(env or {})
    return subprocess.run([sys.executable, "-m", "hermes_hooks", *args], cwd=cwd, env=full,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


@pytest.fixture
def servers() -> Iterator[tuple[Server, Server]]:
    with policy() as service, model() as judge:
        yield service, judge


def project_hooks(agents: Agents, service: Server, judge: Server) -> Path:
    """A project whose ``.claude/settings.json`` guards the shell and file writes the ways
    Claude Code allows; the settings file's path."""
    hooks_dir = agents.project / ".claude" / "hooks"
    hooks_dir.mkdir(parents=True)
    (hooks_dir / "guard.py").write_text(GUARD)
    for name in ("exit2_json.sh", "answer.sh", "stop_gate.sh"):
        shutil.copy(DATA / name, hooks_dir / name)
        (hooks_dir / name).chmod(0o755)
    deny_secrets = json.dumps({"decision": "block", "reason": "secrets are read-only"})
    return agents.write_json(agents.project / ".claude" / "settings.json", {"hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [
                # the exec form: the program, and a script path relative to the project
                {"type": "command", "command": sys.executable, "args": [".claude/hooks/guard.py"],
                 "required": True, "timeout": 20},
                # a relative command, started only for curl
                {"type": "command", "command": ".claude/hooks/exit2_json.sh",
                 "if": "Bash(curl *)"},
                # an http guard: the fleet policy denies rm
                {"type": "http", "url": f"{service.url}/claude", "timeout": 5},
                # a prompt judge (it allows)
                {"type": "prompt", "prompt": "Is this safe? $ARGUMENTS", "model": "judge-1",
                 "base_url": judge.url + "/v1"},
            ]},
            {"matcher": "Write|Edit", "hooks": [
                # $CLAUDE_PROJECT_DIR in the command, a path rule from the project directory
                {"type": "command", "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/answer.sh',
                 "if": "Write(/secrets/**)", "env": {"ANSWER": deny_secrets}},
            ]},
        ],
        "Stop": [{"hooks": [{"type": "command", "command": ".claude/hooks/stop_gate.sh"}]}],
    }})  # fmt: skip


def decisions(hooks: Any, project: Path) -> list[tuple[Any, ...]]:
    """The same events, fired at ``hooks``; the decisions."""
    out: list[tuple[Any, ...]] = []
    for command in ("rm -rf /tmp/x", "ls -la", "curl https://example.com", "rm old.log"):
        d = hooks.pre_tool_call(tool_name="terminal", args={"command": command}, session_id="s")
        out.append(("terminal", command, d.action, d.message))
    for path in (project / "secrets" / "key.txt", project / "src" / "main.py"):
        args = {"path": str(path), "content": "x"}
        d = hooks.pre_tool_call(tool_name="write_file", args=args, session_id="s")
        out.append(("write_file", path.name, d.action, d.message))
    stop = hooks.pre_verify(session_id="s", stop_hook_active=False)
    out.append(("stop", stop and stop.action, stop and stop.message))
    return out


def test_imported_claude_hooks_decide_as_the_files_read_in_place(
    agents: Agents, servers: tuple[Server, Server], tmp_path: Path, monkeypatch
):
    service, judge = servers
    project_hooks(agents, service, judge)
    allow = [f"{service.url}/*", f"{judge.url}/*"]
    # In place: hooks_sources: [claude], from the project directory, as Claude Code runs them.
    live = agents.load(["claude"], allowed_http_hook_urls=allow)
    expected = decisions(live, agents.project)
    live.close()
    by_call = {row[1]: row[2:] for row in expected}
    assert by_call["rm -rf /tmp/x"][0] == "block" and "no rm -rf" in by_call["rm -rf /tmp/x"][1]
    assert by_call["ls -la"] == ("allow", "ok")  # the judge's answer
    assert by_call["curl https://example.com"] == ("block", '{"reason": "json on stderr"}')
    assert by_call["rm old.log"] == ("block", "fleet policy")
    assert by_call["key.txt"] == ("block", "secrets are read-only")
    assert by_call["main.py"] == (None, None)
    assert expected[-1][1] == "continue" and "run the tests" in expected[-1][2]
    # Imported into another home whose config.yaml already has an entry and the allow-list,
    # then run from another directory.
    home = tmp_path / "imported-home"
    home.mkdir()
    keep = {"command": "true", "name": "kept"}
    (home / "config.yaml").write_text(yaml.safe_dump(
        {"allowed_http_hook_urls": allow, "hooks": {"pre_tool_call": [keep]}}))  # fmt: skip
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = cli("--home", str(home), "import", "--from", "claude", str(agents.project), "--write",
              cwd=elsewhere, env={"HOME": str(agents.user)})  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "Added 6 entries" in out.stdout
    monkeypatch.chdir(elsewhere)
    imported = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    assert decisions(imported, agents.project) == expected
    assert "kept" in [r["name"] for r in rows_of(imported)]
    imported.close()
    # Each judge was asked the same questions both times: the prompt hook stayed a prompt hook.
    assert len(judge.received) % 2 == 0 and judge.received


def test_every_claude_handler_field_is_carried(agents: Agents, tmp_path: Path):
    worker = agents.project / ".claude" / "hooks" / "worker.py"
    worker.parent.mkdir(parents=True)
    worker.write_text("import sys\nfor line in sys.stdin:\n    print('{}', flush=True)\n")
    (agents.project / ".claude" / "hooks" / "lib.py").write_text("RULES = []\n")
    handlers = [
        {"type": "command", "command": "python3", "args": [".claude/hooks/worker.py", "-q"],
         "required": True, "pin": [".claude/hooks/lib.py"], "timeout": 7},
        {"type": "command", "command": "python3 .claude/hooks/worker.py", "persistent": True,
         "warm": True, "onFailure": "block", "if": "Bash(git *)"},
        {"type": "command", "command": ".claude/hooks/log.sh", "async": True,
         "statusMessage": "logging", "env": {"LEVEL": "2"}, "working_dir": "sub"},
        {"type": "command", "command": ".claude/hooks/wake.sh", "asyncRewake": True},
        {"type": "http", "url": "http://127.0.0.1:9/policy", "timeout": 3,
         "headers": {"Authorization": "Bearer $TOKEN"}, "allowedEnvVars": ["TOKEN"]},
        {"type": "prompt", "prompt": "Judge: $ARGUMENTS", "model": "m-1", "timeout": 9,
         "base_url": "http://127.0.0.1:9/v1"},
        {"type": "mcp_tool", "server": "policy", "tool": "check",
         "input": {"command": "${tool_input.command}"}},
    ]  # fmt: skip
    agents.write_json(agents.project / ".claude" / "settings.json", {"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": handlers}]}})  # fmt: skip
    settings = {"allowed_http_hook_urls": ["http://127.0.0.1:9/*"]}
    live = agents.load(["claude"], **settings)
    home = tmp_path / "imported-home"
    home.mkdir()
    (home / "config.yaml").write_text(yaml.safe_dump(settings))
    out = cli("--home", str(home), "import", "--from", "claude", str(agents.project), "--write",
              cwd=tmp_path, env={"HOME": str(agents.user)})  # fmt: skip
    assert out.returncode == 0, out.stderr
    written = yaml.safe_load((home / "config.yaml").read_text())["hooks"]["PreToolUse"]
    assert [group["matcher"] for group in written] == ["Bash"] * len(handlers)
    root = str(agents.project)
    moved = {"working_dir": root, "env": {"CLAUDE_PROJECT_DIR": root}}
    assert [group["hooks"][0] for group in written] == [
        {**handlers[0], **moved},
        {**handlers[1], **moved},
        {**handlers[2], "working_dir": f"{root}/sub", "env": {"CLAUDE_PROJECT_DIR": root,
                                                             "LEVEL": "2"}},
        {**handlers[3], **moved},
        handlers[4],  # nothing runs here for http, prompt and mcp_tool: no directory
        handlers[5],
        handlers[6],
    ]  # fmt: skip
    imported = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    # where it was read, its approval and its running worker's pid are not its settings
    place = {"origin", "status", "error", "approved_at", "worker"}
    got, want = rows_of(imported), rows_of(live)
    assert len(got) == len(want)
    for have, row in zip(got, want, strict=True):
        assert {k: v for k, v in have.items() if v != row.get(k) and k not in place} == {}
    live.close()
    imported.close()


def test_duplicate_handlers_are_imported_once(agents: Agents, tmp_path: Path):
    handler = {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}
    for name in ("settings.json", "settings.local.json"):
        agents.write_json(agents.project / ".claude" / name, {"hooks": {"PreToolUse": [handler]}})
    live = agents.load(["claude"])
    out = cli("--home", str(tmp_path / "h"), "import", "--from", "claude", str(agents.project),
              "--write", cwd=tmp_path, env={"HOME": str(agents.user)})  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "Added 1 entry" in out.stdout
    imported = hermes_hooks.load(tmp_path / "h", accept_hooks=True, entry_points=False)
    assert len(rows_of(imported)) == len(rows_of(live)) == 1
    again = cli("--home", str(tmp_path / "h"), "import", "--from", "claude", str(agents.project),
                "--write", cwd=tmp_path, env={"HOME": str(agents.user)})  # fmt: skip
    assert again.returncode == 0 and "Added 0 entries" in again.stdout


def test_merging_keeps_every_entry_and_backs_the_file_up(agents: Agents, tmp_path: Path):
    agents.write_json(agents.project / ".claude" / "settings.json", {"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}]}})  # fmt: skip
    home = tmp_path / "h"
    home.mkdir()
    original = (
        "# my hooks\n"
        "hooks_env: minimal\n"
        "hooks:\n"
        "  pre_tool_call:\n"
        "  - command: /usr/local/bin/audit\n"
        "    fail_closed: true\n"
        "  PreToolUse:\n"
        "  - matcher: Write\n"
        "    hooks: [{type: command, command: /usr/local/bin/fmt}]\n"
    )
    config = home / "config.yaml"
    config.write_text(original)
    config.chmod(0o600)
    out = cli("--home", str(home), "import", "--from", "claude", str(agents.project), "--write",
              cwd=tmp_path, env={"HOME": str(agents.user)})  # fmt: skip
    assert out.returncode == 0, out.stderr
    backup = home / "config.yaml.bak"
    assert f"the previous file is {backup}" in out.stdout
    assert backup.read_text() == original
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    data = yaml.safe_load(config.read_text())
    assert data["hooks_env"] == "minimal"
    assert data["hooks"]["pre_tool_call"] == [{"command": "/usr/local/bin/audit",
                                               "fail_closed": True}]  # fmt: skip
    assert [g["matcher"] for g in data["hooks"]["PreToolUse"]] == ["Write", "Bash"]
    # A second import backs up again, beside the first backup.
    agents.write_json(agents.project / ".claude" / "settings.local.json", {"hooks": {"Stop": [
        {"hooks": [{"type": "command", "command": "./stop.sh"}]}]}})  # fmt: skip
    out = cli("--home", str(home), "import", "--from", "claude", str(agents.project), "--write",
              cwd=tmp_path, env={"HOME": str(agents.user)})  # fmt: skip
    assert out.returncode == 0 and "Added 1 entry" in out.stdout, out.stderr
    assert backup.read_text() == original and (home / "config.yaml.bak.2").is_file()


def test_a_merge_that_would_drop_hooks_writes_nothing(agents: Agents, tmp_path: Path):
    # config.yaml holds entries under Gemini CLI's event name without a protocol: adding
    # Gemini CLI entries there would make the runtime read that whole list differently.
    agents.write_json(agents.project / ".gemini" / "settings.json", {"hooks": {"BeforeTool": [
        {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "./g.sh"}]}]}})  # fmt: skip
    home = tmp_path / "h"
    home.mkdir()
    original = "hooks:\n  BeforeTool:\n  - {command: ./mine.sh, protocol: hermes, matcher: x}\n"
    (home / "config.yaml").write_text(original)
    out = cli("--home", str(home), "import", "--from", "gemini", str(agents.project), "--write",
              cwd=tmp_path, env={"HOME": str(agents.user)})  # fmt: skip
    assert out.returncode == 1
    assert "nothing was written" in out.stderr
    assert (home / "config.yaml").read_text() == original
    assert not (home / "config.yaml.bak").exists()


def _broken_settings(project: Path, fault: str) -> Path:
    folder = project / ".claude"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "settings.json"
    handler = {"type": "command", "command": "./guard.sh"}
    shapes: dict[str, Any] = {
        "unknown key": {"PreToolUse": [{"matcher": "Bash", "hooks": [{**handler, "comand": "x"}]}]},
        "unknown event": {"PreToolUze": [{"matcher": "Bash", "hooks": [handler]}]},
        "typo'd hook type": {"PreToolUse": [{"hooks": [{**handler, "type": "comand"}]}]},
        "unsupported hook type": {"PreToolUse": [{"hooks": [{"type": "agent", "prompt": "x"}]}]},
        "args not a list": {"PreToolUse": [{"hooks": [{**handler, "args": "guard.py",
                                                        "onFailure": "block"}]}]},
    }  # fmt: skip
    if fault == "malformed JSON":
        path.write_text('{"hooks": {"PreToolUse": [')
    elif fault == "not UTF-8":
        path.write_bytes(b'{"hooks": {"Stop": []}, "x": "\xff"}')
    elif fault == "unreadable (a directory)":
        path.mkdir()
    else:
        path.write_text(json.dumps({"hooks": shapes[fault]}))
    return path


FAULTS = {
    "malformed JSON": "JSON syntax error",
    "not UTF-8": "not UTF-8 text",
    "unreadable (a directory)": "cannot read",
    "unknown key": "unknown key 'comand'",
    "unknown event": "unknown event 'PreToolUze' (did you mean 'PreToolUse'?)",
    "typo'd hook type": "hook type 'comand' is not supported",
    "unsupported hook type": "hook type 'agent' is not supported",
    "args not a list": "'args' must be a list of strings",
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("write", [True, False], ids=["write", "print"])
def test_an_entry_that_cannot_be_carried_fails_the_import_naming_it(
    agents: Agents, tmp_path: Path, fault: str, write: bool
):
    path = _broken_settings(agents.project, fault)
    # A good hook beside it, in the local settings: it is not written alone either.
    agents.write_json(agents.project / ".claude" / "settings.local.json", {"hooks": {"Stop": [
        {"hooks": [{"type": "command", "command": "./stop.sh"}]}]}})  # fmt: skip
    home = tmp_path / "h"
    home.mkdir()
    original = "hooks:\n  pre_tool_call:\n  - {command: ./mine.sh}\n"
    (home / "config.yaml").write_text(original)
    args = ["--home", str(home), "import", "--from", "claude", str(agents.project)]
    out = cli(*args, *(["--write"] if write else []), cwd=tmp_path,
              env={"HOME": str(agents.user)})  # fmt: skip
    assert out.returncode == 1, out.stdout + out.stderr
    (line,) = [x for x in out.stderr.splitlines() if FAULTS[fault] in x]
    assert line.startswith("not carried over: ") and str(path) in line
    if fault not in ("malformed JSON", "not UTF-8", "unreadable (a directory)"):
        assert "hooks.PreToolU" in line  # the event and the entry's index
    assert out.stderr.rstrip().splitlines()[-1].startswith("error: ")
    assert (home / "config.yaml").read_text() == original
    assert not (home / "config.yaml.bak").exists()
    if write:
        assert "nothing was written" in out.stderr and out.stdout == ""
    else:  # printing shows what could be carried, and still exits 1
        assert "Stop" in yaml.safe_load(out.stdout)["hooks"]


def test_a_remote_hook_that_could_not_run_from_the_target_is_named(agents: Agents, tmp_path: Path):
    settings = agents.write_json(agents.project / ".claude" / "settings.json", {"hooks": {
        "PreToolUse": [{"hooks": [
            {"type": "http", "url": "http://127.0.0.1:9/policy"},  # not in the allow-list
            {"type": "prompt", "prompt": "Safe? $ARGUMENTS"},  # Claude Code's model; none here
        ]}]}})  # fmt: skip
    home = tmp_path / "h"
    out = cli("--home", str(home), "import", "--from", "claude", str(agents.project), "--write",
              cwd=tmp_path, env={"HOME": str(agents.user)})  # fmt: skip
    assert out.returncode == 1
    lines = [x for x in out.stderr.splitlines() if x.startswith("not carried over: ")]
    assert len(lines) == 2, out.stderr  # each named once, with its fix
    assert f"hooks.PreToolUse[0].hooks[0] in {settings}: http hook refused" in lines[0]
    assert "allowed_http_hook_urls" in lines[0]
    assert f"hooks.PreToolUse[0].hooks[1] in {settings}: would not run from" in lines[1]
    assert "give the entry a 'model'" in lines[1]
    assert "nothing was written" in out.stderr and not (home / "config.yaml").exists()


def test_importing_files_the_config_also_reads_in_place_is_noted(agents: Agents, tmp_path: Path):
    agents.write_json(agents.project / ".claude" / "settings.json", {"hooks": {"Stop": [
        {"hooks": [{"type": "command", "command": "./stop.sh"}]}]}})  # fmt: skip
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.yaml").write_text("hooks_sources: [claude]\n")
    out = cli("--home", str(home), "import", "--from", "claude", str(agents.project), "--write",
              cwd=tmp_path, env={"HOME": str(agents.user)})  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "hooks_sources: claude" in out.stderr and "runs twice" in out.stderr


def test_an_entry_that_does_not_read_back_the_same_is_caught(
    agents: Agents, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The read-back check, shown on the fault import had: the exec form's ``args`` lost on the
    way into config.yaml (the guard then ran bare ``python3`` with the payload as its program)."""
    from click.testing import CliRunner

    from hermes_hooks.cli import convert, hoist_global_options, hooks_group

    agents.write_json(agents.project / ".claude" / "settings.json", {"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "python3",
                                       "args": ["guard.py"], "required": True}]}]}})  # fmt: skip
    faithful = convert.entry_of

    def losing_args(hook: Any, target: Any) -> dict[str, Any]:
        entry = faithful(hook, target)
        entry["hooks"][0].pop("args")
        return entry

    monkeypatch.setattr(convert, "entry_of", losing_args)
    home = tmp_path / "h"
    argv = ["--home", str(home), "import", "--from", "claude", str(agents.project), "--write"]
    result = CliRunner().invoke(hooks_group, hoist_global_options(argv))
    assert result.exit_code == 1
    settings = agents.project / ".claude" / "settings.json"
    assert (f"not carried over: hooks.PreToolUse[0].hooks[0] in {settings}: the written entry "
            "would not run as it does in its file (exec_args differ)") in result.output  # fmt: skip
    assert "nothing was written" in result.output and not (home / "config.yaml").exists()
