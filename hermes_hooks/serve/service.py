"""Internal: not an API; ``hermes hooks serve`` (docs/agents.md).

The hook system of one home behind HTTP: ``POST /v1/hooks/<agent>/<event>`` answers a command
hook of that agent (:func:`hermes_hooks.serve.answering.handle`), ``GET /v1/health`` says the service
is up (and, given a bearer token, whether it is the service's: 401 when not). A plain ASGI
application run by uvicorn (the ``serve`` extra, imported only here and only by :func:`run`),
one ``load()`` per worker process at its start.

The bearer token lives in ``<home>/serve/token`` (0600, its directory 0700, written at the
first start); ``<home>/serve/url`` is the base URL the service listens on, for the client.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import os
import socket
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from .answering import MAX_BODY, handle
from .files import ensure_token, private, read_token, serve_dir

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: Seconds a client may take to send its whole body before it gets a 408.
BODY_TIMEOUT = 10.0
PREFIX = "/v1/hooks/"
INSTALL = "pip install 'hermes-hooks[serve]'"


# ---------------------------------------------------------------------- the application


async def _reply(send: Send, status: int, body: dict[str, Any], **headers: str) -> None:
    data = json.dumps(body, ensure_ascii=False).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    raw += [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data})


class TooBig(Exception):
    pass


async def _within(work: Awaitable[bytes], seconds: float) -> bytes:
    """``work``'s result, or ``asyncio.TimeoutError`` after ``seconds``. On Python 3.11+ a
    deadline on the running task (``asyncio.timeout``); ``asyncio.wait_for`` before it wrapped
    the body's read in a task of its own on every request."""
    timeout = getattr(asyncio, "timeout", None)
    if timeout is None:  # Python 3.10
        return await asyncio.wait_for(work, seconds)
    async with timeout(seconds):
        return await work


class App:
    """The ASGI application: ``hooks`` (loaded once) behind ``token``."""

    def __init__(self, hooks: Any, token: str, body_timeout: float = BODY_TIMEOUT) -> None:
        self.hooks = hooks
        self.expected = f"Bearer {token}".encode()
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        path, method = scope.get("path", ""), scope.get("method", "")
        if path == "/v1/health":
            if method != "GET":
                await _reply(send, 405, {"error": "use GET"}, allow="GET")
                return
            # a token sent along is checked (a client's cheap probe of its token): 401 if wrong
            given = dict(scope.get("headers") or []).get(b"authorization")
            if given is not None and not hmac.compare_digest(given, self.expected):
                await _reply(send, 401, {"error": "this token is not the service's (the token "
                                         "is in <home>/serve/token)"},
                             www_authenticate="Bearer")  # fmt: skip
                return
            ok = {"status": "ok", "service": "hermes-hooks"}
            await _reply(send, 200, ok if given is None else {**ok, "token": "accepted"})
            return
        if not path.startswith(PREFIX) or path.count("/") != 4:
            await _reply(send, 404, {"error": f"no such endpoint {path!r}; "
                                     "POST /v1/hooks/<agent>/<event> or GET /v1/health"})  # fmt: skip
            return
        if method != "POST":
            await _reply(send, 405, {"error": "use POST"}, allow="POST")
            return
        headers = dict(scope.get("headers") or [])
        if not hmac.compare_digest(headers.get(b"authorization", b""), self.expected):
            await _reply(send, 401, {"error": "a valid 'Authorization: Bearer <token>' is "
                                     "needed (the token is in <home>/serve/token)"},
                         www_authenticate="Bearer")  # fmt: skip
            return
        length = headers.get(b"content-length")
        if length is not None and length.isdigit() and int(length) > MAX_BODY:
            await _reply(send, 413, {"error": f"body of {int(length)} bytes is over the "
                                     f"{MAX_BODY}-byte limit"})  # fmt: skip
            return
        try:
            body = await _within(self._body(receive), self.body_timeout)
        except TooBig:
            await _reply(send, 413, {"error": f"body is over the {MAX_BODY}-byte limit"})
            return
        except asyncio.TimeoutError:
            await _reply(send, 408, {"error": f"the body did not arrive within "
                                     f"{self.body_timeout:g} s"})  # fmt: skip
            return
        agent, event = path[len(PREFIX) :].split("/", 1)
        try:
            reply = await asyncio.to_thread(handle, self.hooks, agent, event, body)
        except Exception as exc:  # a fault of ours: said, without a traceback
            await _reply(send, 500, {"error": f"{type(exc).__name__}: {exc}"})
            return
        as_command = b"as=command" in scope.get("query_string", b"").split(b"&")
        body_out = reply.command() if as_command and reply.status == 200 else reply.body
        await _reply(send, reply.status, body_out)

    async def _body(self, receive: Receive) -> bytes:
        parts: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise asyncio.TimeoutError
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY:
                raise TooBig
            parts.append(chunk)
            if not message.get("more_body"):
                return b"".join(parts)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                close = getattr(self.hooks, "close", None)
                if close is not None:
                    await asyncio.to_thread(close)
                await send({"type": "lifespan.shutdown.complete"})
                return


# ---------------------------------------------------------------------- running it

_ENV_HOME = "HERMES_HOOKS_SERVE_HOME"
_ENV_CONFIG = "HERMES_HOOKS_SERVE_CONFIG"
_ENV_TOKEN = "HERMES_HOOKS_SERVE_TOKEN_FILE"
_ENV_ACCEPT = "HERMES_HOOKS_SERVE_ACCEPT"
_ENV_BODY_TIMEOUT = "HERMES_HOOKS_SERVE_BODY_TIMEOUT"


