"""The Gemini CLI differential corpus: one ``settings.json`` ``hooks`` block per case.

Each case is run by the real ``gemini --yolo -p`` with one scripted ``run_shell_command`` call,
and loaded unchanged by hermes-hooks (``hooks_sources: [gemini]``, from ``~/.gemini/settings.json``
of a HOME of its own). Markers (``ORC-<kind>-<case>``) tell which hook text the model saw and
where. One case per event and answer form Gemini CLI documents; ``differs`` names a deliberate
difference (``DIFFERENCES`` of test_oracle_gemini.py), ``xfail`` a missing feature.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from claude_cases import REWRITTEN, Case, Hooks, say, script

SHELL = "run_shell_command"


def _group(command: str, matcher: str | None, **more: Any) -> list[dict[str, Any]]:
    g: dict[str, Any] = {"hooks": [{"type": "command", "command": command, "name": "case"}]}
    if matcher is not None:
        g["matcher"] = matcher
    g.update(more)
    return [g]


def on(event: str, answer_or_body: dict[str, Any] | str, matcher: str | None = None) -> Hooks:
    body = answer_or_body if isinstance(answer_or_body, str) else say(answer_or_body)
    return lambda d: {event: _group(script(d, "hook.sh", body), matcher)}


def before(answer_or_body: dict[str, Any] | str, matcher: str = SHELL) -> Hooks:
    return on("BeforeTool", answer_or_body, matcher)


def once(event: str, answer: dict[str, Any]) -> Hooks:
    """A hook answering ``answer`` unless ``stop_hook_active`` (the second time it is asked)."""

    def build(d: Path) -> dict[str, Any]:
        path = d / "once.sh"
        code = ("import json,sys; d=json.loads(sys.argv[1]); "
                f"print('' if d.get('stop_hook_active') else json.dumps({answer!r}))")  # fmt: skip
        path.write_text(f'#!/bin/sh\ninput=$(cat)\npython3 -c {shlex.quote(code)} "$input"\n')
        path.chmod(0o755)
        return {event: _group(str(path), None)}

    return build


def once_exit2(event: str, reason: str) -> Hooks:
    """A hook exiting 2 with ``reason`` on stderr unless ``stop_hook_active``."""

    def build(d: Path) -> dict[str, Any]:
        path = d / "once.sh"
        code = (
            "import json,sys; sys.exit(0 if json.loads(sys.argv[1]).get('stop_hook_active') else 2)"
        )
        path.write_text(f'#!/bin/sh\ninput=$(cat)\npython3 -c {shlex.quote(code)} "$input" '
                        f"|| {{ echo {reason} >&2; exit 2; }}\n")  # fmt: skip
        path.chmod(0o755)
        return {event: _group(str(path), None)}

    return build


def _rewrite(d: Path) -> dict[str, Any]:
    answer = {"hookSpecificOutput": {"hookEventName": "BeforeTool",
                                     "tool_input": {"command": REWRITTEN.format(d=d)}}}  # fmt: skip
    return {"BeforeTool": _group(script(d, "hook.sh", say(answer)), SHELL)}


def _sequential(d: Path) -> dict[str, Any]:
    """Two hooks of a ``sequential`` group: the second sees the first one's rewrite and denies."""
    first = {"hookSpecificOutput": {"tool_input": {"command": REWRITTEN.format(d=d)}}}
    code = (
        "import json,sys; c=json.load(sys.stdin)['tool_input']['command']; "
        "print(json.dumps({'decision': 'deny', 'reason': 'ORC-M-seq'}) if 'ran2' in c else '')"
    )
    second = d / "b.sh"
    second.write_text(f"#!/bin/sh\npython3 -c {shlex.quote(code)}\n")
    second.chmod(0o755)
    hooks = [{"type": "command", "command": script(d, "a.sh", say(first)), "name": "a"},
             {"type": "command", "command": str(second), "name": "b"}]  # fmt: skip
    return {"BeforeTool": [{"matcher": SHELL, "sequential": True, "hooks": hooks}]}


def spec(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}


CASES: list[Case] = [
    # ---------------------------------------------------------------- BeforeTool
    Case("before-exit2-blocks", before("echo ORC-M-exit2 >&2; exit 2")),
    Case("before-decision-deny", before({"decision": "deny", "reason": "ORC-M-deny"})),
    Case("before-decision-block", before({"decision": "block", "reason": "ORC-M-block"})),
    Case("before-decision-allow", before({"decision": "allow", "reason": "ORC-M-allow"})),
    Case("before-decision-ask", before({"decision": "ask", "reason": "ORC-M-ask"}),
         differs="ask-headless"),
    Case("before-unknown-decision", before({"decision": "maybe", "reason": "ORC-M-maybe"}),
         differs="unknown-decision-blocks"),
    Case("before-tool-input-rewrite", _rewrite),
    Case("before-sequential-sees-rewrite", _sequential),
    Case("before-additional-context",
         before(spec("BeforeTool", additionalContext="ORC-C-before"))),  # fmt: skip
    Case("before-continue-false", before({"continue": False, "stopReason": "ORC-S-stop"}),
         differs="continue-false-blocks"),
    Case("before-system-message", before({"systemMessage": "ORC-W-sys"})),
    Case("before-exit1-nonblocking", before("echo ORC-M-exit1 >&2; exit 1")),
    Case("before-plain-stdout", before("echo ORC-C-plain_before")),
    Case("before-matcher-miss", before("echo ORC-M-miss >&2; exit 2", matcher="write_file")),
    Case("before-matcher-regex", before("echo ORC-M-regex >&2; exit 2", matcher="^run_.*")),
    # ---------------------------------------------------------------- AfterTool
    Case("after-decision-deny", on("AfterTool", {"decision": "deny", "reason": "ORC-M-after"},
                                   SHELL), markers=("TOOL-OUTPUT",),
         differs="after-deny-keeps-output"),  # fmt: skip
    Case("after-additional-context",
         on("AfterTool", spec("AfterTool", additionalContext="ORC-C-after"), SHELL)),  # fmt: skip
    Case("after-exit2", on("AfterTool", "echo ORC-M-after2 >&2; exit 2", SHELL)),
    # ---------------------------------------------------------------- BeforeAgent / AfterAgent
    Case("agent-decision-deny", on("BeforeAgent", {"decision": "deny", "reason": "ORC-M-ba"})),
    Case("agent-exit2", on("BeforeAgent", "echo ORC-M-ba2 >&2; exit 2")),
    Case("agent-additional-context",
         on("BeforeAgent", spec("BeforeAgent", additionalContext="ORC-C-ba"))),  # fmt: skip
    Case("agent-continue-false", on("BeforeAgent", {"continue": False, "stopReason": "ORC-S-ba"})),
    Case("agent-plain-stdout", on("BeforeAgent", "echo ORC-C-ba_plain")),
    Case("after-agent-exit2-retries-once", once_exit2("AfterAgent", "ORC-M-retry2")),
    Case("after-agent-deny-retries-once",
         once("AfterAgent", {"decision": "deny", "reason": "ORC-M-retry"})),  # fmt: skip
    # ---------------------------------------------------------------- session and model events
    Case("session-start-context",
         on("SessionStart", spec("SessionStart", additionalContext="ORC-C-ss"), "startup")),  # fmt: skip
    Case("session-end-observes", on("SessionEnd", "echo ORC-C-se")),
    Case("before-model-deny", on("BeforeModel", {"decision": "deny", "reason": "ORC-M-bm"}),
         differs="model-deny-observes"),
    Case("after-model-observes", on("AfterModel", "exit 0")),
]  # fmt: skip
