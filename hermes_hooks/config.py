"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Finding the home directory and reading ``config.yaml`` (YAML is imported only here, lazily)."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger("hermes_hooks")

CONFIG_NAMES = ("config.yaml", "cli-config.yaml")
TRUTHY = {"1", "true", "yes", "on"}


def truthy(value: object) -> bool:
    """True for ``True`` and for the strings 1/true/yes/on (any case, spaces ignored)."""
    if isinstance(value, bool):
        return value
    return isinstance(value, str) and value.strip().lower() in TRUTHY


def env_flag(name: str) -> bool:
    """True when the environment variable is set to a truthy value (1/true/yes/on)."""
    return truthy(os.environ.get(name, ""))


def env_list(name: str) -> list[str] | None:
    """A comma-separated environment list; ``None`` when unset, ``[]`` when set but empty."""
    raw = os.environ.get(name)
    if raw is None:
        return None
    return [part.strip() for part in raw.split(",") if part.strip()]


def find_home(home: str | os.PathLike[str] | None = None) -> Path:
    """The hermes home: ``home`` if given, else ``$HERMES_HOME``, else ``~/.hermes``."""
    if home is not None:
        return Path(home).expanduser()
    env = os.environ.get("HERMES_HOME")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".hermes"


@dataclass
class LoadedConfig:
    """The config as a plain dict, where it came from, and what was wrong with it."""

    data: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None
    errors: list[str] = field(default_factory=list)


def yaml_error_location(exc: Exception) -> str:
    """``line L, column C`` from a PyYAML error, when it has a position."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is None:
        return ""
    return f"line {mark.line + 1}, column {mark.column + 1}"


def read_yaml(path: Path) -> tuple[Any, str | None]:
    """Parse a YAML file; return ``(data, None)`` or ``(None, error message naming the place)``."""
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        return None, f"{path}: cannot read: {exc.strerror or exc}"
    except UnicodeDecodeError as exc:
        return None, f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8"
    try:
        # libyaml's parser when PyYAML has it (it reads a plugin.yaml about 10× faster).
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        return yaml.load(text, Loader=loader), None  # noqa: S506  # a safe loader
    except yaml.YAMLError as exc:
        where = yaml_error_location(exc)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        at = f" at {where}" if where else ""
        return (
            None,
            f"{path}{at}: YAML syntax error: {problem}; fix the file (nothing from it was loaded)",
        )


def load_config(
    home: Path, config: Mapping[str, Any] | str | os.PathLike[str] | None = None
) -> LoadedConfig:
    """Read the config: a dict given by the host, a path, or ``<home>/config.yaml``
    (falling back to ``cli-config.yaml``). A broken file is reported and read as empty."""
    if isinstance(config, Mapping):
        return LoadedConfig(data=dict(config))
    if config is not None:
        candidates = [Path(config).expanduser()]
    else:
        candidates = [home / name for name in CONFIG_NAMES]
    from .trust import untrusted

    for path in candidates:
        if not path.is_file():
            continue
        distrust = untrusted(path)
        if distrust is not None:
            # Read as unreadable: nothing third-party loads and decision events block.
            refusal = f"{path}: refused: {distrust}"
            log.warning("%s", refusal)
            return LoadedConfig(path=path, errors=[refusal])
        data, error = read_yaml(path)
        if error:
            # Not logged here: the lockdown this engages reports it, once (see load()).
            return LoadedConfig(path=path, errors=[error])
        if data is None:
            return LoadedConfig(path=path)
        if not isinstance(data, dict):
            error = f"{path}: the top level must be a mapping, not {type(data).__name__}; nothing from it was loaded"
            return LoadedConfig(path=path, errors=[error])
        return LoadedConfig(data=data, path=path)
    if config is not None:
        error = f"{candidates[0]}: config file not found"
        return LoadedConfig(path=candidates[0], errors=[error])
    return LoadedConfig()


def section(config: Mapping[str, Any], *keys: str) -> Any:
    """``config[k1][k2]...``, or ``None`` when any level is missing or not a mapping."""
    node: Any = config
    for key in keys:
        if not isinstance(node, Mapping):
            return None
        node = node.get(key)
    return node
