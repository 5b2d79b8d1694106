"""Shell hooks: first-use consent pinned to the script's hash."""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hermes_hooks.builtin_plugins.shell_hooks import consent
from shell_helpers import load, on_a_terminal, script, shell_plugin

import hermes_hooks


def _guard(tmp_path: Path) -> Path:
    path = tmp_path / "guard.sh"
    shutil.copy(script("block_rm.sh"), path)
    path.chmod(0o755)
    return path


def _rm(hooks: hermes_hooks.Hooks) -> str | None:
    return hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf /"}).action


def _allowlist(home: Path) -> list[dict]:
    return json.loads((home / consent.FILENAME).read_text())["approvals"]


def _ls(hooks: hermes_hooks.Hooks) -> Any:
    """A call the guard lets through: only a guard that was not run blocks it."""
    return hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})


def test_unapproved_guard_blocks_headless_saying_how_once(
    home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture
) -> None:
    guard = _guard(tmp_path)
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(home, {"pre_tool_call": [{"command": str(guard)}]}, accept=False)
        first, second = _ls(hooks), _ls(hooks)
    # Nobody can be asked and nobody approved it: what it guards is blocked, never run unseen.
    assert first.blocked and second.blocked
    assert f"hermes hooks approve {guard}" in first.message and "not approved" in first.message
    [startup] = [r for r in caplog.records if "not approved as they are now" in r.message]
    assert "--accept-hooks" in startup.message
    err = capfd.readouterr().err
    assert err.count("not run: it guards pre_tool_call") == 1  # on the terminal, once
    assert f"hermes hooks approve {guard}" in err


def test_accept_hooks_approves_and_pins_the_hash(home: Path, tmp_path: Path) -> None:
    guard = _guard(tmp_path)
    hooks = load(home, {"pre_tool_call": [{"command": str(guard), "matcher": "terminal"}]})
    assert _rm(hooks) == "block"
    [entry] = _allowlist(home)
    assert entry["event"] == "pre_tool_call" and entry["command"] == str(guard)
    assert entry["matcher"] == "terminal"
    assert entry["sha256"] == consent.file_sha256(str(guard))
    assert entry["approved_at"].endswith("Z") and entry["script_mtime_at_approval"].endswith("Z")
    assert (home / consent.FILENAME).stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("how", ["env", "config"])
