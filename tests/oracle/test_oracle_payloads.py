"""The Claude Code payloads hermes-hooks sends carry every field the real agent sends.

The real payloads are the fixtures the oracle recorded (fixtures/claude-code/, one per event, from
``claude -p`` 2.1.330); ours are built by ``hermes_hooks.wire.claude_payload`` from each event's
example arguments. No CLI runs here, so this module is not ``slow``. Events where fields are still
missing are strict xfails naming them (issue 13 item 2: payloads field for field); each turns
into a failure once the fields are sent, and its mark goes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks import catalogue, wire

pytestmark = pytest.mark.oracle

FIXTURES = Path(__file__).parent / "fixtures" / "claude-code"
#: Claude Code event -> our event, and the arguments that pick the Claude Code event.
EVENTS: dict[str, tuple[str, dict[str, Any]]] = {
    "SessionStart": ("on_session_start", {}),
    "UserPromptSubmit": ("user_prompt_submit", {}),
    "PreToolUse": ("pre_tool_call", {}),
    "PermissionRequest": ("permission_request", {}),
    "PostToolUse": ("post_tool_call", {"status": "ok"}),
    "PostToolUseFailure": ("post_tool_call", {"status": "error"}),
    "Stop": ("pre_verify", {}),
    "SessionEnd": ("on_session_end", {}),
    "PostToolBatch": ("post_tool_batch", {}),
}
#: Fields Claude Code 2.1.330 sends that our payload for the event lacks.
MISSING = {
    "UserPromptSubmit": "prompt_id",
    "PreToolUse": "effort",
    "PermissionRequest": "effort, prompt_id",
    "PostToolUse": "effort",
    "PostToolUseFailure": "effort",
    "Stop": "background_tasks, effort, prompt_id, session_crons",
    "PostToolBatch": "effort",
}


def _params() -> list[Any]:
    out = []
    for name in EVENTS:
        gap = MISSING.get(name)
        marks = [pytest.mark.xfail(strict=True, reason=f"not sent yet: {gap}")] if gap else []
        out.append(pytest.param(name, id=name, marks=marks))
    return out


def test_every_recorded_event_is_checked() -> None:
    recorded = {p.stem for p in FIXTURES.glob("*.json")}
    assert recorded == set(EVENTS)


@pytest.mark.parametrize("name", _params())
def test_our_claude_code_payload_has_the_real_fields(name: str) -> None:
    theirs = json.loads((FIXTURES / f"{name}.json").read_text())
    event, pick = EVENTS[name]
    info = catalogue.get(event)
    assert info is not None
    ours = wire.claude_payload(info, {**info.example, **pick}, "/project")
    assert ours["hook_event_name"] == name
    missing = sorted(set(theirs) - set(ours))
    assert not missing, f"{name}: Claude Code also sends {', '.join(missing)}"
