"""Helpers shared by the shell-hook tests: writing a config and loading a home."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import yaml

import hermes_hooks

HOOKS = Path(__file__).parent / "data" / "hooks"


def script(name: str) -> str:
    """The absolute path of a test hook script in tests/data/hooks/."""
    return str(HOOKS / name)


def write_config(home: Path, config: dict[str, Any]) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / "config.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def write_settings(path: Path, hooks: dict[str, Any], **extra: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks, **extra}, indent=2))
    return path


def load(
    home: Path, hooks: dict[str, Any] | None = None, *, accept: bool = True, **config: Any
) -> Any:
    """Write ``hooks:`` (and other top-level keys) to home/config.yaml and load the home."""
    data = dict(config)
    if hooks is not None:
        data["hooks"] = hooks
    write_config(home, data)
    return hermes_hooks.load(home, accept_hooks=accept, entry_points=False)


def shell_plugin(hooks: Any) -> Any:
    rec = hooks.records.get("builtin:shell_hooks")
    return rec.plugin if rec else None


def gone(pid: int, within: float = 5.0) -> bool:
    """Whether process ``pid`` has ended within ``within`` seconds (a zombie waiting for its
    reaper counts as ended: it runs nothing)."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().split(")")[-1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        except OSError:
            pass
        time.sleep(0.02)
    return False


def on_a_terminal(
    argv: list[str],
    answer: bytes,
    *,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 60,
) -> str:
    """Run ``argv`` on a pseudo-terminal (its stdin, stdout and stderr), answer ``answer`` to
    the first ``[y/N]`` question, and return what it showed (``\\r\\n`` as ``\\n``)."""
    import os
    import pty
    import select

    pid, fd = pty.fork()
    if pid == 0:  # the child
        if cwd is not None:
            os.chdir(cwd)
        os.execve(argv[0], argv, env if env is not None else dict(os.environ))
    seen, answered = b"", False
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if select.select([fd], [], [], 0.5)[0]:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk
            if not answered and b"[y/N]" in seen:
                os.write(fd, answer + b"\n")
                answered = True
    finally:
        os.close(fd)
        os.waitpid(pid, 0)
    return seen.decode("utf-8", "replace").replace("\r\n", "\n")


def keep_machine_plugins_out(monkeypatch: Any) -> None:
    """Disable by name (so never import) the plugins this machine has installed, for a test that
    turns entry points on: only the test's own distributions load."""
    from importlib.metadata import entry_points

    machine = {
        ep.name
        for group in ("hermes_hooks", "hermes_agent.plugins")
        for ep in entry_points(group=group)
        if getattr(ep.dist, "name", None) != "hermes-hooks"
    }
    if machine:
        monkeypatch.setenv("HERMES_HOOKS_DISABLED", ",".join(sorted(machine)))
