"""The example plugin's own tests, written the way a plugin author would: with the fixtures of
``hermes_hooks.testing`` and the real dispatcher, not by calling the functions directly."""

from __future__ import annotations

import hermes_hook_example
import pytest


@pytest.fixture
def hooks(hermes_hooks, register_plugin):
    register_plugin(hermes_hook_example, "example")
    return hermes_hooks


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf /",
        "rm -fr /*",
        "sudo rm -rf / --no-preserve-root",
        "rm -r -f //",
        "/bin/rm --recursive --force /",
        "cd /tmp && rm -rf /",
        "echo done; rm -Rf '/'",
    ],
)
def test_blocks_deleting_the_root_filesystem(hooks, command):
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": command})
    assert decision.action == "block"
    assert decision.message == hermes_hook_example.BLOCK_MESSAGE
    assert decision.source == "example"


@pytest.mark.parametrize(
    "command",
    [
        "ls /",
        "rm -rf /tmp/build",
        "rm -rf ./build /var/tmp/cache",
        "rm -f /etc/motd.bak",
        "echo 'rm -rf /tmp'",
        "grep -r rm /",
    ],
)
def test_leaves_other_commands_alone(hooks, command):
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": command})
    assert decision.action is None and decision.message is None


def test_only_the_terminal_tool_is_checked(hooks):
    decision = hooks.pre_tool_call(tool_name="write_file", args={"command": "rm -rf /"})
    assert decision.action is None


def test_tolerates_missing_or_odd_arguments(hooks):
    assert hooks.call("pre_tool_call", tool_name="terminal").action is None  # no args at all
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": 42}).action is None


def test_adds_one_line_of_context_to_every_turn(hooks):
    text = hooks.pre_llm_call(session_id="s1", user_message="hi", is_first_turn=False)
    assert text == hermes_hook_example.CONTEXT_LINE
    assert "\n" not in text


def test_rows_show_both_hooks(hooks):
    events = {row["event"] for row in hooks.rows() if row["name"] == "example"}
    assert events == {"pre_tool_call", "pre_llm_call"}


def test_register_plugin_unregisters_after_the_test(hermes_hooks):
    # The previous tests registered "example" on their own fresh managers; nothing leaks here.
    assert not hermes_hooks.has_hook("pre_tool_call")
