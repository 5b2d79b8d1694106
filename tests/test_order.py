"""DESIGN.md 3.2, pinned: Python plugins first (priority / tryfirst earlier), then built-in
sources (shell hooks, gateway hooks: trylast), and ``hermes hooks list`` shows that real order."""

from __future__ import annotations

import os
import stat
import textwrap
from pathlib import Path

import yaml

import hermes_hooks
from tests.conftest import write_plugin


def _recorder(tmp: Path, name: str, log: Path) -> str:
    """A shell hook that logs its name and blocks with its name as the message."""
    path = tmp / f"{name}.sh"
    path.write_text(f"#!/bin/sh\ncat >/dev/null\necho {name} >> {log}\necho {name} >&2\nexit 2\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _python_plugin(home: Path, name: str, log: Path, manifest: str = "", tryfirst: bool = False):
    opts = "tryfirst=True" if tryfirst else ""
    write_plugin(
        home,
        name,
        f"""
        from hermes_hooks import hookimpl

        @hookimpl({opts})
        def pre_tool_call():
            with open({str(log)!r}, "a") as f:
                f.write({name!r} + "\\n")
        """,
        manifest=textwrap.dedent(manifest) or f"name: {name}\n",
    )


def test_python_plugins_then_shell_hooks_with_priority_and_tryfirst(home, tmp_path):
    log = tmp_path / "calls.log"
    _python_plugin(home, "alpha", log)
    _python_plugin(home, "beta", log, manifest="name: beta\npriority: 5\n")
    _python_plugin(home, "gamma", log, tryfirst=True)
    shell = {
        "pre_tool_call": [
            {"command": _recorder(tmp_path, "sh_low", log), "name": "sh_low"},
            {"command": _recorder(tmp_path, "sh_high", log), "name": "sh_high", "priority": 9},
        ]
    }
    (home / "config.yaml").write_text(yaml.safe_dump({"hooks": shell}))
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    ran = log.read_text().split()
    # tryfirst beats plugin priority; plugin priority beats discovery order; every Python
    # plugin runs before any shell hook (built-ins are trylast). Shell hooks of one event run in
    # parallel; their answers are taken in priority order, so the first block is sh_high's.
    assert ran[:3] == ["gamma", "beta", "alpha"]
    assert sorted(ran[3:]) == ["sh_high", "sh_low"]
    assert decision.action == "block" and decision.message == "sh_high"
    listed = [r["name"] for r in hooks.rows() if r["event"] == "pre_tool_call"]
    assert listed == ["gamma", "beta", "alpha", "sh_high", "sh_low"]
    sources = [r["source"] for r in hooks.rows() if r["event"] == "pre_tool_call"]
    assert sources == ["directory", "directory", "directory", "shell", "shell"]


def test_gateway_hooks_run_after_python_plugins(home, tmp_path):
    log = tmp_path / "calls.log"
    write_plugin(
        home,
        "py",
        f"""
        from hermes_hooks import hookimpl

        @hookimpl
        def gateway_event(event_type):
            with open({str(log)!r}, "a") as f:
                f.write("py\\n")
        """,
    )
    gw = home / "hooks" / "gw"
    gw.mkdir(parents=True)
    (gw / "HOOK.yaml").write_text("name: gw\nevents: [agent:start]\n")
    (gw / "handler.py").write_text(
        f"def handle(event_type, context):\n    open({str(log)!r}, 'a').write('gw\\n')\n"
    )
    for p in (home, home / "hooks", gw, gw / "handler.py", gw / "HOOK.yaml"):
        os.chmod(p, 0o700 if p.is_dir() else 0o600)
    hooks = hermes_hooks.load(home, {}, entry_points=False)
    hooks.emit_sync("agent:start", {"platform": "cli"})
    assert log.read_text().split() == ["py", "gw"]
    listed = [r["name"] for r in hooks.rows() if r["event"] == "gateway_event"]
    assert listed == ["py", "gateway:gw"]


def test_a_python_block_comes_before_a_shell_block_of_the_same_rank(home, tmp_path):
    log = tmp_path / "calls.log"
    write_plugin(
        home,
        "py",
        """
        from hermes_hooks import hookimpl

        @hookimpl
        def pre_tool_call():
            return {"action": "block", "message": "python"}
        """,
    )
    shell = {"pre_tool_call": [{"command": _recorder(tmp_path, "shell", log), "name": "shell"}]}
    (home / "config.yaml").write_text(yaml.safe_dump({"hooks": shell}))
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    decision = hooks.pre_tool_call(tool_name="terminal", args={})
    assert (decision.message, decision.source) == ("python", "py")
    assert log.read_text().split() == ["shell"]  # it ran, it just came second
