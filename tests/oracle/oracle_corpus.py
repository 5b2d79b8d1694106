"""Running a dialect corpus (gemini_cases.py, codex_cases.py): every case once by the real CLI,
a few at a time, with a recording hook on every event it may fire; then, per case, hermes-hooks
loaded with the case's own hook file and fed the recorded payloads. Shared by
test_oracle_gemini.py and test_oracle_codex.py."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from claude_cases import Case
from oracle_agents import AgentRun, recorder_command
from oracle_compare import Outcome, hermes_outcome, record
from oracle_dialects import Agent, agent_outcome, dialect_kwargs, hermes_for
from oracle_servers import ToolCall

WORKERS = 3
#: (binary, case dir, hooks, calls, record file) -> the run
Runner = Callable[[Path, Path, dict[str, Any], list[ToolCall], Path], AgentRun]


@dataclass
class Real:
    case: Case
    dir: Path
    hooks: dict[str, Any]
    run: AgentRun
    scripted: dict[str, Any]


def run_all(
    agent: Agent,
    cases: list[Case],
    binary: Path,
    root: Path,
    runner: Runner,
    recorded: tuple[str, ...],
    call: Callable[[str], ToolCall],
) -> dict[str, Real]:
    """Run every case with the real CLI (``call`` builds the scripted tool call from a command)."""

    def one(case: Case) -> Real:
        d = root / case.id
        d.mkdir(parents=True)
        hooks = case.hooks(d)
        real_hooks = json.loads(json.dumps(hooks))
        rec = d / "payloads.jsonl"
        for event in recorded:
            entry = {"type": "command", "command": recorder_command(rec)}
            if agent.dialect == "gemini":
                entry["name"] = "recorder"  # Gemini CLI names its hooks
            real_hooks.setdefault(event, []).append({"hooks": [entry]})
        command = case.command.format(d=d)
        run = runner(binary, d, real_hooks, [call(command)], rec)
        return Real(case, d, hooks, run, {"command": command})

    with ThreadPoolExecutor(WORKERS) as pool:
        return {r.case.id: r for r in pool.map(one, cases)}


def params(cases: list[Case]) -> list[Any]:
    out = []
    for case in cases:
        marks = [pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else []
        out.append(pytest.param(case, id=case.id, marks=marks))
    return out


def compare(agent: Agent, real: Real, differences: Mapping[str, str], tool_name: str) -> None:
    """The case's outcome in the real run and in hermes-hooks; record the verdict and assert."""
    case = real.case
    assert real.run.returncode == 0, (
        f"{agent.name} exited {real.run.returncode}: {real.run.stderr[-1500:]}"
    )
    leaked = [r for r in real.run.refused() if not r.startswith("CONNECT")]
    assert not leaked, f"requests that were not meant for the fake model: {leaked}"
    theirs: Outcome = agent_outcome(agent, real.run.requests, real.run.stdout + real.run.stderr,
                                    real.run.payloads, real.dir, case.markers)  # fmt: skip
    hooks = hermes_for(agent, real.dir, real.hooks)
    ours = hermes_outcome(hooks, real.run.payloads, real.scripted, case.allowed, case.markers,
                          names=agent.names,
                          kwargs_of=lambda p: dialect_kwargs(agent.dialect, p),
                          tool_name=tool_name)  # fmt: skip
    both = {agent.name: theirs.describe(), "hermes-hooks": ours.describe()}
    (real.dir / "outcomes.json").write_text(json.dumps(both, indent=2))  # to read after a run
    detail = (f"\n{agent.name}: {json.dumps(theirs.describe(), sort_keys=True)}"
              f"\nhermes-hooks: {json.dumps(ours.describe(), sort_keys=True)}")  # fmt: skip
    if case.xfail:
        record(agent.name, case.id, "xfail")
    if case.differs:
        record(agent.name, case.id, f"differs: {case.differs}")
        assert case.differs in differences
        assert theirs != ours, f"named difference {case.differs!r} no longer differs:{detail}"
        return
    if not case.xfail:
        record(agent.name, case.id, "agree" if theirs == ours else "disagree")
    assert theirs == ours, f"hermes-hooks decides otherwise than {agent.name}:{detail}"


def enter_hermes_side(real: Real, monkeypatch: pytest.MonkeyPatch) -> None:
    """The HOME and working directory hermes-hooks reads the agent's files from, apart from
    the real agent's."""
    monkeypatch.setenv("HOME", str(real.dir / "hermes-user"))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    (real.dir / "hermes-project").mkdir(exist_ok=True)
    monkeypatch.chdir(real.dir / "hermes-project")
