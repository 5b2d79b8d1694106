"""The plugin manager: pluggy's own API keeps the plan in step, rollback, companions, monitoring,
answer validation inside a hook's isolation, and fail_closed on every kind of event."""

from __future__ import annotations

import pluggy
import pytest

import hermes_hooks
from hermes_hooks import PromptDecision, ToolDecision, hookimpl
from hermes_hooks.answers.results import InvalidAnswer
from hermes_hooks.hooks import Hooks
from tests.conftest import native_plugin


@pytest.fixture
def hooks(tmp_path):
    return Hooks(home=tmp_path)


plugin = native_plugin


def block(message="no"):
    return lambda: {"action": "block", "message": message}


# ---------------------------------------------------------------- pluggy's API drives the plan


def test_registering_through_pluggys_api_is_dispatched(hooks):
    pm = hooks.manager
    assert isinstance(pm, pluggy.PluginManager)
    pm.register(plugin(pre_tool_call=block()), name="raw")
    assert hooks.has_hook("pre_tool_call")
    assert hooks.pre_tool_call(tool_name="t", args={}).action == "block"
    pm.unregister(name="raw")
    assert not hooks.has_hook("pre_tool_call")
    assert hooks.pre_tool_call(tool_name="t", args={}).action is None


def test_set_blocked_removes_the_hook_from_dispatch(hooks):
    hooks.register(plugin(pre_tool_call=block()), "guard")
    hooks.manager.set_blocked("guard")
    assert not hooks.has_hook("pre_tool_call")
    assert "guard" not in hooks.records
    assert hooks.manager.register(plugin(pre_tool_call=block()), name="guard") is None


def test_has_hook_accepts_the_aliases_call_accepts(hooks):
    hooks.register(plugin(pre_tool_call=block()), "guard")
    assert hooks.has_hook("PreToolUse") and hooks.has_hook("pre_tool_use")
    assert hooks.call("PreToolUse", tool_name="t").action == "block"


def test_rejected_plugin_leaves_nothing_registered(hooks):
    class Half:
        @hookimpl
        def pre_llm_call(self):
            return "context"

        @hookimpl
        def pre_tool_call(self, not_an_argument):
            return None

    half = Half()
    with pytest.raises(pluggy.PluginValidationError):
        hooks.register(half, "half")
    # Another registration rebuilds the plan from pluggy's state: nothing of Half may be there.
    hooks.register(plugin(pre_verify=lambda: None), "other")
    assert not hooks.has_hook("pre_llm_call")
    assert hooks.pre_llm_call(user_message="x") is None
    assert not hooks.manager.is_registered(half)
    assert not hooks.manager.hook.pre_llm_call.get_hookimpls()


def test_loader_rollback_on_rejection_keeps_no_hook(home, plugin_dir):
    plugin_dir(
        "half",
        """
        from hermes_hooks import hookimpl

        @hookimpl
        def pre_llm_call():
            return "from half"

        @hookimpl
        def pre_tool_call(bogus_argument):
            return None
        """,
    )
    hooks = hermes_hooks.load(home, {}, entry_points=False, builtins=False)
    assert hooks.records["half"].status == "failed"
    assert "rejected by the dispatcher" in hooks.records["half"].error
    assert not hooks.has_hook("pre_llm_call")


def test_unregister_removes_the_hookimpl_companion(home, plugin_dir):
    plugin_dir(
        "both",
        """
        from hermes_hooks import hookimpl

        def register(ctx):
            ctx.register_hook("pre_llm_call", lambda **kw: "from register")

        @hookimpl
        def pre_tool_call():
            return {"action": "block", "message": "from impl"}
        """,
    )
    hooks = hermes_hooks.load(home, {}, entry_points=False, builtins=False)
    assert hooks.pre_tool_call(tool_name="t", args={}).action == "block"
    assert hooks.pre_llm_call() == "from register"
    hooks.unregister("both")
    assert not hooks.has_hook("pre_tool_call")
    assert not hooks.has_hook("pre_llm_call")
    assert not [n for n in hooks.records if n.startswith("both")]


