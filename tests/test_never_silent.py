"""Never silent, through hermes_hooks.load() with real files: ignored shell answers are reported,
shell runs are traced, required guards fail closed, a host supplies the consent prompt."""

from __future__ import annotations

import json
import logging

import pytest
import yaml
from shell_helpers import load, script

import hermes_hooks

ANSWER = script("answer.sh")


def _answer_hook(answer: str, **extra):
    return {"command": f"bash {ANSWER}", "env": {"ANSWER": answer}, **extra}


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ('{"action": "deny", "message": "x"}', "did you mean 'block'?"),
        ('{"action": "Block", "message": "x"}', "did you mean 'block'?"),
        ('{"decision": "deny", "reason": "r"}', "did you mean 'block'?"),
        ('{"verdict": "no"}', "none of its keys ('verdict')"),
    ],
)
def test_ignored_shell_answer_is_reported_once_per_hook_and_shape(home, caplog, answer, reason):
    hooks = load(home, {"pre_tool_call": [_answer_hook(answer)]})
    with caplog.at_level(logging.WARNING, logger="hermes_hooks"):
        for _ in range(3):
            decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
            assert decision.action is None
    warnings = [r.getMessage() for r in caplog.records if "was ignored" in r.getMessage()]
    assert len(warnings) == 1, warnings
    assert reason in warnings[0] and "pre_tool_call" in warnings[0]
    assert hooks.dropped[(f"bash {ANSWER}", "pre_tool_call")] == 3


def test_a_hermes_block_with_reason_instead_of_message_blocks_with_it(home, caplog):
    hooks = load(home, {"pre_tool_call": [_answer_hook('{"action": "block", "reason": "no rm"}')]})
    with caplog.at_level(logging.WARNING, logger="hermes_hooks"):
        decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf /"})
    assert decision.blocked and decision.message == "no rm"
    assert not hooks.dropped


def test_a_python_block_with_reason_instead_of_message_blocks_with_it(home, plugin_dir):
    plugin_dir(
        "reasoned",
        "def register(ctx):\n"
        "    ctx.register_hook('pre_tool_call', lambda **kw: {'action': 'block', 'reason': 'nope'})\n",
    )
    hooks = hermes_hooks.load(home, entry_points=False)
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert decision.blocked and decision.message == "nope"


@pytest.mark.parametrize(
    "answer",
    ['{"decision": "deny", "reason": "not here"}', '{"decision": "block", "reason": "not here"}'],
)
def test_a_claude_code_deny_decision_on_permission_request_denies(home, answer):
    hooks = load(home, {"permission_request": [_answer_hook(answer)]})
    result = hooks.call("permission_request", tool_name="terminal", args={"command": "ls"})
    assert result.action == "deny" and result.message == "not here"
    assert not hooks.dropped


@pytest.mark.parametrize("word", ["allow", "approve"])
def test_a_claude_code_top_level_allow_on_permission_request_is_no_allow(home, word):
    # Only a deny is honoured in the top-level vocabulary: an allow (or approve) there is no
    # answer at all, neither an allow nor a deny; an allow must use the event's own shape.
    hooks = load(home, {"permission_request": [_answer_hook(f'{{"decision": "{word}"}}')]})
    result = hooks.call("permission_request", tool_name="terminal", args={"command": "ls"})
    assert getattr(result, "action", None) is None, result


def test_plain_no_opinion_from_a_shell_hook_is_not_reported(home, caplog):
    hooks = load(home, {"pre_tool_call": [_answer_hook('{"continue": true}')]})
    with caplog.at_level(logging.WARNING, logger="hermes_hooks"):
        hooks.pre_tool_call(tool_name="terminal", args={})
    assert not [r for r in caplog.records if "ignored" in r.getMessage()]
    assert not hooks.dropped


