"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

``pre_tool_call`` answers: every dialect as a :class:`~hermes_hooks.ToolDecision`, combined
block > approve > allow > no opinion."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from .base import (
    AnswerType,
    Vocabulary,
    context_of,
    first,
    mapping,
    retag,
    says_block,
    specific,
    stop_or_block,
    text,
)
from .results import ToolDecision, join_texts

_RANK = {"block": 3, "approve": 2, "allow": 1, None: 0}
_HERMES_ACTIONS = ("block", "approve", "allow", "modify")
_PERMISSION = {"deny": "block", "block": "block", "ask": "approve", "allow": "allow"}
_PERMISSION_VALUES = (*_PERMISSION, "defer")  # "defer": Claude Code's explicit no opinion
_NEUTRAL = ToolDecision()


# The shapes nearly every blocking hook answers with, read without the general walk below.
_HERMES_KEYS = frozenset({"action", "message", "rule_key"})
_LEGACY_KEYS = frozenset({"decision", "reason"})
_SPECIFIC_KEYS = frozenset({"hookEventName", "permissionDecision", "permissionDecisionReason"})


def _plain(raw: dict[str, Any], source: str | None) -> ToolDecision | None:
    """A block or approval in one of the plain shapes, or ``None`` to take the general path."""
    keys = raw.keys()
    if keys <= _HERMES_KEYS:
        action, message, rule_key = raw.get("action"), raw.get("message"), raw.get("rule_key")
    elif keys <= _LEGACY_KEYS:
        # Claude Code's legacy "approve" means allow: only "block" is read here.
        action, message, rule_key = raw.get("decision"), raw.get("reason"), None
        if action != "block":
            return None
    elif len(keys) == 1 and type(spec := raw.get("hookSpecificOutput")) is dict:
        if not spec.keys() <= _SPECIFIC_KEYS:
            return None
        action = _PERMISSION.get(spec.get("permissionDecision"))  # type: ignore[arg-type]  # any value
        message, rule_key = spec.get("permissionDecisionReason"), None
    else:
        return None
    if action not in ("block", "approve") or type(message) is not str:
        return None
    message = message.strip()
    if not message:
        return None
    if rule_key is not None:
        if type(rule_key) is not str:
            return None
        rule_key = rule_key.strip() or None
    rule_key = rule_key if action == "approve" else None
    return ToolDecision._checked(action, message, None, rule_key, None, source)


