"""``hermes hooks import --from AGENT PATH``: each agent's documented configuration becomes
config.yaml entries that decide exactly as the original file does when read in place; what
cannot be carried over is reported, and a guard that cannot be is an error (exit 1).
``hermes hooks list`` shows each hook's dialect and the file it came from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from dialect_helpers import Agents, agents_fixture, rows_of  # noqa: F401

import hermes_hooks

GUARD = """\
record()
text = json.dumps(payload)
if "rm -rf" in text:
    answers = {
        "gemini": {"decision": "deny", "reason": "no rm -rf"},
        "codex": {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                  "permissionDecision": "deny", "permissionDecisionReason": "no rm -rf"}},
        "cursor": {"permission": "deny", "agent_message": "no rm -rf"},
        "copilot": {"permissionDecision": "deny", "permissionDecisionReason": "no rm -rf"},
        "claude": {"decision": "block", "reason": "no rm -rf"},
    }
    print(json.dumps(answers[os.environ["AGENT"]]))
"""


def cli(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("HERMES")}
    full.update(env or {})
    return subprocess.run([sys.executable, "-m", "hermes_hooks", *args], cwd=cwd, env=full,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def configure(agents: Agents, agent: str, relative: bool = False) -> Path:
    """The agent's own file holding one guard on the shell tool (its script named from the
    project directory when ``relative``); the file's path."""
    p = agents.project
    guard = agents.script(p / "hooks" / "guard.py", GUARD)
    command = f"AGENT={agent} {'hooks/guard.py' if relative else guard}"
    if agent == "gemini":
        return agents.write_json(p / ".gemini" / "settings.json", {"hooks": {"BeforeTool": [
            {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": command,
                                                        "timeout": 4000}]}]}})  # fmt: skip
    if agent in ("codex", "claude"):
        where = p / (".codex/hooks.json" if agent == "codex" else ".claude/settings.json")
        return agents.write_json(where, {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": command}]}]}})  # fmt: skip
    if agent == "cursor":
        return agents.write_json(p / ".cursor" / "hooks.json", {"version": 1, "hooks": {
            "beforeShellExecution": [{"command": command, "failClosed": True}]}})  # fmt: skip
    return agents.write_json(p / ".github" / "hooks" / "guard.json", {"version": 1, "hooks": {
        "preToolUse": [{"type": "command", "bash": command, "timeoutSec": 10}]}})  # fmt: skip


def decisions(hooks) -> list[tuple]:
    calls = [{"command": "rm -rf /"}, {"command": "ls"}]
    return [(d.action, d.message) for d in
            (hooks.pre_tool_call(tool_name="terminal", args=a, session_id="s") for a in calls)]  # fmt: skip


@pytest.mark.parametrize("agent", ["gemini", "codex", "cursor", "copilot", "claude"])
def test_import_round_trips(agents: Agents, agent: str):
    source = configure(agents, agent)
    if agent == "claude":
        in_place = agents.load([], hooks_settings_files=[str(source)])
    else:
        in_place = agents.load([agent])
    expected = decisions(in_place)
    assert expected == [("block", "no rm -rf"), (None, None)]
    out = cli("import", "--from", agent, str(agents.project), cwd=agents.user,
              env={"HOME": str(agents.user)})  # fmt: skip
    assert out.returncode == 0, out.stderr
    block = yaml.safe_load(out.stdout)["hooks"]
    (key,) = block
    (entry,) = block[key]
    if agent == "claude":  # a Claude Code handler is written as a matcher group of its own
        assert entry["matcher"] == "Bash"
        (entry,) = entry["hooks"]
        assert "protocol" not in entry  # a group's handlers speak Claude Code's dialect
    else:
        assert entry["protocol"] == agent
    # The imported entries, alone in a config.yaml, decide as the original file did; and the
    # hook script reads the same payload as when the file was read in place.
    agents.home.mkdir(exist_ok=True)
    (agents.home / "config.yaml").write_text(yaml.safe_dump({"hooks": block}))
    imported = hermes_hooks.load(agents.home, accept_hooks=True, entry_points=False)
    assert decisions(imported) == expected
    runs = agents.seen(agents.project / "hooks" / "guard.py")
    first, again = runs[0]["payload"], runs[2]["payload"]
    for volatile in ("timestamp",):
        first.pop(volatile, None)
        again.pop(volatile, None)
    assert first == again
    # The project variables the agent sets are written into the entry, so it runs the same
    # from any directory.
    agent_vars = {k: v for k, v in runs[0]["env"].items() if k.endswith("_PROJECT_DIR")}
    assert entry.get("env", {}) == {k: v for k, v in agent_vars.items() if k not in os.environ}
    # ... and it is the same hook (timeout, matcher, fail_closed, ...), from another file.
    (row,) = rows_of(imported)
    (original,) = rows_of(in_place)
    assert row["origin"] != original["origin"]
    where = {"origin": None, "status": None, "error": None}  # the approval is per file
    assert {**row, **where} == {**original, **where}


@pytest.mark.parametrize("agent", ["gemini", "codex", "cursor", "copilot", "claude"])
def test_an_imported_relative_command_runs_from_the_project_anywhere(
    agents: Agents, agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    configure(agents, agent, relative=True)
    expected = decisions(agents.load([agent]))  # from the project, where the agent runs it
    assert expected == [("block", "no rm -rf"), (None, None)]
    home = tmp_path / "imported"
    out = cli("--home", str(home), "import", "--from", agent, str(agents.project), "--write",
              cwd=agents.user, env={"HOME": str(agents.user)})  # fmt: skip
    assert out.returncode == 0, out.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    imported = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    assert decisions(imported) == expected


def test_import_file_write_and_guard_errors(agents: Agents):
    good = {
        "matcher": "write_file",
        "hooks": [{"type": "command", "command": "true", "name": "fmt"}],
    }
    settings = agents.write_json(agents.project / ".gemini" / "settings.json", {"hooks": {
        "BeforeTool": [good],
        "BeforeToolSelection": [{"hooks": [{"type": "command", "command": "filter-tools"}]}],
        "AfterModel": [{"hooks": [{"type": "prompt", "prompt": "check"}]}],
    }})  # fmt: skip
    out = cli("--home", str(agents.home), "import", "--from", "gemini", str(settings), "--write",
              cwd=agents.project)  # fmt: skip
    assert out.returncode == 1
    assert "not carried over:" in out.stderr and "hook type 'prompt'" in out.stderr
    assert "error: guards that could not be carried over:" in out.stderr
    assert "BeforeToolSelection" in out.stderr.split("error: guards")[1]
    # Nothing is written when anything cannot be carried over: no partial set of guards.
    assert "nothing was written" in out.stderr and out.stdout == ""
    assert not (agents.home / "config.yaml").exists()
    agents.write_json(settings, {"hooks": {"BeforeTool": [good]}})
    out = cli("--home", str(agents.home), "import", "--from", "gemini", str(settings), "--write",
              cwd=agents.project)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "Added 1 entry" in out.stdout
    config = yaml.safe_load((agents.home / "config.yaml").read_text())
    assert config["hooks"]["BeforeTool"][0]["name"] == "fmt"
    again = cli("--home", str(agents.home), "import", "--from", "gemini", str(settings), "--write",
                cwd=agents.project)  # fmt: skip
    assert "Added 0 entries" in again.stdout  # identical entries are not added twice


def test_list_shows_dialect_and_file(agents: Agents):
    source = configure(agents, "cursor")
    agents.load(["cursor"])
    out = cli("--home", str(agents.home), "list", cwd=agents.project,
              env={"HOME": str(agents.user)})  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert f"(cursor beforeShellExecution, {source})" in " ".join(out.stdout.split())
    rows = json.loads(cli("--home", str(agents.home), "list", "--json", cwd=agents.project,
                          env={"HOME": str(agents.user)}).stdout)  # fmt: skip
    (row,) = [r for r in rows if r.get("source") == "shell"]
    assert (row["protocol"], row["origin"]) == ("cursor", str(source))


def test_config_yaml_entries_speak_a_dialect_under_our_names_and_theirs(agents: Agents, caplog):
    guard = agents.script(
        agents.project / "guard.py", 'record()\nprint(\'{"permission": "deny"}\')\n'
    )
    agents.home.mkdir(exist_ok=True)
    (agents.home / "config.yaml").write_text(yaml.safe_dump({"hooks": {
        "pre_tool_call": [{"command": str(guard), "protocol": "cursor", "matcher": "Read"}],
        "beforeShellExecution": [{"command": str(guard), "protocol": "cursor"}],
        "afterFileEdit": [{"command": str(guard), "protocol": "gemini"}],
    }}))  # fmt: skip
    hooks = hermes_hooks.load(agents.home, accept_hooks=True, entry_points=False)
    assert hooks.pre_tool_call(tool_name="read_file", args={"path": "x"}).action == "block"
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}).action == "block"
    general, shell = (r["payload"] for r in agents.seen(guard))
    assert general["hook_event_name"] == "preToolUse" and general["tool_name"] == "Read"
    assert shell["hook_event_name"] == "beforeShellExecution" and shell["command"] == "ls"
    assert "unknown event 'afterFileEdit'" in caplog.text  # not a Gemini CLI event
    assert {r["configured_event"] for r in rows_of(hooks)} == {
        "pre_tool_call",
        "beforeShellExecution",
    }


def test_import_of_a_claude_project_reads_its_settings_files_not_the_users(agents: Agents):
    hook = {"hooks": [{"type": "command", "command": "true"}]}
    agents.write_json(agents.project / ".claude" / "settings.local.json",
                      {"hooks": {"Stop": [hook]}})  # fmt: skip
    agents.write_json(agents.user / ".claude" / "settings.json", {"hooks": {"SessionEnd": [hook]}})
    out = cli("import", "--from", "claude", str(agents.project), cwd=agents.user,
              env={"HOME": str(agents.user)})  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert list(yaml.safe_load(out.stdout)["hooks"]) == ["Stop"]


def test_import_keeps_a_gemini_sequential_group_sequential(agents: Agents):
    hooks = [{"type": "command", "command": "true", "name": n} for n in ("one", "two")]
    settings = agents.write_json(agents.project / ".gemini" / "settings.json", {"hooks": {
        "BeforeTool": [{"sequential": True, "hooks": hooks}]}})  # fmt: skip
    out = cli("import", "--from", "gemini", str(settings), cwd=agents.project)
    assert out.returncode == 0, out.stderr
    entries = yaml.safe_load(out.stdout)["hooks"]["BeforeTool"]
    assert [(e["name"], e.get("sequential")) for e in entries] == [("one", True), ("two", True)]


AGENT_FILES = {
    "gemini": (".gemini/settings.json", {}, "BeforeTool"),
    "codex": (".codex/hooks.json", {}, "PreToolUse"),
    "cursor": (".cursor/hooks.json", {"version": 1}, "beforeShellExecution"),
    "copilot": (".github/hooks/guard.json", {"version": 1}, "preToolUse"),
}


@pytest.mark.parametrize("fault", ["malformed JSON", "unknown event", "unknown key"])
@pytest.mark.parametrize("agent", sorted(AGENT_FILES))
def test_each_agents_file_that_cannot_be_carried_fails_the_import(
    agents: Agents, tmp_path: Path, agent: str, fault: str
):
    name, top, event = AGENT_FILES[agent]
    path = agents.project / name
    path.parent.mkdir(parents=True)
    flat = agent in ("cursor", "copilot")
    entry = {"bash" if agent == "copilot" else "command": "./guard.sh"}
    if fault == "unknown key":
        entry["retries"] = 3
    item = entry if flat else {"hooks": [{"type": "command", **entry}]}
    if fault == "malformed JSON":
        path.write_text('{"hooks": {')
    else:
        written = event + ("Typo" if fault == "unknown event" else "")
        path.write_text(json.dumps({**top, "hooks": {written: [item]}}))
    home = tmp_path / "h"
    out = cli("--home", str(home), "import", "--from", agent, str(agents.project), "--write",
              cwd=tmp_path, env={"HOME": str(agents.user)})  # fmt: skip
    assert out.returncode == 1, out.stderr
    said = {"malformed JSON": "JSON syntax error", "unknown event": f"event '{event}Typo'",
            "unknown key": "unknown key 'retries'"}[fault]  # fmt: skip
    (line,) = [x for x in out.stderr.splitlines() if said in x]
    assert line.startswith("not carried over: ") and str(path) in line
    assert "nothing was written" in out.stderr and not (home / "config.yaml").exists()
