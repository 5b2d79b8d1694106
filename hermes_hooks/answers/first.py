"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Answers of the ``first`` events (pluggy ``firstresult``): the first valid answer wins."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .base import AnswerType, Vocabulary, context_of, mapping, retag, says_block, specific, text
from .results import (
    CompressAnswer,
    DispatchAnswer,
    PermissionAction,
    PermissionAnswer,
    Scope,
    VerifyAnswer,
)

_PERMISSIONS: dict[str, PermissionAction] = {
    "allow": "allow",
    "approve": "allow",
    "deny": "deny",
    "block": "deny",
}
_SCOPES: dict[str, Scope] = {"once": "once", "session": "session", "always": "always"}
_VERIFY_ACTIONS = ("continue", "block")
#: Top-level ``decision`` values read as a deny on ``permission_request``: the deny words of
#: :data:`_PERMISSIONS` (one table; a top-level allow is not honoured).
_DENIES = tuple(word for word, action in _PERMISSIONS.items() if action == "deny")


class PermissionAnswers(AnswerType):
    """``permission_request``: ``{"action": "allow"|"deny", "scope", "message", "args"}``, Claude
    Code ``hookSpecificOutput.decision.behavior`` (with ``updatedInput``), Claude Code's
    top-level ``{"decision": "deny"|"block", "reason"}`` (a deny only); a
    :class:`~hermes_hooks.PermissionAnswer`. A block (exit 2, ``fail_closed``) is a deny.

    Combining: a deny beats an allow whatever the order (``priority``, ``tryfirst``): the first
    deny in call order answers, else the first allow. An allow does not end the firing (the
    hooks after it are still asked, a guard among them may deny); a deny does."""

    kind = "first"
    result = PermissionAnswer
    summary = "PermissionAnswer (deny > allow, whatever the order)"
    failure = (
        "the hook is skipped and the others (or the human) answer; with ``fail_closed``, a deny "
        "naming the failed hook, which no allow outranks."
    )
    guards_actions = True
    vocabulary = Vocabulary(
        values={
            "action": tuple(_PERMISSIONS),
            "behavior": tuple(_PERMISSIONS),
            "decision": tuple(_DENIES),
            "hookSpecificOutput.decision.behavior": tuple(_PERMISSIONS),
            "scope": None,
            "message": None,
            "reason": None,
            "args": None,
            "hookSpecificOutput.decision.updatedInput": None,
            "hook_specific_output": None,
        },
        shape="{'action': 'allow'|'deny', 'scope': 'once'|'session'|'always', 'message': str} "
        "or Claude Code's hookSpecificOutput.decision.behavior",
        synonyms={"permit": "allow", "accept": "allow", "reject": "deny", "refuse": "deny"},
    )

    def normalise(self, raw: Any, source: str | None, default_block: str | None = None) -> Any:
        if isinstance(raw, PermissionAnswer):
            return retag(raw, source)
        m = mapping(raw)
        if m is None:
            return None
        decision = mapping(specific(m).get("decision")) or {}
        said = [m.get("action"), decision.get("behavior"), m.get("behavior")]
        if str(m.get("decision")).strip().lower() in _DENIES:
            # Claude Code's top-level vocabulary ({"decision": "deny"|"block", "reason"}) is
            # honoured for a deny; an allow must say so in the event's own shape.
            said.append("deny")
        read = [_PERMISSIONS.get(w.strip().lower()) for w in said if isinstance(w, str)]
        # several vocabularies in one answer: a deny in any of them wins (Claude Code does not
        # read a Hermes 'action', so a stray "action": "allow" must not lift its deny)
        action = "deny" if "deny" in read else next((a for a in read if a), None)
        if action is None:
            return None
        scope = _SCOPES.get(str(m.get("scope") or decision.get("scope") or "once"), "once")
        message = text(m.get("message")) or text(decision.get("message")) or text(m.get("reason"))
        updated = mapping(decision.get("updatedInput")) or mapping(m.get("args"))
        args = dict(updated) if updated is not None and action == "allow" else None
        return PermissionAnswer(action, scope, message, source, args)

    def blocked(self, message: str, source: str | None) -> Any:
        return PermissionAnswer(action="deny", message=message or None, source=source)

    def final(self, answer: Any) -> bool:
        return isinstance(answer, PermissionAnswer) and answer.action == "deny"

    def combine(self, answers: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        if not answers:
            return self.neutral(kwargs)
        return next((a for a in answers if self.final(a)), answers[0])


class VerifyAnswers(AnswerType):
    """``pre_verify``: ``{"action": "continue", "message"}`` or Claude Code's ``Stop``
    ``{"decision": "block", "reason"}``; a continue without a message is no opinion. A block
    (exit 2, ``fail_closed``) keeps the agent working with the message."""

    kind = "first"
    result = VerifyAnswer
    summary = "VerifyAnswer (first valid answer)"
    failure = (
        "the hook is skipped and the agent may stop; with ``fail_closed``, the agent keeps working "
        "with a message naming the failed hook."
    )
    vocabulary = Vocabulary(
        values={
            "action": _VERIFY_ACTIONS,
            "decision": _VERIFY_ACTIONS,
            "message": None,
            "reason": None,
        },
        shape="{'action': 'continue', 'message': what to do next} or Claude Code's "
        "{'decision': 'block', 'reason': str}",
        synonyms={"keep_going": "continue", "retry": "continue", "deny": "block"},
    )

    def incomplete(self, raw: Any) -> str:
        m = mapping(raw) or {}
        if m.get("action") or m.get("decision"):
            return "a continue needs a non-empty 'message' (or 'reason'): what the agent should do"
        return ""

    def normalise(self, raw: Any, source: str | None, default_block: str | None = None) -> Any:
        if isinstance(raw, VerifyAnswer):
            return retag(raw, source)
        m = mapping(raw)
        if m is None:
            return None
        action = str(m.get("action") or m.get("decision") or "").strip().lower()
        if action not in _VERIFY_ACTIONS:
            return None
        message = text(m.get("message")) or text(m.get("reason"))
        if message is None:
            return None
        return VerifyAnswer(action="continue", message=message, source=source)

    def blocked(self, message: str, source: str | None) -> Any:
        return VerifyAnswer(action="continue", message=message or "keep going", source=source)


class CompressAnswers(AnswerType):
    """``pre_compress``: a veto (``{"action": "block"}`` / ``{"decision": "block"}``), a
    ``summary``, or guidance (a string, ``context``, ``additionalContext``)."""

    kind = "first"
    result = CompressAnswer
    summary = "CompressAnswer (first valid answer)"
    failure = (
        "the hook is skipped; with ``fail_closed``, the compaction is vetoed with a message naming "
        "the failed hook."
    )
    vocabulary = Vocabulary(
        values={
            "action": ("block",),
            "decision": ("block",),
            "summary": None,
            "context": None,
            "message": None,
            "reason": None,
            "hookSpecificOutput": None,
            "hook_specific_output": None,
        },
        shape="{'action': 'block', 'message': str}, {'summary': str} or {'context': str}",
        synonyms={"deny": "block", "veto": "block", "skip": "block"},
    )

    def normalise(self, raw: Any, source: str | None, default_block: str | None = None) -> Any:
        if isinstance(raw, CompressAnswer):
            return retag(raw, source)
        if isinstance(raw, str):
            context = text(raw)
            return CompressAnswer(context=context, source=source) if context else None
        m = mapping(raw)
        if m is None:
            return None
        if m.get("action") == "block" or says_block(m):
            message = text(m.get("message")) or text(m.get("reason")) or "compaction vetoed"
            return CompressAnswer(action="block", message=message, source=source)
        summary, context = text(m.get("summary")), context_of(m, retry=False)
        if summary is None and context is None:
            return None
        return CompressAnswer(summary=summary, context=context, source=source)

    def blocked(self, message: str, source: str | None) -> Any:
        return CompressAnswer(action="block", message=message or "compaction vetoed", source=source)


class DispatchAnswers(AnswerType):
    """``pre_gateway_dispatch``: ``{"action": "skip", "reason"}``, ``{"action": "rewrite",
    "text"}``, ``{"action": "allow"}``; a :class:`~hermes_hooks.DispatchAnswer`. A block (exit 2,
    ``fail_closed``) skips the message."""

    kind = "first"
    result = DispatchAnswer
    summary = "DispatchAnswer (first valid answer)"
    failure = (
        "the hook is skipped and the message is dispatched; with ``fail_closed``, the message is "
        "skipped with a reason naming the failed hook."
    )
    vocabulary = Vocabulary(
        values={
            "action": ("skip", "rewrite", "allow"),
            "text": None,
            "reason": None,
            "message": None,
        },
        shape="{'action': 'skip', 'reason': str}, {'action': 'rewrite', 'text': str} or "
        "{'action': 'allow'}",
        synonyms={"drop": "skip", "ignore": "skip", "block": "skip", "deny": "skip"},
    )

    def incomplete(self, raw: Any) -> str:
        if (mapping(raw) or {}).get("action") == "rewrite":
            return "a rewrite needs 'text': the new message text (a string)"
        return ""

    def normalise(self, raw: Any, source: str | None, default_block: str | None = None) -> Any:
        if isinstance(raw, DispatchAnswer):
            return retag(raw, source)
        m = mapping(raw)
        if m is None:
            return None
        action = m.get("action")
        reason = text(m.get("reason")) or text(m.get("message"))
        if action == "skip":
            return DispatchAnswer(action="skip", reason=reason, source=source)
        if action == "rewrite" and isinstance(m.get("text"), str):
            return DispatchAnswer(action="rewrite", text=m["text"], reason=reason, source=source)
        if action == "allow":
            return DispatchAnswer(action="allow", source=source)
        return None

    def blocked(self, message: str, source: str | None) -> Any:
        return DispatchAnswer(action="skip", reason=message or None, source=source)