def test_hookcall_monitoring_sees_every_dispatch(hooks):
    seen = []
    hooks.register(plugin(pre_tool_call=block("m")), "guard")
    undo = hooks.manager.add_hookcall_monitoring(
        lambda name, impls, kwargs: seen.append(("before", name, len(impls))),
        lambda outcome, name, impls, kwargs: seen.append(("after", name, outcome.get_result())),
    )
    decision = hooks.pre_tool_call(tool_name="t", args={})
    assert seen == [("before", "pre_tool_call", 1), ("after", "pre_tool_call", decision)]
    undo()
    hooks.pre_tool_call(tool_name="t", args={})
    assert len(seen) == 2


def test_enable_tracing_traces_our_dispatch(hooks):
    lines = []
    hooks.register(plugin(pre_llm_call=lambda: "ctx"), "ctx")
    hooks.manager.trace.root.setwriter(lines.append)
    undo = hooks.manager.enable_tracing()
    hooks.pre_llm_call(user_message="x")
    undo()
    assert any("pre_llm_call" in line for line in lines)


# ---------------------------------------------------------------- answers inside the isolation


def test_typed_answer_with_unknown_action_is_refused_at_construction():
    with pytest.raises(InvalidAnswer, match="action must be one of"):
        ToolDecision(action="deny")  # type: ignore[arg-type]
    with pytest.raises(InvalidAnswer, match="args must be a mapping"):
        ToolDecision(action="allow", args=["x"])  # type: ignore[arg-type]
    with pytest.raises(InvalidAnswer):
        PromptDecision(action="allow")  # type: ignore[arg-type]


def test_a_bad_typed_answer_costs_only_its_own_hook(hooks):
    hooks.register(plugin(pre_tool_call=lambda: ToolDecision(action="deny")), "bad")
    hooks.register(plugin(pre_tool_call=block("the guard")), "guard")
    decision = hooks.pre_tool_call(tool_name="t", args={})
    assert decision.action == "block" and decision.message == "the guard"
    assert hooks.failures[("bad", "pre_tool_call")] == 1


def test_an_answer_that_breaks_its_reader_costs_only_its_own_hook(hooks):
    class Hostile(dict):
        def get(self, *a, **k):
            raise RuntimeError("boom")

    hooks.register(plugin(pre_tool_call=lambda: Hostile(action="block")), "hostile")
    hooks.register(plugin(pre_tool_call=block("kept")), "guard")
    assert hooks.pre_tool_call(tool_name="t", args={}).message == "kept"
    assert hooks.failures[("hostile", "pre_tool_call")] == 1


# ---------------------------------------------------------------- fail_closed on every kind


def boom(**kwargs):
    raise RuntimeError("hook broke")


@pytest.mark.parametrize(
    ("event", "kwargs", "check"),
    [
        ("pre_tool_call", {"tool_name": "t"}, lambda r: r.action == "block" and "bad" in r.message),
        ("user_prompt_submit", {"user_message": "hi"}, lambda r: r.action == "block"),
        ("post_tool_call", {"tool_name": "t", "result": "ok"}, lambda r: "bad" in r),
        ("permission_request", {"tool_name": "t"}, lambda r: r.action == "deny"),
        ("pre_verify", {}, lambda r: r.action == "continue" and "bad" in r.message),
        ("pre_compress", {}, lambda r: r.action == "block"),
        ("pre_gateway_dispatch", {}, lambda r: r.action == "skip"),
        ("transform_tool_result", {"result": "SECRET"}, lambda r: "SECRET" not in r and "bad" in r),
        (
            "transform_messages",
            {"messages": [{"role": "user", "content": "SECRET"}]},
            lambda r: "SECRET" not in str(r) and isinstance(r, list),
        ),
        ("pre_llm_call", {"user_message": "x"}, lambda r: r is None),
        ("post_llm_call", {}, lambda r: r is None),
    ],
)
def test_fail_closed_python_hook_gives_the_events_failed_form(hooks, event, kwargs, check):
    hooks.register(plugin(**{event: boom}), "bad", fail_closed=True)
    assert check(hooks.call(event, **kwargs))


