"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Where the hermes home is. Kept apart from :mod:`.config` (config.yaml's reader, which imports
``logging`` and ``dataclasses``) so that ``hermes hooks client``, which an agent starts at every
hook, finds the home with the standard library's ``os`` and ``pathlib`` alone.
"""

from __future__ import annotations

import os
from pathlib import Path


def find_home(home: str | os.PathLike[str] | None = None) -> Path:
    """The hermes home: ``home`` if given, else ``$HERMES_HOME``, else ``~/.hermes``."""
    if home is not None:
        return Path(home).expanduser()
    env = os.environ.get("HERMES_HOME")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".hermes"
