"""Approval events: a human is about to be asked, and what they answered."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hermes_hooks.answers import Observe, PermissionAnswers
from hermes_hooks.answers.results import PermissionAnswer
from hermes_hooks.contract import AgentEvent, ClaudeEvent, arg, const
from hermes_hooks.markers import event


@event(
    PermissionAnswers(),
    claude=(
        ClaudeEvent(
            "PermissionRequest",
            fields={"permission_suggestions": const([])},
            matcher="tool_name",
            tool=True,
        ),
    ),
    dialects={
        "codex": (
            AgentEvent(
                "PermissionRequest",
                fields={"turn_id": arg("turn_id")},
                matcher="tool_name",
                tool=True,
                answers="hookSpecificOutput.decision.behavior allow/deny, message",
            ),
        ),
    },
    example={
        "tool_name": "terminal",
        "args": {"command": "git push --force"},
        "command": "git push --force",
        "description": "force push",
        "pattern_key": "git_force_push",
        "session_key": "test-session",
        "surface": "cli",
    },
)
def permission_request(
    tool_name: str,
    args: dict[str, Any],
    command: str,
    description: str,
    pattern_key: str,
    session_key: str,
    surface: str,
    transcript_path: str | None,
) -> PermissionAnswer | Mapping[str, Any] | None:
    """Called when the host is about to ask a human to approve a tool call; may answer for them.

    :param tool_name: the tool awaiting approval. :param args: its arguments.
    :param command: the command line, for the terminal tool.
    :param description: why the host wants approval. :param pattern_key: the dangerous-pattern
        rule that matched. :param session_key: the session the approval is remembered in.
    :param surface: ``"cli"``, ``"gateway"`` or ``"smart"``.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return ``None`` to let the human decide, or a :class:`~hermes_hooks.PermissionAnswer`-shaped
    dict: ``{"action": "allow"|"deny", "scope": "once"|"session"|"always", "message": str}``;
    an allow may add ``"args"``: the arguments to run the call with instead (Claude Code's
    ``updatedInput``), which the host uses in place of the ones it asked about.
    Claude Code's ``{"hookSpecificOutput": {"decision": {"behavior": "allow"|"deny",
    "message": str}}}`` is accepted, and its top-level ``{"decision": "deny"|"block",
    "reason": str}`` as a deny (an allow must use one of the shapes above). Combining: a deny
    beats an allow whatever the call order (``priority``, ``tryfirst``): the firing stops at
    the first deny; an allow answers only when no hook denies.

    Example::

        @hookimpl
        def permission_request(tool_name, command):
            if tool_name == "terminal" and command.startswith("git status"):
                return {"action": "allow", "scope": "session"}
    """


_APPROVAL_EXAMPLE = {
    "command": "rm -rf build/",
    "description": "recursive delete",
    "pattern_key": "rm_recursive",
    "pattern_keys": ["rm_recursive"],
    "session_key": "test-session",
    "surface": "cli",
}


@event(
    Observe(),
    example=_APPROVAL_EXAMPLE,
)
def pre_approval_request(
    command: str,
    description: str,
    pattern_key: str,
    pattern_keys: list[str],
    session_key: str,
    surface: str,
    transcript_path: str | None,
) -> None:
    """Called when a dangerous command is about to be put to a human (or the smart approver).

    :param command: the command. :param description: why it is dangerous.
    :param pattern_key: the first matching rule. :param pattern_keys: every matching rule.
    :param session_key: the session. :param surface: ``"cli"``, ``"gateway"`` or ``"smart"``.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return values are ignored (use :func:`permission_request` to answer); every hook runs.

    Example::

        @hookimpl
        def pre_approval_request(command, surface):
            pager.notify(f"approval needed on {surface}: {command}")
    """


@event(
    Observe(),
    example={**_APPROVAL_EXAMPLE, "choice": "once", "decided_by": None},
)
def post_approval_response(
    command: str,
    description: str,
    pattern_key: str,
    pattern_keys: list[str],
    session_key: str,
    surface: str,
    choice: str,
    decided_by: str | None,
    transcript_path: str | None,
) -> None:
    """Called after the approval was answered.

    :param command: the command. :param description: why it was dangerous.
    :param pattern_key: the first matching rule. :param pattern_keys: every matching rule.
    :param session_key: the session. :param surface: ``"cli"``, ``"gateway"`` or ``"smart"``.
    :param choice: ``"once"``, ``"session"``, ``"always"``, ``"deny"``, ``"timeout"``,
        ``"smart_approve"`` or ``"smart_deny"``.
    :param decided_by: ``"aux_llm"`` when the smart approver decided.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return values are ignored; every hook runs.

    Example::

        @hookimpl
        def post_approval_response(command, choice):
            audit_log.write(f"{choice}: {command}\\n")
    """
