"""Shell hooks: reading config.yaml and settings.json, validation warnings, matchers."""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

import pytest
from shell_helpers import load, script, shell_plugin, write_settings

import hermes_hooks

BLOCK = script("block_rm.sh")
ANSWER = script("answer.sh")


def test_no_shell_hooks_registers_nothing(home: Path) -> None:
    hooks = load(home, {})
    assert shell_plugin(hooks) is None
    assert not hooks.has_hook("pre_tool_call")


def test_only_configured_events_get_an_impl(home: Path) -> None:
    hooks = load(home, {"pre_tool_call": [{"command": BLOCK}]})
    assert hooks.has_hook("pre_tool_call")
    assert not hooks.has_hook("post_tool_call")
    assert not hooks.has_hook("pre_llm_call")


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [("pre_tools_call", "pre_tool_call"), ("PreToolUses", "PreToolUse")],
)
def test_unknown_event_warns_with_did_you_mean_and_is_skipped(
    home: Path, caplog: pytest.LogCaptureFixture, name: str, suggestion: str
) -> None:
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(home, {name: [{"command": BLOCK}]})
    assert shell_plugin(hooks) is None
    text = caplog.text
    assert f"did you mean {suggestion!r}" in text
    assert f"hooks.{name}" in text and str(home / "config.yaml") in text


@pytest.mark.parametrize("alias", ["PreToolUse", "pre_tool_use", "pre_tool_call"])
def test_event_aliases_are_accepted(home: Path, alias: str) -> None:
    hooks = load(home, {alias: [{"command": BLOCK}]})
    d = hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf /"}, session_id="s")
    assert d.action == "block"


@pytest.mark.parametrize(
    ("timeout", "expected", "warned"),
    [(None, 60, False), (30, 30, False), (301, 300, True), (1000, 300, True), (0, 60, True),
     (-5, 60, True), (1.5, 1.5, False), (0.5, 0.5, False), (300.5, 300, True),
     (float("nan"), 60, True), (float("inf"), 60, True), ("30", 60, True), (True, 60, True)],
)  # fmt: skip
def test_timeout_default_clamp_and_fallback(
    home: Path, caplog: pytest.LogCaptureFixture, timeout: object, expected: float, warned: bool
) -> None:
    entry: dict[str, object] = {"command": BLOCK}
    if timeout is not None:
        entry["timeout"] = timeout
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(home, {"pre_tool_call": [entry]})
    [row] = [r for r in hooks.rows() if r["source"] == "shell"]
    assert row["timeout"] == expected
    assert ("hooks.pre_tool_call[0]" in caplog.text) is warned


