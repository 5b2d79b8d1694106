"""Model events: the user's prompt, each model call, the model's output, and the stop gate."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hermes_hooks import contract
from hermes_hooks.answers import Context, Observe, PromptAnswers, Transform, VerifyAnswers
from hermes_hooks.answers.results import PromptDecision, VerifyAnswer
from hermes_hooks.contract import AgentEvent, ClaudeEvent, arg, const, flag, optional
from hermes_hooks.markers import event


@event(
    Context(),
    docker=("before_llm_call",),
    dialects={"gemini": (AgentEvent("BeforeModel", fields={"llm_request": contract.llm_request}),)},
    plain_text_context=True,
    example={
        "session_id": "test-session",
        "task_id": "test-task",
        "turn_id": "test-turn",
        "user_message": "What is the weather?",
        "conversation_history": [],
        "is_first_turn": True,
        "model": "gpt-4",
        "platform": "cli",
        "sender_id": "user-1",
    },
)
def pre_llm_call(
    session_id: str,
    task_id: str,
    turn_id: str,
    user_message: str,
    conversation_history: list[dict[str, Any]],
    is_first_turn: bool,
    model: str,
    platform: str,
    sender_id: str,
    transcript_path: str | None,
) -> str | Mapping[str, Any] | None:
    """Called once per user turn, before the first model call of the turn.

    :param session_id: the conversation.
    :param task_id: the task (agent run).
    :param turn_id: this turn's id.
    :param user_message: the user's message for this turn.
    :param conversation_history: the messages so far (read only).
    :param is_first_turn: true on the first turn of the session.
    :param model: the model about to be called.
    :param platform: where the user is (``"cli"``, ``"telegram"``, ...).
    :param sender_id: the platform's id of the user, when known.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return text to add to this turn's context (the host adds it to the user message, never the
    system prompt, so the prompt cache survives): a string, ``{"context": str}``, or ``None``.
    Combining: every hook runs; non-empty texts are joined with a blank line in call order.

    Example::

        @hookimpl
        def pre_llm_call(is_first_turn):
            if is_first_turn:
                return "The user's timezone is Europe/Paris."
    """


@event(
    Observe(),
    docker=("after_llm_call",),
    dialects={
        "gemini": (
            AgentEvent(
                "AfterModel",
                fields={"llm_request": contract.llm_request, "llm_response": contract.llm_response},
            ),
        ),
        "cursor": (AgentEvent("afterAgentResponse", fields={"text": arg("assistant_response")}),),
    },  # fmt: skip
    example={
        "session_id": "test-session",
        "task_id": "test-task",
        "turn_id": "test-turn",
        "user_message": "What is the weather?",
        "assistant_response": "Sunny.",
        "conversation_history": [],
        "model": "gpt-4",
        "platform": "cli",
    },
)
def post_llm_call(
    session_id: str,
    task_id: str,
    turn_id: str,
    user_message: str,
    assistant_response: str,
    conversation_history: list[dict[str, Any]],
    model: str,
    platform: str,
    transcript_path: str | None,
) -> None:
    """Called once per user turn, after the model gave its final answer for the turn.

    :param session_id: the conversation.
    :param task_id: the task.
    :param turn_id: this turn's id.
    :param user_message: the user's message for this turn.
    :param assistant_response: the model's final answer.
    :param conversation_history: the messages of the session (read only).
    :param model: the model that answered.
    :param platform: where the user is.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return values are ignored; every hook runs.

    Example::

        @hookimpl
        def post_llm_call(session_id, assistant_response):
            audit_log.write(f"{session_id}: {len(assistant_response)} chars\\n")
    """


@event(
    Transform("response_text", accepts=lambda v: isinstance(v, str) and v != ""),
    example={
        "response_text": "The answer is 42.",
        "session_id": "test-session",
        "model": "gpt-4",
        "platform": "cli",
    },
)
def transform_llm_output(
    response_text: str, session_id: str, model: str, platform: str, transcript_path: str | None
) -> str | Mapping[str, Any] | None:
    """Called before the model's final answer is shown to the user; may rewrite it.

    :param response_text: the current answer text (after earlier hooks' rewrites).
    :param session_id: the conversation.
    :param model: the model that answered.
    :param platform: where the user is.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return a non-empty string to replace the text; ``None`` or an empty string leaves it unchanged.
    Combining: a pipeline, in call order.

    Example::

        @hookimpl
        def transform_llm_output(response_text):
            return response_text.replace("utilize", "use")
    """


@event(
    PromptAnswers(),
    required=("user_message",),
    claude=(ClaudeEvent("UserPromptSubmit", fields={"prompt": arg("user_message")}),),
    aliases=("on_user_input",),
    dialects={
        "gemini": (
            AgentEvent(
                "BeforeAgent",
                fields={"prompt": arg("user_message")},
                answers="decision deny + reason, additionalContext, continue",
            ),
        ),
        "codex": (
            AgentEvent(
                "UserPromptSubmit",
                fields={"turn_id": arg("turn_id"), "prompt": arg("user_message")},
                answers="decision block + reason, additionalContext",
            ),
        ),
        "cursor": (
            AgentEvent(
                "beforeSubmitPrompt",
                fields={"prompt": arg("user_message"), "attachments": const([])},
                answers="continue, user_message",
            ),
        ),
        "copilot": (AgentEvent("userPromptSubmitted", fields={"prompt": arg("user_message")}),),
    },  # fmt: skip
    plain_text_context=True,
    example={
        "user_message": "deploy to production",
        "session_id": "test-session",
        "task_id": "test-task",
        "platform": "cli",
        "sender_id": "user-1",
    },
)
def user_prompt_submit(
    user_message: str,
    session_id: str,
    task_id: str,
    platform: str,
    sender_id: str,
    transcript_path: str | None,
) -> PromptDecision | Mapping[str, Any] | str | None:
    """Called when the user submits a prompt, before the agent sees it.

    :param user_message: the prompt (after earlier hooks' rewrites).
    :param session_id: the conversation.
    :param task_id: the task.
    :param platform: where the user is.
    :param sender_id: the platform's id of the user, when known.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return ``None`` for no opinion, a string (context for the model), or a dict with any of:
    ``{"action": "block", "message": str}`` (the prompt is refused; Claude Code's
    ``{"decision": "block", "reason": str}`` too), ``{"text": str}`` (rewrite the prompt),
    ``{"context": str}`` (Claude Code ``hookSpecificOutput.additionalContext`` too).

    Combining: every hook runs, into one :class:`~hermes_hooks.PromptDecision`: a block wins and
    the first block's message is kept; rewrites apply in call order (each hook sees the prompt as
    rewritten so far); contexts are joined with a blank line.

    Example::

        @hookimpl
        def user_prompt_submit(user_message):
            if "password" in user_message.lower():
                return {"action": "block", "message": "Please do not paste passwords."}
    """


@event(
    Transform(
        "messages",
        accepts=lambda v: isinstance(v, list),
        withheld=lambda notice: [{"role": "user", "content": notice}],
    ),
    example={
        "messages": [{"role": "user", "content": "hi"}],
        "session_id": "test-session",
        "task_id": "test-task",
        "model": "gpt-4",
    },
)
def transform_messages(
    messages: list[dict[str, Any]],
    session_id: str,
    task_id: str,
    model: str,
    transcript_path: str | None,
) -> list[dict[str, Any]] | Mapping[str, Any] | None:
    """Called before every model call with the message list about to be sent; may rewrite it.

    :param messages: the current message list (after earlier hooks' rewrites). Return a new list
        rather than mutating it.
    :param session_id: the conversation.
    :param task_id: the task.
    :param model: the model about to be called.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return a list to replace the messages, or ``None`` to leave them unchanged (a non-list is
    ignored). Combining: a pipeline, in call order.

    Example::

        @hookimpl
        def transform_messages(messages):
            return [m for m in messages if m.get("role") != "debug"]
    """


@event(
    VerifyAnswers(),
    claude=(
        ClaudeEvent(
            "Stop",
            fields={
                "stop_hook_active": flag("stop_hook_active"),
                "last_assistant_message": optional("final_response"),
            },
        ),
    ),
    docker=("stop",),
    dialects={
        "gemini": (
            AgentEvent(
                "AfterAgent",
                fields={
                    "prompt": arg("user_message"),
                    "prompt_response": arg("final_response"),
                    "stop_hook_active": flag("stop_hook_active"),
                },
                answers="decision deny + reason (retry with the reason)",
            ),
        ),
        "codex": (
            AgentEvent(
                "Stop",
                fields={
                    "turn_id": arg("turn_id"),
                    "stop_hook_active": flag("stop_hook_active"),
                    "last_assistant_message": optional("final_response"),
                },
                answers="decision block + reason",
            ),
        ),
        "cursor": (
            AgentEvent(
                "stop",
                fields={"status": const("completed"), "loop_count": arg("attempt", 0)},
                answers="followup_message",
            ),
        ),
    },  # fmt: skip
    continues=True,
    example={
        "session_id": "test-session",
        "platform": "cli",
        "model": "gpt-4",
        "coding": True,
        "attempt": 0,
        "final_response": "All done - the change is applied.",
        "changed_paths": ["src/app.py"],
        "stop_hook_active": False,
    },
)
def pre_verify(
    session_id: str,
    platform: str,
    model: str,
    coding: bool,
    attempt: int,
    final_response: str,
    changed_paths: list[str],
    stop_hook_active: bool,
    transcript_path: str | None,
) -> VerifyAnswer | Mapping[str, Any] | None:
    """Called when the agent is about to stop and answer; may keep it working.

    :param session_id: the conversation.
    :param platform: where the user is.
    :param model: the model.
    :param coding: true when the agent edited code this turn.
    :param attempt: how many times a hook already kept the agent going this turn.
    :param final_response: the answer the agent is about to give.
    :param changed_paths: files the agent changed this turn.
    :param stop_hook_active: true when the agent is already continuing because of a stop hook
        (Claude Code's ``Stop`` field); check it to avoid endless loops.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return ``{"action": "continue", "message": "what to do next"}`` to keep the agent working
    (Claude Code's ``{"decision": "block", "reason": ...}`` means the same), or ``None`` to let it
    stop. A continue without a non-empty message is ignored.

    Combining: stops at the first valid answer (pluggy ``firstresult``).

    Example::

        @hookimpl
        def pre_verify(coding, attempt):
            if coding and attempt == 0:
                return {"action": "continue", "message": "Run the test suite before finishing."}
    """
