"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Recorded sessions, read from the formats agents write: ours (JSON lines), a Claude Code
transcript (JSON lines), Hermes Agent's session snapshot (``session_<id>.json``) and its
``state.db``. Every format becomes the same :class:`Session`."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import wire


class FormatError(ValueError):
    """A recording that cannot be read; the message says which file, line and why."""


@dataclass
class ToolCall:
    """One tool call of a turn, with what the tool returned in the recording."""

    tool_name: str
    args: dict[str, Any]
    result: str = ""
    tool_call_id: str = ""
    status: str = "ok"


@dataclass
class Turn:
    """A user message, the tool calls the model made for it, and its final answer."""

    user_message: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    assistant_response: str = ""


@dataclass
class Session:
    """A recorded session, whatever format it came from."""

    session_id: str = "replay"
    model: str = ""
    platform: str = "cli"
    turns: list[Turn] = field(default_factory=list)
    format: str = ""
    source: str = ""


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", "")) for b in content if isinstance(b, Mapping) and "text" in b
        )
    return "" if content is None else json.dumps(content, default=str)


def _json_lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise FormatError(f"{path}:{number}: not JSON ({exc.msg})") from None
        if not isinstance(value, dict):
            raise FormatError(f"{path}:{number}: each line must be a JSON object")
        rows.append((number, value))
    return rows


# ---------------------------------------------------------------------- ours


def read_ours(path: Path, rows: list[tuple[int, dict[str, Any]]]) -> Session:
    """Our schema: ``{"type": "session"|"user"|"tool_call"|"assistant", ...}`` per line."""
    session = Session(format="hermes-hooks", source=str(path))
    for number, row in rows:
        kind = row.get("type")
        if kind == "session":
            session.session_id = str(row.get("session_id") or session.session_id)
            session.model = str(row.get("model") or "")
            session.platform = str(row.get("platform") or session.platform)
        elif kind == "user":
            session.turns.append(Turn(user_message=str(row.get("text") or "")))
        elif kind in ("tool_call", "assistant"):
            if not session.turns:
                raise FormatError(f"{path}:{number}: a {kind} record before any user record")
            turn = session.turns[-1]
            if kind == "assistant":
                turn.assistant_response = str(row.get("text") or "")
                continue
            args = row.get("args")
            if not isinstance(row.get("tool"), str) or not isinstance(args, dict):
                raise FormatError(f"{path}:{number}: a tool_call needs 'tool' (str) and 'args'")
            turn.tool_calls.append(
                ToolCall(
                    tool_name=row["tool"],
                    args=args,
                    result=_text_of(row.get("result")),
                    tool_call_id=str(row.get("id") or f"call-{number}"),
                    status=str(row.get("status") or "ok"),
                )
            )
        else:
            raise FormatError(
                f"{path}:{number}: unknown record type {kind!r}; expected session, user, "
                "tool_call or assistant (docs/replay.md)"
            )
    return session


# ---------------------------------------------------------------------- Claude Code


def read_claude(path: Path, rows: list[tuple[int, dict[str, Any]]]) -> Session:
    """A Claude Code transcript: ``tool_use`` blocks in assistant messages are tool calls,
    ``tool_result`` blocks in the next user message their results; Claude tool names map to
    ours (``Bash`` -> ``terminal``)."""
    session = Session(format="claude-code", source=str(path))
    pending: dict[str, ToolCall] = {}
    for _, row in rows:
        if row.get("sessionId"):
            session.session_id = str(row["sessionId"])
        message = row.get("message")
        if row.get("isMeta") or not isinstance(message, Mapping):
            continue
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        role = message.get("role") or row.get("type")
        if role == "user":
            results = [
                b for b in blocks if isinstance(b, Mapping) and b.get("type") == "tool_result"
            ]
            for block in results:
                call = pending.pop(str(block.get("tool_use_id")), None)
                if call is not None:
                    call.result = _text_of(block.get("content"))
                    call.status = "error" if block.get("is_error") else "ok"
            if not results:
                session.turns.append(Turn(user_message=_text_of(content)))
        elif role == "assistant":
            if not session.model and message.get("model"):
                session.model = str(message["model"])
            if not session.turns:
                session.turns.append(Turn(user_message=""))
            turn = session.turns[-1]
            for block in blocks:
                if isinstance(block, Mapping) and block.get("type") == "tool_use":
                    name = str(block.get("name") or "")
                    host = wire.host_tool_name(name)
                    args = wire.args_from_claude(host, block.get("input") or {})
                    call = ToolCall(host, dict(args), tool_call_id=str(block.get("id") or ""))
                    turn.tool_calls.append(call)
                    pending[call.tool_call_id] = call
            text = _text_of(
                [b for b in blocks if isinstance(b, Mapping) and b.get("type") == "text"]
            )
            if text:
                turn.assistant_response = text
    return session