def test_missing_command_skips_the_entry_naming_file_event_and_index(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(home, {"pre_tool_call": [{"command": BLOCK}, {"comand": "x"}]})
    assert len(shell_plugin(hooks).all_hooks) == 1
    assert (
        f"hooks.pre_tool_call[1] in {home / 'config.yaml'}: missing a non-empty 'command'"
        in caplog.text
    )
    assert "unknown key 'comand' (did you mean 'command'?)" in caplog.text


def test_yaml_syntax_error_names_line_and_column_and_loads_no_shell_hook(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(
        f"hooks:\n  pre_tool_call:\n    - command: {BLOCK}\n   bad: [\n"
    )
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    assert shell_plugin(hooks) is None
    assert "line 4, column" in caplog.text and "config.yaml" in caplog.text
    # the agent still starts, but cannot act until the config is fixed (the lockdown)
    decision = hooks.pre_tool_call(tool_name="terminal", args={})
    assert decision.blocked and "config.yaml" in decision.message


def test_cli_config_yaml_fallback(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "cli-config.yaml").write_text(f"hooks:\n  pre_tool_call:\n    - command: {BLOCK}\n")
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    assert hooks.has_hook("pre_tool_call")


@pytest.mark.parametrize(
    ("matcher", "tool"), [("Bash", "terminal"), ("Write|Edit", "patch"), ("Bash", "Bash")]
)
def test_a_claude_code_tool_name_in_a_hermes_matcher_matches_and_is_reported(
    home: Path, caplog: pytest.LogCaptureFixture, matcher: str, tool: str
) -> None:
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(home, {"pre_tool_call": [{"command": BLOCK, "matcher": matcher}]})
    decision = hooks.pre_tool_call(tool_name=tool, args={"command": "rm -rf /"})
    assert decision.blocked
    [report] = [p for p in shell_plugin(hooks).problems if "Claude Code" in p]
    assert f"hooks.pre_tool_call[0] in {home / 'config.yaml'}" in report
    host = {"Bash": "'terminal'", "Write|Edit": "'write_file'"}[matcher]
    assert host in report
    # the host's other tools still do not match
    assert not hooks.pre_tool_call(tool_name="read_file", args={"command": "rm -rf /"}).blocked


def test_a_hermes_matcher_naming_both_names_is_not_reported(home: Path) -> None:
    hooks = load(home, {"pre_tool_call": [{"command": BLOCK, "matcher": "terminal|Bash"}]})
    assert not [p for p in shell_plugin(hooks).problems if "Claude Code" in p]
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf /"}).blocked


def test_identical_entries_run_once(home: Path) -> None:
    entry = {"command": BLOCK, "matcher": "terminal"}
    hooks = load(home, {"pre_tool_call": [entry, dict(entry), {"command": BLOCK}]})
    assert len(shell_plugin(hooks).all_hooks) == 2


def test_identical_entries_merged_are_reported_naming_both_places(home: Path) -> None:
    entry = {"command": BLOCK, "matcher": "terminal"}
    hooks = load(home, {"pre_tool_call": [entry, dict(entry)]})
    source = shell_plugin(hooks)
    assert len(source.all_hooks) == 1
    config = home / "config.yaml"
    [report] = [p for p in source.problems if "identical" in p]
    assert f"hooks.pre_tool_call[1] in {config}" in report
    assert f"hooks.pre_tool_call[0] in {config}" in report


def _env_guard(tmp_path: Path) -> str:
    """A guard that blocks only when its entry's env says GUARD=on, and fails (exit 1) when
    GUARD=crash."""
    path = tmp_path / "env_guard.sh"
    path.write_text(
        "#!/bin/sh\ncat >/dev/null\n"
        'if [ "$GUARD" = crash ]; then exit 1; fi\n'
        'if [ "$GUARD" = on ]; then echo \'{"action":"block","message":"guard on"}\'; fi\n'
    )
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize(
    "difference",
    [{"env": {"GUARD": "on"}}, {"fail_closed": True}, {"required": True}, {"timeout": 5},
     {"working_dir": "/tmp"}, {"protocol": "claude-code"}],
)  # fmt: skip
def test_entries_sharing_a_command_but_not_their_settings_are_two_hooks(
    home: Path, tmp_path: Path, difference: dict[str, object]
) -> None:
    guard = _env_guard(tmp_path)
    hooks = load(home, {"pre_tool_call": [{"command": guard}, {"command": guard, **difference}]})
    source = shell_plugin(hooks)
    assert len(source.all_hooks) == 2
    assert not [p for p in source.problems if "identical" in p]


def test_the_enforcing_entry_of_two_sharing_a_command_still_blocks(
    home: Path, tmp_path: Path
) -> None:
    guard = _env_guard(tmp_path)
    hooks = load(home, {"pre_tool_call": [
        {"command": guard},
        {"command": guard, "env": {"GUARD": "on"}},
    ]})  # fmt: skip
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert decision.blocked and decision.message == "guard on"
    # the same with fail_closed: the failing, enforcing copy blocks
    hooks = load(home, {"pre_tool_call": [
        {"command": guard, "env": {"GUARD": "crash"}},
        {"command": guard, "env": {"GUARD": "crash"}, "fail_closed": True},
    ]})  # fmt: skip
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}).blocked


