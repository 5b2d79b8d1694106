"""Internal: not an API; ``hermes hooks client`` (docs/agents.md).

A command hook for an agent that cannot reach the service itself: it reads the agent's stdin
JSON, posts it to the home's service (``<home>/serve/url`` and ``token``) and prints the reply
as that agent reads it from a command hook (stdout, stderr, exit code). When the service does
not answer (no URL, refused, a time-out, a 5xx, a bad token) it runs the same handling
in-process (``load()`` of the home: slower, the same decisions). When that fails too, a
decision event gets the agent's block form (fail closed), with the reason on stderr.

With ``--check-http`` (what install-into writes on Claude Code's ``SessionStart`` when its other
events go over Claude Code's http hook type, which has no fallback) it also checks that the
service answers and takes the token in ``$HERMES_HOOKS_TOKEN``, and when not, says what is wrong
and the fix in the session's ``systemMessage`` and on stderr: until then Claude Code blocks every
decision event.

Only the standard library (and :mod:`.files`, :mod:`hermes_hooks.home`) is imported until the
service has answered or failed to: a hook call costs the agent one short process.
"""

from __future__ import annotations

import json
import os
import shlex
import socket
import sys
import time
from typing import Any

from ..home import find_home
from .files import TOKEN_VAR, TokenError, export_line, read_token, read_url, serve_dir

#: Seconds the service has to answer (``--timeout``, ``$HERMES_HOOKS_CLIENT_TIMEOUT``).
TIMEOUT = 30.0
#: Seconds to connect (a service that is up accepts at once).
CONNECT_TIMEOUT = 1.0
#: Seconds ``--check-http`` gives the service to answer its probe.
PROBE_TIMEOUT = 2.0
CHECK_HTTP = "--check-http"
USAGE = ("usage: hermes hooks client AGENT EVENT [--home DIR] [--timeout SECONDS] "
         f"[{CHECK_HTTP}] < payload.json")  # fmt: skip


class Unavailable(Exception):
    """The service did not answer (the message says how)."""


def post(
    url: str, token: str | None, path: str, body: bytes, timeout: float, method: str = "POST"
) -> tuple[int, bytes]:
    """POST ``body`` (or another ``method``) to ``url`` + ``path`` with ``token`` (none: no
    ``Authorization``): the status and the body of the reply (HTTP/1.1, one request,
    ``Connection: close``)."""
    if not url.startswith("http://"):
        raise Unavailable(f"service URL {url!r} is not http://host:port")
    hostport = url[len("http://") :].rstrip("/")
    host, _, port = hostport.rpartition(":")
    host = host.strip("[]")
    deadline = time.monotonic() + timeout
    try:
        conn = socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT)
    except (OSError, ValueError) as exc:
        raise Unavailable(f"cannot connect to {url}: {exc}") from None
    try:
        auth = f"Authorization: Bearer {token}\r\n" if token is not None else ""
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {hostport}\r\n{auth}"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n"
        )
        conn.settimeout(max(deadline - time.monotonic(), 0.001))
        conn.sendall(head.encode("latin-1") + body)
        chunks = []
        while True:
            conn.settimeout(max(deadline - time.monotonic(), 0.001))
            chunk = conn.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    except TimeoutError:
        raise Unavailable(f"{url} did not answer within {timeout:g} s") from None
    except OSError as exc:
        raise Unavailable(f"{url}: {exc}") from None
    finally:
        conn.close()
    raw = b"".join(chunks)
    header, sep, content = raw.partition(b"\r\n\r\n")
    lines = header.split(b"\r\n")
    parts = lines[0].split(b" ", 2) if lines else []
    if not sep or len(parts) < 2 or not parts[1].isdigit():
        raise Unavailable(f"{url} gave no HTTP reply")
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit():
            size = int(value.strip())
            if len(content) < size:
                raise Unavailable(f"{url} cut its reply short")
            content = content[:size]
    return int(parts[1]), content


