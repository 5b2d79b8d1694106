"""The command line never prints a traceback for bad input and never hangs on a plugin."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from shell_helpers import write_config


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cli = shutil.which("hermes-hooks", path=os.path.dirname(sys.executable))
    assert cli is not None
    return subprocess.run([cli, "--home", str(home), *args], capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip


def test_approve_all_with_a_directory_as_allowlist_says_so(home: Path) -> None:
    write_config(home, {"hooks": {"pre_tool_call": [{"command": "true"}]}})
    (home / "shell-hooks-allowlist.json").mkdir()
    out = _cli(home, "approve", "--all")
    assert out.returncode == 1
    assert "Traceback" not in out.stderr
    assert "cannot write the allowlist" in out.stderr


def test_list_does_not_hang_on_a_plugins_thread(
    home: Path, plugin_dir: Callable[..., Path]
) -> None:
    plugin_dir(
        "thready",
        "import threading, time\nthreading.Thread(target=time.sleep, args=(3600,)).start()\n"
        "def register(ctx):\n    pass\n",
    )
    out = _cli(home, "list")  # the 60 s timeout would raise
    assert out.returncode == 0, out.stderr
    assert "not waiting for plugin thread" in out.stderr


def test_list_json_stays_json_when_a_plugin_writes_to_fd_1(
    home: Path, plugin_dir: Callable[..., Path]
) -> None:
    plugin_dir(
        "noisy",
        "import os\nos.write(1, b'NOISE\\n')\nprint('more noise')\ndef register(ctx):\n    pass\n",
    )
    out = _cli(home, "list", "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert any(r["name"] == "noisy" for r in rows)
    assert "NOISE" in out.stderr


def test_list_and_test_show_escape_sequences_escaped(home: Path) -> None:
    sneaky = "true # \x1b[2K\x1b[1Gecho harmless"
    write_config(home, {"hooks": {"pre_tool_call": [{"command": sneaky}]}})
    for args in (["list"], ["test", "pre_tool_call", "--force"], ["doctor"]):
        out = _cli(home, *args)
        assert "\x1b" not in out.stdout + out.stderr, args
        assert "\\x1b[2K" in out.stdout, args
