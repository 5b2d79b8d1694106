"""Tool events: before and after every tool call, and rewriting what a tool returned."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hermes_hooks import contract
from hermes_hooks.answers import Context, ToolAnswers, Transform
from hermes_hooks.answers.results import ToolDecision
from hermes_hooks.contract import (
    AgentEvent,
    ClaudeEvent,
    arg,
    args_from_claude,
    args_to_claude,
    claude_tool_name,
    const,
    either,
    flag,
    host_tool_name,
    optional,
    tool_response,
)
from hermes_hooks.markers import event


@event(
    ToolAnswers(),
    required=("tool_name", "args"),
    claude=(
        ClaudeEvent(
            "PreToolUse",
            fields={"tool_use_id": arg("tool_call_id")},
            matcher="tool_name",
            tool=True,
        ),
    ),
    docker=("pre_tool_use",),
    aliases=("before_tool_call",),
    dialects={
        "gemini": (
            AgentEvent(
                "BeforeTool",
                matcher="tool_name",
                tool=True,
                answers="decision, reason, hookSpecificOutput.tool_input",
            ),
        ),
        "codex": (
            AgentEvent(
                "PreToolUse",
                fields={"turn_id": arg("turn_id"), "tool_use_id": arg("tool_call_id")},
                matcher="tool_name",
                tool=True,
                answers="permissionDecision deny, decision block, reason, additionalContext",
            ),
        ),
        "cursor": (
            AgentEvent(
                "beforeShellExecution",
                fields={
                    "command": contract.arg_of("command"),
                    "cwd": contract.cwd,
                    "sandbox": const(False),
                },
                when=contract.tool_is("terminal"),
                matcher="command",
                matches_text=True,
                answers="permission, user_message, agent_message",
            ),
            AgentEvent(
                "beforeMCPExecution",
                fields={"tool_name": arg("tool_name"), "tool_input": contract.args_text},
                when=contract.mcp_tool,
                matcher="tool_name",
                answers="permission, user_message, agent_message",
            ),
            AgentEvent(
                "beforeReadFile",
                fields={
                    "file_path": contract.arg_of("path"),
                    "content": contract.file_content,
                    "attachments": const([]),
                },
                when=contract.tool_is("read_file"),
                answers="permission",
            ),
            AgentEvent(
                "preToolUse",
                fields={"tool_use_id": arg("tool_call_id"), "cwd": contract.cwd},
                matcher="tool_name",
                tool=True,
                answers="decision/permission, reason, updated_input",
            ),
        ),
        "copilot": (
            AgentEvent(
                "preToolUse", tool=True, answers="permissionDecision deny, permissionDecisionReason"
            ),
        ),
    },  # fmt: skip
    example={
        "tool_name": "terminal",
        "args": {"command": "echo hello"},
        "task_id": "test-task",
        "session_id": "test-session",
        "tool_call_id": "test-call",
        "turn_id": "test-turn",
        "api_request_id": "test-request",
        "middleware_trace": [],
    },
)
def pre_tool_call(
    tool_name: str,
    args: dict[str, Any],
    task_id: str,
    session_id: str,
    tool_call_id: str,
    turn_id: str,
    api_request_id: str,
    middleware_trace: list[dict[str, Any]],
    transcript_path: str | None,
) -> ToolDecision | Mapping[str, Any] | None:
    """Called before the host runs a tool, once per tool call.

    :param tool_name: the host's name of the tool (``"terminal"``, ``"write_file"``, ...).
    :param args: the arguments the model gave the tool. Do not mutate it; return a rewrite instead.
    :param task_id: the task (agent run) the call belongs to.
    :param session_id: the conversation the call belongs to.
    :param tool_call_id: the model's id of this call (Claude Code ``tool_use_id``).
    :param turn_id: the model turn that asked for the call.
    :param api_request_id: the API request whose answer contained the call.
    :param middleware_trace: what the host's middleware did to the call so far.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return ``None`` for no opinion, or one of:

    - ``{"action": "block", "message": "why"}``: the tool does not run and the model sees
      ``message`` as the tool result (``reason``, Claude Code's word, is read as the message
      when there is no ``message``). A block without a non-empty string message is ignored
      (Hermes does the same: the message is what the model reads).
    - ``{"action": "approve", "message": "why", "rule_key": "terminal:rm"}``: ask a human first;
      ``rule_key`` is the grain an "always" answer is remembered at.
    - ``{"action": "allow"}``: skip the host's own approval prompt for this call.
    - ``{"action": "modify", "args": {...}}``: rewrite the arguments (shallow-merged).
    - Claude Code's ``{"decision": "block", "reason": ...}`` and
      ``{"hookSpecificOutput": {"permissionDecision": "deny"|"ask"|"allow"|"defer", ...}}``,
      docker-agent's ``{"hook_specific_output": {...}}``, or a :class:`~hermes_hooks.ToolDecision`.

    Combining: every hook runs; the answers become one :class:`~hermes_hooks.ToolDecision` with
    **block > approve > allow > no opinion**, whatever the order the hooks ran in. Within a rank the
    first hook in call order supplies ``message`` and ``source``. Rewritten args are shallow-merged
    in call order and dropped when the call is blocked; ``context`` texts are joined.

    Example::

        @hookimpl
        def pre_tool_call(tool_name, args):
            if tool_name == "terminal" and "rm -rf /" in args.get("command", ""):
                return {"action": "block", "message": "refusing to delete the root filesystem"}
    """


@event(
    Context(feedback=True),
    required=("tool_name", "result"),
    claude=(
        ClaudeEvent(
            "PostToolUse",
            fields={
                "tool_use_id": arg("tool_call_id"),
                "tool_response": tool_response,
                "duration_ms": optional("duration_ms"),
            },  # fmt: skip
            when=lambda kw: kw.get("status") not in ("error", "blocked"),
            matcher="tool_name",
            tool=True,
        ),
        ClaudeEvent(
            "PostToolUseFailure",
            fields={
                "tool_use_id": arg("tool_call_id"),
                "error": either("error_message", "result"),
                "is_interrupt": flag("interrupted"),
                "duration_ms": optional("duration_ms"),
            },
            when=lambda kw: kw.get("status") == "error",
            matcher="tool_name",
            tool=True,
        ),
        ClaudeEvent(
            "PermissionDenied",
            fields={
                "tool_use_id": arg("tool_call_id"),
                "reason": either("error_message", "result"),
            },
            when=lambda kw: kw.get("status") == "blocked",
            matcher="tool_name",
            tool=True,
        ),
    ),
    docker=("post_tool_use",),
    aliases=("after_tool_call",),
    dialects={
        "gemini": (
            AgentEvent(
                "AfterTool",
                fields={"tool_response": contract.gemini_tool_response},
                matcher="tool_name",
                tool=True,
                answers="decision deny + reason, hookSpecificOutput.additionalContext",
            ),
        ),
        "codex": (
            AgentEvent(
                "PostToolUse",
                fields={
                    "turn_id": arg("turn_id"),
                    "tool_use_id": arg("tool_call_id"),
                    "tool_response": tool_response,
                },
                matcher="tool_name",
                tool=True,
                answers="decision block + reason, continue false + stopReason, additionalContext",
            ),
        ),
        "cursor": (
            AgentEvent(
                "afterShellExecution",
                fields={
                    "command": contract.arg_of("command"),
                    "output": contract.result_text,
                    "duration": contract.duration,
                },
                when=contract.tool_is("terminal"),
                matcher="command",
                matches_text=True,
            ),
            AgentEvent(
                "afterFileEdit",
                fields={"file_path": contract.arg_of("path"), "edits": contract.edits},
                when=contract.tool_is("write_file", "patch"),
            ),
            AgentEvent(
                "afterMCPExecution",
                fields={
                    "tool_name": arg("tool_name"),
                    "tool_input": contract.args_text,
                    "result_json": contract.result_text,
                    "duration": contract.duration,
                },
                when=contract.mcp_tool,
                matcher="tool_name",
            ),
            AgentEvent(
                "postToolUse",
                fields={
                    "tool_use_id": arg("tool_call_id"),
                    "tool_output": contract.result_text,
                    "cwd": contract.cwd,
                    "duration": contract.duration,
                },
                matcher="tool_name",
                tool=True,
                answers="additional_context",
            ),
        ),
        "copilot": (
            AgentEvent(
                "postToolUse", fields={"toolResult": contract.copilot_tool_result}, tool=True
            ),
        ),
    },  # fmt: skip
    hermes_returns_ignored=True,
    example={
        "tool_name": "terminal",
        "args": {"command": "echo hello"},
        "task_id": "test-task",
        "session_id": "test-session",
        "tool_call_id": "test-call",
        "turn_id": "test-turn",
        "api_request_id": "test-request",
        "result": '{"output": "hello"}',
        "duration_ms": 42,
        "status": "ok",
        "error_type": None,
        "error_message": None,
        "middleware_trace": [],
    },
)
def post_tool_call(
    tool_name: str,
    args: dict[str, Any],
    task_id: str,
    session_id: str,
    tool_call_id: str,
    turn_id: str,
    api_request_id: str,
    result: str,
    duration_ms: int,
    status: str,
    error_type: str | None,
    error_message: str | None,
    middleware_trace: list[dict[str, Any]],
    transcript_path: str | None,
) -> str | Mapping[str, Any] | None:
    """Called after a tool call finished, failed or was blocked.

    :param tool_name: the tool's name, as in :func:`pre_tool_call`.
    :param args: the arguments the tool ran with (after rewrites).
    :param task_id: the task the call belongs to.
    :param session_id: the conversation the call belongs to.
    :param tool_call_id: the model's id of this call.
    :param turn_id: the model turn that asked for the call.
    :param api_request_id: the API request whose answer contained the call.
    :param result: what the tool returned, as the string the model will see.
    :param duration_ms: how long the tool ran.
    :param status: ``"ok"``, ``"error"`` or ``"blocked"``.
    :param error_type: the exception class name when ``status`` is ``"error"``.
    :param error_message: the error text when ``status`` is ``"error"``.
    :param middleware_trace: what the host's middleware did to the call.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return ``None`` to only observe, or feedback for the model: a string, ``{"context": str}``,
    Claude Code's ``{"decision": "block", "reason": str}`` or
    ``{"hookSpecificOutput": {"additionalContext": str}}``; on a blocked call (Claude Code's
    ``PermissionDenied``), ``{"hookSpecificOutput": {"retry": true}}`` tells the model it may try
    the call again. The host appends the feedback to the
    tool result the model sees. Return values of Hermes-style ``register_hook`` callbacks are
    ignored, as Hermes ignores them.

    Combining: every hook runs; non-empty texts are joined with a blank line in call order.

    Example::

        @hookimpl
        def post_tool_call(tool_name, status, error_message):
            if status == "error":
                return f"{tool_name} failed: {error_message}. Check the arguments before retrying."
    """


@event(
    Transform("result", tool_output=True),
    aliases=("transform_tool_output",),
    example={
        "tool_name": "terminal",
        "args": {"command": "cat .env"},
        "result": '{"output": "API_KEY=sk-123"}',
        "task_id": "test-task",
        "session_id": "test-session",
        "tool_call_id": "test-call",
        "turn_id": "test-turn",
        "api_request_id": "test-request",
        "duration_ms": 12,
        "status": "ok",
        "error_type": None,
        "error_message": None,
    },
)
def transform_tool_result(
    tool_name: str,
    args: dict[str, Any],
    result: str,
    task_id: str,
    session_id: str,
    tool_call_id: str,
    turn_id: str,
    api_request_id: str,
    duration_ms: int,
    status: str,
    error_type: str | None,
    error_message: str | None,
    transcript_path: str | None,
) -> str | Mapping[str, Any] | None:
    """Called after a tool returned, before the model sees its result; may rewrite it.

    :param tool_name: the tool's name.
    :param args: the arguments the tool ran with.
    :param result: the current result string (after earlier hooks' rewrites).
    :param task_id: the task the call belongs to.
    :param session_id: the conversation the call belongs to.
    :param tool_call_id: the model's id of this call.
    :param turn_id: the model turn that asked for the call.
    :param api_request_id: the API request whose answer contained the call.
    :param duration_ms: how long the tool ran.
    :param status: ``"ok"``, ``"error"`` or ``"blocked"``.
    :param error_type: the exception class name on error.
    :param error_message: the error text on error.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return a string to replace the result, or ``None`` to leave it unchanged (a non-string is
    ignored). Combining: a pipeline; each hook gets the result as the previous hooks left it.

    Example::

        @hookimpl
        def transform_tool_result(result):
            return result.replace("sk-123", "[redacted]")
    """


@event(
    Transform("output", tool_output=True),
    example={
        "command": "ls -la",
        "output": "total 0\n",
        "returncode": 0,
        "task_id": "test-task",
        "env_type": "local",
    },
)
def transform_terminal_output(
    command: str,
    output: str,
    returncode: int,
    task_id: str,
    env_type: str,
    transcript_path: str | None,
) -> str | Mapping[str, Any] | None:
    """Called after the terminal tool ran a command, before its output is packaged for the model.

    :param command: the command line that ran.
    :param output: the current output text (after earlier hooks' rewrites).
    :param returncode: the command's exit status.
    :param task_id: the task the call belongs to.
    :param env_type: where the command ran (``"local"``, ``"docker"``, ``"ssh"``, ...).
    :param transcript_path: the host's transcript file, when it keeps one.

    Return a string to replace the output, or ``None`` to leave it unchanged.
    Combining: a pipeline, in call order.

    Example::

        @hookimpl
        def transform_terminal_output(output):
            return output[-20000:]  # keep the tail of very long outputs
    """


def _batch(kwargs: Mapping[str, Any]) -> Any:
    """The host's ``tool_calls`` as Claude Code's PostToolBatch ``tool_calls``."""
    calls = kwargs.get("tool_calls")
    out = []
    for call in calls if isinstance(calls, list) else []:
        if not isinstance(call, Mapping):
            continue
        name = call.get("tool_name")
        out.append(
            {
                "tool_name": claude_tool_name(name) if isinstance(name, str) else name,
                "tool_input": args_to_claude(name, call.get("args") or {}),
                "tool_use_id": call.get("tool_call_id") or "",
                "tool_response": call.get("result"),
            }
        )
    return out


def _batch_back(calls: Any) -> Any:
    """Claude Code's PostToolBatch ``tool_calls`` as the host's (a saved payload read back)."""
    out = []
    for call in calls if isinstance(calls, list) else []:
        if not isinstance(call, Mapping):
            continue
        name = host_tool_name(call.get("tool_name"))
        out.append(
            {
                "tool_name": name,
                "args": args_from_claude(name, call.get("tool_input") or {}),
                "tool_call_id": call.get("tool_use_id") or "",
                "result": call.get("tool_response"),
            }
        )
    return out


_batch.reads = "tool_calls"  # type: ignore[attr-defined]  # see hermes_hooks.contract.Field
_batch.back = _batch_back  # type: ignore[attr-defined]  # see hermes_hooks.contract.Field


@event(
    Context(feedback=True),
    required=("tool_calls",),
    claude=(ClaudeEvent("PostToolBatch", fields={"tool_calls": _batch}),),
    example={
        "tool_calls": [
            {
                "tool_name": "terminal",
                "args": {"command": "echo hello"},
                "tool_call_id": "test-call",
                "result": '{"output": "hello"}',
                "status": "ok",
            }
        ],
        "session_id": "test-session",
        "task_id": "test-task",
        "turn_id": "test-turn",
    },
)
def post_tool_batch(
    tool_calls: list[dict[str, Any]],
    session_id: str,
    task_id: str,
    turn_id: str,
    transcript_path: str | None,
) -> str | Mapping[str, Any] | None:
    """Called once every tool call the model asked for in one answer has finished (or was
    blocked), before the results go back to the model.

    :param tool_calls: one dict per call, in the model's order: ``tool_name``, ``args``,
        ``tool_call_id``, ``result`` (the string the model sees) and ``status``.
    :param session_id: the conversation. :param task_id: the task.
    :param turn_id: the model turn that asked for the calls.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return context for the model, sent with the tool results (a string, ``{"context": str}``,
    Claude Code's ``additionalContext`` or ``{"decision": "block", "reason"}``), or ``None``.
    Combining: non-empty texts are joined with a blank line in call order.

    Example::

        @hookimpl
        def post_tool_batch(tool_calls):
            failed = [c["tool_name"] for c in tool_calls if c.get("status") == "error"]
            if failed:
                return f"{len(failed)} tool call(s) failed: {', '.join(failed)}"
    """
