"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Talking HTTP for hooks: the allow-list of URLs, header values filled from allowed environment
variables only, and a POST that never follows a redirect to another host. Used by the
``http_post`` built-in and the ``http`` and ``prompt`` hook types. Standard library only."""

from __future__ import annotations

import fnmatch
import json
import re
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .wire import jsonable

#: How much of a response body is read (a hook's answer is small; more is cut).
BODY_CAP = 1 << 20

_REFERENCE = re.compile(r"\$\{(\w+)\}|\$(\w+)")


def web_url(url: str) -> bool:
    """Whether ``url`` is an ``http://`` or ``https://`` URL with a host: the only kind a hook's
    payload is POSTed to (urllib alone would also open ``file:``, ``ftp:`` and ``data:``)."""
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def url_allowed(url: str, patterns: Any) -> bool:
    """Whether ``url`` matches one of ``patterns`` (``allowed_http_hook_urls``: exact URLs or
    ``fnmatch`` patterns such as ``https://hooks.example.com/*``). No list: nothing is allowed."""
    if not isinstance(patterns, list):
        return False
    return any(isinstance(p, str) and fnmatch.fnmatchcase(url, p) for p in patterns)


def variable_names(value: Any) -> list[str] | None:
    """An ``allowed_env_vars`` value as a list of variable names (one string is a list of one;
    none is an empty list), or ``None`` when it is malformed."""
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        return None
    return list(value)


def fill_headers(
    raw: Mapping[str, Any], allowed: Iterable[str], env: Mapping[str, str]
) -> tuple[dict[str, str], list[str]]:
    """Header values with ``$VAR`` / ``${VAR}`` filled from ``env``, only for the variables in
    ``allowed``; a reference to any other variable becomes an empty string. Returns the headers
    and the names that were refused (for a warning)."""
    names = set(allowed)
    refused: list[str] = []

    def fill(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name not in names:
            if name not in refused:
                refused.append(name)
            return ""
        return env.get(name, "")

    return {str(k): _REFERENCE.sub(fill, str(v)) for k, v in raw.items()}, refused


class RedirectRefused(urllib.error.URLError):
    """A redirect to another scheme, host or port was not followed."""


class _SameHostRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to the same scheme, host and port."""

    def redirect_request(
        self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str
    ) -> Any:
        old, new = urlsplit(req.full_url), urlsplit(newurl)
        if (old.scheme, old.netloc) != (new.scheme, new.netloc):
            raise RedirectRefused(f"refused a redirect to another host ({new.netloc}, HTTP {code})")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_SameHostRedirects)


@dataclass
class Reply:
    """What one POST got: the status and the body (``truncated`` when it was over the cap),
    or why there is none (``error``; ``timed_out`` for a timeout), and how long it took."""

    status: int | None = None
    body: bytes = b""
    truncated: bool = False
    error: str | None = None
    timed_out: bool = False
    elapsed: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None and self.status is not None and 200 <= self.status < 300

    def problem(self, url: str) -> str | None:
        """Why this is no answer from ``url`` (``None``: a 2xx, it is one): the failure, or the
        status and the start of the body (``HTTP 503 from URL: maintenance``)."""
        if self.error is not None:
            return self.error
        if self.ok:
            return None
        said = self.body.decode("utf-8", "replace").strip()[:200]
        return f"HTTP {self.status} from {url}" + (f": {said}" if said else "")


def post(
    url: str,
    data: bytes,
    *,
    timeout: float,
    headers: Mapping[str, str] | None = None,
    cap: int = BODY_CAP,
) -> Reply:
    """POST ``data`` (JSON) to ``url``; never raises for a network or HTTP failure: a non-2xx
    status is a :class:`Reply` with that status and its body, a failure one with ``error``."""
    started = time.monotonic()
    reply = _post(url, data, timeout=timeout, headers=headers, cap=cap)
    reply.elapsed = time.monotonic() - started
    return reply


def _post(
    url: str, data: bytes, *, timeout: float, headers: Mapping[str, str] | None, cap: int
) -> Reply:
    if not web_url(url):
        return Reply(error=f"not an http:// or https:// URL: {url}")
    request = urllib.request.Request(url, data=data, method="POST")
    request.add_header("Content-Type", "application/json")
    for key, value in (headers or {}).items():
        request.add_header(str(key), str(value))
    try:
        with _OPENER.open(request, timeout=timeout) as response:  # noqa: S310  # allow-listed URL
            body = response.read(cap + 1)
            return Reply(response.status, body[:cap], truncated=len(body) > cap)
    except urllib.error.HTTPError as exc:
        try:
            body = exc.read(cap + 1) if exc.fp is not None else b""
        except OSError:
            body = b""
        return Reply(exc.code, body[:cap], truncated=len(body) > cap)
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, (TimeoutError, socket.timeout)):
            return Reply(error=f"no answer within {timeout:g}s", timed_out=True)
        return Reply(error=f"cannot reach {url}: {reason}")
    except TimeoutError:
        return Reply(error=f"no answer within {timeout:g}s", timed_out=True)
    except (OSError, ValueError) as exc:  # a reset connection, a malformed URL
        return Reply(error=f"cannot reach {url}: {type(exc).__name__}: {exc}")


def post_json(
    url: str,
    payload: Mapping[str, Any],
    *,
    timeout: float,
    headers: Mapping[str, str] | None = None,
) -> tuple[int, bytes]:
    """POST ``payload`` as JSON; return the status and the body. Raises ``OSError`` when the
    request fails or answers non-2xx (:meth:`Reply.problem` says why)."""
    data = json.dumps(jsonable(dict(payload)), separators=(",", ":")).encode()
    reply = post(url, data, timeout=timeout, headers=headers)
    problem = reply.problem(url)
    if problem is not None:
        raise (TimeoutError if reply.timed_out else OSError)(problem)
    assert reply.status is not None
    return reply.status, reply.body
