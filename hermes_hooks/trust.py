"""Whether a file or directory that holds code or policy may be trusted."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def untrusted(path: Path) -> str | None:
    """Why ``path`` may not be trusted, or ``None``.

    As ssh does with keys: refused when another user (other than root) owns it, or when it is
    writable by the group or by everyone.
    """
    try:
        st = path.stat()
    except OSError as exc:
        return f"cannot stat {path}: {exc.strerror or exc}"
    getuid = getattr(os, "getuid", None)
    if getuid is not None and st.st_uid not in (getuid(), 0):
        return f"{path} is owned by uid {st.st_uid}, not by you (uid {getuid()})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        who = "everyone" if st.st_mode & stat.S_IWOTH else "its group"
        return (
            f"{path} is writable by {who} (mode {stat.S_IMODE(st.st_mode):04o}); "
            f"run `chmod go-w {path}` if you trust it"
        )
    return None
