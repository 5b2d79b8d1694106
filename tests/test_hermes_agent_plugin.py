"""The Hermes Agent plugin without Hermes Agent installed: our own entry point is never loaded into
ourselves, bridged loading leaves Hermes-style plugins to Hermes, the events Hermes 0.19 never
fires are named, and the bridge answers each Hermes call site in the shape that site reads.
(With the real Hermes Agent: tests/test_hermes_agent_bridge.py.)"""

from __future__ import annotations

import json
import logging
import textwrap
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

import hermes_hooks
from hermes_hooks.hermes import agent
from hermes_hooks.loader import HERMES_GROUP, scan_entry_points
from tests.conftest import native_plugin


def test_our_entry_point_is_installed_for_hermes_but_never_loaded_into_ourselves():
    ours = [ep for ep in entry_points(group=HERMES_GROUP) if ep.name == "hermes-hooks"]
    assert [ep.value for ep in ours] == ["hermes_hooks.hermes.agent"]
    assert all(not (c.path or "").startswith("hermes_hooks") for c in scan_entry_points())


def test_bridged_loading_leaves_directory_plugins_to_hermes(home, plugin_dir):
    plugin_dir(
        "guard", "def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: None)\n"
    )
    standalone = hermes_hooks.load(home, entry_points=False, builtins=False)
    bridged = hermes_hooks.load(home, entry_points=False, builtins=False, hermes_plugins=False)
    assert "guard" in standalone.records
    assert "guard" not in bridged.records


def test_unfired_events_name_the_claude_code_events_hermes_0_19_never_fires():
    unfired = agent.unfired_events()
    for event, claude in [
        ("user_prompt_submit", "UserPromptSubmit"),
        ("pre_compress", "PreCompact"),
        ("permission_request", "PermissionRequest"),
        ("notification", "Notification"),
    ]:
        assert claude in unfired[event]
    assert not set(unfired) & set(agent.HERMES_0_19_HOOKS)
    assert "pre_tool_call" not in unfired


class FakeContext:
    """What the bridge uses of Hermes' ``ctx``: ``register_hook`` and ``register_middleware``."""

    def __init__(self) -> None:
        self.hooks: dict[str, Any] = {}
        self.middleware: dict[str, Any] = {}
        self.warnings = ""

    def register_hook(self, name: str, callback: Any) -> None:
        assert name not in self.hooks
        self.hooks[name] = callback

    def register_middleware(self, kind: str, callback: Any) -> None:
        self.middleware[kind] = callback


def _script(tmp_path: Path, name: str, answer: dict[str, Any]) -> str:
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\ncat > /dev/null\nprintf '%s\\n' '{json.dumps(answer)}'\n")
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def bridge(home, tmp_path, monkeypatch, caplog):
    """A bridge attached to a fake Hermes (no hermes-agent installed: it runs unpatched), for a
    home whose Claude Code settings.json rewrites, denies, adds context and keeps the agent going."""
    rewrite = _script(
        tmp_path,
        "rewrite.sh",
        {
            "hookSpecificOutput": {
                "permissionDecision": "allow",
                "updatedInput": {"command": "ls -a"},
            }
        },
    )
    deny = _script(
        tmp_path,
        "deny.sh",
        {"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no rm"}},
    )
    context = _script(
        tmp_path,
        "context.sh",
        {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "checked"}},
    )
    keep_going = _script(tmp_path, "stop.sh", {"decision": "block", "reason": "run the tests"})

    def entry(matcher: str, command: str) -> dict[str, Any]:
        return {"matcher": matcher, "hooks": [{"type": "command", "command": command}]}

    settings = {
        "hooks": {
            "PreToolUse": [entry("terminal", rewrite), entry("delete_file", deny)],
            "PostToolUse": [entry("terminal", context)],
            "Stop": [{"hooks": [{"type": "command", "command": keep_going}]}],
        }
    }
    (home / "settings.json").write_text(json.dumps(settings))
    # Unpatched, Hermes runs the hooks: block itself: the bridge must not run this one.
    (home / "config.yaml").write_text(
        textwrap.dedent(f"""\
            hooks:
              pre_tool_call:
                - command: {deny}
            """)
    )
    monkeypatch.setenv("HERMES_HOME", str(home))
    monkeypatch.setenv("HERMES_ACCEPT_HOOKS", "1")
    ctx = FakeContext()
    with caplog.at_level(logging.WARNING, logger="hermes_hooks"):
        agent.Bridge().attach(ctx)
    ctx.warnings = caplog.text
    return ctx


def test_without_the_supported_hermes_the_bridge_warns_and_runs_unpatched(bridge):
    assert "running unpatched" in bridge.warnings
    assert set(bridge.hooks) == set(agent.HERMES_0_19_HOOKS)
    assert set(bridge.middleware) == {"tool_request"}