def test_approving_two_entries_sharing_a_command_approves_both(home: Path, tmp_path: Path) -> None:
    guard = _env_guard(tmp_path)
    config = {"pre_tool_call": [{"command": guard}, {"command": guard, "env": {"GUARD": "on"}}]}
    load(home, config, accept=False)
    out = subprocess.run(
        ["hermes-hooks", "--home", str(home), "approve", "--all"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    hooks = load(home, config, accept=False)
    assert [r["status"] for r in hooks.rows() if r["source"] == "shell"] == ["active", "active"]
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}).blocked


def test_priority_moves_a_shell_hook_earlier(home: Path) -> None:
    hooks = load(
        home,
        {
            "pre_tool_call": [
                {"command": ANSWER, "name": "late"},
                {"command": BLOCK, "name": "early", "priority": 5},
            ]
        },
    )
    assert [h.name for h in shell_plugin(hooks).all_hooks] == ["early", "late"]


@pytest.mark.parametrize("named", [["guard"], "guard"])
def test_plugins_required_marks_a_shell_hook_required(home: Path, named: object) -> None:
    # plugins.required as a list or as one name (a one-item list, as for Python plugins)
    hooks = load(
        home,
        {"pre_tool_call": [{"command": BLOCK, "name": "guard"}, {"command": ANSWER}]},
        plugins={"required": named},
    )
    flags = {h.name: (h.required, h.fail_closed) for h in shell_plugin(hooks).all_hooks}
    assert flags == {"guard": (True, True), ANSWER: (False, False)}


def test_pin_and_env_passthrough_take_a_name_or_a_list(home: Path) -> None:
    hooks = load(home, {"pre_tool_call": [
        {"command": BLOCK, "pin": "/etc/x", "env_passthrough": ["A", "B"]},
        {"command": ANSWER, "pin": [1], "env_passthrough": {"A": 1}},
    ]})  # fmt: skip
    source = shell_plugin(hooks)
    good, bad = source.all_hooks
    assert (good.pin, good.env_passthrough) == (["/etc/x"], ["A", "B"])
    assert (bad.pin, bad.env_passthrough) == ([], [])
    where = "hooks.pre_tool_call[1] in "
    assert [p.split(": ", 1)[1] for p in source.problems if p.startswith(where)] == [
        "pin must be a list of file or directory paths; ignored",
        "env_passthrough must be a list of variable names; ignored",
    ]


def test_a_wrong_protocol_is_reported_alike_for_every_hook_type(home: Path) -> None:
    url = "http://127.0.0.1:9/policy"
    hooks = load(
        home,
        {
            "pre_tool_call": [
                {"command": BLOCK, "protocol": "gemeni"},
                {"type": "http", "url": url, "protocol": "gemeni"},
            ]
        },
        allowed_http_hook_urls=[url],
    )
    source = shell_plugin(hooks)
    assert [(h.kind, h.protocol) for h in source.all_hooks] == [("command", "hermes"),
                                                                ("http", "hermes")]  # fmt: skip
    said = [p.split(": ", 1)[1] for p in source.problems if "protocol" in p]
    assert len(said) == 2 and said[0] == said[1], said
    assert said[0].startswith("protocol 'gemeni' is not one of ") and "gemini" in said[0]


# ---------------------------------------------------------------------- matchers


@pytest.mark.parametrize(
    ("matcher", "tool", "fires"),
    [
        ("terminal", "terminal", True),
        ("term", "terminal", False),  # the regex must match the whole name
        ("  terminal  ", "terminal", True),  # whitespace stripped
        ("terminal|write_file", "write_file", True),
        ("read_.*", "read_file", True),
        ("read_.*", "terminal", False),
    ],
)
def test_hermes_matcher_full_match(home: Path, matcher: str, tool: str, fires: bool) -> None:
    hooks = load(home, {"pre_tool_call": [{"command": BLOCK, "matcher": matcher}]})
    d = hooks.pre_tool_call(tool_name=tool, args={"command": "rm -rf /"}, session_id="s")
    assert (d.action == "block") is fires


