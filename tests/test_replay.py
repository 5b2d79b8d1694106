"""`hermes hooks replay`: recorded sessions of every format driven through real hooks."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import hermes_hooks
from hermes_hooks.replay import FormatError, compare, read_session, replay
from tests.conftest import write_plugin

DATA = Path(__file__).parent / "data"
SESSION = DATA / "replay" / "session.jsonl"
CLAUDE = DATA / "replay" / "claude-transcript.jsonl"
BLOCK_RM = str(DATA / "hooks" / "block_rm.sh")
CLI = Path(sys.executable).with_name("hermes-hooks")

GUARD = """
from hermes_hooks import hookimpl

@hookimpl
def pre_tool_call(tool_name, args):
    command = (args or {}).get("command", "")
    if command.startswith("git push"):
        return {"action": "approve", "message": "pushing needs a human", "rule_key": "git:push"}

@hookimpl
def transform_tool_result(result):
    return result.replace("sk-abc123", "[redacted]")

@hookimpl
def pre_llm_call(is_first_turn):
    if is_first_turn:
        return "house rules: no force pushes"
"""


def run_cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLI), "--home", str(home), *args], capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def policy_home(home: Path) -> Path:
    write_plugin(home, "guard", GUARD)
    (home / "config.yaml").write_text(
        yaml.safe_dump({"hooks": {"pre_tool_call": [{"command": BLOCK_RM}]}})
    )
    return home


def test_our_format_through_python_and_shell_hooks(policy_home):
    hooks = hermes_hooks.load(policy_home, accept_hooks=True, entry_points=False)
    result = replay(hooks, read_session(SESSION))
    decisions = {c.tool_call_id: (c.action, c.source) for c in result.calls}
    assert decisions == {
        "c1": (None, None),
        "c2": ("block", BLOCK_RM),
        "c3": ("approve", "guard"),
        "c4": (None, None),
    }
    summary = result.summary()
    assert [b["id"] for b in summary["blocked"]] == ["c2"]
    assert [a["id"] for a in summary["approvals_asked"]] == ["c3"]
    assert summary["results_rewritten"] == 1  # the secret in c4's result
    assert summary["context_bytes"] == len("house rules: no force pushes")
    events = [f.event for f in result.firings]
    assert events[0] == "on_session_start" and events[-1] == "on_session_end"
    # a blocked call never reaches transform_tool_result / post_tool_call
    assert [f.call for f in result.firings if f.event == "transform_tool_result"] == [1, 3, 4]
    hooks_of_c2 = next(
        f.hooks for f in result.firings if f.event == "pre_tool_call" and f.call == 2
    )
    by_hook = {r["hook"]: r for r in hooks_of_c2}
    assert set(by_hook) == {"guard", BLOCK_RM}
    assert by_hook["guard"]["outcome"] == "no opinion"
    assert by_hook[BLOCK_RM]["outcome"] == "answered"
    assert by_hook[BLOCK_RM]["decision"]["action"] == "block"


def test_a_claude_code_transcript_with_a_shell_guard_blocks_the_right_call(home, tmp_path):
    guard = tmp_path / "no-rm.sh"
    guard.write_text(
        "#!/bin/sh\ninput=$(cat)\ncase \"$input\" in *'rm -rf'*) "
        "echo 'no recursive deletes' >&2; exit 2;; esac\nexit 0\n"
    )
    guard.chmod(0o755)
    settings = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": str(guard)}]}
            ]
        }
    }
    (home / "settings.json").write_text(json.dumps(settings))
    hooks = hermes_hooks.load(home, {}, accept_hooks=True, entry_points=False)
    session = read_session(CLAUDE)
    assert session.format == "claude-code" and session.session_id.startswith("5e1c2b8a")
    calls = [c for t in session.turns for c in t.tool_calls]
    assert [c.tool_name for c in calls] == ["terminal", "terminal", "write_file"]
    assert calls[2].args["path"].endswith("NOTES.md")  # Claude's file_path, back to ours
    # Each tool_result block answers its tool_use: the recorded result and error flag stand in.
    assert [(c.result, c.status) for c in calls] == [
        ("total 0", "ok"),
        ("rm: refusing", "error"),
        ("File created successfully", "ok"),
    ]
    assert [t.user_message for t in session.turns] == ["tidy the repo and remove the temp files"]
    assert session.turns[0].assistant_response == "The repo is tidy."
    result = replay(hooks, session)
    assert [(c.tool_call_id, c.action) for c in result.calls] == [
        ("toolu_01", None),
        ("toolu_02", "block"),
        ("toolu_03", None),
    ]
    assert result.calls[1].message == "no recursive deletes"


def _hermes_messages() -> list[dict]:
    call = {"id": "call_9", "type": "function",
            "function": {"name": "terminal", "arguments": json.dumps({"command": "rm -rf /"})}}  # fmt: skip
    return [
        {"role": "user", "content": "free some space"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_9", "content": '{"output": ""}'},
        {"role": "assistant", "content": "Freed."},
    ]


def test_hermes_agent_session_snapshot_and_state_db(policy_home, tmp_path):
    snapshot = tmp_path / "session_20261116_abc.json"
    snapshot.write_text(json.dumps({"session_id": "20261116_abc", "model": "m", "platform": "cli",
                                    "message_count": 4, "messages": _hermes_messages()}, indent=2))  # fmt: skip
    db = tmp_path / "state.db"
    with sqlite3.connect(db) as conn:
        conn.execute(
            "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,"
            " role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT,"
            " timestamp REAL NOT NULL)"
        )
        for n, m in enumerate(_hermes_messages()):
            conn.execute(
                "INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, timestamp)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                ("20261116_abc", m["role"], m["content"], m.get("tool_call_id"),
                 json.dumps(m["tool_calls"]) if "tool_calls" in m else None, 1000.0 + n),
            )  # fmt: skip
    hooks = hermes_hooks.load(policy_home, accept_hooks=True, entry_points=False)
    for path, kind in ((snapshot, "hermes-agent"), (db, "hermes-agent-db")):
        session = read_session(path)
        assert session.format == kind and session.session_id == "20261116_abc"
        [turn] = session.turns
        assert (turn.user_message, turn.assistant_response) == ("free some space", "Freed.")
        [call] = turn.tool_calls
        assert (call.tool_name, call.args, call.result) == (
            "terminal",
            {"command": "rm -rf /"},
            '{"output": ""}',
        )
        result = replay(hooks, session)
        assert [(c.tool_call_id, c.action) for c in result.calls] == [("call_9", "block")]


def test_expectations_pass_and_fail(policy_home):
    hooks = hermes_hooks.load(policy_home, accept_hooks=True, entry_points=False)
    result = replay(hooks, read_session(SESSION))
    assert (
        compare(result, [{"id": "c2", "action": "block"}, {"call": 3, "action": "approve"}]) == []
    )
    problems = compare(result, [{"id": "c1", "action": "block"}, {"id": "nope", "action": None}])
    assert "expected block, got no decision" in problems[0]
    assert "no such tool call" in problems[1]


def test_cli_shadow_mode_with_an_ad_hoc_hook_and_expectations(home, tmp_path):
    expect = tmp_path / "expect.yaml"
    expect.write_text("- {id: c2, action: block}\n- {id: c1, action: null}\n")
    out = run_cli("replay", str(SESSION), "--hook", f"pre_tool_call={BLOCK_RM}",
                  "--expect", str(expect), home=home)  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    assert "blocked #2 terminal" in out.stdout and "rm -rf is not allowed" in out.stdout
    assert "Expectations: all met" in out.stdout
    expect.write_text("- {id: c1, action: block}\n")
    out = run_cli("replay", str(SESSION), "--hook", f"pre_tool_call={BLOCK_RM}",
                  "--expect", str(expect), "--json", home=home)  # fmt: skip
    assert out.returncode == 1
    doc = json.loads(out.stdout)
    assert doc["summary"]["blocked"][0]["id"] == "c2"
    assert "expected block, got no decision" in doc["expectations"][0]


def test_a_broken_recording_names_the_file_and_line(tmp_path, home):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "user", "text": "hi"}\n{"type": "tool_call", "tool": 3}\n')
    expected = r"bad.jsonl:2: 'tool' is a number 3; expected a non-empty string"
    with pytest.raises(FormatError, match=expected):
        read_session(bad)
    out = run_cli("replay", str(bad), home=home)
    assert out.returncode == 2 and "bad.jsonl:2" in out.stderr and "Traceback" not in out.stderr


def test_a_replay_stays_out_of_the_real_audit_trail(policy_home, tmp_path):
    trace = tmp_path / "audit.jsonl"
    config_path = policy_home / "config.yaml"
    config = yaml.safe_load(config_path.read_text())
    config_path.write_text(yaml.safe_dump({**config, "trace_file": str(trace)}))
    hooks = hermes_hooks.load(policy_home, accept_hooks=True, entry_points=False)
    result = replay(hooks, read_session(SESSION))
    assert result.receipts() and not trace.exists()  # receipts kept for the replay only
    hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})  # a real call is traced
    assert trace.exists()


@pytest.mark.parametrize("adhoc", [[], ["--hook", f"pre_tool_call={BLOCK_RM}"]], ids=["", "hook"])
def test_the_cli_releases_the_hooks_it_loaded(home, closed_runtimes, adhoc):
    from click.testing import CliRunner

    from hermes_hooks.cli import hooks_group

    args = ["--home", str(home), "replay", str(SESSION), *adhoc]
    result = CliRunner().invoke(hooks_group, args)
    assert result.exit_code == 0, result.output
    assert len(closed_runtimes) == 1  # warm workers and the watchdog go with the command


SHAPER = """
from hermes_hooks import hookimpl