def test_fail_closed_transform_withholds_the_value_from_later_hooks_too(hooks):
    seen = []
    hooks.register(
        plugin(transform_tool_result=(boom, {"tryfirst": True})), "redact", fail_closed=True
    )
    hooks.register(plugin(transform_tool_result=lambda result: seen.append(result)), "later")
    out = hooks.transform_tool_result(result="API_KEY=sk-123")
    assert "sk-123" not in out and "sk-123" not in seen[0]
    assert "redact" in out


def test_fail_open_transform_passes_the_value_on(hooks):
    hooks.register(plugin(transform_tool_result=boom), "redact")
    assert hooks.transform_tool_result(result="value") == "value"


# ---------------------------------------------------------------- prompt decisions


def test_prompt_decision_source_is_the_first_decider_not_a_later_rewriter(hooks):
    hooks.register(
        plugin(user_prompt_submit=(lambda: {"text": "rewritten"}, {"tryfirst": True})), "a"
    )
    hooks.register(plugin(user_prompt_submit=lambda: {"text": "again"}), "b")
    d = hooks.user_prompt_submit(user_message="original")
    assert d.text == "again" and d.source == "a"


def test_prompt_block_source_is_the_blocker(hooks):
    hooks.register(plugin(user_prompt_submit=(lambda: {"text": "x"}, {"tryfirst": True})), "a")
    hooks.register(plugin(user_prompt_submit=block("stop")), "b")
    d = hooks.user_prompt_submit(user_message="original")
    assert d.blocked and d.source == "b"


# ---------------------------------------------------------------- live registration


def test_register_hook_and_tool_after_loading_are_live(home, plugin_dir):
    plugin_dir(
        "late",
        """
        CTX = []

        def register(ctx):
            CTX.append(ctx)
        """,
    )
    hooks = hermes_hooks.load(home, {}, entry_points=False, builtins=False)
    import hermes_plugins.late as late

    ctx = late.CTX[0]
    assert not hooks.has_hook("pre_tool_call")
    ctx.register_hook("pre_tool_call", lambda **kw: {"action": "block", "message": "late"})
    ctx.register_tool("late_tool", "misc", {"name": "late_tool"}, lambda args: "ok")
    ctx.register_command("late", lambda raw: "hi")
    assert hooks.pre_tool_call(tool_name="t", args={}).message == "late"
    assert hooks.tools["late_tool"].plugin == "late"
    assert "late" in hooks.commands
    rows = [r for r in hooks.rows() if r["event"] == "pre_tool_call"]
    assert [r["name"] for r in rows] == ["late"]
    hooks.unregister("late")
    assert "late_tool" not in hooks.tools and not hooks.has_hook("pre_tool_call")


def test_refused_hookimpl_companion_takes_the_register_hooks_with_it(home, plugin_dir):
    plugin_dir(
        "mixed",
        """
        from hermes_hooks import hookimpl

        def register(ctx):
            ctx.register_hook("pre_llm_call", lambda **kw: "from register")
            ctx.register_tool("mixed_tool", "misc", {}, lambda args: "ok")

        @hookimpl
        def pre_tool_call(no_such_argument):
            return None
        """,
    )
    hooks = hermes_hooks.load(home, {}, entry_points=False, builtins=False)
    assert hooks.records["mixed"].status == "failed"
    assert not hooks.has_hook("pre_llm_call")
    assert "mixed_tool" not in hooks.tools