def ask_service(home: Any, agent: str, event: str, body: bytes, timeout: float) -> dict[str, Any]:
    """The service's command-hook reply (``stdout``, ``stderr``, ``exit``), or
    :class:`Unavailable`; a 4xx it gives (a request it refuses) is a reply too."""
    try:
        url = read_url(home)
    except OSError:
        raise Unavailable(f"no service URL in {serve_dir(home) / 'url'}") from None
    try:
        token = read_token(serve_dir(home) / "token")
    except OSError as exc:
        raise Unavailable(f"cannot read the token: {exc}") from None
    except TokenError as exc:
        raise Unavailable(str(exc)) from None
    status, content = post(url, token, f"/v1/hooks/{agent}/{event}?as=command", body, timeout)
    if status >= 500 or status in (401, 408):
        raise Unavailable(f"{url} answered {status}: {content[:200].decode('utf-8', 'replace')}")
    try:
        reply = json.loads(content)
    except ValueError:
        raise Unavailable(f"{url} answered {status} with no JSON") from None
    if status != 200:
        return {"status": status, "error": reply.get("error") if isinstance(reply, dict) else ""}
    if not isinstance(reply, dict) or not isinstance(reply.get("stdout"), str):
        raise Unavailable(f"{url} answered without a command reply")
    return reply


def in_process(home: Any, agent: str, event: str, body: bytes, why: str) -> dict[str, Any]:
    """The same handling with the home loaded here; when that fails, the agent's block form
    on a decision event (fail closed)."""
    from .answering import Refused, blocked, handle, target

    try:
        t = target(agent, event)
    except Refused as exc:
        return {"status": exc.status, "error": exc.message}
    try:
        import hermes_hooks

        hooks = hermes_hooks.load(home, accept_hooks=bool(os.environ.get("HERMES_ACCEPT_HOOKS")))
        try:
            reply = handle(hooks, agent, event, body)
        finally:
            hooks.close()
    except BaseException as exc:  # a plugin's KeyboardInterrupt at import too: fail closed
        why = f"{why}; and in-process: {type(exc).__name__}: {exc}"
        if not t.info.can_block:
            return {"stdout": "{}", "stderr": f"hermes-hooks: {why}", "exit": 1}
        return blocked(t, f"hermes-hooks could not run the hooks (fail closed): {why}").command()
    if reply.status != 200:
        return {"status": reply.status, "error": reply.body.get("error")}
    return reply.command()


def _refused(agent: str, event: str, status: int, error: str) -> dict[str, Any]:
    """A request the handler refuses (unknown event, a body it cannot read): on an event that
    can block, the block form; else a non-blocking error."""
    from .answering import Refused, blocked, target

    why = f"hermes-hooks refused the {agent} {event} hook ({status}): {error}"
    try:
        t = target(agent, event)
    except Refused:
        return {"stdout": "", "stderr": why, "exit": 2}
    if t.info.can_block:
        return blocked(t, why).command()
    return {"stdout": "{}", "stderr": why, "exit": 1}


def run(agent: str, event: str, home: Any, body: bytes, timeout: float = TIMEOUT) -> dict[str, Any]:
    """The command-hook reply to give the agent: from the service, else in-process."""
    try:
        reply = ask_service(home, agent, event, body, timeout)
    except Unavailable as exc:
        why = f"the service did not answer ({exc})"
        reply = in_process(home, agent, event, body, why)
        if "stdout" in reply and not reply.get("stderr"):
            reply["stderr"] = f"hermes-hooks: {why}; the hooks ran in-process"
    if "stdout" not in reply:
        return _refused(agent, event, reply.get("status", 400), str(reply.get("error") or ""))
    return reply


