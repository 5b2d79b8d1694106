"""The command_guard built-in through hermes_hooks.load() with real config files, and its CLI
(explain-command, test --command) through the real console script."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hermes_hooks

tomllib = pytest.importorskip("tomllib")  # Python 3.11+
CORPUS = Path(__file__).parent / "data" / "command_corpus" / "dcg"


def load(home: Path, options: object = True, **config: object) -> hermes_hooks.Hooks:
    (home / "config.yaml").write_text(json.dumps({"command_guard": options, **config}))
    return hermes_hooks.load(home, entry_points=False)


def decide(hooks: hermes_hooks.Hooks, command: str, tool: str = "terminal"):
    return hooks.pre_tool_call(tool_name=tool, args={"command": command})


def test_a_catastrophic_command_is_blocked_with_rule_reason_and_alternative(home):
    d = decide(load(home), "sudo bash -c 'rm -rf ~'")
    assert d.action == "block"
    assert "filesystem.rm-home" in d.message and "Safer:" in d.message
    assert d.source == "builtin:command_guard"


def test_a_non_catastrophic_rule_asks_with_its_id_as_the_always_grain(home):
    d = decide(load(home), "rm -rf src")
    assert (d.action, d.rule_key) == ("approve", "command_guard:filesystem.rm-recursive")


@pytest.mark.parametrize(
    "line",
    [
        "git status",
        'echo "rm -rf /"',
        "grep -r 'git reset --hard' docs",
        'git commit -m "drop rm -rf from the build"',
        "rm --help",
        "which mkfs",
        "rm -rf /tmp/build",
        "cat > notes.txt <<'EOF'\nrm -rf /\nEOF",
    ],
)
def test_ordinary_commands_and_data_pass(home, line):
    assert decide(load(home), line).action is None


@pytest.mark.parametrize("tool", ["terminal", "Bash", "run_shell_command", "Shell", "bash"])
def test_the_shell_tool_of_every_agent_is_guarded(home, tool):
    assert decide(load(home), "rm -rf /", tool).action == "block"


def test_other_tools_are_not_read_as_shell(home):
    hooks = load(home)
    assert decide(hooks, "rm -rf /", "write_file").action is None
    assert hooks.pre_tool_call(tool_name="terminal", args="rm -rf /").action is None


def test_allow_turns_off_a_rule_or_a_pack(home):
    assert decide(load(home, {"allow": ["filesystem.rm-recursive"]}), "rm -rf src").action is None
    assert decide(load(home, {"allow": ["filesystem"]}), "rm -rf ~").action is None
    # another pack still holds
    assert decide(load(home, {"allow": ["filesystem"]}), "dd if=/dev/zero of=/dev/sda").action


def test_ask_instead_turns_a_block_into_a_question(home):
    d = decide(load(home, {"ask_instead": ["filesystem.rm-home"]}), "rm -rf ~")
    assert (d.action, d.rule_key) == ("approve", "command_guard:filesystem.rm-home")


def test_packs_chooses_the_packs(home):
    hooks = load(home, {"packs": ["disks"]})
    assert decide(hooks, "rm -rf ~").action is None
    assert decide(hooks, "dd if=/dev/zero of=/dev/sda bs=1M").action == "block"


def test_a_list_of_args_on_a_builtin_entry_names_the_packs(home):
    (home / "config.yaml").write_text(
        json.dumps(
            {
                "hooks": {
                    "pre_tool_call": [
                        {"type": "builtin", "name": "command_guard", "args": ["disks"]}
                    ]
                }
            }
        )
    )
    hooks = hermes_hooks.load(home, entry_points=False)
    assert decide(hooks, "mkfs.ext4 /dev/sdb1").action == "block"
    assert decide(hooks, "rm -rf ~").action is None


def test_an_unreadable_line_is_the_worst_case(home):
    d = decide(load(home), "echo 'unterminated; rm -rf ~")
    assert d.action == "block" and "parser.unparseable" in d.message
    asked = decide(load(home, {"ask_instead": ["parser"]}), "echo 'unterminated")
    assert asked.action == "approve"


def test_unknown_options_packs_and_rule_ids_are_reported_with_a_guess(home):
    hooks = load(home, {"packz": ["git"], "allow": ["filesystem.rm-recursiv", "gti"]})
    warnings = "\n".join(hooks.config_warnings)
    assert "command_guard.packz" in warnings and "'packs'" in warnings
    assert "'filesystem.rm-recursive'" in warnings and "'git'" in warnings
    assert str(home / "config.yaml") in warnings
    row = next(r for r in hooks.rows() if r["name"] == "builtin:command_guard")
    assert "packz" in row["error"]
    # what was understood still works: every pack on
    assert decide(hooks, "rm -rf ~").action == "block"


def test_the_guard_blocks_when_it_cannot_judge(home, monkeypatch):
    from hermes_hooks.builtin_plugins.command_guard import rules

    def broken(self, line):
        raise RuntimeError("boom")

    hooks = load(home)
    monkeypatch.setattr(rules.Rulebook, "judge", broken)
    d = decide(hooks, "ls")
    assert d.action == "block" and "cannot judge" in d.message and "boom" in d.message


def test_safe_mode_and_no_config_register_nothing(home, monkeypatch):
    assert not hermes_hooks.load(home, entry_points=False).has_hook("pre_tool_call")
    monkeypatch.setenv("HERMES_SAFE_MODE", "1")
    assert decide(load(home), "rm -rf ~").action is None


def test_list_shows_the_guard_and_its_packs(home):
    row = next(
        r for r in load(home, ["git", "disks"]).rows() if r["name"] == "builtin:command_guard"
    )
    assert (row["event"], row["status"], row["error"]) == ("pre_tool_call", "active", None)
    assert "packs: git, disks" in row["matcher"] and "Bash" in row["matcher"]


# ---------------------------------------------------------------------- the guard's promises


def _deny_cases() -> list[str]:
    out = []
    for path in sorted(CORPUS.glob("*/*.toml")):
        for case in tomllib.loads(path.read_text()).get("case", []):
            if case.get("expected") == "deny" and case.get("command"):
                out.append(case["command"])
    return out


DENY = _deny_cases()
#: Wrappers of one simple command: applied first, to the command itself.
PREFIXES = ["sudo {}", "sudo -u root env X=1 {}", "timeout 5 {}", "nice -n 5 nohup {}", "{}"]
#: Shapes that take any line.
WRAPS = [
    "({})",
    "{{ {}; }}",
    "true && {}",
    "{} ; true",
    "false || {}",
    "bash -c {q}",
    "sh -c {q}",
    "eval {q}",
    "echo $({})",
    "if true; then {}; fi",
    "for i in 1; do {}; done",
    "ssh host {q}",
]


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from([c for c in DENY if "\n" not in c]),
    st.sampled_from(PREFIXES),
    st.lists(st.sampled_from(WRAPS), min_size=0, max_size=3),
)
def test_wrapping_a_caught_command_keeps_it_caught(command, prefix, wraps):
    from hermes_hooks.builtin_plugins.command_guard import every_rule
    from hermes_hooks.builtin_plugins.command_guard.rules import Rulebook

    book = Rulebook(every_rule())
    assert book.judge(command).findings, f"not caught to begin with: {command}"
    # a prefix wrapper takes a simple command, not `(...)` or `{ ...; }`
    line = prefix.format(command) if command[:1].isalnum() or command[:1] in "/\\" else command
    for wrap in wraps:
        line = wrap.format(line, q=shlex.quote(line))
    assert book.judge(line).findings, f"{command!r} wrapped as {line!r} passed"


ORDINARY = ["git status", "ls -la", "make test", "npm run build", "python -m pytest -q"]
DATA = [
    "echo {q}",
    "grep -r {q} .",
    "git commit -m {q}",
    "printf '%s\\n' {q}",
    "man {p}",
    "which {p}",
]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(DENY + ORDINARY), st.sampled_from(DATA))
def test_quoting_a_command_as_data_never_flags_it(command, shape):
    from hermes_hooks.builtin_plugins.command_guard import every_rule
    from hermes_hooks.builtin_plugins.command_guard.rules import Rulebook

    program = command.split()[0] if command.split() else "ls"
    line = shape.format(q=shlex.quote(command), p=shlex.quote(program))
    verdict = Rulebook(every_rule()).judge(line)
    assert not verdict.findings, f"{line!r} flagged: {[f.rule.id for f in verdict.findings]}"


# ---------------------------------------------------------------------- the CLI


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hermes_hooks", "--home", str(home), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_explain_command_shows_each_simple_command_and_why(home):
    (home / "config.yaml").write_text("command_guard: true\n")
    out = _cli(home, "explain-command", "sudo bash -c 'rm -rf ~'; git status")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "`rm -rf ~`  (via sudo > bash -c)" in text
    assert "filesystem.rm-home (blocks)" in text
    assert "`git status`" in text and "none matched" in text
    assert "answer: block" in text


def test_explain_command_json_and_rules(home):
    out = _cli(home, "explain-command", "--json", "git reset --hard")
    doc = json.loads(out.stdout)
    assert doc["configured"] is False
    matched = [m["id"] for c in doc["commands"] for m in c["matched"]]
    assert matched == ["git.reset-hard"]
    rules = json.loads(_cli(home, "explain-command", "--rules", "--json").stdout)
    ids = {r["id"] for r in rules}
    assert {"parser.unparseable", "git.reset-hard", "filesystem.rm-root", "disks.mkfs"} <= ids


def test_hermes_hooks_test_command_adds_the_explanation(home):
    (home / "config.yaml").write_text("command_guard: true\n")
    out = _cli(home, "test", "pre_tool_call", "--command", "rm -rf /", "--json")
    doc = json.loads(out.stdout)
    assert doc["result"]["action"] == "block"
    assert doc["command_guard"]["commands"][0]["matched"][0]["id"] == "filesystem.rm-root"
    plain = _cli(home, "test", "pre_tool_call", "--command", "ls -la")
    assert "command_guard on `ls -la`" in plain.stdout and "passes" in plain.stdout


def test_the_packs_table_of_the_docs_is_generated_from_the_packs():
    from hermes_hooks.builtin_plugins.command_guard import docs

    page = (Path(__file__).parent.parent / "docs" / "builtins.md").read_text(encoding="utf-8")
    assert page == docs.render(page), (
        "run: python -m hermes_hooks.builtin_plugins.command_guard.docs docs/builtins.md"
    )


def test_doctor_reports_a_mistyped_pack_and_exits_1(home):
    (home / "config.yaml").write_text("command_guard: {packs: [gti]}\n")
    out = _cli(home, "doctor")
    assert out.returncode == 1
    assert "command_guard.packs: unknown name 'gti'" in out.stdout + out.stderr
    assert "did you mean 'git'?" in out.stdout + out.stderr


@pytest.mark.parametrize(
    "line",
    ["ls " + "a" * 100_000, "echo \x00; rm -rf ~", "rm -rf " + "$(" * 2000, "rm -rf / \ud800"],
    ids=["huge", "nul", "deep", "surrogate"],
)
def test_garbage_lines_never_pass_silently(home, line):
    d = decide(load(home), line)
    assert d.action == "block", d


def test_a_call_without_a_string_command_is_not_a_shell_line(home):
    hooks = load(home)
    for args in ({}, {"command": None}, {"command": ["rm", "-rf", "/"]}):
        assert hooks.pre_tool_call(tool_name="terminal", args=args).action is None