def test_rewrites_go_through_the_tool_request_middleware(bridge):
    site = {"tool_name": "terminal", "task_id": "t", "session_id": "s", "tool_call_id": "c1"}
    rewrite = bridge.middleware["tool_request"](args={"command": "ls", "timeout": 5}, **site)
    assert rewrite["args"] == {"command": "ls -a", "timeout": 5}
    # Hermes' pre_tool_call site follows at once: the same decision, the hooks not run again.
    assert bridge.hooks["pre_tool_call"](args=rewrite["args"], **site) is None


def test_a_block_reaches_hermes_as_its_block_directive(bridge):
    site = {"tool_name": "delete_file", "tool_call_id": "c2"}
    assert bridge.middleware["tool_request"](args={"path": "/"}, **site) is None
    answer = bridge.hooks["pre_tool_call"](args={"path": "/"}, **site)
    assert answer == {"action": "block", "message": "no rm"}


def test_the_hooks_block_is_left_to_hermes_when_unpatched(bridge):
    # config.yaml's hooks: would deny every call; unpatched, Hermes runs it, not the bridge.
    assert bridge.hooks["pre_tool_call"](tool_name="read_file", args={}, tool_call_id="c3") is None


def test_post_tool_use_context_is_appended_to_the_tool_result(bridge):
    site = {"tool_name": "terminal", "args": {"command": "ls"}, "tool_call_id": "c4"}
    assert bridge.hooks["post_tool_call"](result='{"output": "a"}', status="ok", **site) is None
    out = bridge.hooks["transform_tool_result"](result='{"output": "a"}', **site)
    assert out == '{"output": "a"}\n\nchecked'
    # Once: the next transform of that call has nothing to add.
    assert bridge.hooks["transform_tool_result"](result='{"output": "a"}', **site) is None


def test_a_stop_hook_keeps_the_agent_going_through_pre_verify(bridge):
    answer = bridge.hooks["pre_verify"](session_id="s", coding=True, attempt=0, final_response="x")
    assert answer == {"action": "continue", "message": "run the tests"}


def test_events_without_hooks_answer_nothing(bridge):
    assert bridge.hooks["pre_llm_call"](session_id="s", user_message="hi") is None
    assert bridge.hooks["transform_llm_output"](response_text="hello", session_id="s") is None
    assert bridge.hooks["kanban_task_claimed"](task_id="k1", profile_name="default") is None


@pytest.fixture
def bare(home, monkeypatch):
    """A bridge attached to a fake Hermes, for a home with no hook at all: tests register
    native plugins on its manager themselves."""
    monkeypatch.setenv("HERMES_HOME", str(home))
    bridge = agent.Bridge()
    ctx = FakeContext()
    bridge.attach(ctx)
    assert bridge.hooks is not None
    yield bridge.hooks, ctx
    bridge.hooks.close()


def test_each_relayed_site_gets_our_answer_in_the_shape_it_reads(bare):
    hooks, ctx = bare
    hooks.register(
        native_plugin(
            pre_llm_call=lambda: "house rules",
            transform_llm_output=lambda response_text: response_text.upper(),
            pre_gateway_dispatch=lambda: {"action": "rewrite", "text": "/help", "reason": "alias"},
        ),
        "p",
    )
    assert ctx.hooks["pre_llm_call"](session_id="s", user_message="hi") == "house rules"
    assert ctx.hooks["transform_llm_output"](response_text="hello", session_id="s") == "HELLO"
    # A transform that leaves the value as it was is no answer.
    assert ctx.hooks["transform_llm_output"](response_text="HI", session_id="s") is None
    answer = ctx.hooks["pre_gateway_dispatch"](event=None, gateway=None, session_store=None)
    assert answer == {"action": "rewrite", "text": "/help", "reason": "alias"}


def test_an_approval_keeps_its_rule_key_and_tool_call_context_reaches_the_result(bare):
    hooks, ctx = bare
    approve = {"action": "approve", "message": "ask", "rule_key": "git:push", "context": "note"}
    hooks.register(native_plugin(pre_tool_call=lambda: approve), "p")
    site = {"tool_name": "terminal", "args": {"command": "git push"}, "tool_call_id": "c1"}
    answer = ctx.hooks["pre_tool_call"](**site)
    assert answer == {"action": "approve", "message": "ask", "rule_key": "git:push"}
    out = ctx.hooks["transform_tool_result"](result="pushed", **site)
    assert out == "pushed\n\nnote"


def test_the_docs_page_lists_the_bridged_and_the_unfired_events():
    page = (Path(__file__).resolve().parents[1] / "docs" / "hermes-agent.md").read_text()
    bridged, _, rest = page.partition("## What does not work under Hermes 0.19")
    missing = [e for e in agent.HERMES_0_19_HOOKS if f"`{e}`" not in bridged]
    unfired = rest.partition("## ")[0]
    for event, claude in agent.unfired_events().items():
        missing += [n for n in (event, *claude) if f"`{n}`" not in unfired]
    assert missing == []