# ---------------------------------------------------------------------- Hermes Agent


def from_messages(messages: Iterable[Mapping[str, Any]], session: Session) -> Session:
    """OpenAI-style messages (Hermes Agent's): user turns, assistant ``tool_calls`` and the
    ``tool`` messages that answer them."""
    pending: dict[str, ToolCall] = {}
    for message in messages:
        role = message.get("role")
        if role == "user":
            session.turns.append(Turn(user_message=_text_of(message.get("content"))))
        elif role == "assistant":
            if not session.turns:
                session.turns.append(Turn(user_message=""))
            turn = session.turns[-1]
            calls = message.get("tool_calls") or []
            if isinstance(calls, str):
                calls = json.loads(calls or "[]")
            for call in calls:
                function = call.get("function") or {}
                raw = function.get("arguments") or "{}"
                args = json.loads(raw) if isinstance(raw, str) else raw
                item = ToolCall(
                    str(function.get("name") or ""),
                    dict(args or {}),
                    tool_call_id=str(call.get("id") or ""),
                )
                turn.tool_calls.append(item)
                pending[item.tool_call_id] = item
            if message.get("content") and not calls:
                turn.assistant_response = _text_of(message.get("content"))
        elif role == "tool":
            answered = pending.pop(str(message.get("tool_call_id")), None)
            if answered is not None:
                answered.result = _text_of(message.get("content"))
    return session


def read_hermes_json(path: Path, doc: Mapping[str, Any]) -> Session:
    """Hermes Agent's ``session_<id>.json`` snapshot."""
    session = Session(
        session_id=str(doc.get("session_id") or "replay"),
        model=str(doc.get("model") or ""),
        platform=str(doc.get("platform") or "cli"),
        format="hermes-agent",
        source=str(path),
    )
    return from_messages(doc.get("messages") or [], session)


def read_hermes_db(path: Path, session_id: str | None = None) -> Session:
    """Hermes Agent's ``state.db``: the session ``session_id`` (default: the latest)."""
    import sqlite3

    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise FormatError(f"{path}: cannot open: {exc}") from None
    try:
        if session_id is None:
            row = db.execute(
                "SELECT session_id FROM messages ORDER BY timestamp DESC, id DESC LIMIT 1"
            ).fetchone()
            if row is None:
                raise FormatError(f"{path}: no messages")
            session_id = row[0]
        cursor = db.execute(
            "SELECT role, content, tool_calls, tool_call_id FROM messages "
            "WHERE session_id = ? ORDER BY id",
            (session_id,),
        )
        messages = [
            {"role": r, "content": c, "tool_calls": tc, "tool_call_id": tid}
            for r, c, tc, tid in cursor
        ]
    except sqlite3.Error as exc:
        raise FormatError(f"{path}: not a Hermes Agent state.db ({exc})") from None
    finally:
        db.close()
    session = Session(session_id=str(session_id), format="hermes-agent-db", source=str(path))
    return from_messages(messages, session)


# ---------------------------------------------------------------------- detection


def read_session(path: Path, session_id: str | None = None) -> Session:
    """Read a recording, detecting its format."""
    if not path.is_file():
        raise FormatError(f"{path}: no such file")
    if path.read_bytes()[:16].startswith(b"SQLite format 3"):
        return read_hermes_db(path, session_id)
    text = path.read_text(encoding="utf-8").lstrip()
    if text.startswith("{") and "\n" in text.strip():
        try:
            doc = json.loads(text)
        except ValueError:
            doc = None
        if isinstance(doc, dict) and isinstance(doc.get("messages"), list):
            return read_hermes_json(path, doc)
    rows = _json_lines(path)
    if not rows:
        raise FormatError(f"{path}: empty")
    if any("message" in row and ("sessionId" in row or "uuid" in row) for _, row in rows):
        return read_claude(path, rows)
    return read_ours(path, rows)
