"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Payloads people write by hand (``hermes hooks test --payload-file``, canaries): either the
host's keyword arguments for an event, or the wire JSON a shell hook reads on stdin (Hermes'
``hook_event_name``/``tool_input``/``extra`` or Claude Code's fields). Either is turned into the
host's keyword arguments; an unknown key is refused with a did-you-mean, so a typo never makes a
test pass by testing nothing.

The Claude Code fields of each event are read back through the event's own contract: a field
that carries a host argument is recognised by asking the field which argument it reads.

Canaries: a payload a guard must answer, and the decision it must produce.

A shell hook entry carries ``canary: {payload: {...}, expect: block}`` (its event is the entry's);
a plugin's ``plugin.yaml`` carries ``canary: {event: pre_tool_call, payload: {...}, expect:
block}`` or a list of them. ``hermes hooks verify`` fires each canary's payload through the
runtime's own dispatcher, so every hook of every source takes part exactly as in the agent, and
compares the combined decision with ``expect``: CI for a team's policy.

``expect`` is the decision's action as the event's typed result names it (``block``, ``approve``,
``allow`` for ``pre_tool_call``; ``deny``/``allow`` for ``permission_request``; ``continue`` for
``pre_verify``, ...) or ``none`` for no decision.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_hooks.builtin_plugins.shell_hooks import protocol

from ..catalogue import EventInfo, suggest

HOST = "host keyword arguments"
HERMES_WIRE = "Hermes wire JSON (what a hook reads on stdin)"
CLAUDE_WIRE = "Claude Code wire JSON (what a hook reads on stdin)"

_COMMON = (*protocol.CLAUDE_COMMON_KEYS, *protocol.CLAUDE_OPTIONAL_KEYS)
_HERMES_KEYS = protocol.HERMES_WIRE_KEYS
_PROBE = object()


class PayloadError(ValueError):
    """A payload that cannot be used for the event (unknown keys, another event's payload)."""


def form_of(data: Mapping[str, Any]) -> str:
    """Which form ``data`` is: :data:`HOST`, :data:`HERMES_WIRE` or :data:`CLAUDE_WIRE`."""
    if "hook_event_name" not in data and "tool_input" not in data:
        return HOST
    if "extra" in data or set(data) <= set(_HERMES_KEYS) and "permission_mode" not in data:
        name = data.get("hook_event_name")
        if not isinstance(name, str) or not name[:1].isupper():
            return HERMES_WIRE
    return CLAUDE_WIRE


