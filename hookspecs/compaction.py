"""Compaction events: the conversation is about to be, or was, summarised to free context."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hermes_hooks.answers import CompressAnswers, Observe
from hermes_hooks.answers.results import CompressAnswer
from hermes_hooks.contract import AgentEvent, ClaudeEvent, arg
from hermes_hooks.markers import event


@event(
    CompressAnswers(),
    claude=(
        ClaudeEvent(
            "PreCompact",
            fields={
                "trigger": arg("trigger", "auto"),
                "custom_instructions": arg("custom_instructions"),
            },
            matcher="trigger",
        ),
    ),
    docker=("pre_compact",),
    dialects={
        "gemini": (
            AgentEvent(
                "PreCompress", fields={"trigger": arg("trigger", "auto")}, matcher="trigger"
            ),
        ),
        "codex": (
            AgentEvent("PreCompact", fields={"trigger": arg("trigger", "auto")}, matcher="trigger"),
        ),
        "cursor": (AgentEvent("preCompact", fields={"trigger": arg("trigger", "auto")}),),
    },  # fmt: skip
    example={
        "session_id": "test-session",
        "trigger": "auto",
        "message_count": 120,
        "token_count": 180000,
        "custom_instructions": "",
    },
)
def pre_compress(
    session_id: str,
    trigger: str,
    message_count: int,
    token_count: int,
    custom_instructions: str,
    transcript_path: str | None,
) -> CompressAnswer | Mapping[str, Any] | str | None:
    """Called before the host compacts (summarises) the conversation to free context.

    :param session_id: the conversation.
    :param trigger: ``"auto"`` (the context is full) or ``"manual"`` (the user asked).
    :param message_count: messages about to be compacted. :param token_count: their size.
    :param custom_instructions: what the user asked the summary to keep, if anything.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return ``None`` to let the host summarise, ``{"action": "block", "message": str}`` to veto
    the compaction, ``{"summary": str}`` to supply the summary yourself, or ``{"context": str}`` to
    give the summariser extra guidance. Combining: stops at the first valid answer (pluggy
    ``firstresult``).

    Example::

        @hookimpl
        def pre_compress(trigger):
            return {"context": "Keep every file path and every failing test name."}
    """


@event(
    Observe(),
    claude=(
        ClaudeEvent(
            "PostCompact",
            fields={"trigger": arg("trigger", "auto"), "compact_summary": arg("summary")},
        ),
    ),
    docker=("post_compact",),
    dialects={
        "codex": (
            AgentEvent(
                "PostCompact", fields={"trigger": arg("trigger", "auto")}, matcher="trigger"
            ),
        ),
    },
    example={
        "session_id": "test-session",
        "trigger": "auto",
        "summary": "The user is fixing a flaky test.",
        "tokens_before": 180000,
        "tokens_after": 12000,
    },
)
def post_compress(
    session_id: str,
    trigger: str,
    summary: str,
    tokens_before: int,
    tokens_after: int,
    transcript_path: str | None,
) -> None:
    """Called after the conversation was compacted.

    :param session_id: the conversation. :param trigger: ``"auto"`` or ``"manual"``.
    :param summary: the summary that replaced the old messages.
    :param tokens_before: context size before. :param tokens_after: context size after.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return values are ignored; every hook runs.

    Example::

        @hookimpl
        def post_compress(tokens_before, tokens_after):
            print(f"compacted {tokens_before} -> {tokens_after} tokens")
    """
