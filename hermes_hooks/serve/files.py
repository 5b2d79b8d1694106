"""Internal: not an API; ``hermes hooks serve`` and ``hermes hooks client`` (docs/agents.md).

The files a service leaves in its home for clients: ``<home>/serve/token`` (the bearer token:
0600, its directory 0700, written at the first start; a file others can read is refused) and
``<home>/serve/url`` (the base URL it listens on). Standard library only: the client reads
them before it knows whether the service answers.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

#: The variable Claude Code's http hooks read the service's token from (never the token itself
#: in a settings file: ``headers`` interpolate it, ``allowedEnvVars`` lets them).
TOKEN_VAR = "HERMES_HOOKS_TOKEN"


class TokenError(Exception):
    """A token file that cannot be trusted or read (the message says how to fix it)."""


def serve_dir(home: Path) -> Path:
    """``<home>/serve``: the token and the URL."""
    return home / "serve"


def private(path: Path, what: str) -> None:
    """Refuse ``path`` (:class:`TokenError`, with the ``chmod`` that fixes it) when anyone but
    its owner may read or change it."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise TokenError(
            f"{what} {path} can be read or changed by others (mode {mode:04o}): "
            f"run `chmod {'700' if path.is_dir() else '600'} {path}`"
        )


def read_token(path: Path) -> str:
    """The token in ``path``, refused when the file is open to others or empty."""
    private(path, "token file")
    token = path.read_text(encoding="utf-8").strip()
    if not token:
        raise TokenError(f"token file {path} is empty: delete it and start the service again")
    return token


def ensure_token(path: Path) -> str:
    """The token in ``path``, written first (32 random bytes, URL-safe; 0600; its directory
    0700) when there is none."""
    import secrets  # only the service writes a token; the client reads one

    parent = path.parent
    if not parent.exists():
        parent.mkdir(mode=0o700, parents=True)
        os.chmod(parent, 0o700)  # whatever the umask
    if path.exists():
        return read_token(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(secrets.token_urlsafe(32) + "\n")
    return read_token(path)


def read_url(home: Path) -> str:
    """The base URL the home's service wrote (``OSError`` when there is none)."""
    return (serve_dir(home) / "url").read_text(encoding="utf-8").strip()


def export_line(home: Path) -> str:
    """The shell line that puts the service's token where Claude Code's http hooks read it."""
    return f'export {TOKEN_VAR}="$(cat {serve_dir(home) / "token"})"'
