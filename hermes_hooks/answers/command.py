"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Gateway answers (``gateway_event``): Hermes' command decisions for ``command:<name>``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .base import AnswerType, Vocabulary, mapping, retag, text
from .results import CommandDecision

_RANK = {"deny": 3, "handled": 2, "rewrite": 1, None: 0}
_NEUTRAL = CommandDecision()


class CommandAnswers(AnswerType):
    """Accepted: ``{"decision": "deny"|"handled"|"rewrite", "message", "command_name",
    "raw_args"}`` (``action`` for ``decision`` and ``block`` for ``deny`` too); a
    :class:`~hermes_hooks.CommandDecision`. Combining: deny > handled > rewrite > nothing, the
    first of the winning rank in call order."""

    kind = "decide"
    result = CommandDecision
    neutral_value = _NEUTRAL
    summary = "CommandDecision (deny > handled > rewrite)"
    failure = (
        "the hook is skipped (fail open); with ``fail_closed``, a deny naming the failed hook."
    )
    vocabulary = Vocabulary(
        values={
            "decision": ("deny", "block", "handled", "rewrite"),
            "action": ("deny", "block", "handled", "rewrite"),
            "message": None,
            "reason": None,
            "command_name": None,
            "raw_args": None,
        },
        shape="{'decision': 'deny'|'handled'|'rewrite', 'message': str} (a rewrite names "
        "'command_name')",
        synonyms={"refuse": "deny", "reject": "deny", "handle": "handled", "done": "handled"},
    )

    def incomplete(self, raw: Any) -> str:
        m = mapping(raw) or {}
        if "rewrite" in (m.get("decision"), m.get("action")):
            return "a rewrite needs 'command_name': the command to run instead"
        return ""

    def normalise(self, raw: Any, source: str | None, default_block: str | None = None) -> Any:
        if isinstance(raw, CommandDecision):
            return retag(raw, source)
        m = mapping(raw)
        if m is None:
            return None
        decision = str(m.get("decision") or m.get("action") or "").strip().lower()
        message = text(m.get("message")) or text(m.get("reason"))
        if decision in ("deny", "block"):
            return CommandDecision("deny", message or default_block, source=source)
        if decision == "handled":
            return CommandDecision("handled", message, source=source)
        if decision == "rewrite":
            name = text(m.get("command_name"))
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

    def combine(self, answers: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        winner = _NEUTRAL
        for d in answers:
            if _RANK.get(d.decision, 0) > _RANK.get(winner.decision, 0):
                winner = d
        return winner

    def blocked(self, message: str, source: str | None) -> Any:
        return CommandDecision("deny", message or "denied", source=source)
