"""Internal: part of the built-ins (docs/builtins.md), not an API.

``type: mcp_tool`` hooks: a Claude Code handler that calls a tool of an MCP server instead of
starting a process. The host calls the tool (``host.call_mcp_tool(server, tool, arguments)``,
see :class:`hermes_hooks.context.Host`); the tool's text is read like a command hook's stdout.

``input`` values may name fields of the hook's payload: ``"${tool_input.file_path}"`` is the
value at that path (a string holding only the placeholder keeps the value's type; inside
other text it is inserted as text; a path that does not exist gives ``""``).

A host without MCP cannot run these hooks: they are listed as failed with the reason, and at a
firing one answers as a hook that exits 2 (``cannot run: ...``): a guard blocks, elsewhere the
failure is reported. A tool error (``isError``) is a failed run, as a command's non-zero exit.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import processes
from .matching import ShellHook

UNAVAILABLE = (
    "cannot run: the host provides no MCP client (an mcp_tool hook needs "
    "host.call_mcp_tool(server, tool, arguments); see docs/host-api.md)"
)
_PLACEHOLDER = re.compile(r"\$\{([A-Za-z0-9_.\-]+)\}")


def lookup(payload: Any, path: str) -> Any:
    """The value at a dotted ``path`` of ``payload`` (``None`` when missing)."""
    node = payload
    for part in path.split("."):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def substitute(value: Any, payload: Mapping[str, Any]) -> Any:
    """``value`` with every ``${path}`` replaced from ``payload``."""
    if isinstance(value, str):
        whole = _PLACEHOLDER.fullmatch(value)
        if whole:
            found = lookup(payload, whole.group(1))
            return "" if found is None else found

        def text(match: re.Match[str]) -> str:
            found = lookup(payload, match.group(1))
            if found is None:
                return ""
            return found if isinstance(found, str) else json.dumps(found, ensure_ascii=False)

        return _PLACEHOLDER.sub(text, value)
    if isinstance(value, Mapping):
        return {k: substitute(v, payload) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, payload) for v in value]
    return value


def result_text(result: Any) -> tuple[str, bool]:
    """The text of an MCP tool result and whether it is an error."""
    if isinstance(result, (bytes, bytearray)):
        return bytes(result).decode("utf-8", "replace"), False
    if isinstance(result, str):
        return result, False
    if isinstance(result, Mapping):
        error = bool(result.get("isError") or result.get("is_error"))
        content = result.get("content")
        if isinstance(content, list):
            texts = [c.get("text") for c in content if isinstance(c, Mapping)]
            return "\n".join(t for t in texts if isinstance(t, str)), error
        if "structuredContent" in result:
            return json.dumps(result["structuredContent"], ensure_ascii=False), error
        return json.dumps(result, ensure_ascii=False, default=str), error
    return ("" if result is None else str(result)), False


class McpTransport:
    """The runner's transport for ``mcp_tool`` hooks: ``host()`` is the current host."""

    def __init__(self, host: Callable[[], Any]) -> None:
        self.host = host

    def caller(self) -> Callable[..., Any] | None:
        call = getattr(self.host(), "call_mcp_tool", None)
        return call if callable(call) else None

    def problem(self, hook: ShellHook) -> str | None:
        """Why ``hook`` cannot run here (``hermes hooks list`` / ``doctor``), or ``None``."""
        return UNAVAILABLE if self.caller() is None else None

    def __call__(
        self, batch: Sequence[tuple[ShellHook, processes.Command]]
    ) -> list[processes.Outcome]:
        results: list[processes.Outcome | None] = [None] * len(batch)
        threads = []
        for i, (hook, command) in enumerate(batch):
            thread = threading.Thread(
                target=self._one, args=(results, i, hook, command), daemon=True,
                name=f"hermes-hooks-mcp-{i}",
            )  # fmt: skip
            thread.start()
            threads.append((thread, hook))
        started = time.monotonic()
        for (thread, hook), i in zip(threads, range(len(batch)), strict=True):
            thread.join(max(0.0, started + hook.timeout - time.monotonic()))
            if results[i] is None:  # still waiting for the host: the hook timed out
                results[i] = processes.Outcome(timed_out=True, elapsed=hook.timeout)
        return [r if r is not None else processes.Outcome(error="not run") for r in results]

    def _one(self, results: list[Any], i: int, hook: ShellHook, command: processes.Command) -> None:
        start = time.monotonic()
        call = self.caller()
        if call is None:
            results[i] = processes.Outcome(
                returncode=2, stderr=f"{hook.name}: {UNAVAILABLE}".encode()
            )
            return
        try:
            payload = json.loads(command.stdin or b"{}")
            arguments = substitute(hook.options.get("input") or {}, payload)
            text, error = result_text(call(hook.options["server"], hook.options["tool"], arguments))
        except Exception as exc:  # the host's or the tool's fault stays with this hook
            results[i] = processes.Outcome(error=f"MCP call failed: {type(exc).__name__}: {exc}")
            return
        data = text.encode("utf-8", "replace")
        results[i] = processes.Outcome(
            returncode=1 if error else 0,
            stdout=b"" if error else data,
            stderr=data if error else b"",
            elapsed=time.monotonic() - start,
        )
