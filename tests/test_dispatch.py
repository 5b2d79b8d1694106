"""The dispatcher: result kinds, combining rules, order, failure isolation, threads."""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

import hermes_hooks
from hermes_hooks import PromptDecision, ToolDecision
from hermes_hooks.answers import ToolAnswers
from hermes_hooks.catalogue import UnknownEvent, events
from hermes_hooks.hooks import Hooks
from tests.conftest import native_plugin

_TOOL = ToolAnswers()


def tool_decision(raw, source):
    return _TOOL.normalise(raw, source)


def combine_tool_decisions(decisions):
    return _TOOL.combine(decisions, {})


@pytest.fixture
def hooks(tmp_path):
    return Hooks(home=tmp_path)


plugin = native_plugin


# ---------------------------------------------------------------- no hooks


def test_event_without_hooks_is_neutral(hooks):
    for name in events():
        assert not hooks.has_hook(name)
    assert hooks.pre_tool_call(tool_name="t", args={}) == ToolDecision()
    assert hooks.pre_llm_call(user_message="x") is None
    assert hooks.transform_tool_result(result="unchanged") == "unchanged"
    assert hooks.user_prompt_submit(user_message="x") == PromptDecision()
    assert hooks.pre_verify() is None
    assert hooks.invoke("pre_tool_call") == []


def test_unknown_event_in_call_suggests(hooks):
    with pytest.raises(UnknownEvent, match="did you mean 'pre_tool_call'"):
        hooks.call("pre_tools_call")


def test_alias_works_in_call(hooks):
    hooks.register(plugin(pre_tool_call=lambda: {"action": "block", "message": "m"}), "p")
    assert hooks.call("PreToolUse", tool_name="x").action == "block"


# ---------------------------------------------------------------- tool decisions

