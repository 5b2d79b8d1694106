"""Generated Gemini CLI cases: its hook contract for tool calls, declared once, crossed into cases.

The contract is read off Gemini CLI's own source (``packages/core/src/hooks/hookRunner.ts``,
``hookAggregator.ts``, ``hookPlanner.ts``, ``types.ts``, ``core/coreToolHookTriggers.ts``) and
its docs (``docs/hooks/reference.md``); the oracle (``gemini -p`` 0.61.0) is what decides. In
short:

- the answer is stdout, or stderr when stdout is empty (both trimmed), whatever the exit code:
  JSON is read as JSON (a JSON string holding JSON is read again); other text is, by exit code,
  0: an allow with the text as ``systemMessage``, 1: the same as a warning, anything else
  (2, 3, a missing program's 127): a deny with the text as its reason; nothing printed is no
  answer (whatever the exit code);
- ``decision`` ``block`` or ``deny`` blocks (exactly those words), ``ask`` asks; a reason is the
  ``stopReason`` or ``reason`` (else "No reason provided");
- a matcher is trimmed; ``*`` or empty matches all; on tool events it is a regular expression
  searched in the tool's name (an invalid one must equal the name); on other events it must
  equal the source or trigger;
- several hooks of one event run side by side (one after another, each seeing the rewritten
  input, when any of its groups says ``sequential``); their answers are merged in configured
  order: any block blocks, the reasons are joined, a later hook's ``hookSpecificOutput`` keys
  (``tool_input``) replace an earlier one's.

Cases: exit codes x streams x answer shapes (every field Gemini CLI documents for the event,
invalid JSON, plain text, empty) on BeforeTool and AfterTool, the matcher grammar, and several
hooks at once. ``DIFFERS`` names the cases where hermes-hooks deliberately differs (rows of
``DIFFERENCES`` in test_oracle_gemini.py).
"""

from __future__ import annotations

import json
from typing import Any

from oracle_generated import GenCase, Hook, body, extra, keyed, say

BEFORE, AFTER = "BeforeTool", "AfterTool"
SHELL = "run_shell_command"
EXITS = (0, 1, 2, 3, 127)


def _spec(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}


DENY = {"decision": "deny", "reason": "ORC-M-{k}_r"}

#: Every answer field Gemini CLI documents for BeforeTool, and the shapes that are no answer.
BEFORE_SHAPES: dict[str, Any] = {
    "deny": DENY,
    "block": {"decision": "block", "reason": "ORC-M-{k}_b"},
    "deny-noreason": {"decision": "deny"},
    "deny-uppercase": {"decision": "DENY", "reason": "ORC-M-{k}_U"},
    "allow": {"decision": "allow", "reason": "ORC-M-{k}_a"},
    "ask": {"decision": "ask", "reason": "ORC-M-{k}_q"},
    "unknown-decision": {"decision": "maybe", "reason": "ORC-M-{k}_u"},
    "rewrite": _spec(BEFORE, tool_input={"command": "{rw}"}),
    "context": _spec(BEFORE, additionalContext="ORC-C-{k}_c"),
    "continue-false": {"continue": False, "stopReason": "ORC-S-{k}_s"},
    "system": {"systemMessage": "ORC-W-{k}_w"},
    "stray-action": {**DENY, "action": "allow"},
    "json-string": json.dumps(json.dumps(DENY)),
    "badjson": '{"decision": "deny", "reason": "ORC-M-{k}_j"',
    "text": "ORC-M-{k}_t",
    "empty": "",
}
#: Every answer field Gemini CLI documents for AfterTool, and the shapes that are no answer.
AFTER_SHAPES: dict[str, Any] = {
    "deny": DENY,
    "context": _spec(AFTER, additionalContext="ORC-C-{k}_c"),
    "continue-false": {"continue": False, "stopReason": "ORC-S-{k}_s"},
    "system": {"systemMessage": "ORC-W-{k}_w"},
    "text": "ORC-M-{k}_t",
    "empty": "",
}
#: Answers that end the agent's turn in Gemini CLI (one per run, last; crossed with exit codes
#: 0 and 2 only, as each costs a run).
STOPS = ("ask", "continue-false")
STDERR_SHAPES = ("deny", "allow", "rewrite", "badjson", "text", "empty")
BOTH_SHAPES = ("deny", "allow", "empty")

