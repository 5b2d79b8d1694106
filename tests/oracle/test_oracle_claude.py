"""Differential tests: each hook configuration of the corpus (claude_cases.py) is run by the real
Claude Code (``claude -p`` against a scripted fake model) and by hermes-hooks (loaded with the same
settings.json, fed the payloads the real agent sent), and the outcomes must match.

All real runs happen once, a few at a time, in a module fixture; each case is then its own test.
``ORACLE_WRITE_FIXTURES=1`` rewrites tests/oracle/fixtures/claude-code/*.json from the payloads
captured here (one per event); otherwise the live payloads are checked against those files.
"""

from __future__ import annotations

import dataclasses
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from claude_cases import CASES, Case
from claude_generated import CASES as GENERATED
from claude_generated import GenCase, Ran, expected_difference, run_all
from oracle_agents import AgentRun, recorder_command, run_claude
from oracle_compare import (
    Outcome,
    check_fixtures,
    claude_outcome,
    hermes_outcome,
    record,
    scan,
)
from oracle_install import Installed
from oracle_servers import ToolCall

import hermes_hooks

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

AGENT = "claude-code"
FIXTURES = Path(__file__).parent / "fixtures" / AGENT
#: Every event a headless ``claude -p`` run with one Bash call may fire; a recording hook on each
#: captures the payloads the hermes-hooks side is fed.
RECORDED = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest",
            "PermissionDenied", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Stop",
            "StopFailure", "Notification", "SessionEnd")  # fmt: skip
WORKERS = 3

#: Where hermes-hooks deliberately differs from Claude Code, by name; docs/dialects.md explains
#: each one in its "Claude Code" section. A case names one with ``differs=``.
DIFFERENCES = {
    "continue-false-blocks": (
        "`continue: false` from a PreToolUse hook: Claude Code still runs the tool, then ends the "
        "agent's turn (the model never sees the result); hermes-hooks has no 'stop the agent' "
        "answer for a tool call and blocks the call instead, with `stopReason` as the tool "
        "result (degrade to block, never open)."
    ),
    "updated-input-merged": (
        "`updatedInput`: Claude Code runs the tool with exactly the hook's input (keys it leaves "
        "out are gone); hermes-hooks shallow-merges every rewrite into the arguments the model "
        "gave (DESIGN 3.1: rewrites from several hooks compose), so a key the hook omits is kept."
    ),
    "defer-is-no-opinion": (
        "`permissionDecision: defer`: a headless Claude Code ends the turn there (the call waits "
        "for an SDK client to decide); hermes-hooks reads `defer` as an explicit no opinion, so "
        "the host's own permission rule decides (here: not allowed, refused) and the agent goes on."
    ),
    "host-tool-names": (
        "A Claude Code matcher naming the host's own tool (`terminal`): Claude Code has no tool "
        "of that name, so the hook never fires there; hermes-hooks tries a Claude Code matcher "
        "against Claude Code's name and then the host's, so it fires."
    ),
    "permission-top-level-deny": (
        'A PermissionRequest answer `{"decision": "block", "reason": ...}` (the top-level '
        "vocabulary of other events): Claude Code 2.1.330 does not read it there (the question "
        "stays open; headless, the call is refused with Claude Code's own words); hermes-hooks "
        "reads it as a deny, so its reason is what the model reads."
    ),
    "permission-exit2-stderr": (
        "A PermissionRequest hook that exits 2 with no decision on stdout: both refuse the call; "
        "Claude Code does not show its stderr to the model, hermes-hooks gives stderr as the "
        "deny message (as exit 2 does on every event that can block)."
    ),
    "rewrite-order": (
        "Two hooks rewrite one call (`updatedInput`): Claude Code runs the rewrite of the hook "
        "that finished last; hermes-hooks composes rewrites in configuration order (a later "
        "hook's value of a key wins), whichever hook was slower."
    ),
    "first-block-message": (
        "Several hooks block one call: Claude Code shows the model one block message, that of "
        "the hook that finished last (2.1.330); hermes-hooks keeps the first block in "
        "configuration order, so the message does not depend on which hook was slower."
    ),
}


