"""The Claude Code differential corpus: one hook configuration per case.

Each case is a ``settings.json`` ``hooks`` block (built in the case's own directory) that the real
``claude -p`` runs with one scripted Bash call, and that hermes-hooks loads unchanged. Hook texts
carry markers (``ORC-<kind>-<case>``) so the comparison can tell which hook text the model saw and
where; ``markers`` adds literal texts for hooks we do not write (published scripts).

A case that needs a Claude Code feature hermes-hooks lacks is kept with ``xfail`` naming the
feature (a strict xfail: it fails loudly once the feature lands, so the mark is removed then). A
case where hermes-hooks deliberately differs names the difference (the table ``DIFFERENCES`` of
test_oracle_claude.py).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA_HOOKS = Path(__file__).resolve().parent.parent / "data" / "hooks"
#: The Bash call the fake model asks for: a side effect that proves the tool ran, and an output.
COMMAND = "touch {d}/ran; echo TOOL-OUTPUT"
REWRITTEN = "touch {d}/ran2; echo TOOL-OUTPUT-2"
FAILING = "touch {d}/ran; echo TOOL-OUTPUT; exit 3"

Hooks = Callable[[Path], dict[str, Any]]


@dataclass(frozen=True)
class Case:
    id: str
    hooks: Hooks
    command: str = COMMAND
    allowed: bool = True  # the host already allows Bash (claude --allowedTools Bash)
    markers: tuple[str, ...] = ()
    xfail: str | None = None
    differs: str | None = None


def script(d: Path, name: str, body: str) -> str:
    """A small hook script in the case directory; it reads its stdin first, like real hooks."""
    path = d / name
    path.write_text("#!/bin/sh\ncat > /dev/null\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


def say(answer: dict[str, Any]) -> str:
    """A shell line printing ``answer`` as JSON on stdout."""
    return "printf '%s\\n' " + shlex.quote(json.dumps(answer))


def group(command: str, matcher: str | None = "Bash", **entry: Any) -> list[dict[str, Any]]:
    hook = {"type": "command", "command": command, **entry}
    g: dict[str, Any] = {"hooks": [hook]}
    if matcher is not None:
        g["matcher"] = matcher
    return [g]


def specific(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}


def pre(answer_or_body: dict[str, Any] | str, **entry: Any) -> Hooks:
    body = answer_or_body if isinstance(answer_or_body, str) else say(answer_or_body)
    return lambda d: {"PreToolUse": group(script(d, "pre.sh", body), **entry)}


def on(event: str, answer_or_body: dict[str, Any] | str, matcher: str | None = None) -> Hooks:
    body = answer_or_body if isinstance(answer_or_body, str) else say(answer_or_body)
    return lambda d: {event: group(script(d, "hook.sh", body), matcher)}


def _two(first: dict[str, Any] | str, second: dict[str, Any] | str) -> Hooks:
    def build(d: Path) -> dict[str, Any]:
        a = first if isinstance(first, str) else say(first)
        b = second if isinstance(second, str) else say(second)
        return {"PreToolUse": group(script(d, "a.sh", a)) + group(script(d, "b.sh", b))}

    return build


def _stop_once(d: Path) -> dict[str, Any]:
    body = (
        'python3 -c "import json,sys; d=json.loads(sys.argv[1]); '
        "print('' if d['stop_hook_active'] else json.dumps({'decision': 'block', "
        "'reason': 'ORC-M-stop_once'}))\" \"$input\""
    )
    path = d / "stop.sh"
    path.write_text("#!/bin/sh\ninput=$(cat)\n" + body + "\n")
    path.chmod(0o755)
    return {"Stop": group(str(path), None)}


def _rewrite(with_allow: bool) -> Hooks:
    def build(d: Path) -> dict[str, Any]:
        fields: dict[str, Any] = {"updatedInput": {"command": REWRITTEN.format(d=d)}}
        if with_allow:
            fields["permissionDecision"] = "allow"
        return {"PreToolUse": group(script(d, "pre.sh", say(specific("PreToolUse", **fields))))}

    return build


def _big_context(d: Path) -> dict[str, Any]:
    body = (
        "python3 -c \"import json; print(json.dumps({'hookSpecificOutput': {'hookEventName': "
        "'PreToolUse', 'additionalContext': 'ORC-C-cap_head ' + 'x' * 12000 + ' ORC-C-cap_tail'}}))\""
    )
    return {"PreToolUse": group(script(d, "pre.sh", body))}


def _sensorium(d: Path) -> dict[str, Any]:
    from oracle_install import SENSORIUM, install_pypi

    binary = install_pypi(SENSORIUM).binary
    # the settings entry its installer writes (sensorium/install/claude_code.py)
    return {"PreToolUse": group(f"{binary} hook pretool", "Bash|Edit|Write|MultiEdit")}


DENY = specific("PreToolUse", permissionDecision="deny", permissionDecisionReason="ORC-M-deny")
ALLOW = specific("PreToolUse", permissionDecision="allow", permissionDecisionReason="ORC-M-allow")

CASES: list[Case] = [
    # ---------------------------------------------------------------- PreToolUse
    Case("pre-exit2-blocks", pre("echo ORC-M-exit2 >&2; exit 2")),
    Case("pre-deny", pre(DENY)),
    Case("pre-legacy-decision-block", pre({"decision": "block", "reason": "ORC-M-legacy"})),
    Case("pre-ask-headless", pre(specific("PreToolUse", permissionDecision="ask",
                                          permissionDecisionReason="ORC-M-ask"))),  # fmt: skip
    Case("pre-allow-skips-permission", pre(ALLOW), allowed=False),
    Case("pre-no-opinion-needs-permission", pre("exit 0"), allowed=False),
    Case("pre-updated-input-allow", _rewrite(with_allow=True), differs="updated-input-merged"),
    Case("pre-updated-input-alone", _rewrite(with_allow=False), differs="updated-input-merged"),
    Case("pre-additional-context", pre(specific("PreToolUse", additionalContext="ORC-C-pre"))),
    Case("pre-exit1-nonblocking", pre("echo ORC-M-exit1 >&2; exit 1")),
    Case("pre-system-message-suppress-output",
         pre({"systemMessage": "ORC-W-sys", "suppressOutput": True})),  # fmt: skip
    Case("pre-plain-stdout-ignored", pre("echo ORC-C-plain_pre")),
    Case("pre-invalid-json-ignored", pre("echo '{ORC-M-badjson'")),
    Case("pre-matcher-miss", pre("echo ORC-M-miss >&2; exit 2", matcher="Write|Edit")),
    Case("pre-matcher-regex", pre("echo ORC-M-regex >&2; exit 2", matcher="^(Ba|Zs)sh$")),
    Case("pre-allow-then-deny", _two(ALLOW, DENY)),
    Case("pre-deny-then-allow", _two(DENY, ALLOW), allowed=False),
    Case("pre-continue-false", pre({"continue": False, "stopReason": "ORC-S-stop"}),
         differs="continue-false-blocks"),  # fmt: skip
    # the second hook finishes last (Claude Code shows the block that finished last)
    Case("pre-two-blocks", _two("echo ORC-M-one >&2; exit 2",
                                "sleep 0.5; echo ORC-M-two >&2; exit 2"),
         differs="first-block-message"),  # fmt: skip
    Case("pre-exit2-json-on-stderr", lambda d: {"PreToolUse": group(str(DATA_HOOKS / "exit2_json.sh"))},
         markers=("json on stderr",)),  # fmt: skip
    Case("pre-published-sensorium", _sensorium, command="cd /nonexistent-oracle-dir && rm -rf ~/",
         markers=("Catastrophic filesystem wipe",)),  # fmt: skip
    Case("pre-defer-headless", pre(specific("PreToolUse", permissionDecision="defer",
                                            permissionDecisionReason="ORC-M-defer")),
         allowed=False, differs="defer-is-no-opinion"),
    # ---------------------------------------------------------------- PermissionRequest
    Case("permission-request-allow", on("PermissionRequest", specific(
        "PermissionRequest", decision={"behavior": "allow"}), "Bash"), allowed=False),  # fmt: skip
    Case("permission-request-deny", on("PermissionRequest", specific(
        "PermissionRequest", decision={"behavior": "deny", "message": "ORC-M-permdeny"}), "Bash"),
        allowed=False),  # fmt: skip
    Case("permission-request-updated-input", lambda d: {"PermissionRequest": group(script(
        d, "hook.sh", say(specific("PermissionRequest", decision={
            "behavior": "allow", "updatedInput": {"command": REWRITTEN.format(d=d)}}))))},
        allowed=False),
    # ---------------------------------------------------------------- PostToolUse(Failure)
    Case("post-decision-block", on("PostToolUse", {"decision": "block", "reason": "ORC-M-post"}, "Bash")),
    Case("post-additional-context", on("PostToolUse", specific(
        "PostToolUse", additionalContext="ORC-C-post"), "Bash")),  # fmt: skip
    Case("post-exit2", on("PostToolUse", "echo ORC-M-post2 >&2; exit 2", "Bash")),
    Case("post-failure-context", on("PostToolUseFailure", specific(
        "PostToolUseFailure", additionalContext="ORC-C-fail"), "Bash"), command=FAILING),  # fmt: skip
    Case("post-failure-exit2", on("PostToolUseFailure", "echo ORC-M-failx >&2; exit 2", "Bash"),
         command=FAILING),
    Case("post-continue-false-stops", on("PostToolUse", {"continue": False,
                                                         "stopReason": "ORC-S-post"}, "Bash"),
         xfail="`continue: false` after a tool ends the turn (issue 13 item 2)"),
    # ---------------------------------------------------------------- UserPromptSubmit
    Case("prompt-decision-block", on("UserPromptSubmit", {"decision": "block", "reason": "ORC-M-ups"})),
    Case("prompt-exit2", on("UserPromptSubmit", "echo ORC-M-ups2 >&2; exit 2")),
    Case("prompt-additional-context", on("UserPromptSubmit", specific(
        "UserPromptSubmit", additionalContext="ORC-C-ups"))),  # fmt: skip
    Case("prompt-plain-stdout-context", on("UserPromptSubmit", "echo ORC-C-ups_plain")),
    Case("prompt-brace-text-is-context", on("UserPromptSubmit", "echo '{ORC-C-ups_brace'")),
    Case("prompt-continue-false", on("UserPromptSubmit", {"continue": False,
                                                          "stopReason": "ORC-S-ups"})),
    # ---------------------------------------------------------------- SessionStart / Stop
    Case("session-start-context", on("SessionStart", specific(
        "SessionStart", additionalContext="ORC-C-ss"), "startup")),  # fmt: skip
    Case("session-start-plain-stdout", on("SessionStart", "echo ORC-C-ss_plain")),
    Case("session-start-matcher-miss", on("SessionStart", "echo ORC-C-resume", "resume")),
    Case("stop-block-continues-once", _stop_once),
    # exit 2 keeps Claude Code going whatever stop_hook_active says (it gives up after ~9 turns)
    Case("stop-exit2-continues", on("Stop", "echo ORC-M-stopx >&2; exit 2")),
    Case("stop-gate-script", lambda d: {"Stop": group(str(DATA_HOOKS / "stop_gate.sh"), None)},
         markers=("run the tests (active=False)",)),  # fmt: skip
    # ---------------------------------------------------------------- features hermes-hooks lacks
    Case("post-tool-batch-context", on("PostToolBatch", specific(
        "PostToolBatch", additionalContext="ORC-C-batch"))),  # fmt: skip
    # ---------------------------------------------------------------- Claude Code handler fields
    Case("pre-if-filter", pre("echo ORC-M-if >&2; exit 2", **{"if": "Bash(rm *)"})),
    Case("pre-args-exec-form", lambda d: {"PreToolUse": group(
        script(d, "pre.sh", 'echo "$1" >&2; exit 2'), args=["ORC-M-args"])}),
    Case("pre-async-does-not-block", pre("echo ORC-M-async >&2; exit 2", **{"async": True})),
    Case("pre-on-failure-block", pre("echo ORC-M-onfail >&2; exit 1", onFailure="block")),
    Case("pre-context-cap-10k", _big_context),
]  # fmt: skip
