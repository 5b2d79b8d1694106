"""One runtime builder (hermes_hooks.runtime.build_runtime): ``load()``, the CLI and the Hermes
Agent bridge build the same runtime for one home; what the bridge leaves to Hermes is a
parameter. No Hermes Agent here (tests/test_hermes_agent_bridge.py runs the real one)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

import hermes_hooks
from hermes_hooks.cli import hooks_group
from hermes_hooks.hermes import agent

DENY = "echo hermes-hooks-dangerous-test-deny"


def _script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\ncat > /dev/null\n{body}\n")
    path.chmod(0o755)
    return str(path)


def _gateway_hook(home: Path, name: str) -> None:
    hook = home / "hooks" / name
    hook.mkdir(parents=True)
    (hook / "HOOK.yaml").write_text("events: [agent:start]\n")
    (hook / "handler.py").write_text("def handle(event_type, context):\n    pass\n")


def _unnumbered(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k != "order"} for row in rows]


@pytest.fixture
def builtins_home(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home that switches on every kind of built-in, with a shell hook, a Claude Code
    settings.json hook, a gateway hook and BOOT.md."""
    config = {
        "dangerous_patterns": {"enable_groups": ["test"]},
        "redact_secrets": True,
        "max_iterations": 5,
        "snapshot": True,
        "add_date": True,
        "limit_large_tool_results": {"max_bytes": 32768},
        "http_post": {"url": "http://127.0.0.1:9/hook"},
        "allowed_http_hook_urls": ["http://127.0.0.1:9/*"],
        "plugins": {"required": ["no-such-guard"]},
        "hooks_auto_accept": True,
        "hooks": {
            "pre_tool_call": [{"command": _script(tmp_path, "ok.sh", "echo '{}'")}],
            "pre_llm_call": [{"type": "builtin", "name": "add_git_status"}],
        },
    }
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    group = {"hooks": [{"type": "command", "command": _script(tmp_path, "cc.sh", "exit 0")}]}
    (home / "settings.json").write_text(json.dumps({"hooks": {"PostToolUse": [group]}}))
    _gateway_hook(home, "greeter")
    (home / "BOOT.md").write_text("Check the disk.\n")
    monkeypatch.setenv("HERMES_HOME", str(home))
    return home


def test_the_bridge_and_load_list_the_same_rows_apart_from_gateway_hooks(builtins_home):
    standalone = hermes_hooks.load(builtins_home)
    bridged = agent._load(patched=True)
    try:
        ours = standalone.rows()
        sources = {r["name"]: r["source"] for r in ours}
        for name in ("dangerous_patterns", "redact_secrets", "required", "snapshot"):
            assert sources.get(f"builtin:{name}") == "builtin", name
        assert "gateway" in sources.values() and "shell" in sources.values()
        # The same rows in the same order; an event's place numbers close up where a gateway
        # hook was (`order`).
        assert _unnumbered(bridged.rows()) == _unnumbered(
            [r for r in ours if r["source"] != "gateway"]
        )
        assert not bridged.gateway_hooks and standalone.gateway_hooks
    finally:
        standalone.close()
        bridged.close()


def test_every_builtin_decides_under_the_bridge(builtins_home):
    bridged = agent._load(patched=True)
    try:
        decision = bridged.pre_tool_call(tool_name="terminal", args={"command": DENY})
        assert decision.blocked and "no-such-guard" in str(decision.message)
    finally:
        bridged.close()
    # Without the missing guard (whose block hides every other answer), dangerous_patterns
    # must block on its own.
    path = builtins_home / "config.yaml"
    config = yaml.safe_load(path.read_text())
    del config["plugins"]
    path.write_text(yaml.safe_dump(config))
    bridged = agent._load(patched=True)
    try:
        decision = bridged.pre_tool_call(tool_name="terminal", args={"command": DENY})
        assert decision.blocked and decision.source == "builtin:dangerous_patterns"
        assert bridged.pre_tool_call(tool_name="terminal", args={"command": "ls"}).action is None
        out = bridged.transform_tool_result(
            tool_name="terminal", args={}, result="DB_PASSWORD=hunter2-very-secret"
        )
        assert "hunter2" not in out and "REDACTED" in out
    finally:
        bridged.close()


