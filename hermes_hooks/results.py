"""Typed results, and the one place that turns any hook's raw answer into them.

Every dialect a hook may answer in (Hermes dicts, Claude Code JSON, docker-agent JSON, plain
strings, our own objects) is normalised here; the rest of the code only sees these types.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .catalogue import EventInfo

_BLOCK, _APPROVE, _ALLOW = "block", "approve", "allow"
_TOOL_RANK = {_BLOCK: 3, _APPROVE: 2, _ALLOW: 1, None: 0}


@dataclass(frozen=True)
class ToolDecision:
    """The combined answer of every ``pre_tool_call`` hook.

    ``action`` is ``"block"``, ``"approve"`` (ask a human), ``"allow"`` (skip the host's approval
    prompt) or ``None`` (no opinion). ``message`` says why (for a block: what the model sees as the
    tool result). ``args`` are the arguments after every rewrite, or ``None`` when nobody rewrote
    them. ``rule_key`` is the grain of an "always" approval. ``context`` is extra text for the
    model. ``source`` names the hook that decided.
    """

    action: str | None = None
    message: str | None = None
    args: dict[str, Any] | None = None
    rule_key: str | None = None
    context: str | None = None
    source: str | None = None

    @property
    def blocked(self) -> bool:
        return self.action == _BLOCK


@dataclass(frozen=True)
class PromptDecision:
    """The combined answer of every ``user_prompt_submit`` hook.

    ``action`` is ``"block"`` or ``None``; ``message`` is the block's reason; ``text`` is the prompt
    after every rewrite (``None`` when nobody rewrote it); ``context`` is the joined extra text.
    """

    action: str | None = None
    message: str | None = None
    text: str | None = None
    context: str | None = None
    source: str | None = None

    @property
    def blocked(self) -> bool:
        return self.action == _BLOCK


@dataclass(frozen=True)
class PermissionAnswer:
    """A ``permission_request`` hook's answer: ``action`` ``"allow"``/``"deny"``/``None``,
    ``scope`` ``"once"``/``"session"``/``"always"``, ``message``."""

    action: str | None = None
    scope: str = "once"
    message: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class VerifyAnswer:
    """A ``pre_verify`` hook's answer: ``action`` is ``"continue"`` and ``message`` what to do."""

    action: str | None = None
    message: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class CompressAnswer:
    """A ``pre_compress`` hook's answer: a veto (``action="block"``), a ``summary`` to use, or
    ``context`` guidance for the summariser."""

    action: str | None = None
    message: str | None = None
    summary: str | None = None
    context: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class DispatchAnswer:
    """A ``pre_gateway_dispatch`` hook's answer: ``action`` ``"skip"``/``"rewrite"``/``"allow"``."""

    action: str | None = None
    text: str | None = None
    reason: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class CommandDecision:
    """The combined answer for a gateway event (``command:<name>`` hooks may act on the command).

    ``decision`` is ``"deny"``, ``"handled"``, ``"rewrite"`` or ``None``; ``message`` is the reply;
    ``command_name``/``raw_args`` are the rewritten command.
    """

    decision: str | None = None
    message: str | None = None
    command_name: str | None = None
    raw_args: str | None = None
    source: str | None = None


_COMMAND_RANK = {"deny": 3, "handled": 2, "rewrite": 1, None: 0}


# --------------------------------------------------------------------------- helpers


def _text(value: Any) -> str | None:
    """A non-empty, stripped string, or ``None``."""
    if isinstance(value, str):
        value = value.strip()
        return value or None
    return None


def _mapping(value: Any) -> Mapping[str, Any] | None:
    return value if isinstance(value, Mapping) else None


