"""The scaffold's "Next:" steps work exactly as printed, in a fresh venv (with pip, without the
test runner's packages), one shell command at a time."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from venvs import clean_env, run

pytestmark = pytest.mark.slow


def _next_steps(output: str) -> list[str]:
    lines = output.splitlines()
    start = lines.index("Next:") + 1
    return [line.strip() for line in lines[start:] if line.startswith("  ") and line.strip()]


def test_scaffold_next_steps_work_as_printed_in_a_fresh_venv(venvs, tmp_path: Path) -> None:
    # Its own venv: the steps install the scaffolded plugin into it.
    bindir = venvs.fresh([str(venvs.hermes_hooks_wheel())], with_pip=True).bindir
    env = clean_env()
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    env["HERMES_HOME"] = str(tmp_path / "home")
    env.pop("VIRTUAL_ENV", None)
    work = tmp_path / "work"
    work.mkdir()
    made = run([str(bindir / "hermes"), "hooks", "new", "tripwire"], cwd=work, env=env)
    steps = _next_steps(made.stdout)
    assert steps[0].startswith("cd ") and len(steps) >= 3, made.stdout
    cwd = work
    outputs = []
    for step in steps:
        if step.startswith("cd "):
            cwd = (cwd / step[3:].strip("'\"")).resolve()
            continue
        out = subprocess.run(
            ["/bin/sh", "-c", step], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
        )
        assert out.returncode == 0, f"{step!r} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
        outputs.append(out.stdout)
    listed = outputs[-1]
    assert "tripwire" in listed and "active" in listed
