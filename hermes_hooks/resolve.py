"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

What a command line runs: the file the OS will execute for it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping


def which(argv0: str, env: Mapping[str, str] | None, cwd: str | None) -> str | None:
    """The file ``argv0`` runs: a path (relative to ``cwd``) or a name looked up on ``PATH``."""
    if "/" in argv0:
        path = argv0 if os.path.isabs(argv0) or cwd is None else os.path.join(cwd, argv0)
        return path if os.path.exists(path) else None
    search = (env or os.environ).get("PATH", os.defpath)
    return shutil.which(argv0, path=search)


def current_dir() -> str:
    """This process's working directory (its last known path when it was deleted)."""
    try:
        return os.getcwd()
    except OSError:
        return os.environ.get("PWD") or "/"
