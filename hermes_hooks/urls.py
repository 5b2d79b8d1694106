"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Where a hook's payload may go: URLs as parsed parts (scheme, host, port, path) and the
``allowed_http_hook_urls`` patterns matched against those parts, never against the raw string
(``fnmatch`` on a URL lets ``http://*.corp.example/*`` admit ``http://evil/.corp.example/x``,
reads ``[::1]`` as a character class and is fooled by ``corp.example@evil``). Used by
:mod:`hermes_hooks.http` for the ``http`` and ``prompt`` hook types and ``http_post``."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

_PORTS = {"http": 80, "https": 443}
_NAME = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*")
_NAME_GLOB = re.compile(r"[a-z0-9_*-]+(?:\.[a-z0-9_*-]+)*")


@dataclass(frozen=True)
class Target:
    """Where a URL sends its payload, as parsed parts: what the allow-list is matched on."""

    scheme: str
    host: str  # lowercase, no trailing dot; an IPv6 literal without its brackets
    port: int
    path: str


def _ip6(text: str) -> str | None:
    try:
        return str(ipaddress.IPv6Address(text))
    except ValueError:
        return None


def web_url(url: str) -> bool:
    """Whether ``url`` is an ``http://`` or ``https://`` URL with a host: the only kind a hook's
    payload is POSTed to (urllib alone would also open ``file:``, ``ftp:`` and ``data:``). A URL
    that cannot be split (``http://[::1/x``) is not one: never an exception (:func:`target`
    says what else is wrong with one that is)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in _PORTS and bool(parts.netloc)


def target(url: str) -> Target | str:
    """``url`` as a :class:`Target`, or why it may not receive a payload: only ``http`` and
    ``https``, a plain host name or IP literal, a numeric port, no user info (``a@b`` is host
    ``b``: put credentials in headers), no spaces or control characters, no ``.``/``..`` path
    segments. The host is what the connection goes to: urllib reads the same parts."""
    if not url.isascii() or any(c <= " " or c == "\x7f" for c in url):
        return "it holds spaces, control or non-ASCII characters"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"it cannot be parsed ({exc})"
    if parts.scheme not in _PORTS:
        return "it is not an http:// or https:// URL"
    if "@" in parts.netloc:
        return "it has user info (user@host): put credentials in headers"
    raw = parts.hostname or ""
    if parts.netloc.startswith("["):
        host = _ip6(raw)
        if host is None:
            return f"{raw!r} is not an IPv6 address"
    else:
        host = raw.removesuffix(".")
        if not _NAME.fullmatch(host):
            return f"{raw!r} is not a host name"
    path = parts.path or "/"
    if any(seg in (".", "..") for seg in unquote(path).split("/")):
        return "its path has . or .. segments"
    return Target(parts.scheme, host, port or _PORTS[parts.scheme], path)


@dataclass(frozen=True)
class _Pattern:
    scheme: str
    host: re.Pattern[str]
    port: int | None  # None: any port
    path: re.Pattern[str]

    def admits(self, to: Target) -> bool:
        return (
            to.scheme == self.scheme
            and bool(self.host.fullmatch(to.host))
            and (self.port is None or self.port == to.port)
            and bool(self.path.fullmatch(to.path))
        )


def _glob(text: str) -> re.Pattern[str]:
    """``*`` matches anything (``/`` and ``.`` included); everything else is itself."""
    return re.compile(".*".join(re.escape(piece) for piece in text.split("*")), re.S)


_PATTERN = re.compile(
    r"(?P<scheme>[A-Za-z]+)://(?P<host>\[[^\]]*\]|[^/:?#\[\]]*)(?::(?P<port>\d+|\*))?"
    r"(?P<path>/[^?#]*)?(?:[?#].*)?",
    re.S,
)


def pattern(text: str) -> _Pattern | str:
    """One ``allowed_http_hook_urls`` entry, or why it is not one: ``scheme://host[:port][/path]``
    where the host may hold ``*`` (``*.corp.example``), the port may be ``*`` (no port: the
    scheme's own) and the path may hold ``*`` (no path: ``/``); the query is not matched."""
    match = _PATTERN.fullmatch(text) if text.isascii() else None
    if match is None or any(c <= " " for c in text):
        return "not scheme://host[:port][/path]"
    scheme = match["scheme"].lower()
    if scheme not in _PORTS:
        return "only http:// and https:// URLs are posted to"
    raw = match["host"].lower()
    if raw.startswith("["):
        host = _ip6(raw[1:-1])
        if host is None:
            return f"{raw} is not an IPv6 address"
        host_re = re.compile(re.escape(host))
    else:
        raw = raw.removesuffix(".")
        if not _NAME_GLOB.fullmatch(raw):
            return f"{raw!r} is not a host name (user info and other characters are refused)"
        host_re = _glob(raw)
    port = None if match["port"] == "*" else int(match["port"] or _PORTS[scheme])
    return _Pattern(scheme, host_re, port, _glob(match["path"] or "/"))


def pattern_problem(text: Any) -> str | None:
    """Why an ``allowed_http_hook_urls`` entry matches nothing (``None``: it is usable)."""
    if not isinstance(text, str):
        return f"{text!r} is not a string"
    if text == "*":
        return None
    found = pattern(text)
    return found if isinstance(found, str) else None


def url_allowed(url: str, patterns: Any) -> bool:
    """Whether ``url`` may receive a payload under ``patterns`` (``allowed_http_hook_urls``),
    matched as parsed scheme, host, port and path, never as a raw string (see :func:`pattern`;
    ``*`` alone admits every URL :func:`target` accepts). No list: nothing is allowed."""
    return refusal(url, patterns) is None


def refusal(url: str, patterns: Any) -> str | None:
    """Why ``url`` may not receive a payload under ``patterns`` (``None``: it may)."""
    to = target(url)
    if isinstance(to, str):
        return f"{url} cannot receive a hook's payload: {to}"
    ignored: list[str] = []
    for text in patterns if isinstance(patterns, list) else []:
        if text == "*":
            return None
        found = pattern(text) if isinstance(text, str) else f"{text!r} is not a string"
        if isinstance(found, str):
            ignored.append(f"{text!r}: {found}")
        elif found.admits(to):
            return None
    said = f"{url} is not in allowed_http_hook_urls"
    return said + (f" (ignored entries: {'; '.join(ignored)})" if ignored else "")
