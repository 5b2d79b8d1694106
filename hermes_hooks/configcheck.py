"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Keys of ours that are misspelt: in config.yaml, in its ``plugins:`` section, in plugin.yaml.

config.yaml is the host's whole config (Hermes keeps model, toolsets, terminal, ... there), so
only keys that look like ours and are not are reported, each once, with the file and a
did-you-mean. A misspelt key means a switch the user believes is on is off.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Iterable, Mapping
from typing import Any

log = logging.getLogger("hermes_hooks")

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
