"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

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

from .payloads import PayloadError, to_kwargs

if TYPE_CHECKING:
    from .hooks import Hooks

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
