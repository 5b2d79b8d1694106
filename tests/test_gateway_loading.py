"""Gateway hooks: discovery of <home>/hooks/<dir>/HOOK.yaml + handler.py, validation, trust."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
from hermes_hooks.builtin_plugins.gateway_hooks import manifest as gateway_manifest

import hermes_hooks

HANDLER = "def handle(event_type, context):\n    return None\n"
ANSWER = "def handle(event_type, context):\n    return {{'decision': 'handled', 'message': {!r}}}\n"


def write_hook(
    home: Path, dirname: str, manifest: str | None, handler: str | None = HANDLER
) -> Path:
    d = home / "hooks" / dirname
    d.mkdir(parents=True, exist_ok=True)
    if manifest is not None:
        (d / "HOOK.yaml").write_text(textwrap.dedent(manifest))
    if handler is not None:
        (d / "handler.py").write_text(textwrap.dedent(handler))
    return d


def load(home: Path, config: dict | None = None) -> hermes_hooks.Hooks:
    return hermes_hooks.load(home, config or {}, entry_points=False)


def record(hooks, name):
    return hooks.records[name]


@pytest.fixture
def caplog_info(caplog):
    caplog.set_level(logging.INFO, logger="hermes_hooks")
    return caplog


def test_each_directory_is_its_own_plugin_in_sorted_order(home):
    write_hook(home, "b-second", "events: [agent:start]\n")
    write_hook(home, "a-first", "events: [agent:start]\n")
    hooks = load(home)
    rows = [r for r in hooks.rows() if r["source"] == "gateway"]
    assert [(r["name"], r["order"], r["status"]) for r in rows] == [
        ("gateway:a-first", 1, "active"),
        ("gateway:b-second", 2, "active"),
    ]
    assert rows[0]["event"] == "gateway_event"
    assert rows[0]["matcher"] == "agent:start"
    assert hooks.records["gateway:a-first"].source == "gateway"


def test_name_and_description_come_from_hook_yaml(home):
    write_hook(home, "dir", "name: greeter\ndescription: says hi\nevents: [agent:start]\n")
    hooks = load(home)
    rec = record(hooks, "gateway:greeter")
    assert rec.status == "active"
    assert rec.description == "says hi"
    assert rec.path == str(home / "hooks" / "dir")


def test_hooks_run_in_directory_order(home):
    for name in ("c", "a", "b"):
        write_hook(
            home,
            name,
            "events: ['command:*']\n",
            f"def handle(e, c):\n    return {{'decision': 'handled', 'message': {name!r}}}\n",
        )
    hooks = load(home)
    assert [r["name"] for r in hooks.rows() if r["source"] == "gateway"] == [
        "gateway:a",
        "gateway:b",
        "gateway:c",
    ]
    # Equal rank: the first hook in call order supplies the answer.
    decision = hooks.emit_sync("command:x", {})
    assert (decision.decision, decision.message, decision.source) == ("handled", "a", "gateway:a")


@pytest.mark.parametrize(
    ("manifest", "handler", "message"),
    [
        (None, HANDLER, "no HOOK.yaml"),
        ("events: [agent:start\n", HANDLER, "YAML syntax error"),
        ("- agent:start\n- agent:end\n", HANDLER, "must be a mapping with `events:`"),
        ("", HANDLER, "but it is empty"),
        ("just words\n", HANDLER, "but it is a str"),
        ("description: x\n", HANDLER, "no `events:` declared"),
        ("events: []\n", HANDLER, "no `events:` declared"),
        ("events: {agent:start: 1}\n", HANDLER, "`events:` must be a list"),
        ("events: [agent:start, 3]\n", HANDLER, "events[1] must be an event name"),
        ("events: [agent:start]\n", None, "no handler.py"),
        ("events: [agent:start]\n", "x = 1\n", "defines no `handle(event_type, context)`"),
        ("events: [agent:start]\n", "handle = 42\n", "defines no `handle(event_type, context)`"),
        (
            "events: [agent:start]\n",
            "import not_a_module_xyz\n",
            "import failed: ModuleNotFoundError",
        ),
        ("events: [agent:start]\n", "raise SystemExit(3)\n", "import failed: SystemExit"),
    ],
    ids=[
        "no-hook-yaml",
        "yaml-syntax",
        "list-yaml",
        "empty-yaml",
        "scalar-yaml",
        "no-events",
        "empty-events",
        "mapping-events",
        "non-string-event",
        "no-handler",
        "no-handle",
        "handle-not-callable",
        "import-error",
        "import-exit",
    ],
)
def test_validation_errors_name_the_file(home, caplog, manifest, handler, message):
    d = write_hook(home, "bad", manifest, handler)
    hooks = load(home)
    rec = record(hooks, "gateway:bad")
    assert rec.status == "failed"
    assert message in rec.error
    assert str(d) in rec.error  # every message names the directory or the file in it
    assert any(
        message in r.getMessage() and "gateway:bad" in r.getMessage() for r in caplog.records
    )
    assert not hooks.has_hook("gateway_event")


def test_yaml_syntax_error_gives_the_line(home):
    write_hook(home, "bad", "name: x\nevents: [agent:start\n")
    hooks = load(home)
    assert "HOOK.yaml at line" in record(hooks, "gateway:bad").error


def test_a_broken_hook_does_not_stop_the_others(home):
    write_hook(home, "a-broken", "events: [agent:start]\n", "raise RuntimeError('boom')\n")
    write_hook(home, "b-good", "events: ['command:*']\n", ANSWER.format("good"))
    hooks = load(home)
    assert record(hooks, "gateway:a-broken").status == "failed"
    assert "RuntimeError: boom" in record(hooks, "gateway:a-broken").error
    assert hooks.emit_sync("command:x", {}).message == "good"


def test_events_as_a_string_is_a_one_item_list_with_a_notice(home, caplog_info):
    write_hook(home, "one", "events: agent:start\n")
    hooks = load(home)
    assert record(hooks, "gateway:one").status == "active"
    assert hooks.rows()[0]["matcher"] == "agent:start"
    notice = [r for r in caplog_info.records if "is a string" in r.getMessage()]
    assert notice and notice[0].levelno == logging.INFO
    assert "HOOK.yaml" in notice[0].getMessage()


@pytest.mark.parametrize(
    ("event", "guess"),
    [("agent:strat", "agent:start"), ("sesion:start", "session:start"), ("gateway:*x", None)],
)
def test_unknown_event_warns_with_did_you_mean_and_still_loads(home, caplog, event, guess):
    write_hook(home, "typo", f"events: ['{event}']\n")
    hooks = load(home)
    assert record(hooks, "gateway:typo").status == "active"
    warnings = [r.getMessage() for r in caplog.records if "unknown gateway event" in r.getMessage()]
    assert len(warnings) == 1
    assert repr(event) in warnings[0]
    assert "HOOK.yaml" in warnings[0]
    if guess:
        assert f"did you mean {guess!r}" in warnings[0]


@pytest.mark.parametrize(
    "event",
    [
        "gateway:startup",
        "session:compress",
        "agent:step",
        "command:reset",
        "command:*",
        "agent:*",
        "*",
    ],
)
def test_known_events_and_wildcards_do_not_warn(home, caplog, event):
    write_hook(home, "ok", f"events: ['{event}']\n")
    load(home)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_unknown_manifest_key_warns_with_did_you_mean(home, caplog):
    write_hook(home, "k", "event: [agent:start]\nevents: [agent:end]\n")
    hooks = load(home)
    assert record(hooks, "gateway:k").status == "active"
    assert any(
        "unknown key 'event' (did you mean 'events'?)" in r.getMessage() for r in caplog.records
    )


@pytest.mark.parametrize("value", ["0", "-1", "soon", "true"])
def test_bad_timeout_warns_and_uses_the_default(home, caplog, value):
    write_hook(home, "t", f"events: [agent:start]\ntimeout: {value}\n")
    hooks = load(home)
    assert hooks.rows()[0]["timeout"] == gateway_manifest.DEFAULT_TIMEOUT
    assert any("is not a positive number of seconds" in r.getMessage() for r in caplog.records)


def test_two_hooks_with_one_name_the_second_is_refused(home):
    write_hook(home, "a", "name: same\nevents: [agent:start]\n")
    d2 = write_hook(home, "b", "name: same\nevents: [agent:start]\n")
    hooks = load(home)
    assert record(hooks, "gateway:same").status == "active"
    dup = record(hooks, f"gateway:same ({d2})")
    assert dup.status == "failed"
    assert "already used by" in dup.error


def test_module_names_never_collide(home):
    # Directory names that slug to the same identifier, and the same HOOK.yaml-free module code.
    who = "WHO = {!r}\ndef handle(e, c):\n    return {{'decision': 'handled', 'message': WHO}}\n"
    write_hook(home, "x-y", "name: one\nevents: ['command:one']\n", who.format("dash"))
    write_hook(home, "x_y", "name: one-too\nevents: ['command:two']\n", who.format("underscore"))
    hooks = load(home)
    assert hooks.emit_sync("command:one", {}).message == "dash"
    assert hooks.emit_sync("command:two", {}).message == "underscore"


def test_handler_may_import_its_own_helpers(home):
    d = write_hook(
        home,
        "helpers",
        "events: ['command:*']\n",
        "from . import rules\ndef handle(e, c):\n    return {'decision': 'deny', 'message': rules.RULE}\n",
    )
    (d / "rules.py").write_text("RULE = 'from a sibling module'\n")
    hooks = load(home)
    assert hooks.emit_sync("command:x", {}).message == "from a sibling module"


def test_hidden_and_underscore_directories_and_plain_files_are_ignored(home):
    write_hook(home, ".git", None, None)
    write_hook(home, "__pycache__", None, None)
    (home / "hooks" / "README.md").write_text("notes")
    hooks = load(home)
    assert not [r for r in hooks.records.values() if r.source == "gateway"]


# ---------------------------------------------------------------------- trust


@pytest.mark.parametrize(
    ("target", "mode", "who"),
    [("dir", 0o777, "everyone"), ("handler", 0o646, "everyone")],
)
def test_writable_by_others_is_refused(home, caplog, target, mode, who):
    d = write_hook(
        home, "open", "events: [agent:start]\n", "raise AssertionError('must not be imported')\n"
    )
    path = d if target == "dir" else d / "handler.py"
    path.chmod(mode)
    hooks = load(home)
    rec = record(hooks, "gateway:open")
    assert rec.status == "failed"
    assert rec.error.startswith("refused:")
    assert f"writable by {who}" in rec.error
    assert "chmod o-w" in rec.error
    assert any("refused" in r.getMessage() and r.levelno == logging.WARNING for r in caplog.records)


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to chown")
@pytest.mark.parametrize("target", ["dir", "handler"])
def test_owned_by_another_user_is_refused(home, target):
    d = write_hook(
        home, "theirs", "events: [agent:start]\n", "raise AssertionError('must not be imported')\n"
    )
    os.chown(d if target == "dir" else d / "handler.py", 4242, 4242)
    hooks = load(home)
    rec = record(hooks, "gateway:theirs")
    assert rec.status == "failed"
    assert "owned by uid 4242, not by you" in rec.error


def test_owner_only_directory_is_trusted(home):
    d = write_hook(home, "mine", "events: [agent:start]\n")
    d.chmod(0o700)
    (d / "handler.py").chmod(0o600)
    assert record(load(home), "gateway:mine").status == "active"


# ---------------------------------------------------------------------- switching off


def test_disabled_in_config_is_never_imported(home):
    write_hook(home, "off", "events: [agent:start]\n", "raise AssertionError('imported')\n")
    hooks = load(home, {"plugins": {"disabled": ["gateway:off"]}})
    rec = record(hooks, "gateway:off")
    assert rec.status == "disabled"
    assert "plugins.disabled" in rec.error


def test_disabled_by_env(home, monkeypatch):
    write_hook(home, "off", "events: [agent:start]\n", "raise AssertionError('imported')\n")
    monkeypatch.setenv("HERMES_HOOKS_DISABLED", "gateway:off")
    assert record(load(home), "gateway:off").status == "disabled"


def test_safe_mode_loads_no_gateway_hook(home, monkeypatch):
    write_hook(home, "any", "events: [agent:start]\n", "raise AssertionError('imported')\n")
    monkeypatch.setenv("HERMES_SAFE_MODE", "1")
    hooks = load(home)
    assert not hooks.has_hook("gateway_event")
    assert "gateway:any" not in hooks.records


def test_gateway_hooks_false_in_config_turns_them_off(home):
    write_hook(home, "any", "events: [agent:start]\n", "raise AssertionError('imported')\n")
    hooks = load(home, {"gateway_hooks": False})
    assert not hooks.has_hook("gateway_event")


def test_no_hooks_directory_contributes_nothing(home):
    hooks = load(home)
    assert not hooks.has_hook("gateway_event")
    assert [r for r in hooks.rows() if r["source"] == "gateway"] == []


@pytest.mark.skipif(shutil.which("hermes-hooks") is None, reason="console script not installed")
def test_list_json_shows_gateway_hooks_and_failures(home):
    write_hook(home, "good", "description: fine\nevents: [agent:*]\n")
    write_hook(home, "bad", "events: [agent:start]\n", None)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES")}
    env["HERMES_HOME"] = str(home)
    out = subprocess.run(
        ["hermes-hooks", "list", "--json"], capture_output=True, text=True, env=env, timeout=60
    )
    assert out.returncode == 0, out.stderr
    rows = {r["name"]: r for r in json.loads(out.stdout)}
    assert rows["gateway:good"]["source"] == "gateway"
    assert rows["gateway:good"]["status"] == "active"
    assert rows["gateway:good"]["event"] == "gateway_event"
    assert rows["gateway:bad"]["status"] == "failed"
    assert "no handler.py" in rows["gateway:bad"]["error"]


def test_docs_page_covers_every_gateway_event_and_its_context_keys():
    from pathlib import Path

    from hermes_hooks.hookspecs.gateway import GATEWAY_EVENTS

    text = (Path(__file__).resolve().parents[1] / "docs" / "gateway-hooks.md").read_text()
    for name, keys in GATEWAY_EVENTS.items():
        assert f"`{name}`" in text, f"docs/gateway-hooks.md does not document {name}"
        for key in keys:
            assert f"`{key}`" in text, f"docs/gateway-hooks.md does not name {name}'s key {key}"


def test_hook_yaml_typo_suggestions_come_from_the_catalogue():
    from hermes_hooks.builtin_plugins.gateway_hooks.manifest import suggest

    assert suggest("agent:strat") == "agent:start"
    assert suggest("sesion:*") == "session:*"
