"""Differential tests: each hook configuration of the Codex corpus (codex_cases.py) is run by the
real Codex (``codex exec`` against a scripted fake model) and by hermes-hooks
(``hooks_sources: [codex]``, the same hooks.json, fed the payloads the real agent sent), and the
outcomes must match. The real runs happen once, a few at a time, in a module fixture."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from claude_cases import Case
from codex_cases import CASES
from oracle_agents import AgentRun, run_codex
from oracle_corpus import Real, compare, enter_hermes_side, params, run_all
from oracle_dialects import CODEX
from oracle_install import Installed
from oracle_servers import ToolCall

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

#: Every event a headless one-call ``codex exec`` run may fire (a recording hook on each).
RECORDED = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
            "Stop")  # fmt: skip

#: Where hermes-hooks deliberately differs from Codex, by name; docs/dialects.md explains each
#: one under "Codex".
DIFFERENCES = {
    "ask-asks": (
        "`permissionDecision: ask` from a PreToolUse hook: Codex rejects it as a hook error and "
        "runs the call; hermes-hooks asks for approval instead, which a headless host cannot "
        "give, so the call is refused (never more open than Codex)."
    ),
    "continue-false-blocks": (
        "`continue: false` from a PreToolUse hook: Codex does not read it there and runs the "
        "call; hermes-hooks has no 'stop the agent' answer for a tool call and blocks the call, "
        "with `stopReason` as its result (degrade to block, never open)."
    ),
    "prompt-block-reason-shown": (
        "A UserPromptSubmit block (`decision: block`, exit 2, `continue: false`): both refuse the "
        "prompt (no model call); `codex exec` ends the turn without printing the reason, "
        "hermes-hooks gives the host the reason to show the user."
    ),
    "post-context-in-result": (
        "PostToolUse `additionalContext`: Codex gives it to the model as a message of its own "
        "beside the tool's result (a `decision: block` reason goes into the result); the Hermes "
        "host appends every post_tool_call answer to the tool's result (DESIGN: one feedback "
        "text), so the model reads the same words in the result."
    ),
}


@pytest.fixture(scope="module")
def real_runs(codex_cli: Installed, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Real]:
    root = tmp_path_factory.mktemp("oracle-codex")

    def runner(
        binary: Path, d: Path, hooks: dict[str, Any], calls: list[ToolCall], rec: Path
    ) -> AgentRun:
        return run_codex(binary, d, hooks, calls, record=rec)

    return run_all(CODEX, CASES, codex_cli.binary, root, runner, RECORDED,
                   lambda command: ToolCall("exec_command", {"cmd": command}))  # fmt: skip


@pytest.mark.parametrize("case", params(CASES))
def test_codex_agrees(
    case: Case, real_runs: dict[str, Real], clean_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = real_runs[case.id]
    enter_hermes_side(real, monkeypatch)
    compare(CODEX, real, DIFFERENCES, "Bash")