def http_problems(
    home: Any,
    token: str | None,
    timeout: float = PROBE_TIMEOUT,
    where: str = "Claude Code's environment",
) -> list[str]:
    """What keeps Claude Code's http hooks from reaching ``home``'s service with ``token`` (the
    value of ``$HERMES_HOOKS_TOKEN`` in ``where``), each with its fix; ``[]`` when the service
    answers and takes the token (``GET /v1/health`` with it)."""
    serve = f"`hermes hooks serve --home {shlex.quote(str(home))}`"
    export = f"`{export_line(home)}` where you start claude, then start it again"
    out: list[str] = []
    try:
        url = read_url(home)
    except OSError:
        out.append(f"no hermes-hooks service has run for {home} (no {serve_dir(home) / 'url'}): "
                   f"start it with {serve}")  # fmt: skip
        url = ""
    status = 0
    if url:
        try:
            status, content = post(url, token or None, "/v1/health", b"", timeout, "GET")
        except Unavailable as exc:
            out.append(f"the hermes-hooks service does not answer ({exc}): start it with {serve}")
        else:
            if status not in (200, 401):
                said = content[:200].decode("utf-8", "replace")
                out.append(f"{url}/v1/health answered {status} ({said}): restart it with {serve}")
    if not token:
        out.append(f"${TOKEN_VAR} is not set in {where}, so Claude Code's http hooks "
                   f"send no token and the service refuses them: {export}")  # fmt: skip
    elif status == 401:
        out.append(f"${TOKEN_VAR} in {where} is not the token of the service "
                   f"at {url} (it answered 401): {export}")  # fmt: skip
    return out


def warned(event: str, reply: dict[str, Any], problems: list[str]) -> dict[str, Any]:
    """``reply`` (Claude Code's command-hook reply) with ``problems`` said to the person: in
    the ``systemMessage`` Claude Code shows, and on stderr."""
    text = (
        "hermes-hooks: Claude Code's hooks reach the hermes-hooks service over http, and "
        + "; and ".join(problems)
        + ". Until then Claude Code blocks every decision event (each tool call, prompt, "
        "permission request and stop)."
    )
    raw = str(reply.get("stdout") or "")
    try:
        body = json.loads(raw) if raw.strip() else {}
    except ValueError:
        body = None
    if not isinstance(body, dict):  # plain text on stdout is context to Claude Code
        more = {"hookEventName": event, "additionalContext": raw}
        body = {"hookSpecificOutput": more}
    said = body.get("systemMessage")
    body["systemMessage"] = f"{said}\n{text}" if isinstance(said, str) and said else text
    stderr = str(reply.get("stderr") or "").rstrip("\n")
    return {**reply, "stdout": json.dumps(body), "stderr": f"{stderr}\n{text}" if stderr else text}


def main(argv: list[str] | None = None) -> int:
    """``hermes hooks client AGENT EVENT [--home DIR] [--timeout S] [--check-http]``: stdin
    in, the agent's reply out; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    home: str | None = None
    timeout = float(os.environ.get("HERMES_HOOKS_CLIENT_TIMEOUT") or TIMEOUT)
    positional: list[str] = []
    check = False
    i = 0
    try:
        while i < len(args):
            arg = args[i]
            if arg in ("--home", "--timeout") and i + 1 < len(args):
                if arg == "--home":
                    home = args[i + 1]
                else:
                    timeout = float(args[i + 1])
                i += 2
                continue
            if arg.startswith("--home="):
                home = arg.split("=", 1)[1]
            elif arg.startswith("--timeout="):
                timeout = float(arg.split("=", 1)[1])
            elif arg == CHECK_HTTP:
                check = True
            elif arg in ("-h", "--help"):
                sys.stdout.write(USAGE + "\n")
                return 0
            elif arg.startswith("-"):
                raise ValueError(f"unknown option {arg}")
            else:
                positional.append(arg)
            i += 1
        if len(positional) != 2:
            raise ValueError("AGENT and EVENT are needed")
        if check and positional[0] != "claude":
            raise ValueError(f"{CHECK_HTTP} is for Claude Code's http hooks: agent claude only")
    except ValueError as exc:
        sys.stderr.write(f"hermes hooks client: {exc}\n{USAGE}\n")
        return 2
    agent, event = positional
    body = sys.stdin.buffer.read()
    where = find_home(home)
    reply = run(agent, event, where, body, timeout)
    if check:
        problems = http_problems(where, os.environ.get(TOKEN_VAR))
        if problems:
            reply = warned(event, reply, problems)
    if reply.get("stdout"):
        sys.stdout.write(reply["stdout"] + "\n")
    if reply.get("stderr"):
        sys.stderr.write(str(reply["stderr"]).rstrip("\n") + "\n")
    sys.stdout.flush()
    return int(reply.get("exit", 0))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