def test_shell_block_without_message_blocks_with_default_and_is_reported_once(home, caplog):
    hooks = load(home, {"pre_tool_call": [_answer_hook('{"action": "block"}')]})
    with caplog.at_level(logging.WARNING, logger="hermes_hooks"):
        first = hooks.pre_tool_call(tool_name="terminal", args={})
        hooks.pre_tool_call(tool_name="terminal", args={})
    assert first.action == "block" and f"bash {ANSWER}" in first.message
    notes = [r.getMessage() for r in caplog.records if "default message" in r.getMessage()]
    assert len(notes) == 1 and "a block needs a non-empty string message" in notes[0]


def test_shell_runs_are_traced_with_the_pinned_sha256(home):
    trace = home / "trace.jsonl"
    hooks = load(
        home,
        {"pre_tool_call": [_answer_hook('{"action": "deny", "message": "x"}')]},
        trace_file=str(trace),
    )
    hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, session_id="s1")
    receipts = [json.loads(line) for line in trace.read_text().splitlines()]
    assert len(receipts) == 1
    (receipt,) = receipts
    assert receipt["source"] == "shell" and receipt["event"] == "pre_tool_call"
    assert receipt["session_id"] == "s1" and receipt["outcome"] == "dropped"
    assert "did you mean 'block'" in receipt["dropped"]
    rows = [r for r in hooks.rows() if r.get("source") == "shell"]
    assert receipt["sha256"] == rows[0]["sha256"] and len(receipt["sha256"]) == 64


def test_unapproved_shell_hook_is_traced_as_not_run(home):
    trace = home / "trace.jsonl"
    hooks = load(
        home, {"pre_tool_call": [_answer_hook("{}")]}, accept=False, trace_file="trace.jsonl"
    )
    hooks.pre_tool_call(tool_name="terminal", args={})
    (receipt,) = [json.loads(line) for line in trace.read_text().splitlines()]
    assert receipt["outcome"] == "unapproved" and "hermes hooks approve" in receipt["error"]


# ---------------------------------------------------------------------- required guards


def test_required_shell_hook_that_is_unapproved_blocks_naming_the_fix(home):
    hooks = load(home, {"pre_tool_call": [_answer_hook("{}", required=True)]}, accept=False)
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert decision.action == "block"
    assert "required guard" in decision.message and "hermes hooks approve" in decision.message


def test_required_shell_hook_whose_script_changed_blocks(home, tmp_path):
    guard = tmp_path / "guard.sh"
    guard.write_text("#!/bin/sh\ncat >/dev/null\necho '{}'\n")
    guard.chmod(0o755)
    config = {"hooks": {"pre_tool_call": [{"command": str(guard), "required": True}]}}
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    hermes_hooks.load(home, accept_hooks=True, entry_points=False).close()  # approves
    guard.write_text("#!/bin/sh\ncat >/dev/null\necho '{}'  # edited\n")
    hooks = hermes_hooks.load(home, entry_points=False, ask=False)
    decision = hooks.pre_tool_call(tool_name="terminal", args={})
    assert decision.action == "block" and "changed" in decision.message


def test_required_shell_hook_that_is_not_executable_blocks(home, tmp_path):
    guard = tmp_path / "guard.sh"
    guard.write_text("#!/bin/sh\necho '{}'\n")
    guard.chmod(0o644)
    hooks = load(home, {"pre_tool_call": [{"command": str(guard), "required": True}]})
    decision = hooks.pre_tool_call(tool_name="terminal", args={})
    assert decision.action == "block" and "required guard" in decision.message
    row = next(r for r in hooks.rows() if r.get("source") == "shell")
    assert row["status"] != "active" and row["required"] is True


def test_not_required_shell_hook_that_cannot_run_does_not_block(home, tmp_path):
    hooks = load(home, {"pre_tool_call": [{"command": str(tmp_path / "missing.sh")}]})
    assert hooks.pre_tool_call(tool_name="terminal", args={}).action is None


def test_required_plugin_that_is_missing_blocks_tool_calls(home):
    hooks = load(home, {}, plugins={"required": ["policy"]})
    decision = hooks.pre_tool_call(tool_name="terminal", args={})
    assert decision.action == "block" and "'policy'" in decision.message
    assert "plugins.required" in decision.message
    assert hooks.call("permission_request", tool_name="terminal", args={}).action == "deny"


