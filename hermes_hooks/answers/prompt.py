"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

``user_prompt_submit`` answers: a block, a rewritten prompt, and context."""

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
from .results import PromptDecision, join_texts

_NEUTRAL = PromptDecision()
#: The keys a rewritten prompt is read from.
_REWRITES = ("text", "user_message", "prompt")
_SPEC_REWRITES = ("updatedPrompt", "updated_prompt")
_VOCABULARY = Vocabulary(
    values={
        "action": ("block",),
        "decision": ("block",),
        "text": None,
        "user_message": None,
        "prompt": None,
        "context": None,
        "message": None,
        "reason": None,
        "hookSpecificOutput": None,
        "hook_specific_output": None,
        "stopReason": None,
    },
    shape="{'action': 'block', 'message': str}, {'text': new prompt}, {'context': str} or "
    "Claude Code's decision / hookSpecificOutput",
    synonyms={"deny": "block", "reject": "block", "stop": "block"},
)


class PromptAnswers(AnswerType):
    """Accepted: a string (context), ``{"action": "block", "message"}``, Claude Code's
    ``{"decision": "block", "reason"}`` and ``{"continue": false, "stopReason"}``, a rewritten
    prompt as ``text``/``user_message``/``prompt`` or ``hookSpecificOutput.updatedPrompt``,
    ``context`` / ``additionalContext``; a :class:`~hermes_hooks.PromptDecision`.

    Each hook sees the prompt as the hooks before it rewrote it. Combining: a block wins (the
    first block's message and source); the last rewrite is the text; contexts are joined; the
    source is the blocking hook, else the first hook that rewrote the prompt."""

    kind = "decide"
    result = PromptDecision
    neutral_value = _NEUTRAL
    summary = "PromptDecision (block wins; rewrites pipe; contexts join)"
    failure = (
        "the hook is skipped (fail open); with ``fail_closed``, the prompt is blocked with a "
        "message naming the failed hook."
    )
    pipes: str | None = "user_message"
    vocabulary = _VOCABULARY

    def normalise(self, raw: Any, source: str | None, default_block: str | None = None) -> Any:
        if isinstance(raw, PromptDecision):
            return retag(raw, source)
        if isinstance(raw, str):
            context = text(raw)
            return PromptDecision(context=context, source=source) if context else None
        m = mapping(raw)
        if m is None:
            return None
        action = message = None
        if m.get("action") == "block":
            action, message = "block", text(m.get("message")) or text(m.get("reason"))
        elif says_block(m):
            action, message = "block", text(m.get("reason")) or text(m.get("message"))
        action, message = stop_or_block(m, action, message, default_block)
        spec = specific(m)
        rewritten = first(m, *_REWRITES)
        if not isinstance(rewritten, str):
            rewritten = first(spec, *_SPEC_REWRITES)
        rewritten = rewritten if isinstance(rewritten, str) else None
        context = context_of(m, reasons=False, retry=False)  # a block reason is the message
        if action is None and rewritten is None and context is None:
            return None
        return PromptDecision(
            action=action,  # type: ignore[arg-type]  # "block" or None
            message=message,
            text=rewritten,
            context=context,
            source=source,
        )

    def incomplete(self, raw: Any) -> str:
        m = mapping(raw) or {}
        if m.get("action") == "block" or says_block(m) or m.get("continue") is False:
            return "a block needs a non-empty string 'message' (or 'reason'): the user sees it"
        return ""

    def piped(self, answer: Any) -> Any:
        return answer.text

    def combine(self, answers: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        if not answers:
            return _NEUTRAL
        block = next((d for d in answers if d.action == "block"), None)
        rewrites = [d for d in answers if d.text is not None]
        decider = block or (rewrites[0] if rewrites else None)
        return PromptDecision(
            action="block" if block else None,
            message=block.message if block else None,
            text=rewrites[-1].text if rewrites else None,
            context=join_texts(d.context for d in answers),
            source=decider.source if decider else None,
        )

    def blocked(self, message: str, source: str | None) -> Any:
        return PromptDecision(action="block", message=message or "blocked", source=source)


_REWRITES_NOTHING = (
    "this event rewrites nothing (a new text or prompt is not read): answer "
    "{'action': 'block', 'message': str} to veto, or context"
)


class VetoAnswers(PromptAnswers):
    """A veto and context, nothing rewritten (``pre_model_switch``): ``{"action": "block",
    "message"}``, Claude Code's ``{"decision": "block", "reason"}`` / ``{"continue": false}`` /
    exit 2, and context (a string, ``context``, ``additionalContext``), as a
    :class:`~hermes_hooks.PromptDecision` whose ``text`` is always ``None``. Combining: a block
    wins (the first block's message and source); contexts are joined."""

    summary = "PromptDecision (a block vetoes; contexts join; nothing is rewritten)"
    failure = (
        "the hook is skipped (fail open); with ``fail_closed``, the action is vetoed with a "
        "message naming the failed hook."
    )
    pipes = None
    vocabulary = Vocabulary(
        # The rewrite keys stay known: an answer made only of them is explained by incomplete().
        values=_VOCABULARY.values,
        shape="{'action': 'block', 'message': str}, {'context': str} or Claude Code's decision / "
        "hookSpecificOutput.additionalContext",
        synonyms=_VOCABULARY.synonyms,
    )

    def normalise(self, raw: Any, source: str | None, default_block: str | None = None) -> Any:
        answer = super().normalise(raw, source, default_block)
        if answer is None or answer.text is None:
            return answer
        answer = replace(answer, text=None)
        return answer if answer.action or answer.context else None

    def explain(self, raw: Any) -> str:
        if isinstance(raw, PromptDecision) and raw.text is not None:
            return _REWRITES_NOTHING
        return super().explain(raw)

    def incomplete(self, raw: Any) -> str:
        m = mapping(raw) or {}
        rewrite = first(m, *_REWRITES) or first(specific(m), *_SPEC_REWRITES)
        return super().incomplete(raw) or (_REWRITES_NOTHING if rewrite is not None else "")

    def piped(self, answer: Any) -> Any:
        return None
