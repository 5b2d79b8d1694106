"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Small readers shared by the answer types: the shapes every dialect uses for text and for
Claude Code's ``hookSpecificOutput`` / docker-agent's ``hook_specific_output``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .results import join_texts


def text(value: Any) -> str | None:
    """A non-empty, stripped string, or ``None``."""
    if isinstance(value, str):
        value = value.strip()
        return value or None
    return None


def mapping(value: Any) -> Mapping[str, Any] | None:
    if type(value) is dict:  # the common case, without the ABC check's cost
        return value
    return value if isinstance(value, Mapping) else None


_EMPTY: Mapping[str, Any] = {}


def specific(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    """Claude Code ``hookSpecificOutput`` or docker-agent ``hook_specific_output``, else ``{}``."""
    if "hookSpecificOutput" not in raw and "hook_specific_output" not in raw:
        return _EMPTY
    return (
        mapping(raw.get("hookSpecificOutput")) or mapping(raw.get("hook_specific_output")) or _EMPTY
    )


def first(values: Mapping[str, Any], *keys: str) -> Any:
    """The first of ``keys`` present with a non-``None`` value."""
    for key in keys:
        if key in values and values[key] is not None:
            return values[key]
    return None


def says_block(m: Mapping[str, Any]) -> bool:
    """Claude Code's ``"decision": "block"``, however it is cased or padded."""
    decision = m.get("decision")
    return isinstance(decision, str) and decision.strip().lower() == "block"


def stop_or_block(
    m: Mapping[str, Any], action: str | None, message: str | None, default_block: str | None
) -> tuple[str | None, str | None]:
    """The last two rules of a decision, shared by tool calls and prompts: Claude Code's
    ``"continue": false`` blocks (with ``stopReason``) when nothing else decided, and a block
    needs a message: ``default_block`` (a shell hook's exit 2) or else it is no block at all."""
    if m.get("continue") is False and action is None:
        action, message = "block", text(m.get("stopReason")) or text(m.get("reason"))
    if action == "block" and message is None:
        if default_block is None:
            return None, None
        message = default_block
    return action, message


#: What the model is told when a PermissionDenied hook answers ``retry: true``.
RETRY = "The denied tool call may be retried."


def context_of(raw: Any, *, reasons: bool = True, retry: bool = True) -> str | None:
    """The context text in a hook's answer: a string, ``{"context"}``, Claude Code's
    ``additionalContext``; with ``reasons``, a ``decision: block`` reason (PostToolUse feedback:
    off where a block decides instead); with ``retry``, :data:`RETRY` for Claude Code's
    ``hookSpecificOutput.retry: true`` (PermissionDenied: only where a denied call is reported)."""
    if isinstance(raw, str):
        return text(raw)
    m = mapping(raw)
    if m is None:
        return None
    spec = specific(m)
    texts = [text(m.get("context")), text(first(spec, "additionalContext", "additional_context"))]
    if reasons and says_block(m):
        texts.append(text(m.get("reason")))
    if retry and spec.get("retry") is True:  # Claude Code PermissionDenied: the model may try again
        texts.append(RETRY)
    return join_texts(dict.fromkeys(t for t in texts if t))


def retag(answer: Any, source: str | None) -> Any:
    """A typed answer with ``source`` filled in when it had none."""
    from dataclasses import replace

    if answer.source or not source:
        return answer
    return replace(answer, source=source)
