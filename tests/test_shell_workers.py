"""Warm workers (``persistent: true`` shell hooks), with real processes: answers in both
protocols, crash, timeout, restart back-off, consent change, output cap, garbage, a silent
handshake, parallel firing, and cleanup on close and at interpreter exit."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from shell_helpers import gone, load, shell_plugin, write_settings

import hermes_hooks

ROOT = Path(__file__).resolve().parents[1]

# A worker whose behaviour the tool command picks; it appends its pid to $STARTS when it starts
# and keeps a `sleep` in its process group (to see that the whole group goes).
WORKER = """\
#!{python}
import json, os, subprocess, sys, time
sys.path.insert(0, {root!r})
from hermes_hooks.worker import Exit, block, serve

with open(os.environ["STARTS"], "a") as fh:
    fh.write(f"{{os.getpid()}}\\n")
if os.environ.get("SLEEPER"):
    sleeper = subprocess.Popen(["sleep", "1000"])
    with open(os.environ["SLEEPER"], "w") as fh:
        fh.write(str(sleeper.pid))
count = 0

def handle(event, payload):
    global count
    count += 1
    args = payload.get("tool_input") or {{}}
    cmd = str(args.get("command", ""))
    if cmd == "crash":
        os._exit(3)
    if cmd == "hang":
        time.sleep(100)
    if cmd == "bye":
        import threading
        threading.Timer(0.05, os._exit, (0,)).start()
        return None
    if cmd == "garbage":
        print("this is not json", flush=True)
        return None
    if cmd == "big":
        return "x" * 5000
    if cmd == "count":
        raise block(f"count={{count}}")
    if cmd == "ignore-eof":
        import signal
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if cmd.startswith("answer"):
        return {{"action": "block", "message": cmd}}
    if cmd.startswith("text"):
        return json.dumps({{"action": "block", "message": cmd}})
    if cmd.startswith("block"):
        raise block(cmd)
    if cmd.startswith("deny"):
        raise Exit(2, cmd)
    return None

