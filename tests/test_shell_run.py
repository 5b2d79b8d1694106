"""Shell hooks at run time: processes, timeouts, caps, parallelism, environment, sessions."""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

import pytest
from hermes_hooks.builtin_plugins.shell_hooks import processes
from shell_helpers import gone, load, script, shell_plugin, write_settings

import hermes_hooks

ANSWER = script("answer.sh")


def test_timeout_kills_the_whole_group_and_returns_promptly(home: Path, tmp_path: Path) -> None:
    pidfile = tmp_path / "bgpid"
    hooks = load(
        home,
        {
            "pre_tool_call": [
                {
                    "command": script("fork_and_hang.sh"),
                    "timeout": 1,
                    "env": {"HOOK_OUT": str(pidfile)},
                }
            ]
        },
    )
    with shell_plugin(hooks).recording() as report:
        d = hooks.pre_tool_call(tool_name="terminal", args={})
    (run,) = report.runs
    assert run.outcome.timed_out  # ended by its 1 s limit, not by the hook's own 30 s sleep
    assert d.action is None  # fail open
    assert gone(int(pidfile.read_text()))


def test_grandchild_outside_the_group_holding_stdout_cannot_hold_the_call(tmp_path: Path) -> None:
    # setsid puts the background sleep in its own session: it survives and keeps the pipe open.
    pidfile = tmp_path / "grandchild"
    script = f'echo $$ > "{pidfile}"; exec sleep 20'
    out = processes.run(processes.Command(["setsid", "-f", "sh", "-c", script], timeout=5))
    end = time.monotonic() + 5
    while not pidfile.exists() or not pidfile.read_text().strip():
        assert time.monotonic() < end, "the grandchild never wrote its pid"
        time.sleep(0.01)
    grandchild = int(pidfile.read_text())
    try:
        # Answered when the hook exited, with the grandchild still holding stdout: not at its
        # timeout (waiting for the pipe's end would take the grandchild's 20 s).
        assert out.returncode == 0 and not out.timed_out and out.error is None
        with open(f"/proc/{grandchild}/stat") as fh:  # still there, and not a zombie
            assert fh.read().split(")")[-1].split()[0] != "Z"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(grandchild, 9)


