"""Bad input disables only itself; processes get nothing of the host's they should not."""

from __future__ import annotations

import errno
import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest
from hermes_hooks.builtin_plugins.shell_hooks import consent, processes
from hermes_hooks.builtin_plugins.shell_hooks.matching import Rule
from shell_helpers import load, script, shell_plugin, write_settings

import hermes_hooks

GUARD = {"command": script("block_rm.sh")}
RM = {"command": "rm -rf /"}


def _blocks(hooks: Any) -> bool:
    return bool(hooks.pre_tool_call(tool_name="terminal", args=RM).action == "block")


def test_non_utf8_settings_json_keeps_config_yaml_hooks(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_bytes(b'{"hooks": {"PreToolUse": []}, "x": "\xff\xfe"}')
    hooks = load(home, {"pre_tool_call": [GUARD]})
    assert _blocks(hooks)
    assert any("settings.json" in p for p in shell_plugin(hooks).problems)


def test_nul_in_hooks_settings_files_keeps_the_other_hooks(home: Path) -> None:
    hooks = load(home, {"pre_tool_call": [GUARD]}, hooks_settings_files=["bad\0name.json"])
    assert _blocks(hooks)


@pytest.mark.parametrize(
    "bad",
    [
        {"event": "pre_tool_call", "command": "x", "matcher": ["a", "b"]},
        {"event": ["pre_tool_call"], "command": script("block_rm.sh")},
        {"event": "pre_tool_call", "command": {"a": 1}},
        {"event": "pre_tool_call", "command": script("block_rm.sh"), "matcher": 5},
    ],
    ids=["list matcher", "list event", "dict command", "int matcher"],
)
def test_one_malformed_allowlist_entry_drops_only_itself(home: Path, bad: dict[str, Any]) -> None:
    hooks = load(home, {"pre_tool_call": [GUARD]})  # approves the guard
    path = home / consent.FILENAME
    data = json.loads(path.read_text())
    data["approvals"].insert(0, bad)
    path.write_text(json.dumps(data))
    assert _blocks(hooks)


def test_malformed_allowlist_entry_for_another_hook_is_skipped_at_start_up(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    load(home, {"pre_tool_call": [GUARD]})  # approves the guard
    path = home / consent.FILENAME
    data = json.loads(path.read_text())
    other = {"command": script("minimal.sh"), "matcher": "web_extract"}
    data["approvals"].insert(0, {"event": "pre_tool_call", "command": other["command"],
                                 "matcher": ["a", "b"]})  # fmt: skip
    path.write_text(json.dumps(data))
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(home, {"pre_tool_call": [GUARD, other]}, accept=False)
    assert shell_plugin(hooks) is not None  # the shell source started
    assert _blocks(hooks)
    skipped = [
        r.getMessage() for r in caplog.records if "allowlist entry skipped" in r.getMessage()
    ]
    assert len(skipped) == 1 and "matcher is list" in skipped[0] and "minimal.sh" in skipped[0]


def test_session_env_files_are_distinct_per_session_id(home: Path) -> None:
    hooks = load(home, {"on_session_start": [{"command": "true"}]})
    runner = shell_plugin(hooks).runner
    ids = ["telegram:alice", "telegram_alice", "telegram/alice", "telegram alice"]
    paths = {runner.env_file(i) for i in ids}
    assert len(paths) == len(ids)
    assert all(p.parent == home / "shell-hooks-env" for p in paths)


def test_host_descriptors_do_not_leak_into_hooks() -> None:
    r, w = os.pipe()
    os.set_inheritable(w, True)
    try:
        out = processes.run(processes.Command(["sh", "-c", "ls /proc/self/fd"]))
        fds = {int(x) for x in out.stdout.split()}
        assert w not in fds
    finally:
        os.close(r)
        os.close(w)


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_no_descriptor_leaks_when_spawning_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    real_pipe = os.pipe
    calls = {"n": 0}

    def pipe() -> tuple[int, int]:
        calls["n"] += 1
        if calls["n"] % 3 == 0:
            raise OSError(errno.EMFILE, "Too many open files")
        return real_pipe()

    before = _open_fds()
    monkeypatch.setattr(os, "pipe", pipe)
    for _ in range(10):
        out = processes.run(processes.Command(["true"]))
        assert out.error is not None and "Too many open files" in out.error
        calls["n"] = 0
    monkeypatch.setattr(os, "pipe", real_pipe)
    assert _open_fds() == before


def test_consent_question_shows_escape_sequences_escaped(home: Path) -> None:
    sneaky = "true # \x1b[2K\x1b[1G\x1b[1Aecho harmless \u202e"
    hooks = load(home, {"pre_tool_call": [{"command": sneaky}]}, accept=False)
    source = shell_plugin(hooks)
    text = source.question(source.all_hooks[0])
    assert "\x1b" not in text and "\u202e" not in text
    assert "\\x1b[2K" in text and "\\u202e" in text


def _env_seen(home: Path, monkeypatch: pytest.MonkeyPatch, **config: Any) -> dict[str, str]:
    monkeypatch.setenv("HOST_SECRET", "s3cret")
    monkeypatch.setenv("WANTED", "yes")
    out = home / "env.json"
    entry = {
        "command": f"{script('echo_payload.sh')}",
        "env": {"OUT": str(out)},
        "env_passthrough": ["WANTED"],
    }
    hooks = load(home, {"pre_tool_call": [entry]}, **config)
    source = shell_plugin(hooks)
    return source.runner.static_env(source.all_hooks[0])


def test_minimal_hook_environment_passes_only_what_is_listed(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = _env_seen(home, monkeypatch, hooks_env="minimal")
    assert "HOST_SECRET" not in env
    assert env["WANTED"] == "yes" and "PATH" in env and env["OUT"]


def test_default_hook_environment_is_the_hosts(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = _env_seen(home, monkeypatch)
    assert env["HOST_SECRET"] == "s3cret"


def test_minimal_environment_reaches_the_process(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOST_SECRET", "s3cret")
    out = tmp_path / "env.txt"
    entry = {"command": f"sh -c 'env > {out}'"}
    hooks = load(home, {"pre_tool_call": [entry]}, hooks_env="minimal")
    hooks.pre_tool_call(tool_name="t", args={})
    seen = out.read_text()
    assert "HOST_SECRET" not in seen and "HERMES_HOOK_EVENT=pre_tool_call" in seen


def _exe(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return str(path)


def _web_hooks(home: Path, tmp_path: Path) -> tuple[Any, Path]:
    """A settings.json ``if: WebFetch(domain:...)`` hook that logs its runs, and a second hook
    of the same call that blocks."""
    ran = tmp_path / "ran.log"
    logger = _exe(tmp_path / "log.sh", f"cat >> {ran}\necho >> {ran}\n")
    blocker = _exe(tmp_path / "block.sh", "echo 'no fetching' >&2\nexit 2\n")
    write_settings(home / "settings.json", {"PreToolUse": [
        {"matcher": "WebFetch",
         "hooks": [{"type": "command", "command": logger, "if": "WebFetch(domain:example.com)"}]},
        {"matcher": "WebFetch", "hooks": [{"type": "command", "command": blocker}]},
    ]})  # fmt: skip
    return hermes_hooks.load(home, accept_hooks=True, entry_points=False), ran


def test_if_rule_on_an_unparseable_url_runs_its_hook(home: Path, tmp_path: Path) -> None:
    hooks, ran = _web_hooks(home, tmp_path)
    d = hooks.pre_tool_call(tool_name="web_extract", args={"url": "http://[::1"})
    assert (d.action, d.message) == ("block", "no fetching")
    assert ran.exists()  # the filter could not read the URL: its hook ran
    rule = Rule.parse("WebFetch(domain:example.com)")
    assert rule.matches("web_extract", {"url": "http://[::1"}, cwd="/", project="/")


def test_a_raising_filter_costs_only_its_own_hook(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    hooks, ran = _web_hooks(home, tmp_path)

    def broken(*args: Any, **kwargs: Any) -> bool:
        raise RuntimeError("filter broke")

    (filtered,) = [h for h in shell_plugin(hooks).by_event["pre_tool_call"] if h.condition]
    monkeypatch.setattr(type(filtered.condition), "matches", broken)
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        d = hooks.pre_tool_call(tool_name="web_extract", args={"url": "https://example.com/"})
    assert (d.action, d.message) == ("block", "no fetching")  # the other hook kept its block
    assert ran.exists()  # the hook whose filter failed ran
    assert "filter broke" in caplog.text and "log.sh" in caplog.text