def test_required_guards_the_host_runs_are_not_missing_when_bridged(home, plugin_dir, monkeypatch):
    plugin_dir("guard", "def register(ctx):\n    pass\n")
    plugin_dir("off", "def register(ctx):\n    pass\n")
    _gateway_hook(home, "gw")
    config: dict[str, Any] = {
        "plugins": {
            "enabled": ["hermes-hooks", "guard"],
            "required": ["guard", "gateway:gw", "off"],
        }
    }
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    monkeypatch.setenv("HERMES_HOME", str(home))
    bridged = agent._load(patched=True)
    try:
        # Hermes loads `guard` and runs `gw` (its gateway); `off` is not enabled, so nobody does.
        assert set(bridged.hosted) == {"guard", "gateway:gw"}
        assert "guard" not in bridged.records and "gateway:gw" not in bridged.records
        decision = bridged.pre_tool_call(tool_name="terminal", args={"command": "ls"})
        assert decision.blocked and "'off'" in str(decision.message)
        assert "'guard'" not in str(decision.message) and "gateway:gw" not in str(decision.message)
    finally:
        bridged.close()


def test_unpatched_the_bridge_leaves_hermes_only_the_entries_hermes_runs(
    home, tmp_path, monkeypatch
):
    deny = _script(tmp_path, "deny.sh", 'echo \'{"decision": "block", "reason": "no"}\'')
    config = {
        "hooks": {
            "pre_tool_call": [
                {"command": deny},  # Hermes runs this one itself when unpatched
                {"type": "builtin", "name": "dangerous_patterns"},  # Hermes skips this: ours
            ]
        },
        "dangerous_patterns": {"enable_groups": ["test"]},
        "hooks_auto_accept": True,
    }
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    monkeypatch.setenv("HERMES_HOME", str(home))
    bridged = agent._load(patched=False)
    try:
        assert bridged.pre_tool_call(tool_name="terminal", args={"command": "ls"}).action is None
        assert bridged.pre_tool_call(tool_name="terminal", args={"command": DENY}).blocked
        assert not any(r["source"] == "shell" for r in bridged.rows())
    finally:
        bridged.close()


def test_cli_finds_the_shell_source_even_beside_a_plugin_named_like_it(home, plugin_dir, tmp_path):
    plugin_dir(
        "impostor", "def register(ctx):\n    pass\n", manifest="name: 'builtin:shell_hooks'\n"
    )
    block = _script(tmp_path, "block.sh", 'echo \'{"decision": "block", "reason": "stop"}\'')
    config = {"hooks": {"pre_tool_call": [{"command": block}]}}
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    result = CliRunner().invoke(
        hooks_group,
        ["--home", str(home), "--accept-hooks", "test", "pre_tool_call", "--json"],
    )
    doc = json.loads(result.stdout)
    assert doc["result"]["action"] == "block" and doc["result"]["message"] == "stop"
    assert block in {h["name"] for h in doc["hooks"]}


def test_a_runtime_built_for_inspection_does_not_warn_about_what_the_cli_reports(
    home, tmp_path, caplog
):
    hook = _script(tmp_path, "hook.sh", "echo '{}'")
    (home / "config.yaml").write_text(
        yaml.safe_dump({"hooks": {"pre_tool_call": [{"command": hook}]}})
    )
    from hermes_hooks.runtime import build_runtime

    for inspecting, warned in ((False, True), (True, False)):
        caplog.clear()
        hooks = build_runtime(home, ask=False, inspecting=inspecting)
        assert ("not approved as they are now and will not run" in caplog.text) is warned
        [row] = [r for r in hooks.rows() if r["source"] == "shell"]
        assert row["status"] == "unapproved"
        hooks.close()
    result = CliRunner().invoke(hooks_group, ["--home", str(home), "test", "pre_tool_call"])
    assert "not approved and will not run" not in result.output
    assert "not run: not approved yet" in result.output


def test_a_home_that_is_a_file_is_said_not_loaded_silently(tmp_path, caplog):
    import logging

    import hermes_hooks

    home = tmp_path / "home"
    home.write_text("not a directory")
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = hermes_hooks.load(home, entry_points=False)
    assert not hooks.manager.hooked
    assert any(f"{home} is a file, not a directory" in r.getMessage() for r in caplog.records)