DIALECTS = [
    ({"action": "block", "message": "m"}, ("block", "m", None)),
    ({"action": "approve", "message": "m", "rule_key": " k "}, ("approve", "m", None)),
    ({"action": "allow"}, ("allow", None, None)),
    ({"action": "modify", "args": {"a": 1}}, (None, None, {"a": 1})),
    ({"decision": "block", "reason": "r"}, ("block", "r", None)),
    ({"decision": "approve", "reason": "ok"}, ("allow", "ok", None)),
    (
        {"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "r"}},
        ("block", "r", None),
    ),
    (
        {"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "r"}},
        ("approve", "r", None),
    ),
    ({"hookSpecificOutput": {"permissionDecision": "allow"}}, ("allow", None, None)),
    ({"hookSpecificOutput": {"permissionDecision": "defer"}}, None),
    (
        {"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "ls"}}},
        ("allow", None, {"command": "ls"}),
    ),
    (
        {
            "hook_specific_output": {
                "permission_decision": "deny",
                "permission_decision_reason": "d",
            }
        },
        ("block", "d", None),
    ),
    ({"hook_specific_output": {"updated_input": {"x": 2}}}, (None, None, {"x": 2})),
    ({"continue": False, "stopReason": "halt"}, ("block", "halt", None)),
    ({"action": "deny", "message": "m"}, None),
    ("block", None),
    (123, None),
    (None, None),
    (ToolDecision(action="approve", message="typed"), ("approve", "typed", None)),
]


@pytest.mark.parametrize(("raw", "expected"), DIALECTS)
def test_tool_decision_dialects(raw, expected):
    d = tool_decision(raw, "src")
    if expected is None:
        assert d is None
    else:
        assert (d.action, d.message, d.args) == expected


def test_approve_keeps_stripped_rule_key():
    assert tool_decision({"action": "approve", "rule_key": " k "}, "s").rule_key == "k"


def test_additional_context_is_kept():
    d = tool_decision({"hookSpecificOutput": {"additionalContext": "note"}}, "s")
    assert d.context == "note" and d.action is None


@pytest.mark.parametrize("event", ["pre_tool_call", "user_prompt_submit", "pre_compress"])
@pytest.mark.parametrize("decision", ["block", " Block", "BLOCK\n"])
def test_claude_decision_block_reads_the_same_on_every_blocking_event(event, decision):
    answer_type = events()[event].answer
    answer = answer_type.normalise({"decision": decision, "reason": "why"}, "s")
    assert answer.action == "block" and answer.message == "why"
    if event != "pre_compress":  # a veto without a message gets "compaction vetoed"
        assert "message" in answer_type.incomplete({"decision": decision})


@pytest.mark.parametrize("decision", ["deny", " Deny", "block"])
def test_a_permission_deny_without_a_reason_is_explained_however_it_is_cased(decision):
    answer_type = events()["pre_tool_call"].answer
    raw = {"hookSpecificOutput": {"permissionDecision": decision}}
    assert answer_type.normalise(raw, "s") is None  # from Python: no message, no block
    assert "message" in answer_type.incomplete(raw)  # ... and the reason is said
    assert answer_type.normalise(raw, "s", "blocked by shell hook s").action == "block"


@pytest.mark.parametrize("event", ["pre_tool_call", "user_prompt_submit"])
def test_the_same_context_twice_in_one_answer_is_given_once(event):
    raw = {"context": "note", "hookSpecificOutput": {"additionalContext": "note"}}
    assert events()[event].answer.normalise(raw, "s").context == "note"


@pytest.mark.parametrize(
    ("event", "kept"),
    [
        ("post_tool_call", True),  # Claude Code's PermissionDenied: the model may try again
        ("pre_tool_call", False),
        ("user_prompt_submit", False),
        ("pre_compress", False),
        ("pre_llm_call", False),
        ("on_session_start", False),
    ],
)
def test_retry_is_feedback_for_a_denied_call_and_context_nowhere_else(event, kept):
    from hermes_hooks.answers.base import RETRY

    answer_type = events()[event].answer
    answer = answer_type.normalise({"hookSpecificOutput": {"retry": True}}, "s")
    context = answer if isinstance(answer, str) or answer is None else answer.context
    assert context == (RETRY if kept else None)


@pytest.mark.parametrize(
    "answer",
    [
        {"text": "gpt-5"},
        {"user_message": "gpt-5"},
        {"hookSpecificOutput": {"updatedPrompt": "gpt-5"}},
        PromptDecision(text="gpt-5"),
    ],
)
def test_a_rewrite_on_a_veto_event_is_reported_not_dropped_silently(hooks, caplog, answer):
    hooks.register(plugin(pre_model_switch=lambda: answer), "switcher")
    with caplog.at_level("WARNING", logger="hermes_hooks"):
        decision = hooks.pre_model_switch(from_model="a", to_model="b")
    assert decision == PromptDecision()
    (warning,) = [r.getMessage() for r in caplog.records if "was ignored" in r.getMessage()]
    assert "'switcher'" in warning and "rewrites nothing" in warning
    assert "new prompt" not in warning  # what a veto event accepts, not user_prompt_submit's


@pytest.mark.parametrize(
    "order",
    [("allow", "approve", "block"), ("block", "approve", "allow"), ("approve", "block", "allow")],
)
def test_block_beats_approve_beats_allow_in_any_order(order):
    ds = [ToolDecision(action=a, message=a, source=f"s{i}") for i, a in enumerate(order)]
    d = combine_tool_decisions(ds)
    assert d.action == "block" and d.message == "block"


def test_first_of_rank_supplies_message_and_source():
    d = combine_tool_decisions(
        [
            ToolDecision("approve", "first", source="a", rule_key="k1"),
            ToolDecision("approve", "second", source="b", rule_key="k2"),
        ]
    )
    assert (d.message, d.source, d.rule_key) == ("first", "a", "k1")


def test_args_merge_in_order_and_block_discards(hooks):
    hooks.register(
        plugin(pre_tool_call=lambda: {"action": "modify", "args": {"a": 1, "b": 1}}), "p1"
    )
    hooks.register(plugin(pre_tool_call=lambda: {"action": "modify", "args": {"b": 2}}), "p2")
    # Registered later runs earlier (pluggy LIFO): p2 then p1, so p1's b wins.
    assert hooks.pre_tool_call(tool_name="t", args={}).args == {"b": 1, "a": 1}
    hooks.register(plugin(pre_tool_call=lambda: {"action": "block", "message": "no"}), "p3")
    d = hooks.pre_tool_call(tool_name="t", args={})
    assert d.action == "block" and d.args is None


# ---------------------------------------------------------------- other kinds


def test_transform_is_a_pipeline(hooks):
    hooks.register(plugin(transform_tool_result=lambda result: result + "-a"), "a")
    hooks.register(plugin(transform_tool_result=lambda result: None), "none")
    hooks.register(plugin(transform_tool_result=lambda result: 42), "wrongtype")
    hooks.register(plugin(transform_tool_result=lambda result: result + "-b"), "b")
    # call order: b, wrongtype, none, a
    assert hooks.transform_tool_result(tool_name="t", result="r") == "r-b-a"


def test_transform_llm_output_ignores_empty(hooks):
    hooks.register(plugin(transform_llm_output=lambda response_text: ""), "e")
    assert hooks.transform_llm_output(response_text="keep") == "keep"


def test_first_result_stops_at_first_valid(hooks):
    calls = []

    def invalid():
        calls.append("invalid")
        return {"action": "continue"}  # no message: not valid

    def valid():
        calls.append("valid")
        return {"decision": "block", "reason": "run tests"}

    def never():
        calls.append("never")
        return {"action": "continue", "message": "x"}

    hooks.register(plugin(pre_verify=never), "never")
    hooks.register(plugin(pre_verify=valid), "valid")
    hooks.register(plugin(pre_verify=invalid), "invalid")
    answer = hooks.pre_verify(session_id="s")
    assert (answer.action, answer.message, answer.source) == ("continue", "run tests", "valid")
    assert calls == ["invalid", "valid"]


def test_user_prompt_submit_rewrites_in_order_and_blocks(hooks):
    hooks.register(
        plugin(user_prompt_submit=lambda user_message: {"text": user_message + "!"}), "second"
    )
    hooks.register(
        plugin(
            user_prompt_submit=lambda user_message: {"text": user_message.upper(), "context": "c1"}
        ),
        "first",
    )
    d = hooks.user_prompt_submit(user_message="hi")
    assert d.text == "HI!" and d.context == "c1" and d.action is None
    hooks.register(
        plugin(user_prompt_submit=lambda: {"decision": "block", "reason": "nope"}), "blocker"
    )
    d = hooks.user_prompt_submit(user_message="hi")
    assert (d.action, d.message, d.source) == ("block", "nope", "blocker")


def test_permission_request_accepts_claude_code_shape(hooks):
    hooks.register(
        plugin(
            permission_request=lambda: {
                "hookSpecificOutput": {"decision": {"behavior": "deny", "message": "m"}}
            }
        ),
        "cc",
    )
    a = hooks.permission_request(tool_name="terminal", args={})
    assert (a.action, a.message, a.scope) == ("deny", "m", "once")


def test_observe_runs_everything_and_returns_none(hooks):
    seen = []
    hooks.register(
        plugin(post_llm_call=lambda session_id: seen.append(("a", session_id)) or "x"), "a"
    )
    hooks.register(plugin(post_llm_call=lambda: seen.append("b")), "b")
    assert hooks.post_llm_call(session_id="s") is None
    assert seen == ["b", ("a", "s")]


def test_native_impl_gets_none_for_arguments_the_host_omitted(hooks):
    hooks.register(
        plugin(
            pre_tool_call=lambda tool_name, transcript_path: {
                "action": "block",
                "message": f"{tool_name}|{transcript_path}",
            }
        ),
        "p",
    )
    assert hooks.call("pre_tool_call", tool_name="t").message == "t|None"


def test_native_impl_with_var_keyword_gets_everything(hooks):
    hooks.register(plugin(pre_llm_call=lambda **kw: ",".join(sorted(kw))), "p")
    assert hooks.pre_llm_call(user_message="x", custom=1) == "custom,user_message"


def test_native_impl_with_unknown_argument_is_rejected(hooks):
    with pytest.raises(Exception, match="banana"):
        hooks.register(plugin(pre_tool_call=lambda banana: None), "bad")


# ---------------------------------------------------------------- order


def test_tryfirst_and_trylast(hooks):
    order = []
    hooks.register(plugin(post_llm_call=(lambda: order.append("last"), {"trylast": True})), "last")
    hooks.register(
        plugin(post_llm_call=(lambda: order.append("first"), {"tryfirst": True})), "first"
    )
    hooks.register(plugin(post_llm_call=lambda: order.append("normal")), "normal")
    hooks.post_llm_call()
    assert order == ["first", "normal", "last"]
    assert [r["name"] for r in hooks.rows(event="post_llm_call")] == ["first", "normal", "last"]


# ---------------------------------------------------------------- failure


def test_system_exit_in_hook_is_contained(hooks):
    def bad():
        raise SystemExit(1)

    hooks.register(plugin(pre_llm_call=bad), "bad")
    hooks.register(plugin(pre_llm_call=lambda: "ok"), "good")
    assert hooks.pre_llm_call() == "ok"
    assert hooks.failures[("bad", "pre_llm_call")] == 1


def test_keyboard_interrupt_propagates(hooks):
    def bad():
        raise KeyboardInterrupt

    hooks.register(plugin(pre_llm_call=bad), "bad")
    with pytest.raises(KeyboardInterrupt):
        hooks.pre_llm_call()


def test_fail_closed_plugin_turns_failure_into_block(hooks):
    def bad(tool_name):
        raise ValueError("policy file unreadable")

    hooks.register(plugin(pre_tool_call=bad), "policy", fail_closed=True)
    d = hooks.pre_tool_call(tool_name="t", args={})
    assert d.action == "block" and d.source == "policy"
    assert "policy" in d.message and "ValueError" in d.message


def test_fail_closed_events_from_config(tmp_path):
    hooks = Hooks(home=tmp_path, config={"fail_closed_events": ["UserPromptSubmit"]})

    def bad():
        raise RuntimeError("down")

    hooks.register(plugin(user_prompt_submit=bad, pre_tool_call=bad), "p")
    assert hooks.user_prompt_submit(user_message="x").action == "block"
    assert hooks.pre_tool_call(tool_name="t", args={}).action is None  # that event still fails open


def test_failed_hook_does_not_stop_transform(hooks):
    def bad(result):
        raise RuntimeError

    hooks.register(plugin(transform_tool_result=lambda result: result + "!"), "good")
    hooks.register(plugin(transform_tool_result=bad), "bad")
    assert hooks.transform_tool_result(result="r") == "r!"


# ---------------------------------------------------------------- async and threads


def test_async_native_impl_in_sync_and_async_api(hooks, recwarn):
    async def ctx(user_message):
        await asyncio.sleep(0.001)
        return f"async:{user_message}"

    hooks.register(plugin(pre_llm_call=ctx), "a")
    assert hooks.pre_llm_call(user_message="x") == "async:x"
    assert asyncio.run(hooks.acall("pre_llm_call", user_message="y")) == "async:y"
    assert not [w for w in recwarn if "never awaited" in str(w.message)]


def test_acall_leaves_the_loop_running_while_a_sync_hook_sleeps(hooks):
    import time

    def slow_sync():
        time.sleep(0.5)
        return "slow"

    hooks.register(plugin(pre_llm_call=slow_sync), "s")

    async def main():
        longest = 0.0

        async def ticker():
            nonlocal longest
            last = time.monotonic()
            while True:
                await asyncio.sleep(0.01)
                now = time.monotonic()
                longest = max(longest, now - last)
                last = now

        task = asyncio.create_task(ticker())
        await asyncio.sleep(0.02)
        text = await hooks.acall("pre_llm_call")
        await asyncio.sleep(0.05)  # the ticker wakes once more: a stall shows as a gap
        task.cancel()
        return text, longest

    text, longest_gap = asyncio.run(main())
    assert text == "slow"
    assert longest_gap < 0.2  # the hook slept 0.5 s; the loop went on meanwhile


def test_concurrent_calls_and_registrations(hooks):
    counter = {"n": 0}
    lock = threading.Lock()

    def count(tool_name):
        with lock:
            counter["n"] += 1
        return {"action": "block", "message": "counted"} if tool_name == "x" else None

    hooks.register(plugin(pre_tool_call=count), "counter")
    errors = []

    def caller():
        try:
            for _ in range(300):
                d = hooks.pre_tool_call(tool_name="x", args={})
                assert d.action == "block"
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def churn():
        for i in range(100):
            name = hooks.register(plugin(pre_tool_call=lambda: None), f"churn{i}")
            hooks.unregister(name)

    threads = [threading.Thread(target=caller) for _ in range(6)] + [threading.Thread(target=churn)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert counter["n"] == 1800


def test_emit_combines_command_decisions(hooks):
    async def deny(event_type, context):
        await asyncio.sleep(0)
        return (
            {"decision": "deny", "message": "owner only"} if event_type == "command:reset" else None
        )

    hooks.register(
        plugin(gateway_event=lambda: {"decision": "handled", "message": "done"}), "handler"
    )
    hooks.register(plugin(gateway_event=deny), "denier")
    d = asyncio.run(hooks.emit("command:reset", {"user_id": "1"}))
    assert (d.decision, d.message, d.source) == ("deny", "owner only", "denier")
    d = hooks.emit_sync("agent:start", {})
    assert d.decision == "handled"


def test_register_and_unregister_round_trip(hooks):
    name = hooks.register(SimpleNamespace(), "empty")
    assert name in hooks.records
    hooks.unregister(name)
    assert name not in hooks.records


def test_load_accepts_config_dict(tmp_path):
    hooks = hermes_hooks.load(
        tmp_path, {"fail_closed_events": ["pre_tool_call"]}, entry_points=False
    )
    assert hooks.config["fail_closed_events"] == ["pre_tool_call"]


def test_hook_wrappers_are_refused_with_a_clear_error(hooks):
    def wrapper():
        yield

    with pytest.raises(ValueError, match="hook wrappers are not supported"):
        hooks.register(plugin(pre_tool_call=(wrapper, {"wrapper": True})), "w")
    assert "w" not in hooks.records and not hooks.has_hook("pre_tool_call")


def test_python_transform_hooks_use_the_same_answer_dialects_as_shell_hooks(hooks):
    hooks.register(plugin(transform_tool_result=lambda result: {"result": result + "-dict"}), "d")
    hooks.register(
        plugin(
            transform_tool_result=lambda: {
                "hookSpecificOutput": {"updatedToolOutput": {"output": "cc"}}
            }
        ),
        "cc",
    )
    # call order: cc, then d (last registered runs first)
    assert hooks.transform_tool_result(result="r") == '{"output":"cc"}-dict'


def test_transform_messages_accepts_a_list(hooks):
    hooks.register(plugin(transform_messages=lambda messages: messages[1:]), "drop")
    assert hooks.transform_messages(messages=[{"n": 1}, {"n": 2}]) == [{"n": 2}]


def test_fail_closed_gateway_hook_denies(hooks):
    def bad(event_type):
        raise RuntimeError("policy store down")

    hooks.register(plugin(gateway_event=bad), "policy", fail_closed=True)
    d = hooks.emit_sync("command:reset", {})
    assert d.decision == "deny" and d.source == "policy" and "policy store down" in d.message


# ---------------------------------------------------------------- the fast path agrees


_WORDS = st.sampled_from(
    ["block", "approve", "allow", "deny", "ask", "modify", " ", "", "why", None, 3]
)


@given(
    st.one_of(
        st.dictionaries(st.sampled_from(["action", "message", "rule_key"]), _WORDS),
        st.dictionaries(st.sampled_from(["decision", "reason"]), _WORDS),
        st.builds(
            lambda spec: {"hookSpecificOutput": spec},
            st.dictionaries(
                st.sampled_from(
                    ["hookEventName", "permissionDecision", "permissionDecisionReason"]
                ),
                _WORDS,
            ),
        ),
    )
)
def test_plain_shapes_read_the_same_on_the_fast_path_and_the_general_one(raw):
    from types import MappingProxyType

    fast = _TOOL.normalise(raw, "h")  # a dict: may take the fast path
    general = _TOOL.normalise(MappingProxyType(raw), "h")  # not a dict: the general walk
    assert fast == general


def test_a_checked_decision_equals_a_built_one():
    from hermes_hooks.answers.results import ToolDecision

    fast = ToolDecision._checked("block", "m", None, None, None, "s")
    assert fast == ToolDecision(action="block", message="m", source="s")
    assert hash(fast) == hash(ToolDecision(action="block", message="m", source="s"))
    with pytest.raises(AttributeError):
        fast.action = "allow"  # type: ignore[misc]  # frozen, like any ToolDecision


_TEXTS = st.sampled_from([None, "", "m"])


@given(
    st.builds(
        ToolDecision,
        action=st.sampled_from(["block", "approve", "allow", None]),
        message=_TEXTS,
        args=st.sampled_from([None, {}, {"a": 1}]),
        rule_key=_TEXTS,
        context=_TEXTS,
        source=_TEXTS,
    )
)
def test_one_answer_combines_as_it_would_beside_a_no_opinion(decision):
    # combine() has a shortcut for a single answer; it must agree with the general rule
    assert _TOOL.combine([decision], {}) == _TOOL.combine([decision, ToolDecision()], {})
