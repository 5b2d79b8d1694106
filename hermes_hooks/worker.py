"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

The warm-worker protocol (``persistent: true`` shell hooks), both ends.

A worker is a process started once and kept: it answers one JSON line per event instead of a
process per event. Over its stdin and stdout, one JSON object a line (UTF-8, ``\\n``-ended):

1. the worker first writes its handshake: ``{"worker": "hermes-hooks", "protocol": 1}``;
2. for each event the adapter writes a request, ``id`` always first::

       {"id": 7, "event": "pre_tool_call", "payload": {...}}

   ``payload`` is exactly the JSON a one-shot hook of the same protocol (``hermes`` or
   ``claude-code``) reads on its stdin;
3. the worker answers with one line carrying the request's ``id`` and what a one-shot hook's
   exit code, stdout and stderr carry::

       {"id": 7, "exit_code": 0, "stdout": "{\\"decision\\": \\"block\\", ...}", "stderr": ""}

   Every key but ``id`` may be left out (``exit_code`` 0, empty output), and ``answer`` (any
   JSON value) stands for ``stdout`` holding that value as JSON: ``{"id": 7}`` has no opinion,
   ``{"id": 7, "answer": {"action": "block", "message": "no"}}`` blocks (Hermes protocol),
   ``{"id": 7, "exit_code": 2, "stderr": "no"}`` blocks in either protocol.

Requests to one worker are sent one at a time; an ``id`` is a number no worker can predict
(echo it back). A line written before the request, or a JSON object with another ``id`` or none,
is discarded by the adapter (never taken as the answer), which keeps reading until the deadline. Its stderr is not part of any answer (the adapter
keeps its tail for error messages). :func:`serve` is the worker end for a Python function.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from typing import IO, Any

#: The protocol version this module speaks.
PROTOCOL = 1
NAME = "hermes-hooks"
HANDSHAKE = {"worker": NAME, "protocol": PROTOCOL}


class Exit(Exception):  # noqa: N818 - it is an exit, not an error
    """Raised by a handler: answer as a one-shot hook that exits with ``code`` after printing
    ``message`` on stderr (``Exit(2, "why")`` blocks in both protocols)."""

    def __init__(self, code: int, message: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def block(reason: str) -> Exit:
    """``raise block("why")``: the exit-code-2 block every protocol understands."""
    return Exit(2, reason)


# ---------------------------------------------------------------------- the adapter's end


def request(ident: int, event: str, payload: bytes) -> bytes:
    """The request line for one event; ``payload`` is the JSON line a one-shot hook reads."""
    body = payload[:-1] if payload.endswith(b"\n") else payload
    return b'{"id":%d,"event":%s,"payload":%s}\n' % (ident, json.dumps(event).encode(), body)


def check_handshake(line: bytes) -> str | None:
    """Why ``line`` is not a handshake this adapter accepts (``None``: it is)."""
    try:
        data = json.loads(line)
    except ValueError:
        return f"its first line is not the JSON handshake {json.dumps(HANDSHAKE)}: {line[:120]!r}"
    if not isinstance(data, dict) or data.get("worker") != NAME:
        return f"its first line is not the handshake {json.dumps(HANDSHAKE)}: {line[:120]!r}"
    if data.get("protocol") != PROTOCOL:
        return f"it speaks worker protocol {data.get('protocol')!r}; this adapter speaks {PROTOCOL}"
    return None


class Stale(ValueError):
    """A JSON object line that is not the answer to the current request (another ``id``, or
    none): the adapter discards it and keeps waiting for the answer."""


def read_answer(line: bytes, ident: int) -> tuple[int, bytes, bytes]:
    """``(exit_code, stdout, stderr)`` of the answer line to request ``ident``; :class:`Stale`
    for a JSON object with another ``id`` (or none), ``ValueError`` saying what is wrong with
    the line otherwise."""
    try:
        data = json.loads(line)
    except ValueError:
        raise ValueError(f"its answer is not a JSON line: {line[:200]!r}") from None
    if not isinstance(data, dict):
        raise ValueError(f"its answer is not a JSON object: {line[:200]!r}")
    if data.get("id") != ident:
        raise Stale(f"it answered id {data.get('id')!r} to request {ident}")
    code = data.get("exit_code", 0)
    if isinstance(code, bool) or not isinstance(code, int):
        raise ValueError(f"exit_code {code!r} is not an integer")
    if "answer" in data:
        stdout = json.dumps(data["answer"], ensure_ascii=False)
    else:
        stdout = data.get("stdout", "")
    stderr = data.get("stderr", "")
    if not isinstance(stdout, str) or not isinstance(stderr, str):
        raise ValueError("stdout and stderr must be strings")
    return code, _bytes(stdout), _bytes(stderr)


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


# ---------------------------------------------------------------------- the worker's end

Handler = Callable[[str, dict[str, Any]], Any]


def answer(ident: Any, result: Any) -> dict[str, Any]:
    """The answer line (as a dict) for what a handler returned: ``None`` (no opinion), a
    string (stdout as is) or any other JSON value (the answer)."""
    if result is None:
        return {"id": ident}
    if isinstance(result, str):
        return {"id": ident, "stdout": result}
    return {"id": ident, "answer": result}


def serve(handler: Handler, *, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> None:
    """Run ``handler(event, payload)`` for every request until stdin closes.

    It returns the answer (a dict such as ``{"action": "block", "message": ...}`` in the
    Hermes protocol, ``None`` for no opinion) or raises :class:`Exit` (``raise block("why")``).
    Any other exception answers exit code 1 with the traceback on stderr, and the worker goes
    on. A worker script::

        #!/usr/bin/env python3
        from hermes_hooks.worker import block, serve

        def handle(event, payload):
            if "rm -rf" in str(payload.get("tool_input")):
                raise block("no rm -rf")

        serve(handle)
    """
    src = stdin if stdin is not None else sys.stdin
    if stdin is None and hasattr(src, "reconfigure"):  # the requests are UTF-8, whatever the locale
        src.reconfigure(encoding="utf-8", errors="surrogateescape")
    out = stdout if stdout is not None else sys.stdout
    out.write(json.dumps(HANDSHAKE) + "\n")
    out.flush()
    for line in src:
        if not line.strip():
            continue
        ident: Any = None
        try:
            message = json.loads(line)
            ident = message["id"]
            payload = message.get("payload")
            result = handler(
                str(message.get("event")), payload if isinstance(payload, dict) else {}
            )
            reply = answer(ident, result)
        except Exit as exc:
            reply = {"id": ident, "exit_code": exc.code, "stderr": exc.message}
        except Exception:
            reply = {"id": ident, "exit_code": 1, "stderr": traceback.format_exc()}
        out.write(json.dumps(reply, default=str) + "\n")
        out.flush()
