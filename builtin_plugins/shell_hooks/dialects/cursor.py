"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Cursor's hook dialect: ``.cursor/hooks.json`` (``{"version": 1, "hooks": {event: [{command,
matcher, timeout, failClosed}]}}``), camelCase events (``beforeShellExecution``,
``beforeReadFile``, ``afterFileEdit``, ``stop``, ...), payloads keyed by ``conversation_id`` and
``generation_id`` with ``workspace_roots``, and answers with ``permission``
(``allow``/``deny``/``ask``), ``user_message``/``agent_message`` (also camelCase), ``continue``
for prompts and ``followup_message`` for ``stop``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hermes_hooks.answers.base import text
from hermes_hooks.catalogue import EventInfo
from hermes_hooks.contract import AgentEvent, session_of

from .base import Dialect, Note, Speech, Translated, block_unknown, reads_answer

LABEL = "Cursor"

TOOLS: dict[str, tuple[str, Mapping[str, str]]] = {
    "terminal": ("Shell", {}),
    "read_file": ("Read", {"path": "file_path"}),
    "write_file": ("Write", {"path": "file_path"}),
    "patch": ("Write", {"path": "file_path"}),
    "search_files": ("Grep", {}),
    "delegate_task": ("Task", {}),
}

_PERMISSION = {"allow": "allow", "deny": "deny", "ask": "ask", "block": "deny"}


def common(kwargs: Mapping[str, Any], cwd: str, event: str) -> dict[str, Any]:
    return {
        "conversation_id": session_of(kwargs),
        "generation_id": kwargs.get("turn_id") or kwargs.get("api_request_id") or "",
        "model": kwargs.get("model") or "",
        "hook_event_name": event,
        "workspace_roots": [cwd],
        "transcript_path": kwargs.get("transcript_path"),
    }


def _message(raw: Mapping[str, Any], *keys: str) -> str | None:
    for key in keys:
        found = text(raw.get(key))
        if found:
            return found
    return None


def translate(
    info: EventInfo, chosen: AgentEvent | None, raw: dict[str, Any], tool: str | None
) -> Translated:
    """A Cursor answer in Claude Code's shape, which our answer types read."""
    notes: list[str] = []
    out: dict[str, Any] = {}
    agent = _message(raw, "agent_message", "agentMessage", "reason")
    user = _message(raw, "user_message", "userMessage")
    if user:
        out["systemMessage"] = user
    permission = raw.get("permission", raw.get("decision"))
    if permission is not None and info.can_block:
        word = _PERMISSION.get(str(permission).strip().lower())
        if word is None:
            return block_unknown(info, LABEL, "permission", permission)
        if info.tool_event:
            spec = out.setdefault("hookSpecificOutput", {})
            spec["permissionDecision"] = word
            if agent or user:
                spec["permissionDecisionReason"] = agent or user
        elif word == "deny":
            out["decision"], out["reason"] = "block", agent or user
    if raw.get("continue") is False and info.can_block:
        # Cursor stops the agent, whatever ``permission`` says beside it: a stop is a block
        # here, never an allow (``{"permission": "allow", "continue": false}``)
        spec = out.get("hookSpecificOutput")
        if isinstance(spec, dict) and spec.get("permissionDecision") in ("allow", "ask"):
            del spec["permissionDecision"]
            spec.pop("permissionDecisionReason", None)
        out["decision"] = "block"
        out["reason"] = user or agent or f"stopped by a {LABEL} hook (continue: false)"
    followup = text(raw.get("followup_message"))
    if followup and info.meta.continues:
        out["decision"], out["reason"] = "block", followup
    rewrite = raw.get("updated_input", raw.get("updatedInput"))
    if isinstance(rewrite, Mapping) and info.tool_event:
        out.setdefault("hookSpecificOutput", {})["updatedInput"] = DIALECT.args_back(tool, rewrite)
    context = text(raw.get("additional_context")) or text(raw.get("additionalContext"))
    if context:
        out.setdefault("hookSpecificOutput", {})["additionalContext"] = context
    if isinstance(raw.get("env"), Mapping):
        notes.append(f"{LABEL} sessionStart 'env' is not carried over to later hooks")
    return out, notes


def env(cwd: str) -> dict[str, str]:
    return {"CURSOR_PROJECT_DIR": cwd}


def _tool(
    chosen: AgentEvent | None,
    event: str,
    word: str | None,
    message: str | None,
    args: Mapping[str, Any] | None,
    context: str | None,
    note: Note,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if word:
        out["permission"] = word
        if message:
            out["agent_message"] = message
            out["user_message"] = message
    if args is not None:
        out["updated_input"] = args
    if context:
        if reads_answer(chosen, "context"):
            out["additional_context"] = context
        else:
            note(f"cursor {event} reads no context: context not delivered")
    return out


#: Our answers as Cursor reads them: snake_case keys, a block is ``continue: false``, a stop
#: hook's "keep working" its ``followup_message``.
SPEECH = Speech(
    context=lambda event, text: {"additional_context": text},
    block=lambda chosen, event, reason: {"continue": False, "user_message": reason},
    stop=lambda reason: {"followup_message": reason},
    tool=_tool,
)


DIALECT = Dialect(
    name="cursor",
    label=LABEL,
    tools=TOOLS,
    common=common,
    translate=translate,
    speech=SPEECH,
    env=env,
    answer_keys=frozenset(
        {
            "permission",
            "decision",
            "reason",
            "user_message",
            "userMessage",
            "agent_message",
            "agentMessage",
            "continue",
            "followup_message",
            "updated_input",
            "updatedInput",
            "additional_context",
            "additionalContext",
            "env",
        }
    ),  # fmt: skip
)