def test_background_hooks_reach_hermes_through_its_inject_message(home, tmp_path, monkeypatch):
    injected = []

    class Injecting(FakeContext):
        def inject_message(self, content: str, role: str = "user") -> bool:
            injected.append((content, role))
            return True

    wake = tmp_path / "wake.sh"
    wake.write_text("#!/bin/sh\ncat >/dev/null\necho 'tests broke' >&2\nexit 2\n")
    wake.chmod(0o755)
    group = {"matcher": "terminal", "hooks": [
        {"type": "command", "command": str(wake), "asyncRewake": True}]}  # fmt: skip
    (home / "settings.json").write_text(json.dumps({"hooks": {"PostToolUse": [group]}}))
    monkeypatch.setenv("HERMES_HOME", str(home))
    monkeypatch.setenv("HERMES_ACCEPT_HOOKS", "1")
    bridge = agent.Bridge()
    bridge.attach(Injecting())
    assert bridge.hooks is not None
    bridge.hooks.post_tool_call(tool_name="terminal", result="ok", status="ok", session_id="s")
    bridge.hooks.close()
    assert len(injected) == 1 and "tests broke" in injected[0][0]


def test_adoption_moves_hermes_callbacks_into_our_manager_in_hermes_order(home):
    """hermes_patch.Patch on a stand-in for Hermes 0.19's plugin manager (the real one:
    tests/test_hermes_agent_bridge.py): each owning plugin's callbacks become one plugin of ours,
    Hermes' shell runner is dropped, only the bridge stays in Hermes' table, and the bridge's
    middleware goes last."""
    from types import SimpleNamespace

    from hermes_hooks.hermes import patch as hermes_patch

    hooks = hermes_hooks.load(home, {}, entry_points=False, builtins=False, hermes_plugins=False)
    ran: list[str] = []

    def callback(module: str, answer: Any) -> Any:
        def cb(**kw: Any) -> Any:
            ran.append(module)
            return answer

        cb.__module__ = module
        return cb

    approve = callback("hermes_plugins.alpha", {"action": "approve", "message": "ask"})
    block = callback("hermes_plugins.beta.rules", {"action": "block", "message": "no"})
    shell = callback("agent.shell_hooks", {"action": "block", "message": "hooks: block"})
    unowned = callback("somewhere.else", None)

    def bridge(**kw: Any) -> None:
        return None

    def middleware(**kw: Any) -> None:
        return None

    def other_middleware(**kw: Any) -> None:
        return None

    def plugin(module: str, version: str) -> Any:
        manifest = SimpleNamespace(source="directory", path=f"/p/{module}", version=version)
        return SimpleNamespace(module=SimpleNamespace(__name__=module), manifest=manifest)

    manager = SimpleNamespace(
        _hooks={"pre_tool_call": [approve, bridge, block, shell, unowned], "other": [approve]},
        _middleware={"tool_request": [middleware, other_middleware]},
        _plugins={
            "alpha": plugin("hermes_plugins.alpha", "1.0"),
            "beta": plugin("hermes_plugins.beta", "2.0"),
        },
    )
    patch = hermes_patch.Patch(manager, SimpleNamespace())
    callbacks = {"pre_tool_call": bridge}
    assert patch.foreign("pre_tool_call", callbacks)
    patch.adopt(hooks, callbacks, middleware)
    assert manager._hooks == {"pre_tool_call": [bridge], "other": [approve]}  # not bridged: kept
    assert manager._middleware["tool_request"] == [other_middleware, middleware]
    assert not patch.foreign("pre_tool_call", callbacks, middleware)
    assert set(patch.adopted) == {"alpha", "beta", "hermes:somewhere.else"}
    beta = hooks.records["beta"]
    assert (beta.version, beta.path) == ("2.0", "/p/hermes_plugins.beta")
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert (decision.action, decision.message, decision.source) == ("block", "no", "beta")
    assert ran == ["hermes_plugins.alpha", "hermes_plugins.beta.rules", "somewhere.else"]
    patch.release(hooks)
    assert patch.adopted == [] and not {"alpha", "beta"} & set(hooks.records)
    hooks.close()


def test_a_plugin_hermes_loads_has_its_manifest_read_as_load_reads_it(tmp_path, caplog):
    # the bridge reads a Hermes-loaded plugin's plugin.yaml for our keys with the loader's own
    # reader: its guard settings, a misspelt key and a file that cannot be read are all as
    # under load(), none dropped silently
    from hermes_hooks.hermes.patch import _our_keys

    good = tmp_path / "good"
    good.mkdir()
    (good / "plugin.yaml").write_text("name: good\nfail_closed: true\npriority: 3\ntimout: 5\n")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "plugin.yaml").write_text("name: [unclosed\n")
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        keys = _our_keys(str(good), "good")
        assert _our_keys(str(broken), "broken") == {}
    assert (keys["fail_closed"], keys["priority"], keys["manifest"]["name"]) == (True, 3, "good")
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "timout" in said and str(broken / "plugin.yaml") in said
