"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Whether a file or directory that holds code or policy may be trusted.

One rule for every source (plugin directories and their files, gateway hooks, ``BOOT.md``, the
allowlist, ``config.yaml``, ``settings.json``), OpenSSH's with Debian's user-private-group
allowance: refused when it is owned by someone other than you or root, writable by everyone, or
writable by a group that has members other than you. A file is also refused when its directory
fails the rule (whoever may write the directory may replace the file), unless that directory is
sticky (``/tmp``: others cannot replace your files there).
"""

from __future__ import annotations

import functools
import os
import shlex
import stat
from pathlib import Path


@functools.lru_cache(maxsize=64)
def _group_is_private(gid: int, uid: int) -> bool:
    """True when nobody but ``uid`` is in group ``gid`` (Debian's user private groups)."""
    try:
        import grp
        import pwd
    except ImportError:  # pragma: no cover - not POSIX
        return False
    try:
        group = grp.getgrgid(gid)
        me = pwd.getpwuid(uid).pw_name
    except KeyError:
        return False
    if any(member != me for member in group.gr_mem):
        return False
    return not any(p.pw_gid == gid and p.pw_uid != uid for p in pwd.getpwall())


def _verdict(path: Path, st: os.stat_result) -> str | None:
    getuid = getattr(os, "getuid", None)
    if getuid is None:  # pragma: no cover - not POSIX
        return None
    uid = getuid()
    mode = stat.S_IMODE(st.st_mode)
    quoted = shlex.quote(str(path))
    if st.st_uid not in (uid, 0):
        return (
            f"{path} is owned by uid {st.st_uid}, not by you (uid {uid}) or root; "
            f"if you trust it: `chown {uid} {quoted}`"
        )
    if mode & stat.S_IWOTH and not (stat.S_ISDIR(st.st_mode) and mode & stat.S_ISVTX):
        return f"{path} is writable by everyone (mode {mode:04o}); fix: `chmod o-w {quoted}`"
    if mode & stat.S_IWGRP and not _group_is_private(st.st_gid, uid):
        return (
            f"{path} is writable by its group (gid {st.st_gid}), which has other members "
            f"(mode {mode:04o}); fix: `chmod g-w {quoted}`"
        )
    return None


def untrusted(path: Path) -> str | None:
    """Why ``path`` (and, for a file, its directory) may not be trusted, or ``None``.

    The message names the path, the reason and the ``chmod``/``chown`` that fixes it."""
    try:
        st = path.stat()
    except OSError as exc:
        return f"cannot stat {path}: {exc.strerror or exc}"
    why = _verdict(path, st)
    if why is not None or stat.S_ISDIR(st.st_mode):
        return why
    parent = path.parent
    try:
        pst = parent.stat()
    except OSError:
        return None
    if pst.st_mode & stat.S_ISVTX and pst.st_uid in (0, getattr(os, "getuid", lambda: 0)()):
        return None  # sticky: nobody else can replace the file
    return _verdict(parent, pst)


def untrusted_tree(directory: Path, suffixes: tuple[str, ...] = (".py",)) -> str | None:
    """:func:`untrusted` for ``directory`` and every file with one of ``suffixes`` under it
    (what a plugin may import from its own directory)."""
    why = untrusted(directory)
    if why is not None:
        return why
    for root, dirs, names in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in sorted(names):
            if name.endswith(suffixes):
                why = untrusted(Path(root) / name)
                if why is not None:
                    return why
    return None
