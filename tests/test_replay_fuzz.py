"""`hermes hooks replay` on malformed recordings of every format: never a traceback, exit 2, a
message naming the file, the record and what was expected, every character that could drive a
terminal escaped. A fixed corpus (tests/data/replay/malformed/, with the outcome each file must
give in its expected.yaml) and generated damage (hypothesis) over the three formats."""

from __future__ import annotations

import copy
import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_hooks.cli import hoist_global_options, hooks_group
from tests.conftest import write_plugin

CORPUS = Path(__file__).parent / "data" / "replay" / "malformed"
EXPECTED: dict[str, dict[str, Any]] = yaml.safe_load((CORPUS / "expected.yaml").read_text())
CLI = Path(sys.executable).with_name("hermes-hooks")
#: What must never reach the terminal raw: C0 controls but tab and line break, DEL, C1 controls,
#: bidi embeddings, overrides and isolates.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
ESC = "\x1b]0;owned\x07\x1b[2J\x9b31m\u202e"


def replay_cli(home: Path, *args: str) -> Result:
    return CliRunner().invoke(
        hooks_group, hoist_global_options(["--home", str(home), "replay", *args])
    )


def assert_bad_input(result: Result, path: Path, where: str | None) -> None:
    """Exit 2, no traceback, one message naming ``path`` (and ``where``) and what was
    expected, nothing raw."""
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2, (result.exit_code, result.output)
    message = result.stderr
    assert "Traceback" not in result.output
    assert message.startswith(f"Error: {path}"), message
    if where is not None:
        assert where in message, (where, message)
    assert "expected" in message, message
    assert not RAW.search(result.output), result.output


#: A plugin that blocks every tool call with a message quoting its arguments: what a recording
#: holds comes back through a hook's answer into the timeline and the summary.
ECHOING_GUARD = """
from hermes_hooks import hookimpl

@hookimpl
def pre_tool_call(tool_name, args):
    return {"action": "block", "message": f"refused {tool_name} {args}"}
"""