# ---------------------------------------------------------------- ignored answers are reported


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        ({"action": "deny", "message": "x"}, "did you mean 'block'"),
        ({"action": "Block", "message": "x"}, "did you mean 'block'"),
        ({"action": "block"}, "needs a non-empty string message"),
        ({"decision": "deny", "reason": "r"}, "did you mean 'block'"),
        ({"action": "modify", "args": "x"}, "'modify' needs 'args'"),
        ("block", "a str is not an answer here"),
        ({"blok": True}, "none of its keys ('blok')"),
    ],
)
def test_an_ignored_tool_answer_is_reported_once_with_what_would_be_accepted(
    hooks, caplog, answer, says
):
    hooks.register(plugin(pre_tool_call=lambda: answer), "guard")
    for _ in range(3):
        assert hooks.pre_tool_call(tool_name="t", args={}).action is None
    warnings = [r.getMessage() for r in caplog.records if "was ignored" in r.getMessage()]
    assert len(warnings) == 1, warnings
    assert "'guard'" in warnings[0] and "pre_tool_call" in warnings[0] and says in warnings[0]
    assert hooks.dropped[("guard", "pre_tool_call")] == 3


@pytest.mark.parametrize("answer", [{}, {"continue": True}, None, {"suppressOutput": True}])
def test_a_plain_no_opinion_is_not_reported(hooks, caplog, answer):
    hooks.register(plugin(pre_tool_call=lambda: answer), "quiet")
    hooks.pre_tool_call(tool_name="t", args={})
    assert not [r for r in caplog.records if "was ignored" in r.getMessage()]
    assert hooks.dropped[("quiet", "pre_tool_call")] == 0


@pytest.mark.parametrize(
    ("event", "kwargs", "answer", "says"),
    [
        ("transform_tool_result", {"result": "r"}, 42, "not accepted"),
        ("pre_verify", {}, {"action": "continue"}, "needs a non-empty 'message'"),
        ("pre_gateway_dispatch", {}, {"action": "drop"}, "did you mean 'skip'"),
        ("permission_request", {}, {"action": "permit"}, "did you mean 'allow'"),
        ("user_prompt_submit", {"user_message": "u"}, {"action": "deny"}, "did you mean 'block'"),
        ("pre_llm_call", {}, ["a list"], "a list is not an answer here"),
        ("gateway_event", {"event_type": "command:x"}, {"decision": "refuse"}, "'deny'"),
    ],
)
def test_ignored_answers_of_every_kind_are_reported(hooks, caplog, event, kwargs, answer, says):
    hooks.register(plugin(**{event: lambda: answer}), "h")
    hooks.call(event, **kwargs)
    warnings = [r.getMessage() for r in caplog.records if "was ignored" in r.getMessage()]
    assert len(warnings) == 1 and says in warnings[0], warnings


def test_hermes_callbacks_on_post_tool_call_are_ignored_silently_as_in_hermes(hooks, caplog):
    from hermes_hooks.context import PluginContext

    ctx = PluginContext(hooks, "hermes-style")
    ctx.register_hook("post_tool_call", lambda **kw: {"anything": 1})
    ctx.commit(source="python")
    assert hooks.post_tool_call(tool_name="t", result="r") is None
    assert not [r for r in caplog.records if "was ignored" in r.getMessage()]


# ---------------------------------------------------------------- time limits and the watchdog


def test_a_sync_hook_past_its_limit_is_abandoned_and_reported_with_its_stack(
    home, plugin_dir, caplog
):
    plugin_dir(
        "sleepy",
        """
        import threading
        RELEASE = threading.Event()
        from hermes_hooks import hookimpl

        @hookimpl
        def pre_tool_call():
            RELEASE.wait(30)
            return {"action": "block", "message": "too late"}
        """,
        manifest="name: sleepy\ntimeout: 0.3\n",
    )
    plugin_dir(
        "guard",
        "from hermes_hooks import hookimpl\n\n@hookimpl\ndef pre_tool_call():\n    return {'action': 'allow'}\n",
    )
    hooks = hermes_hooks.load(home, {}, entry_points=False, builtins=False)
    import hermes_plugins.sleepy as sleepy

    try:
        decision = hooks.pre_tool_call(tool_name="t", args={})
    finally:
        sleepy.RELEASE.set()
    assert decision.action == "allow"  # the other hook's answer is kept
    assert hooks.failures[("sleepy", "pre_tool_call")] == 1
    message = next(r.getMessage() for r in caplog.records if "sleepy" in r.getMessage())
    assert "no answer within 0.3s" in message and "RELEASE.wait" in message


