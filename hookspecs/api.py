"""API request events: each request the agent sends to the model provider, and its outcome."""

from __future__ import annotations

from typing import Any

from hermes_hooks.answers import Observe
from hermes_hooks.contract import ClaudeEvent, arg, optional
from hermes_hooks.markers import event

_API_EXAMPLE = {
    "session_id": "test-session",
    "task_id": "test-task",
    "turn_id": "test-turn",
    "api_request_id": "test-request",
    "platform": "cli",
    "model": "claude-sonnet-4-6",
    "provider": "anthropic",
    "base_url": "https://api.anthropic.com",
    "api_mode": "anthropic_messages",
    "api_call_count": 1,
}


@event(
    Observe(),
    example={
        **_API_EXAMPLE,
        "message_count": 4,
        "tool_count": 12,
        "approx_input_tokens": 2048,
        "request_char_count": 8192,
        "max_tokens": 4096,
    },
)
def pre_api_request(
    session_id: str,
    task_id: str,
    turn_id: str,
    api_request_id: str,
    platform: str,
    model: str,
    provider: str,
    base_url: str,
    api_mode: str,
    api_call_count: int,
    message_count: int,
    tool_count: int,
    approx_input_tokens: int,
    request_char_count: int,
    max_tokens: int,
    started_at: float,
    request: dict[str, Any],
    request_messages: list[dict[str, Any]],
    conversation_history: list[dict[str, Any]],
    user_message: str,
    middleware_trace: list[dict[str, Any]],
    transcript_path: str | None,
) -> None:
    """Called before every HTTP request to the model provider (several per turn with tools).

    :param session_id: the conversation. :param task_id: the task. :param turn_id: the turn.
    :param api_request_id: this request's id.
    :param platform: where the user is. :param model: the model. :param provider: the provider.
    :param base_url: the provider's endpoint. :param api_mode: the wire API in use.
    :param api_call_count: the request's number within the turn.
    :param message_count: messages sent. :param tool_count: tools offered.
    :param approx_input_tokens: estimated prompt size. :param request_char_count: request size.
    :param max_tokens: the output budget. :param started_at: a ``time.time()`` stamp.
    :param request: the request body. :param request_messages: the messages in it.
    :param conversation_history: the session's messages. :param user_message: the turn's prompt.
    :param middleware_trace: what the host's middleware did.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return values are ignored; every hook runs.

    Example::

        @hookimpl
        def pre_api_request(model, approx_input_tokens):
            metrics.gauge("prompt_tokens", approx_input_tokens, tags={"model": model})
    """


@event(
    Observe(),
    example={
        **_API_EXAMPLE,
        "api_duration": 1.234,
        "finish_reason": "stop",
        "message_count": 4,
        "response_model": "claude-sonnet-4-6",
        "usage": {"input_tokens": 2048, "output_tokens": 512},
        "assistant_content_chars": 1200,
        "assistant_tool_call_count": 0,
    },
)
def post_api_request(
    session_id: str,
    task_id: str,
    turn_id: str,
    api_request_id: str,
    platform: str,
    model: str,
    provider: str,
    base_url: str,
    api_mode: str,
    api_call_count: int,
    api_duration: float,
    finish_reason: str,
    message_count: int,
    response_model: str,
    usage: dict[str, Any],
    assistant_content_chars: int,
    assistant_tool_call_count: int,
    assistant_message: dict[str, Any],
    response: Any,
    started_at: float,
    ended_at: float,
    transcript_path: str | None,
) -> None:
    """Called after every successful HTTP request to the model provider.

    :param session_id: the conversation. :param task_id: the task. :param turn_id: the turn.
    :param api_request_id: the request's id. :param platform: where the user is.
    :param model: the model asked. :param provider: the provider. :param base_url: the endpoint.
    :param api_mode: the wire API. :param api_call_count: the request's number within the turn.
    :param api_duration: seconds the request took. :param finish_reason: why the model stopped.
    :param message_count: messages sent. :param response_model: the model that answered.
    :param usage: token counts. :param assistant_content_chars: answer size.
    :param assistant_tool_call_count: tool calls in the answer.
    :param assistant_message: the answer message. :param response: the raw response object.
    :param started_at: start stamp. :param ended_at: end stamp.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return values are ignored; every hook runs.

    Example::

        @hookimpl
        def post_api_request(usage, model):
            costs.add(model, usage)
    """


@event(
    Observe(),
    claude=(
        ClaudeEvent(
            "StopFailure",
            fields={
                "error": arg("reason", "unknown"),
                "error_details": arg("error"),
                "last_assistant_message": optional("last_assistant_message"),
            },
            when=lambda kw: not kw.get("retryable"),
            matcher="reason",
        ),
    ),
    example={
        **_API_EXAMPLE,
        "api_duration": 30.0,
        "error": "ReadTimeout",
        "reason": "timeout",
        "status_code": None,
        "retryable": True,
        "retry_count": 1,
        "max_retries": 3,
    },
)
def api_request_error(
    session_id: str,
    task_id: str,
    turn_id: str,
    api_request_id: str,
    platform: str,
    model: str,
    provider: str,
    base_url: str,
    api_mode: str,
    api_call_count: int,
    api_duration: float,
    error: str,
    reason: str,
    status_code: int | None,
    retryable: bool,
    retry_count: int,
    max_retries: int,
    request: dict[str, Any],
    started_at: float,
    ended_at: float,
    transcript_path: str | None,
) -> None:
    """Called when an HTTP request to the model provider failed (before any retry).

    :param session_id: the conversation. :param task_id: the task. :param turn_id: the turn.
    :param api_request_id: the request's id. :param platform: where the user is.
    :param model: the model. :param provider: the provider. :param base_url: the endpoint.
    :param api_mode: the wire API. :param api_call_count: the request's number within the turn.
    :param api_duration: seconds until the failure. :param error: the error text.
    :param reason: a short classification (``"timeout"``, ``"rate_limit"``, ...).
    :param status_code: the HTTP status, when there was one. :param retryable: whether the host
        will retry. :param retry_count: retries so far. :param max_retries: the retry budget.
    :param request: the request body. :param started_at: start stamp. :param ended_at: end stamp.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return values are ignored; every hook runs. A failure the host does not retry ends the turn:
    that is Claude Code's ``StopFailure`` (its ``error`` is ``reason``, matched by matchers; its
    ``error_details`` is ``error``; ``last_assistant_message`` when the host passes it).

    Example::

        @hookimpl
        def api_request_error(provider, status_code):
            if status_code == 429:
                alerts.send(f"{provider} is rate limiting us")
    """
