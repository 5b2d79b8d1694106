"""`hermes hooks doctor | verify | test | stats | list | events` with real files: every source is
covered, nothing is silent, and a problem makes the command exit non-zero."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from shell_helpers import script, write_config

from hermes_hooks.cli import hoist_global_options, hooks_group

ANSWER = script("answer.sh")
BLOCK_RM = script("block_rm.sh")


def _cli(home: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(
        hooks_group, hoist_global_options(["--home", str(home), *args]), env=env
    )
    return result.exit_code, result.output


def _json(home: Path, *args: str) -> Any:
    code, out = _cli(home, *args)
    return code, json.loads(
        out[out.index("{") if out.lstrip().startswith("{") else out.index("[") :]
    )


def _clean_env() -> dict[str, str]:
    """The machine's hermes settings out; the suite's autoload switch (conftest) in."""
    keep = "HERMES_HOOKS_DISABLE_AUTOLOAD"
    return {k: v for k, v in os.environ.items() if not k.startswith("HERMES") or k == keep}


def _answer_hook(answer: str, **extra: Any) -> dict[str, Any]:
    return {"command": f"bash {ANSWER}", "env": {"ANSWER": answer}, **extra}


# ---------------------------------------------------------------------- doctor


def test_doctor_reports_a_plugin_import_error_with_file_and_line(home, plugin_dir):
    plugin_dir("broken", "import os\n\nraise ImportError('missing dependency foo')\n")
    code, out = _cli(home, "doctor")
    assert code == 1
    init = home / "plugins" / "broken" / "__init__.py"
    assert "missing dependency foo" in out and f"{init}:3" in out


def test_doctor_reports_a_syntax_error_with_file_and_line(home, plugin_dir):
    plugin_dir("typo", "def register(ctx)\n    pass\n")
    code, out = _cli(home, "doctor")
    assert code == 1 and "SyntaxError" in out
    assert f"{home / 'plugins' / 'typo' / '__init__.py'}:1" in out


def test_doctor_reports_config_errors_and_misspelt_keys(home):
    (home / "config.yaml").write_text("hook:\n  pre_tool_call: []\n")
    code, doc = _json(home, "doctor", "--json")
    [config] = [c for c in doc["checks"] if c["kind"] == "config"]  # not only a log line
    assert code == 1 and any("'hook' (did you mean 'hooks'?)" in p for p in config["problems"])
    (home / "config.yaml").write_text("hooks: [unclosed\n")
    code, out = _cli(home, "doctor")
    assert code == 1 and "config.yaml" in out and "BAD  config" in out


def test_doctor_checks_gateway_hooks(home):
    hook = home / "hooks" / "broken-gw"
    hook.mkdir(parents=True)
    (hook / "HOOK.yaml").write_text("name: broken-gw\nevents: [agent:start]\n")
    (hook / "handler.py").write_text("raise RuntimeError('gateway handler cannot import')\n")
    code, doc = _json(home, "doctor", "--json")
    assert code == 1 and doc["ok"] is False
    bad = [c for c in doc["checks"] if not c["ok"]]
    assert any("gateway handler cannot import" in " ".join(c["problems"]) for c in bad), bad
    good = home / "hooks" / "greeter"  # a gateway hook that loads is listed too, as loaded
    good.mkdir()
    (good / "HOOK.yaml").write_text("name: greeter\nevents: [agent:start]\n")
    (good / "handler.py").write_text("def handle(event_type, context):\n    return None\n")
    code, doc = _json(home, "doctor", "--json")
    [greeter] = [c for c in doc["checks"] if c["name"] == "gateway:greeter"]
    assert (greeter["kind"], greeter["ok"]) == ("gateway", True)
    assert greeter["notes"] == [f"loaded (gateway: {good})"]


def test_doctor_json_lists_every_check_and_is_ok_when_all_is_well(home, plugin_dir):
    plugin_dir(
        "good", "def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **k: None)\n"
    )
    write_config(home, {"hooks": {"pre_llm_call": [_answer_hook("ctx")]}})
    _cli(home, "approve", "--all")
    code, doc = _json(home, "doctor", "--json")
    assert code == 0 and doc["ok"] is True
    kinds = {(c["kind"], c["name"]) for c in doc["checks"]}
    assert ("plugin", "good") in kinds and any(k == "shell" for k, _ in kinds)


def test_doctor_reports_a_shell_hook_whose_answer_is_ignored(home):
    write_config(home, {"hooks": {"pre_tool_call": [_answer_hook('{"action": "deny"}')]}})
    _cli(home, "approve", "--all")
    code, out = _cli(home, "doctor")
    assert code == 1 and "answer ignored" in out and "did you mean 'block'?" in out


def test_doctor_fails_on_an_unmet_required_guard(home):
    write_config(home, {"plugins": {"required": ["policy"]}})
    code, doc = _json(home, "doctor", "--json")
    assert code == 1
    [check] = [c for c in doc["checks"] if c["kind"] == "required"]
    assert check["name"] == "policy" and "plugins.required" in check["problems"][0]


# ---------------------------------------------------------------------- verify


def test_verify_passes_when_the_guard_blocks_its_canary(home):
    canary = {
        "payload": {"tool_name": "terminal", "args": {"command": "rm -rf /"}},
        "expect": "block",
    }
    write_config(home, {"hooks": {"pre_tool_call": [{"command": BLOCK_RM, "canary": canary}]}})
    code, out = _cli(home, "--accept-hooks", "verify")
    assert code == 0, out
    assert "pass" in out and "expected block, got block" in out


def test_verify_fails_when_the_guard_lets_its_canary_through(home):
    canary = {"payload": {"tool_name": "terminal", "args": {"command": "ls"}}, "expect": "block"}
    write_config(home, {"hooks": {"pre_tool_call": [{"command": BLOCK_RM, "canary": canary}]}})
    code, doc = _json(home, "--accept-hooks", "verify", "--json")
    assert code == 1 and doc["ok"] is False
    [verdict] = doc["canaries"]
    assert verdict["passed"] is False and verdict["got"] == "none"


def test_verify_fails_for_an_unapproved_guard(home):
    canary = {
        "payload": {"tool_name": "terminal", "args": {"command": "rm -rf /"}},
        "expect": "block",
    }
    write_config(home, {"hooks": {"pre_tool_call": [{"command": BLOCK_RM, "canary": canary}]}})
    code, out = _cli(home, "verify")
    assert code == 1 and "FAIL" in out


def test_verify_fires_a_python_plugins_canary(home, plugin_dir):
    plugin_dir(
        "nodrop",
        "def register(ctx):\n"
        "    def guard(tool_name, args, **kw):\n"
        "        if 'DROP' in str(args):\n"
        "            return {'action': 'block', 'message': 'no DROP'}\n"
        "    ctx.register_hook('pre_tool_call', guard)\n",
        "name: nodrop\ncanary:\n  - event: pre_tool_call\n"
        "    payload: {tool_name: sql, args: {query: DROP TABLE x}}\n    expect: block\n"
        "  - event: pre_tool_call\n    payload: {tool_name: sql, args: {query: SELECT 1}}\n"
        "    expect: none\n",
    )
    code, doc = _json(home, "verify", "--json")
    assert code == 0, doc
    assert [v["passed"] for v in doc["canaries"]] == [True, True]


def test_verify_fills_a_canary_from_the_events_example_and_reads_no_opinion_as_none(
    home, plugin_dir
):
    plugin_dir(
        "sqlguard",
        "def register(ctx):\n"
        "    def guard(tool_name=None, args=None, **kw):\n"
        "        if not tool_name or 'DROP' in str(args):\n"
        "            return {'action': 'block', 'message': 'no DROP'}\n"
        "    ctx.register_hook('pre_tool_call', guard)\n",
        "name: sqlguard\ncanary:\n  - event: pre_tool_call\n"
        "    payload: {args: {query: SELECT 1}}\n    expect: no opinion\n",
    )
    code, doc = _json(home, "verify", "--json")
    assert code == 0, doc
    [verdict] = doc["canaries"]
    assert (verdict["passed"], verdict["got"]) == (True, "none")


def test_verify_without_canaries_says_so_and_fails(home):
    code, out = _cli(home, "verify")
    assert code == 1 and "No canary configured" in out


# ---------------------------------------------------------------------- test


def test_test_shows_each_python_hook_payload_raw_answer_and_why_it_was_ignored(home, plugin_dir):
    plugin_dir(
        "denier",
        "def register(ctx):\n"
        "    ctx.register_hook('pre_tool_call', lambda **kw: {'action': 'deny', 'message': 'x'})\n",
    )
    code, doc = _json(home, "test", "pre_tool_call", "--json")
    assert code == 0
    [entry] = doc["hooks"]
    assert entry["name"] == "denier" and entry["source"] == "directory"
    assert entry["raw"] == {"action": "deny", "message": "x"}
    assert "did you mean 'block'?" in entry["dropped"] and entry["outcome"] == "dropped"
    assert entry["payload"]["tool_name"] == "terminal" and entry["elapsed_ms"] >= 0
    assert doc["result"].get("action") is None
    code, out = _cli(home, "test", "pre_tool_call")
    assert "ignored: action 'deny'" in out and "returned: " in out


def test_test_shows_why_a_shell_answer_was_ignored(home):
    write_config(
        home, {"hooks": {"pre_tool_call": [_answer_hook('{"decision": "deny", "reason": "r"}')]}}
    )
    code, out = _cli(home, "--accept-hooks", "test", "pre_tool_call")
    assert code == 0 and "ignored: decision 'deny' is not one of" in out


def test_test_fires_gateway_hooks(home):
    hook = home / "hooks" / "resetter"
    hook.mkdir(parents=True)
    (hook / "HOOK.yaml").write_text("name: resetter\nevents: ['command:*']\n")
    (hook / "handler.py").write_text(
        "def handle(event_type, context):\n    return {'decision': 'deny', 'message': 'not now'}\n"
    )
    code, doc = _json(home, "test", "--gateway", "command:reset", "--json")
    assert code == 0, doc
    [entry] = doc["hooks"]
    assert entry["source"] == "gateway" and entry["payload"]["event_type"] == "command:reset"
    assert doc["result"]["decision"] == "deny"


def test_test_shows_what_each_gateway_hook_did(home):
    answers = {
        "a-denies": "return {'decision': 'deny', 'message': 'not now'}",
        "b-misspells": "return {'decision': 'refuse'}",
        "c-raises": "raise RuntimeError('handler broke')",
        "d-observes": "return None",
    }
    for name, body in answers.items():
        hook = home / "hooks" / name
        hook.mkdir(parents=True)
        (hook / "HOOK.yaml").write_text(f"name: {name}\nevents: ['command:*']\n")
        (hook / "handler.py").write_text(f"def handle(event_type, context):\n    {body}\n")
    code, doc = _json(home, "test", "--gateway", "command:reset", "--json")
    assert code == 0, doc
    seen = {e["name"]: (e["outcome"], e["dropped"], e["failure"]) for e in doc["hooks"]}
    assert seen["gateway:a-denies"] == ("answered", None, None)
    assert seen["gateway:b-misspells"][0] == "dropped"
    assert "'deny'" in seen["gateway:b-misspells"][1]  # the closest valid decision
    outcome, dropped, failure = seen["gateway:c-raises"]
    assert (outcome, dropped) == ("failed", None) and "handler broke" in failure
    assert seen["gateway:d-observes"] == ("no opinion", None, None)


@pytest.mark.parametrize(
    ("payload", "form"),
    [
        ({"tool_name": "terminal", "args": {"command": "rm -rf /"}}, "host keyword arguments"),
        (
            {"hook_event_name": "pre_tool_call", "tool_name": "terminal",
             "tool_input": {"command": "rm -rf /"}, "session_id": "s", "cwd": "/", "extra": {}},
            "Hermes wire JSON",
        ),
        (
            {"hook_event_name": "PreToolUse", "tool_name": "Bash",
             "tool_input": {"command": "rm -rf /"}, "session_id": "s", "cwd": "/",
             "permission_mode": "default", "transcript_path": ""},
            "Claude Code wire JSON",
        ),
    ],
)  # fmt: skip
def test_test_payload_file_accepts_kwargs_or_wire_json(home, tmp_path, payload, form):
    write_config(home, {"hooks": {"pre_tool_call": [{"command": BLOCK_RM}]}})
    path = tmp_path / "payload.json"
    path.write_text(json.dumps(payload))
    code, out = _cli(home, "--accept-hooks", "test", "pre_tool_call", "--payload-file", str(path))
    assert code == 0, out
    assert f"read as {form}" in out and "rm -rf is not allowed" in out


def test_test_payload_file_refuses_unknown_keys(home, tmp_path):
    path = tmp_path / "payload.json"
    path.write_text(json.dumps({"tool": "terminal", "args": {}}))
    code, out = _cli(home, "test", "pre_tool_call", "--payload-file", str(path))
    assert code == 2 and "unknown key(s) for pre_tool_call: 'tool'" in out


def test_test_payload_file_refuses_another_events_payload(home, tmp_path):
    path = tmp_path / "payload.json"
    path.write_text(json.dumps({"hook_event_name": "Stop", "session_id": "s"}))
    code, out = _cli(home, "test", "pre_tool_call", "--payload-file", str(path))
    assert code == 2 and "not pre_tool_call" in out


# ---------------------------------------------------------------------- stats


def test_stats_summarises_receipts_per_hook(home, tmp_path):
    trace = tmp_path / "trace.jsonl"
    write_config(
        home,
        {
            "trace_file": str(trace),
            "hooks": {"pre_tool_call": [{"command": BLOCK_RM}, _answer_hook('{"action": "deny"}')]},
        },
    )
    import hermes_hooks

    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    for command in ("rm -rf /", "ls", "rm -rf /tmp"):
        hooks.pre_tool_call(tool_name="terminal", args={"command": command})
    with trace.open("a") as out:
        out.write("not a receipt\n")
    code, doc = _json(home, "stats", str(trace), "--json")
    assert code == 0 and doc["unreadable"] == 1
    by_hook = {r["hook"]: r for r in doc["hooks"]}
    assert by_hook[BLOCK_RM]["runs"] == 3 and by_hook[BLOCK_RM]["blocks"] == 2
    assert by_hook[f"bash {ANSWER}"]["dropped"] == 3
    assert by_hook[BLOCK_RM]["p50_ms"] <= by_hook[BLOCK_RM]["p95_ms"] <= by_hook[BLOCK_RM]["max_ms"]
    code, out = _cli(home, "stats", str(trace))
    assert code == 0 and "P95 MS" in out and BLOCK_RM in out


# ---------------------------------------------------------------------- list, events, help


def test_list_shows_config_problems_first(home):
    (home / "config.yaml").write_text("plugin:\n  disabled: [x]\n")
    code, rows = _json(home, "list", "--json")
    assert rows[0]["source"] == "config" and rows[0]["status"] == "warning"
    assert "'plugin' (did you mean 'plugins'?)" in rows[0]["error"]
    code, out = _cli(home, "list")
    assert out.startswith("! warning:")


def test_list_shows_safe_mode(home):
    code, out = _cli(home, "list", env={"HERMES_SAFE_MODE": "1"})
    assert "HERMES_SAFE_MODE is on" in out


def test_list_all_shows_every_builtin(home):
    code, rows = _json(home, "list", "--all", "--json")
    from hermes_hooks.builtin_plugins import BUILTINS

    names = {r["name"] for r in rows}
    assert {f"builtin:{b}" for b in BUILTINS} <= names


def test_list_shows_a_missing_script_as_failed(home, tmp_path):
    write_config(home, {"hooks": {"pre_tool_call": [{"command": str(tmp_path / "gone.sh")}]}})
    code, rows = _json(home, "--accept-hooks", "list", "--json")
    [row] = [r for r in rows if r["source"] == "shell"]
    assert row["status"] == "failed" and "gone.sh not found" in row["error"]


def test_events_name_shows_one_event(home):
    code, out = _cli(home, "events", "PreToolUse")
    assert code == 0 and out.startswith("pre_tool_call") and "required:  tool_name, args" in out
    code, doc = _json(home, "events", "pre_tool_call", "--json")
    assert doc["name"] == "pre_tool_call"
    code, out = _cli(home, "events", "PreToolUs")
    assert code == 2 and "unknown event 'PreToolUs'" in out and "did you mean 'PreToolUse'" in out


def test_subcommand_help_shows_the_global_options(home):
    code, out = _cli(home, "doctor", "--help")
    assert "--home PATH" in out and "--accept-hooks" in out and "--verbose" in out


def test_hermes_hooks_help_shows_its_own_name():
    script = Path(sys.executable).with_name("hermes-hooks")
    out = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert out.stdout.startswith("Usage: hermes-hooks ")


def test_verbose_prints_the_traceback_of_a_failing_plugin(home, plugin_dir):
    plugin_dir("broken", "def helper():\n    raise ValueError('deep')\n\nhelper()\n")
    script = Path(sys.executable).with_name("hermes-hooks")
    env = _clean_env()
    out = subprocess.run(
        [str(script), "--home", str(home), "--verbose", "list"],
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert "Traceback (most recent call last)" in out.stderr
    assert f'File "{home / "plugins" / "broken" / "__init__.py"}", line 2' in out.stderr


def test_debug_env_prints_the_traceback_of_a_failing_hook(home, plugin_dir):
    plugin_dir(
        "raiser",
        "def register(ctx):\n    def hook(**kw):\n        raise KeyError('boom')\n"
        "    ctx.register_hook('pre_tool_call', hook)\n",
    )
    code = (
        "import hermes_hooks, logging, sys; logging.basicConfig();"
        f"h = hermes_hooks.load({str(home)!r}, entry_points=False);"
        "h.pre_tool_call(tool_name='t', args={})"
    )
    env = {**_clean_env(),
           "HERMES_HOOKS_DEBUG": "1"}  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert "Traceback" in out.stderr and "line 3, in hook" in out.stderr


def test_colour_only_on_a_terminal_and_never_with_no_color(home, monkeypatch):
    from hermes_hooks.cli import paint

    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdout", Tty())
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert paint("ok", "green") != "ok"
    monkeypatch.setenv("NO_COLOR", "1")
    assert paint("ok", "green") == "ok"


def test_uninstall_fails_when_nothing_was_removed(home):
    code, out = _cli(home, "uninstall", "-y", "hermes-hook-not-installed-anywhere")
    assert code == 1 and "No hermes-hooks plugin was removed" in out


def test_required_guard_blocks_in_the_cli_test_too(home):
    (home / "config.yaml").write_text(yaml.safe_dump({"plugins": {"required": ["policy"]}}))
    code, doc = _json(home, "test", "pre_tool_call", "--json")
    assert doc["result"]["action"] == "block" and "policy" in doc["result"]["message"]


def test_test_shows_the_lockdown_that_blocked(home):
    (home / "config.yaml").write_text("hooks: [unclosed\n")
    code, doc = _json(home, "test", "pre_tool_call", "--json")
    [entry] = doc["hooks"]
    assert entry["name"] == "builtin:lockdown" and entry["answer"]["action"] == "block"
    assert doc["result"]["action"] == "block"


def test_config_error_is_printed_once_per_command(home):
    (home / "config.yaml").write_text("hooks: [unclosed\n")
    script = Path(sys.executable).with_name("hermes-hooks")
    env = _clean_env()
    out = subprocess.run([str(script), "--home", str(home), "doctor"], capture_output=True,
                         text=True, timeout=60, env=env)  # fmt: skip
    assert out.returncode == 1
    assert out.stderr.count("YAML syntax error") == 1, out.stderr
    assert "config: " not in out.stderr


def test_list_shows_an_unmet_required_guard_first(home):
    write_config(home, {"plugins": {"required": ["policy"]}})
    code, rows = _json(home, "list", "--json")
    assert rows[0]["name"] == "required: policy" and rows[0]["status"] == "failed"


def test_stats_counts_firings_where_a_hook_did_not_run(home, tmp_path):
    trace = tmp_path / "trace.jsonl"
    write_config(
        home, {"trace_file": str(trace), "hooks": {"pre_tool_call": [{"command": BLOCK_RM}]}}
    )
    import hermes_hooks

    hooks = hermes_hooks.load(home, entry_points=False, ask=False)
    hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf /"})
    code, doc = _json(home, "stats", str(trace), "--json")
    [row] = doc["hooks"]
    assert row["runs"] == 0 and row["not_run"] == 1 and row["p50_ms"] is None


def test_stats_counts_a_denied_permission_as_a_block_and_a_changed_script_as_not_run(
    home, tmp_path, plugin_dir
):
    import hermes_hooks

    trace = tmp_path / "trace.jsonl"
    guard = tmp_path / "guard.sh"
    guard.write_text("#!/bin/sh\ncat > /dev/null\n")
    guard.chmod(0o755)
    plugin_dir(
        "nope",
        "def register(ctx):\n"
        "    ctx.register_hook('permission_request', lambda **kw: {'action': 'deny'})\n",
    )
    write_config(
        home, {"trace_file": str(trace), "hooks": {"pre_tool_call": [{"command": str(guard)}]}}
    )
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)  # approves, pins
    hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    hooks.call("permission_request", tool_name="terminal", args={"command": "ls"})
    hooks.close()
    guard.write_text("#!/bin/sh\ncat > /dev/null\necho edited > /dev/null\n")
    hooks = hermes_hooks.load(home, entry_points=False, ask=False)
    hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})  # changed: not run
    hooks.close()
    code, doc = _json(home, "stats", str(trace), "--json")
    by_hook = {r["hook"]: r for r in doc["hooks"]}
    assert (by_hook[str(guard)]["runs"], by_hook[str(guard)]["not_run"]) == (1, 1)
    assert (by_hook["nope"]["runs"], by_hook["nope"]["blocks"]) == (1, 1)


def test_percentiles_are_nearest_rank():
    from hermes_hooks.cli.stats import percentile

    values = [float(n) for n in range(20, 0, -1)]
    assert [percentile(values, q) for q in (0.5, 0.95, 1.0)] == [10.0, 19.0, 20.0]
    assert percentile([7.0], 0.95) == 7.0
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5) == 3.0  # the median of five: rank 3


def test_gateway_option_is_refused_for_other_events(home):
    code, out = _cli(home, "test", "pre_tool_call", "--gateway", "command:reset")
    assert code == 2 and "--gateway fires gateway events" in out


def test_doctor_says_which_hooks_never_run_under_hermes_agent_0_19(home, tmp_path):
    import yaml as _yaml

    script = tmp_path / "compact.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    config = {
        "plugins": {"enabled": ["hermes-hooks", "gateway:greeter"]},
        "hooks": {
            "PreCompact": [{"command": str(script)}],
            "pre_tool_call": [{"command": str(script)}],
        },
    }
    (home / "config.yaml").write_text(_yaml.safe_dump(config))
    gateway = home / "hooks" / "greeter"  # Hermes' own gateway runs HOOK.yaml hooks: not reported
    gateway.mkdir(parents=True)
    (gateway / "HOOK.yaml").write_text("name: greeter\nevents: ['agent:start']\n")
    (gateway / "handler.py").write_text("def handle(event_type, context):\n    return None\n")
    code, out = _json(home, "--accept-hooks", "doctor", "--json")
    _, rows = _json(home, "list", "--json")
    assert ("gateway:greeter", "active") in {(r["name"], r["status"]) for r in rows}
    assert code == 1
    hermes = [c for c in out["checks"] if c["kind"] == "hermes"]
    assert len(hermes) == 1 and "pre_compress (PreCompact)" in json.dumps(hermes[0])
    assert "never fires" in json.dumps(hermes[0])