def test_a_fail_closed_hook_past_its_limit_blocks(home, plugin_dir):
    plugin_dir(
        "guard",
        """
        import time
        from hermes_hooks import hookimpl

        @hookimpl
        def pre_tool_call():
            time.sleep(2)
        """,
        manifest="name: guard\ntimeout: 0.2\nfail_closed: true\n",
    )
    hooks = hermes_hooks.load(home, {}, entry_points=False, builtins=False)
    decision = hooks.pre_tool_call(tool_name="t", args={})
    assert decision.action == "block" and "guard" in decision.message


def test_hook_callback_timeout_applies_to_every_in_process_hook_and_cancels_async_ones(home):
    cancelled = []

    class Slow:
        @hookimpl
        async def pre_llm_call(self):
            import asyncio

            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                cancelled.append(True)
                raise

    hooks = hermes_hooks.load(
        home, {"plugins": {"hook_callback_timeout": 0.2}}, entry_points=False, builtins=False
    )
    hooks.register(Slow(), "slow")
    assert hooks.pre_llm_call(user_message="x") is None
    assert cancelled == [True]
    assert hooks.failures[("slow", "pre_llm_call")] == 1


def test_limited_calls_reuse_idle_workers_and_never_queue_behind_a_stuck_one(hooks):
    import threading

    release = threading.Event()
    seen: list[threading.Thread] = []
    names: set[str] = set()

    class Limited:
        @hookimpl
        def pre_llm_call(self, user_message):
            seen.append(threading.current_thread())
            names.add(threading.current_thread().name)
            if user_message == "hang":
                release.wait(10)
            return user_message

    # a limit no hand-over comes near on a loaded machine (0.2 s could abandon a healthy call);
    # the "hang" call below waits for it once
    hooks.register(Limited(), "limited", timeout=2.0)
    for _ in range(50):
        assert hooks.pre_llm_call(user_message="ok") == "ok"
    # 50 limited calls, one worker: a hand-over each, not a thread started each
    assert len(set(seen)) == 1 and names == {"hermes-hook:limited"}
    try:
        assert hooks.pre_llm_call(user_message="hang") is None  # abandoned at the limit
        # the stuck worker is busy: the next call gets another one and answers in time
        assert hooks.pre_llm_call(user_message="after") == "after"
        assert seen[-1] is not seen[-2]
    finally:
        release.set()
    assert hooks.failures[("limited", "pre_llm_call")] == 1


def test_the_watchdog_reports_a_hook_stuck_without_a_limit(home, caplog):
    import threading

    release = threading.Event()

    class Stuck:
        @hookimpl
        def pre_llm_call(self):
            release.wait(10)
            return "late but fine"

    hooks = hermes_hooks.load(
        home, {"plugins": {"hook_watchdog_seconds": 0.3}}, entry_points=False, builtins=False
    )
    hooks.register(Stuck(), "stuck")
    worker = threading.Thread(target=lambda: hooks.pre_llm_call(user_message="x"))
    worker.start()
    try:
        for _ in range(100):
            if hooks.watchdog.reports:
                break
            release.wait(0.05)
    finally:
        release.set()
        worker.join(5)
        hooks.close()
    name, seconds, stack = hooks.watchdog.reports[0]
    assert name == "stuck" and seconds >= 0.3 and "release.wait" in stack
    assert any("has been running for" in r.getMessage() for r in caplog.records)


def test_no_limit_keeps_the_fast_path(hooks):
    hooks.register(plugin(pre_tool_call=lambda tool_name: None), "fast")
    (impl,) = hooks.manager.plan("pre_tool_call")
    assert impl.simple and impl.timeout is None


# ---------------------------------------------------------------- the typed host API