@dataclass
class Real:
    case: Case
    dir: Path
    run: AgentRun
    scripted: dict[str, Any]

    @property
    def settings(self) -> Path:
        """The case's settings.json, as hermes-hooks reads it (without the recording hooks)."""
        return self.dir / "settings.json"


def _run_case(binary: Path, root: Path, case: Case) -> Real:
    d = root / case.id
    d.mkdir(parents=True)
    hooks = case.hooks(d)
    # hermes-hooks gets the case's hooks alone; the real agent also gets the recording hooks
    (d / "settings.json").write_text(json.dumps({"hooks": hooks}, indent=2))
    hooks = json.loads(json.dumps(hooks))
    rec = d / "payloads.jsonl"
    for event in RECORDED:
        hooks.setdefault(event, []).append({"hooks": [{"type": "command",
                                                       "command": recorder_command(rec)}]})  # fmt: skip
    scripted = {"command": case.command.format(d=d), "description": "oracle"}
    run = run_claude(binary, d, {"hooks": hooks}, [ToolCall("Bash", scripted)],
                     allowed_tools="Bash" if case.allowed else None, record=rec)  # fmt: skip
    return Real(case, d, run, scripted)


@pytest.fixture(scope="module")
def real_runs(claude_cli: Installed, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Real]:
    root = tmp_path_factory.mktemp("oracle-claude")
    with ThreadPoolExecutor(WORKERS) as pool:
        runs = list(pool.map(lambda c: _run_case(claude_cli.binary, root, c), CASES))
    return {r.case.id: r for r in runs}


def _real_outcome(real: Real) -> Outcome:
    bodies = [b for b in real.run.bodies("/v1/messages") if b.get("tools")]
    return claude_outcome(bodies, real.run.stdout, real.run.payloads, real.dir, real.scripted,
                          real.case.markers)  # fmt: skip


def _ours(real: Real) -> Outcome:
    home = real.dir / "hermes-home"
    home.mkdir()
    (home / "config.yaml").write_text(
        yaml.safe_dump({"hooks_settings_files": [str(real.settings)]})
    )
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    return hermes_outcome(hooks, real.run.payloads, real.scripted, real.case.allowed,
                          real.case.markers)  # fmt: skip


def _params() -> list[Any]:
    out = []
    for case in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else []
        out.append(pytest.param(case, id=case.id, marks=marks))
    return out


