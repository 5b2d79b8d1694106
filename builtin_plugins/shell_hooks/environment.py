"""Internal: part of the built-ins (docs/builtins.md), not an API.

The environment of a shell hook: what it inherits from the host (all of it, or a minimal
set), what the OS would refuse, and reading the variables a ``SessionStart`` hook exported to
its ``CLAUDE_ENV_FILE``."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from pathlib import Path

from hermes_hooks import consent

#: What a hook inherits from the host with ``hooks_env: minimal`` (besides ``LC_*``,
#: ``CLAUDE_*`` and ``HERMES_*`` variables and the entry's ``env_passthrough``).
MINIMAL_ENV = frozenset("PATH HOME USER LOGNAME SHELL LANG TERM TMPDIR TZ".split())
#: The variables set per firing (``Runner.environment``), on top of a hook's static environment
#: (``Runner.static_env``); the payload carries them too, so a warm worker's is the rest.
PER_FIRING = ("HERMES_HOOK_EVENT", "HERMES_SESSION_ID", "CLAUDE_ENV_FILE")


_snapshot: tuple[dict[bytes, bytes], dict[str, str]] | None = None


def host_env() -> Mapping[str, str]:
    """``os.environ`` as a plain dict, shared: not to be changed. Decoding ``os.environ``
    costs 10-20 µs a firing; the decoded copy is kept while the raw variables (its ``_data``,
    compared in about a microsecond) stay the same."""
    global _snapshot
    raw = getattr(os.environ, "_data", None)
    if not isinstance(raw, dict):
        return dict(os.environ)  # not CPython's os.environ: no shortcut
    kept = _snapshot
    if kept is not None and kept[0] == raw:
        return kept[1]
    fresh = (dict(raw), dict(os.environ))
    _snapshot = fresh
    return fresh[1]


def bad_environment(env: Mapping[str, str]) -> str | None:
    """Why the OS would refuse ``env`` (naming the variable), or ``None``."""
    for name, value in env.items():
        if not name or "=" in name or "\0" in name:
            return (
                f"env: {name!r} is not a valid variable name (it must be non-empty, without '=' "
                "or NUL); fix the hook's env: in its config"
            )
        if "\0" in value:
            return f"env: the value of {name} contains a NUL byte, which no process can receive"
    return None


def parse_env_file(path: Path) -> dict[str, str]:
    """``export NAME=value`` / ``NAME=value`` lines of a ``CLAUDE_ENV_FILE``, shell quoting
    removed and ``$VAR`` expanded with the environment and the earlier lines."""
    out: dict[str, str] = {}
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return out
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].strip()
        name, sep, value = line.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z_]\w*", name):
            continue
        try:
            words = shlex.split(value, comments=True)
        except ValueError:
            words = [value]
        out[name] = consent.expand(" ".join(words), {**os.environ, **out})
    return out