def _specific(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    """Claude Code ``hookSpecificOutput`` or docker-agent ``hook_specific_output``, else ``{}``."""
    return (
        _mapping(raw.get("hookSpecificOutput")) or _mapping(raw.get("hook_specific_output")) or {}
    )


def _first(mapping: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        if key in mapping and mapping[key] is not None:
            return mapping[key]
    return None


def join_texts(texts: Iterable[str | None]) -> str | None:
    """Non-empty texts joined with a blank line, in order; ``None`` when there are none."""
    parts = [t for t in texts if t]
    return "\n\n".join(parts) if parts else None


def context_of(raw: Any) -> str | None:
    """The context text in a hook's answer: a string, ``{"context"}``, Claude Code's
    ``additionalContext`` or a ``decision: block`` reason (PostToolUse feedback)."""
    if isinstance(raw, str):
        return _text(raw)
    m = _mapping(raw)
    if m is None:
        return None
    spec = _specific(m)
    texts = [
        _text(m.get("context")),
        _text(_first(spec, "additionalContext", "additional_context")),
    ]
    if str(m.get("decision", "")).lower() == "block":
        texts.append(_text(m.get("reason")))
    return join_texts(dict.fromkeys(t for t in texts if t))


# --------------------------------------------------------------------------- tool decision


def tool_decision(
    raw: Any, source: str | None = None, *, default_block_message: str | None = None
) -> ToolDecision | None:
    """Normalise one ``pre_tool_call`` answer, any dialect, into a :class:`ToolDecision`.

    Returns ``None`` for an answer that says nothing valid. A block without a message is ignored
    unless ``default_block_message`` is given (shell hooks get one naming the hook).
    """
    if isinstance(raw, ToolDecision):
        return raw if raw.source or not source else replace(raw, source=source)
    m = _mapping(raw)
    if m is None:
        return None
    spec = _specific(m)
    action: str | None = None
    message: str | None = None
    args: Any = None
    rule_key = None

    hermes_action = m.get("action")
    if isinstance(hermes_action, str) and hermes_action in (_BLOCK, _APPROVE, _ALLOW, "modify"):
        message = _text(m.get("message"))
        if hermes_action == "modify":
            args = m.get("args")
        else:
            action = hermes_action
            if "args" in m:
                args = m.get("args")
        if action == _APPROVE:
            rule_key = _text(m.get("rule_key"))

    decision = _first(spec, "permissionDecision", "permission_decision")
    if isinstance(decision, str) and action is None:
        mapped = {"deny": _BLOCK, "block": _BLOCK, "ask": _APPROVE, "allow": _ALLOW}.get(
            decision.strip().lower()
        )
        if mapped:
            action = mapped
            message = _text(_first(spec, "permissionDecisionReason", "permission_decision_reason"))
    updated = _first(spec, "updatedInput", "updated_input")
    if updated is not None and args is None:
        args = updated

    legacy = m.get("decision")
    if isinstance(legacy, str) and action is None:
        legacy = legacy.strip().lower()
        if legacy == _BLOCK:
            action, message = _BLOCK, _text(m.get("reason"))
        elif legacy == "approve":  # Claude Code's legacy "approve" skips the prompt: an allow.
            action, message = _ALLOW, _text(m.get("reason"))

    if m.get("continue") is False and action is None:
        action, message = _BLOCK, _text(m.get("stopReason")) or _text(m.get("reason"))

    if action == _BLOCK and message is None:
        if default_block_message is None:
            action = None
        else:
            message = default_block_message
    if not isinstance(args, Mapping):
        args = None
    context = context_of({k: v for k, v in m.items() if k != "decision"})
    if action is None and args is None and context is None:
        return None
    return ToolDecision(
        action=action,
        message=message,
        args=dict(args) if args is not None else None,
        rule_key=rule_key,
        context=context,
        source=source,
    )


def combine_tool_decisions(decisions: Sequence[ToolDecision]) -> ToolDecision:
    """Block > approve > allow > no opinion, whatever the order; the first of the winning rank
    supplies message, rule_key and source; args shallow-merge in order unless blocked."""
    if not decisions:
        return ToolDecision()
    winner: ToolDecision | None = None
    merged: dict[str, Any] | None = None
    for d in decisions:
        if winner is None or _TOOL_RANK[d.action] > _TOOL_RANK[winner.action]:
            winner = d
        if d.args is not None:
            merged = {**(merged or {}), **d.args}
    assert winner is not None
    action = winner.action
    return ToolDecision(
        action=action,
        message=winner.message if action else None,
        args=None if action == _BLOCK else merged,
        rule_key=winner.rule_key if action == _APPROVE else None,
        context=join_texts(d.context for d in decisions),
        source=winner.source if action else None,
    )


# --------------------------------------------------------------------------- prompt decision


def prompt_decision(
    raw: Any, source: str | None = None, *, default_block_message: str | None = None
) -> PromptDecision | None:
    """Normalise one ``user_prompt_submit`` answer into a :class:`PromptDecision`."""
    if isinstance(raw, PromptDecision):
        return raw if raw.source or not source else replace(raw, source=source)
    if isinstance(raw, str):
        text = _text(raw)
        return PromptDecision(context=text, source=source) if text else None
    m = _mapping(raw)
    if m is None:
        return None
    action = message = None
    if m.get("action") == _BLOCK:
        action, message = _BLOCK, _text(m.get("message")) or _text(m.get("reason"))
    elif str(m.get("decision", "")).lower() == _BLOCK:
        action, message = _BLOCK, _text(m.get("reason")) or _text(m.get("message"))
    elif m.get("continue") is False:
        action, message = _BLOCK, _text(m.get("stopReason")) or _text(m.get("reason"))
    if action == _BLOCK and message is None:
        if default_block_message is None:
            action = None
        else:
            message = default_block_message
    spec = _specific(m)
    text = _first(m, "text", "user_message", "prompt")
    if not isinstance(text, str):
        text = _first(spec, "updatedPrompt", "updated_prompt")
    text = text if isinstance(text, str) else None
    context = join_texts(
        [_text(m.get("context")), _text(_first(spec, "additionalContext", "additional_context"))]
    )
    if action is None and text is None and context is None:
        return None
    return PromptDecision(action=action, message=message, text=text, context=context, source=source)


# --------------------------------------------------------------------------- first-result answers


def permission_answer(raw: Any, source: str | None = None) -> PermissionAnswer | None:
    """Normalise a ``permission_request`` answer (ours, or Claude Code's ``decision.behavior``)."""
    if isinstance(raw, PermissionAnswer):
        return raw if raw.source or not source else replace(raw, source=source)
    m = _mapping(raw)
    if m is None:
        return None
    decision = _mapping(_specific(m).get("decision")) or {}
    action = m.get("action") or decision.get("behavior") or m.get("behavior")
    action = {"allow": "allow", "approve": "allow", "deny": "deny", "block": "deny"}.get(
        str(action).strip().lower() if isinstance(action, str) else ""
    )
    if action is None:
        return None
    scope = m.get("scope") or decision.get("scope") or "once"
    if scope not in ("once", "session", "always"):
        scope = "once"
    message = _text(m.get("message")) or _text(decision.get("message")) or _text(m.get("reason"))
    return PermissionAnswer(action=action, scope=scope, message=message, source=source)


def verify_answer(raw: Any, source: str | None = None) -> VerifyAnswer | None:
    """Normalise a ``pre_verify`` answer: ``{"action": "continue", "message"}`` or Claude Code's
    ``{"decision": "block", "reason"}``; a continue without a message is ignored."""
    if isinstance(raw, VerifyAnswer):
        return raw if raw.source or not source else replace(raw, source=source)
    m = _mapping(raw)
    if m is None:
        return None
    action = str(m.get("action") or m.get("decision") or "").strip().lower()
    if action not in ("continue", "block"):
        return None
    message = _text(m.get("message")) or _text(m.get("reason"))
    if message is None:
        return None
    return VerifyAnswer(action="continue", message=message, source=source)


def compress_answer(raw: Any, source: str | None = None) -> CompressAnswer | None:
    """Normalise a ``pre_compress`` answer: a veto, a summary, or guidance."""
    if isinstance(raw, CompressAnswer):
        return raw if raw.source or not source else replace(raw, source=source)
    if isinstance(raw, str):
        text = _text(raw)
        return CompressAnswer(context=text, source=source) if text else None
    m = _mapping(raw)
    if m is None:
        return None
    if m.get("action") == _BLOCK or str(m.get("decision", "")).lower() == _BLOCK:
        message = _text(m.get("message")) or _text(m.get("reason")) or "compaction vetoed by a hook"
        return CompressAnswer(action=_BLOCK, message=message, source=source)
    summary, context = _text(m.get("summary")), context_of(m)
    if summary is None and context is None:
        return None
    return CompressAnswer(summary=summary, context=context, source=source)


def dispatch_answer(raw: Any, source: str | None = None) -> DispatchAnswer | None:
    """Normalise a ``pre_gateway_dispatch`` answer (``skip``/``rewrite``/``allow``)."""
    if isinstance(raw, DispatchAnswer):
        return raw if raw.source or not source else replace(raw, source=source)
    m = _mapping(raw)
    if m is None:
        return None
    action = m.get("action")
    if action == "skip":
        return DispatchAnswer(action="skip", reason=_text(m.get("reason")), source=source)
    if action == "rewrite" and isinstance(m.get("text"), str):
        return DispatchAnswer(action="rewrite", text=m["text"], source=source)
    if action == "allow":
        return DispatchAnswer(action="allow", source=source)
    return None


def command_decision(
    raw: Any, source: str | None = None, *, default_deny_message: str | None = None
) -> CommandDecision | None:
    """Normalise a gateway hook's answer into a :class:`CommandDecision` (Hermes' shapes)."""
    if isinstance(raw, CommandDecision):
        return raw if raw.source or not source else replace(raw, source=source)
    m = _mapping(raw)
    if m is None:
        return None
    decision = str(m.get("decision") or m.get("action") or "").strip().lower()
    message = _text(m.get("message")) or _text(m.get("reason"))
    if decision in ("deny", "block"):
        return CommandDecision("deny", message or default_deny_message, source=source)
    if decision == "handled":
        return CommandDecision("handled", message, source=source)
    if decision == "rewrite":
        name = _text(m.get("command_name"))
        if name is None:
            return None
        raw_args = m.get("raw_args")
        return CommandDecision(
            "rewrite",
            message,
            command_name=name.lstrip("/"),
            raw_args=str(raw_args).strip() if raw_args is not None else "",
            source=source,
        )
    return None


def combine_command_decisions(decisions: Sequence[CommandDecision]) -> CommandDecision:
    """deny > handled > rewrite > nothing; the first of the winning rank wins."""
    winner = CommandDecision()
    for d in decisions:
        if _COMMAND_RANK.get(d.decision, 0) > _COMMAND_RANK.get(winner.decision, 0):
            winner = d
    return winner


def transform_value(value_arg: str) -> Callable[[Any], bool]:
    """The type check for a transform event's replacement value."""
    if value_arg == "messages":
        return lambda v: isinstance(v, list)
    if value_arg == "response_text":
        return lambda v: isinstance(v, str) and v != ""
    return lambda v: isinstance(v, str)


def transform_answer(raw: Any, value_arg: str) -> Any:
    """A transform hook's replacement value from a dict answer, or ``None`` to leave it as is.

    Accepted: ``{<value_arg>: new}`` (``{"result": ...}``, ``{"output": ...}``, ...), Claude Code
    ``hookSpecificOutput.updatedToolOutput`` (or ``updatedMCPToolOutput``) and docker-agent
    ``hook_specific_output.updated_tool_response`` for tool output. A structured tool output is
    sent on as compact JSON text, since the host's result is a string.
    """
    m = _mapping(raw)
    if m is None:
        return raw if transform_value(value_arg)(raw) else None
    value = m.get(value_arg)
    if value is None and value_arg in ("result", "output"):
        value = _first(
            _specific(m), "updatedToolOutput", "updatedMCPToolOutput", "updated_tool_response"
        )
        if isinstance(value, (Mapping, list)):
            import json

            value = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    return value if value is not None and transform_value(value_arg)(value) else None


#: Normalisers of the ``first`` events, by event name.
FIRST_NORMALISERS: dict[str, Callable[[Any, str | None], Any]] = {
    "permission_request": permission_answer,
    "pre_verify": verify_answer,
    "pre_compress": compress_answer,
    "pre_gateway_dispatch": dispatch_answer,
}


# --------------------------------------------------------------------------- per event


def normalise(
    info: EventInfo, raw: Any, source: str | None, default_block: str | None = None
) -> Any:
    """One hook's raw answer, any dialect, as the typed answer of ``info``'s event, or ``None``.

    The one place that knows which normaliser serves which event: the dispatcher (Python hooks)
    and the shell adapter both call it. ``default_block`` is the message a block without one gets
    (shell hooks); without it such a block is ignored, as Hermes does. Observe events have no
    answer: ``None``.
    """
    name = info.name
    if name == "pre_tool_call":
        return tool_decision(raw, source, default_block_message=default_block)
    if name == "user_prompt_submit":
        return prompt_decision(raw, source, default_block_message=default_block)
    if name == "gateway_event":
        return command_decision(raw, source, default_deny_message=default_block)
    if info.kind == "context":
        return context_of(raw)
    if info.kind == "first":
        first = FIRST_NORMALISERS.get(name)
        return first(raw, source) if first else None
    if info.kind == "transform":
        assert info.value is not None
        return transform_answer(raw, info.value)
    return None


def blocked(info: EventInfo, message: str, source: str | None) -> Any:
    """The event's own form of "blocked, because ``message``" (a block, a deny, a continue, or
    feedback text), or ``None`` for an event that cannot block."""
    raw = {"action": "block", "message": message, "decision": "block", "reason": message}
    return normalise(info, raw, source, message)


def combine_prompt_decisions(decisions: Sequence[PromptDecision]) -> PromptDecision:
    """A block wins (the first block's message and source); the last rewrite is the text (each
    hook saw the earlier rewrites); contexts are joined in order."""
    if not decisions:
        return PromptDecision()
    block = next((d for d in decisions if d.action == _BLOCK), None)
    texts = [d.text for d in decisions if d.text is not None]
    return PromptDecision(
        action=_BLOCK if block else None,
        message=block.message if block else None,
        text=texts[-1] if texts else None,
        context=join_texts(d.context for d in decisions),
        source=block.source if block else (decisions[0].source if texts else None),
    )


def combine(info: EventInfo, answers: Sequence[Any]) -> Any:
    """Normalised answers of one event (in call order) combined with the event's rule; ``None``
    when there are none (the caller supplies the event's neutral value)."""
    if not answers:
        return None
    name, kind = info.name, info.kind
    if name == "pre_tool_call":
        return combine_tool_decisions(answers)
    if name == "user_prompt_submit":
        return combine_prompt_decisions(answers)
    if name == "gateway_event":
        return combine_command_decisions(answers)
    if kind == "context":
        return join_texts(a for a in answers if isinstance(a, str))
    if kind == "first":
        return answers[0]
    return None
