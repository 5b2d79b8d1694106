"""Generated Codex cases: its hook contract for tool calls, declared once, crossed into cases.

The contract is read off Codex's own source (``codex-rs/hooks/src/events/pre_tool_use.rs``,
``post_tool_use.rs``, ``output_parser.rs``, ``events/common.rs``: the matcher) and its docs; the
oracle (``codex exec`` 0.169.0) is what decides. In short:

- exit 0: stdout is the answer (JSON, or plain text, which a tool event ignores); stdout that
  looks like JSON but does not parse is a failed hook (no effect);
- exit 2: stderr is the block reason (an empty stderr is a failed hook: no block); stdout is
  not read;
- any other exit (1, 3, a missing program's 127): a failed hook, no effect;
- a matcher of ASCII letters, digits, ``_`` and ``|`` is a list of exact names; anything else is
  a regular expression searched in the name (an invalid one matches nothing); ``*`` and the
  empty string match all;
- several hooks of one event run side by side; any block blocks, the reason is the first
  configured hook's.

Cases: exit codes x streams x answer shapes (every field Codex documents for the event, invalid
JSON, plain text, empty) on PreToolUse and PostToolUse, the matcher grammar, and several hooks
at once (configured order against finishing order). ``DIFFERS`` names the cases where
hermes-hooks deliberately differs (rows of ``DIFFERENCES`` in test_oracle_codex.py).
"""

from __future__ import annotations

from typing import Any

from oracle_generated import GenCase, Hook, body, extra, keyed, say

PRE, POST = "PreToolUse", "PostToolUse"
EXITS = (0, 1, 2, 3, 127)


def _spec(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}


#: Every answer field Codex documents for PreToolUse, and the shapes that are no answer.
PRE_SHAPES: dict[str, Any] = {
    "deny": _spec(PRE, permissionDecision="deny", permissionDecisionReason="ORC-M-{k}_r"),
    "deny-noreason": _spec(PRE, permissionDecision="deny"),
    "allow": _spec(PRE, permissionDecision="allow", permissionDecisionReason="ORC-M-{k}_a"),
    "ask": _spec(PRE, permissionDecision="ask", permissionDecisionReason="ORC-M-{k}_q"),
    "block": {"decision": "block", "reason": "ORC-M-{k}_b"},
    "block-noreason": {"decision": "block"},
    "approve": {"decision": "approve", "reason": "ORC-M-{k}_p"},
    "rewrite": _spec(PRE, updatedInput={"command": "{rw}"}),
    "context": _spec(PRE, additionalContext="ORC-C-{k}_c"),
    "continue-false": {"continue": False, "stopReason": "ORC-S-{k}_s"},
    "system": {"systemMessage": "ORC-W-{k}_w"},
    "stray-action": {
        **_spec(PRE, permissionDecision="deny", permissionDecisionReason="ORC-M-{k}_r"),
        "action": "allow",
    },  # fmt: skip
    "unknown-decision": {"decision": "maybe", "reason": "ORC-M-{k}_u"},
    "badjson": '{"decision": "block", "reason": "ORC-M-{k}_j"',
    "text": "ORC-C-{k}_t",
    "empty": "",
}
#: Every answer field Codex documents for PostToolUse, and the shapes that are no answer.
POST_SHAPES: dict[str, Any] = {
    "block": {"decision": "block", "reason": "ORC-M-{k}_b"},
    "context": _spec(POST, additionalContext="ORC-C-{k}_c"),
    "continue-false": {"continue": False, "stopReason": "ORC-S-{k}_s"},
    "system": {"systemMessage": "ORC-W-{k}_w"},
    "stray-action": {"decision": "block", "reason": "ORC-M-{k}_b", "action": "allow"},
    "badjson": '{"decision": "block", "reason": "ORC-M-{k}_j"',
    "text": "ORC-C-{k}_t",
    "empty": "",
}
#: The shapes also sent on stderr alone, and with a text on stderr beside stdout.
STDERR_SHAPES = ("deny", "block", "allow", "rewrite", "context", "badjson", "text", "empty")
BOTH_SHAPES = ("deny", "allow", "text", "empty")

#: The matcher grammar, against the shell tool (``Bash``): each matcher on a hook that blocks.
MATCHERS = {
    "exact": "Bash", "lowercase": "bash", "list": "Bash|apply_patch", "list-second": "apply_patch|Bash",
    "list-spaces": "Bash | apply_patch", "list-trailing-bar": "Bash|", "comma-list": "Bash,apply_patch",
    "leading-space": " Bash", "trailing-space": "Bash ", "dot": "Ba.h", "prefix-regex": "^Ba",
    "anchored": "^Bash$", "substring": "ash", "prefix": "Bas", "star-regex": "Bash*",
    "model-name": "exec_command", "host-name": "terminal", "star": "*", "empty": "", "dot-star": ".*",
    "group": "(Bash)", "invalid-regex": "Bash(", "dash": "Bash-x", "class": "[B]ash",
}  # fmt: skip


def differs(event: str, code: int, stream: str, shape: str) -> str | None:
    """The deliberate difference (a row of ``DIFFERENCES`` in test_oracle_codex.py) a crossed
    case shows, if any: each is hermes-hooks blocking where Codex runs the call, or the same
    decision with the text elsewhere."""
    quiet_stderr = stream == "stdout" or (stream == "stderr" and shape == "empty")
    if event == PRE and code == 2 and quiet_stderr:
        return "exit2-without-stderr-blocks"
    if code != 0 or stream != "stdout":
        return None
    return {
        (PRE, "deny-noreason"): "block-without-reason-blocks",
        (PRE, "block-noreason"): "block-without-reason-blocks",
        (PRE, "ask"): "ask-asks",
        (PRE, "continue-false"): "continue-false-blocks",
        (PRE, "stray-action"): "unknown-key-ignored",
        (POST, "stray-action"): "unknown-key-ignored",
        (POST, "context"): "post-context-in-result",
    }.get((event, shape))


