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