def test_fifty_megabytes_are_cut_at_the_cap_and_the_agent_goes_on(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    hooks = load(
        home,
        {
            "post_tool_call": [{"command": script("flood.py")}],
            "pre_tool_call": [{"command": script("block_rm.sh")}],
        },
    )
    assert hooks.post_tool_call(tool_name="terminal", args={}, result="x", status="ok") is None
    assert "over the 1048576-byte cap" in caplog.text
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf /"}).action == "block"


def test_output_cap_is_configurable_and_the_cut_output_is_kept() -> None:
    out = processes.run(processes.Command([script("flood.py")], cap=1000))
    assert out.truncated and len(out.stdout) == 1000


def test_invalid_utf8_is_decoded_with_replacement(home: Path) -> None:
    hooks = load(home, {"pre_llm_call": [{"command": script("bad_utf8.sh")}]})
    text = hooks.pre_llm_call(session_id="s", user_message="hi")
    assert text is not None and text.startswith("caf\ufffd") and text.endswith("ok")


def test_spawn_error_is_reported(home: Path, caplog: pytest.LogCaptureFixture) -> None:
    hooks = load(home, {"pre_tool_call": [{"command": "no-such-hook-command-xyz"}]})
    assert hooks.pre_tool_call(tool_name="terminal", args={}).action is None
    assert "command not found: no-such-hook-command-xyz" in caplog.text


def test_large_payload_is_written_without_deadlock(home: Path, tmp_path: Path) -> None:
    out = tmp_path / "payload"
    hooks = load(
        home,
        {"pre_llm_call": [{"command": script("echo_payload.sh"), "env": {"HOOK_OUT": str(out)}}]},
    )
    history = [{"role": "user", "content": "x" * 1000}] * 2000  # ~2 MB on stdin
    hooks.pre_llm_call(session_id="s", user_message="hi", conversation_history=history)
    assert len(json.loads(out.read_bytes())["extra"]["conversation_history"]) == 2000


# ---------------------------------------------------------------------- parallel


def test_five_hooks_run_at_once(home: Path, tmp_path: Path) -> None:
    # Each hook waits until all five have started: only hooks running at the same time can
    # all get past that (one after another, the first gives up and says "alone").
    log = tmp_path / "log"
    hook = tmp_path / "meet.sh"
    hook.write_text(
        '#!/bin/sh\ncat >/dev/null\necho start >> "$HOOK_OUT"\ni=0\n'
        'while [ "$(grep -c start "$HOOK_OUT")" -lt 5 ]; do\n'
        '  i=$((i+1)); if [ $i -gt 500 ]; then echo alone >> "$HOOK_OUT"; exit 0; fi\n'
        '  sleep 0.01\ndone\necho ran >> "$HOOK_OUT"\n'
    )
    hook.chmod(0o755)
    # Distinct commands (the last argument differs) so they are not deduplicated.
    entries = [{"command": f"{hook} {i}", "env": {"HOOK_OUT": str(log)}} for i in range(5)]
    hooks = load(home, {"post_llm_call": entries})
    hooks.post_llm_call(session_id="s")
    assert sorted(log.read_text().split()) == ["ran"] * 5 + ["start"] * 5


def test_parallel_hooks_that_disagree_combine_the_same_way_every_run(home: Path) -> None:
    entries = [
        {"command": f"bash {ANSWER} allow", "env": {"ANSWER": '{"action": "allow"}'}},
        {"command": f"bash {ANSWER} ask", "protocol": "claude-code",
         "env": {"ANSWER": '{"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "first ask"}}'}},
        {"command": f"bash {ANSWER} block1", "env": {"ANSWER": '{"action": "block", "message": "first block"}'}},
        {"command": f"bash {ANSWER} slowblock; sleep 0.01", "protocol": "claude-code",
         "env": {"ERR": "second block", "CODE": "2"}},
        {"command": f"bash {ANSWER} ctx", "env": {"ANSWER": '{"context": "c"}'}},
    ]  # fmt: skip
    hooks = load(home, {"pre_tool_call": entries})
    seen = {hooks.pre_tool_call(tool_name="terminal", args={}) for _ in range(8)}
    assert len(seen) == 1
    [d] = seen
    assert (d.action, d.message, d.source) == ("block", "first block", f"bash {ANSWER} block1")
    assert d.context == "c"


def test_claude_code_ask_becomes_approve_and_allow_allow(home: Path) -> None:
    ask = '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "sure?"}}'
    allow = '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}'
    write_settings(home / "settings.json", {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": f"echo '{ask}'"}]},
        {"matcher": "Read", "hooks": [{"type": "command", "command": f"echo '{allow}'"}]},
    ]})  # fmt: skip
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    d = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert (d.action, d.message) == ("approve", "sure?")
    assert hooks.pre_tool_call(tool_name="read_file", args={"path": "a"}).action == "allow"


def test_settings_json_bash_hook_blocks_rm_rf_through_pre_tool_call(
    home: Path, tmp_path: Path
) -> None:
    guard = tmp_path / "guard.sh"
    guard.write_text(
        "#!/bin/bash\n"
        'cmd=$(python3 -c \'import json,sys; print(json.load(sys.stdin)["tool_input"]["command"])\')\n'
        'if [[ "$cmd" == *"rm -rf /"* ]]; then echo "Blocked: recursive delete of /" >&2; exit 2; fi\n'
        "exit 0\n"
    )
    guard.chmod(0o755)
    write_settings(
        home / "settings.json",
        {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [{"type": "command", "command": str(guard), "timeout": 30}],
                }
            ]
        },
    )
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    d = hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf /"}, session_id="s1")
    assert (d.action, d.message) == ("block", "Blocked: recursive delete of /")
    assert (
        hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, session_id="s1").action
        is None
    )


# ---------------------------------------------------------------------- environment