def test_invalid_regex_warns_and_matches_literally(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(home, {"pre_tool_call": [{"command": BLOCK, "matcher": "ter(minal"}]})
    assert "not a valid regex" in caplog.text
    assert (
        hooks.pre_tool_call(tool_name="ter(minal", args={"command": "rm -rf /"}).action == "block"
    )
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf /"}).action is None


def test_hermes_matcher_on_non_tool_event_is_ignored_with_a_warning(
    home: Path, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(
            home,
            {
                "pre_llm_call": [
                    {"command": ANSWER, "matcher": "terminal", "env": {"ANSWER": "ctx"}}
                ]
            },
        )
    assert "matcher 'terminal' is ignored" in caplog.text
    assert hooks.pre_llm_call(session_id="s", user_message="hi") == "ctx"


@pytest.mark.parametrize(
    ("matcher", "tool", "fires"),
    [
        (None, "terminal", True),
        ("", "terminal", True),
        ("*", "terminal", True),
        ("Bash", "terminal", True),  # Claude Code's name of the host tool
        ("Bash|Write", "write_file", True),
        ("Write", "terminal", False),
        ("Bas", "terminal", False),  # plain names match exactly
        ("Ba.*", "terminal", True),  # a regex is searched
        ("mcp__.*__delete", "mcp__github__delete", True),
    ],
)
def test_claude_code_matcher_rules(home: Path, matcher: str | None, tool: str, fires: bool) -> None:
    group: dict[str, object] = {
        "hooks": [{"type": "command", "command": 'echo \'{"decision":"block","reason":"no"}\''}]
    }
    if matcher is not None:
        group["matcher"] = matcher
    write_settings(home / "settings.json", {"PreToolUse": [group]})
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    assert (hooks.pre_tool_call(tool_name=tool, args={"command": "x"}).action == "block") is fires


@pytest.mark.parametrize(
    ("event", "matcher", "kwargs", "fires"),
    [
        ("SessionStart", "resume", {"source": "resume"}, True),
        ("SessionStart", "resume", {"source": "startup"}, False),
        ("Notification", "idle_prompt", {"notification_type": "idle_prompt", "message": "m"}, True),
        (
            "Notification",
            "idle_prompt",
            {"notification_type": "permission_prompt", "message": "m"},
            False,
        ),
    ],
)
def test_claude_code_matcher_on_non_tool_event_matches_its_field(
    home: Path, tmp_path: Path, event: str, matcher: str, kwargs: dict[str, str], fires: bool
) -> None:
    marker = tmp_path / "fired"
    write_settings(
        home / "settings.json",
        {
            event: [
                {"matcher": matcher, "hooks": [{"type": "command", "command": f"touch {marker}"}]}
            ]
        },
    )
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    hooks.call(event, session_id="s", **kwargs)
    assert marker.exists() is fires


def test_pre_compact_matcher_matches_trigger(home: Path, tmp_path: Path) -> None:
    write_settings(
        home / "settings.json",
        {
            "PreCompact": [
                {
                    "matcher": "manual",
                    "hooks": [
                        {
                            "type": "command",
                            "command": 'echo \'{"decision":"block","reason":"keep"}\'',
                        }
                    ],
                }
            ]
        },
    )
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    assert hooks.pre_compress(session_id="s", trigger="manual").action == "block"
    assert hooks.pre_compress(session_id="s", trigger="auto") is None


def test_settings_files_listed_in_config_are_read(home: Path, tmp_path: Path) -> None:
    settings = write_settings(
        tmp_path / "project" / ".claude" / "settings.json",
        {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [
                        {
                            "type": "command",
                            "command": 'echo \'{"decision":"block","reason":"from project"}\'',
                        }
                    ],
                }
            ]
        },
    )
    hooks = load(home, None, hooks_settings_files=[str(settings)])
    d = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert (d.action, d.message) == ("block", "from project")
    assert [r["protocol"] for r in hooks.rows() if r["source"] == "shell"] == ["claude-code"]


