"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Talking HTTP for hooks: the allow-list of URLs (matched as parsed parts, below),
header values filled from allowed environment variables only, and a POST that never follows a
redirect to another host, whose time limit is the whole exchange. Used by the
``http_post`` built-in and the ``http`` and ``prompt`` hook types. Standard library only.

Where a hook's payload may go: URLs as parsed parts (scheme, host, port, path) and the
``allowed_http_hook_urls`` patterns matched against those parts, never against the raw string
(``fnmatch`` on a URL lets ``http://*.corp.example/*`` admit ``http://evil/.corp.example/x``,
reads ``[::1]`` as a character class and is fooled by ``corp.example@evil``).
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from .protocol import jsonable

#: How much of a response body is read (a hook's answer is small; more is cut).
BODY_CAP = 1 << 20

_REFERENCE = re.compile(r"\$\{(\w+)\}|\$(\w+)")


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
        old, new = target(req.full_url), target(newurl)
        if isinstance(old, str) or isinstance(new, str) or _origin(new) != _origin(old):
            where = urlsplit(newurl).netloc
            raise RedirectRefused(f"refused a redirect to another host ({where}, HTTP {code})")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _origin(to: Target) -> tuple[str, str, int]:
    return to.scheme, to.host, to.port


class _Exchange:
    """The time limit of one POST, over the whole exchange (connecting, sending, every read,
    redirects): a socket's own timeout bounds one operation only, so a server that drips a
    byte at a time would hold the caller for ever. Each operation gets at most the time left,
    and when the limit passes every connection of the exchange is shut down, which ends a read
    blocked in another frame at once."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self.expired = False
        self.done = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(timeout, 0.0), self.expire)
        self._timer.daemon = True
        self._timer.start()

    def left(self) -> float:
        """Seconds left; ``TimeoutError`` when none are."""
        left = self.deadline - time.monotonic()
        if self.expired or left <= 0:
            raise TimeoutError(f"no answer within {self.timeout:g}s")
        return left

    def hold(self, sock: socket.socket) -> None:
        """Bound ``sock`` (a connected socket of the exchange) by the time left."""
        sock.settimeout(self.left())
        with self._lock:
            self._sockets.append(sock)
            expired = self.expired
        if expired:
            _shut(sock)

    def expire(self) -> None:
        with self._lock:
            if self.done:
                return
            self.expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)

    def finish(self) -> bool:
        """End the exchange; ``False`` when its time ran out first (what was read is cut)."""
        self._timer.cancel()
        with self._lock:
            self.done = True
            return not self.expired


def _shut(sock: socket.socket) -> None:
    # The plain socket's shutdown, on the descriptor: it wakes a read blocked on it even after
    # urllib has dropped the socket object (the response still reads through it), and an SSL
    # socket's own shutdown would first drop its TLS state under the reading thread.
    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:
        pass


class _Bounded(http.client.HTTPConnection):
    """A connection of an :class:`_Exchange`: connects within the time left; every operation
    on its socket then gets at most the time left, and the exchange's limit shuts it down."""

    exchange: _Exchange

    def connect(self) -> None:
        self.timeout = self.exchange.left()
        super().connect()
        self.exchange.hold(self.sock)


class _BoundedHTTPS(http.client.HTTPSConnection):
    """:class:`_Bounded` over TLS (the handshake has its own limit: the time left)."""

    exchange: _Exchange

    def connect(self) -> None:
        self.timeout = self.exchange.left()
        super().connect()
        self.exchange.hold(self.sock)


def _bind(
    cls: type[_Bounded | _BoundedHTTPS], exchange: _Exchange
) -> Callable[..., http.client.HTTPConnection]:
    def make(*args: Any, **kwargs: Any) -> http.client.HTTPConnection:
        connection = cls(*args, **kwargs)
        connection.exchange = exchange
        return connection

    return make


_TLS: list[Any] = []


def _tls_context() -> Any:
    """One default TLS context, made on the first https:// POST (loading the CA store costs
    milliseconds; the context is safe to share between threads)."""
    if not _TLS:
        import ssl

        _TLS.append(ssl.create_default_context())
    return _TLS[0]


def _opener(exchange: _Exchange) -> urllib.request.OpenerDirector:
    """An opener whose connections belong to ``exchange`` (one per POST: cheap)."""

    class Plain(urllib.request.HTTPHandler):
        def http_open(self, req: Any) -> Any:
            return self.do_open(_bind(_Bounded, exchange), req)

    class Secure(urllib.request.HTTPSHandler):
        def https_open(self, req: Any) -> Any:
            return self.do_open(_bind(_BoundedHTTPS, exchange), req, context=_tls_context())

    return urllib.request.build_opener(_SameHostRedirects, Plain, Secure)


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

    def problem(self, url: str, limit: int = 200) -> str | None:
        """Why this is no answer from ``url`` (``None``: a 2xx, it is one): the failure, or the
        status and the start of the body, ``limit`` characters of it (``HTTP 503 from URL:
        maintenance``)."""
        if self.error is not None:
            return self.error
        if self.ok:
            return None
        said = self.body.decode("utf-8", "replace").strip()[:limit]
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
    to = target(url)
    if isinstance(to, str):
        return Reply(error=f"{url} cannot receive a hook's payload: {to}")
    request = urllib.request.Request(url, data=data, method="POST")
    request.add_header("Content-Type", "application/json")
    for key, value in (headers or {}).items():
        request.add_header(str(key), str(value))
    exchange = _Exchange(timeout)
    late = Reply(error=f"no answer within {timeout:g}s", timed_out=True)
    try:
        with _opener(exchange).open(request, timeout=timeout) as response:  # noqa: S310
            reply = _read(url, response, cap)
    except urllib.error.HTTPError as exc:
        try:
            reply = _read(url, exc, cap) if exc.fp is not None else Reply(exc.code)
        except (OSError, http.client.HTTPException):
            reply = Reply(exc.code)
    except urllib.error.URLError as exc:
        reason = exc.reason
        if exchange.expired or isinstance(reason, (TimeoutError, socket.timeout)):
            reply = late
        else:
            reply = Reply(error=f"cannot reach {url}: {reason}")
    except TimeoutError:
        reply = late
    except http.client.HTTPException as exc:  # BadStatusLine, IncompleteRead, LineTooLong, ...
        reply = Reply(error=f"malformed reply from {url}: {_said(exc)}")
    except (OSError, ValueError) as exc:  # a reset connection, a malformed URL
        reply = Reply(error=f"cannot reach {url}: {type(exc).__name__}: {exc}")
    # Whatever was read or raised after the limit passed was cut short by it: a timeout.
    return reply if exchange.finish() else late


def _read(url: str, response: Any, cap: int) -> Reply:
    """The status and body of a response; a body shorter than its ``Content-Length`` (the
    server closed early) is a failure, never a shorter answer."""
    chunks: list[bytes] = []
    size = 0
    while size <= cap:  # to the end of the body or one byte over the cap
        chunk = response.read(cap + 1 - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    body, status = b"".join(chunks), response.status
    declared = str(response.headers.get("Content-Length") or "").strip()
    if declared.isdigit() and status not in (204, 304) and len(body) < min(int(declared), cap + 1):
        return Reply(
            status,
            error=f"incomplete reply from {url}: {len(body)} of {declared} bytes "
            "(the connection closed early)",
        )
    return Reply(status, body[:cap], truncated=len(body) > cap)


def _said(exc: BaseException) -> str:
    """An exception as a short line (a malformed reply can hold anything: kept short)."""
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= 200 else text[:199] + "…"


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
