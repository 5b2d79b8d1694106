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
from codex_generated import CASES as GENERATED
from oracle_agents import AgentRun, run_codex
from oracle_corpus import Real, compare, enter_hermes_side, params, run_all
from oracle_dialects import CODEX
from oracle_generated import Batch, GenCase, run_batches
from oracle_generated import compare as compare_generated
from oracle_generated import params as generated_params
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
    "exit2-without-stderr-blocks": (
        "A PreToolUse hook that exits 2 with nothing on stderr: Codex calls it a failed hook "
        "(no reason to block with) and runs the call, whatever stdout says; hermes-hooks "
        "blocks with a message naming the hook (exit 2 means block; never more open)."
    ),
    "block-without-reason-blocks": (
        "`permissionDecision: deny` or `decision: block` without a reason: Codex rejects the "
        "answer as invalid and runs the call; hermes-hooks blocks with a message naming the "
        "hook, and reports it."
    ),
    "unknown-key-ignored": (
        "An answer with a key Codex does not define (a stray Hermes `action: allow` beside a "
        "deny): Codex rejects the whole answer as invalid and runs the call; hermes-hooks "
        "reports the key, ignores it and reads the rest (the deny blocks)."
    ),
    "host-tool-name-matches": (
        "A matcher naming the host's tool (`terminal`): Codex knows no such name; hermes-hooks "
        "lets a matcher name the host's tools too, so the hook runs (and blocks)."
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


# ---------------------------------------------------------------------- generated cases


@pytest.fixture(scope="module")
def generated_runs(
    codex_cli: Installed, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Batch]:
    root = tmp_path_factory.mktemp("oracle-codex-generated")

    def runner(
        binary: Path, d: Path, hooks: dict[str, Any], calls: list[ToolCall], rec: Path
    ) -> AgentRun:
        return run_codex(binary, d, hooks, calls, record=rec)

    return run_batches(CODEX, GENERATED, codex_cli.binary, root, runner, ("PreToolUse", "PostToolUse"),
                       lambda command: ToolCall("exec_command", {"cmd": command}))  # fmt: skip


@pytest.mark.parametrize("case", generated_params(GENERATED))
def test_codex_generated_agrees(
    case: GenCase, generated_runs: dict[str, Batch], clean_env: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    compare_generated(CODEX, generated_runs[case.id], case, DIFFERENCES, monkeypatch, "Bash")
