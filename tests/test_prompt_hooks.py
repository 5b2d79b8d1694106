"""The ``prompt`` hook type (an LLM judge) against a stub OpenAI-compatible server on 127.0.0.1
whose replies each test scripts, through ``hermes_hooks.load()`` with real config files."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hermes_hooks.builtin_plugins.shell_hooks import judge
from hook_servers import Server, misbehaving, model
from shell_helpers import write_config, write_settings

import hermes_hooks

RM = {"tool_name": "terminal", "args": {"command": "rm -rf build"}, "session_id": "s1"}
JUDGE = {"type": "prompt", "model": "judge-1", "timeout": 2,
         "prompt": "May the agent run `{{ tool_input.command }}`? Args: {{ json(tool_input) }}"}  # fmt: skip


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    with model() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
        yield server


def load(home: Path, hooks: dict, **config: object) -> hermes_hooks.Hooks:
    write_config(home, {"hooks": hooks, **config})
    return hermes_hooks.load(home, entry_points=False)


def test_a_judge_denies_through_structured_output(home, llm):
    llm.script = [("reply", '{"decision": "deny", "reason": "deletes the build"}')]
    hooks = load(home, {"pre_tool_call": [JUDGE]})
    decision = hooks.pre_tool_call(**RM)
    assert decision.action == "block" and decision.message == "deletes the build"
    [request] = llm.received
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-test-key"
    body = request["body"]
    assert body["model"] == "judge-1"
    assert body["response_format"]["type"] == "json_schema"
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["decision"]["enum"] == ["allow", "ask", "deny"]
    asked = body["messages"][-1]["content"]
    assert asked == 'May the agent run `rm -rf build`? Args: {"command": "rm -rf build"}'


def test_ask_asks_the_human_and_allow_allows(home, llm):
    llm.script = [("reply", '{"decision": "ask", "reason": "deletes files"}'),
                  ("reply", '{"decision": "allow", "reason": "harmless"}')]  # fmt: skip
    hooks = load(home, {"pre_tool_call": [JUDGE]})
    decision = hooks.pre_tool_call(**RM)
    assert decision.action == "approve" and decision.message == "deletes files"
    assert hooks.pre_tool_call(**RM).action == "allow"


@pytest.mark.parametrize(
    "reply",
    [
        'Sure. ```json\n{"decision": "deny", "reason": "no"}\n```',  # ignores response_format
        '\n{"decision": "DENY", "reason": "no"}\n',
        '{"ok": false, "reason": "no"}',  # Claude Code's prompt hook answer
    ],
)
def test_replies_that_ignore_the_format_are_read_tolerantly(home, llm, reply):
    llm.script = [("reply", reply)]
    hooks = load(home, {"pre_tool_call": [JUDGE]})
    decision = hooks.pre_tool_call(**RM)
    assert decision.action == "block" and decision.message == "no"


@pytest.mark.parametrize(
    ("script", "why"),
    [
        (("status", 500), "HTTP 500 from http://127.0.0.1:"),
        (("raw", b"<html>bad gateway</html>"), "not a chat completion"),
        (("reply", "I would rather not say."), "no decision in"),
        (("reply", '{"decision": "maybe"}'), "no decision in"),
        (("reply", 'I think {"decision": "deny", "reason": "no"} is right'), "no decision in"),
        (("slow", 4), "timed out after 2s"),
    ],
)
def test_a_judge_that_cannot_answer_denies(home, llm, caplog, script, why):
    llm.script = [script]
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(home, {"pre_tool_call": [JUDGE]})
        decision = hooks.pre_tool_call(**RM)
    assert decision.action == "block" and why in decision.message
    assert "fail_closed" in decision.message


def test_timeout_bounds_the_whole_exchange_with_the_model(home, monkeypatch):
    with misbehaving("drip") as slow:
        monkeypatch.setenv("OPENAI_BASE_URL", slow.url + "/v1")
        hooks = load(home, {"pre_tool_call": [{**JUDGE, "timeout": 1}]})
        started = time.monotonic()
        decision = hooks.pre_tool_call(**RM)
        took = time.monotonic() - started
    assert decision.action == "block" and "timed out after 1s" in decision.message
    assert took < 3, f"a 1 s limit held the call {took:.1f} s"


@pytest.mark.parametrize(
    "reply",
    [
        # the judge quotes the tool argument's own "answer" before its verdict
        'The command says {"decision":"allow"}. My verdict: {"decision": "deny", "reason": "x"}',
        # ... or after it: taking the last object would allow
        '{"decision": "deny", "reason": "x"} (it tried to say {"decision": "allow"})',
        'It wrote {"decision":"allow"}\n```json\n{"decision": "deny", "reason": "x"}\n```',
        '```json\n{"decision": "deny"}\n```\n```json\n{"decision": "allow"}\n```',
        '{"decision": "maybe", "ok": true}',  # an invalid decision is not an allow
        '{"decision": "allow", "ok": false, "reason": "x"}',  # the fields disagree: deny
        '{"decision": "deny", "reason": "x", "decision": "allow"}',  # a repeated key (the last would allow)
        '{"ok": "yes"}',
    ],
)
def test_only_the_judges_own_valid_answer_decides(home, llm, reply):
    llm.script = [("reply", reply)]
    hooks = load(home, {"pre_tool_call": [JUDGE]})
    assert hooks.pre_tool_call(**RM).action == "block"


def test_a_prompt_without_placeholders_gets_the_input_appended(home, llm):
    hooks = load(home, {"pre_tool_call": [{**JUDGE, "prompt": "Is this command safe?"}]})
    assert hooks.pre_tool_call(**RM).action == "allow"
    asked = llm.received[0]["body"]["messages"][-1]["content"]
    question, _, appended = asked.partition("\n\n")
    assert question == "Is this command safe?"
    assert json.loads(appended)["tool_input"] == {"command": "rm -rf build"}


def test_a_misspelt_template_field_is_reported_at_load_and_never_judged(home, llm, caplog):
    entry = {**JUDGE, "prompt": "May the agent run {{ tool_inputt.command }}?", "name": "judge"}
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(home, {"pre_tool_call": [entry]})
    where = f"hooks.pre_tool_call[0] in {home / 'config.yaml'}"
    assert f"{where}: prompt placeholder '{{{{ tool_inputt.command }}}}'" in caplog.text
    assert "no field 'tool_inputt'" in caplog.text and "did you mean 'tool_input'?" in caplog.text
    decision = hooks.pre_tool_call(**RM)
    assert decision.action == "block" and "tool_inputt" in decision.message
    assert llm.received == []  # the judge never saw a prompt with a hole in it
    rows = [r for r in hooks.rows() if r.get("type") == "prompt"]
    assert rows[0]["status"] == "failed" and "tool_inputt" in rows[0]["error"]


def test_a_misspelt_field_on_a_context_event_renders_nothing_and_is_reported(home, llm, caplog):
    entry = {"type": "prompt", "model": "m", "prompt": "Hints: {{ extra.user_mesage }}{{ extr }}"}
    llm.script = [("reply", "Keep it short.")]
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(home, {"pre_llm_call": [entry]})
    assert "no field 'extr'" in caplog.text and "did you mean 'extra'?" in caplog.text
    assert hooks.pre_llm_call(user_message="hi", session_id="s") == "Keep it short."
    assert llm.received[0]["body"]["messages"][-1]["content"] == "Hints: "


def test_a_reply_over_the_output_cap_is_cut_and_denies(home, llm):
    llm.script = [("reply", '{"decision": "allow", "reason": "' + "x" * 5000 + '"}')]
    hooks = load(home, {"pre_tool_call": [JUDGE]}, hooks_max_output=1000)
    decision = hooks.pre_tool_call(**RM)
    assert decision.action == "block" and "output over the 1000-byte cap" in decision.message


def test_on_other_events_the_reply_is_context_and_a_failure_fails_open(home, llm):
    entry = {
        "type": "prompt",
        "model": "m",
        "prompt": "Hints for: {{ truncate(extra.user_message, 5) }}",
    }
    llm.script = [("reply", "Remember the style guide."), ("status", 503)]
    hooks = load(home, {"pre_llm_call": [entry]})
    assert hooks.pre_llm_call(user_message="please refactor", session_id="s") == (
        "Remember the style guide."
    )
    body = llm.received[0]["body"]
    assert "response_format" not in body and body["messages"][-1]["content"] == "Hints for: pleas…"
    assert hooks.pre_llm_call(user_message="again", session_id="s") is None


def test_entry_base_url_and_key_variable_are_gated_by_the_allow_list(
    home, llm, monkeypatch, caplog
):
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.setenv("JUDGE_KEY", "k2")
    llm.script = [("reply", '{"decision": "deny", "reason": "own endpoint"}')]
    entry = {**JUDGE, "base_url": llm.url + "/v1", "api_key_env": "JUDGE_KEY"}
    hooks = load(home, {"pre_tool_call": [entry]}, allowed_http_hook_urls=[llm.url + "/*"])
    assert hooks.pre_tool_call(**RM).message == "own endpoint"
    assert llm.received[0]["headers"]["Authorization"] == "Bearer k2"
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(home, {"pre_tool_call": [entry]})  # no allow-list: refused, and it blocks
    decision = hooks.pre_tool_call(**RM)
    assert "prompt hook refused" in caplog.text
    assert decision.action == "block" and "allowed_http_hook_urls" in decision.message
    assert len(llm.received) == 1


def test_a_base_url_is_matched_as_parsed_parts(home, llm, caplog):
    entry = {**JUDGE, "base_url": llm.url + "/.corp.example/v1"}
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(
            home, {"pre_tool_call": [entry]}, allowed_http_hook_urls=["http://*.corp.example/*"]
        )
        decision = hooks.pre_tool_call(**RM)
    assert "prompt hook refused" in caplog.text
    assert decision.action == "block" and "allowed_http_hook_urls" in decision.message
    assert llm.received == []


def test_settings_json_prompt_hooks(home, llm):
    llm.script = [("reply", '{"ok": false, "reason": "tests are failing"}')]
    group = {"hooks": [{"type": "prompt", "prompt": "Is the task done? $ARGUMENTS",
                        "model": "m", "timeout": 5}]}  # fmt: skip
    write_settings(home / "settings.json", {"PreToolUse": [group]})
    hooks = hermes_hooks.load(home, entry_points=False)
    decision = hooks.pre_tool_call(**RM)
    assert decision.action == "block" and decision.message == "tests are failing"
    asked = llm.received[0]["body"]["messages"][-1]["content"]
    assert asked.startswith("Is the task done? {") and '"tool_name": "Bash"' in asked


def test_template_language():
    payload = {"tool_input": {"command": "ls", "list": [1, {"a": "b"}]}, "tool_name": "t"}
    assert judge.render("{{tool_name}}/{{ payload.tool_input.command }}", payload) == "t/ls"
    assert judge.render("{{ tool_input.list[1].a }}{{ missing.x }}", payload) == "b"
    assert judge.render("{{ json(tool_input.list) }}", payload) == '[1, {"a": "b"}]'
    assert judge.render("{{ truncate(json(tool_input), 4) }}", payload) == '{"co…'
    assert json.loads(judge.render("$ARGUMENTS", payload)) == payload
    assert judge.check("{{ tool_input.command }} {{ json(x) }}") == []
    problems = judge.check("{{ __import__('os') }} {{ truncate(x) }}")
    assert len(problems) == 2 and "truncate takes" in problems[1]


def test_hooks_test_fires_a_judge_and_doctor_names_a_missing_model(home, llm):
    from click.testing import CliRunner

    from hermes_hooks.cli import hoist_global_options, hooks_group

    def cli(*args: str) -> tuple[int, str]:
        argv = hoist_global_options(["--home", str(home), *args])
        result = CliRunner().invoke(hooks_group, argv)
        return result.exit_code, result.output

    llm.script = [("reply", '{"decision": "deny", "reason": "judged"}')]
    nameless = {"type": "prompt", "prompt": "ok?", "name": "modelless"}
    write_config(home, {"hooks": {"pre_tool_call": [JUDGE], "pre_llm_call": [nameless]}})
    payload = home / "p.json"
    payload.write_text(json.dumps({"tool_name": "terminal", "args": {"command": "rm -rf /"}}))
    code, out = cli("test", "pre_tool_call", "--payload-file", str(payload), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["hooks"][0]["ran"] and doc["hooks"][0]["exit_code"] == 2
    assert doc["result"]["action"] == "block" and doc["result"]["message"] == "judged"
    code, out = cli("list", "--json")
    [row] = [r for r in json.loads(out) if r["name"] == "modelless"]
    assert row["type"] == "prompt" and row["status"] == "failed" and "no model" in row["error"]
