"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

GitHub Copilot's hook dialect (coding agent and CLI): ``.github/hooks/*.json``
(``{"version": 1, "hooks": {event: [{type, bash, powershell, cwd, env, timeoutSec}]}}``),
camelCase events (``preToolUse``, ``postToolUse``, ``userPromptSubmitted``, ``sessionStart``,
``sessionEnd``), payloads with a millisecond ``timestamp``, ``cwd``, ``toolName`` and
``toolArgs`` (a JSON string), Copilot's tool names (``bash``, ``view``, ``create``, ``edit``).

Copilot reads one answer: ``preToolUse``'s ``permissionDecision: "deny"`` with
``permissionDecisionReason``; the output of every other event is ignored. ``allow`` has no
effect (no opinion, reported); ``ask`` asks for approval here (never more open than Copilot).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hermes_hooks.answers.base import text
from hermes_hooks.catalogue import EventInfo
from hermes_hooks.contract import AgentEvent, millis

from .base import Dialect, Note, Speech, Translated, block_unknown

LABEL = "GitHub Copilot"

TOOLS: dict[str, tuple[str, Mapping[str, str]]] = {
    "terminal": ("bash", {}),
    "read_file": ("view", {}),
    "write_file": ("create", {"content": "file_text"}),
    "patch": ("edit", {"old_string": "old_str", "new_string": "new_str"}),
    "search_files": ("grep", {}),
    "web_extract": ("web_fetch", {}),
}


def common(kwargs: Mapping[str, Any], cwd: str, event: str) -> dict[str, Any]:
    return {"timestamp": millis(kwargs), "cwd": cwd}


def translate(
    info: EventInfo, chosen: AgentEvent | None, raw: dict[str, Any], tool: str | None
) -> Translated:
    """A Copilot answer: only a tool call's ``permissionDecision`` is read."""
    name = chosen.name if chosen else info.name
    if not (info.tool_event and info.can_block):
        if raw:
            return None, [f"{LABEL} ignores the output of {name}; so do we"]
        return None, []
    decision = raw.get("permissionDecision")
    if decision is None:
        return None, []
    word = str(decision).strip().lower()
    reason = text(raw.get("permissionDecisionReason"))
    if word in ("deny", "block"):
        return {"decision": "block", "reason": reason} if reason else {"decision": "block"}, []
    if word == "allow":
        return None, [f"{LABEL} ignores permissionDecision 'allow' (no opinion, as in Copilot)"]
    if word == "ask":
        answer = {"hookSpecificOutput": {"permissionDecision": "ask"}}
        if reason:
            answer["hookSpecificOutput"]["permissionDecisionReason"] = reason
        return answer, [f"{LABEL} ignores permissionDecision 'ask'; we ask for approval "
                        "instead (never more open than Copilot)"]  # fmt: skip
    return block_unknown(info, LABEL, "permissionDecision", decision)


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
    if word == "deny":  # the only tool answer Copilot reads
        out = {"permissionDecision": "deny", "permissionDecisionReason": message}
    if context:
        note(f"copilot {event} reads no context: context not delivered")
    return out


#: Our answers as Copilot reads them: a tool call's deny; no hook blocks a prompt.
SPEECH = Speech(
    context=lambda event, text: {"hookSpecificOutput": {"additionalContext": text}},
    block=lambda chosen, event, reason: None,
    stop=lambda reason: {"decision": "block", "reason": reason},
    tool=_tool,
)


DIALECT = Dialect(
    name="copilot",
    label=LABEL,
    tools=TOOLS,
    common=common,
    translate=translate,
    speech=SPEECH,
    tool_keys=("toolName", "toolArgs"),
    args_as_text=True,
    default_timeout=30.0,
    answer_keys=frozenset({"permissionDecision", "permissionDecisionReason"}),
)
