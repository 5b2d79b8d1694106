"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Gemini CLI's hook dialect: ``hooks`` of ``settings.json``, timeouts in milliseconds,
``sequential`` groups, snake_case payloads with an ISO ``timestamp``, Gemini's tool names
(``run_shell_command``, ``read_file``, ``replace``, ...) and answers with ``decision``
(``allow``/``deny``/``block``), ``reason`` and ``hookSpecificOutput``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hermes_hooks.answers.base import text
from hermes_hooks.catalogue import EventInfo
from hermes_hooks.contract import AgentEvent, session_of

from .base import (
    CLAUDE_SHAPED_KEYS,
    Dialect,
    Note,
    Output,
    Speech,
    Translated,
    block_unknown,
    iso_now,
)

LABEL = "Gemini CLI"

TOOLS: dict[str, tuple[str, Mapping[str, str]]] = {
    "terminal": ("run_shell_command", {}),
    "read_file": ("read_file", {"path": "file_path"}),
    "write_file": ("write_file", {"path": "file_path"}),
    "patch": ("replace", {"path": "file_path"}),
    "search_files": ("search_file_content", {}),
    "web_search": ("google_web_search", {}),
    "web_extract": ("web_fetch", {}),
    "todo": ("write_todos", {}),
}

#: hookSpecificOutput keys Gemini CLI reads that have no counterpart in our answers.
_NOT_CARRIED = {
    "tool_output": "replacing the tool's output",
    "llm_request": "rewriting the model request",
    "llm_response": "a synthetic or rewritten model response",
    "toolConfig": "restricting the tools offered to the model",
    "clearContext": "clearing the conversation",
}


def common(kwargs: Mapping[str, Any], cwd: str, event: str) -> dict[str, Any]:
    return {
        "session_id": session_of(kwargs),
        "transcript_path": kwargs.get("transcript_path") or "",
        "cwd": cwd,
        "hook_event_name": event,
        "timestamp": iso_now(),
    }


def translate(
    info: EventInfo, chosen: AgentEvent | None, raw: dict[str, Any], tool: str | None
) -> Translated:
    """A Gemini CLI answer in Claude Code's shape, which our answer types read."""
    notes: list[str] = []
    out: dict[str, Any] = {}
    for key in ("continue", "stopReason", "systemMessage", "suppressOutput"):
        if key in raw:
            out[key] = raw[key]
    decision = raw.get("decision")
    if decision is not None:
        word = str(decision).strip().lower()
        if word in ("deny", "block"):
            out["decision"] = "block"
            reason = text(raw.get("reason"))
            if reason:
                out["reason"] = reason
        elif word == "ask":
            out.setdefault("hookSpecificOutput", {})["permissionDecision"] = "ask"
            if text(raw.get("reason")):
                out["hookSpecificOutput"]["permissionDecisionReason"] = raw["reason"]
        elif word not in ("allow", "approve"):
            return block_unknown(info, LABEL, "decision", decision)
    spec = raw.get("hookSpecificOutput")
    if isinstance(spec, Mapping):
        target = out.setdefault("hookSpecificOutput", {})
        if text(spec.get("additionalContext")):
            if chosen is None or "additionalContext" in chosen.answers:
                target["additionalContext"] = spec["additionalContext"]
            else:  # BeforeTool: Gemini CLI 0.61 gives it to nobody (tests/oracle)
                notes.append(f"{LABEL} ignores hookSpecificOutput.additionalContext on "
                             f"{chosen.name}; so do we")  # fmt: skip
        rewrite = spec.get("tool_input")
        if isinstance(rewrite, Mapping) and info.tool_event:
            target["updatedInput"] = DIALECT.args_back(tool, dict(rewrite))
        for key, what in _NOT_CARRIED.items():
            if key in spec:
                notes.append(f"{LABEL} hookSpecificOutput.{key} ({what}) is not carried over")
    if out.get("decision") == "block" and not info.can_block:
        notes.append(f"{LABEL} decision {decision!r} cannot block {info.name}; read as feedback")
    return out, notes


def output(returncode: int | None, stdout: bytes, stderr: bytes) -> Output:
    """Gemini CLI's rules for a hook's output (hookRunner.ts): the answer is stdout, or stderr
    when stdout is empty, read as JSON whatever the exit code (a JSON string is read again);
    other text is an allow on exit 0 or 1 and, on any other exit (2, 3, a missing program's
    127), a deny with the text as its reason. As the exit code, stdout and stderr our protocol
    reads: JSON as exit 0, a deny as exit 2 with its reason on stderr. Nothing printed keeps
    the exit code (an exit 2 that says nothing still blocks here: stricter than Gemini CLI)."""
    if returncode is None:
        return returncode, stdout, stderr
    text = stdout.strip() or stderr.strip()
    if not text:
        return returncode, stdout, stderr
    try:
        parsed = json.loads(text)
        if isinstance(parsed, str):
            parsed = json.loads(parsed)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        return 0, json.dumps(parsed).encode(), b""
    if returncode in (0, 1):
        return returncode, stdout, stderr
    return 2, b"", text


def env(cwd: str) -> dict[str, str]:
    return {"GEMINI_PROJECT_DIR": cwd, "CLAUDE_PROJECT_DIR": cwd}


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
        out["decision"] = word
        if message:
            out["reason"] = message
    if args is not None:
        out["hookSpecificOutput"] = {"tool_input": args}
    if context:
        note(f"gemini {event} reads no additionalContext: context not delivered")
    return out


#: Our answers as Gemini CLI reads them: a block is its ``decision: deny``.
SPEECH = Speech(
    context=lambda event, text: {"hookSpecificOutput": {"additionalContext": text}},
    block=lambda chosen, event, reason: {"decision": "deny", "reason": reason},
    stop=lambda reason: {"decision": "deny", "reason": reason},
    tool=_tool,
)


DIALECT = Dialect(
    name="gemini",
    label=LABEL,
    tools=TOOLS,
    common=common,
    translate=translate,
    speech=SPEECH,
    timeout_unit=0.001,
    answer_keys=CLAUDE_SHAPED_KEYS,
    default_timeout=60.0,
    env=env,
    # Gemini CLI searches a tool matcher as a regular expression in the tool's name (``shell``
    # matches ``run_shell_command``); a session's source or a trigger must equal the matcher
    # (hookPlanner.ts; oracle cases matcher-*)
    list_names=None,
    exact_occurrence=True,
    output=output,
    # hookRunner.ts runs a command with ``bash -c`` (PowerShell on Windows), not ``sh``
    shell=("bash", "-c"),
)