def test_typed_helper_refuses_a_missing_required_argument_naming_the_near_miss(hooks):
    hooks.register(plugin(pre_tool_call=block("no")), "guard")
    with pytest.raises(TypeError) as err:
        hooks.pre_tool_call(tool="terminal", arguments={"command": "rm -rf /"})
    assert "missing required argument 'tool_name'" in str(err.value)
    assert "you passed 'tool'" in str(err.value)


def test_transform_without_its_value_raises(hooks):
    with pytest.raises(TypeError, match="missing required argument 'result'"):
        hooks.transform_tool_result(tool_name="terminal")


def test_extra_keywords_still_reach_the_hooks(hooks):
    seen = {}

    def impl(**kwargs):
        seen.update(kwargs)

    hooks.register(plugin(pre_tool_call=impl), "spy")
    hooks.pre_tool_call(tool_name="t", args={}, telemetry_schema_version=2, brand_new="x")
    assert seen == {"tool_name": "t", "args": {}, "telemetry_schema_version": 2, "brand_new": "x"}


def test_helpers_carry_the_specs_signature_at_run_time(hooks):
    import inspect

    from hermes_hooks import catalogue

    for name, info in catalogue.events().items():
        params = inspect.signature(getattr(hooks, name)).parameters
        assert list(params)[: len(info.required)] == list(info.required), name
        assert set(info.args) <= set(params), name
        assert all(params[n].default is inspect.Parameter.empty for n in info.required), name


def test_the_typed_stub_is_generated_from_the_specs():
    from pathlib import Path

    from hermes_hooks import typedgen

    stub = Path(typedgen.__file__).with_name("typed.pyi")
    assert stub.read_text() == typedgen.render(), (
        "run: python -m hermes_hooks.typedgen hermes_hooks/typed.pyi"
    )


# ---------------------------------------------------------------- traces and receipts


def test_trace_env_prints_one_line_per_hook_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HERMES_HOOKS_TRACE", "1")
    hooks = Hooks(home=tmp_path)
    hooks.register(plugin(pre_tool_call=block("nope")), "guard", source="directory")
    hooks.register(plugin(pre_tool_call=lambda: {"action": "deny"}), "typo")
    hooks.pre_tool_call(tool_name="terminal", args={})
    lines = [
        line for line in capsys.readouterr().err.splitlines() if line.startswith("[hermes-hooks]")
    ]
    assert len(lines) == 2
    guard = next(x for x in lines if "pre_tool_call guard (directory)" in x)
    typo = next(x for x in lines if "pre_tool_call typo (python)" in x)
    assert "answered" in guard and "nope" in guard
    assert "dropped" in typo and "'block'" in typo


def test_trace_file_writes_receipts_without_payloads_unless_asked(tmp_path):
    import json

    trace = tmp_path / "trace.jsonl"
    for payloads in (False, True):
        trace.unlink(missing_ok=True)
        hooks = Hooks(home=tmp_path, config={"trace_file": str(trace), "trace_payloads": payloads})
        hooks.register(plugin(pre_tool_call=block("nope")), "guard")
        hooks.register(plugin(pre_tool_call=boom), "broken")
        hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, session_id="s1")
        receipts = [json.loads(line) for line in trace.read_text().splitlines()]
        by_hook = {r["hook"]: r for r in receipts}
        assert set(by_hook) == {"guard", "broken"}
        assert by_hook["guard"]["decision"]["action"] == "block"
        assert by_hook["guard"]["session_id"] == "s1" and by_hook["guard"]["ms"] >= 0
        assert (
            by_hook["broken"]["outcome"] == "failed" and "hook broke" in by_hook["broken"]["error"]
        )
        assert ("payload" in by_hook["guard"]) is payloads