def to_kwargs(info: EventInfo, data: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """The host's keyword arguments for ``info``'s event from ``data``, and the form detected.
    Raises :class:`PayloadError` for keys the event does not have."""
    form = form_of(data)
    if form == HOST:
        _refuse(info, [k for k in data if k not in info.args], info.args)
        return dict(data), form
    _check_event(info, data.get("hook_event_name"))
    if form == HERMES_WIRE:
        return _from_hermes(info, data), form
    return _from_claude(info, data), form


def _refuse(info: EventInfo, unknown: list[str], known: Any, what: str = "its arguments") -> None:
    """Refuse ``unknown`` keys, each with a did-you-mean, listing ``known`` (``what`` they are)."""
    if not unknown:
        return
    parts = []
    for key in unknown:
        guess = suggest(str(key), list(known))
        parts.append(repr(key) + (f" (did you mean {guess!r}?)" if guess else ""))
    raise PayloadError(
        f"unknown key(s) for {info.name}: {', '.join(parts)}; {what} are: {', '.join(known)}"
    )


def _check_event(info: EventInfo, name: Any) -> None:
    if name is None:
        return
    names = {info.name, *info.aliases, *(c.name for c in info.meta.claude)}
    if str(name) not in names:
        raise PayloadError(
            f"the payload is for {name!r}, not {info.name} (its names: {', '.join(sorted(names))})"
        )


def _from_hermes(info: EventInfo, data: Mapping[str, Any]) -> dict[str, Any]:
    _refuse(info, [k for k in data if k not in _HERMES_KEYS], _HERMES_KEYS, "the Hermes keys")
    out: dict[str, Any] = {}
    extra = data.get("extra") or {}
    if not isinstance(extra, Mapping):
        raise PayloadError("'extra' must be an object of the event's other arguments")
    _refuse(info, [k for k in extra if k not in info.args], info.args)
    out.update(extra)
    if data.get("tool_name") is not None:
        out["tool_name"] = data["tool_name"]
    if data.get("tool_input") is not None:
        out["args"] = data["tool_input"]
    if data.get("session_id"):
        out[_session_arg(info)] = data["session_id"]
    return out


def _session_arg(info: EventInfo) -> str:
    """The argument a payload's ``session_id`` was built from: ``session_id``, else (a
    sub-agent's events) ``parent_session_id``, as the shell-hook wire protocol sends them."""
    if "session_id" not in info.args and "parent_session_id" in info.args:
        return "parent_session_id"
    return "session_id"


def _read_by(read: Any, info: EventInfo) -> str | None:
    """The argument of ``info``'s event a Claude Code field is built from: the one its helper
    names (:mod:`.contract`), else the one it hands back unchanged (a field of its own)."""
    named = getattr(read, "reads", None)
    if named in info.args:
        return str(named)
    for arg in info.args:
        try:
            if read({arg: _PROBE}) is _PROBE:
                return arg
        except Exception:
            continue
    return None


def _from_claude(info: EventInfo, data: Mapping[str, Any]) -> dict[str, Any]:
    chosen = info.claude_named(str(data.get("hook_event_name") or "")) or next(
        iter(info.meta.claude), None
    )
    fields = dict(chosen.fields) if chosen is not None else {}
    known = [*_COMMON, "tool_name", "tool_input", "tool_use_id", *fields]
    if chosen is None:
        known += list(info.args)
    known = list(dict.fromkeys(known))
    _refuse(info, [k for k in data if k not in known], known, "its Claude Code fields")
    out: dict[str, Any] = {}
    tool = protocol.host_tool_name(data.get("tool_name"))
    if tool is not None:
        out["tool_name"] = tool
    if "tool_input" in data:
        out["args"] = protocol.args_from_claude(tool, data["tool_input"])
    if data.get("tool_use_id"):
        out["tool_call_id"] = data["tool_use_id"]
    if data.get("session_id"):
        out[_session_arg(info)] = data["session_id"]
    if data.get("transcript_path"):
        out["transcript_path"] = data["transcript_path"]
    for key, name in protocol.CLAUDE_OPTIONAL_KEYS.items():
        if data.get(key):
            out[name] = data[key]
    for key, read in fields.items():
        if key not in data:
            continue
        arg = _read_by(read, info)
        if arg is not None:
            back = getattr(read, "back", None)
            out[arg] = back(data[key]) if back is not None else data[key]
        elif key == "tool_response" and "result" in info.args:
            out["result"] = protocol.encode(data[key]).decode().strip()
    if chosen is None:
        out.update({k: v for k, v in data.items() if k in info.args})
    return out


if TYPE_CHECKING:
    from ..hooks import Hooks

_NONE = ("none", "null", "", "no opinion")


@dataclass(frozen=True)
class Canary:
    """One canary of one guard."""

    guard: str
    source: str
    event: str
    payload: Mapping[str, Any]
    expect: str
    where: str = ""
    #: Why the guard cannot answer for itself now (its row's status is not ``active``: not
    #: approved as it is, changed, not runnable); the canary then fails whatever is decided.
    idle: str | None = None


@dataclass(frozen=True)
class Verdict:
    """What firing one canary gave."""

    canary: Canary
    passed: bool
    got: str | None
    message: str | None = None
    decided_by: str | None = None
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        c = self.canary
        return {
            "guard": c.guard,
            "source": c.source,
            "event": c.event,
            "where": c.where,
            "expect": c.expect,
            "got": self.got or "none",
            "passed": self.passed,
            "decided_by": self.decided_by,
            "message": self.message,
            "error": self.error,
        }


def canaries(hooks: Hooks) -> list[Canary]:
    """Every canary: hook sources' rows (shell hooks), then plugins' ``plugin.yaml``."""
    out: list[Canary] = []
    for source in hooks.sources():
        for row in source.rows():
            spec = row.get("canary")
            if isinstance(spec, Mapping):
                canary = _canary(row["name"], str(row.get("source")), row["event"], spec)
                status = row.get("status")
                if status not in (None, "active"):
                    idle = f"the guard does not run as itself: {status}: {row.get('error')}"
                    canary = dataclasses.replace(canary, idle=idle)
                out.append(canary)
    for record in hooks.records.values():
        specs = (record.manifest or {}).get("canary")
        for spec in specs if isinstance(specs, list) else [specs] if specs else []:
            where = f"canary in {record.path or record.name}"
            if not isinstance(spec, Mapping) or not spec.get("event"):
                out.append(Canary(record.name, record.source, "?", {}, "?", where))
                continue
            out.append(_canary(record.name, record.source, str(spec["event"]), spec, where))
    return out


def _canary(
    guard: str, source: str, event: str, spec: Mapping[str, Any], where: str = ""
) -> Canary:
    payload = spec.get("payload") or {}
    return Canary(
        guard,
        source,
        event,
        payload if isinstance(payload, Mapping) else {},
        str(spec.get("expect", "")),
        where or str(spec.get("where", "")),
    )


def decision_of(result: Any) -> tuple[str | None, str | None, str | None]:
    """The action of a combined result, its message and who decided."""
    if result is None or isinstance(result, (str, list, dict)):
        return None, None, None
    action = getattr(result, "action", None)
    if action is None:
        action = getattr(result, "decision", None)
    return (
        str(action) if action is not None else None,
        getattr(result, "message", None),
        getattr(result, "source", None),
    )


def fire(hooks: Hooks, canary: Canary) -> Verdict:
    """Fire one canary through the runtime's dispatcher and compare the decision."""
    info = hooks.manager.find_event(canary.event)
    if info is None:
        return Verdict(canary, False, None, error=f"unknown event {canary.event!r}")
    if canary.expect == "?":
        return Verdict(canary, False, None, error="a canary needs event:, payload: and expect:")
    try:
        kwargs, _ = to_kwargs(info, canary.payload)
    except PayloadError as exc:
        return Verdict(canary, False, None, error=str(exc))
    payload = {**info.example, **kwargs}
    try:
        result = hooks.call(info.name, **payload)
    except Exception as exc:
        return Verdict(canary, False, None, error=f"{type(exc).__name__}: {exc}")
    action, message, source = decision_of(result)
    want = canary.expect.strip().lower()
    passed = (action is None) if want in _NONE else (action or "").lower() == want
    return Verdict(canary, passed and not canary.idle, action, message, source, canary.idle)