@pytest.fixture(scope="module")
def empty_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home whose one hook echoes the recording back (the name is kept from when it had
    none)."""
    home = tmp_path_factory.mktemp("home")
    (home / "plugins").mkdir()
    write_plugin(home, "echoing", ECHOING_GUARD)
    return home


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_file_of_the_malformed_corpus(name, empty_home):
    path = CORPUS / name
    want = EXPECTED[name]
    result = replay_cli(empty_home, str(path))
    if want["exit"] == 0:
        assert result.exit_code == 0 and result.exception is None, result.output
        assert "Replaying" in result.stdout and not RAW.search(result.output), result.output
        json_result = replay_cli(empty_home, str(path), "--json")
        assert json_result.exit_code == 0 and not RAW.search(json_result.output)
        json.loads(json_result.stdout)  # escaped, and still the same JSON
        return
    assert_bad_input(result, path, want["where"])
    assert "Replaying" not in result.stdout  # a bad record stops it before anything fires


def test_the_corpus_covers_every_format_and_each_file_is_listed():
    files = {p.name for p in CORPUS.iterdir()} - {"expected.yaml"}
    assert files == set(EXPECTED)
    for prefix in ("ours-", "claude-", "hermes-"):
        bad = [n for n in files if n.startswith(prefix) and EXPECTED[n]["exit"] == 2]
        assert len(bad) >= 15, prefix


def test_escapes_in_a_good_recording_are_shown_escaped(empty_home):
    result = replay_cli(empty_home, str(CORPUS / "ours-escapes-in-valid-strings.jsonl"))
    assert result.exit_code == 0
    assert "user: \\x1b]0;owned\\x07\\x1b[2J\\x9b31m\\u202e" in result.stdout
    # the guard's block message quotes the arguments: the summary shows it escaped too
    assert "refused \\x1b]0;owned\\x07" in result.stdout and "blocked: 1" in result.stdout


@pytest.mark.parametrize(
    ("make", "where"),
    [
        (lambda p: p.mkdir(), None),  # a directory instead of a file
        (lambda p: None, None),  # no file at all
        (lambda p: os.mkfifo(p), None),  # a FIFO: refused, never read (it would block)
        (lambda p: p.write_bytes(b'{"type": "user", "text": "' + b"x" * 5_000_000), ":1:"),
        (lambda p: p.write_bytes(b'{"type": "user", "text": "x"}\n' + b"[" * 200_000), ":2:"),
    ],
    ids=["directory", "missing", "fifo", "huge-truncated-line", "deep-nesting"],
)
def test_files_that_are_no_recording(tmp_path, empty_home, make, where):
    path = tmp_path / f"odd{ESC}.jsonl"  # the file's own name is shown escaped too
    make(path)
    result = replay_cli(empty_home, str(path))
    assert (
        result.exit_code == 2
        and result.exception is None
        or isinstance(result.exception, SystemExit)
    )
    assert not RAW.search(result.output), result.output
    assert "Traceback" not in result.output and "expected" in result.stderr
    assert "odd\\x1b]0;owned\\x07" in result.stderr
    if where:
        assert where in result.stderr


def test_a_state_db_with_a_malformed_message_names_its_id(tmp_path, empty_home):
    db_path = tmp_path / "state.db"
    db = sqlite3.connect(db_path)
    db.execute(
        "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, "
        "content TEXT, tool_calls TEXT, tool_call_id TEXT, timestamp REAL)"
    )
    rows = [
        ("s1", "user", "hi", None, None, 1.0),
        ("s1", "assistant", None, '[{"id": "k", "function": {"name": 3}}]', None, 2.0),
    ]
    db.executemany(
        "INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, timestamp) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        rows,
    )
    db.commit()
    db.close()
    assert_bad_input(replay_cli(empty_home, str(db_path)), db_path, "session s1, message id 2")


def test_the_installed_command_prints_no_traceback_and_exits_2(tmp_path):
    """The real console script, its real stderr."""
    home = tmp_path / "home"
    (home / "plugins").mkdir(parents=True)
    path = CORPUS / "hermes-arguments-not-json.json"
    out = subprocess.run(
        [str(CLI), "--home", str(home), "replay", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and not RAW.search(out.stderr + out.stdout)
    assert f"{path}: messages[2]: 'tool_calls[0].function.arguments'" in out.stderr


# ---------------------------------------------------------------------- generated damage

OURS = [
    {"type": "session", "session_id": "s1", "model": "m", "platform": "cli"},
    {"type": "user", "text": "clean up"},
    {
        "type": "tool_call",
        "id": "c1",
        "tool": "terminal",
        "args": {"command": "ls"},
        "result": "ok",
    },
    {"type": "assistant", "text": "done"},
]
CLAUDE = [
    {"type": "user", "sessionId": "cs", "uuid": "u1", "message": {"role": "user", "content": "go"}},
    {
        "type": "assistant",
        "sessionId": "cs",
        "uuid": "u2",
        "message": {
            "role": "assistant",
            "model": "claude",
            "content": [
                {"type": "text", "text": "ok"},
                {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}},
            ],
        },
    },
    {
        "type": "user",
        "sessionId": "cs",
        "uuid": "u3",
        "message": {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "a", "is_error": 0}
            ],
        },
    },
]
HERMES = {
    "session_id": "hs",
    "model": "m",
    "messages": [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "k1", "function": {"name": "terminal", "arguments": '{"command": "ls"}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "k1", "content": "a"},
        {"role": "assistant", "content": "done"},
    ],
}

BAD_VALUES = st.one_of(
    st.sampled_from([None, [], {}, "5", 5, -1.5, True, "", ESC, [ESC], {ESC: ESC}, "{", "[1]"]),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=8),
    st.integers(),
)


def _paths(node: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [at]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*at, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*at, index))
    return found


def _damage(doc: Any, path: tuple[Any, ...], value: Any, drop: bool) -> Any:
    if not path:
        return value
    doc = copy.deepcopy(doc)
    node = doc
    for key in path[:-1]:
        node = node[key]
    if drop:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return doc


@st.composite
def damaged(draw: st.DrawFn) -> tuple[str, bytes, bool]:
    """A recording of one of the three formats with one value replaced or removed anywhere,
    and sometimes its bytes damaged too (cut short, a non-UTF-8 byte, a BOM, a raw control
    character). The flag: only the structure was damaged (the record must then be named)."""
    fmt = draw(st.sampled_from(["ours", "claude", "hermes"]))
    doc: Any = {"ours": OURS, "claude": CLAUDE, "hermes": HERMES}[fmt]
    path = draw(st.sampled_from(_paths(doc)))
    drop = bool(path) and draw(st.booleans())
    doc = _damage(doc, path, draw(BAD_VALUES), drop)
    ascii_only = draw(st.booleans())
    if fmt == "hermes":
        data = json.dumps(doc, indent=draw(st.sampled_from([None, 2])), ensure_ascii=ascii_only)
    elif isinstance(doc, list):
        data = "".join(json.dumps(row, ensure_ascii=ascii_only) + "\n" for row in doc)
    else:
        data = json.dumps(doc, ensure_ascii=ascii_only) + "\n"
    raw = data.encode()
    structural = True
    damage = draw(st.sampled_from(["none", "none", "cut", "byte", "bom", "control"]))
    if damage != "none" and raw:
        structural = False
        at = draw(st.integers(0, len(raw)))
        if damage == "cut":
            raw = raw[:at]
        elif damage == "byte":
            raw = (
                raw[:at]
                + draw(st.sampled_from([b"\xff", b"\xc3", b"\x80", b"\xed\xa0\x80"]))
                + raw[at:]
            )
        elif damage == "bom":
            raw = b"\xef\xbb\xbf" + raw
        else:
            raw = (
                raw[:at]
                + draw(st.sampled_from([b"\x1b", b"\x00", b"\x07", b"\r", b"\x0b"]))
                + raw[at:]
            )
    return fmt, raw, structural


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=damaged())
def test_generated_damage_never_gives_a_traceback(case, empty_home, tmp_path_factory):
    fmt, raw, structural = case
    path = tmp_path_factory.mktemp("rec") / f"{fmt}.rec"
    path.write_bytes(raw)
    result = replay_cli(empty_home, str(path))
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.exception,
        raw[:300],
    )
    assert result.exit_code in (0, 2), (result.exit_code, result.output, raw[:300])
    assert not RAW.search(result.output), result.output
    if result.exit_code == 0:
        return
    message = result.stderr
    assert message.startswith(f"Error: {path}") and "expected" in message, message
    if structural:
        named = (
            re.escape(str(path))
            + r"(:\d+: |: messages\[\d+\]: |: the session: |: empty|: one JSON)"
        )
        assert re.match(r"Error: " + named, message), message


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{call: 1, action: block}", "expected a list"),
        ("[[1, block]]", "expectation 1: expected a mapping"),
        ("[{call: [1], action: block}]", "expectation 1: call is [1]; expected a call number"),
        ("[{call: 0, action: block}]", "call is 0"),
        ("[{call: true, action: block}]", "call is True"),
        ("[{id: c1, call: 1, action: block}]", "exactly one of call"),
        ("[{id: [c1], action: block}]", "id is ['c1']"),
        ("[{call: 1, actoin: block}]", "unknown key 'actoin'"),
        ("[{call: 1}]", "no action; expected action: block, approve, allow or null"),
        ("[{call: 1, action: deny}]", "action is 'deny'; expected block, approve, allow"),
        ("[{call: 1, action: {a: b}}]", "action is {'a': 'b'}"),
        ('[{call: 1, action: block}, {id: "\\e[2J", action: [x]}]', "expectation 2: action"),
        ("[{call: 1, action: block", "expected"),  # not YAML
    ],
)
def test_a_malformed_expectations_file_exits_2_before_replaying(
    tmp_path, empty_home, text, problem
):
    expect = tmp_path / "expect.yaml"
    expect.write_text(text)
    result = replay_cli(empty_home, str(CORPUS / "ours-crlf.jsonl"), "--expect", str(expect))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"Error: {expect}") and problem in result.stderr, result.stderr
    assert "Replaying" not in result.stdout and not RAW.search(result.output)


def _string_leaves(doc: Any) -> list[tuple[Any, ...]]:
    return [path for path in _paths(doc) if path and isinstance(_at(doc, path), str)]


def _at(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def _write(fmt: str, doc: Any, path: Path) -> None:
    if fmt == "hermes":
        path.write_text(json.dumps(doc, indent=2, ensure_ascii=False))
    else:
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in doc))


@pytest.mark.parametrize(
    ("fmt", "leaf"),
    [
        (fmt, leaf)
        for fmt, doc in (("ours", OURS), ("claude", CLAUDE), ("hermes", HERMES))
        for leaf in _string_leaves(doc)
    ],
)
def test_escape_sequences_in_every_string_field_never_reach_the_terminal(
    tmp_path, empty_home, fmt, leaf
):
    """Every string of each format, one at a time, holding OSC, CSI, C1 and bidi characters
    (and, for the JSON texts of Hermes' arguments, the same inside): replayed or refused, the
    output holds them escaped only."""
    doc = _damage({"ours": OURS, "claude": CLAUDE, "hermes": HERMES}[fmt], leaf, None, False)
    original = _at({"ours": OURS, "claude": CLAUDE, "hermes": HERMES}[fmt], leaf)
    if leaf[-1] == "arguments":  # a JSON text: the escapes go inside it
        value = json.dumps({"command": f"ls {ESC}", ESC: ESC})
    else:
        value = original + ESC
    doc = _damage(doc, leaf, value, False)
    path = tmp_path / f"{fmt}.rec"
    _write(fmt, doc, path)
    for extra in ((), ("--json",)):
        result = replay_cli(empty_home, str(path), *extra)
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert result.exit_code in (0, 2), result.output
        assert not RAW.search(result.output), result.output
        if result.exit_code == 2:
            assert "expected" in result.stderr and result.stderr.startswith(f"Error: {path}")
