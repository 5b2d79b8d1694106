"""Shell hooks keep each event's contract: the payloads they are sent, which occurrences they
hear, what their failure means, their timeouts, the event loop, and the CLI's agreement with the
runtime."""

from __future__ import annotations

import asyncio
import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from shell_helpers import load, script, shell_plugin, write_config, write_settings

import hermes_hooks
from hermes_hooks import catalogue
from hermes_hooks.cli import hoist_global_options, hooks_group
from hermes_hooks.markers import hookimpl

ECHO = script("echo_payload.sh")
ANSWER = script("answer.sh")
APPEND = f"{sys.executable} {script('append.py')}"

# ---------------------------------------------------------------------- payload keys

COMMON = {"session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name"}
TOOL = {"tool_name", "tool_input"}
MODEL_SWITCH = {"from_model", "to_model", "requested_model", "source", "context_tokens",
                "prompt_cache_warm"}  # fmt: skip
#: The exact keys of every Claude Code payload we send, written out (not derived from the specs).
CLAUDE_KEYS = {
    "PreToolUse": COMMON | TOOL | {"tool_use_id"},
    "PostToolUse": COMMON | TOOL | {"tool_use_id", "tool_response", "duration_ms"},
    "PostToolUseFailure": COMMON | TOOL | {"tool_use_id", "error", "is_interrupt", "duration_ms"},
    "UserPromptSubmit": COMMON | {"prompt"},
    "Stop": COMMON | {"stop_hook_active", "last_assistant_message"},
    "SessionStart": COMMON | {"source", "model"},
    "SessionEnd": COMMON | {"reason"},
    "SubagentStart": COMMON | {"agent_id", "agent_type"},
    "SubagentStop": COMMON | {"stop_hook_active", "agent_id", "agent_type"},
    "PreCompact": COMMON | {"trigger", "custom_instructions"},
    "PostCompact": COMMON | {"trigger", "compact_summary"},
    "Notification": COMMON | {"message", "notification_type"},
    "PermissionRequest": COMMON | TOOL | {"permission_suggestions"},
    "PermissionDenied": COMMON | TOOL | {"tool_use_id", "reason"},
    "PostToolBatch": COMMON | {"tool_calls"},
    "StopFailure": COMMON | {"error", "error_details"},
    "PreModelSwitch": COMMON | MODEL_SWITCH,
    "PostModelSwitch": COMMON | MODEL_SWITCH,
}
HERMES_KEYS = {"hook_event_name", "tool_name", "tool_input", "session_id", "cwd", "extra"}
#: Arguments that make the example an occurrence of the named Claude Code event.
OCCURRENCE = {
    "PostToolUseFailure": {"status": "error", "error_message": "boom", "result": ""},
    "PermissionDenied": {"status": "blocked", "error_message": "denied by policy", "result": ""},
    "StopFailure": {"retryable": False},
}


def _occurrences() -> list[Any]:
    out = []
    for name, info in catalogue.events().items():
        claude = [c.name for c in info.claude] or [None]
        out += [pytest.param(name, c, id=f"{name}-{c or 'own-name'}") for c in claude]
    return out


def _fire_and_read(home: Path, tmp_path: Path, event: str, claude: str | None) -> dict[str, Any]:
    seen = {p: tmp_path / f"{p}.json" for p in ("hermes", "claude-code")}
    hooks = load(
        home,
        {
            event: [
                # different commands: identical entries of one event run once
                {
                    "command": f"bash {ECHO}" if p == "hermes" else ECHO,
                    "protocol": p,
                    "env": {"HOOK_OUT": str(path)},
                }
                for p, path in seen.items()
            ]
        },
    )
    kwargs = catalogue.example_payload(event)
    kwargs.update(OCCURRENCE.get(claude or "", {}))
    hooks.call(event, **kwargs)
    return {p: json.loads(path.read_text()) for p, path in seen.items()} | {"kwargs": kwargs}


@pytest.mark.parametrize(("event", "claude"), _occurrences())
def test_payload_keys_are_exactly_the_protocol_s(
    home: Path, tmp_path: Path, event: str, claude: str | None
) -> None:
    info = catalogue.events()[event]
    sent = _fire_and_read(home, tmp_path, event, claude)
    hermes, claude_code, kwargs = sent["hermes"], sent["claude-code"], sent["kwargs"]
    assert set(hermes) == HERMES_KEYS
    assert hermes["hook_event_name"] == event
    extra = set(kwargs) - {"tool_name", "args", "session_id"}
    if not kwargs.get("session_id") and kwargs.get("parent_session_id"):
        extra.discard("parent_session_id")  # sent as the session_id, as Hermes does
    assert set(hermes["extra"]) == extra
    if claude is None:  # Claude Code has no such event: our arguments under their own names
        expected = COMMON | set(info.args) | (TOOL if info.tool_event else set())
        assert claude_code["hook_event_name"] == event
    else:
        expected = CLAUDE_KEYS[claude]
        assert claude_code["hook_event_name"] == claude
    if kwargs.get("turn_id"):  # the turn is Claude Code's prompt
        expected = expected | {"prompt_id"}
        assert claude_code["prompt_id"] == kwargs["turn_id"]
    assert set(claude_code) == expected