def create_app() -> App:
    """One worker's application (uvicorn's factory): the home loaded once, here, at start."""
    import hermes_hooks

    home = os.environ[_ENV_HOME]
    token = read_token(Path(os.environ[_ENV_TOKEN]))
    hooks = hermes_hooks.load(
        home,
        os.environ.get(_ENV_CONFIG) or None,
        accept_hooks=os.environ.get(_ENV_ACCEPT) == "1",
    )
    return App(hooks, token, float(os.environ.get(_ENV_BODY_TIMEOUT) or BODY_TIMEOUT))


def url_of(host: str, port: int) -> str:
    """The base URL a client on this machine reaches the service at."""
    if host in ("0.0.0.0", "", "::"):
        host = "127.0.0.1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class LoadError(Exception):
    """The home could not be loaded at the service's start (the message says why)."""


def _load_checked() -> App:
    try:
        return create_app()
    except (Exception, KeyboardInterrupt) as exc:  # a plugin may raise anything at import
        home = os.environ.get(_ENV_HOME)
        raise LoadError(f"cannot load the home {home}: {type(exc).__name__}: {exc}") from None


def prepare_env(
    home: Path,
    token_path: Path,
    config: str | None = None,
    accept_hooks: bool = False,
    body_timeout: float = BODY_TIMEOUT,
) -> None:
    """What every worker's :func:`create_app` reads, in this process's environment (workers
    are its children)."""
    os.environ.update(
        {
            _ENV_HOME: str(home),
            _ENV_TOKEN: str(token_path),
            _ENV_CONFIG: config or "",
            _ENV_ACCEPT: "1" if accept_hooks else "",
            _ENV_BODY_TIMEOUT: str(body_timeout),
        }
    )


def bind_socket(host: str, port: int) -> socket.socket:
    """The listening socket every worker shares."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # accepted connections inherit it: a reply's head and body are two writes, and on a
    # kept-alive connection Nagle held the body back for the client's delayed ACK (~40 ms)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def write_url(home: Path, sock: socket.socket, host: str) -> str:
    """Write ``<home>/serve/url`` (atomically) for the client; returns the URL."""
    url = url_of(host, sock.getsockname()[1])
    directory = serve_dir(home)
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = directory / "url.tmp"
    tmp.write_text(url + "\n", encoding="utf-8")
    tmp.replace(directory / "url")
    return url


#: uvicorn's optional speedups, which the ``serve`` extra installs and uvicorn uses when found.
SPEEDUPS = ("httptools", "uvloop")


def speedups() -> str:
    """Which of uvicorn's optional speedups this service runs with, in words (a missing one
    is said with what brings it)."""
    import importlib

    found = []
    for name in SPEEDUPS:
        try:  # imported as uvicorn imports them (a module found but broken is not used)
            importlib.import_module(name)
        except ImportError:
            continue
        found.append(name)
    missing = [name for name in SPEEDUPS if name not in found]
    said = f"with {' and '.join(found)}" if found else "without httptools and uvloop"
    return said if not missing else f"{said}; {INSTALL} brings {' and '.join(missing)}"


def uvicorn_settings() -> dict[str, Any]:
    """uvicorn's settings common to one and several workers."""
    # no proxy-headers middleware (nothing here reads the client's address, and it was one
    # more ASGI layer per request) and no ``server: uvicorn`` header (what serves is no
    # caller's business)
    return {"log_level": "warning", "timeout_keep_alive": 5, "lifespan": "on",
            "proxy_headers": False, "server_header": False}  # fmt: skip


def run(
    home: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    workers: int = 1,
    token_file: Path | None = None,
    config: str | None = None,
    accept_hooks: bool = False,
    body_timeout: float = BODY_TIMEOUT,
    announce: Callable[[str], None] = print,
) -> None:
    """Serve ``home`` until interrupted. Raises :class:`~hermes_hooks.serve.files.TokenError`,
    :class:`LoadError` (the home does not load: nothing is served and no URL written),
    ``ImportError`` (no uvicorn: the message says what to install) and ``OSError`` (the port
    is taken)."""
    try:
        import uvicorn
    except ImportError:
        raise ImportError(f"hermes hooks serve needs uvicorn: {INSTALL}") from None
    token_path = token_file or serve_dir(home) / "token"
    ensure_token(token_path)
    if token_file is None:
        private(serve_dir(home), "directory")
    prepare_env(home, token_path, config, accept_hooks, body_timeout)
    # one worker: this process is the worker, its load is the one; several: each loads its
    # own, and this one only checks first that the home loads, so a broken one is said here
    app = _load_checked()
    if workers > 1:
        app.hooks.close()
    sock = bind_socket(host, port)
    url = write_url(home, sock, host)
    common = uvicorn_settings()
    if workers > 1:
        settings = uvicorn.Config(
            "hermes_hooks.serve.service:create_app", factory=True, workers=workers, **common
        )
    else:
        settings = uvicorn.Config(app, **common)
    announce(f"hermes-hooks serving {home} at {url} ({workers} worker(s); token {token_path}; "
             f"{speedups()})")  # fmt: skip
    try:
        if workers > 1:
            from uvicorn.supervisors import Multiprocess

            Multiprocess(settings, sockets=[sock]).run()
        else:
            uvicorn.Server(settings).run(sockets=[sock])
    finally:
        sock.close()
