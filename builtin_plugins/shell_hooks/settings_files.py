"""Internal: part of the built-ins (docs/builtins.md), not an API.

Claude Code ``settings.json`` files (and a Claude Code plugin's ``hooks/hooks.json``): their
``hooks`` read with the same :class:`~.config.Reader` as config.yaml's, every problem reported
with the file."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks import wire

if TYPE_CHECKING:
    from .config import Reader

log = logging.getLogger("hermes_hooks")


def read_object(path: Path, reader: Reader, parse: Callable[[str], Any] | None = None) -> Any:
    """The top-level object of a hook configuration file (JSON unless ``parse`` is given), or
    ``None`` when it cannot be used (reported with the file: untrusted, unreadable, invalid)."""
    import json

    from hermes_hooks.trust import untrusted

    try:
        distrust = untrusted(path) if path.exists() else None
    except (OSError, ValueError):  # a name stat() refuses (too long, a NUL byte): said below
        distrust = None
    if distrust is not None:
        reader.warn(f"{path}: refused: {distrust}; no shell hook was loaded from it")
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        reader.warn(f"{path}: cannot read: {exc.strerror or exc}; no shell hook was loaded from it")
        return None
    except UnicodeDecodeError as exc:
        reader.warn(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8; "
                    "no shell hook was loaded from it")  # fmt: skip
        return None
    except ValueError:  # a NUL byte in the name
        reader.warn(f"{str(path)!r}: not a valid file name; no shell hook was loaded from it")
        return None
    try:
        data = parse(text) if parse is not None else json.loads(text)
    except json.JSONDecodeError as exc:
        reader.warn(f"{path} at line {exc.lineno}, column {exc.colno}: JSON syntax error: {exc.msg}; "
                    "fix the file (no shell hook was loaded from it)")  # fmt: skip
        return None
    except ValueError as exc:  # TOML (tomllib.TOMLDecodeError is a ValueError)
        reader.warn(f"{path}: syntax error: {exc}; fix the file (no shell hook was loaded from it)")
        return None
    if not isinstance(data, dict):
        reader.warn(f"{path}: the top level must be an object; no shell hook was loaded from it")
        return None
    return data


def read_settings_file(path: Path, reader: Reader) -> None:
    """Read the hooks of a Claude Code ``settings.json`` (or a plugin's ``hooks/hooks.json``)."""
    data = read_object(path, reader)
    if data is None:
        return
    if data.get("disableAllHooks") is True:
        log.info("%s: disableAllHooks is true; its hooks are not loaded", path)
        return
    root = None
    if path.name == "hooks.json" and path.parent.name == "hooks":
        candidate = path.parent.parent
        if (candidate / ".claude-plugin").is_dir():
            root = str(candidate)
    reader.block(data.get("hooks"), str(path), wire.CLAUDE, plugin_root=root)
