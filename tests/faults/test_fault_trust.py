"""One trust rule for every source of code or policy (OpenSSH's, with Debian's user private
groups): refused when owned by another user, writable by everyone, or writable by a group with
other members; the message names the path, the reason and the fix."""

from __future__ import annotations

import json
import os
import pwd
from pathlib import Path
from typing import Any

import pytest
from hermes_hooks.builtin_plugins.shell_hooks import consent
from shell_helpers import load, script, shell_plugin, write_config

import hermes_hooks
from hermes_hooks import trust

ROOT = hasattr(os, "getuid") and os.getuid() == 0


def _shared_gid() -> int | None:
    """A group that is another user's primary group (so it has members other than us)."""
    me = os.getuid()
    for p in pwd.getpwall():
        if p.pw_uid != me and p.pw_gid != os.getgid():
            return p.pw_gid
    return None


def test_group_writable_private_group_is_trusted(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "f"
    path.write_text("x")
    path.chmod(0o664)
    (tmp_path).chmod(0o755)
    monkeypatch.setattr(trust, "_group_is_private", lambda gid, uid: True)
    assert trust.untrusted(path) is None
    # the same file when its group has other members: refused, with the fix (no root needed)
    monkeypatch.setattr(trust, "_group_is_private", lambda gid, uid: False)
    why = trust.untrusted(path)
    assert why is not None and "has other members" in why and "chmod g-w" in why


@pytest.mark.skipif(not ROOT or _shared_gid() is None, reason="needs root to chgrp")
def test_group_writable_shared_group_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_text("x")
    gid = _shared_gid()
    assert gid is not None
    os.chown(path, -1, gid)
    path.chmod(0o664)
    why = trust.untrusted(path)
    assert why is not None and "has other members" in why and "chmod g-w" in why


@pytest.mark.skipif(not ROOT, reason="needs root to chown")
def test_file_of_another_user_is_refused_with_the_chown(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_text("x")
    os.chown(path, 12345, -1)
    why = trust.untrusted(path)
    assert why is not None and str(path) in why and "chown" in why


def test_world_writable_allowlist_approves_nothing(home: Path) -> None:
    command = script("block_rm.sh")
    write_config(home, {"hooks": {"pre_tool_call": [{"command": command}]}})
    forged = {"event": "pre_tool_call", "command": command}
    path = home / consent.FILENAME
    path.write_text(json.dumps({"approvals": [forged]}))
    path.chmod(0o666)
    hooks = hermes_hooks.load(home, accept_hooks=False, entry_points=False)
    source = shell_plugin(hooks)
    assert source.consent(source.all_hooks[0]).status == "unapproved"
    assert "writable by everyone" in (source.allowlist.refused or "")


def test_world_writable_config_locks_down(home: Path) -> None:
    path = write_config(home, {"hooks": {}})
    path.chmod(0o666)
    hooks = hermes_hooks.load(home, entry_points=False)
    assert any("writable by everyone" in e for e in hooks.config_errors)
    assert hooks.pre_tool_call(tool_name="t", args={}).action == "block"


def test_world_writable_settings_json_is_refused_alone(home: Path) -> None:
    settings = home / "settings.json"
    home.mkdir(parents=True, exist_ok=True)
    rm = {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}
    settings.write_text(json.dumps({"hooks": rm}))
    settings.chmod(0o666)
    hooks = load(home, {"pre_tool_call": [{"command": script("block_rm.sh")}]})
    source = shell_plugin(hooks)
    assert [h.command for h in source.all_hooks] == [script("block_rm.sh")]
    assert any("refused" in p for p in source.problems)


def test_world_writable_plugin_module_is_refused(home: Path, plugin_dir: Any) -> None:
    d = plugin_dir(
        "p", "from . import helper\ndef register(ctx):\n    pass\n", files={"helper.py": "X = 1\n"}
    )
    (d / "helper.py").chmod(0o666)
    hooks = hermes_hooks.load(home, {}, entry_points=False)
    row = next(r for r in hooks.rows() if r["name"] == "p")
    assert row["status"] == "failed" and "helper.py" in row["error"] and "chmod o-w" in row["error"]


def test_world_writable_boot_md_is_not_run(home: Path, caplog: pytest.LogCaptureFixture) -> None:
    boot = home / "BOOT.md"
    boot.write_text("check the disks\n")
    boot.chmod(0o666)
    hooks = hermes_hooks.load(home, {}, entry_points=False)
    hooks.emit_sync("gateway:startup", {})
    assert "refused" in caplog.text and "BOOT.md" in caplog.text


def test_demo_works_under_umask_002(tmp_path: Path) -> None:
    import shutil
    import subprocess
    import sys

    cli = shutil.which("hermes-hooks", path=os.path.dirname(sys.executable))
    assert cli is not None
    env = {**os.environ, "HERMES_HOME": str(tmp_path / "home")}
    out = subprocess.run(["sh", "-c", 'umask 002; exec "$0" demo', cli], env=env,
                         capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "Only the owner may reset this chat." in out.stdout
    assert "refused" not in out.stdout + out.stderr