#: The matcher grammar, against the shell tool (``run_shell_command``).
MATCHERS = {
    "exact": SHELL, "capitalised": "Run_shell_command", "list": f"{SHELL}|write_file",
    "list-second": f"write_file|{SHELL}", "comma-list": f"{SHELL},write_file",
    "comma-space-list": f"write_file, {SHELL}", "padded": f" {SHELL} ", "list-spaces": f"write_file | {SHELL}",
    "substring": "shell", "prefix": "run_shell", "dots": "run.shell.command", "prefix-regex": "^run_",
    "anchored-miss": "^shell", "suffix-regex": "command$", "star": "*", "empty": "", "dot-star": ".*",
    "invalid-regex": f"({SHELL}", "claude-name": "Bash", "host-name": "terminal",
    "trailing-bar": f"{SHELL}|", "other-tool": "write_file",
}  # fmt: skip


def differs(event: str, code: int, stream: str, shape: str) -> str | None:
    """The deliberate difference (a row of ``DIFFERENCES`` in test_oracle_gemini.py) a crossed
    case shows, if any: each is hermes-hooks blocking where Gemini CLI runs the call, or
    refusing the call where Gemini CLI ends the turn."""
    if event == BEFORE and code == 2 and shape == "empty" and stream != "both":
        return "exit2-silent-blocks"
    if stream != "stdout" or event != BEFORE:
        return None
    return {
        "deny-uppercase": "decision-words-any-case",
        "ask": "ask-headless",
        "continue-false": "continue-false-blocks",
        "unknown-decision": "unknown-decision-blocks",
    }.get(shape)


#: Deliberate differences of the matcher and several-hooks cases -> DIFFERENCES row.
DIFFERS: dict[tuple[str, ...], str] = {
    ("matcher", "host-name"): "host-tool-name-matches",
    ("several", "two-denies"): "one-block-reason",
    ("several", "two-denies-first-slow"): "one-block-reason",
}


def _crossed() -> list[tuple[str, tuple[Hook, ...], dict[str, Any]]]:
    out: list[tuple[str, tuple[Hook, ...], dict[str, Any]]] = []
    for event, shapes in ((BEFORE, BEFORE_SHAPES), (AFTER, AFTER_SHAPES)):
        short = "before" if event == BEFORE else "after"
        plan = [("stdout", name) for name in shapes]
        plan += [("stderr", name) for name in STDERR_SHAPES if name in shapes]
        plan += [("both", name) for name in BOTH_SHAPES if name in shapes]
        for stream, name in plan:
            codes = EXITS if stream != "both" else (0, 1, 2, 3)
            # an answer that ends the turn needs a run to itself: two exit codes, not five
            for code in codes if name not in STOPS else (0, 2):
                cid = f"{short}-x{code}-{stream}-{name}"
                hook = Hook(event, body(shapes[name], stream, code), SHELL)
                more: dict[str, Any] = {"stops": name in STOPS}
                named = differs(event, code, stream, name)
                out.append((cid, (hook,), {**more, "differs": named} if named else more))
    return out


def _matchers() -> list[tuple[str, tuple[Hook, ...], dict[str, Any]]]:
    return [(f"matcher-{name}", (Hook(BEFORE, "echo ORC-M-{k}_m >&2\nexit 2", matcher),),
             extra(DIFFERS, ("matcher", name))) for name, matcher in MATCHERS.items()]  # fmt: skip


