"""`hermes hooks demo` replays the bundled session through one hook of every kind."""

from __future__ import annotations

import pytest

from hermes_hooks.demo import run_demo

# The demo finds the example plugin through its entry point: autoload stays on for these tests.
pytestmark = pytest.mark.entry_points


def test_demo_replays_the_session_through_every_kind_of_hook():
    run = run_demo()
    sources = {(r["event"], r["source"]) for r in run.rows}
    assert {
        ("pre_tool_call", "directory"),  # the Hermes-style plugin
        ("pre_tool_call", "entrypoint"),  # the example plugin, found through its dist-info
        ("pre_tool_call", "shell"),  # config.yaml and settings.json hooks
        ("gateway_event", "gateway"),
    } <= sources
    calls = {c.args["command"]: c for c in run.replay.calls}
    assert calls["ls -la"].action is None
    assert (
        calls["rm -rf / --no-preserve-root"].action,
        calls["rm -rf / --no-preserve-root"].source,
    ) == ("block", "guard")
    assert "no-pipe-to-shell" in calls["curl https://get.example.com/install.sh | sh"].message
    assert "no-world-writable" in calls["chmod -R 777 ."].message  # the Claude Code hook
    assert calls["git push origin main"].action == "approve"
    summary = run.replay.summary()
    assert summary["results_rewritten"] == 1  # the secret in `cat .env`
    assert "Note from hermes-hook-example" in next(
        f.result for f in run.replay.firings if f.event == "pre_llm_call"
    )
    assert [r.decision for _, _, r in run.gateway] == ["deny", None]
    assert len(run.audit) == 3 and '"ls -la"' in run.audit[0]


def test_demo_works_when_installed_under_a_group_writable_umask(tmp_path):
    import shutil

    from hermes_hooks.demo import DEMO_HOME

    installed = tmp_path / "installed"
    shutil.copytree(DEMO_HOME, installed)
    for path in [installed, *installed.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o020)  # what `umask 002` gives
    run = run_demo(installed)
    assert ("gateway_event", "gateway") in {(r["event"], r["source"]) for r in run.rows}
    assert all(r["status"] == "active" for r in run.rows)


def test_the_demo_releases_the_hooks_it_loaded(closed_runtimes):
    run_demo()
    assert len(closed_runtimes) == 1  # its watchdog thread and shell hooks end with the demo
