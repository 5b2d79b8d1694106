"""The dangerous_patterns built-in through hermes_hooks.load() with real rule files."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

import hermes_hooks

VULTR = """
rules:
  - pattern: '\\bvultr\\s+instance\\s+delete'
    description: deleting a Vultr instance
    action: deny
    protected: true
  - pattern: '\\bvultr\\s+(account\\s+info|instance\\s+list)\\b'
    description: read-only Vultr commands
    action: allow
  - pattern: '\\bvultr\\b'
    description: any other Vultr command
    action: ask
"""


@pytest.fixture
def vultr_home(home: Path) -> Path:
    (home / "dangerous-patterns.yaml").write_text(VULTR)
    return home


def decide(hooks, command: str, **extra):
    return hooks.pre_tool_call(tool_name="terminal", args={"command": command}, **extra)


def test_deny_allow_and_ask_rules(vultr_home):
    hooks = hermes_hooks.load(vultr_home, {"dangerous_patterns": True}, entry_points=False)
    assert decide(hooks, "vultr instance list").action is None
    denied = decide(hooks, "vultr instance delete x")
    assert denied.action == "block" and "deleting a Vultr instance" in denied.message
    # however the host is set to approve things, a block is a block
    assert decide(hooks, "vultr instance delete x", approval_mode="yolo").action == "block"
    asked = decide(hooks, "vultr dns list")
    assert (asked.action, asked.rule_key) == ("approve", "any other Vultr command")
    assert decide(hooks, "ls -la").action is None
    assert (
        decide(hooks, "\x1b[31mvultr\x1b[0m instance delete x").action == "block"
    )  # ANSI stripped
    row = next(r for r in hooks.rows() if r["name"] == "builtin:dangerous_patterns")
    assert (row["status"], row["matcher"], row["error"]) == (
        "active",
        "1 deny, 1 ask, 1 allow",
        None,
    )


def test_an_invalid_regex_skips_that_rule_only_and_names_file_and_line(vultr_home, caplog):
    rules = vultr_home / "dangerous-patterns"
    rules.mkdir()
    (rules / "broken.yaml").write_text(
        "- {pattern: 'rm\\s+-rf', description: recursive delete, action: ask}\n"
        "- {pattern: '(unclosed', description: broken, action: deny}\n"
    )
    hooks = hermes_hooks.load(vultr_home, {"dangerous_patterns": True}, entry_points=False)
    assert any(
        "broken.yaml:2" in r.getMessage() and "invalid pattern" in r.getMessage()
        for r in caplog.records
    )
    assert decide(hooks, "rm -rf build").action == "approve"  # the good rule of that file works
    assert decide(hooks, "vultr instance delete x").action == "block"  # the other file too
    row = next(r for r in hooks.rows() if r["name"] == "builtin:dangerous_patterns")
    assert "broken.yaml:2: invalid pattern '(unclosed'" in row["error"]  # `hermes hooks list` too


def test_changed_rules_are_reported_and_protected_rules_loudly(vultr_home, caplog):
    hermes_hooks.load(vultr_home, {"dangerous_patterns": True}, entry_points=False)
    state = json.loads((vultr_home / "dangerous-patterns.state.json").read_text())
    assert "deleting a Vultr instance" in state["protected"]
    (vultr_home / "dangerous-patterns.yaml").write_text(
        VULTR.replace("action: deny", "action: ask", 1)
    )
    seen = []
    for _ in range(2):
        caplog.clear()
        hermes_hooks.load(vultr_home, {"dangerous_patterns": True}, entry_points=False)
        seen.append([(r.levelno, r.getMessage()) for r in caplog.records])
    protected = "protected rule 'deleting a Vultr instance' changed"
    # the protected rule's change is an error at every load, until its entry is removed
    assert all(any(lvl == logging.ERROR and protected in m for lvl, m in load) for load in seen)
    # the file's change is reported once, at the first load that sees it
    changed = [any("changed since the last load" in m for _, m in load) for load in seen]
    assert changed == [True, False]


def test_shipped_groups_are_off_until_enabled(home):
    hooks = hermes_hooks.load(home, {"dangerous_patterns": True}, entry_points=False)
    assert decide(hooks, "echo hermes-hooks-dangerous-test-deny").action is None
    assert decide(hooks, "terraform destroy").action is None
    hooks = hermes_hooks.load(
        home,
        {"dangerous_patterns": {"enable_groups": ["test", "infrastructure"]}},
        entry_points=False,
    )
    assert decide(hooks, "echo hermes-hooks-dangerous-test-deny").action == "block"
    assert decide(hooks, "echo hermes-hooks-dangerous-test-ask").action == "approve"
    assert decide(hooks, "terraform destroy -target x").rule_key == "terraform destroy"


def test_off_unless_configured(vultr_home):
    hooks = hermes_hooks.load(vultr_home, {}, entry_points=False)
    assert decide(hooks, "vultr instance delete x").action is None
    assert "builtin:dangerous_patterns" not in hooks.records


def test_a_rules_file_others_can_write_is_refused_loudly(home, caplog):
    rules = home / "dangerous-patterns"
    rules.mkdir()
    (rules / "trusted.yaml").write_text(VULTR)
    planted = rules / "planted.yaml"
    planted.write_text("- {pattern: 'curl', description: anything curl, action: allow}\n")
    planted.chmod(0o666)  # anyone may add an allow rule here
    with caplog.at_level(logging.WARNING, logger="hermes_hooks"):
        hooks = hermes_hooks.load(home, {"dangerous_patterns": True}, entry_points=False)
    assert decide(hooks, "vultr instance delete x").action == "block"  # the trusted file counts
    assert not any(r.description == "anything curl" for r in hooks_rules(hooks))
    message = next(r.getMessage() for r in caplog.records if "planted.yaml" in r.getMessage())
    assert "refused" in message and "chmod" in message


def hooks_rules(hooks):
    plugin = hooks.manager.get_plugin("builtin:dangerous_patterns")
    return plugin.rules


@pytest.mark.parametrize(
    "command",
    [
        "sudo /usr/local/bin/vultr instance delete x",
        "(vultr instance delete x)",
        "bash -c 'vultr instance delete x'",
        "v''ultr instance delete x",
        "true && timeout 5 vultr   instance delete x",
    ],
)
def test_a_rule_is_matched_against_each_simple_command_as_it_runs(home, command):
    (home / "dangerous-patterns.yaml").write_text(
        "rules:\n  - {pattern: '^vultr instance delete', description: deleting, action: deny}\n"
    )
    hooks = hermes_hooks.load(home, {"dangerous_patterns": True}, entry_points=False)
    assert decide(hooks, command).action == "block"
    assert decide(hooks, "echo 'vultr instance delete x'").action is None


def test_an_unreadable_line_is_the_worst_case_of_the_rules_that_apply(vultr_home):
    hooks = hermes_hooks.load(vultr_home, {"dangerous_patterns": True}, entry_points=False)
    d = decide(hooks, "echo 'unterminated")
    assert d.action == "block" and "cannot be read" in d.message
    # a tool that is not the shell is never read as shell
    rule_free = hooks.pre_tool_call(tool_name="write_file", args={"command": "echo 'x"})
    assert rule_free.action is None
