"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Talking HTTP for hooks: the allow-list of URLs (:mod:`.urls`: matched as parsed parts),
header values filled from allowed environment variables only, and a POST that never follows a
redirect to another host, whose time limit is the whole exchange. Used by the
``http_post`` built-in and the ``http`` and ``prompt`` hook types. Standard library only."""

from __future__ import annotations

import http.client
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
from urllib.parse import urlsplit

from .urls import Target, target
from .urls import pattern_problem as pattern_problem
from .urls import refusal as refusal
from .urls import url_allowed as url_allowed
from .urls import web_url as web_url
from .wire import jsonable

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