serve(handle)
"""


@pytest.fixture
def worker(tmp_path: Path) -> Path:
    path = tmp_path / "worker.py"
    path.write_text(WORKER.format(python=sys.executable, root=str(ROOT)))
    path.chmod(0o755)
    return path


def _entry(path: Path, tmp_path: Path, **extra: Any) -> dict[str, Any]:
    env = {"STARTS": str(tmp_path / "starts")}
    env.update(extra.pop("env", {}))
    return {"command": str(path), "persistent": True, "timeout": 10, "env": env, **extra}


def _starts(tmp_path: Path) -> list[int]:
    path = tmp_path / "starts"
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def _fire(hooks: Any, command: str) -> Any:
    return hooks.pre_tool_call(tool_name="terminal", args={"command": command}, session_id="s")


def test_one_worker_answers_every_event(home: Path, tmp_path: Path, worker: Path) -> None:
    hooks = load(home, {"pre_tool_call": [_entry(worker, tmp_path)]})
    try:
        assert _fire(hooks, "ls").action is None
        decision = _fire(hooks, "block this")
        assert decision.action == "block" and decision.message == "block this"
        assert _fire(hooks, "deny that").message == "deny that"
        assert _fire(hooks, "answer as a dict").message == "answer as a dict"
        assert _fire(hooks, "text on stdout").message == "text on stdout"
        assert len(_starts(tmp_path)) == 1  # one process for every event
        row = next(r for r in hooks.rows() if r["source"] == "shell")
        assert row["persistent"] is True and row["type"] == "worker"
        assert row["worker"]["pid"] == _starts(tmp_path)[0]
    finally:
        hooks.close()


def test_serve_reads_utf_8_whatever_the_worker_s_locale(
    home: Path, tmp_path: Path, worker: Path
) -> None:
    # The protocol is UTF-8 JSON lines; a worker started with an ASCII (or any other) stdin
    # encoding must still read them.
    entry = _entry(worker, tmp_path, env={"PYTHONIOENCODING": "ascii"})
    hooks = load(home, {"pre_tool_call": [entry]})
    try:
        assert _fire(hooks, "block café ☕").message == "block café ☕"
        assert _fire(hooks, "block again").message == "block again"
        assert len(_starts(tmp_path)) == 1
    finally:
        hooks.close()


def test_claude_code_protocol(home: Path, tmp_path: Path, worker: Path) -> None:
    entry = {"type": "command", **_entry(worker, tmp_path)}
    write_settings(home / "settings.json", {"PreToolUse": [{"matcher": "Bash", "hooks": [entry]}]})
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    try:
        decision = _fire(hooks, "block claude")
        assert decision.action == "block" and "block claude" in decision.message
        assert hooks.pre_tool_call(tool_name="read_file", args={"path": "x"}).action is None
        assert len(_starts(tmp_path)) == 1
    finally:
        hooks.close()


def test_crash_fails_the_event_then_restarts(home: Path, tmp_path: Path, worker: Path) -> None:
    hooks = load(home, {"pre_tool_call": [_entry(worker, tmp_path, fail_closed=True)]})
    try:
        decision = _fire(hooks, "crash")
        assert decision.action == "block"  # fail_closed: its answer is unknown
        assert "exited with code 3" in decision.message
        assert _fire(hooks, "ls").action is None  # started again at its next event
        first, second = _starts(tmp_path)
        assert first != second and gone(first)
    finally:
        hooks.close()


def test_a_worker_gone_between_events_is_replaced_at_once(
    home: Path, tmp_path: Path, worker: Path
) -> None:
    hooks = load(home, {"pre_tool_call": [_entry(worker, tmp_path)]})
    try:
        assert _fire(hooks, "bye").action is None  # answers, then exits on its own
        (first,) = _starts(tmp_path)
        assert gone(first)
        assert _fire(hooks, "block next").action == "block"  # a new worker, no failed event
        assert len(_starts(tmp_path)) == 2
    finally:
        hooks.close()


def test_timeout_kills_the_group_and_restarts(home: Path, tmp_path: Path, worker: Path) -> None:
    sleeper = tmp_path / "sleeper"
    entry = _entry(worker, tmp_path, timeout=1, env={"SLEEPER": str(sleeper)})
    hooks = load(home, {"pre_tool_call": [entry]})
    try:
        assert _fire(hooks, "hang").action is None  # fail open, killed
        (first,) = _starts(tmp_path)
        assert gone(first) and gone(int(sleeper.read_text()))
        source = shell_plugin(hooks)
        assert (
            "did not answer in time" in source.workers.describe(source.all_hooks[0])["last_error"]
        )
        assert _fire(hooks, "block again").action == "block"
        assert len(_starts(tmp_path)) == 2
    finally:
        hooks.close()


def test_restart_backs_off_after_failures_in_a_row(
    home: Path, tmp_path: Path, worker: Path
) -> None:
    hooks = load(home, {"pre_tool_call": [_entry(worker, tmp_path, fail_closed=True)]})
    source = shell_plugin(hooks)
    source.workers.backoff = (30.0, 60.0)
    try:
        _fire(hooks, "crash")
        _fire(hooks, "crash")  # restarted at once, crashed again: now it waits 30 s
        assert len(_starts(tmp_path)) == 2
        decision = _fire(hooks, "ls")
        assert decision.action == "block" and "next start in" in decision.message
        assert len(_starts(tmp_path)) == 2  # not started during the back-off
        state = source.workers.workers[source.all_hooks[0].key]
        state.retry_at = 0.0  # the back-off is over
        assert _fire(hooks, "ls").action is None
        assert len(_starts(tmp_path)) == 3 and state.failures == 0
    finally:
        hooks.close()


def test_changed_script_waits_for_approval_then_gets_a_new_worker(
    home: Path, tmp_path: Path, worker: Path
) -> None:
    hooks = load(home, {"pre_tool_call": [_entry(worker, tmp_path)]})
    source = shell_plugin(hooks)
    try:
        assert _fire(hooks, "block one").action == "block"
        (first,) = _starts(tmp_path)
        worker.write_text(worker.read_text() + "# changed\n")
        withheld = _fire(hooks, "block two")  # changed: not run until re-approved ...
        assert withheld.action == "block" and "changed since approval" in withheld.message
        assert len(_starts(tmp_path)) == 1  # ... and no worker started for it
        source.approve(source.all_hooks)
        assert _fire(hooks, "block three").action == "block"
        assert len(_starts(tmp_path)) == 2 and gone(first)
    finally:
        hooks.close()


def test_garbage_and_over_long_answers_fail_and_restart(
    home: Path, tmp_path: Path, worker: Path
) -> None:
    hooks = load(home, {"pre_tool_call": [_entry(worker, tmp_path)]}, hooks_max_output=1000)
    source = shell_plugin(hooks)
    hook = source.all_hooks[0]
    try:
        from hermes_hooks.catalogue import get

        info = get("pre_tool_call")
        run = source.execute(info, {"tool_name": "terminal", "args": {"command": "garbage"}})[0]
        assert (
            "broke the protocol" in run.answer.failure and "not a JSON line" in run.answer.failure
        )
        run = source.execute(info, {"tool_name": "terminal", "args": {"command": "big"}})[0]
        assert run.outcome.truncated and "cap" in run.answer.failure
        assert source.workers.describe(hook)["failures"] == 2
        source.workers.workers[hook.key].retry_at = 0.0  # its back-off is over
        assert _fire(hooks, "block ok").action == "block"
        assert len(_starts(tmp_path)) == 3
    finally:
        hooks.close()


def test_a_worker_that_never_shakes_hands(home: Path, tmp_path: Path) -> None:
    silent = tmp_path / "silent.sh"
    silent.write_text("#!/bin/sh\nexec sleep 100\n")
    silent.chmod(0o755)
    entry = {"command": str(silent), "persistent": True, "timeout": 1, "fail_closed": True}
    hooks = load(home, {"pre_tool_call": [entry]})
    try:
        decision = _fire(hooks, "ls")
        assert decision.action == "block" and "timed out" in decision.message
        worker = shell_plugin(hooks).workers.describe(shell_plugin(hooks).all_hooks[0])
        assert worker["pid"] is None and "handshake" in worker["last_error"]
    finally:
        hooks.close()


def test_eight_threads_fire_one_worker_without_mixing_answers(
    home: Path, tmp_path: Path, worker: Path
) -> None:
    hooks = load(home, {"pre_tool_call": [_entry(worker, tmp_path)]})
    wrong: list[Any] = []

    def fire(thread: int) -> None:
        for i in range(50):
            expected = f"block {thread}-{i}"
            got = _fire(hooks, expected).message
            if got != expected:
                wrong.append((expected, got))

    try:
        threads = [threading.Thread(target=fire, args=(t,)) for t in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert wrong == []
        assert _fire(hooks, "count").message == f"count={8 * 50 + 1}"
        assert len(_starts(tmp_path)) == 1
    finally:
        hooks.close()


def _fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def test_close_stops_the_group_and_releases_every_fd(
    home: Path, tmp_path: Path, worker: Path
) -> None:
    sleeper = tmp_path / "sleeper"
    hooks = load(home, {"pre_tool_call": [_entry(worker, tmp_path, env={"SLEEPER": str(sleeper)})]})
    before = _fds()
    _fire(hooks, "ignore-eof")
    (pid,) = _starts(tmp_path)
    hooks.close()
    assert not os.path.exists(f"/proc/{pid}")  # gone and reaped: no zombie
    assert gone(int(sleeper.read_text()))
    assert _fds() - before == set()
    assert "stopped" in str(shell_plugin(hooks).execute(
        hooks.manager.event("pre_tool_call"), {"tool_name": "terminal", "args": {}}
    )[0].answer.failure)  # fmt: skip


def test_interpreter_exit_stops_every_worker(home: Path, tmp_path: Path, worker: Path) -> None:
    sleeper = tmp_path / "sleeper"
    load(home, {"pre_tool_call": [_entry(worker, tmp_path, env={"SLEEPER": str(sleeper)})]})
    code = (
        "import hermes_hooks, sys\n"
        f"h = hermes_hooks.load({str(home)!r}, accept_hooks=True, entry_points=False)\n"
        "h.pre_tool_call(tool_name='terminal', args={'command': 'ls'})\n"
        "print('fired', flush=True)\n"  # exits without close(): atexit must stop the worker
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "fired" in out.stdout, out.stderr
    (pid,) = _starts(tmp_path)
    assert gone(pid) and gone(int(sleeper.read_text()))


def test_warm_starts_at_load(home: Path, tmp_path: Path, worker: Path) -> None:
    hooks = load(home, {"pre_tool_call": [_entry(worker, tmp_path, warm=True)]})
    try:
        end = time.monotonic() + 10
        while not _starts(tmp_path) and time.monotonic() < end:
            time.sleep(0.02)
        assert len(_starts(tmp_path)) == 1  # before any event
        assert _fire(hooks, "block warm").action == "block"
        assert len(_starts(tmp_path)) == 1  # the same worker answered
    finally:
        hooks.close()


def test_bad_flags_are_reported(home: Path, tmp_path: Path, worker: Path) -> None:
    hooks = load(home, {"pre_tool_call": [
        {"command": str(worker), "persistent": "yes"},
        {"command": str(worker) + " x", "warm": True},
    ]})  # fmt: skip
    problems = shell_plugin(hooks).problems
    assert any("persistent 'yes' is not true or false" in p for p in problems)
    assert any("warm: true applies only with persistent: true" in p for p in problems)
    assert all(h.kind == "command" for h in shell_plugin(hooks).all_hooks)
    hooks.close()


def test_the_bash_worker_of_the_docs(home: Path, tmp_path: Path) -> None:
    text = (ROOT / "docs" / "shell-hooks.md").read_text()
    body = re.search(r"<!-- worker-example -->\s*```bash\n(.*?)```", text, re.S)
    assert body is not None
    path = tmp_path / "guard.sh"
    path.write_text(body.group(1))
    path.chmod(0o755)
    hooks = load(home, {"pre_tool_call": [{"command": str(path), "persistent": True}]})
    try:
        assert _fire(hooks, "rm -rf /").action == "block"
        assert _fire(hooks, "ls").action is None
        assert json.loads(json.dumps(shell_plugin(hooks).rows()[0]["worker"]))["starts"] == 1
    finally:
        hooks.close()


def test_two_workers_of_one_event_both_answer(home: Path, tmp_path: Path, worker: Path) -> None:
    other = tmp_path / "other.py"
    other.write_text(worker.read_text())
    other.chmod(0o755)
    hooks = load(home, {"pre_tool_call": [_entry(worker, tmp_path), _entry(other, tmp_path)]})
    try:
        assert _fire(hooks, "block both").action == "block"
        assert _fire(hooks, "ls").action is None
        assert len(set(_starts(tmp_path))) == 2
        source = shell_plugin(hooks)
        counts = [
            source.execute(hooks.manager.event("pre_tool_call"), {"tool_name": "terminal",
                           "args": {"command": "count"}}, [hook])[0].answer.value.message
            for hook in source.all_hooks
        ]  # fmt: skip
        assert counts == ["count=3", "count=3"]
    finally:
        hooks.close()


def test_the_host_environment_snapshot_follows_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    from hermes_hooks.builtin_plugins.shell_hooks.processes import host_env

    monkeypatch.setenv("HERMES_WORKER_PROBE", "one")
    assert host_env()["HERMES_WORKER_PROBE"] == "one"
    monkeypatch.setenv("HERMES_WORKER_PROBE", "two")
    assert host_env()["HERMES_WORKER_PROBE"] == "two"
    monkeypatch.delenv("HERMES_WORKER_PROBE")
    assert "HERMES_WORKER_PROBE" not in host_env()


@pytest.mark.parametrize("protocol", ["hermes", "claude-code"])
def test_a_firing_adds_only_the_per_firing_variables_to_the_static_environment(
    home: Path, tmp_path: Path, worker: Path, monkeypatch: pytest.MonkeyPatch, protocol: str
) -> None:
    # A worker is keyed by its environment without PER_FIRING: any other variable that
    # differs between firings (or from the environment warm: true starts it with) would
    # start a new worker at every event.
    from hermes_hooks.builtin_plugins.shell_hooks import consent
    from hermes_hooks.builtin_plugins.shell_hooks.processes import PER_FIRING

    monkeypatch.delenv("CLAUDE_ENV_FILE", raising=False)
    entry = _entry(worker, tmp_path, protocol=protocol, env={"MINE": "1"})
    hooks = load(home, {"on_session_start": [entry]})
    try:
        runner = shell_plugin(hooks).runner
        (hook,) = shell_plugin(hooks).all_hooks
        info = hooks.manager.event("on_session_start")
        env = runner.environment(info, hook, {"session_id": "s1"}, consent.current_dir())
        static = runner.static_env(hook)
        assert set(env) - set(static) == set(PER_FIRING)
        assert {k: v for k, v in env.items() if k not in PER_FIRING} == static
        assert (env["HERMES_HOOK_EVENT"], env["HERMES_SESSION_ID"]) == ("on_session_start", "s1")
        assert static["MINE"] == "1"
    finally:
        hooks.close()


@pytest.mark.parametrize("lang", ["bash", "python"])
def test_new_hook_persistent_scaffolds_a_working_worker(tmp_path: Path, lang: str) -> None:
    import yaml
    from click.testing import CliRunner

    from hermes_hooks.cli import hooks_group

    home = tmp_path / "home"
    args = ["--home", str(home), "new-hook", "guard", "--event", "pre_tool_call", "--lang", lang]
    result = CliRunner().invoke(hooks_group, [*args, "--persistent"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "warm worker" in result.output
    snippet = result.output.split("Enable it in", 1)[1].split("\n", 1)[1].split("\n\nIt runs", 1)[0]
    config = yaml.safe_load(snippet)
    assert config["hooks"]["pre_tool_call"][0]["persistent"] is True
    (home / "config.yaml").write_text(snippet)
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    try:
        decision = _fire(hooks, "rm -rf / --no-preserve-root")
        assert decision.action == "block" and "refusing to run rm -rf /" in decision.message
        assert _fire(hooks, "ls").action is None
        assert shell_plugin(hooks).rows()[0]["worker"]["starts"] == 1
    finally:
        hooks.close()


@pytest.mark.parametrize("lang", ["bash", "python"])
@pytest.mark.parametrize("event", ["on_session_end", "pre_llm_call"])
def test_new_hook_persistent_observe_and_context_workers(
    tmp_path: Path, lang: str, event: str
) -> None:
    from click.testing import CliRunner

    from hermes_hooks.cli import hooks_group

    home = tmp_path / "home"
    args = ["--home", str(home), "new-hook", "w", "--event", event, "--lang", lang, "--persistent"]
    result = CliRunner().invoke(hooks_group, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    snippet = result.output.split("Enable it in", 1)[1].split("\n", 1)[1].split("\n\nIt runs", 1)[0]
    (home / "config.yaml").write_text(snippet)
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    try:
        kwargs = {"session_id": "s9", "completed": True, "user_message": "hi"}
        with shell_plugin(hooks).recording() as report:
            hooks.call(event, **kwargs)
        (run,) = report.runs
        assert run.answer is not None and run.answer.failure is None, run.report()
        if event == "on_session_end":
            logged = (home / "logs" / "w.jsonl").read_text().splitlines()
            assert json.loads(logged[0])["session_id"] == "s9"
    finally:
        hooks.close()


def test_doctor_and_test_commands_show_the_worker(home: Path, tmp_path: Path, worker: Path) -> None:
    from click.testing import CliRunner

    from hermes_hooks.cli import hooks_group

    silent = tmp_path / "silent.sh"
    silent.write_text("#!/bin/sh\nexec sleep 100\n")
    silent.chmod(0o755)
    load(home, {"pre_tool_call": [_entry(worker, tmp_path, name="good")],
                "pre_llm_call": [{"command": str(silent), "persistent": True, "timeout": 1}]})  # fmt: skip

    def cli(*args: str) -> str:
        result = CliRunner().invoke(hooks_group, ["--home", str(home), "--accept-hooks", *args])
        return result.output

    out = cli("doctor")
    assert re.search(r"warm worker started \(pid \d+\), handshake protocol 1", out), out
    assert "warm worker is not running: sent no handshake in time" in out
    (pid,) = _starts(tmp_path)
    assert gone(pid)  # the command closed its hooks: the worker is stopped
    out = cli("test", "pre_tool_call", "--for-tool", "terminal")
    assert "warm worker: pid" in out
    out = cli("list")
    assert "(persistent worker)" in out


def test_a_trace_file_records_each_worker_run(home: Path, tmp_path: Path, worker: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    hooks = load(home, {"pre_tool_call": [_entry(worker, tmp_path, name="w")]},
                 trace_file=str(trace))  # fmt: skip
    try:
        _fire(hooks, "block traced")
        _fire(hooks, "ls")
    finally:
        hooks.close()
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    runs = [r for r in lines if r.get("hook") == "w"]
    assert [r["source"] for r in runs] == ["shell", "shell"]
    assert runs[0]["sha256"] and runs[0]["outcome"] == "answered"


# A raw worker (no serve()) that writes lines no request asked for: right after an answer, one
# for the id it expects next (and one with no id); before an answer, after a delay, one for the
# previous request's id (and one with no id).
UNSOLICITED = """\
#!{python}
import json, sys, time

