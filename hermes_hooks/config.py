"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Reading ``config.yaml`` (YAML is imported only here, lazily); the home is found by :mod:`.home`
(``find_home``, re-exported here).

Keys of ours that are misspelt: in config.yaml, in its ``plugins:`` section, in plugin.yaml.

config.yaml is the host's whole config (Hermes keeps model, toolsets, terminal, ... there), so
only keys that look like ours and are not are reported, each once, with the file and a
did-you-mean. A misspelt key means a switch the user believes is on is off.
"""

from __future__ import annotations

import difflib
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .home import find_home as find_home  # where the home is (light: the client needs it)

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


def config_file(home: Path) -> Path | None:
    """The config file the runtime reads in ``home``: ``config.yaml``, else ``cli-config.yaml``
    (``None`` when it has neither)."""
    return next((home / name for name in CONFIG_NAMES if (home / name).is_file()), None)


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
        found = config_file(home)
        candidates = [found] if found is not None else []
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


#: Top-level config.yaml keys the core reads. The built-ins' keys (their switches and other
#: keys, from their declarations in ``builtin_plugins/__init__.py``) are passed to
#: :func:`check_config` by the runtime builder: the core does not import built-ins.
TOP_LEVEL = (
    "hooks",
    "plugins",
    "fail_closed_events",
    "hookspecs",
    "trace_file",
    "trace_payloads",
    "otel",
)
#: Keys of ``plugins:`` (Hermes' and ours); other keys there are plugins' own sections.
PLUGINS = (
    "enabled",
    "disabled",
    "entries",
    "required",
    "hook_callback_timeout",
    "hook_watchdog_seconds",
)
#: plugin.yaml keys (Hermes' and ours).
MANIFEST = (
    "name",
    "version",
    "description",
    "author",
    "kind",
    "requires_env",
    "provides_tools",
    "provides_hooks",
    "priority",
    "fail_closed",
    "timeout",
    "required",
    "canary",
)


def near_misses(keys: Iterable[Any], known: tuple[str, ...], cutoff: float = 0.8) -> list[str]:
    """``"'hook' (did you mean 'hooks'?)"`` for each key that is close to a known one."""
    out = []
    for key in keys:
        if not isinstance(key, str) or key in known:
            continue
        guess = difflib.get_close_matches(key, known, n=1, cutoff=cutoff)
        if guess:
            out.append(f"{key!r} (did you mean {guess[0]!r}?)")
    return out


def check_config(config: Mapping[str, Any], origin: str, switches: Iterable[str] = ()) -> list[str]:
    """Problems with our keys in a loaded config.yaml (each also logged). ``switches``: the
    top-level keys that switch a built-in on, known too."""
    known = tuple(dict.fromkeys((*TOP_LEVEL, *switches)))
    problems = [f"{origin}: unknown key {miss}; ignored" for miss in near_misses(config, known)]
    plugins = config.get("plugins")
    if plugins is not None and not isinstance(plugins, Mapping):
        problems.append(f"{origin}: plugins must be a mapping (enabled: [...], ...); ignored")
    elif isinstance(plugins, Mapping):
        problems += [
            f"{origin}: unknown key plugins.{miss}; ignored"
            for miss in near_misses(plugins, PLUGINS, cutoff=0.75)
        ]
    for problem in problems:
        log.warning("%s", problem)
    return problems


def check_manifest(manifest: Mapping[str, Any], origin: str) -> list[str]:
    """Problems with the keys of one plugin.yaml (each also logged)."""
    problems = [
        f"{origin}: unknown key {miss}; ignored"
        for miss in near_misses(manifest, MANIFEST, cutoff=0.75)
    ]
    for problem in problems:
        log.warning("%s", problem)
    return problems


def manifest_int(value: Any, where: str) -> int:
    """An integer manifest value (``priority``); anything else is reported and read as 0."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        log.warning("%s: %r is not an integer; using 0", where, value)
        return 0
    return value


def manifest_seconds(value: Any, where: str, default: float | None = None) -> float | None:
    """A number of seconds (plugin.yaml ``timeout``, ``plugins.hook_callback_timeout``, ...; 0:
    off, ``None``); anything else is reported and ``default`` is used instead."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        log.warning("%s: %r is not a number of seconds (0 = off); ignored", where, value)
        return default
    return float(value) or None