def test_required_plugin_that_failed_to_load_blocks_its_declared_events(home, plugin_dir):
    plugin_dir(
        "policy",
        "raise ImportError('no module named policy_rules')\n",
        "name: policy\nrequired: true\nprovides_hooks: [pre_tool_call]\n",
    )
    hooks = hermes_hooks.load(home, entry_points=False)
    decision = hooks.pre_tool_call(tool_name="terminal", args={})
    assert decision.action == "block" and "policy_rules" in decision.message
    # only the events it declared: nobody answers permission_request
    assert hooks.call("permission_request", tool_name="t", args={}) is None


def test_required_plugin_that_was_disabled_blocks(home, plugin_dir):
    plugin_dir("policy", "def register(ctx):\n    pass\n")
    hooks = load(home, {}, plugins={"required": ["policy"], "disabled": ["policy"]})
    decision = hooks.pre_tool_call(tool_name="terminal", args={})
    assert decision.action == "block" and "disabled" in decision.message


def test_required_plugin_that_loaded_is_fail_closed(home, plugin_dir):
    plugin_dir(
        "policy",
        "def register(ctx):\n"
        "    def check(**kw):\n"
        "        raise RuntimeError('rules file unreadable')\n"
        "    ctx.register_hook('pre_tool_call', check)\n",
    )
    hooks = load(home, {}, plugins={"required": ["policy"]})
    decision = hooks.pre_tool_call(tool_name="terminal", args={})
    assert decision.action == "block" and "rules file unreadable" in decision.message


def test_required_guards_in_safe_mode_fail_closed(home, monkeypatch):
    monkeypatch.setenv("HERMES_SAFE_MODE", "1")
    hooks = load(home, {"pre_tool_call": [_answer_hook("{}", required=True, name="guard")]})
    decision = hooks.pre_tool_call(tool_name="terminal", args={})
    assert decision.action == "block" and "HERMES_SAFE_MODE" in decision.message


def test_required_names_a_shell_hook_by_name(home):
    hooks = load(
        home,
        {"pre_tool_call": [_answer_hook("{}", name="guard")]},
        accept=False,
        plugins={"required": ["guard"]},
    )
    decision = hooks.pre_tool_call(tool_name="terminal", args={})
    assert decision.action == "block" and "'guard'" in decision.message


def _exit2_guard(tmp_path):
    """A Claude Code guard that blocks everything with exit 2."""
    guard = tmp_path / "deny.sh"
    guard.write_text("#!/bin/sh\ncat >/dev/null\necho 'denied by guard' >&2\nexit 2\n")
    guard.chmod(0o755)
    return str(guard)


def test_a_guard_required_by_name_blocks_although_its_entry_says_async(home, tmp_path):
    from shell_helpers import shell_plugin, write_settings

    write_settings(home / "settings.json", {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": _exit2_guard(tmp_path), "async": True, "name": "guard"},
    ]}]})  # fmt: skip
    hooks = load(home, None, plugins={"required": ["guard"]})
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert decision.blocked and "denied by guard" in decision.message
    [report] = [p for p in shell_plugin(hooks).problems if "plugins.required" in p]
    assert "async" in report and str(home / "settings.json") in report


@pytest.mark.parametrize("flag", ["required", "fail_closed"])
def test_an_unreadable_guard_entry_blocks_naming_the_entry_the_file_and_the_fix(home, flag):
    hooks = load(home, {"pre_tool_call": [{"comand": f"bash {ANSWER}", flag: True}]})
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert decision.blocked
    message = decision.message
    assert "hooks.pre_tool_call[0]" in message and str(home / "config.yaml") in message
    assert "'command'" in message and "fix the entry" in message
    row = next(r for r in hooks.rows() if r.get("source") == "shell")
    assert row["status"] != "active"