def say(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()

say({{"worker": "hermes-hooks", "protocol": 1}})
previous = None
for line in sys.stdin:
    request = json.loads(line)
    ident = request["id"]
    command = request["payload"]["tool_input"]["command"]
    stale = {{"action": "block", "message": "stale answer"}}
    if command == "guess":
        say({{"id": ident}})
        if isinstance(ident, int):
            say({{"id": ident + 1, "answer": stale}})  # the next request's id, before reading it
        say({{"answer": stale}})
    elif command == "late":
        time.sleep(0.2)
        say({{"id": previous, "answer": stale}})
        say({{"answer": stale}})
        time.sleep(0.2)
        say({{"id": ident}})
    elif command == "block":
        say({{"id": ident, "answer": {{"action": "block", "message": "the real answer"}}}})
    else:
        say({{"id": ident}})
    previous = ident
"""


def test_lines_no_request_asked_for_are_never_taken_as_an_answer(
    home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    path = tmp_path / "unsolicited.py"
    path.write_text(UNSOLICITED.format(python=sys.executable))
    path.chmod(0o755)
    hooks = load(home, {"pre_tool_call": [_entry(path, tmp_path, timeout=5)]})
    hook = shell_plugin(hooks).all_hooks[0]
    try:
        with caplog.at_level(logging.WARNING, "hermes_hooks"):
            for command in ("guess", "ls", "late", "ls", "guess", "late", "ls"):
                decision = _fire(hooks, command)
                assert decision.action is None, (command, decision)
            assert _fire(hooks, "block").message == "the real answer"
        described = shell_plugin(hooks).workers.describe(hook)
        assert described["starts"] == 1 and described["failures"] == 0  # never restarted
        reports = [r for r in caplog.records if "answers no current request" in r.getMessage()]
        assert len(reports) == 1  # reported once
    finally:
        hooks.close()
