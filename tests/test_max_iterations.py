"""The max_iterations built-in through hermes_hooks.load() with a real config.yaml: model calls
counted per session from pre_api_request; past the limit every tool call and new prompt of the
session is refused, other sessions go on, a reset starts from zero."""

from __future__ import annotations

import logging
import subprocess
import sys

import hermes_hooks


def _load(home, text):
    (home / "config.yaml").write_text(text)
    return hermes_hooks.load(home, entry_points=False)


def _model_call(hooks, session):
    hooks.call("pre_api_request", session_id=session, model="m", api_call_count=1)


def test_the_limit_refuses_tool_calls_and_prompts_of_that_session_only(home):
    hooks = _load(home, "max_iterations: 2\n")
    for _ in range(2):
        assert not hooks.pre_tool_call(tool_name="terminal", args={}, session_id="a").blocked
        _model_call(hooks, "a")
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, session_id="a")
    assert decision.blocked and "limit of 2 model calls" in decision.message
    assert decision.source == "builtin:max_iterations"
    prompt = hooks.user_prompt_submit(session_id="a", user_message="go on")
    assert prompt.blocked and "/new" in prompt.message
    # another session is not affected
    assert not hooks.pre_tool_call(tool_name="terminal", args={}, session_id="b").blocked
    assert not hooks.user_prompt_submit(session_id="b", user_message="hi").blocked


def test_a_reset_starts_the_count_again(home):
    hooks = _load(home, "max_iterations: {limit: 1}\n")
    _model_call(hooks, "a")
    assert hooks.pre_tool_call(tool_name="read_file", args={}, session_id="a").blocked
    hooks.call("on_session_reset", session_id="b", old_session_id="a", new_session_id="b",
               platform="cli", reason="/new")  # fmt: skip
    assert not hooks.pre_tool_call(tool_name="read_file", args={}, session_id="a").blocked


def test_a_model_call_past_the_limit_is_reported(home, caplog):
    hooks = _load(home, "max_iterations: 1\n")
    with caplog.at_level(logging.WARNING, logger="hermes_hooks"):
        _model_call(hooks, "a")
        _model_call(hooks, "a")
    assert "past its limit of 1" in caplog.text


def test_listed_on_its_events(home):
    hooks = _load(home, "max_iterations: 3\n")
    rows = {r["event"] for r in hooks.rows() if r["name"] == "builtin:max_iterations"}
    assert rows == {"pre_api_request", "pre_tool_call", "user_prompt_submit", "on_session_reset"}


def test_a_bad_value_is_reported_with_the_file_and_the_fix(home, caplog):
    for text, said in (
        ("max_iterations: 0\n", "0 is not a positive whole number"),
        ("max_iterations: many\n", "'many' is not a positive whole number"),
        ("max_iterations: {limt: 5}\n", "unknown key(s) limt"),
    ):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="hermes_hooks"):
            hooks = _load(home, text)
        assert said in caplog.text and str(home / "config.yaml") in caplog.text
        assert "max_iterations: 50" in caplog.text
        assert not [r for r in hooks.rows() if r["name"] == "builtin:max_iterations"]


def test_not_imported_when_not_configured(home):
    (home / "config.yaml").write_text("add_date: true\n")
    code = (
        "import sys, hermes_hooks; hermes_hooks.load(sys.argv[1], entry_points=False); "
        "print('hermes_hooks.builtin_plugins.max_iterations' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(home)], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


def test_a_builtin_entry_switches_it_on_whole(home):
    hooks = _load(
        home, "hooks:\n  pre_tool_call:\n    - {type: builtin, name: max_iterations, args: [1]}\n"
    )
    _model_call(hooks, "a")
    assert hooks.pre_tool_call(tool_name="terminal", args={}, session_id="a").blocked
    assert hooks.user_prompt_submit(session_id="a", user_message="more").blocked


def test_a_whole_number_written_as_text_or_with_a_point_is_that_limit(home):
    for text in (
        'max_iterations: "2"\n',
        "max_iterations: 2.0\n",
        "max_iterations: {limit: ' 2'}\n",
    ):
        hooks = _load(home, text)
        for _ in range(2):
            _model_call(hooks, "a")
        decision = hooks.pre_tool_call(tool_name="terminal", args={}, session_id="a")
        assert decision.blocked and "limit of 2 model calls" in decision.message, text


def test_doctor_fails_naming_a_value_that_turns_the_limit_off(home):
    for text, said in (
        ("max_iterations: 0\n", "0 is not a positive whole number"),
        ("max_iterations: {limt: 50}\n", "unknown key(s) limt"),
        ("max_iterations: 2.5\n", "2.5 is not a positive whole number"),
        ("max_iterations: '-3'\n", "'-3' is not a positive whole number"),
    ):
        (home / "config.yaml").write_text(text)
        out = subprocess.run(
            ["hermes-hooks", "--home", str(home), "doctor"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert out.returncode == 1, (text, out.stdout)
        assert said in out.stdout and "max_iterations" in out.stdout, (text, out.stdout)