#: Deliberate differences of the matcher and several-hooks cases -> DIFFERENCES row.
DIFFERS: dict[tuple[str, ...], str] = {
    ("matcher", "host-name"): "host-tool-name-matches",
    ("several", "post-block-and-context"): "post-context-in-result",
}


def _crossed() -> list[tuple[str, tuple[Hook, ...], dict[str, Any]]]:
    out: list[tuple[str, tuple[Hook, ...], dict[str, Any]]] = []
    for event, shapes in ((PRE, PRE_SHAPES), (POST, POST_SHAPES)):
        short = "pre" if event == PRE else "post"
        plan = [("stdout", name) for name in shapes]
        plan += [("stderr", name) for name in STDERR_SHAPES if name in shapes]
        plan += [("both", name) for name in BOTH_SHAPES if name in shapes]
        for stream, name in plan:
            for code in EXITS if stream != "both" else (0, 1, 2, 3):
                cid = f"{short}-x{code}-{stream}-{name}"
                hook = Hook(event, body(shapes[name], stream, code), "Bash")
                named = differs(event, code, stream, name)
                out.append((cid, (hook,), {"differs": named} if named else {}))
    return out


def _matchers() -> list[tuple[str, tuple[Hook, ...], dict[str, Any]]]:
    out = []
    for name, matcher in MATCHERS.items():
        hook = Hook(PRE, "echo ORC-M-{k}_m >&2\nexit 2", matcher)
        more = extra(DIFFERS, ("matcher", name))
        out.append((f"matcher-{name}", (hook,), more))
    return out


def _deny(tag: str, sleep: float = 0) -> str:
    pause = f"sleep {sleep}\n" if sleep else ""
    return pause + say(
        _spec(PRE, permissionDecision="deny", permissionDecisionReason=f"ORC-M-{{k}}_{tag}")
    )


def _several() -> list[tuple[str, tuple[Hook, ...], dict[str, Any]]]:
    """Several hooks on one call: which answer wins, configured order against finishing order."""
    rewrite_b = say(_spec(PRE, updatedInput={"command": "{rw}; echo B"}))
    allow = say(_spec(PRE, permissionDecision="allow"))
    cases: dict[str, tuple[Hook, ...]] = {
        "two-denies": (Hook(PRE, _deny("a"), "Bash"), Hook(PRE, _deny("b"), "Bash")),
        "two-denies-first-slow": (Hook(PRE, _deny("a", 0.4), "Bash"), Hook(PRE, _deny("b"), "Bash")),
        "allow-then-deny": (Hook(PRE, allow, "Bash"), Hook(PRE, _deny("b"), "Bash")),
        "deny-then-allow": (Hook(PRE, _deny("a"), "Bash"), Hook(PRE, allow, "Bash")),
        "exit2-then-deny": (Hook(PRE, "echo ORC-M-{k}_a >&2\nexit 2", "Bash"),
                            Hook(PRE, _deny("b"), "Bash")),
        "deny-then-exit1": (Hook(PRE, _deny("a"), "Bash"), Hook(PRE, "echo ORC-M-{k}_b >&2\nexit 1", "Bash")),
        "two-rewrites-first-slow": (Hook(PRE, "sleep 0.4\n" + say(_spec(PRE, updatedInput={"command": "{rw}"})), "Bash"),
                                    Hook(PRE, rewrite_b, "Bash")),
        "rewrite-then-deny": (Hook(PRE, say(_spec(PRE, updatedInput={"command": "{rw}"})), "Bash"),
                              Hook(PRE, _deny("b"), "Bash")),
        "two-contexts": (Hook(PRE, say(_spec(PRE, additionalContext="ORC-C-{k}_a")), "Bash"),
                         Hook(PRE, say(_spec(PRE, additionalContext="ORC-C-{k}_b")), "Bash")),
        "post-block-and-context": (Hook(POST, say({"decision": "block", "reason": "ORC-M-{k}_a"}), "Bash"),
                                   Hook(POST, say(_spec(POST, additionalContext="ORC-C-{k}_b")), "Bash")),
        "post-two-blocks": (Hook(POST, say({"decision": "block", "reason": "ORC-M-{k}_a"}), "Bash"),
                            Hook(POST, say({"decision": "block", "reason": "ORC-M-{k}_b"}), "Bash")),
        "pre-deny-post-context": (Hook(PRE, _deny("a"), "Bash"),
                                  Hook(POST, say(_spec(POST, additionalContext="ORC-C-{k}_b")), "Bash")),
    }  # fmt: skip
    return [(f"several-{name}", hooks, extra(DIFFERS, ("several", name))
             if ("several", name) in DIFFERS else {}) for name, hooks in cases.items()]  # fmt: skip


def _missing() -> list[tuple[str, tuple[Hook, ...], dict[str, Any]]]:
    """A hook whose script does not exist, and one whose command needs bash (``[[``): they
    act at every call, so each gets a run of its own."""
    bash = Hook(PRE, "echo ORC-M-{k}_s >&2\nexit 2", "Bash", prefix="[[ -n bash ]] && ")
    return [
        ("pre-bash-syntax", (bash,), {"alone": "bash"}),
        ("pre-missing-script", (Hook(PRE, "", "Bash", missing=True),), {"alone": "missing"}),
    ]


def generated() -> list[GenCase]:
    return keyed(_crossed() + _matchers() + _several() + _missing(), "x")


CASES = generated()
