"""The Codex differential corpus: one ``hooks.json`` ``hooks`` block per case.

Each case is run by the real ``codex exec`` with one scripted ``exec_command`` call (its hooks see
it as ``Bash`` with ``tool_input.command``), and loaded unchanged by hermes-hooks
(``hooks_sources: [codex]``, from ``~/.codex/hooks.json`` of a HOME of its own). Markers
(``ORC-<kind>-<case>``) tell which hook text the model saw and where. One case per event and
answer form Codex documents; ``differs`` names a deliberate difference (``DIFFERENCES`` of
test_oracle_codex.py), ``xfail`` a missing feature.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claude_cases import REWRITTEN, Case, Hooks, say, script, specific
from gemini_cases import once, once_exit2


def on(event: str, answer_or_body: dict[str, Any] | str, matcher: str | None = None) -> Hooks:
    body = answer_or_body if isinstance(answer_or_body, str) else say(answer_or_body)

    def build(d: Path) -> dict[str, Any]:
        g: dict[str, Any] = {"hooks": [{"type": "command", "command": script(d, "hook.sh", body)}]}
        if matcher is not None:
            g["matcher"] = matcher
        return {event: [g]}

    return build


def pre(answer_or_body: dict[str, Any] | str, matcher: str = "Bash") -> Hooks:
    return on("PreToolUse", answer_or_body, matcher)


def _rewrite(d: Path) -> dict[str, Any]:
    answer = specific("PreToolUse", updatedInput={"command": REWRITTEN.format(d=d)})
    return on("PreToolUse", answer, "Bash")(d)


DENY = specific("PreToolUse", permissionDecision="deny", permissionDecisionReason="ORC-M-deny")

CASES: list[Case] = [
    # ---------------------------------------------------------------- PreToolUse
    Case("pre-exit2-blocks", pre("echo ORC-M-exit2 >&2; exit 2")),
    Case("pre-permission-deny", pre(DENY)),
    Case("pre-decision-block", pre({"decision": "block", "reason": "ORC-M-block"})),
    Case("pre-permission-allow-ignored",
         pre(specific("PreToolUse", permissionDecision="allow",
                      permissionDecisionReason="ORC-M-allow"))),  # fmt: skip
    Case("pre-decision-approve-ignored", pre({"decision": "approve", "reason": "ORC-M-approve"})),
    Case("pre-permission-ask",
         pre(specific("PreToolUse", permissionDecision="ask", permissionDecisionReason="ORC-M-ask")),
         differs="ask-asks"),  # fmt: skip
    Case("pre-updated-input-ignored", _rewrite),
    Case("pre-additional-context", pre(specific("PreToolUse", additionalContext="ORC-C-pre"))),
    Case("pre-continue-false", pre({"continue": False, "stopReason": "ORC-S-stop"}),
         differs="continue-false-blocks"),
    Case("pre-system-message", pre({"systemMessage": "ORC-W-sys"})),
    Case("pre-exit1-nonblocking", pre("echo ORC-M-exit1 >&2; exit 1")),
    Case("pre-plain-stdout", pre("echo ORC-C-plain_pre")),
    Case("pre-matcher-model-name", pre("echo ORC-M-execname >&2; exit 2", matcher="exec_command")),
    Case("pre-matcher-miss", pre("echo ORC-M-miss >&2; exit 2", matcher="apply_patch")),
    # ---------------------------------------------------------------- PostToolUse
    Case("post-decision-block", on("PostToolUse", {"decision": "block", "reason": "ORC-M-post"},
                                   "Bash")),  # fmt: skip
    Case("post-additional-context",
         on("PostToolUse", specific("PostToolUse", additionalContext="ORC-C-post"), "Bash"),
         differs="post-context-in-result"),  # fmt: skip
    Case("post-continue-false",
         on("PostToolUse", {"continue": False, "stopReason": "ORC-S-post"}, "Bash")),  # fmt: skip
    Case("post-exit2", on("PostToolUse", "echo ORC-M-post2 >&2; exit 2", "Bash")),
    # ---------------------------------------------------------------- UserPromptSubmit
    Case("prompt-decision-block", on("UserPromptSubmit", {"decision": "block", "reason": "ORC-M-ups"}),
         differs="prompt-block-reason-shown"),
    Case("prompt-exit2", on("UserPromptSubmit", "echo ORC-M-ups2 >&2; exit 2"),
         differs="prompt-block-reason-shown"),
    Case("prompt-additional-context",
         on("UserPromptSubmit", specific("UserPromptSubmit", additionalContext="ORC-C-ups"))),  # fmt: skip
    Case("prompt-plain-stdout-context", on("UserPromptSubmit", "echo ORC-C-ups_plain")),
    Case("prompt-continue-false",
         on("UserPromptSubmit", {"continue": False, "stopReason": "ORC-S-ups"}),
         differs="prompt-block-reason-shown"),  # fmt: skip
    # ---------------------------------------------------------------- SessionStart / Stop
    Case("session-start-context",
         on("SessionStart", specific("SessionStart", additionalContext="ORC-C-ss"), "startup")),  # fmt: skip
    Case("session-start-plain-stdout", on("SessionStart", "echo ORC-C-ss_plain")),
    Case("session-start-matcher-miss", on("SessionStart", "echo ORC-C-resume", "resume")),
    Case("stop-exit2-continues-once", once_exit2("Stop", "ORC-M-stop2")),
    Case("stop-block-continues-once", once("Stop", {"decision": "block", "reason": "ORC-M-stop"})),
]  # fmt: skip
