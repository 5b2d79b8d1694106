"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Codex's hook dialect: Claude Code's shape (``hooks.json`` or ``[hooks]`` of ``config.toml``,
PascalCase events, ``matcher`` groups, ``hookSpecificOutput``), with Codex's own payload fields
(``model``, ``turn_id``) and its shell tool reported as ``Bash`` (the model calls it
``exec_command`` or ``shell``, but a matcher sees only ``Bash``, as in Codex 0.169: tests/oracle).

Codex reads ``PreToolUse`` answers strictly: only a deny (``permissionDecision: "deny"`` or
``decision: "block"``, with a reason) has an effect; ``allow``, ``approve`` and ``updatedInput``
are rejected as hook errors and the call runs. We read them the same way (no opinion, reported),
except ``ask``, which asks for approval instead of running the call (never more open than Codex).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from hermes_hooks.answers.base import text
from hermes_hooks.catalogue import EventInfo
from hermes_hooks.contract import AgentEvent, session_of

from ..protocol import CLAUDE_SPEECH
from .base import CLAUDE_SHAPED_KEYS, Dialect, Speech, Translated

LABEL = "Codex"

TOOLS: dict[str, tuple[str, Mapping[str, str]]] = {
    "terminal": ("Bash", {}),
    "patch": ("apply_patch", {}),
}


def common(kwargs: Mapping[str, Any], cwd: str, event: str) -> dict[str, Any]:
    return {
        "session_id": session_of(kwargs),
        "transcript_path": kwargs.get("transcript_path"),
        "cwd": cwd,
        "hook_event_name": event,
        "model": kwargs.get("model") or "",
        "permission_mode": kwargs.get("permission_mode") or "default",
    }


def translate(
    info: EventInfo, chosen: AgentEvent | None, raw: dict[str, Any], tool: str | None
) -> Translated:
    """A Codex answer: Claude Code's shape, read with Codex's rules for tool calls."""
    if info.tool_event and info.kind == "context" and raw.get("continue") is False:
        return _stop_after_tool(raw), []
    if not info.tool_event or not info.can_block:
        return raw, []
    notes: list[str] = []
    out = dict(raw)
    if str(out.get("decision") or "").strip().lower() == "approve":
        out.pop("decision")
        notes.append(f"{LABEL} rejects decision 'approve' on {chosen.name if chosen else info.name}"
                     " (the call runs as if the hook had no opinion)")  # fmt: skip
    spec = out.get("hookSpecificOutput")
    if isinstance(spec, Mapping):
        spec = dict(spec)
        word = str(spec.get("permissionDecision") or "").strip().lower()
        if word == "allow":
            spec.pop("permissionDecision")
            notes.append(f"{LABEL} rejects permissionDecision 'allow' (no opinion, as in Codex)")
        elif word == "ask":
            notes.append(f"{LABEL} rejects permissionDecision 'ask' and runs the call; "
                         "we ask for approval instead (never more open than Codex)")  # fmt: skip
        if "updatedInput" in spec:
            spec.pop("updatedInput")
            notes.append(f"{LABEL} does not rewrite tool input (updatedInput is not carried over)")
        out["hookSpecificOutput"] = spec
    return out, notes


def _stop_after_tool(raw: dict[str, Any]) -> dict[str, Any]:
    """PostToolUse ``continue: false``: Codex 0.169 gives the model ``stopReason`` with the
    call's output and goes on (tests/oracle case post-continue-false); so do we, as feedback."""
    out = {k: v for k, v in raw.items() if k not in ("continue", "stopReason")}
    reasons = [t for t in (text(out.get("reason")), text(raw.get("stopReason"))) if t]
    out["decision"] = "block"
    out["reason"] = "\n".join(reasons) or "stopped by a PostToolUse hook"
    return out


#: Our answers as Codex reads them: Claude Code's shape (its events that read no block say so in
#: their declaration), and no rewritten prompt.
SPEECH = Speech(
    context=CLAUDE_SPEECH.context,
    block=CLAUDE_SPEECH.block,
    stop=CLAUDE_SPEECH.stop,
    tool=CLAUDE_SPEECH.tool,
    permission=CLAUDE_SPEECH.permission,
)


DIALECT = Dialect(
    name="codex",
    label=LABEL,
    tools=TOOLS,
    common=common,
    translate=translate,
    speech=SPEECH,
    # Codex's own default (600 s) is above our cap (300 s): an entry without a timeout gets ours.
    plain_text_context=True,
    answer_keys=CLAUDE_SHAPED_KEYS,
    # Codex reads a matcher of ASCII letters, digits, ``_`` and ``|`` as exact names; any other
    # character (``.``, ``-``, a space) makes it a regular expression (codex-rs/hooks
    # events/common.rs; oracle cases matcher-*)
    list_names=re.compile(r"[A-Za-z0-9_|]+"),
    trims_matcher=False,
    # Codex 0.169 runs a hook's command with bash -c (not a login shell, no pipefail: oracle
    # case pre-bash-syntax and a probe of $0, login_shell and pipefail), not sh
    shell=("bash", "-c"),
)
