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

from hermes_hooks.builtin_plugins.shell_hooks import protocol


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


#: How much of a wrong value a message quotes.
QUOTED = 60
#: The names of JSON's types, for "what was found" in a message.
_JSON_KIND = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
              int: "a number", float: "a number", type(None): "null"}  # fmt: skip


def _quoted(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= QUOTED else text[: QUOTED - 1] + "…"


def _found(value: Any) -> str:
    kind = _JSON_KIND.get(type(value), type(value).__name__)
    return kind if isinstance(value, (dict, list)) or value is None else f"{kind} {_quoted(value)}"


@dataclass(frozen=True)
class Where:
    """One record of a recording: the file and the line (or message) it came from. Every
    complaint about the record names both and says what was expected."""

    path: Path
    record: str  # "3" (a line) or "messages[2]" / "message id 7"

    def __str__(self) -> str:
        line = self.record.isdigit()
        return f"{self.path}:{self.record}" if line else f"{self.path}: {self.record}"

    def error(self, what: str) -> FormatError:
        return FormatError(f"{self}: {what}")

    def wrong(self, key: str, value: Any, expected: str) -> FormatError:
        return self.error(f"{key!r} is {_found(value)}; expected {expected}")

    def string(self, row: Mapping[str, Any], key: str, *, required: bool = False) -> str | None:
        """``row[key]``: a string, or ``None`` when absent or null (unless ``required``)."""
        value = row.get(key)
        if value is None and not required:
            return None
        if not isinstance(value, str) or (required and not value):
            raise self.wrong(key, value, "a non-empty string" if required else "a string")
        return value

    def mapping(self, row: Mapping[str, Any], key: str, *, required: bool = False) -> Any:
        """``row[key]``: an object, or ``None`` when absent or null (unless ``required``)."""
        value = row.get(key)
        if value is None and not required:
            return None
        if not isinstance(value, dict):
            raise self.wrong(key, value, "an object")
        return value

    def text(self, row: Mapping[str, Any], key: str) -> str:
        """A message's text: a string, a list of content blocks (their ``text`` joined), or
        absent/null (empty)."""
        value = row.get(key)
        if value is None:
            return ""
        if isinstance(value, str):
            return value
        if isinstance(value, list):
            return "\n".join(t for t in self.blocks(value, key, "text") if t)
        raise self.wrong(key, value, "a string, a list of content blocks or null")

    def blocks(self, blocks: list[Any], key: str, kind: str) -> Iterable[str]:
        """The ``text`` of each block of type ``kind`` (or without a type) in ``blocks``."""
        for number, block in enumerate(blocks):
            if not isinstance(block, dict):
                raise self.wrong(f"{key}[{number}]", block, "an object (a content block)")
            if block.get("type", kind) == kind and "text" in block:
                text = block["text"]
                if not isinstance(text, str):
                    raise self.wrong(f"{key}[{number}].text", text, "a string")
                yield text


def _result_text(where: Where, row: Mapping[str, Any], key: str) -> str:
    """What a tool returned: a string or content blocks, or any other JSON value as its JSON
    text."""
    value = row.get(key)
    if value is None or isinstance(value, (str, list)):
        return where.text(row, key)
    return json.dumps(value, ensure_ascii=False)


def _why(exc: BaseException) -> str:
    """Why ``json.loads`` failed: where (a syntax error), or what (nesting, a number too long
    for Python, which ``json`` reports as a plain ``ValueError``)."""
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg.removesuffix(' at')} at column {exc.colno}"
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return str(exc).split(";")[0]