def test_environment_and_working_dir(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "payload"
    workdir = tmp_path / "work"
    workdir.mkdir()
    monkeypatch.setenv("HOOK_OUT_DIR", str(tmp_path))
    hooks = load(
        home,
        {"pre_tool_call": [{"command": "bash $HOOK_OUT_DIR/../" + os.path.relpath(script("echo_payload.sh"), tmp_path.parent),
                            "env": {"HOOK_OUT": str(out), "HOOK_EXTRA": "yes"}, "working_dir": str(workdir),
                            "protocol": "claude-code"}]},
    )  # fmt: skip
    hooks.pre_tool_call(tool_name="terminal", args={}, session_id="sess-9")
    env = dict(line.split("=", 1) for line in (tmp_path / "payload.env").read_text().splitlines())
    assert env["EXTRA"] == "yes" and env["SESSION"] == "sess-9" and env["EVENT"] == "pre_tool_call"
    assert env["PWD"] == str(workdir)
    assert env["PROJECT"] == os.getcwd()


def test_tilde_and_variables_are_expanded_in_hermes_commands(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_home = tmp_path / "fakehome"
    (fake_home / "hooks").mkdir(parents=True)
    target = fake_home / "hooks" / "h.sh"
    target.write_text('#!/bin/sh\ncat >/dev/null\necho "{\\"context\\": \\"$1\\"}"\n')
    monkeypatch.setenv("HOME", str(fake_home))
    monkeypatch.setenv("WHO", "expanded")
    hooks = load(home, {"pre_llm_call": [{"command": "bash ~/hooks/h.sh $WHO"}]})
    assert hooks.pre_llm_call(session_id="s", user_message="m") == "expanded"


def test_claude_plugin_root_for_plugin_hooks(home: Path, tmp_path: Path) -> None:
    plugin = tmp_path / "myplugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / "hooks").mkdir()
    (plugin / "hooks" / "ctx.sh").write_text(
        '#!/bin/sh\ncat >/dev/null\necho "root=$CLAUDE_PLUGIN_ROOT"\n'
    )
    (plugin / "hooks" / "ctx.sh").chmod(0o755)
    settings = write_settings(
        plugin / "hooks" / "hooks.json",
        {
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/ctx.sh"}]}
            ]
        },
    )
    hooks = load(home, None, hooks_settings_files=[str(settings)])
    assert hooks.user_prompt_submit(user_message="hi", session_id="s").context == f"root={plugin}"


def test_session_start_gets_an_env_file_and_session_env_returns_it(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLAUDE_ENV_FILE", raising=False)
    write_settings(
        home / "settings.json",
        {"SessionStart": [{"hooks": [{"type": "command", "command": script("session_env.sh")}]}]},
    )
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    assert (
        hooks.on_session_start(session_id="s-1", source="startup")
        == "Session context from the hook."
    )
    assert hooks.session_env("s-1") == {"NODE_ENV": "production", "GREETING": "hello world"}
    assert hooks.session_env("other") == {}
    assert str(home) in str(next(home.glob("shell-hooks-env/*")))


def test_host_claude_env_file_passes_through(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    host_file = tmp_path / "host.env"
    host_file.touch()
    monkeypatch.setenv("CLAUDE_ENV_FILE", str(host_file))
    write_settings(
        home / "settings.json",
        {"SessionStart": [{"hooks": [{"type": "command", "command": script("session_env.sh")}]}]},
    )
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    hooks.on_session_start(session_id="s-2")
    assert "NODE_ENV=production" in host_file.read_text()
    assert not (home / "shell-hooks-env").exists()


# ---------------------------------------------------------------------- pre_verify


def test_stop_hook_active_and_continue_cap(home: Path) -> None:
    write_settings(
        home / "settings.json",
        {"Stop": [{"hooks": [{"type": "command", "command": script("stop_gate.sh")}]}]},
    )
    hooks = load(home, None, hooks_max_stop_continues=2)
    first = hooks.pre_verify(session_id="s")
    second = hooks.pre_verify(session_id="s")
    assert first.message == "run the tests (active=False)"
    assert second.message == "run the tests (active=True)"
    assert hooks.pre_verify(session_id="s") is None  # capped: the agent may stop
    assert hooks.pre_verify(session_id="s").message.endswith("(active=False)")  # a new turn


def test_pre_verify_uses_the_host_s_attempt_count(home: Path) -> None:
    write_settings(
        home / "settings.json",
        {"Stop": [{"hooks": [{"type": "command", "command": script("stop_gate.sh")}]}]},
    )
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    assert hooks.pre_verify(session_id="s", attempt=1).message.endswith("(active=True)")
    assert hooks.pre_verify(session_id="s", attempt=3) is None


def test_async_api_runs_shell_hooks(home: Path) -> None:
    import asyncio

    hooks = load(home, {"pre_tool_call": [{"command": script("block_rm.sh")}]})
    d = asyncio.run(
        hooks.acall("pre_tool_call", tool_name="terminal", args={"command": "rm -rf /"})
    )
    assert d.action == "block"
    assert shell_plugin(hooks) is not None
