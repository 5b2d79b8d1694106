"""Hermes Agent plugin compatibility: register(ctx) plugins behave as they do under Hermes,
except where DESIGN.md fixes Hermes' weaknesses (a block always beats an approval)."""

from __future__ import annotations

import asyncio
import logging

import pytest

import hermes_hooks

BLOCKER = """
def register(ctx):
    ctx.register_hook("pre_tool_call", lambda **kw: {RESULT})
"""


def load(home):
    return hermes_hooks.load(home, entry_points=False, builtins=False)


def test_register_plugin_block_with_message_blocks(home, plugin_dir):
    plugin_dir("guard", BLOCKER.replace("{RESULT}", '{"action": "block", "message": "no"}'))
    d = load(home).pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert (d.action, d.message, d.source) == ("block", "no", "guard")


@pytest.mark.parametrize(
    "result",
    [
        '{"action": "block", "message": ""}',
        '{"action": "block", "message": 42}',
        '{"action": "block"}',
        '"block"',
        "123",
        '{"action": "deny"}',
        '["block"]',
    ],
)
def test_invalid_answers_are_ignored(home, plugin_dir, result):
    plugin_dir("guard", BLOCKER.replace("{RESULT}", result))
    hooks = load(home)
    assert hooks.has_hook("pre_tool_call")
    d = hooks.pre_tool_call(tool_name="terminal", args={})
    assert d == hermes_hooks.ToolDecision()


def test_block_beats_earlier_approve(home, plugin_dir):
    plugin_dir("a_approver", BLOCKER.replace("{RESULT}", '{"action": "approve", "message": "ask"}'))
    plugin_dir("b_blocker", BLOCKER.replace("{RESULT}", '{"action": "block", "message": "stop"}'))
    hooks = load(home)
    assert [r["name"] for r in hooks.rows(event="pre_tool_call")] == ["a_approver", "b_blocker"]
    d = hooks.pre_tool_call(tool_name="terminal", args={})
    assert (d.action, d.message, d.source) == ("block", "stop", "b_blocker")


def test_three_contexts_join_in_discovery_order(home, plugin_dir):
    plugin_dir(
        "one",
        'def register(ctx):\n    ctx.register_hook("pre_llm_call", lambda **kw: {"context": "first"})\n',
    )
    plugin_dir(
        "two", 'def register(ctx):\n    ctx.register_hook("pre_llm_call", lambda **kw: "second")\n'
    )
    plugin_dir(
        "three",
        'def register(ctx):\n    ctx.register_hook("pre_llm_call", lambda **kw: {"context": "third", "other": 1})\n',
    )
    hooks = load(home)
    # Directories are discovered alphabetically: one, three, two.
    assert (
        hooks.pre_llm_call(session_id="s", user_message="hi", is_first_turn=True)
        == "first\n\nthird\n\nsecond"
    )


def test_raising_callback_is_skipped_and_others_returned(home, plugin_dir, caplog):
    plugin_dir(
        "a_broken",
        'def register(ctx):\n    ctx.register_hook("pre_llm_call", lambda **kw: 1 / 0)\n',
    )
    plugin_dir(
        "b_fine", 'def register(ctx):\n    ctx.register_hook("pre_llm_call", lambda **kw: "fine")\n'
    )
    hooks = load(home)
    with caplog.at_level(logging.WARNING, logger="hermes_hooks"):
        assert hooks.pre_llm_call(user_message="x") == "fine"
    assert "a_broken" in caplog.text and "ZeroDivisionError" in caplog.text
    assert hooks.failures[("a_broken", "pre_llm_call")] == 1
    assert hooks.invoke("pre_llm_call") == ["fine"]


ASYNC_PLUGIN = """
import asyncio

def register(ctx):
    async def ctx_hook(**kw):
        await asyncio.sleep(0)
        return "from async"

    async def guard(tool_name, args, **kw):
        await asyncio.sleep(0)
        return {"action": "block", "message": "async says no"}

    ctx.register_hook("pre_llm_call", ctx_hook)
    ctx.register_hook("pre_tool_call", guard)
"""


def test_async_callbacks_are_awaited_by_sync_api(home, plugin_dir, recwarn):
    plugin_dir("asyncy", ASYNC_PLUGIN)
    hooks = load(home)
    assert hooks.pre_llm_call(user_message="x") == "from async"
    assert hooks.pre_tool_call(tool_name="t", args={}).message == "async says no"
    assert not [w for w in recwarn if "never awaited" in str(w.message)]


def test_async_callbacks_are_awaited_by_async_api(home, plugin_dir):
    plugin_dir("asyncy", ASYNC_PLUGIN)
    hooks = load(home)

    async def main():
        text = await hooks.acall("pre_llm_call", user_message="x")
        d = await hooks.acall("pre_tool_call", tool_name="t", args={})
        # The sync API still works from inside a running loop.
        sync_text = hooks.pre_llm_call(user_message="y")
        return text, d, sync_text

    text, d, sync_text = asyncio.run(main())
    assert text == sync_text == "from async"
    assert d.action == "block"