def _decode(path: Path, data: bytes) -> str:
    """The recording's text: UTF-8 (a byte-order mark is dropped)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise FormatError(
            f"{path}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x} at column {column}); "
            "expected a recording in UTF-8 (docs/replay.md)"
        ) from None


def _read_bytes(path: Path) -> bytes:
    if path.is_dir():
        raise FormatError(f"{path}: is a directory; expected a recording file (docs/replay.md)")
    if path.exists() and not path.is_file():
        raise FormatError(f"{path}: not a regular file; expected a recording file")
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise FormatError(f"{path}: no such file; expected a recording file") from None
    except OSError as exc:
        raise FormatError(
            f"{path}: cannot read it ({exc.strerror or exc}); expected a readable recording file"
        ) from None


def _json_lines(path: Path, text: str) -> list[tuple[Where, dict[str, Any]]]:
    rows = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = Where(path, str(number))
        try:
            value = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise where.error(
                f"not JSON ({_why(exc)}); expected one JSON object per line"
            ) from None
        if not isinstance(value, dict):
            raise where.error(f"a line is {_found(value)}; expected one JSON object per line")
        rows.append((where, value))
    return rows


# ---------------------------------------------------------------------- ours

#: Our record types (docs/replay.md).
RECORD_TYPES = ("session", "user", "tool_call", "assistant")
TOOL_STATUSES = ("ok", "error")


def read_ours(path: Path, rows: list[tuple[Where, dict[str, Any]]]) -> Session:
    """Our schema: ``{"type": "session"|"user"|"tool_call"|"assistant", ...}`` per line."""
    session = Session(format="hermes-hooks", source=str(path))
    for where, row in rows:
        kind = row.get("type")
        if kind not in RECORD_TYPES:
            raise where.wrong(
                "type", kind, "one of " + ", ".join(RECORD_TYPES) + " (docs/replay.md)"
            )
        if kind == "session":
            session.session_id = where.string(row, "session_id") or session.session_id
            session.model = where.string(row, "model") or ""
            session.platform = where.string(row, "platform") or session.platform
        elif kind == "user":
            session.turns.append(Turn(user_message=where.string(row, "text") or ""))
        else:
            if not session.turns:
                raise where.error(f"a {kind} record before any user record; expected a user "
                                  "record to start the turn")  # fmt: skip
            turn = session.turns[-1]
            if kind == "assistant":
                turn.assistant_response = where.string(row, "text") or ""
                continue
            status = row.get("status")
            if status is not None and status not in TOOL_STATUSES:
                raise where.wrong("status", status, '"ok", "error" or null')
            turn.tool_calls.append(
                ToolCall(
                    tool_name=str(where.string(row, "tool", required=True)),
                    args=where.mapping(row, "args", required=True),
                    result=_result_text(where, row, "result"),
                    tool_call_id=where.string(row, "id") or f"call-{where.record}",
                    status=status or "ok",
                )
            )
    return session


# ---------------------------------------------------------------------- Claude Code


def read_claude(path: Path, rows: list[tuple[Where, dict[str, Any]]]) -> Session:
    """A Claude Code transcript: ``tool_use`` blocks in assistant messages are tool calls,
    ``tool_result`` blocks in the next user message their results; Claude tool names map to
    ours (``Bash`` -> ``terminal``). Records without a ``message`` (summaries, snapshots) and
    meta messages are passed over."""
    session = Session(format="claude-code", source=str(path))
    pending: dict[str, ToolCall] = {}
    for where, row in rows:
        session.session_id = where.string(row, "sessionId") or session.session_id
        message = where.mapping(row, "message")
        if row.get("isMeta") or message is None:
            continue
        content = message.get("content")
        if content is not None and not isinstance(content, (str, list)):
            raise where.wrong(
                "message.content", content, "a string, a list of content blocks or null"
            )
        blocks = content if isinstance(content, list) else []
        for number, block in enumerate(blocks):
            if not isinstance(block, dict):
                raise where.wrong(
                    f"message.content[{number}]", block, "an object (a content block)"
                )
        role = where.string(message, "role") or where.string(row, "type")
        if role == "user":
            results = [b for b in blocks if b.get("type") == "tool_result"]
            for block in results:
                call = pending.pop(str(where.string(block, "tool_use_id", required=True)), None)
                if call is not None:
                    call.result = _result_text(where, block, "content")
                    call.status = "error" if block.get("is_error") else "ok"
            if not results:
                session.turns.append(Turn(user_message=where.text(message, "content")))
        elif role == "assistant":
            session.model = session.model or where.string(message, "model") or ""
            if not session.turns:
                session.turns.append(Turn(user_message=""))
            turn = session.turns[-1]
            for block in blocks:
                if block.get("type") == "tool_use":
                    host = protocol.host_tool_name(where.string(block, "name", required=True))
                    args = protocol.args_from_claude(host, where.mapping(block, "input") or {})
                    call_id = where.string(block, "id") or ""
                    call = ToolCall(host, dict(args), tool_call_id=call_id)
                    turn.tool_calls.append(call)
                    pending[call.tool_call_id] = call
            text = "\n".join(where.blocks(blocks, "message.content", "text"))
            if text:
                turn.assistant_response = text
    return session


# ---------------------------------------------------------------------- Hermes Agent


def _tool_calls(where: Where, message: Mapping[str, Any]) -> list[ToolCall]:
    """An assistant message's ``tool_calls``: a list (or, in ``state.db``, its JSON text) of
    ``{id, function: {name, arguments}}``, ``arguments`` an object or its JSON text."""
    calls = message.get("tool_calls")
    if isinstance(calls, str):
        try:
            calls = json.loads(calls) if calls.strip() else None
        except (ValueError, RecursionError):
            raise where.wrong(
                "tool_calls", calls, "a list of tool calls (or its JSON text)"
            ) from None
    if calls is None:
        return []
    if not isinstance(calls, list):
        raise where.wrong("tool_calls", calls, "a list of tool calls")
    found = []
    for number, call in enumerate(calls):
        key = f"tool_calls[{number}]"
        if not isinstance(call, dict):
            raise where.wrong(key, call, "an object {id, function: {name, arguments}}")
        function = call.get("function")
        if not isinstance(function, dict):
            raise where.wrong(f"{key}.function", function, "an object {name, arguments}")
        name = function.get("name")
        if not isinstance(name, str) or not name:
            raise where.wrong(f"{key}.function.name", name, "a non-empty string")
        raw = function.get("arguments")
        args = raw
        if isinstance(raw, str):
            try:
                args = json.loads(raw) if raw.strip() else {}
            except (ValueError, RecursionError):
                args = None
        elif raw is None:
            args = {}
        if not isinstance(args, dict):
            raise where.wrong(f"{key}.function.arguments", raw, "an object or the JSON text of one")
        call_id = call.get("id")
        if call_id is not None and not isinstance(call_id, str):
            raise where.wrong(f"{key}.id", call_id, "a string")
        found.append(ToolCall(name, args, tool_call_id=call_id or ""))
    return found


def from_messages(messages: Iterable[tuple[Where, Any]], session: Session) -> Session:
    """OpenAI-style messages (Hermes Agent's): user turns, assistant ``tool_calls`` and the
    ``tool`` messages that answer them. Other roles (``system``) are passed over."""
    pending: dict[str, ToolCall] = {}
    for where, message in messages:
        if not isinstance(message, dict):
            raise where.error(f"a message is {_found(message)}; expected an object with a role")
        role = where.string(message, "role", required=True)
        if role == "user":
            session.turns.append(Turn(user_message=where.text(message, "content")))
        elif role == "assistant":
            if not session.turns:
                session.turns.append(Turn(user_message=""))
            turn = session.turns[-1]
            calls = _tool_calls(where, message)
            for item in calls:
                turn.tool_calls.append(item)
                pending[item.tool_call_id] = item
            text = where.text(message, "content")
            if text and not calls:
                turn.assistant_response = text
        elif role == "tool":
            answered = pending.pop(where.string(message, "tool_call_id") or "", None)
            if answered is not None:
                answered.result = _result_text(where, message, "content")
    return session


def read_hermes_json(path: Path, doc: Mapping[str, Any]) -> Session:
    """Hermes Agent's ``session_<id>.json`` snapshot."""
    where = Where(path, "the session")
    messages = doc.get("messages")
    if not isinstance(messages, list):
        raise where.wrong("messages", messages, "a list of messages")
    session = Session(
        session_id=where.string(doc, "session_id") or "replay",
        model=where.string(doc, "model") or "",
        platform=where.string(doc, "platform") or "cli",
        format="hermes-agent",
        source=str(path),
    )
    return from_messages(
        ((Where(path, f"messages[{n}]"), m) for n, m in enumerate(messages)), session
    )


def read_hermes_db(path: Path, session_id: str | None = None) -> Session:
    """Hermes Agent's ``state.db``: the session ``session_id`` (default: the latest)."""
    import sqlite3

    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise FormatError(
            f"{path}: cannot open ({exc}); expected a Hermes Agent state.db"
        ) from None
    try:
        if session_id is None:
            row = db.execute(
                "SELECT session_id FROM messages ORDER BY timestamp DESC, id DESC LIMIT 1"
            ).fetchone()
            if row is None:
                raise FormatError(f"{path}: no messages; expected a Hermes Agent state.db")
            session_id = str(row[0])
        cursor = db.execute(
            "SELECT id, role, content, tool_calls, tool_call_id FROM messages "
            "WHERE session_id = ? ORDER BY id",
            (session_id,),
        )
        messages = [
            (
                Where(path, f"session {session_id}, message id {i}"),
                {"role": r, "content": c, "tool_calls": tc, "tool_call_id": tid},
            )
            for i, r, c, tc, tid in cursor
        ]
    except sqlite3.Error as exc:
        raise FormatError(
            f"{path}: cannot read it ({exc}); expected a Hermes Agent state.db"
        ) from None
    finally:
        db.close()
    if not messages:
        raise FormatError(
            f"{path}: no messages in session {session_id!r}; expected a session of this state.db"
        )
    session = Session(session_id=session_id, format="hermes-agent-db", source=str(path))
    return from_messages(messages, session)


# ---------------------------------------------------------------------- detection


def read_session(path: Path, session_id: str | None = None) -> Session:
    """Read a recording, detecting its format. A record that is not as its format says stops
    the reading: :class:`FormatError` names the file, the line (or message) and what was
    expected."""
    data = _read_bytes(path)
    if data[:16] == b"SQLite format 3\x00":
        return read_hermes_db(path, session_id)
    text = _decode(path, data)
    body = text.strip()
    if not body:
        raise FormatError(f"{path}: empty; expected a recording (docs/replay.md)")
    if body.startswith("{") and "\n" in body:
        # a JSON document over several lines is a Hermes Agent snapshot; JSON lines are not one
        try:
            doc = json.loads(body)
        except (ValueError, RecursionError) as exc:
            try:
                json.loads(body.split("\n", 1)[0])
            except (ValueError, RecursionError):
                where = f"{path}"  # where json cannot say where: the whole document
                if isinstance(exc, json.JSONDecodeError):
                    where += f":{text[: text.index(body)].count(chr(10)) + exc.lineno}"
                raise FormatError(
                    f"{where}: not JSON ({_why(exc)}); expected a "
                    "Hermes Agent session snapshot or one JSON object per line"
                ) from None
        else:
            if isinstance(doc, dict) and "messages" in doc:
                return read_hermes_json(path, doc)
            raise FormatError(
                f"{path}: one JSON document without a 'messages' list; expected a Hermes Agent "
                "session snapshot or one JSON object per line (docs/replay.md)"
            )
    rows = _json_lines(path, text)
    if len(rows) == 1 and "messages" in rows[0][1] and "type" not in rows[0][1]:
        return read_hermes_json(path, rows[0][1])  # a snapshot written on one line
    if any("message" in row and ("sessionId" in row or "uuid" in row) for _, row in rows):
        return read_claude(path, rows)
    return read_ours(path, rows)
