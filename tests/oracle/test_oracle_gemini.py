"""Differential tests: each hook configuration of the Gemini CLI corpus (gemini_cases.py) is run
by the real Gemini CLI (``gemini --yolo -p`` against a scripted fake model) and by hermes-hooks
(``hooks_sources: [gemini]``, the same settings.json, fed the payloads the real agent sent), and
the outcomes must match. The real runs happen once, a few at a time, in a module fixture."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from claude_cases import Case
from gemini_cases import CASES, SHELL
from gemini_generated import CASES as GENERATED
from oracle_agents import AgentRun, run_gemini
from oracle_corpus import Real, compare, enter_hermes_side, params, run_all
from oracle_dialects import GEMINI
from oracle_generated import Batch, GenCase, run_batches
from oracle_generated import compare as compare_generated
from oracle_generated import params as generated_params
from oracle_install import Installed
from oracle_servers import ToolCall

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

#: Every event a headless one-call ``gemini -p`` run may fire (a recording hook on each).
RECORDED = ("SessionStart", "BeforeAgent", "BeforeModel", "AfterModel", "BeforeToolSelection",
            "BeforeTool", "AfterTool", "AfterAgent", "Notification", "SessionEnd")  # fmt: skip

#: Where hermes-hooks deliberately differs from Gemini CLI, by name; docs/dialects.md explains
#: each one under "Gemini CLI".
DIFFERENCES = {
    "ask-headless": (
        "`decision: ask` in a headless run: Gemini CLI asks for a confirmation nobody can give "
        "and ends the turn (the model is not called again); hermes-hooks has nobody to ask "
        "either and refuses the call with the reason as its result, and the agent goes on."
    ),
    "unknown-decision-blocks": (
        "A `decision` Gemini CLI does not define (`maybe`): Gemini CLI runs the tool; "
        "hermes-hooks blocks it and reports the answer (a guard that cannot be read never lets "
        "the action through)."
    ),
    "continue-false-blocks": (
        "`continue: false` from a BeforeTool hook: Gemini CLI ends the turn (the tool does not "
        "run, the model is not called again); hermes-hooks has no 'stop the agent' answer for a "
        "tool call and blocks the call, with `stopReason` as its result."
    ),
    "after-deny-keeps-output": (
        "An AfterTool `decision: deny`: Gemini CLI replaces the tool's output with the reason; "
        "the Hermes host appends the reason to the output (post_tool_call returns feedback, it "
        "cannot replace a result)."
    ),
    "model-deny-observes": (
        "A BeforeModel `decision: deny`: Gemini CLI makes no model call and ends the turn with "
        "the reason; hermes-hooks runs BeforeModel hooks as observers (pre_llm_call cannot stop "
        "a model call), reported when they are loaded."
    ),
    "decision-words-any-case": (
        "`decision: DENY` (any case, padded): Gemini CLI blocks only on the exact words `deny` "
        "and `block` and runs the call; hermes-hooks reads the word in any case and blocks."
    ),
    "exit2-silent-blocks": (
        "A BeforeTool hook that exits 2 and prints nothing: Gemini CLI has no answer to read "
        "and runs the call; hermes-hooks blocks with a message naming the hook (exit 2 means "
        "block; never more open)."
    ),
    "one-block-reason": (
        "Two BeforeTool hooks that both deny: Gemini CLI gives the model every reason, joined; "
        "hermes-hooks blocks with the first hook's reason (in configured order)."
    ),
    "host-tool-name-matches": (
        "A matcher naming the host's tool (`terminal`): Gemini CLI knows no such name; "
        "hermes-hooks lets a matcher name the host's tools too, so the hook runs (and blocks)."
    ),
}


@pytest.fixture(scope="module")
def real_runs(gemini_cli: Installed, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Real]:
    root = tmp_path_factory.mktemp("oracle-gemini")

    def runner(
        binary: Path, d: Path, hooks: dict[str, Any], calls: list[ToolCall], rec: Path
    ) -> AgentRun:
        return run_gemini(binary, d, hooks, calls, record=rec)

    return run_all(GEMINI, CASES, gemini_cli.binary, root, runner, RECORDED,
                   lambda command: ToolCall(SHELL, {"command": command}))  # fmt: skip


@pytest.mark.parametrize("case", params(CASES))
def test_gemini_cli_agrees(
    case: Case, real_runs: dict[str, Real], clean_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = real_runs[case.id]
    enter_hermes_side(real, monkeypatch)
    compare(GEMINI, real, DIFFERENCES, SHELL)


# ---------------------------------------------------------------------- generated cases


@pytest.fixture(scope="module")
def generated_runs(
    gemini_cli: Installed, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Batch]:
    root = tmp_path_factory.mktemp("oracle-gemini-generated")

    def runner(
        binary: Path, d: Path, hooks: dict[str, Any], calls: list[ToolCall], rec: Path
    ) -> AgentRun:
        return run_gemini(binary, d, hooks, calls, record=rec)

    return run_batches(GEMINI, GENERATED, gemini_cli.binary, root, runner, ("BeforeTool", "AfterTool"),
                       lambda command: ToolCall(SHELL, {"command": command}), size=24)  # fmt: skip


@pytest.mark.parametrize("case", generated_params(GENERATED))
def test_gemini_cli_generated_agrees(
    case: GenCase, generated_runs: dict[str, Batch], clean_env: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    compare_generated(GEMINI, generated_runs[case.id], case, DIFFERENCES, monkeypatch, SHELL)
