"""The project's own tests do not depend on the plugins installed where they run: a plugin that
blocks every tool call and adds context to every turn, installed (as a real distribution on the
path), leaves the CLI and loader tests green."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

TESTS = Path(__file__).resolve().parent

PLUGIN = """\
import hermes_hooks


@hermes_hooks.hookimpl
def pre_tool_call(tool_name, args):
    return {"action": "block", "message": "a plugin installed on this machine"}


@hermes_hooks.hookimpl
def pre_llm_call():
    return "context from a plugin installed on this machine"
"""


def test_suite_passes_with_a_meddling_plugin_installed(tmp_path: Path) -> None:
    site = tmp_path / "site"
    dist = site / "hermes_hook_meddler-1.0.dist-info"
    dist.mkdir(parents=True)
    (site / "hermes_hook_meddler.py").write_text(PLUGIN)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: hermes-hook-meddler\nVersion: 1.0\n"
    )
    (dist / "entry_points.txt").write_text("[hermes_hooks]\nmeddler = hermes_hook_meddler\n")
    (dist / "RECORD").write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    probe = subprocess.run(
        [sys.executable, "-c", "import hermes_hooks; h = hermes_hooks.load('" + str(tmp_path / "h")
         + "'); print(h.pre_tool_call(tool_name='t', args={}).action)"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert probe.stdout.strip() == "block"  # the plugin is really installed and active
    files = ["test_cli.py", "test_shell_cli.py", "test_loader.py", "test_cli_never_silent.py"]
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow",
         *(str(TESTS / f) for f in files)],
        capture_output=True, text=True, env=env, timeout=600, cwd=TESTS.parent,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