def test_a_settings_file_item_that_is_no_usable_path_is_reported_alone(
    home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    good = write_settings(
        tmp_path / "good.json",
        {
            "PreToolUse": [
                {"hooks": [{"type": "command", "command": 'echo \'{"decision":"block"}\''}]}
            ]
        },
    )
    too_long = "x" * 300 + ".json"  # stat() raises ENAMETOOLONG, not "no such file"
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(
            home, None, hooks_settings_files=[{"a": 1}, 123, too_long, "a\0b.json", str(good)]
        )
    # the good file still loads: one bad item costs only itself
    assert hooks.pre_tool_call(tool_name="terminal", args={}).action == "block"
    assert "failed to start" not in caplog.text
    text = caplog.text
    assert "hooks_settings_files item 1 in" in text and "{'a': 1}" in text
    assert "hooks_settings_files item 2 in" in text
    assert "File name too long" in text and "a\\x00b.json" in text
    out = subprocess.run(
        ["hermes", "hooks", "--home", str(home), "--accept-hooks", "doctor"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert "Traceback" not in out.stderr + out.stdout
    assert "File name too long" in out.stdout + out.stderr


def test_settings_json_syntax_error_names_line_and_column(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text('{\n  "hooks": {\n    "PreToolUse": [,]\n  }\n}\n')
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    assert shell_plugin(hooks) is None
    assert "settings.json at line 3, column" in caplog.text


def test_settings_json_disable_all_hooks(home: Path) -> None:
    write_settings(
        home / "settings.json",
        {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]},
        disableAllHooks=True,
    )
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    assert not hooks.has_hook("pre_tool_call")


def test_unsupported_hook_types_are_skipped_with_a_warning(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_settings(
        home / "settings.json", {"Stop": [{"hooks": [{"type": "agent", "prompt": "is it done?"}]}]}
    )
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    assert shell_plugin(hooks) is None
    assert "hook type 'agent' is not supported" in caplog.text


def test_claude_code_shape_inside_config_yaml(home: Path) -> None:
    hooks = load(
        home,
        {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [
                        {
                            "type": "command",
                            "command": 'echo \'{"decision":"block","reason":"cc"}\'',
                        }
                    ],
                }
            ]
        },
    )
    assert hooks.pre_tool_call(tool_name="terminal", args={}).message == "cc"


def test_post_tool_use_fires_on_success_and_failure_variant_on_error(home: Path) -> None:
    ok = 'echo \'{"decision":"block","reason":"ok-hook"}\''
    bad = 'echo \'{"hookSpecificOutput":{"additionalContext":"failure-hook"}}\''
    write_settings(
        home / "settings.json",
        {"PostToolUse": [{"hooks": [{"type": "command", "command": ok}]}],
         "PostToolUseFailure": [{"hooks": [{"type": "command", "command": bad}]}]},
    )  # fmt: skip
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    assert hooks.post_tool_call(tool_name="terminal", args={}, result="x", status="ok") == "ok-hook"
    assert (
        hooks.post_tool_call(tool_name="terminal", args={}, result="x", status="error")
        == "failure-hook"
    )


def test_list_rows_show_each_shell_hook(home: Path) -> None:
    hooks = load(
        home,
        {"pre_tool_call": [{"command": BLOCK, "matcher": "terminal", "timeout": 5}]},
        accept=False,
    )
    [row] = [r for r in hooks.rows() if r["source"] == "shell"]
    assert row["event"] == "pre_tool_call"
    assert row["command"] == BLOCK and row["matcher"] == "terminal" and row["timeout"] == 5
    assert row["status"] == "unapproved" and row["approved_at"] is None


def test_safe_mode_runs_no_shell_hook(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_SAFE_MODE", "1")
    hooks = load(home, {"pre_tool_call": [{"command": BLOCK}]})
    assert not hooks.has_hook("pre_tool_call")
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf /"}).action is None
