"""A new event touches hookspecs only: a throwaway spec module with one event of each kind,
added by a host, driven through ``call``, a Python plugin and shell hooks of both protocols."""

from __future__ import annotations

import json
import stat
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

import hermes_hooks
from hermes_hooks import ToolDecision

SPEC_MODULE = '''
"""A host's own events, one of each kind."""
from hermes_hooks.answers import Context, Observe, ToolAnswers, Transform, VerifyAnswers
from hermes_hooks.contract import ClaudeEvent, arg
from hermes_hooks.markers import event


@event(Observe())
def host_observed(session_id, note):
    """Something happened."""


@event(ToolAnswers(), claude=(ClaudeEvent("HostGate", fields={"note": arg("note")}),))
def host_gate(session_id, note):
    """May the host go on?"""


@event(Context(), plain_text_context=True)
def host_context(session_id, note):
    """Context for the model."""


@event(Transform("text"))
def host_transform(session_id, text):
    """Rewrite the text."""


@event(VerifyAnswers())
def host_first(session_id, note):
    """First answer wins."""
'''


@pytest.fixture
def host_specs(tmp_path, monkeypatch):
    pkg = tmp_path / "site"
    pkg.mkdir()
    (pkg / "host_events.py").write_text(SPEC_MODULE)
    monkeypatch.syspath_prepend(str(pkg))
    yield "host_events"
    sys.modules.pop("host_events", None)


def _script(tmp: Path, name: str, body: str) -> str:
    path = tmp / name
    path.write_text("#!/usr/bin/env python3\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_host_events_are_driven_by_python_plugins(home, plugin_dir, host_specs):
    plugin_dir(
        "host_plugin",
        """
        from hermes_hooks import hookimpl

        SEEN = []

        @hookimpl
        def host_observed(note):
            SEEN.append(note)

        @hookimpl
        def host_gate(note):
            if note == "stop":
                return {"action": "block", "message": "stopped by plugin"}

        @hookimpl
        def host_context():
            return "python context"

        @hookimpl
        def host_transform(text):
            return text + "+py"

        @hookimpl
        def host_first(note):
            return {"action": "continue", "message": "keep going: " + note}
        """,
    )
    hooks = hermes_hooks.load(home, {"hookspecs": [host_specs]}, entry_points=False)
    import hermes_plugins.host_plugin as plugin

    assert hooks.call("host_observed", session_id="s", note="n") is None
    assert plugin.SEEN == ["n"]
    assert hooks.call("host_gate", session_id="s", note="go") == ToolDecision()
    assert hooks.call("host_gate", session_id="s", note="stop").message == "stopped by plugin"
    assert hooks.call("HostGate", session_id="s", note="stop").blocked  # its Claude Code alias
    assert hooks.call("host_context", session_id="s") == "python context"
    assert hooks.call("host_transform", session_id="s", text="T") == "T+py"
    assert hooks.call("host_first", session_id="s", note="n").message == "keep going: n"
    assert {"host_gate", "host_transform"} <= {r["event"] for r in hooks.rows()}


@pytest.mark.parametrize("protocol", ["hermes", "claude-code"])
def test_host_events_are_driven_by_shell_hooks(home, tmp_path, host_specs, protocol):
    log = tmp_path / "stdin.log"
    record = textwrap.dedent(
        f"""
        import json, sys
        data = sys.stdin.read()
        open({str(log)!r}, "a").write(data)
        payload = json.loads(data)
        """
    )
    gate = _script(
        tmp_path,
        "gate.py",
        record + "print(json.dumps({'decision': 'block', 'reason': 'stopped by shell'}))\n",
    )
    context = _script(tmp_path, "context.py", record + "print('shell context')\n")
    transform = _script(
        tmp_path,
        "transform.py",
        record
        + "text = (payload.get('extra') or payload).get('text')\n"
        + "print(json.dumps({'text': text + '+sh'}))\n",
    )
    first = _script(
        tmp_path, "first.py", record + "print(json.dumps({'action': 'continue', 'message': 'm'}))\n"
    )
    observed = _script(tmp_path, "observed.py", record)
    entry = {"protocol": protocol}
    config = {
        "hookspecs": [host_specs],
        "hooks": {
            "HostGate" if protocol == "claude-code" else "host_gate": [{"command": gate, **entry}],
            "host_context": [{"command": context, **entry}],
            "host_transform": [{"command": transform, **entry}],
            "host_first": [{"command": first, **entry}],
            "host_observed": [{"command": observed, **entry}],
        },
    }
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    decision = hooks.call("host_gate", session_id="s", note="x")
    assert decision.blocked and decision.message == "stopped by shell"
    assert hooks.call("host_context", session_id="s") == "shell context"
    assert hooks.call("host_transform", session_id="s", text="T") == "T+sh"
    assert hooks.call("host_first", session_id="s", note="n").message == "m"
    assert hooks.call("host_observed", session_id="s", note="n") is None
    sent = [json.loads(line) for line in log.read_text().splitlines()]
    names = [p["hook_event_name"] for p in sent]
    gate_name = "HostGate" if protocol == "claude-code" else "host_gate"
    assert names == [gate_name, "host_context", "host_transform", "host_first", "host_observed"]
    if protocol == "claude-code":
        assert sent[0]["note"] == "x"  # a field the spec declares for its Claude Code event


def test_hermes_hooks_test_fires_a_host_event_through_the_same_dispatcher(
    home, tmp_path, host_specs
):
    import os
    import subprocess

    gate = _script(
        tmp_path,
        "gate.py",
        "import json, sys\njson.load(sys.stdin)\n"
        "print(json.dumps({'decision': 'block', 'reason': 'stopped by shell'}))\n",
    )
    (home / "config.yaml").write_text(
        yaml.safe_dump({"hookspecs": [host_specs], "hooks": {"host_gate": [{"command": gate}]}})
    )
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps({"session_id": "s", "note": "x"}))
    script = Path(sys.executable).with_name("hermes-hooks")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    out = subprocess.run(
        [str(script), "--home", str(home), "--accept-hooks", "test", "host_gate", "--json",
         "--payload-file", str(payload)],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["event"] == "host_gate"
    assert doc["result"]["action"] == "block" and doc["result"]["message"] == "stopped by shell"
    assert [h["name"] for h in doc["hooks"]] == [gate]
