"""Payload fields the dialects' events declare on the hookspecs (besides the generic ones of
:mod:`hermes_hooks.contract`): each reads the host's keyword arguments, as
:data:`~hermes_hooks.contract.Field` does. ``CWD`` is the working directory the payload builder
passes along with the arguments."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..contract import OMIT, Field

#: The key under which :meth:`~hermes_hooks.dialects.base.Dialect.payload` passes the working
#: directory to the field readers.
CWD = "\0cwd"
#: How much of a file a ``beforeReadFile`` payload carries (Cursor sends the content).
READ_CAP = 1 << 20


def tool_is(*names: str) -> Callable[[Mapping[str, Any]], bool]:
    """An occurrence test: the host's tool is one of ``names``."""

    def when(kwargs: Mapping[str, Any]) -> bool:
        return kwargs.get("tool_name") in names

    when.__doc__ = f"tool_name in {names!r}"
    when.about = ", ".join(f"`{n}`" for n in names)  # type: ignore[attr-defined]  # for the docs
    return when


def mcp_tool(kwargs: Mapping[str, Any]) -> bool:
    """An occurrence test: the host's tool is an MCP server's (``mcp_…`` / ``mcp__…``)."""
    return str(kwargs.get("tool_name") or "").startswith("mcp")


mcp_tool.about = "MCP tools"  # type: ignore[attr-defined]  # for the docs


def arg_of(name: str, default: Any = "") -> Field:
    """The tool argument ``name`` (``args[name]``)."""

    def read(kwargs: Mapping[str, Any]) -> Any:
        args = kwargs.get("args")
        value = args.get(name) if isinstance(args, Mapping) else None
        return default if value is None else value

    read.__doc__ = f"args[{name!r}]"
    return read


def cwd(kwargs: Mapping[str, Any]) -> Any:
    """The working directory."""
    return kwargs.get(CWD, "")


def args_text(kwargs: Mapping[str, Any]) -> Any:
    """The tool arguments as a JSON string."""
    return json.dumps(kwargs.get("args") or {}, ensure_ascii=False)


def result_text(kwargs: Mapping[str, Any]) -> Any:
    """The host's ``result`` as text."""
    result = kwargs.get("result")
    if result is None or isinstance(result, str):
        return result or ""
    return json.dumps(result, ensure_ascii=False, default=str)


def file_content(kwargs: Mapping[str, Any]) -> Any:
    """The content of the file the tool reads (up to :data:`READ_CAP` bytes), ``""`` when it
    cannot be read."""
    args = kwargs.get("args")
    path = args.get("path") or args.get("file_path") if isinstance(args, Mapping) else None
    if not isinstance(path, str) or not path:
        return ""
    try:
        with open(path, "rb") as handle:
            return handle.read(READ_CAP).decode("utf-8", "replace")
    except (OSError, ValueError):
        return ""


def edits(kwargs: Mapping[str, Any]) -> Any:
    """Cursor's ``edits``: ``[{old_string, new_string}]`` of a patch or a whole-file write."""
    args = kwargs.get("args")
    if not isinstance(args, Mapping):
        return []
    if "old_string" in args or "new_string" in args:
        return [
            {"old_string": args.get("old_string", ""), "new_string": args.get("new_string", "")}
        ]
    return [{"old_string": "", "new_string": args.get("content", "")}]


def gemini_tool_response(kwargs: Mapping[str, Any]) -> Any:
    """Gemini CLI's ``tool_response``: ``llmContent`` and ``returnDisplay`` (and ``error``)."""
    text = result_text(kwargs)
    out: dict[str, Any] = {"llmContent": text, "returnDisplay": text}
    if kwargs.get("status") == "error":
        out["error"] = {"message": kwargs.get("error_message") or text}
    return out


def copilot_tool_result(kwargs: Mapping[str, Any]) -> Any:
    """Copilot's ``toolResult``: ``resultType`` and ``textResultForLlm``."""
    status = kwargs.get("status")
    kind = {"error": "failure", "blocked": "denied"}.get(str(status), "success")
    return {"resultType": kind, "textResultForLlm": result_text(kwargs)}


def llm_request(kwargs: Mapping[str, Any]) -> Any:
    """Gemini CLI's ``llm_request``: the model and the messages (role and text)."""
    messages = []
    for item in kwargs.get("conversation_history") or []:
        if isinstance(item, Mapping):
            role = "model" if item.get("role") == "assistant" else item.get("role", "user")
            content = item.get("content")
            messages.append({"role": role, "content": content if isinstance(content, str) else ""})
    if kwargs.get("user_message"):
        messages.append({"role": "user", "content": kwargs["user_message"]})
    return {"model": kwargs.get("model") or "", "messages": messages, "config": {}}


def llm_response(kwargs: Mapping[str, Any]) -> Any:
    """Gemini CLI's ``llm_response``: one candidate holding the assistant's text."""
    text = kwargs.get("assistant_response") or ""
    return {"candidates": [{"content": {"role": "model", "parts": [text]}, "finishReason": "STOP"}]}


def millis(kwargs: Mapping[str, Any]) -> Any:
    """Now, in milliseconds since the epoch (Copilot's ``timestamp``)."""
    return int(time.time() * 1000)


def duration(kwargs: Mapping[str, Any]) -> Any:
    """The host's ``duration_ms`` (left out when unset)."""
    value = kwargs.get("duration_ms")
    return OMIT if value is None else value
