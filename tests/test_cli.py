"""`hermes hooks` command line, run as real subprocesses through the installed console scripts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

HERMES_HOOKS = shutil.which("hermes-hooks")
HERMES = shutil.which("hermes")


def run(*args, home=None, env=None, script=None):
    cmd = [script or HERMES_HOOKS, *args]
    # The machine's hermes settings stay out; the suite's autoload switch (conftest) stays in.
    full_env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("HERMES") or k == "HERMES_HOOKS_DISABLE_AUTOLOAD"
    }
    full_env.update(env or {})
    if home is not None:
        full_env["HERMES_HOME"] = str(home)
    return subprocess.run(cmd, capture_output=True, text=True, env=full_env, timeout=60)


pytestmark = pytest.mark.skipif(HERMES_HOOKS is None, reason="console scripts not installed")


def test_list_json_shows_broken_plugin_and_good_one(home, plugin_dir):
    plugin_dir(
        "good", 'def register(ctx):\n    ctx.register_hook("pre_tool_call", lambda **kw: None)\n'
    )
    plugin_dir("broken", "raise ImportError('missing dependency foo')\n")
    out = run("list", "--json", home=home)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    good = [r for r in rows if r["name"] == "good"]
    assert good and good[0]["event"] == "pre_tool_call" and good[0]["status"] == "active"
    assert good[0]["source"] == "directory"
    broken = [r for r in rows if r["name"] == "broken"]
    assert broken[0]["status"] == "failed" and "missing dependency foo" in broken[0]["error"]
    assert "broken" in out.stderr  # the warning names the plugin


def test_list_table_and_event_filter(home, plugin_dir):
    plugin_dir(
        "a",
        'def register(ctx):\n    ctx.register_hook("pre_tool_call", lambda **kw: None)\n    ctx.register_hook("pre_llm_call", lambda **kw: None)\n',
    )
    out = run("list", "--event", "PreToolUse", home=home)
    assert out.returncode == 0, out.stderr
    assert "pre_tool_call" in out.stdout and "pre_llm_call" not in out.stdout
    out = run("list", "--event", "pre_tools_call", home=home)
    assert out.returncode == 2 and "did you mean 'pre_tool_call'" in out.stderr


def test_list_home_option_after_subcommand(home, plugin_dir):
    plugin_dir(
        "a", 'def register(ctx):\n    ctx.register_hook("pre_tool_call", lambda **kw: None)\n'
    )
    out = run("list", "--json", "--home", str(home))
    assert out.returncode == 0, out.stderr
    assert [r["name"] for r in json.loads(out.stdout)] == ["a"]


def test_list_on_empty_home_says_how_to_start(home):
    out = run("list", home=home)
    assert out.returncode == 0 and "No hooks" in out.stdout


def test_list_all_includes_builtins(home):
    (home / "BOOT.md").write_text("Check the disks and report.\n")  # makes boot_md register
    everything = json.loads(run("list", "--json", "--all", home=home).stdout)
    active = [r for r in everything if r["status"] != "idle"]
    assert [(r["name"], r["source"], r["event"]) for r in active] == [
        ("builtin:boot_md", "builtin", "gateway_event")
    ]
    idle = {r["name"] for r in everything if r["status"] == "idle"}  # --all shows every built-in
    from hermes_hooks.builtin_plugins import BUILTINS

    assert idle == {f"builtin:{name}" for name in BUILTINS} - {"builtin:boot_md"}
    assert json.loads(run("list", "--json", home=home).stdout) == []


def test_events_table():
    out = run("events")
    assert out.returncode == 0
    assert "pre_tool_call" in out.stdout and "PreToolUse" in out.stdout


def test_hermes_script_handles_hooks_and_version():
    out = run("hooks", "events", "--json", script=HERMES)
    assert out.returncode == 0 and json.loads(out.stdout)[0]["name"] == "pre_tool_call"
    out = run("--version", script=HERMES)
    assert out.returncode == 0 and out.stdout.startswith("hermes-hooks ")


def test_hermes_script_without_agent_says_so():
    out = run("chat", script=HERMES, env={"HERMES_HOOKS_NO_AGENT": "1"})
    assert out.returncode == 2
    assert "Hermes Agent" in out.stderr and "not installed" in out.stderr


def test_hermes_script_keeps_hermes_aliases_and_profiles_without_hermes(home, tmp_path):
    # `hermes -p NAME hooks ls` is ours even when Hermes Agent is absent: the profile's home,
    # Hermes' `ls` alias for `list` (tests/test_handover.py checks it beside the real Hermes).
    script = tmp_path / "guard.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    profile = home / "profiles" / "work"
    profile.mkdir(parents=True)
    (profile / "config.yaml").write_text(f"hooks:\n  pre_tool_call:\n    - command: {script}\n")
    env = {"HERMES_HOOKS_NO_AGENT": "1"}
    for args in (("-p", "work"), ("--profile", "work"), ("--profile=work",)):
        out = run(*args, "hooks", "ls", "--json", script=HERMES, home=home, env=env)
        assert out.returncode == 0, (args, out.stderr)
        shell = [r["command"] for r in json.loads(out.stdout) if r.get("source") == "shell"]
        assert shell == [str(script)], args
    out = run("hooks", "ls", "--json", script=HERMES, home=home, env=env)  # the default profile
    assert [r for r in json.loads(out.stdout) if r.get("source") == "shell"] == []


def test_hermes_hooks_accepts_leading_hooks_word():
    assert run("hooks", "events").returncode == 0


def test_demo_runs():
    out = run("demo")
    assert out.returncode == 0, out.stderr
    assert "block" in out.stdout and "[redacted]" in out.stdout


def test_help_lists_commands():
    out = run("--help")
    assert out.returncode == 0
    for cmd in ("list", "events", "demo"):
        assert cmd in out.stdout


def test_import_is_cheap():
    code = (
        "import sys, hermes_hooks; "
        "bad = [m for m in ('yaml', 'click', 'importlib.metadata', 'pluggy') if m in sys.modules]; "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == ""


def test_help_does_not_load_plugins_or_yaml():
    # Every command's module (from the command table itself), and what loading hooks needs.
    code = (
        "import sys; from hermes_hooks import cli\n"
        "heavy = {'yaml', 'importlib.metadata', 'hermes_hooks.manager'}\n"
        "heavy |= {module for module, _, _ in cli.COMMANDS.values()}\n"
        "try:\n    cli.main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in heavy if m in sys.modules), file=sys.stderr)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stderr.strip().endswith("[]"), out.stderr


def test_list_json_stays_valid_when_a_plugin_prints(home, plugin_dir):
    plugin_dir(
        "noisy",
        'print("garbage at import")\ndef register(ctx):\n    print("garbage in register")\n    ctx.register_hook("pre_llm_call", lambda **kw: None)\n',
    )
    out = run("list", "--json", home=home)
    assert out.returncode == 0
    assert json.loads(out.stdout)[0]["name"] == "noisy"
    assert "garbage at import" in out.stderr


def test_every_command_is_documented():
    from pathlib import Path

    from hermes_hooks.cli import COMMANDS

    text = (Path(__file__).resolve().parent.parent / "docs" / "cli.md").read_text()
    for name in COMMANDS:
        assert f"### `{name}" in text, f"docs/cli.md has no section for `{name}`"