def test_every_claude_code_event_has_its_keys_pinned() -> None:
    declared = {c.name for info in catalogue.events().values() for c in info.claude}
    assert declared == set(CLAUDE_KEYS)


# ---------------------------------------------------------------------- occurrences, dedupe


def test_one_script_under_post_tool_use_and_failure_hears_both(home: Path, tmp_path: Path) -> None:
    out = tmp_path / "payload.json"
    group = [{"hooks": [{"type": "command", "command": f"HOOK_OUT={out} {ECHO}"}]}]
    write_settings(home / "settings.json", {"PostToolUse": group, "PostToolUseFailure": group})
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    hooks.post_tool_call(
        tool_name="terminal", args={}, result="", status="error", error_message="boom"
    )
    assert json.loads(out.read_text())["hook_event_name"] == "PostToolUseFailure"
    hooks.post_tool_call(tool_name="terminal", args={}, status="ok", result="fine")
    assert json.loads(out.read_text())["hook_event_name"] == "PostToolUse"


# ---------------------------------------------------------------------- timeouts


def test_a_fractional_timeout_is_kept(home: Path) -> None:
    entry = {"command": "sleep 5", "timeout": 0.5, "fail_closed": True, "name": "slow"}
    hooks = load(home, {"pre_tool_call": [entry]})
    [row] = [r for r in hooks.rows() if r["source"] == "shell"]
    with shell_plugin(hooks).recording() as report:
        decision = hooks.pre_tool_call(tool_name="terminal", args={})
    assert row["timeout"] == 0.5
    assert decision.action == "block" and "timed out after 0.5s" in decision.message
    # Ended by its limit: a 0.5 read as 0 (no limit) would let `sleep 5` finish.
    assert [r.outcome.timed_out for r in report.runs] == [True]


# ---------------------------------------------------------------------- fail_closed


@pytest.mark.parametrize("protocol", ["hermes", "claude-code"])
def test_fail_closed_redaction_that_times_out_withholds_the_secret(
    home: Path, protocol: str
) -> None:
    entry = {"command": "sleep 5", "timeout": 1, "fail_closed": True, "name": "redact",
             "protocol": protocol}  # fmt: skip
    hooks = load(home, {"transform_tool_result": [entry]})
    out = hooks.transform_tool_result(tool_name="terminal", args={}, result="API_KEY=sk-123")
    assert "sk-123" not in out
    assert "withheld" in out and "redact" in out


def _raising(event: str) -> Any:
    def fail(**kwargs: Any) -> Any:
        raise RuntimeError("broken")

    return type("P", (), {event: staticmethod(hookimpl(fail))})()


_FAILS = [n for n, i in catalogue.events().items() if i.answer.failed("m", "s") is not None]


@pytest.mark.parametrize("protocol", ["hermes", "claude-code"])
@pytest.mark.parametrize("event", _FAILS)
def test_a_failing_fail_closed_shell_hook_means_what_a_python_one_means(
    home: Path, event: str, protocol: str
) -> None:
    kwargs = catalogue.example_payload(event)
    python = hermes_hooks.Hooks()
    python.register(_raising(event), "p", fail_closed=True)
    expected = python.call(event, **kwargs)
    entry = {"command": ANSWER, "env": {"CODE": "1"}, "fail_closed": True, "name": "s",
             "protocol": protocol}  # fmt: skip
    shell = load(home, {event: [entry]}).call(event, **kwargs)
    assert expected is not None and type(shell) is type(expected)
    for name in ("action", "decision", "kind"):
        assert getattr(shell, name, None) == getattr(expected, name, None)
    assert shell != catalogue.events()[event].answer.neutral(kwargs)


# ---------------------------------------------------------------------- the event loop


def test_acall_leaves_the_loop_running_while_a_shell_hook_runs(home: Path, tmp_path: Path) -> None:
    # The hook waits for a file another task of the loop writes once acall is under way: it
    # appears only if the loop keeps running while the hook runs (else the hook blocks).
    flag = tmp_path / "flag"
    hook = tmp_path / "wait.sh"
    hook.write_text(
        "#!/bin/sh\ncat >/dev/null\ni=0\n"
        f'while [ ! -e "{flag}" ]; do\n'
        '  i=$((i+1)); if [ $i -gt 500 ]; then echo \'{"action": "block", "message": '
        '"the loop was blocked"}\'; exit 0; fi\n'
        f'  sleep 0.01\ndone\necho met > "{tmp_path / "met"}"\n'
    )
    hook.chmod(0o755)
    hooks = load(home, {"pre_tool_call": [{"command": str(hook)}]})

    async def main() -> Any:
        async def later() -> None:
            await asyncio.sleep(0.05)
            flag.touch()

        task = asyncio.create_task(later())
        decision = await hooks.acall("pre_tool_call", tool_name="terminal", args={})
        await task
        return decision

    decision = asyncio.run(main())
    assert decision.action is None, decision.message
    assert (tmp_path / "met").read_text() == "met\n"  # the hook ran, and saw the file


