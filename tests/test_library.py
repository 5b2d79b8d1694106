"""The built-in library (context built-ins and limits) through hermes_hooks.load() with a real
git repository."""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

import pytest

import hermes_hooks


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    path = tmp_path / "project"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "you@example.com")
    git(path, "config", "user.name", "You")
    (path / "app.py").write_text("print('hi')\n")
    (path / "AGENTS.md").write_text("Run `make check` before committing.\n")
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "first commit")
    (path / "app.py").write_text("print('hello')\n")
    (path / ".hidden").write_text("x")
    monkeypatch.chdir(path)
    return path


def test_context_built_ins_every_turn_and_first_turn(home, repo):
    config = {name: True for name in (
        "add_date", "add_git_status", "add_git_diff", "add_environment_info", "add_user_info",
        "add_recent_commits", "add_directory_listing", "add_prompt_files",
    )}  # fmt: skip
    hooks = hermes_hooks.load(home, config, entry_points=False)
    first = hooks.pre_llm_call(session_id="s", user_message="hi", is_first_turn=True)
    later = hooks.pre_llm_call(session_id="s", user_message="more", is_first_turn=False)
    assert "Today is" in first and "Today is" in later
    assert "## main" in first and "M app.py" in first  # git status --short --branch
    assert "app.py | 2 +-" in first  # git diff --stat
    assert "first commit" in first and "first commit" not in later  # recent commits, once
    assert f"Working directory: {repo}" in first and "a git repository" in first
    assert "Run `make check`" in first and "Run `make check`" not in later  # AGENTS.md
    listing = first.split(f"Files in {repo}:\n")[1].split("\n\n")[0]
    assert "app.py" in listing and ".hidden" not in listing  # the listing skips dot-files
    rows = {r["name"]: r["matcher"] for r in hooks.rows() if r["event"] == "pre_llm_call"}
    assert rows["builtin:add_date"] == "every turn" and rows["builtin:add_git_diff"] == "every turn"
    assert rows["builtin:add_prompt_files"] == "first turn"


def test_git_built_ins_are_silent_without_git(home, repo, monkeypatch):
    monkeypatch.setenv("PATH", str(repo / "no-such-dir"))  # in a repository, but no git at all
    hooks = hermes_hooks.load(home, {"add_git_status": True, "add_date": True}, entry_points=False)
    context = hooks.pre_llm_call(session_id="s", is_first_turn=True)
    assert "Today is" in context and "## main" not in context


def test_a_diff_that_is_not_utf8_still_gives_context(home, repo):
    (repo / "app.py").write_bytes(b"print('caf\xe9')\n")  # Latin-1, as some old files are
    hooks = hermes_hooks.load(
        home, {"add_git_diff": {"full": True}, "add_date": True}, entry_points=False
    )
    context = hooks.pre_llm_call(session_id="s", is_first_turn=True)
    assert "Today is" in context and "+print('caf\ufffd')" in context


def test_a_bad_option_silences_that_built_in_only_and_is_reported_once(home, repo, caplog):
    config = {"add_recent_commits": {"count": "many"}, "add_date": True}
    hooks = hermes_hooks.load(home, config, entry_points=False)
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        first = hooks.pre_llm_call(session_id="s", is_first_turn=True)
        again = hooks.pre_llm_call(session_id="t", is_first_turn=True)
    assert "Today is" in first and "Today is" in again and "Recent commits" not in first
    said = [r.getMessage() for r in caplog.records if "add_recent_commits" in r.getMessage()]
    assert len(said) == 1 and "'many'" in said[0]


def test_git_built_ins_are_silent_outside_a_repository(home, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    hooks = hermes_hooks.load(
        home, {"add_git_status": True, "add_recent_commits": True}, entry_points=False
    )
    assert hooks.pre_llm_call(session_id="s", is_first_turn=True) is None


def test_directory_listing_caps_at_its_limit(home, tmp_path, monkeypatch):
    folder = tmp_path / "listing"
    folder.mkdir()
    for n in range(7):
        (folder / f"f{n}.txt").write_text("x")
    monkeypatch.chdir(folder)
    hooks = hermes_hooks.load(
        home, {"add_directory_listing": {"max_entries": 5}}, entry_points=False
    )
    text = hooks.pre_llm_call(session_id="s", is_first_turn=True)
    assert "f4.txt" in text and "f5.txt" not in text and "… and 2 more" in text


def test_large_tool_results_are_cut_with_a_note_and_kept_in_a_file(home):
    hooks = hermes_hooks.load(
        home, {"limit_large_tool_results": {"max_bytes": 1000}}, entry_points=False
    )
    big = "HEAD" + "x" * 5000 + "TAIL"
    out = hooks.transform_tool_result(
        tool_name="terminal", result=big, session_id="s1", tool_call_id="c9"
    )
    assert out.startswith("HEAD") and out.endswith("TAIL") and len(out) < 1200
    path = Path(out.split("the full text is in ")[1].split("]")[0])
    assert path.read_text() == big and path.parent == home / "tool-results"
    small = "fine"
    assert hooks.transform_tool_result(tool_name="terminal", result=small) == small
    [row] = [r for r in hooks.rows() if r["name"] == "builtin:limit_large_tool_results"]
    assert row["event"] == "transform_tool_result"


def test_nothing_configured_nothing_loaded(home):
    hooks = hermes_hooks.load(home, {}, entry_points=False)
    assert "builtin:library" not in hooks.records
    assert not hooks.has_hook("pre_llm_call") and not hooks.has_hook("transform_tool_result")
    big = "x" * 100_000
    assert hooks.transform_tool_result(tool_name="terminal", result=big) == big
    assert not (home / "tool-results").exists()
