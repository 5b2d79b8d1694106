"""Internal: part of the built-ins (docs/builtins.md), not an API.

Shell hooks written for another agent (Gemini CLI, Codex, Cursor, Copilot): the payload
that agent would send, the variables it sets, and how its answers read as ours. The dialects
themselves are :mod:`hermes_hooks.dialects`; this module joins them to one configured hook."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hermes_hooks import dialects
from hermes_hooks.catalogue import EventInfo, suggest
from hermes_hooks.contract import AgentEvent
from hermes_hooks.dialects.base import Translate

from .matching import ShellHook


def chosen(hook: ShellHook, info: EventInfo, kwargs: Mapping[str, Any]) -> AgentEvent | None:
    """The dialect event this firing is, for ``hook``: the one it was configured under."""
    if isinstance(hook.occurrence, AgentEvent):
        return hook.occurrence
    dialect = dialects.get(hook.protocol)
    return info.dialect_event(dialect.name, kwargs) if dialect else None


def payload(
    hook: ShellHook, info: EventInfo, kwargs: Mapping[str, Any], cwd: str
) -> dict[str, Any] | None:
    """What the hook's agent would send it, or ``None`` for Hermes and Claude Code hooks."""
    dialect = dialects.get(hook.protocol)
    if dialect is None:
        return None
    return dialect.payload(info, kwargs, cwd, chosen(hook, info, kwargs))


def payload_key(hook: ShellHook) -> str:
    """Hooks with the same key get the same payload at one firing."""
    occurrence = hook.occurrence.name if isinstance(hook.occurrence, AgentEvent) else ""
    return f"{hook.protocol}:{occurrence}"


def env(hook: ShellHook, cwd: str) -> dict[str, str]:
    """The variables the hook's agent sets for its hooks."""
    dialect = dialects.get(hook.protocol)
    return dialect.env(cwd) if dialect else {}


def output(
    hook: ShellHook, returncode: int | None, stdout: bytes, stderr: bytes
) -> tuple[int | None, bytes, bytes]:
    """A run's exit code, stdout and stderr as our protocol reads them, by the hook's agent's
    own rules for streams and exit codes (unchanged for Hermes and Claude Code hooks)."""
    dialect = dialects.get(hook.protocol)
    if dialect is None or dialect.output is None:
        return returncode, stdout, stderr
    return dialect.output(returncode, stdout, stderr)


def translate(hook: ShellHook, info: EventInfo, kwargs: Mapping[str, Any]) -> Translate | None:
    """How the hook's answers read as ours (``None``: ours or Claude Code's already)."""
    dialect = dialects.get(hook.protocol)
    if dialect is None:
        return None
    event = chosen(hook, info, kwargs)
    tool = kwargs.get("tool_name")

    def read(raw: dict[str, Any]) -> tuple[Any, list[str]]:
        unknown = sorted(set(map(str, raw)) - dialect.answer_keys)
        notes = [
            f"unknown {dialect.label} answer key {key!r} ignored"
            + (f" (did you mean {hint!r}?)" if (hint := suggest(key, dialect.answer_keys)) else "")
            for key in unknown
        ]
        if event is not None and not event.answers:
            if any(k not in ("systemMessage", "suppressOutput") for k in raw):
                return None, [f"{dialect.label} ignores the answer of {event.name}; so do we"]
            return None, notes
        if unknown and dialect.answer_keys:
            # reported as ignored, so ignored: a stray Hermes "action" decides nothing
            raw = {k: v for k, v in raw.items() if k in dialect.answer_keys}
        answer, more = dialect.translate(info, event, raw, tool if isinstance(tool, str) else None)
        return answer, notes + more

    return Translate(read, dialect.plain_text_context)


#: ``protocol:`` values naming a dialect (besides the dialects' own names).
PROTOCOL_NAMES = {
    **{name: name for name in dialects.DIALECTS},
    "gemini-cli": "gemini",
    "gemini_cli": "gemini",
    "github-copilot": "copilot",
}


def event_named(protocol: str, name: str, events: Mapping[str, EventInfo]) -> EventInfo | None:
    """Our event that the dialect event ``name`` of ``protocol`` stands for, if any."""
    found = dialects.lookup(protocol, name, events.values()) if dialects.get(protocol) else None
    return found[0] if found else None


def occurrence(protocol: str, name: str, info: EventInfo) -> tuple[AgentEvent | None, str | None]:
    """The dialect event a hook of ``protocol`` configured under ``name`` hears, and why it
    cannot be read (the dialect has no event for ours). Under our own name it hears the
    dialect's general event (one without an occurrence test), else the first declared."""
    dialect = dialects.get(protocol)
    if dialect is None:
        return None, None
    declared = info.dialect_events(dialect.name)
    named = next((e for e in declared if e.name == name), None)
    if named is not None:
        return named, None
    if not declared:
        return None, f"{dialect.label} has no event for {info.name}"
    return next((e for e in declared if e.when is None), declared[0]), None
