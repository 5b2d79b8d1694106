"""A throw-away virtual environment with hermes-hooks installed, for the ecosystem tests.

Built with ``--system-site-packages`` so it needs no download: pluggy, PyYAML, click, platformdirs
and pytest come from the running interpreter, and hermes-hooks itself is installed (editable, no
dependencies) into the venv, which gives it its own ``hermes`` and ``hermes-hooks`` scripts. Plugin
packages built in it use pip's isolated builds, which take setuptools from the configured index.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def clean_env(venv: Path, home: Path | None = None, **extra: str) -> dict[str, str]:
    """An environment that runs the venv's programs first and leaks no HERMES_*/PYTEST_* setting;
    ``home`` becomes ``$HOME`` (so ``~/.hermes`` is private to the test)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HERMES", "PYTEST", "VIRTUAL_ENV", "PYTHONPATH", "PIP_REQUIRE"))
    }
    # The interpreter's own bin next: pyenv shims need the real $HOME, which a test replaces.
    env["PATH"] = os.pathsep.join(
        [str(venv / "bin"), str(Path(sys.executable).parent), env.get("PATH", "")]
    )
    env["VIRTUAL_ENV"] = str(venv)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"
    if home is not None:
        env["HOME"] = str(home)
    env.update(extra)
    return env


def run(
    cmd: list[str] | str, *, env: dict[str, str], cwd: Path, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """Run and capture; a failure shows the whole output."""
    out = subprocess.run(
        cmd,
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        shell=isinstance(cmd, str),
    )
    if out.returncode != 0:
        raise AssertionError(
            f"{cmd!r} exited {out.returncode}\n--- stdout\n{out.stdout[-6000:]}\n--- stderr\n{out.stderr[-6000:]}"
        )
    return out


def make_venv(root: Path) -> Path:
    """A venv under ``root`` with hermes-hooks installed; returns the venv's directory."""
    venv = root / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120
    )
    env = clean_env(venv)
    run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", "-e", str(REPO)],
        env=env,
        cwd=root,
    )
    return venv