def test_other_ways_to_auto_accept(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    guard = _guard(tmp_path)
    extra = {}
    if how == "env":
        monkeypatch.setenv("HERMES_ACCEPT_HOOKS", "1")
    else:
        extra["hooks_auto_accept"] = True
    hooks = load(home, {"pre_tool_call": [{"command": str(guard)}]}, accept=False, **extra)
    assert _rm(hooks) == "block"


def test_changed_guard_blocks_headless_saying_what_changed_and_how(
    home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture
) -> None:
    guard = _guard(tmp_path)
    load(home, {"pre_tool_call": [{"command": str(guard)}]})
    before = consent.file_sha256(str(guard))
    guard.write_text(guard.read_text() + "\n# tampered\n")
    capfd.readouterr()
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = hermes_hooks.load(home, entry_points=False)
        first, second = _ls(hooks), _ls(hooks)
    assert first.blocked and second.blocked and first.source == str(guard)
    assert "changed since approval" in first.message
    assert f"sha256 {before[:12]} -> {consent.file_sha256(str(guard))[:12]}" in first.message
    assert f"`hermes hooks approve {guard}`" in first.message
    assert len([r for r in caplog.records if "not run: it guards" in r.message]) == 1
    assert capfd.readouterr().err.count("not run: it guards pre_tool_call") == 1
    [row] = [r for r in hooks.rows() if r["source"] == "shell"]
    assert row["status"] == "changed"


def test_changed_hook_on_an_observe_only_event_is_skipped_loudly_once(
    home: Path, tmp_path: Path, capfd: pytest.CaptureFixture
) -> None:
    marker = tmp_path / "ran"
    hook = tmp_path / "observe.sh"
    hook.write_text(f"#!/bin/sh\ncat > /dev/null\necho ran >> {marker}\n")
    hook.chmod(0o755)
    load(home, {"post_llm_call": [{"command": str(hook)}]})
    hook.write_text(hook.read_text() + "# edited\n")
    capfd.readouterr()
    hooks = hermes_hooks.load(home, entry_points=False)
    for _ in range(2):
        hooks.call("post_llm_call", **hooks.manager.event("post_llm_call").example)
    assert not marker.exists()
    err = capfd.readouterr().err
    assert err.count("not run: skipped (post_llm_call cannot block)") == 1
    assert f"hermes hooks approve {hook}" in err
    from click.testing import CliRunner

    from hermes_hooks.cli import hoist_global_options, hooks_group

    doctor = CliRunner().invoke(hooks_group, hoist_global_options(["--home", str(home), "doctor"]))
    assert doctor.exit_code == 1 and "changed since approval" in doctor.output


def test_script_changed_while_running_is_caught_at_the_next_firing(
    home: Path, tmp_path: Path
) -> None:
    guard = _guard(tmp_path)
    hooks = load(home, {"pre_tool_call": [{"command": str(guard)}]})
    assert _rm(hooks) == "block"
    assert not _ls(hooks).blocked
    guard.write_text(guard.read_text() + "\n# tampered\n")
    after = _ls(hooks)
    assert after.blocked and "changed since approval" in after.message


def test_interpreter_prefixed_command_pins_the_script(home: Path, tmp_path: Path) -> None:
    guard = _guard(tmp_path)
    load(home, {"pre_tool_call": [{"command": f"bash {guard}"}]})
    [entry] = _allowlist(home)
    assert entry["sha256"] == consent.file_sha256(str(guard))


def test_widening_a_matcher_needs_reapproval_narrowing_does_not(home: Path, tmp_path: Path) -> None:
    guard = _guard(tmp_path)
    load(home, {"pre_tool_call": [{"command": str(guard), "matcher": "terminal|write_file"}]})
    narrower = load(
        home, {"pre_tool_call": [{"command": str(guard), "matcher": "terminal"}]}, accept=False
    )
    assert _rm(narrower) == "block"
    wider = load(home, {"pre_tool_call": [{"command": str(guard), "matcher": ".*"}]}, accept=False)
    widened = _ls(wider)
    assert widened.blocked and "matcher widened" in widened.message
    [row] = [r for r in wider.rows() if r["source"] == "shell"]
    assert row["status"] == "changed" and "matcher widened" in row["error"]


@pytest.mark.parametrize(
    ("approved", "now", "covered"),
    [
        (None, "terminal", True),
        ("*", "x", True),
        ("a|b", "a", True),
        ("a", "a|b", False),
        ("a", None, False),
        ("t.*", "t1", False),
    ],
)
def test_matcher_coverage(approved: str | None, now: str | None, covered: bool) -> None:
    assert consent.covers(approved, now) is covered


def test_hermes_written_entry_is_honoured_and_pinned_with_a_notice(
    home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    guard = _guard(tmp_path)
    home.mkdir(parents=True, exist_ok=True)
    hermes_entry = {"event": "pre_tool_call", "command": str(guard), "approved_at": "2026-01-01T00:00:00Z",
                    "script_mtime_at_approval": consent.mtime_iso(str(guard))}  # fmt: skip
    (home / consent.FILENAME).write_text(
        json.dumps({"approvals": [hermes_entry]}, indent=2, sort_keys=True)
    )
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(
            home, {"pre_tool_call": [{"command": str(guard), "matcher": "terminal"}]}, accept=False
        )
        assert _rm(hooks) == "block"
    assert "now pinned" in caplog.text
    [entry] = _allowlist(home)
    assert entry["sha256"] == consent.file_sha256(str(guard)) and entry["matcher"] == "terminal"
    assert entry["approved_at"] == "2026-01-01T00:00:00Z"


def test_tty_prompt_approves_once_and_remembers_a_no(home: Path, tmp_path: Path) -> None:
    guard = _guard(tmp_path)
    hooks = load(home, {"pre_tool_call": [{"command": str(guard)}]}, accept=False)
    plugin = shell_plugin(hooks)
    questions: list[str] = []
    plugin.ask = lambda text: questions.append(text) or False
    assert _rm(hooks) is None and _rm(hooks) is None
    assert len(questions) == 1
    q = questions[0]
    assert (
        "pre_tool_call" in q
        and str(guard) in q
        and consent.file_sha256(str(guard)) in q
        and "[y/N]" in q
    )

    hooks = load(home, {"pre_tool_call": [{"command": str(guard)}]}, accept=False)
    shell_plugin(hooks).ask = lambda text: True
    assert _rm(hooks) == "block"
    assert len(_allowlist(home)) == 1


def test_approval_written_by_another_process_is_seen_without_restart(
    home: Path, tmp_path: Path
) -> None:
    guard = _guard(tmp_path)
    hooks = load(home, {"pre_tool_call": [{"command": str(guard)}]}, accept=False)
    assert _ls(hooks).blocked  # not approved: what it guards is blocked
    plugin = shell_plugin(hooks)
    other = consent.Allowlist(home / consent.FILENAME)
    other.approve(
        [
            consent.record(
                "pre_tool_call", str(guard), None, consent.file_sha256(str(guard)), str(guard)
            )
        ]
    )
    assert _rm(hooks) == "block" and not _ls(hooks).blocked
    assert consent.Allowlist(home / consent.FILENAME).revoke(str(guard)) == 1
    assert _ls(hooks).blocked
    assert plugin is shell_plugin(hooks)


def test_thirty_two_processes_approving_at_once_lose_no_entry(tmp_path: Path) -> None:
    path = tmp_path / consent.FILENAME
    code = (
        "import sys; from pathlib import Path; from hermes_hooks.builtin_plugins.shell_hooks import consent\n"
        "consent.Allowlist(Path(sys.argv[1])).approve([consent.record('pre_tool_call', f'hook-{sys.argv[2]}', None, None, None)])\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path), str(i)]) for i in range(32)]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    commands = {e["command"] for e in json.loads(path.read_text())["approvals"]}
    assert commands == {f"hook-{i}" for i in range(32)}
    assert not list(tmp_path.glob("*.tmp"))


def test_revoke_removes_every_approval_of_a_command(tmp_path: Path) -> None:
    allow = consent.Allowlist(tmp_path / consent.FILENAME)
    allow.approve([consent.record("pre_tool_call", "x", None, None, None), consent.record("post_tool_call", "x", "terminal", None, None),
                   consent.record("pre_tool_call", "y", None, None, None)])  # fmt: skip
    assert allow.revoke("x") == 2
    assert [e["command"] for e in allow.entries()] == ["y"]
    assert allow.revoke("x") == 0


# ---------------------------------------------------------------------- what an approval pins


def _logging_guard(tmp_path: Path) -> Path:
    """A guard that appends every payload to the file named by its first argument (its log),
    then blocks `rm -rf` as block_rm.sh does."""
    path = tmp_path / "logging_guard.sh"
    path.write_text(
        '#!/bin/sh\ninput=$(cat)\nprintf \'%s\\n\' "$input" >> "$1"\n'
        "case \"$input\" in *'rm -rf'*) "
        'printf \'{"action": "block", "message": "rm -rf is not allowed"}\\n\' ;; esac\n'
    )
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("protocol", ["hermes", "claude-code"])
def test_a_log_the_guard_writes_is_not_pinned_so_the_guard_keeps_running(
    home: Path, tmp_path: Path, protocol: str
) -> None:
    guard = _logging_guard(tmp_path)
    log_file = tmp_path / "guard.log"
    log_file.write_text("")  # exists at approval: named on the command line, yet data
    entry = {"command": f"{guard} {log_file}", "protocol": protocol}
    hooks = load(home, {"pre_tool_call": [entry]})
    assert _rm(hooks) == "block"
    # The guard wrote its log; it is the same guard, so it runs and lets `ls` through.
    assert log_file.read_text().count("rm -rf") == 1
    after = _ls(hooks)
    assert not after.blocked, after.message
    assert log_file.read_text().count('"ls"') == 1
    [approval] = _allowlist(home)
    assert list(approval["pinned"]) == [str(guard)]


def test_an_approval_pins_what_runs_as_code_and_what_pin_lists(home: Path, tmp_path: Path) -> None:
    runner = tmp_path / "runner.py"
    runner.write_text("import sys\nsys.stdin.read()\n")
    rules = tmp_path / "rules.py"  # an argument that is a script: runs as code
    rules.write_text("DENY = ['rm']\n")
    data = tmp_path / "data.json"  # named, but data
    data.write_text("{}")
    extra = tmp_path / "extra.json"  # data the entry pins on purpose
    extra.write_text("{}")
    rc = tmp_path / "rc.sh"  # an interpreter option that loads code
    rc.write_text("true\n")
    sh_guard = _guard(tmp_path)
    hooks = {
        "pre_tool_call": [
            {"command": f"python3 {runner} {rules} {data}", "pin": [str(extra)]},
            {"command": f"bash --rcfile {rc} {sh_guard} {data}"},
        ]
    }
    load(home, hooks)
    pinned = {a["command"]: set(a["pinned"]) for a in _allowlist(home)}
    assert pinned[f"python3 {runner} {rules} {data}"] == {str(runner), str(rules), str(extra)}
    assert pinned[f"bash --rcfile {rc} {sh_guard} {data}"] == {str(sh_guard), str(rc)}


def test_approve_and_the_prompt_say_which_files_are_pinned(home: Path, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from hermes_hooks.cli import hoist_global_options, hooks_group

    guard = _logging_guard(tmp_path)
    log_file = tmp_path / "guard.log"
    log_file.write_text("")
    command = f"{guard} {log_file}"
    hooks = load(home, {"pre_tool_call": [{"command": command}]}, accept=False)
    questions: list[str] = []
    shell_plugin(hooks).ask = lambda text: questions.append(text) or False
    _ls(hooks)
    [q] = questions
    pins = q[q.index("pins") : q.index("sha256:")]
    assert str(guard) in pins and str(log_file) not in pins
    assert consent.file_sha256(str(guard))[:12] in pins
    result = CliRunner().invoke(
        hooks_group, hoist_global_options(["--home", str(home), "approve", command])
    )
    assert result.exit_code == 0, result.output
    lines = [line.strip() for line in result.output.splitlines() if "pins" in line]
    assert lines == [f"pins {guard} (sha256 {consent.file_sha256(str(guard))[:12]}…)"]


def test_a_pinned_file_the_hook_changes_itself_is_reported_as_such(
    home: Path, tmp_path: Path, capfd: pytest.CaptureFixture
) -> None:
    state = tmp_path / "state.txt"
    state.write_text("0\n")
    guard = tmp_path / "counting_guard.sh"
    guard.write_text(f"#!/bin/sh\ncat > /dev/null\necho run >> {state}\n")
    guard.chmod(0o755)
    trace = tmp_path / "trace.jsonl"
    entry = {"command": str(guard), "pin": [str(state)]}
    hooks = load(home, {"pre_tool_call": [entry]}, trace_file=str(trace))
    capfd.readouterr()
    assert not _ls(hooks).blocked  # its first run, as approved
    err = capfd.readouterr().err
    said = f"changed its own pinned file {state} while it ran on pre_tool_call"
    assert err.count(said) == 1 and "take it out of pin:" in err
    [receipt] = [json.loads(line) for line in trace.read_text().splitlines()]
    assert said in receipt["error"]
    then = _ls(hooks)  # from now on it is changed, and says why
    assert then.blocked and f"the hook itself changed its pinned file {state}" in then.message
    _ls(hooks)
    assert said not in capfd.readouterr().err  # reported once


# ---------------------------------------------------------------------- asked again on a terminal

_ASKED = """
import json, sys
import hermes_hooks
hooks = hermes_hooks.load(sys.argv[1], entry_points=False)
for command in ("rm -rf /", "ls"):
    d = hooks.pre_tool_call(tool_name="terminal", args={"command": command})
    print("RESULT", json.dumps([command, d.action, d.message]), flush=True)
"""


def _on_a_terminal(home: Path, answer: bytes) -> tuple[str, list[Any]]:
    """Run ``_ASKED`` on a pseudo-terminal, answering ``answer`` to the first question."""
    text = on_a_terminal([sys.executable, "-c", _ASKED, str(home)], answer)
    results = [json.loads(line[7:]) for line in text.splitlines() if line.startswith("RESULT ")]
    return text, results


@pytest.mark.parametrize("answer", [b"y", b"n"])
def test_a_changed_guard_is_asked_about_again_on_a_terminal_showing_what_changed(
    home: Path, tmp_path: Path, answer: bytes
) -> None:
    guard = _guard(tmp_path)
    load(home, {"pre_tool_call": [{"command": str(guard)}]})
    before = consent.file_sha256(str(guard))
    guard.write_text(guard.read_text() + "\n# edited after approval\n")
    now = consent.file_sha256(str(guard))
    text, results = _on_a_terminal(home, answer)
    assert "A shell hook changed since you approved it" in text
    assert f"changed: {guard} (sha256 {before[:12]} -> {now[:12]})" in text
    assert text.count("[y/N]") == 1  # asked once, the answer remembered
    [entry] = _allowlist(home)
    if answer == b"y":
        assert results == [["rm -rf /", "block", "rm -rf is not allowed"], ["ls", None, None]]
        assert entry["sha256"] == now
    else:
        # A person said no: the hook is skipped (they were told), nothing blocked in its name.
        assert results == [["rm -rf /", None, None], ["ls", None, None]]
        assert entry["sha256"] == before
        assert "you declined it, so it is skipped" in text


@pytest.mark.parametrize(
    "argv",
    [
        ["python3", "guard.py", "-r", "rules.txt"],
        ["python3", "guard.py", "--import", "rules.txt"],
        ["node", "guard.js", "--require", "rules.txt"],
    ],  # fmt: skip
)
def test_an_option_after_the_script_is_the_scripts_so_its_file_is_data(
    tmp_path: Path, argv: list[str]
) -> None:
    # -r / --import / --require load code only as the interpreter's own options (before the
    # script); after it they are the script's arguments, and the file named is data it may
    # rewrite, so pinning it would make the guard "changed" after its own run.
    from hermes_hooks.builtin_plugins.shell_hooks import consent

    for name in ("guard.py", "guard.js", "rules.txt", "pre.js"):
        (tmp_path / name).write_text("x\n")
    pins = consent.of_argv(argv, str(tmp_path), {"PATH": "/usr/bin:/bin"})
    assert pins.files == (str(tmp_path / argv[1]),)
    before = consent.of_argv(["node", "--require", "pre.js", "guard.js"], str(tmp_path), {})
    assert str(tmp_path / "pre.js") in before.files  # before the script it is code
