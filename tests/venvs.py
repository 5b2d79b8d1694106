"""Throw-away virtual environments for the tests that install real distributions.

The venvs are created without pip (fast) and driven by the running interpreter's pip through
``pip --python``; packages come from PyPI through pip's cache. They are clean: never
``--system-site-packages``, because the interpreter running the tests has hermes-hooks installed
in editable mode, which would hide exactly what these tests check.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from hermes_hooks.hermes_patch import SUPPORTED

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "hermes-hook-example"
#: The Hermes Agent release the bridge patches (hermes_patch.SUPPORTED), as pip installs it.
HERMES_AGENT = f"hermes-agent=={SUPPORTED}"
#: Hermes Agent's own entry function, started as its ``hermes`` script would start it.
RUN_HERMES = (
    "import sys; from hermes_cli.main import main; sys.argv[0] = 'hermes'; sys.exit(main())"
)

# Never copied into a build: caches, old build output, local venvs, VCS data.
_NOT_SOURCE = shutil.ignore_patterns(
    ".git",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    "*.pyc",
    ".*venv*",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    ".benchmarks",
)

# Environment variables a venv subprocess never inherits: the calling interpreter's venv and
# Python settings, the machine's hermes configuration, and the switches of the third-party
# plugins that tests/test_compat_real_plugins.py installs.
_NOT_INHERITED = (
    "HERMES",
    "PYTHON",
    "VIRTUAL_ENV",
    "__PYVENV",
    "PYTEST",
    "NOISEGATE",
    "AGENTGUARD",
)

# Built once per test run and shared by every module that installs them: {name: wheel path}.
_WHEELS: dict[str, Path] = {}


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for a venv subprocess: nothing of the calling interpreter's venv or
    of the machine's hermes configuration leaks in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_NOT_INHERITED)}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.update(extra)
    return env


def run(cmd: list[str], *, check: bool = True, timeout: float = 600, **kwargs: Any) -> Any:
    """``subprocess.run`` with text output; a failure shows the command's output."""
    kwargs.setdefault("env", clean_env())
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)
    if check and out.returncode != 0:
        raise AssertionError(
            f"{' '.join(map(str, cmd))} exited {out.returncode}\n"
            f"--- stdout\n{out.stdout[-4000:]}\n--- stderr\n{out.stderr[-4000:]}"
        )
    return out


def pip(*args: str, python: Path | None = None, **kwargs: Any) -> Any:
    """Run the calling interpreter's pip, aimed at ``python``'s environment when given."""
    target = ["--python", str(python)] if python is not None else []
    return run([sys.executable, "-m", "pip", *target, *args], **kwargs)


def copy_source(src: Path, dst: Path) -> Path:
    """A copy of a project to build from, so a build never writes into (or reads stale files
    from) the working tree's ``build/``."""
    shutil.copytree(src, dst, ignore=_NOT_SOURCE)
    return dst


def wheel(name: str, src: Path, tmp_root: Path) -> Path:
    """Build ``src`` into a wheel once per test run (``--no-deps``: only this project)."""
    if name not in _WHEELS or not _WHEELS[name].exists():
        work = tmp_root / f"build-{name}"
        copy = copy_source(src, work / "src")
        out = work / "dist"
        pip("wheel", "--no-deps", "--quiet", "-w", str(out), str(copy))
        (built,) = out.glob("*.whl")
        _WHEELS[name] = built
    return _WHEELS[name]


class Venv:
    """One virtual environment: its interpreter, console scripts and site-packages."""

    def __init__(self, root: Path) -> None:
        self.root = root
        run([sys.executable, "-m", "venv", "--without-pip", str(root)])
        self.bindir = root / ("Scripts" if os.name == "nt" else "bin")
        self.python = self.bindir / ("python.exe" if os.name == "nt" else "python")
        paths = self.py("import json, sysconfig; print(json.dumps(sysconfig.get_paths()))")
        self.site_packages = Path(json.loads(paths.stdout)["purelib"])

    def install(self, *requirements: str) -> None:
        """``pip install`` into this venv (dependencies from PyPI, through pip's cache)."""
        pip("install", "--quiet", *requirements, python=self.python)

    def script(self, name: str) -> Path:
        """A console script installed in this venv."""
        return self.bindir / name

    def env(self, **extra: str) -> dict[str, str]:
        """A clean environment with this venv's scripts first on ``PATH``."""
        base = clean_env()
        base["PATH"] = f"{self.bindir}{os.pathsep}{base.get('PATH', '')}"
        base.update(extra)
        return base

    def py(
        self, code: str, *args: str, cwd: Path | None = None, check: bool = True, **env: str
    ) -> Any:
        """Run ``python -c code args...`` in this venv (from ``cwd``, default the venv's root, so
        the repository is never on ``sys.path``)."""
        return run(
            [str(self.python), "-c", code, *args],
            cwd=cwd or self.root,
            env=self.env(**env),
            check=check,
        )

    def cli(
        self, name: str, *args: str, cwd: Path | None = None, check: bool = True, **env: str
    ) -> Any:
        """Run one of this venv's console scripts."""
        return run(
            [str(self.script(name)), *args],
            cwd=cwd or self.root,
            env=self.env(**env),
            check=check,
        )

    def top_level_names(self) -> set[str]:
        """Every module or package name at the top of site-packages."""
        names = set()
        for entry in self.site_packages.iterdir():
            if entry.suffix in (".pth", ".dist-info") or entry.name.endswith(".dist-info"):
                continue
            names.add(entry.name.removesuffix(".py"))
        return names
