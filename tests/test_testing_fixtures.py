"""The opt-in pytest fixtures for plugin authors, exercised the way an author's suite uses them."""

from __future__ import annotations

AUTHOR_TESTS = """
import pytest
from hermes_hooks import hookimpl

pytest_plugins = ["hermes_hooks.testing"]


class Guard:
    @hookimpl
    def pre_tool_call(self, tool_name, args):
        if "rm -rf /" in args.get("command", ""):
            return {"action": "block", "message": "no"}


def test_blocks(hermes_hooks, register_plugin):
    register_plugin(Guard(), "guard")
    assert hermes_hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf /"}).action == "block"
    assert hermes_hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}).action is None


def test_fresh_manager_each_test(hermes_hooks):
    assert not hermes_hooks.has_hook("pre_tool_call")
    assert [r for r in hermes_hooks.rows() if r["event"]] == []


def test_hermes_style(hermes_hooks, register_hermes_plugin):
    def register(ctx):
        ctx.register_hook("pre_llm_call", lambda **kw: "ctx line")
        ctx.register_tool("t", "set", {}, lambda args: "x")

    register_hermes_plugin(register, name="mine")
    assert hermes_hooks.pre_llm_call(user_message="hi") == "ctx line"
    assert hermes_hooks.tools["t"].plugin == "mine"


def test_failure_inside_test_still_unregisters(hermes_hooks, register_plugin, request):
    register_plugin(Guard(), "guard")
    request.node.hooks_ref = hermes_hooks
"""


def test_fixtures_work_in_an_authors_suite(pytester):
    pytester.makepyfile(test_author=AUTHOR_TESTS)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)


def test_register_plugin_always_unregisters(pytester):
    pytester.makepyfile(
        test_cleanup="""
from hermes_hooks import hookimpl
pytest_plugins = ["hermes_hooks.testing"]
KEPT = {}

class P:
    @hookimpl
    def pre_llm_call(self):
        return "x"

def test_a(hermes_hooks, register_plugin):
    KEPT["hooks"] = hermes_hooks
    register_plugin(P(), "p")
    assert hermes_hooks.has_hook("pre_llm_call")
    raise AssertionError("the test fails")

def test_b():
    assert not KEPT["hooks"].has_hook("pre_llm_call")
    assert "p" not in KEPT["hooks"].records
"""
    )
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
