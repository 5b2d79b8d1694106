"""``{type: builtin, name, args}`` entries under ``hooks:``: a built-in registered on the events
its entries name, through ``hermes_hooks.load()`` with a real config.yaml."""

from __future__ import annotations

import importlib
import logging
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from hermes_hooks.builtin_plugins import DECLARED, switches
from shell_helpers import write_config

import hermes_hooks
from hermes_hooks.cli import hoist_global_options, hooks_group

AWS = "AKIAIOSFODNN7EXAMPLE"


def load(home: Path, **config: object) -> hermes_hooks.Hooks:
    write_config(home, dict(config))
    return hermes_hooks.load(home, entry_points=False)


def builtin(name: str, args: object = None) -> dict:
    return {"type": "builtin", "name": name, **({"args": args} if args is not None else {})}


def test_a_builtin_entry_registers_it_on_that_event_only(home):
    hooks = load(home, hooks={"pre_tool_call": [builtin("redact_secrets")]})
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": f"echo {AWS}"})
    assert decision.args is not None and AWS not in decision.args["command"]
    text = f"key {AWS}"
    assert hooks.transform_tool_result(tool_name="terminal", result=text) == text  # not put there
    rows = [r for r in hooks.rows() if r["name"] == "builtin:redact_secrets"]
    assert [r["event"] for r in rows] == ["pre_tool_call"]


def test_args_are_the_top_level_value_a_list_fills_the_main_argument(home, tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    for i in range(4):
        subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", f"commit-{i}"], check=True)
    hooks = load(home, hooks={"pre_llm_call": [builtin("add_recent_commits", [2]),
                                               builtin("add_date")]})  # fmt: skip
    monkeypatch.chdir(repo)
    text = hooks.pre_llm_call(session_id="s", is_first_turn=True)
    commits = text.split("Recent commits:\n", 1)[1].splitlines()
    # each line is "<short sha> <subject>"; compare subjects, as a sha may contain any text
    assert [line.split(" ", 1)[1] for line in commits] == ["commit-3", "commit-2"]
    assert "Today is" in text


def test_dangerous_patterns_as_an_entry(home):
    (home / "dangerous-patterns.yaml").parent.mkdir(parents=True, exist_ok=True)
    (home / "dangerous-patterns.yaml").write_text(
        "rules:\n  - pattern: '\\bvultr\\s+instance\\s+delete'\n"
        "    description: deleting a Vultr instance\n    action: deny\n"
    )
    hooks = load(home, hooks={"PreToolUse": [builtin("dangerous_patterns")]})
    decision = hooks.pre_tool_call(
        tool_name="terminal", args={"command": "vultr instance delete x"}
    )
    assert decision.action == "block" and "deleting a Vultr instance" in decision.message


def test_unknown_names_and_unserved_events_are_reported_with_file_and_entry(home, caplog):
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(home, hooks={"pre_tool_call": [builtin("redact_secret"),
                                                    builtin("add_date", None) | {"arg": 1}],
                                  "on_session_end": [builtin("dangerous_patterns")]})  # fmt: skip
    path = home / "config.yaml"
    assert (f"hooks.pre_tool_call[0] in {path}: unknown built-in 'redact_secret' (did you mean "
            "'redact_secrets'?)") in caplog.text  # fmt: skip
    assert f"hooks.pre_tool_call[1] in {path}: unknown key 'arg' for a builtin hook" in caplog.text
    assert "built-in 'add_date' does not serve pre_tool_call; it serves pre_llm_call" in caplog.text
    assert (f"hooks.on_session_end[0] in {path}: built-in 'dangerous_patterns' does not serve "
            "on_session_end; it serves pre_tool_call") in caplog.text  # fmt: skip
    assert not any(r["source"] == "builtin" for r in hooks.rows())
    assert "builtin:shell_hooks" not in hooks.records  # builtin entries are no shell hooks


def test_http_post_entries_post_the_events_they_are_under(home):
    hooks = load(home, hooks={"on_session_end": [builtin("http_post", ["http://127.0.0.1:9/x"])]},
                 allowed_http_hook_urls=["http://127.0.0.1:9/*"])  # fmt: skip
    rows = [r for r in hooks.rows() if r["name"] == "builtin:http_post"]
    assert [r["event"] for r in rows] == ["on_session_end"]


def test_hooks_list_shows_builtin_entries(home):
    write_config(home, {"hooks": {"pre_llm_call": [builtin("add_date")]}})
    result = CliRunner().invoke(
        hooks_group, hoist_global_options(["--home", str(home), "list", "--json"])
    )
    assert result.exit_code == 0 and '"builtin:add_date"' in result.output


@pytest.mark.parametrize(
    ("module_name", "name"), [(b.name, s.name) for b in DECLARED for s in b.switches]
)
def test_serves_matches_what_each_builtin_implements(home, module_name, name):
    served = switches.SERVES[name]
    module = importlib.import_module(f"hermes_hooks.builtin_plugins.{module_name}")
    value = {"http_post": {"url": "http://127.0.0.1:9/x"}, "max_iterations": 5}.get(name, True)
    write_config(home, {name: value, "allowed_http_hook_urls": ["http://127.0.0.1:9/*"]})
    hooks = hermes_hooks.load(home, entry_points=False)
    plugin = module.setup(hooks)
    rows = [r["event"] for r in plugin.rows() if r["name"] == f"builtin:{name}"]
    if served is not None:
        assert sorted(set(rows)) == sorted(served)
        # and what is registered (rows and events are read from SERVES by some built-ins):
        # with only this built-in on, the hooked events are its implementations
        hooked = sorted(e for e in hooks.manager.events if e in hooks.manager.hooked)
        assert hooked == sorted(served)


@pytest.mark.parametrize(
    ("module_name", "name"), [(b.name, s.name) for b in DECLARED for s in b.switches]
)
def test_each_builtin_reports_its_runs_to_the_tracer(home, tmp_path, module_name, name):
    # CONTRIBUTING, "Adding a built-in hook source", step 5: the dispatcher does not trace a
    # source's own impl, so a built-in that does not report its runs leaves no receipt
    import json

    served = switches.SERVES[name]
    if not served:
        pytest.skip(f"{name} serves no event of its own")
    value = {"http_post": {"url": "http://127.0.0.1:9/x"}, "max_iterations": 5}.get(name, True)
    trace = tmp_path / "trace.jsonl"
    write_config(home, {name: value, "allowed_http_hook_urls": ["http://127.0.0.1:9/*"],
                        "trace_file": str(trace)})  # fmt: skip
    hooks = hermes_hooks.load(home, entry_points=False)
    for event in served:
        hooks.call(event, **hooks.manager.event(event).example)
    hooks.close()
    receipts = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    names = {f"builtin:{name}", f"builtin:{module_name}"}  # the library is one plugin
    mine = {r.get("event") for r in receipts if r.get("hook") in names}
    assert mine == set(served), f"{name}: receipts for {sorted(mine)}, serves {sorted(served)}"
