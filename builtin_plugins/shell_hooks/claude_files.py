"""Internal: part of the built-ins (docs/builtins.md), not an API.

Where Claude Code keeps hooks, for ``hooks_sources: [claude]``: the user's
``~/.claude/settings.json``, the project's ``.claude/settings.json`` and
``.claude/settings.local.json``, and the ``hooks/hooks.json`` of every plugin those settings
enable (``enabledPlugins``) that ``~/.claude/plugins/installed_plugins.json`` says where it is
installed. ``$CLAUDE_CONFIG_DIR`` moves the user's folder, as it does for Claude Code.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any


def user_dir() -> Path:
    """The user's Claude Code folder (``$CLAUDE_CONFIG_DIR``, else ``~/.claude``)."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured) if configured else Path(os.path.expanduser("~")) / ".claude"


def project_settings(project: Path) -> list[Path]:
    """The project's own settings files, shared and local: whoever wrote the repository wrote
    them, so every hook in them needs an approval (``ShellHook.project``)."""
    folder = project / ".claude"
    return [folder / "settings.json", folder / "settings.local.json"]


def settings_files(project: Path) -> list[Path]:
    """The settings files, user-wide first, then the project's shared and local ones."""
    return [user_dir() / "settings.json", *project_settings(project)]


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # the settings reader reports a broken settings file; this only looks


def enabled_plugins(files: Iterable[Path]) -> dict[str, bool]:
    """``enabledPlugins`` of the settings files, later files overriding earlier ones."""
    enabled: dict[str, bool] = {}
    for path in files:
        data = _json(path) if path.is_file() else None
        plugins = data.get("enabledPlugins") if isinstance(data, dict) else None
        if isinstance(plugins, dict):
            enabled.update({str(k): v is True for k, v in plugins.items()})
    return enabled


def plugin_hook_files(enabled: dict[str, bool], warn: Callable[[str], None]) -> list[Path]:
    """``hooks/hooks.json`` of each enabled plugin the install record knows; an enabled plugin
    that is not installed is reported (Claude Code would not run its hooks either)."""
    record = user_dir() / "plugins" / "installed_plugins.json"
    data = _json(record) if record.is_file() else None
    installed = data.get("plugins") if isinstance(data, dict) else None
    installed = installed if isinstance(installed, dict) else {}
    found = []
    for name, on in enabled.items():
        if not on:
            continue
        entries = installed.get(name)
        entries = entries if isinstance(entries, list) else [entries]
        given = [e.get("installPath") for e in entries if isinstance(e, dict)]
        paths = [Path(p) for p in given if isinstance(p, str) and p]
        if not paths:
            warn(f"Claude Code plugin {name!r} is enabled in enabledPlugins but {record} has no "
                 "installPath for it; its hooks were not loaded (install it with Claude Code)")  # fmt: skip
            continue
        hooks = paths[-1] / "hooks" / "hooks.json"
        if hooks.is_file():
            found.append(hooks)
    return found


def claude_files(project: Path, warn: Callable[[str], None]) -> list[Path]:
    """Every Claude Code file with hooks, in the order Claude Code merges them."""
    settings = settings_files(project)
    return [*settings, *plugin_hook_files(enabled_plugins(settings), warn)]