def test_opentelemetry_gets_a_span_per_event_and_per_hook(tmp_path, otel_spans):
    exporter = otel_spans
    hooks = Hooks(home=tmp_path, config={"otel": True})
    hooks.register(plugin(pre_tool_call=block("nope")), "guard")
    hooks.pre_tool_call(tool_name="terminal", args={}, session_id="s1")
    spans = {s.name: s for s in exporter.get_finished_spans()}
    event, hook = spans["hermes_hooks pre_tool_call"], spans["hermes_hooks hook guard"]
    assert hook.parent.span_id == event.context.span_id
    assert hook.attributes["hermes.decision.action"] == "block"
    assert event.attributes["hermes.result.action"] == "block"
    assert event.attributes["hermes.session_id"] == "s1"


def test_tracing_off_keeps_no_tracer(tmp_path, monkeypatch):
    monkeypatch.delenv("HERMES_HOOKS_TRACE", raising=False)
    monkeypatch.delenv("HERMES_HOOKS_OTEL", raising=False)
    assert Hooks(home=tmp_path).tracer is None


def test_registrations_inside_deferred_take_effect_at_its_end():
    from hermes_hooks.manager import HookManager

    class Guard:
        @hookimpl
        def pre_tool_call(self, tool_name):
            return {"action": "block", "message": "no"}

    hooks = Hooks()
    manager = hooks.manager
    assert isinstance(manager, HookManager)
    with manager.deferred():
        manager.register(Guard(), "guard")
        assert not manager.has_hook("pre_tool_call")  # the old plan, whole, until the end
        with manager.deferred():  # nested blocks rebuild once, at the outer end
            pass
        assert not manager.has_hook("pre_tool_call")
    assert manager.has_hook("pre_tool_call")
    assert hooks.pre_tool_call(tool_name="terminal", args={}).blocked


# ---------------------------------------------------------------- pluggy's queries tell the truth


def test_is_blocked_for_a_plugin_the_config_disabled(home, fake_site):
    (home / "config.yaml").write_text("plugins:\n  disabled: [fakenative]\n")
    loaded = hermes_hooks.load(home, builtins=False)
    assert loaded.records["fakenative"].status == "disabled"
    # was False: pluggy only knew names blocked with set_blocked
    assert loaded.manager.is_blocked("fakenative") is True
    assert loaded.manager.is_blocked("fakehermes") is False  # loaded
    assert loaded.manager.is_blocked("nobody") is False
    # and registering the name is refused, as for a set_blocked name
    assert loaded.manager.register(plugin(pre_llm_call=lambda: "x"), "fakenative") is None
    with pytest.raises(ValueError, match="blocked"):
        loaded.register(plugin(pre_llm_call=lambda: "x"), "fakenative")


def test_set_blocked_is_still_pluggys(hooks):
    hooks.register(plugin(pre_llm_call=lambda: "x"), "mine")
    hooks.manager.set_blocked("mine")
    assert hooks.manager.is_blocked("mine") and "mine" not in hooks.records
    assert hooks.manager.unblock("mine") and not hooks.manager.is_blocked("mine")


def test_list_plugin_distinfo_for_entry_point_plugins(home, fake_site):
    loaded = hermes_hooks.load(home, builtins=False)
    assert loaded.records["fakenative"].status == "active"
    assert loaded.records["fakehermes"].status == "active"
    # was []: only pluggy's own load_setuptools_entrypoints filled it, not our loader
    manager = loaded.manager
    by_name = {manager.get_name(p): d for p, d in manager.list_plugin_distributions()}
    assert {n: d.metadata["Name"] for n, d in by_name.items()} == {
        "fakenative": "fake-native-plugin",
        "fakehermes": "fake-hermes-plugin",
    }
    facades = {manager.get_name(p): d for p, d in manager.list_plugin_distinfo()}
    assert facades["fakenative"].project_name == "fake-native-plugin"
    assert facades["fakenative"].version == "2.0"
    loaded.unregister("fakenative")
    assert [manager.get_name(p) for p, _ in manager.list_plugin_distinfo()] == ["fakehermes"]


def test_plugins_that_are_not_entry_points_have_no_distribution(hooks):
    hooks.register(plugin(pre_llm_call=lambda: "x"), "mine")
    assert hooks.manager.list_plugin_distinfo() == []
