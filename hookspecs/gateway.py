"""Gateway events: messages arriving from chat platforms, and the HOOK.yaml bridge."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any

from hermes_hooks.answers import CommandAnswers, DispatchAnswers
from hermes_hooks.answers.results import CommandDecision, DispatchAnswer
from hermes_hooks.markers import event

#: The event types ``hooks.emit`` carries (what Hermes Agent's gateway fires), with the context
#: keys each passes. ``command:*`` stands for every ``command:<name>``. HOOK.yaml validation and
#: the docs read them from here.
GATEWAY_EVENTS: dict[str, tuple[str, ...]] = {
    "gateway:startup": ("platforms",),
    "session:start": ("platform", "user_id", "session_id", "session_key"),
    "session:end": ("platform", "user_id", "session_key"),
    "session:reset": ("platform", "user_id", "session_key"),
    "session:compress": (
        "platform",
        "session_id",
        "old_session_id",
        "in_place",
        "compression_count",
    ),
    "agent:start": (
        "platform",
        "user_id",
        "chat_id",
        "thread_id",
        "chat_type",
        "session_id",
        "message",
    ),
    "agent:step": ("platform", "user_id", "session_id", "iteration", "tool_names", "tools"),
    "agent:end": (
        "platform",
        "user_id",
        "chat_id",
        "thread_id",
        "chat_type",
        "session_id",
        "message",
        "response",
    ),
    "command:*": ("platform", "user_id", "command", "raw_command", "args", "raw_args"),
}


@event(
    DispatchAnswers(),
    example={"event": {"text": "hello", "platform": "telegram", "user_id": "42"}},
)
def pre_gateway_dispatch(
    event: Any, gateway: Any, session_store: Any, transcript_path: str | None
) -> DispatchAnswer | Mapping[str, Any] | None:
    """Called once per incoming chat message, before authorisation and before the agent sees it.

    :param event: the host's message event (has ``text``, ``platform``, ``user_id``, ...).
    :param gateway: the host's gateway object. :param session_store: the host's session store.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return ``None`` or ``{"action": "allow"}`` for normal dispatch, ``{"action": "skip",
    "reason": str}`` to drop the message without a reply, or ``{"action": "rewrite", "text": str}``
    to replace the message text. Combining: stops at the first valid answer (pluggy
    ``firstresult``).

    Example::

        @hookimpl
        def pre_gateway_dispatch(event):
            if event.text.startswith("!ignore"):
                return {"action": "skip", "reason": "ignored by prefix"}
    """


@event(
    CommandAnswers(),
    subtypes=GATEWAY_EVENTS,
    example={
        "event_type": "command:reset",
        "context": {"platform": "telegram", "user_id": "42", "command": "reset", "args": ""},
    },
)
def gateway_event(
    event_type: str, context: dict[str, Any], transcript_path: str | None
) -> CommandDecision | Mapping[str, Any] | Awaitable[Any] | None:
    """Called by ``await hooks.emit(event_type, context)`` for every gateway lifecycle event.

    This is the bridge to ``HOOK.yaml`` + ``handler.py`` gateway hooks, and Python plugins may
    implement it too.

    :param event_type: ``"gateway:startup"``, ``"session:start"``, ``"agent:start"``,
        ``"command:<name>"``, ...
    :param context: the event's data (``platform``, ``user_id``, ``session_id``, ...).
    :param transcript_path: the host's transcript file, when it keeps one.

    Return ``None`` to only observe. For ``command:<name>`` events a
    :class:`~hermes_hooks.CommandDecision`-shaped dict acts on the command:
    ``{"decision": "deny", "message": str}`` refuses it, ``{"decision": "handled", "message": str}``
    answers it instead of the host, ``{"decision": "rewrite", "command_name": str,
    "raw_args": str}`` runs another command. A hook may return an awaitable.

    Combining: every hook runs (awaitables concurrently); **deny > handled > rewrite > allow**,
    the first in call order supplying the message.

    Example::

        @hookimpl
        def gateway_event(event_type, context):
            if event_type == "command:reset" and context.get("user_id") != "42":
                return {"decision": "deny", "message": "Only the owner may reset."}
    """