# ---------------------------------------------------------------------- events a host added


def test_shell_hooks_on_an_event_a_host_added(home: Path, tmp_path: Path) -> None:
    from hermes_hooks.markers import hookspec
    from hermes_hooks.runtime import load_builtins

    def deploy_started(service: str) -> None:
        """A host's own event."""

    spec = types.ModuleType("host_specs")
    spec.deploy_started = hookspec(deploy_started)  # type: ignore[attr-defined]
    out = tmp_path / "payload.json"
    write_config(home, {"hooks": {"deploy_started": [{"command": ECHO,
                                                      "env": {"HOOK_OUT": str(out)}}]}})  # fmt: skip
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False, builtins=False)
    hooks.add_hookspecs(spec)
    load_builtins(hooks)
    hooks.call("deploy_started", service="web")
    sent = json.loads(out.read_text())
    assert sent["hook_event_name"] == "deploy_started" and sent["extra"] == {"service": "web"}


def test_the_continue_cap_follows_the_spec_not_the_event_name(home: Path) -> None:
    from hermes_hooks.answers import VerifyAnswers
    from hermes_hooks.markers import event
    from hermes_hooks.runtime import load_builtins

    @event(VerifyAnswers(), continues=True)
    def keep_going(session_id: str, stop_hook_active: bool) -> Any:
        """A host's own stop gate."""

    spec = types.ModuleType("host_stop_specs")
    spec.keep_going = keep_going  # type: ignore[attr-defined]
    answer = '{"decision": "block", "reason": "not yet"}'
    write_config(home, {"hooks_max_stop_continues": 2,
                        "hooks": {"keep_going": [{"command": ANSWER, "env": {"ANSWER": answer}}]}})  # fmt: skip
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False, builtins=False)
    hooks.add_hookspecs(spec)
    load_builtins(hooks)
    answers = [hooks.call("keep_going", session_id="s") for _ in range(3)]
    assert [a.message if a else None for a in answers] == ["not yet", "not yet", None]


# ---------------------------------------------------------------------- pipelines


def test_user_prompt_submit_shell_hooks_see_the_prompt_as_rewritten(home: Path) -> None:
    hooks = load(home, {"user_prompt_submit": [
        {"command": f"{APPEND} +a", "env": {"VALUE_KEY": "user_message"}},
        {"command": f"{APPEND} +b", "env": {"VALUE_KEY": "user_message"}},
    ]})  # fmt: skip
    decision = hooks.user_prompt_submit(user_message="hi", session_id="s")
    assert decision.text == "hi+a+b"


# ---------------------------------------------------------------------- CLI and runtime agree


def test_cli_test_combines_a_transform_as_the_runtime_does(home: Path) -> None:
    key = "response_text"
    hooks_config = {"transform_llm_output": [
        {"command": f"{APPEND} +a", "env": {"VALUE_KEY": key}, "name": "a"},
        {"command": f"{APPEND} +b", "env": {"VALUE_KEY": key}, "name": "b"},
    ]}  # fmt: skip
    hooks = load(home, hooks_config)
    payload = catalogue.example_payload("transform_llm_output")
    runtime = hooks.call("transform_llm_output", **payload)
    assert runtime == payload[key] + "+a+b"
    args = ["--home", str(home), "--accept-hooks", "test", "transform_llm_output", "--json"]
    result = CliRunner().invoke(hooks_group, hoist_global_options(args))
    doc = json.loads(result.stdout)
    assert doc["result"] == runtime
    assert [h["name"] for h in doc["hooks"]] == ["a", "b"]
    assert [h["answer"] for h in doc["hooks"]] == [payload[key] + "+a", payload[key] + "+a+b"]


def test_cli_test_runs_every_source_and_reports_each_shell_run(home: Path, plugin_dir: Any) -> None:
    plugin_dir(
        "suffix",
        """
        def register(ctx):
            ctx.register_hook("transform_llm_output", lambda response_text, **kw: response_text + "+p")
        """,
    )
    write_config(home, {"hooks": {"transform_llm_output": [
        {"command": f"{APPEND} +a", "env": {"VALUE_KEY": "response_text"}, "name": "a"},
    ]}})  # fmt: skip
    args = ["--home", str(home), "--accept-hooks", "test", "transform_llm_output", "--json"]
    doc = json.loads(CliRunner().invoke(hooks_group, hoist_global_options(args)).stdout)
    base = catalogue.events()["transform_llm_output"].example["response_text"]
    assert doc["result"] == base + "+p+a"  # the Python plugin runs first, as in the agent
    python, run = doc["hooks"]
    assert python["name"] == "suffix" and python["raw"] == base + "+p"
    assert python["payload"]["response_text"] == base
    sent = json.loads(run["stdin"])
    assert sent["hook_event_name"] == "transform_llm_output"
    assert sent["extra"]["response_text"] == base + "+p"
    assert run["exit_code"] == 0 and json.loads(run["stdout"]) == {"response_text": base + "+p+a"}
    assert run["answer"] == base + "+p+a"