def test_a_guard_entry_under_a_misspelt_event_blocks_the_events_that_guard_actions(home):
    hooks = load(home, {"pre_tools_call": [{"command": f"bash {ANSWER}", "required": True}]})
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert decision.blocked
    assert (
        "pre_tools_call" in decision.message and "did you mean 'pre_tool_call'" in decision.message
    )
    assert hooks.call("permission_request", tool_name="terminal", args={}).action == "deny"
    # an entry that is no guard under a misspelt event is reported, and blocks nothing
    hooks = load(home, {"pre_tools_call": [{"command": f"bash {ANSWER}"}]})
    assert not hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}).blocked


def test_a_malformed_claude_code_group_holding_a_guard_blocks(home):
    from shell_helpers import write_settings

    # 'hooks' is one handler instead of a list of them
    write_settings(home / "settings.json", {"PreToolUse": [{"matcher": "Bash", "hooks": {
        "type": "command", "command": f"bash {ANSWER}", "onFailure": "block"}}]})  # fmt: skip
    hooks = load(home, None)
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert decision.blocked and str(home / "settings.json") in decision.message
    # a handler that cannot run (args not a list of strings) in a required entry
    write_settings(home / "settings.json", {"PreToolUse": [{"hooks": [
        {"type": "command", "command": "true", "args": "--x", "required": True}]}]})  # fmt: skip
    hooks = load(home, None)
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert decision.blocked and "hooks.PreToolUse[0].hooks[0]" in decision.message


