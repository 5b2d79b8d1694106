"""The Claude Code payloads hermes-hooks sends carry every field the real agent sends.

The real payloads are the fixtures the oracle recorded (fixtures/claude-code/, one per event, from
``claude -p`` 2.1.330); ours are built by ``hermes_hooks.builtin_plugins.shell_hooks.protocol.claude_payload`` from each event's
example arguments. No CLI runs here, so this module is not ``slow``. Events where fields are still
missing are strict xfails naming them (issue 13 item 2: payloads field for field); each turns
into a failure once the fields are sent, and its mark goes.

The same holds for Gemini CLI and Codex (fixtures/gemini-cli/, fixtures/codex/, recorded by
test_oracle_smoke.py): the payload of each of their events has exactly the fields they send.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hermes_hooks.builtin_plugins.shell_hooks import config, dialects, protocol

from hermes_hooks import catalogue

pytestmark = pytest.mark.oracle

FIXTURES = Path(__file__).parent / "fixtures" / "claude-code"
#: The recorded Claude Code events (our event is the one the name is an alias of), with the
#: arguments that pick the Claude Code event where ours stands for more than one.
EVENTS: dict[str, dict[str, Any]] = {
    "SessionStart": {},
    "UserPromptSubmit": {},
    "PreToolUse": {},
    "PermissionRequest": {},
    "PostToolUse": {"status": "ok"},
    "PostToolUseFailure": {"status": "error"},
    "Stop": {},
    "SessionEnd": {},
    "PostToolBatch": {},
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
    pick = EVENTS[name]
    info = catalogue.get(name)
    assert info is not None
    ours = protocol.claude_payload(info, {**info.example, **pick}, "/project")
    assert ours["hook_event_name"] == name
    missing = sorted(set(theirs) - set(ours))
    assert not missing, f"{name}: Claude Code also sends {', '.join(missing)}"


#: Gemini CLI and Codex: the fixtures the smoke runs recorded (fixtures/gemini-cli/, codex/).
DIALECT_FIXTURES = {"gemini-cli": "gemini", "codex": "codex"}
#: Recorded events no event of ours stands for, and why.
NO_EVENT = config.CANNOT_FIRE


def _dialect_params() -> list[Any]:
    out = []
    for agent in DIALECT_FIXTURES:
        for path in sorted((FIXTURES.parent / agent).glob("*.json")):
            if path.stem != "model-sees-block" and path.stem not in NO_EVENT:
                out.append(pytest.param(agent, path.stem, id=f"{agent}-{path.stem}"))
    return out


@pytest.mark.parametrize(("agent", "name"), _dialect_params())
def test_our_dialect_payload_has_exactly_the_real_fields(agent: str, name: str) -> None:
    """The payload a Gemini CLI or Codex hook gets from hermes-hooks has the fields that agent
    sends for the event, no more, no fewer (values differ: paths, ids, times)."""
    theirs = json.loads((FIXTURES.parent / agent / f"{name}.json").read_text())
    dialect = dialects.get(DIALECT_FIXTURES[agent])
    assert dialect is not None
    found = dialects.lookup(dialect.name, name, catalogue.events().values())
    assert found is not None, f"no event of ours stands for {agent} {name}"
    info, chosen = found
    kwargs = {"tool_name": "terminal", **info.example} if chosen.tool else dict(info.example)
    ours = dialect.payload(info, kwargs, "/project", chosen)
    assert ours["hook_event_name"] == name
    assert sorted(ours) == sorted(theirs), f"{agent} {name}: fields differ"
