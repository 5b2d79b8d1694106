"""``hooks_sources: [claude]``: the files Claude Code itself reads (user, project, local
settings, and the hooks of the plugins they enable), through hermes_hooks.load() with real hook
scripts run as processes."""

from __future__ import annotations

import logging

import pytest
from dialect_helpers import Agents, agents_fixture, rows_of  # noqa: F401  # the fixture

BLOCK = "print(json.dumps({'decision': 'block', 'reason': 'blocked by ' + os.path.basename(sys.argv[0])}))\n"


def _guard(agents: Agents, path, tool: str = "Bash") -> dict:
    script = agents.script(path, BLOCK)
    return {"hooks": {"PreToolUse": [{"matcher": tool, "hooks": [
        {"type": "command", "command": str(script)}]}]}}  # fmt: skip


def test_user_project_and_local_settings_are_read_only_when_asked(agents: Agents, monkeypatch):
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    agents.write_json(agents.user / ".claude" / "settings.json",
                      _guard(agents, agents.user / "user_guard.py", "Write"))  # fmt: skip
    agents.write_json(agents.project / ".claude" / "settings.json",
                      _guard(agents, agents.project / "project_guard.py", "Bash"))  # fmt: skip
    agents.write_json(agents.project / ".claude" / "settings.local.json",
                      _guard(agents, agents.project / "local_guard.py", "Read"))  # fmt: skip
    assert rows_of(agents.load([])) == []  # not read unless hooks_sources names claude
    hooks = agents.load(["claude"])
    origins = {r["origin"] for r in rows_of(hooks)}
    assert origins == {
        str(agents.user / ".claude" / "settings.json"),
        str(agents.project / ".claude" / "settings.json"),
        str(agents.project / ".claude" / "settings.local.json"),
    }
    for tool, script in (("terminal", "project_guard.py"), ("write_file", "user_guard.py"),
                         ("read_file", "local_guard.py")):  # fmt: skip
        decision = hooks.pre_tool_call(tool_name=tool, args={"command": "ls", "path": "x"})
        assert decision.blocked and decision.message == f"blocked by {script}", tool


def test_an_enabled_plugin_hooks_run_with_its_root(agents: Agents, monkeypatch):
    config_dir = agents.user / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    root = config_dir / "plugins" / "cache" / "market" / "guard" / "1.0.0"
    (root / ".claude-plugin").mkdir(parents=True)
    agents.write_json(root / ".claude-plugin" / "plugin.json", {"name": "guard"})
    script = agents.script(root / "hooks" / "guard.py", "record()\n" + BLOCK)
    agents.write_json(root / "hooks" / "hooks.json", {"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/guard.py"}]}]}})  # fmt: skip
    other = config_dir / "plugins" / "cache" / "market" / "off" / "1.0.0"
    agents.write_json(other / "hooks" / "hooks.json", _guard(agents, other / "off.py"))
    agents.write_json(config_dir / "plugins" / "installed_plugins.json", {
        "version": 2,
        "plugins": {"guard@market": [{"scope": "user", "installPath": str(root)}],
                    "off@market": [{"scope": "user", "installPath": str(other)}]},
    })  # fmt: skip
    agents.write_json(config_dir / "settings.json",
                      {"enabledPlugins": {"guard@market": True, "off@market": False}})  # fmt: skip
    hooks = agents.load(["claude"])
    assert [r["origin"] for r in rows_of(hooks)] == [str(root / "hooks" / "hooks.json")]
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}).blocked
    assert agents.seen(script)[0]["env"]["CLAUDE_PLUGIN_ROOT"] == str(root)


def test_an_enabled_plugin_that_is_not_installed_is_reported(agents: Agents, monkeypatch, caplog):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(agents.user / "c"))
    agents.write_json(agents.user / "c" / "settings.json", {"enabledPlugins": {"gone@m": True}})
    with caplog.at_level(logging.WARNING, logger="hermes_hooks"):
        agents.load(["claude"])
    assert "plugin 'gone@m' is enabled in enabledPlugins" in caplog.text


@pytest.mark.parametrize("sources", [["claude", "claude"], ["Claude"]])
def test_claude_named_twice_or_capitalised_reads_each_file_once(agents: Agents, sources,
                                                                 monkeypatch):  # fmt: skip
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    agents.write_json(agents.project / ".claude" / "settings.json",
                      _guard(agents, agents.project / "g.py"))  # fmt: skip
    assert len(rows_of(agents.load(sources))) == 1