def test_doctor_fails_on_an_unreadable_guard_entry(home):
    import subprocess

    load(home, {"pre_tool_call": [{"comand": f"bash {ANSWER}", "required": True}]})
    out = subprocess.run(
        ["hermes-hooks", "--home", str(home), "doctor"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 1
    assert "hooks.pre_tool_call[0]" in out.stdout and "fix the entry" in out.stdout


# ---------------------------------------------------------------------- consent prompt


def test_host_supplies_the_consent_prompt(home):
    asked: list[str] = []

    def ask(question: str) -> bool:
        asked.append(question)
        return True

    config = {"hooks": {"pre_tool_call": [_answer_hook('{"action": "block", "message": "no"}')]}}
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    hooks = hermes_hooks.load(home, entry_points=False, ask=ask)
    assert hooks.pre_tool_call(tool_name="terminal", args={}).action == "block"
    assert len(asked) == 1 and ANSWER in asked[0] and "sha256" in asked[0]
    hooks.pre_tool_call(tool_name="terminal", args={})
    assert len(asked) == 1  # approved once, pinned


def test_host_consent_prompt_saying_no_keeps_the_hook_off(home):
    config = {"hooks": {"pre_tool_call": [_answer_hook('{"action": "block", "message": "no"}')]}}
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    hooks = hermes_hooks.load(home, entry_points=False, ask=lambda q: False)
    assert hooks.pre_tool_call(tool_name="terminal", args={}).action is None


def test_terminal_prompt_can_show_the_script_before_answering(home, tmp_path, monkeypatch):
    import io
    import sys

    from hermes_hooks.builtin_plugins.shell_hooks import approvals

    guard = tmp_path / "guard.sh"
    guard.write_text("#!/bin/sh\n# the guard's own words\ncat >/dev/null\n")
    guard.chmod(0o755)
    hooks = load(home, {"pre_tool_call": [{"command": str(guard)}]}, accept=False)
    source = hooks.records["builtin:shell_hooks"].hook_source
    question = source.question(source.all_hooks[0])
    monkeypatch.setattr(sys, "stdin", io.StringIO("s\ny\n"))
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    assert approvals.tty_prompt(question) is True
    shown = err.getvalue()
    assert "# the guard's own words" in shown and shown.count("Allow it?") == 2


# ---------------------------------------------------------------------- numbers of seconds


@pytest.mark.parametrize("bad", ["30", -1, True])
def test_a_bad_number_of_seconds_is_reported_with_where_it_is_and_not_used(
    home, plugin_dir, caplog, bad
):
    plugin_dir(
        "slow", "def register(ctx):\n    pass\n", f"name: slow\ntimeout: {json.dumps(bad)}\n"
    )
    with caplog.at_level(logging.WARNING, logger="hermes_hooks"):
        hooks = load(home, {}, plugins={"hook_callback_timeout": bad, "hook_watchdog_seconds": bad})
    said = [
        r.getMessage() for r in caplog.records if "is not a number of seconds" in r.getMessage()
    ]
    assert any(m.startswith("config plugins.hook_callback_timeout: ") for m in said), said
    assert any(m.startswith("config plugins.hook_watchdog_seconds: ") for m in said), said
    assert any("plugin.yaml timeout: " in m for m in said), said
    assert hooks.records["slow"].timeout is None
    assert hooks.manager.hook_timeout is None  # no limit, not a wrong one


def test_a_guard_that_did_not_guard_is_said_on_the_terminal_once_when_the_log_goes_to_a_file(
    tmp_path,
):
    # As under Hermes Agent, whose logging writes to agent.log: the bridge installs the echo,
    # and a crashing guard, a guard whose answer is ignored and a shell guard that failed (none
    # of them fail_closed, so nothing blocked) are each said once on stderr.
    import subprocess
    import sys

    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        "hooks_auto_accept: true\nhooks:\n  pre_tool_call:\n"
        f"    - command: {tmp_path / 'missing-guard.sh'}\n"
    )
    code = f"""
import logging, hermes_hooks
from hermes_hooks.terminal import echo_on_terminal
logging.basicConfig(filename={str(tmp_path / "agent.log")!r}, level=logging.INFO)
echo_on_terminal()
class Crash:
    @hermes_hooks.hookimpl
    def pre_tool_call(self):
        raise RuntimeError("guard broke")
class Garbled:
    @hermes_hooks.hookimpl
    def pre_tool_call(self):
        return {{"action": "blok"}}
class Later:
    @hermes_hooks.hookimpl
    def post_llm_call(self):
        raise RuntimeError("observer broke")
h = hermes_hooks.load({str(home)!r}, entry_points=False)
for name, plugin in (("crash", Crash()), ("garbled", Garbled()), ("later", Later())):
    h.register(plugin, name)
for _ in range(3):
    print(h.pre_tool_call(tool_name="terminal", args={{"command": "ls"}}).action)
    h.call("post_llm_call", session_id="s", user_message="u", assistant_response="a")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)  # fmt: skip
    assert done.stdout.split() == ["None"] * 3  # nothing blocked: so it is said
    lines = done.stderr.splitlines()
    for what in ("'crash' failed on pre_tool_call", "'garbled' on pre_tool_call: its answer",
                 "missing-guard.sh"):  # fmt: skip
        said = [line for line in lines if what in line]
        assert len(said) == 1 and said[0].startswith("hermes-hooks: "), done.stderr
    assert "observer broke" not in done.stderr  # an observer is no guard: agent.log only
    assert "observer broke" in (tmp_path / "agent.log").read_text()


def test_doctor_fires_a_plugins_guard_without_firing_the_built_ins_beside_it(tmp_path):
    # doctor fires the events a Python plugin guards, with made-up payloads, to catch a guard
    # that only fails when it runs; the built-ins on that event (here the shell hooks, which
    # doctor runs one by one itself) are not fired with it: their side effects are real.
    import subprocess
    import sys

    home = tmp_path / "home"
    plugin = home / "plugins" / "quiet"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: quiet\n")
    (plugin / "__init__.py").write_text(
        "def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: None)\n"
    )
    count = tmp_path / "runs"
    guard = tmp_path / "count.sh"
    guard.write_text(f"#!/bin/sh\ncat >/dev/null\necho run >> {count}\n")
    guard.chmod(0o755)
    (home / "config.yaml").write_text(
        f"hooks_auto_accept: true\nhooks:\n  pre_tool_call:\n    - command: {guard}\n"
    )
    done = subprocess.run([sys.executable, "-m", "hermes_hooks", "--home", str(home), "doctor"],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert "quiet" in done.stdout, done.stdout + done.stderr
    assert count.read_text().splitlines() == ["run"]  # doctor's own run of the shell hook only