def _several() -> list[tuple[str, tuple[Hook, ...], dict[str, Any]]]:
    """Several hooks on one call: which answer wins, configured order against finishing order."""

    def deny(tag: str, sleep: float = 0) -> str:
        return (f"sleep {sleep}\n" if sleep else "") + say(
            {"decision": "deny", "reason": f"ORC-M-{{k}}_{tag}"}
        )

    def rewrite(suffix: str, sleep: float = 0) -> str:
        answer = _spec(BEFORE, tool_input={"command": "{rw}" + suffix})
        return (f"sleep {sleep}\n" if sleep else "") + say(answer)

    allow = say({"decision": "allow"})
    seq = {"sequential": True}
    cases: dict[str, tuple[tuple[Hook, ...], dict[str, Any]]] = {
        "two-denies": ((Hook(BEFORE, deny("a"), SHELL), Hook(BEFORE, deny("b"), SHELL)), {}),
        "two-denies-first-slow": ((Hook(BEFORE, deny("a", 0.4), SHELL), Hook(BEFORE, deny("b"), SHELL)), {}),
        "allow-then-deny": ((Hook(BEFORE, allow, SHELL), Hook(BEFORE, deny("b"), SHELL)), {}),
        "deny-then-allow": ((Hook(BEFORE, deny("a"), SHELL), Hook(BEFORE, allow, SHELL)), {}),
        "exit2-then-allow": ((Hook(BEFORE, "echo ORC-M-{k}_a >&2\nexit 2", SHELL), Hook(BEFORE, allow, SHELL)), {}),
        "two-rewrites-first-slow": ((Hook(BEFORE, rewrite("; echo A", 0.4), SHELL),
                                     Hook(BEFORE, rewrite("; echo B"), SHELL)), {}),
        "two-rewrites-second-slow": ((Hook(BEFORE, rewrite("; echo A"), SHELL),
                                      Hook(BEFORE, rewrite("; echo B", 0.4), SHELL)), {}),
        "rewrite-then-deny": ((Hook(BEFORE, rewrite(""), SHELL), Hook(BEFORE, deny("b"), SHELL)), {}),
        "after-two-contexts": ((Hook(AFTER, say(_spec(AFTER, additionalContext="ORC-C-{k}_a")), SHELL),
                                Hook(AFTER, say(_spec(AFTER, additionalContext="ORC-C-{k}_b")), SHELL)), {}),
        "before-deny-after-context": ((Hook(BEFORE, deny("a"), SHELL),
                                       Hook(AFTER, say(_spec(AFTER, additionalContext="ORC-C-{k}_b")), SHELL)), {}),
        "sequential-deny-then-rewrite": ((Hook(BEFORE, deny("a"), SHELL, group=seq),
                                          Hook(BEFORE, rewrite(""), SHELL, group=seq)), {"alone": "sequential"}),
        "sequential-two-rewrites": ((Hook(BEFORE, rewrite("; echo A", 0.4), SHELL, group=seq),
                                     Hook(BEFORE, rewrite("; echo B"), SHELL, group=seq)), {"alone": "sequential"}),
    }  # fmt: skip
    return [(f"several-{name}", hooks, extra(DIFFERS, ("several", name), **more))
            for name, (hooks, more) in cases.items()]  # fmt: skip


def _missing() -> list[tuple[str, tuple[Hook, ...], dict[str, Any]]]:
    """A hook whose script does not exist, and one whose command needs bash (``[[``): they
    act at every call, so each gets a run of its own."""
    bash = Hook(BEFORE, "echo ORC-M-{k}_s >&2\nexit 2", SHELL, prefix="[[ -n bash ]] && ")
    return [
        ("before-bash-syntax", (bash,), {"alone": "bash"}),
        ("before-missing-script", (Hook(BEFORE, "", SHELL, missing=True),), {"alone": "missing"}),
    ]


def generated() -> list[GenCase]:
    return keyed(_crossed() + _matchers() + _several() + _missing(), "g")


CASES = generated()