@pytest.mark.parametrize("case", _params())
def test_claude_code_agrees(
    case: Case, real_runs: dict[str, Real], clean_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = real_runs[case.id]
    assert real.run.returncode == 0, (
        f"claude exited {real.run.returncode}: {real.run.stderr[-800:]}"
    )
    leaked = [r for r in real.run.refused() if not r.startswith("CONNECT")]
    assert not leaked, f"requests that were not meant for the fake model: {leaked}"
    monkeypatch.chdir(real.dir / "project")
    theirs = _real_outcome(real)
    ours = _ours(real)
    detail = (f"\nClaude Code: {json.dumps(theirs.describe(), sort_keys=True)}"
              f"\nhermes-hooks: {json.dumps(ours.describe(), sort_keys=True)}")  # fmt: skip
    if case.xfail:
        record(AGENT, case.id, "xfail")
    if case.differs:
        record(AGENT, case.id, f"differs: {case.differs}")
        assert case.differs in DIFFERENCES
        assert theirs != ours, f"named difference {case.differs!r} no longer differs:{detail}"
        return
    if theirs == ours and not case.xfail:
        record(AGENT, case.id, "agree")
    elif not case.xfail:
        record(AGENT, case.id, "disagree")
    assert theirs == ours, f"hermes-hooks decides otherwise than Claude Code:{detail}"


def test_claude_code_payload_fields_match_fixtures(real_runs: dict[str, Real]) -> None:
    """The fields Claude Code sends each event are those recorded in fixtures/claude-code/ (so
    the dialect readers are written against what the agent really sends); with
    ``ORACLE_WRITE_FIXTURES=1`` the fixtures are rewritten from this run."""
    runs = [(real.run.payloads, real.dir) for real in real_runs.values()]
    check_fixtures(FIXTURES, AGENT, runs,
                   ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"))  # fmt: skip


# ---------------------------------------------------------------------- the generated corpus

#: Cases per agent start, and agents side by side, for the generated corpus.
GEN_BATCH = 25
GEN_WORKERS = 3


@pytest.fixture(scope="module")
def generated_runs(
    claude_cli: Installed, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Ran]:
    root = tmp_path_factory.mktemp("oracle-claude-gen")
    return run_all(claude_cli.binary, root, GENERATED, GEN_BATCH, GEN_WORKERS)


def _own(token_where: tuple[str, str], tag: str) -> bool:
    return token_where[1].split("-", 2)[2] in (tag, tag + "x")


def _generated_real(ran: Ran) -> Outcome:
    """What the real agent did about this case's own call."""
    tag = ran.case.tag
    bodies = [b for b in ran.run.bodies("/v1/messages") if b.get("tools")]
    seen: set[tuple[str, str]] = set()
    for body in bodies:
        scan(body.get("messages"), "context", (), seen)
        scan(body.get("system"), "context", (), seen)
    mine = frozenset(s for s in seen if _own(s, tag))
    ran_tool = any((ran.dir / name).exists() for name in ("ran", "ran2", "ran3"))
    args = None
    for p in ran.payloads:
        if p.get("hook_event_name") in ("PostToolUse", "PostToolUseFailure"):
            if p.get("tool_input") != ran.scripted:
                args = p.get("tool_input")
            break
    call = _call_id(bodies, ran.case.mark())
    answered = call is not None and any(
        p.get("tool_use_id") == call for p in _parts(bodies, "tool_result")
    )
    return Outcome(ran=ran_tool, args=args, stopped=not answered, seen=mine)


def _parts(bodies: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """Every content part of type ``kind`` in the conversations the model was sent."""
    return [
        part
        for body in bodies
        for m in body.get("messages") or []
        if isinstance(m, dict) and isinstance(m.get("content"), list)
        for part in m["content"]
        if isinstance(part, dict) and part.get("type") == kind
    ]


def _call_id(bodies: list[dict[str, Any]], mark: str) -> str | None:
    """The id of the model's tool call whose input carries ``mark``."""
    for part in _parts(bodies, "tool_use"):
        if mark in json.dumps(part.get("input")):
            return str(part.get("id"))
    return None


def _generated_ours(ran: Ran) -> Outcome:
    home = ran.dir / "hermes-home"
    home.mkdir(exist_ok=True)
    (home / "config.yaml").write_text(
        yaml.safe_dump({"hooks_settings_files": [str(ran.dir / "settings.json")]})
    )
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    out = hermes_outcome(hooks, ran.payloads, ran.scripted, ran.case.allowed, ())
    mine = frozenset(s for s in out.seen if _own(s, ran.case.tag))
    return dataclasses.replace(out, seen=mine)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in GENERATED])
def test_claude_code_agrees_generated(
    case: GenCase, generated_runs: dict[str, Ran], clean_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = generated_runs[case.id]
    assert ran.run.returncode == 0, f"claude exited {ran.run.returncode}: {ran.run.stderr[-800:]}"
    monkeypatch.chdir(ran.dir.parent / "project")
    theirs = _generated_real(ran)
    ours = _generated_ours(ran)
    detail = (f"\n{json.dumps(case.dims, sort_keys=True)} (batch {ran.batch})"
              f"\nClaude Code: {json.dumps(theirs.describe(), sort_keys=True)}"
              f"\nhermes-hooks: {json.dumps(ours.describe(), sort_keys=True)}")  # fmt: skip
    differs = expected_difference(case)
    if differs:
        record(AGENT, case.id, f"differs: {differs}")
        assert differs in DIFFERENCES
        assert theirs != ours, f"named difference {differs!r} no longer differs:{detail}"
        return
    record(AGENT, case.id, "agree" if theirs == ours else "disagree")
    if theirs.ran is False and ours.ran is True:
        pytest.fail(f"Claude Code blocks, hermes-hooks runs the call:{detail}")
    assert theirs == ours, f"hermes-hooks decides otherwise than Claude Code:{detail}"
