"""Install the real agent CLIs (and the published hook packages the oracle runs) at pinned versions.

Each package goes into its own directory of a cache, ``$HERMES_HOOKS_ORACLE_CACHE`` or
``~/.cache/hermes-hooks-oracle/<name>@<version>``, built under a temporary name and renamed into
place when complete, so a cache entry is either whole or absent. A file lock per entry lets
parallel test runs share the cache: the second waits for the first and reuses its result.

Anything that cannot be obtained raises :class:`OracleUnavailable` with what was tried; the tests
turn it into a failure (never a silent skip). ``HERMES_HOOKS_SKIP_ORACLE=1`` is the only opt-out.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

#: The versions the oracle runs (``npm view <package> version`` when they were pinned).
CLAUDE = ("@anthropic-ai/claude-code", "2.1.330", "claude")
GEMINI = ("@google/gemini-cli", "0.61.0", "gemini")
CODEX = ("@openai/codex", "0.169.0", "codex")
#: A Claude Code PreToolUse/PostToolUse/Stop hook published on PyPI (tests/test_shell_real_hooks.py).
SENSORIUM = ("agent-sensorium", "0.1.0", "sensorium")

SKIP_ENV = "HERMES_HOOKS_SKIP_ORACLE"
NPM_TIMEOUT = 420


class OracleUnavailable(RuntimeError):
    """A pinned CLI or package could not be installed or run."""


@dataclass(frozen=True)
class Installed:
    package: str
    version: str
    binary: Path


def cache_root() -> Path:
    env = os.environ.get("HERMES_HOOKS_ORACLE_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hermes-hooks-oracle"


def _entry_name(package: str, version: str) -> str:
    return package.lstrip("@").replace("/", "+") + "@" + version


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _run(cmd: list[str], cwd: Path, what: str, timeout: int = NPM_TIMEOUT) -> None:
    try:
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError as exc:
        raise OracleUnavailable(f"{what}: {cmd[0]} is not installed ({exc})") from exc
    except subprocess.TimeoutExpired as exc:
        raise OracleUnavailable(f"{what}: {' '.join(cmd)} took over {timeout}s") from exc
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip()[-1500:]
        raise OracleUnavailable(f"{what}: `{' '.join(cmd)}` exited {done.returncode}:\n{tail}")


def _check_runs(binary: Path, what: str) -> None:
    env = dict(os.environ)
    env["HOME"] = str(binary.parent)  # never read the user's own configuration
    try:
        done = subprocess.run([str(binary), "--version"], capture_output=True, text=True,
                              timeout=60, env=env)  # fmt: skip
    except OSError as exc:
        raise OracleUnavailable(f"{what}: {binary} cannot be run: {exc}") from exc
    if done.returncode != 0:
        raise OracleUnavailable(f"{what}: `{binary} --version` exited {done.returncode}: "
                                f"{(done.stderr or done.stdout).strip()[-500:]}")  # fmt: skip


def install_npm(spec: tuple[str, str, str]) -> Installed:
    """``npm install`` one pinned CLI into the cache (once) and return its binary."""
    package, version, bin_name = spec
    what = f"installing {package}@{version} for the oracle tests"
    entry = cache_root() / _entry_name(package, version)
    binary = entry / "node_modules" / ".bin" / bin_name
    with _locked(entry.with_name(entry.name + ".lock")):
        if not binary.exists():
            if shutil.which("npm") is None:
                raise OracleUnavailable(f"{what}: npm is not on PATH (install Node.js and npm)")
            tmp = entry.with_name(entry.name + ".partial")
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir(parents=True)
            (tmp / "package.json").write_text('{"name": "oracle-cache", "private": true}\n')
            _run(["npm", "install", "--no-audit", "--no-fund", "--no-save", "--loglevel=error",
                  f"{package}@{version}"], tmp, what)  # fmt: skip
            if not (tmp / "node_modules" / ".bin" / bin_name).exists():
                raise OracleUnavailable(f"{what}: npm finished but gave no {bin_name} binary")
            shutil.rmtree(entry, ignore_errors=True)
            tmp.rename(entry)
    _check_runs(binary, what)
    return Installed(package, version, binary)


def install_pypi(spec: tuple[str, str, str]) -> Installed:
    """Install one pinned PyPI package into its own cached venv and return its script."""
    package, version, script = spec
    what = f"installing {package}=={version} for the oracle tests"
    entry = cache_root() / _entry_name(package, version)
    binary = entry / "bin" / script
    done = entry / ".complete"  # written last: a venv without it is rebuilt
    with _locked(entry.with_name(entry.name + ".lock")):
        if not done.exists():
            shutil.rmtree(entry, ignore_errors=True)
            _run([sys.executable, "-m", "venv", str(entry)], entry.parent, what)
            _run([str(entry / "bin" / "python"), "-m", "pip", "install", "--quiet",
                  "--disable-pip-version-check", f"{package}=={version}"], entry.parent, what)  # fmt: skip
            done.write_text(f"{package}=={version}\n")
    if not binary.exists():
        raise OracleUnavailable(f"{what}: no {script} script in {entry / 'bin'}")
    return Installed(package, version, binary)