class ToolAnswers(AnswerType):
    """Accepted: Hermes ``{"action": "block"|"approve"|"allow"|"modify", "message", "args",
    "rule_key"}`` (``reason`` is the message when there is no ``message``); Claude Code ``{"decision": "block"|"approve", "reason"}`` (legacy ``approve``
    means allow), ``hookSpecificOutput.permissionDecision`` (``deny``/``ask``/``allow``) with
    ``permissionDecisionReason`` and ``updatedInput``, ``{"continue": false, "stopReason"}``;
    docker-agent ``hook_specific_output``; a :class:`~hermes_hooks.ToolDecision`.

    Combining: block > approve > allow > no opinion whatever the order; within a rank the first
    in call order supplies message, rule_key and source; rewritten args shallow-merge in call
    order and a block discards them; contexts are joined.

    Rewritten args are judged again: the event fires once more on the original args with the
    rewrites merged in, until a round rewrites nothing new; the last round's decision is the
    result, its ``args`` the whole rewritten argument dict (see ``Dispatcher.run``)."""

    kind = "decide"
    result = ToolDecision
    neutral_value = _NEUTRAL
    summary = "ToolDecision (block > approve > allow)"
    failure = (
        "the hook is skipped (fail open); with ``fail_closed``, the call is blocked with a message "
        "naming the failed hook."
    )
    guards_actions = True
    rejudges = "args"
    vocabulary = Vocabulary(
        values={
            "action": _HERMES_ACTIONS,
            "decision": ("block", "approve"),
            "hookSpecificOutput.permissionDecision": _PERMISSION_VALUES,
            "hook_specific_output.permission_decision": _PERMISSION_VALUES,
            "message": None,
            "args": None,
            "rule_key": None,
            "reason": None,
            "context": None,
            "stopReason": None,
        },
        shape="{'action': 'block', 'message': str} (or 'approve', 'allow', 'modify' with 'args'), "
        "Claude Code's {'decision': 'block', 'reason': str} or hookSpecificOutput."
        "permissionDecision",
        synonyms={
            "deny": "block",
            "reject": "block",
            "refuse": "block",
            "stop": "block",
            "ask": "approve",
            "confirm": "approve",
            "permit": "allow",
            "accept": "allow",
            "rewrite": "modify",
            "update": "modify",
        },  # fmt: skip
    )

    def normalise(self, raw: Any, source: str | None, default_block: str | None = None) -> Any:
        if type(raw) is dict:
            fast = _plain(raw, source)
            if fast is not None:
                return fast
        elif isinstance(raw, ToolDecision):
            return retag(raw, source)
        m = mapping(raw)
        if m is None:
            return None
        spec = specific(m)
        action: str | None = None
        message: str | None = None
        args: Any = None
        rule_key = None

        hermes_action = m.get("action")
        if isinstance(hermes_action, str) and hermes_action in _HERMES_ACTIONS:
            # 'reason' (Claude Code's word for it) is the message when there is no 'message'
            message = text(m.get("message")) or text(m.get("reason"))
            if hermes_action == "modify":
                args = m.get("args")
            else:
                action = hermes_action
                args = m.get("args")
            if action == "approve":
                rule_key = text(m.get("rule_key"))

        # Several vocabularies in one answer: the strictest decision wins. Claude Code and
        # Codex do not read a Hermes 'action', so a stray "action": "allow" beside their deny
        # must not turn the deny into an allow (issue 18 item 20).
        decision = first(spec, "permissionDecision", "permission_decision")
        if isinstance(decision, str):
            mapped = _PERMISSION.get(decision.strip().lower())
            if mapped and _RANK[mapped] > _RANK.get(action, 0):
                action = mapped
                message = text(
                    first(spec, "permissionDecisionReason", "permission_decision_reason")
                )
        updated = first(spec, "updatedInput", "updated_input")
        if updated is not None and args is None:
            args = updated

        legacy = m.get("decision")
        if isinstance(legacy, str) and _RANK.get(action, 0) < _RANK["block"]:
            legacy = legacy.strip().lower()
            if legacy == "block":
                action, message = "block", text(m.get("reason"))
            elif legacy == "approve" and action is None:  # Claude Code's: skips the prompt
                action, message = "allow", text(m.get("reason"))

        action, message = stop_or_block(m, action, message, default_block)
        if args is not None and not isinstance(args, Mapping):
            args = None
        context = None
        if "context" in m or spec:
            context = context_of(m, reasons=False, retry=False)  # a block reason is the message
        if action is None and args is None and context is None:
            return None
        return ToolDecision(
            action=action,  # type: ignore[arg-type]  # checked against _HERMES_ACTIONS/_PERMISSION
            message=message,
            args=dict(args) if args is not None else None,
            rule_key=rule_key,
            context=context,
            source=source,
        )

    def incomplete(self, raw: Any) -> str:
        m = mapping(raw) or {}
        spec = specific(m)
        action = m.get("action")
        blocks = (
            action == "block"
            or says_block(m)
            or _PERMISSION.get(
                str(first(spec, "permissionDecision", "permission_decision") or "").strip().lower()
            )
            == "block"
            or m.get("continue") is False
        )
        if blocks:
            return (
                "a block needs a non-empty string message ('message', or 'reason' / "
                "'permissionDecisionReason'): it is what the model sees as the tool result"
            )
        if action == "modify" and not isinstance(m.get("args"), Mapping):
            return "'modify' needs 'args': a dict of the arguments to change"
        return ""

    def combine(self, answers: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        if not answers:
            return _NEUTRAL
        if len(answers) == 1:
            only: ToolDecision = answers[0]
            action = only.action
            if (
                (only.args is None or action != "block")
                and (only.rule_key is None or action == "approve")
                and (action is not None or (only.message is None and only.source is None))
                and only.context != ""  # joined, an empty context is None
            ):
                return only  # already in its combined form
        winner: ToolDecision | None = None
        merged: dict[str, Any] | None = None
        for d in answers:
            if winner is None or _RANK[d.action] > _RANK[winner.action]:
                winner = d
            if d.args is not None:
                merged = {**(merged or {}), **d.args}
        assert winner is not None
        action = winner.action
        return ToolDecision(
            action=action,
            message=winner.message if action else None,
            args=None if action == "block" else merged,
            rule_key=winner.rule_key if action == "approve" else None,
            context=join_texts(d.context for d in answers),
            source=winner.source if action else None,
        )

    def rewrite_of(self, result: Any, kwargs: Mapping[str, Any]) -> Any:
        if not isinstance(result, ToolDecision) or result.args is None:
            return None
        if result.action == "block":
            return None
        current = kwargs.get("args")
        current = dict(current) if isinstance(current, Mapping) else {}
        rewritten = {**current, **result.args}
        return rewritten if rewritten != current else None

    def settled(self, result: Any, original: Any, final: Any, earlier: Sequence[Any] = ()) -> Any:
        if not isinstance(result, ToolDecision):
            return result
        context = _carried([d.context for d in earlier if isinstance(d, ToolDecision)], result)
        if result.action == "block":
            return replace(result, context=context)
        return replace(result, args=None if final == original else dict(final), context=context)

    def blocked(self, message: str, source: str | None) -> Any:
        return ToolDecision(action="block", message=message or "blocked", source=source)


def _carried(before: Sequence[str | None], last: ToolDecision) -> str | None:
    """The context of a re-judged call: what the earlier rounds said that the last one does not
    say again (a rewriter often explains its rewrite only in the round that made it), paragraph
    by paragraph as :func:`join_texts` joined them, then the last round's."""
    said = set(last.context.split("\n\n")) if last.context else set()
    carried = dict.fromkeys(
        p for text in before if text for p in text.split("\n\n") if p not in said
    )
    return join_texts([*carried, last.context])