def test_unknown_hook_loads_with_warning(home, plugin_dir, caplog):
    plugin_dir(
        "future",
        'def register(ctx):\n    ctx.register_hook("on_banana", lambda **kw: "peeled")\n'
        '    ctx.register_hook("pre_tool_cal", lambda **kw: None)\n',
    )
    with caplog.at_level(logging.WARNING, logger="hermes_hooks"):
        hooks = load(home)
    assert "on_banana" in caplog.text and "future" in caplog.text
    assert "did you mean 'pre_tool_call'" in caplog.text
    assert hooks.records["future"].status == "active"
    assert hooks.invoke("on_banana", anything=1) == ["peeled"]
    assert any(r["event"] == "on_banana" for r in hooks.rows())


def test_entry_point_naming_register_callable_loads(home, fake_site):
    hooks = hermes_hooks.load(home, builtins=False)
    rec = hooks.records["fakehermes"]
    assert (rec.status, rec.source, rec.distribution, rec.version) == (
        "active",
        "entrypoint",
        "fake-hermes-plugin",
        "1.0",
    )
    d = hooks.pre_tool_call(tool_name="sql", args={"sql": "DROP TABLE users"})
    assert (d.action, d.message) == ("block", "fakehermes: no DROP TABLE")
    assert hooks.tools["fake_echo"].plugin == "fakehermes"


def test_native_entry_point_loads(home, fake_site):
    hooks = hermes_hooks.load(home, builtins=False)
    assert hooks.records["fakenative"].status == "active"
    assert hooks.pre_llm_call(is_first_turn=True) == "fakenative: context"
    assert hooks.pre_tool_call(tool_name="deploy", args={}).action == "approve"


def test_directory_plugin_relative_import(home, plugin_dir):
    plugin_dir(
        "my-plugin",
        """
        from .policy import verdict
        from . import policy

        def register(ctx):
            ctx.register_hook("pre_tool_call", lambda tool_name, **kw: verdict(tool_name))
        """,
        files={
            "policy.py": 'def verdict(name):\n    return {"action": "block", "message": f"{name} blocked by policy"} if name == "x" else None\n'
        },
    )
    hooks = load(home)
    assert hooks.records["my-plugin"].status == "active"
    assert hooks.pre_tool_call(tool_name="x", args={}).message == "x blocked by policy"
    import sys

    assert "hermes_plugins.my_plugin.policy" in sys.modules


def test_callbacks_receive_every_keyword_the_host_passes(home, plugin_dir):
    plugin_dir(
        "strict",
        """
        seen = {}
        def register(ctx):
            def cb(tool_name, args, task_id, completed, telemetry_schema_version, **kw):
                seen.update(kw, completed=completed, v=telemetry_schema_version)
            ctx.register_hook("post_tool_call", cb)
        """,
    )
    hooks = load(home)
    hooks.post_tool_call(
        tool_name="t",
        args={},
        result="r",
        task_id="1",
        completed=True,
        telemetry_schema_version=2,
        extra="x",
    )
    import sys

    seen = sys.modules["hermes_plugins.strict"].seen
    assert seen == {"completed": True, "v": 2, "extra": "x", "result": "r"}


def test_post_tool_call_return_of_hermes_callback_is_ignored(home, plugin_dir):
    plugin_dir(
        "observer",
        'def register(ctx):\n    ctx.register_hook("post_tool_call", lambda **kw: "ignored")\n',
    )
    assert load(home).post_tool_call(tool_name="t", args={}, result="r", status="ok") is None


def test_register_raising_rolls_back(home, plugin_dir):
    plugin_dir(
        "half",
        """
        def register(ctx):
            ctx.register_hook("pre_tool_call", lambda **kw: {"action": "block", "message": "x"})
            ctx.register_tool("half_tool", "t", {}, lambda a: "")
            ctx.register_command("halfcmd", lambda raw: "")
            raise RuntimeError("config missing")
        """,
    )
    hooks = load(home)
    rec = hooks.records["half"]
    assert rec.status == "failed" and "RuntimeError: config missing" in rec.error
    assert not hooks.has_hook("pre_tool_call")
    assert "half_tool" not in hooks.tools and "halfcmd" not in hooks.commands


def test_register_calling_sys_exit_is_contained(home, plugin_dir):
    plugin_dir("quitter", "import sys\ndef register(ctx):\n    sys.exit(3)\n")
    plugin_dir(
        "other",
        'def register(ctx):\n    ctx.register_hook("pre_llm_call", lambda **kw: "still here")\n',
    )
    hooks = load(home)
    assert hooks.records["quitter"].status == "failed"
    assert "SystemExit" in hooks.records["quitter"].error
    assert hooks.pre_llm_call() == "still here"


def test_import_error_is_recorded(home, plugin_dir):
    plugin_dir("broken", "import not_a_module_anywhere\n")
    hooks = load(home)
    rec = hooks.records["broken"]
    assert rec.status == "failed"
    assert "ModuleNotFoundError" in rec.error and "not_a_module_anywhere" in rec.error


def test_a_hermes_plugins_skip_keeps_its_message(home, plugin_dir):
    plugin_dir(
        "quiet",
        """
        def register(ctx):
            ctx.register_hook(
                "pre_gateway_dispatch",
                lambda **kw: {"action": "skip", "message": "muted: maintenance window"},
            )
        """,
    )
    hooks = load(home)
    answer = hooks.pre_gateway_dispatch(event={"text": "hi"})
    assert (answer.action, answer.reason, answer.source) == (
        "skip",
        "muted: maintenance window",
        "quiet",
    )
