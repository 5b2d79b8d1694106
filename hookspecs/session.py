"""Session events: start and end of a conversation, sub-agents, compaction and notifications."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hermes_hooks.answers import Context, Observe
from hermes_hooks.contract import (
    AgentEvent,
    ClaudeEvent,
    arg,
    const,
    flag,
    optional,
    subagent_of,
)
from hermes_hooks.markers import event


@event(
    Context(),
    claude=(
        ClaudeEvent(
            "SessionStart",
            fields={"source": arg("source", "startup"), "model": optional("model")},
            matcher="source",
            env_file=True,
            http=False,
        ),
    ),
    docker=("session_start",),
    dialects={
        "gemini": (
            AgentEvent(
                "SessionStart",
                fields={"source": arg("source", "startup")},
                matcher="source",
                answers="hookSpecificOutput.additionalContext",
            ),
        ),
        "codex": (
            AgentEvent(
                "SessionStart",
                fields={"source": arg("source", "startup")},
                matcher="source",
                answers="additionalContext, plain stdout",
            ),
        ),
        "cursor": (
            AgentEvent(
                "sessionStart",
                fields={"session_id": arg("session_id"), "is_background_agent": const(False)},
                answers="additional_context",
            ),
        ),
        "copilot": (
            AgentEvent(
                "sessionStart",
                fields={
                    "source": arg("source", "new"),
                    "initialPrompt": optional("initial_prompt"),
                },
            ),
        ),
    },  # fmt: skip
    plain_text_context=True,
    example={
        "session_id": "test-session",
        "model": "gpt-4",
        "platform": "cli",
        "source": "startup",
    },
)
def on_session_start(
    session_id: str, model: str, platform: str, source: str, transcript_path: str | None
) -> str | Mapping[str, Any] | None:
    """Called when a new session starts, before the first user turn.

    :param session_id: the new conversation's id.
    :param model: the model the session uses.
    :param platform: where the user is (``"cli"``, ``"telegram"``, ...).
    :param source: why the session started (Claude Code's ``startup``, ``resume``, ``clear``,
        ``compact``), when the host knows.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return text the host may inject once into the session's context (a string or
    ``{"context": str}``), or ``None``. Combining: every hook runs; non-empty texts are joined with
    a blank line in call order.

    Example::

        @hookimpl
        def on_session_start():
            return "Project conventions: run `make check` before committing."
    """


@event(
    Observe(),
    claude=(ClaudeEvent("SessionEnd", fields={"reason": arg("reason", "other")}),),
    docker=("session_end",),
    dialects={
        "gemini": (
            AgentEvent("SessionEnd", fields={"reason": arg("reason", "exit")}, matcher="reason"),
        ),
        "cursor": (
            AgentEvent(
                "sessionEnd",
                fields={"session_id": arg("session_id"), "reason": arg("reason", "completed")},
            ),
        ),
        "copilot": (AgentEvent("sessionEnd", fields={"reason": arg("reason", "complete")}),),
    },  # fmt: skip
    example={
        "session_id": "test-session",
        "task_id": "test-task",
        "turn_id": "test-turn",
        "api_request_id": "test-request",
        "completed": True,
        "interrupted": False,
        "model": "gpt-4",
        "platform": "cli",
        "reason": "exit",
    },
)
def on_session_end(
    session_id: str,
    task_id: str,
    turn_id: str,
    api_request_id: str,
    completed: bool,
    interrupted: bool,
    model: str,
    platform: str,
    reason: str,
    transcript_path: str | None,
) -> None:
    """Called when an agent run of the session ends (the user left, or the run finished).

    :param session_id: the conversation. :param task_id: the task. :param turn_id: the last turn.
    :param api_request_id: the last API request.
    :param completed: true when the run finished normally.
    :param interrupted: true when the user interrupted it.
    :param model: the model. :param platform: where the user is.
    :param reason: why it ended (``"exit"``, ``"clear"``, ``"logout"``, ...).
    :param transcript_path: the host's transcript file, when it keeps one.

    Return values are ignored; every hook runs.

    Example::

        @hookimpl
        def on_session_end(session_id, completed):
            audit_log.write(f"{session_id} ended, completed={completed}\\n")
    """


_SWITCH_EXAMPLE = {
    "session_id": "test-session",
    "old_session_id": "test-session",
    "new_session_id": "test-session-2",
    "platform": "cli",
    "reason": "new",
}


@event(
    Observe(),
    example=_SWITCH_EXAMPLE,
)
def on_session_finalize(
    session_id: str,
    old_session_id: str,
    new_session_id: str,
    platform: str,
    reason: str,
    transcript_path: str | None,
) -> None:
    """Called once when a session is closed for good (flushed, archived), after its last run.

    :param session_id: the session being finalized. :param old_session_id: the same, when the
        finalize is part of a switch. :param new_session_id: the session that replaces it, if any.
    :param platform: where the user is. :param reason: why (``"new"``, ``"shutdown"``, ...).
    :param transcript_path: the host's transcript file, when it keeps one.

    Return values are ignored; every hook runs.

    Example::

        @hookimpl
        def on_session_finalize(session_id):
            uploader.flush(session_id)
    """


@event(
    Observe(),
    example=_SWITCH_EXAMPLE,
)
def on_session_reset(
    session_id: str,
    old_session_id: str,
    new_session_id: str,
    platform: str,
    reason: str,
    transcript_path: str | None,
) -> None:
    """Called when the user resets the conversation (``/new``, ``/reset``).

    :param session_id: the session now current. :param old_session_id: the session left behind.
    :param new_session_id: the fresh session. :param platform: where the user is.
    :param reason: what triggered the reset.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return values are ignored; every hook runs.

    Example::

        @hookimpl
        def on_session_reset(old_session_id, new_session_id):
            memory.carry_over(old_session_id, new_session_id)
    """


@event(
    Observe(),
    claude=(
        ClaudeEvent(
            "SubagentStart",
            fields={
                "agent_id": subagent_of,
                "agent_type": arg("child_role"),
            },
        ),
    ),
    dialects={
        "codex": (
            AgentEvent(
                "SubagentStart",
                fields={
                    "agent_id": subagent_of,
                    "agent_type": arg("child_role"),
                },
            ),
        ),
    },
    example={
        "parent_session_id": "parent-sess",
        "parent_turn_id": "parent-turn",
        "parent_subagent_id": None,
        "child_session_id": "child-sess",
        "child_subagent_id": "sub-1",
        "child_role": "researcher",
        "child_goal": "Find the failing test",
    },
)
def subagent_start(
    parent_session_id: str,
    parent_turn_id: str,
    parent_subagent_id: str | None,
    child_session_id: str,
    child_subagent_id: str,
    child_role: str | None,
    child_goal: str,
    transcript_path: str | None,
) -> None:
    """Called when the agent starts a sub-agent.

    :param parent_session_id: the delegating session. :param parent_turn_id: its turn.
    :param parent_subagent_id: the parent's own sub-agent id when it is itself a sub-agent.
    :param child_session_id: the sub-agent's session, the ``session_id`` its own calls carry.
    :param child_subagent_id: the host's own label for it (Hermes' ``sa-...``).
    :param child_role: its role, if any. :param child_goal: what it was asked to do.
    :param transcript_path: the host's transcript file, when it keeps one.

    A sub-agent is named by its session: Claude Code and Codex hooks get ``agent_id`` =
    ``child_session_id`` (``child_subagent_id`` only when the host gives no session), the same
    ``agent_id`` as on its ``SubagentStop``, and ``session_id`` = ``parent_session_id``. Trace
    receipts of this event carry ``session_id`` (the parent's) and ``agent_id``; every receipt
    of a call the sub-agent makes carries ``parent_session_id`` and ``agent_id`` too, so its
    start, calls and stop pair up.

    Return values are ignored; every hook runs.

    Example::

        @hookimpl
        def subagent_start(child_role, child_goal):
            print(f"sub-agent {child_role}: {child_goal}")
    """


@event(
    Observe(),
    claude=(
        ClaudeEvent(
            "SubagentStop",
            fields={
                "stop_hook_active": flag("stop_hook_active"),
                "agent_id": subagent_of,
                "agent_type": arg("child_role"),
            },
        ),
    ),
    dialects={
        "codex": (
            AgentEvent(
                "SubagentStop",
                fields={
                    "stop_hook_active": flag("stop_hook_active"),
                    "agent_id": subagent_of,
                    "agent_type": arg("child_role"),
                },
            ),
        ),
    },
    example={
        "parent_session_id": "parent-sess",
        "parent_turn_id": "parent-turn",
        "child_session_id": "child-sess",
        "child_role": None,
        "child_summary": "Synthetic summary for hooks test",
        "child_status": "completed",
        "duration_ms": 1234,
    },
)
def subagent_stop(
    parent_session_id: str,
    parent_turn_id: str,
    child_session_id: str,
    child_role: str | None,
    child_summary: str,
    child_status: str,
    duration_ms: int,
    transcript_path: str | None,
) -> None:
    """Called when a sub-agent finished (or failed, or was cancelled).

    :param parent_session_id: the delegating session. :param parent_turn_id: its turn.
    :param child_session_id: the sub-agent's session. :param child_role: its role, if any.
    :param child_summary: what it reported back. :param child_status: ``"completed"``,
        ``"failed"``, ``"cancelled"``, ... :param duration_ms: how long it ran.
    :param transcript_path: the host's transcript file, when it keeps one.

    Claude Code and Codex hooks get ``agent_id`` = ``child_session_id``, the ``agent_id`` its
    ``SubagentStart`` had, and ``session_id`` = ``parent_session_id``; trace receipts carry both.

    Return values are ignored; every hook runs.

    Example::

        @hookimpl
        def subagent_stop(child_status, duration_ms):
            metrics.timing("subagent", duration_ms, tags={"status": child_status})
    """


@event(
    Observe(),
    claude=(
        ClaudeEvent(
            "Notification",
            fields={"message": arg("message"), "notification_type": arg("notification_type")},
            matcher="notification_type",
        ),
    ),
    dialects={
        "gemini": (
            AgentEvent(
                "Notification",
                fields={
                    "notification_type": arg("notification_type"),
                    "message": arg("message"),
                    "details": const({}),
                },
                matcher="notification_type",
            ),
        ),
    },  # fmt: skip
    example={
        "level": "warning",
        "message": "Claude needs your permission to use Bash",
        "session_id": "test-session",
        "notification_type": "permission_prompt",
    },
)
def notification(
    level: str,
    message: str,
    session_id: str,
    notification_type: str,
    transcript_path: str | None,
) -> None:
    """Called when the host wants to tell the user something outside the conversation.

    :param level: ``"error"``, ``"warning"`` or ``"info"``.
    :param message: the text. :param session_id: the conversation, if any.
    :param notification_type: Claude Code's kind (``"permission_prompt"``, ``"idle_prompt"``, ...).
    :param transcript_path: the host's transcript file, when it keeps one.

    Return values are ignored; every hook runs.

    Example::

        @hookimpl
        def notification(level, message):
            if level == "error":
                desktop_notify(message)
    """
