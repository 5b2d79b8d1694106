"""Model events: the session's model is about to change, and has changed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hermes_hooks.answers import Context, VetoAnswers
from hermes_hooks.answers.results import PromptDecision
from hermes_hooks.contract import ClaudeEvent, arg, optional
from hermes_hooks.markers import event

#: The fields Claude Code's PreModelSwitch and PostModelSwitch payloads carry.
_SWITCH_FIELDS = {
    "from_model": arg("from_model"),
    "to_model": arg("to_model"),
    "requested_model": arg("requested_model", None),
    "source": arg("source", "command"),
    "context_tokens": optional("context_tokens"),
    "prompt_cache_warm": optional("prompt_cache_warm"),
    "cache_ttl": optional("cache_ttl"),
    "estimated_cache_write_usd": optional("estimated_cache_write_usd"),
    "pricing": optional("pricing"),
}
_EXAMPLE = {
    "session_id": "test-session",
    "from_model": "claude-sonnet-4-6",
    "to_model": "claude-opus-4-1",
    "requested_model": "opus",
    "source": "command",
    "context_tokens": 48000,
    "prompt_cache_warm": True,
    "platform": "cli",
}


@event(
    VetoAnswers(),
    required=("from_model", "to_model"),
    claude=(ClaudeEvent("PreModelSwitch", fields=_SWITCH_FIELDS),),
    example=_EXAMPLE,
)
def pre_model_switch(
    session_id: str,
    from_model: str,
    to_model: str,
    requested_model: str | None,
    source: str,
    context_tokens: int | None,
    prompt_cache_warm: bool | None,
    cache_ttl: str | None,
    estimated_cache_write_usd: float | None,
    pricing: str | None,
    platform: str,
    transcript_path: str | None,
) -> PromptDecision | Mapping[str, Any] | None:
    """Called when the user (or the host) asked for another model, before the switch happens.

    :param session_id: the conversation. :param from_model: the model in use.
    :param to_model: the model the session would switch to.
    :param requested_model: what was asked for (an alias such as ``"opus"``), when it differs.
    :param source: how the switch was asked for (``"command"``, ``"picker"``, ``"sdk"``, ...).
    :param context_tokens: the conversation's size in tokens, when the host knows it.
    :param prompt_cache_warm: whether the prompt cache would have been hit.
    :param cache_ttl: the cache's lifetime (``"5m"``, ``"1h"``).
    :param estimated_cache_write_usd: what re-sending the conversation to the new model costs.
    :param pricing: where that estimate's prices come from.
    :param platform: where the user is. :param transcript_path: the host's transcript file.

    Return ``None``, or ``{"action": "block", "message": "why"}`` (Claude Code's
    ``{"decision": "block", "reason"}`` or exit code 2) to keep the current model; the host shows
    ``message``. Context (a string, ``context``, ``additionalContext``) is joined for the host.

    Combining: every hook runs; a block wins, whatever the order (the first block's message and
    source); contexts are joined.

    Example::

        @hookimpl
        def pre_model_switch(to_model, context_tokens):
            if "opus" in to_model and (context_tokens or 0) > 150_000:
                return {"action": "block", "message": "too large a context to re-send to opus"}
    """


@event(
    Context(),
    claude=(ClaudeEvent("PostModelSwitch", fields=_SWITCH_FIELDS),),
    example={**_EXAMPLE, "source": "command"},
)
def post_model_switch(
    session_id: str,
    from_model: str,
    to_model: str,
    requested_model: str | None,
    source: str,
    context_tokens: int | None,
    prompt_cache_warm: bool | None,
    cache_ttl: str | None,
    estimated_cache_write_usd: float | None,
    pricing: str | None,
    platform: str,
    transcript_path: str | None,
) -> str | Mapping[str, Any] | None:
    """Called after the session's model changed.

    :param session_id: the conversation. :param from_model: the previous model.
    :param to_model: the model now in use. :param requested_model: what was asked for.
    :param source: how the switch came about (also ``"auto"`` and ``"resume"``).
    :param context_tokens: the conversation's size in tokens.
    :param prompt_cache_warm: whether the prompt cache was warm.
    :param cache_ttl: the cache's lifetime. :param estimated_cache_write_usd: the re-send cost.
    :param pricing: where the prices come from. :param platform: where the user is.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return context for the new model's first request (a string, ``{"context": str}``, Claude
    Code's ``additionalContext``), or ``None``. Combining: non-empty texts are joined with a
    blank line in call order.

    Example::

        @hookimpl
        def post_model_switch(from_model, to_model):
            return f"You were switched from {from_model} to {to_model}; re-read the plan."
    """