@hookimpl
def user_prompt_submit(user_message):
    if "push" in user_message:
        return {"action": "block", "message": "no pushing today"}
    return {"text": user_message + " (carefully)", "context": "abc"}

@hookimpl
def pre_tool_call(tool_name, args):
    command = (args or {}).get("command", "")
    if command == "ls build":
        return {"action": "modify", "args": {"command": "ls -la build"}}
    if command.startswith("rm "):
        return {"action": "approve", "message": "deleting needs a human", "context": "12345"}

@hookimpl
def permission_request(tool_name, args):
    return {"action": "deny", "message": "nobody is around"}

@hookimpl
def transform_tool_result(args, result):
    return None

@hookimpl
def pre_llm_call(user_message):
    return None
"""


def test_a_replay_applies_prompt_blocks_and_rewrites_argument_rewrites_and_denials(home):
    write_plugin(home, "shaper", SHAPER)
    hooks = hermes_hooks.load(home, {}, entry_points=False)
    result = replay(hooks, read_session(SESSION))
    # Turn 2 ("push it") is refused: its tool calls are never fired.
    assert [(c.tool_call_id, c.action, c.permission) for c in result.calls] == [
        ("c1", None, None),
        ("c2", "block", "deny"),  # asked for approval, and the permission hook said no
    ]
    assert result.calls[0].rewritten == {"command": "ls -la build"}
    summary = result.summary()
    assert (summary["prompts_blocked"], summary["prompts_rewritten"]) == (1, 1)
    assert summary["context_bytes"] == len("abc") + len("12345")

    def payloads(event: str) -> list[dict]:
        return [r["payload"] for f in result.firings if f.event == event for r in f.hooks]

    # The model and the tool see what the hooks made of the recording.
    assert [p["user_message"] for p in payloads("pre_llm_call")] == [
        "clean up the build directory (carefully)"
    ]
    assert [p["args"] for p in payloads("transform_tool_result")] == [{"command": "ls -la build"}]
