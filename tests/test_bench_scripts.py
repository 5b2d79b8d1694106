"""The benchmark scripts run and print their tables (a smoke run: their figures are checked by
reading docs/performance.md, never by a timed unit test)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _run(script: str, *args: str) -> str:
    out = subprocess.run(
        [sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.slow
def test_load_bench_reports_one_scan_and_no_builtin_for_an_empty_home():
    text = _run("load.py", "--runs", "1")
    rows = {line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("| ")}
    empty = [c.strip() for c in rows["empty home"].split("|")]
    assert empty[5] == "1" and empty[6] == "none"  # one entry-point scan, no built-in imported
    many = [c.strip() for c in rows["empty home, 1,000 installed distributions"].split("|")]
    assert many[5] == "1"
    shell = rows["50 shell hooks"]
    assert "shell_hooks" in shell and "dangerous_patterns" not in shell


@pytest.mark.slow
def test_builtins_bench_measures_every_context_builtin_beside_a_shell_hook():
    text = _run("builtins.py", "--rounds", "1")
    for name in ("add_date", "add_git_status", "add_prompt_files", "dangerous_patterns",
                 "one shell hook (pre_llm_call)"):  # fmt: skip
        assert f"| {name} |" in text
    assert "said nothing" not in text


@pytest.mark.slow
def test_shell_bench_runs_the_docs_bash_worker():
    text = _run("shell.py", "--rounds", "2")  # fails when docs/shell-hooks.md loses the example
    assert "| 1 warm worker (bash, the docs' example) through `hooks.pre_tool_call` |" in text


def test_command_guard_bench_reports_both_corpora_for_each_checker():
    text = _run("command_guard.py", "--quick", "--no-hermes")
    assert "dcg 350 lines (101 deny, 249 allow)" in text
    for checker in ("command_guard (every pack)", "dangerous_patterns (every shipped group)"):
        for corpus in ("dcg", "public"):
            assert f"| {checker} | {corpus} |" in text


@pytest.mark.slow
def test_serve_load_bench_checks_every_decision_of_mixed_agents():
    text = _run("serve_load.py", "--workers", "2", "--clients", "8", "--events", "400")
    for figure in ("lost", "duplicated", "transport errors"):
        assert f"| {figure} | 0 |" in text
    assert "| misrouted (another request's or another agent's reply) | 0 |" in text
    assert "| p99 per request |" in text


def test_serve_profile_bench_measures_the_service_and_breaks_a_request_down():
    """One request's time: CPU per request, the profile by part, variants side by side."""
    plain = _run("serve_profile.py", "--requests", "40")
    assert "| five home |" in plain
    profile = _run("serve_profile.py", "--requests", "40", "--profile")
    for part in ("shell worker round trip (guard)", "command_guard (guard)",
                 "HTTP: uvicorn + parser", "| total |"):  # fmt: skip
        assert part in profile
    compared = _run("serve_profile.py", "--compare", "floor", ".:plain", ".",
                    "--requests", "40", "--rounds", "2")  # fmt: skip
    for variant in ("floor", ".:plain", "."):
        assert f"| {variant} |" in compared
