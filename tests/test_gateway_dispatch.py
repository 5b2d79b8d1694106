"""Gateway hooks at run time: matching, sync and async handlers, concurrency, timeouts, failures,
and command decisions, through ``hooks.emit`` / ``hooks.emit_sync``."""

from __future__ import annotations

import asyncio
import json
import logging
import textwrap
import time
from pathlib import Path

import pytest
from hermes_hooks.builtin_plugins.gateway_hooks.manifest import matches

import hermes_hooks
from hermes_hooks import CommandDecision, hookimpl


def write_hook(home: Path, dirname: str, events: str, handler: str, extra: str = "") -> Path:
    d = home / "hooks" / dirname
    d.mkdir(parents=True)
    (d / "HOOK.yaml").write_text(f"events: {events}\n{extra}")
    (d / "handler.py").write_text(textwrap.dedent(handler))
    return d


def load(home: Path) -> hermes_hooks.Hooks:
    return hermes_hooks.load(home, {}, entry_points=False)


# A handler that appends one JSON line per call to the file named in the context.
RECORDER = """
import json, time
def handle(event_type, context):
    with open(context["log"], "a") as f:
        f.write(json.dumps([{name!r}, event_type]) + "\\n")
"""


def calls(log: Path) -> list[list[str]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


# ---------------------------------------------------------------------- matching


@pytest.mark.parametrize(
    ("pattern", "event", "expected"),
    [
        ("agent:start", "agent:start", True),
        ("agent:start", "agent:end", False),
        ("agent:start", "agent:start:extra", False),
        ("agent:*", "agent:step", True),
        ("agent:*", "agent:", True),
        ("agent:*", "agent", False),
        ("agent:*", "agents:start", False),
        ("command:*", "command:reset", True),
        ("command:*", "session:start", False),
        ("command:reset", "command:resets", False),
        ("*", "gateway:startup", True),
        ("*", "anything-at-all", True),
        ("agent", "agent:start", False),
    ],
)
def test_matching_rules(pattern, event, expected):
    assert matches(pattern, event) is expected


def test_exact_prefix_and_star_hooks_each_get_what_they_match(home, tmp_path):
    log = tmp_path / "calls.jsonl"
    write_hook(home, "exact", "['command:reset']", RECORDER.format(name="exact"))
    write_hook(home, "prefix", "['command:*']", RECORDER.format(name="prefix"))
    write_hook(home, "star", "['*']", RECORDER.format(name="star"))
    write_hook(home, "agent", "[agent:start, agent:end]", RECORDER.format(name="agent"))
    hooks = load(home)
    for event in ("command:reset", "command:model", "agent:start", "session:start"):
        hooks.emit_sync(event, {"log": str(log)})
    seen = sorted(map(tuple, calls(log)))
    assert seen == sorted(
        [
            ("exact", "command:reset"),
            ("prefix", "command:reset"),
            ("star", "command:reset"),
            ("prefix", "command:model"),
            ("star", "command:model"),
            ("agent", "agent:start"),
            ("star", "agent:start"),
            ("star", "session:start"),
        ]
    )


def test_a_hook_matching_twice_runs_once(home, tmp_path):
    log = tmp_path / "calls.jsonl"
    write_hook(home, "both", "['command:*', 'command:reset', '*']", RECORDER.format(name="both"))
    load(home).emit_sync("command:reset", {"log": str(log)})
    assert calls(log) == [["both", "command:reset"]]


# ---------------------------------------------------------------------- sync and async


def test_sync_handler_gets_event_and_context_in_a_worker_thread(home):
    write_hook(
        home,
        "sync",
        "['command:*']",
        """
        import asyncio, threading
        def handle(event_type, context):
            try:
                asyncio.get_running_loop()
                where = "on the loop"
            except RuntimeError:
                where = threading.current_thread().name
            return {"decision": "handled", "message": f"{event_type} {context['user_id']} {where}"}
        """,
    )
    decision = asyncio.run(load(home).emit("command:whoami", {"user_id": "42"}))
    assert decision.decision == "handled"
    assert decision.message == "command:whoami 42 hermes-gateway:sync"


def test_async_handler_is_awaited_on_the_loop(home):
    write_hook(
        home,
        "async",
        "['command:*']",
        """
        import asyncio
        async def handle(event_type, context):
            asyncio.get_running_loop()  # raises if not on a loop
            await asyncio.sleep(0.01)
            return {"decision": "deny", "message": "awaited"}
        """,
    )
    hooks = load(home)
    assert asyncio.run(hooks.emit("command:reset", {})).message == "awaited"
    assert hooks.emit_sync("command:reset", {}).message == "awaited"


def test_sync_handler_returning_a_coroutine_is_awaited(home):
    write_hook(
        home,
        "lazy",
        "['command:*']",
        """
        async def _answer():
            return {"decision": "handled", "message": "late"}
        def handle(event_type, context):
            return _answer()
        """,
    )
    assert load(home).emit_sync("command:x", {}).message == "late"


def test_slow_sync_handler_does_not_delay_an_async_one(home, tmp_path):
    log = tmp_path / "times.jsonl"
    write_hook(
        home,
        "a-slow-sync",
        "[agent:start]",
        """
        import json, time
        def handle(event_type, context):
            time.sleep(2)
            with open(context["log"], "a") as f:
                f.write(json.dumps(["sync", time.monotonic()]) + "\\n")
        """,
    )
    write_hook(
        home,
        "b-fast-async",
        "[agent:start]",
        """
        import asyncio, json, time
        async def handle(event_type, context):
            await asyncio.sleep(0.05)
            with open(context["log"], "a") as f:
                f.write(json.dumps(["async", time.monotonic()]) + "\\n")
        """,
    )
    hooks = load(home)

    async def main() -> tuple[float, list[float]]:
        ticks: list[float] = []

        async def ticker() -> None:
            while True:
                ticks.append(time.monotonic())
                await asyncio.sleep(0.05)

        tick_task = asyncio.create_task(ticker())
        start = time.monotonic()
        await hooks.emit("agent:start", {"log": str(log)})
        tick_task.cancel()
        return start, ticks

    start, ticks = asyncio.run(main())
    done = dict(calls(log))  # type: ignore[arg-type]
    assert done["async"] - start < 1.0, "the async handler waited for the sleeping sync one"
    assert done["sync"] - start >= 2.0
    # The loop kept running while the sync handler slept: ticks all along the 2 s.
    gaps = [b - a for a, b in zip(ticks, ticks[1:], strict=False)]
    assert len(ticks) > 20 and max(gaps) < 0.5


def test_handlers_of_one_event_run_concurrently(home, tmp_path):
    """Every handler has started before any has finished: they overlap (a sequential emit would
    interleave start/end). Checked by order, not by the clock, which a loaded machine skews."""
    log = tmp_path / "order.log"
    body = (
        "def handle(e, c):\n    mark('start')\n    time.sleep(0.5)\n    mark('end')\n",
        "async def handle(e, c):\n    mark('start')\n    await asyncio.sleep(0.5)\n    mark('end')\n",
    )
    for n, name in enumerate("abcde"):
        header = (
            "import asyncio, time\n"
            f"def mark(what):\n    with open({str(log)!r}, 'a') as f:\n        f.write(what + '\\n')\n"
        )
        write_hook(home, name, "[agent:end]", header + body[n >= 3])
    hooks = load(home)
    hooks.emit_sync("agent:end", {})
    assert log.read_text().split() == ["start"] * 5 + ["end"] * 5


# ---------------------------------------------------------------------- timeouts and failures


def test_stuck_async_handler_times_out_and_the_others_still_answer(home, caplog):
    write_hook(
        home,
        "a-stuck",
        "['command:*']",
        "import asyncio\nasync def handle(e, c):\n    await asyncio.sleep(60)\n",
        "timeout: 0.3\n",
    )
    write_hook(
        home,
        "b-ok",
        "['command:*']",
        "def handle(e, c):\n    return {'decision': 'handled', 'message': 'ok'}\n",
    )
    hooks = load(home)
    start = time.monotonic()
    decision = asyncio.run(hooks.emit("command:reset", {}))
    assert time.monotonic() - start < 2
    assert decision.message == "ok"
    warning = [r.getMessage() for r in caplog.records if "timed out" in r.getMessage()]
    assert len(warning) == 1
    assert (
        "gateway:a-stuck" in warning[0] and "command:reset" in warning[0] and "0.3s" in warning[0]
    )
    assert hooks.failures[("gateway:a-stuck", "gateway_event")] == 1


def test_stuck_sync_handler_times_out_without_holding_up_emit_sync(home, caplog):
    write_hook(
        home,
        "stuck",
        "[agent:start]",
        "import time\ndef handle(e, c):\n    time.sleep(5)\n",
        "timeout: 0.3\n",
    )
    hooks = load(home)
    start = time.monotonic()
    hooks.emit_sync("agent:start", {})
    assert time.monotonic() - start < 2  # the abandoned thread is not waited for
    assert any("timed out after 0.3s" in r.getMessage() for r in caplog.records)


def test_async_handler_swallowing_cancellation_does_not_hold_emit_sync(home, caplog):
    write_hook(
        home,
        "stubborn",
        "[agent:start]",
        "import asyncio\n"
        "async def handle(e, c):\n"
        "    for _ in range(3):\n"
        "        try:\n"
        "            await asyncio.sleep(30)\n"
        "        except asyncio.CancelledError:\n"
        "            pass\n",
        "timeout: 1\n",
    )
    hooks = load(home)
    start = time.monotonic()
    hooks.emit_sync("agent:start", {})
    assert time.monotonic() - start < 10  # unfixed: ~30 s (asyncio.run waits for it)
    messages = [r.getMessage() for r in caplog.records]
    assert any("timed out after 1s" in m for m in messages)
    assert any("ignored cancellation" in m for m in messages)


def test_default_timeout_is_30_seconds(home):
    write_hook(home, "t", "[agent:start]", "def handle(e, c):\n    pass\n")
    assert load(home).rows()[0]["timeout"] == 30.0


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        ("def handle(e, c):\n    raise ValueError('bad input')\n", "ValueError: bad input"),
        ("async def handle(e, c):\n    raise KeyError('gone')\n", "KeyError: 'gone'"),
        ("import sys\ndef handle(e, c):\n    sys.exit(4)\n", "SystemExit: 4"),
        ("import sys\nasync def handle(e, c):\n    sys.exit(5)\n", "SystemExit: 5"),
    ],
    ids=["sync-raise", "async-raise", "sync-exit", "async-exit"],
)
def test_failing_handler_is_logged_with_its_name_and_the_others_run(home, caplog, body, shown):
    write_hook(home, "a-bad", "['command:*']", body)
    write_hook(
        home,
        "b-good",
        "['command:*']",
        "def handle(e, c):\n    return {'decision': 'deny', 'message': 'no'}\n",
    )
    hooks = load(home)
    decision = hooks.emit_sync("command:stop", {})
    assert (decision.decision, decision.source) == ("deny", "gateway:b-good")
    failed = [
        r
        for r in caplog.records
        if r.levelno == logging.WARNING and "gateway:a-bad" in r.getMessage()
    ]
    assert len(failed) == 1
    assert shown in failed[0].getMessage() and "command:stop" in failed[0].getMessage()
    assert "handler.py" in failed[0].getMessage()


def test_fail_closed_hook_turns_a_failure_into_a_deny(home):
    write_hook(
        home,
        "strict",
        "['command:*']",
        "def handle(e, c):\n    raise RuntimeError('db down')\n",
        "fail_closed: true\n",
    )
    decision = load(home).emit_sync("command:reset", {})
    assert decision.decision == "deny"
    assert "gateway:strict" in decision.message and "db down" in decision.message


# ---------------------------------------------------------------------- command decisions


def answer(value: object) -> str:
    return f"def handle(e, c):\n    return {value!r}\n"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"decision": "deny", "message": "Not you."}, CommandDecision("deny", "Not you.")),
        (
            {"decision": "deny"},
            CommandDecision("deny", "Command /reset was blocked by gateway hook 'h'."),
        ),
        ({"decision": "handled", "message": "Done."}, CommandDecision("handled", "Done.")),
        (
            {"decision": "rewrite", "command_name": "/new", "raw_args": " now "},
            CommandDecision("rewrite", None, command_name="new", raw_args="now"),
        ),
        ({"decision": "rewrite"}, CommandDecision()),  # no command_name: ignored, as in Hermes
        ({"decision": "allow"}, CommandDecision()),
        ("just a string", CommandDecision()),
        (None, CommandDecision()),
    ],
)
def test_command_answers(home, value, expected):
    write_hook(home, "h", "['command:reset']", answer(value))
    decision = load(home).emit_sync("command:reset", {"command": "reset"})
    source = "gateway:h" if expected.decision else None
    assert decision == CommandDecision(
        expected.decision, expected.message, expected.command_name, expected.raw_args, source
    )


def test_deny_beats_an_earlier_handled_and_rewrite(home):
    write_hook(home, "a", "['command:*']", answer({"decision": "rewrite", "command_name": "help"}))
    write_hook(
        home, "b", "['command:*']", answer({"decision": "handled", "message": "handled by b"})
    )
    write_hook(home, "c", "['command:*']", answer({"decision": "deny", "message": "denied by c"}))
    decision = load(home).emit_sync("command:reset", {})
    assert (decision.decision, decision.message, decision.source) == (
        "deny",
        "denied by c",
        "gateway:c",
    )


def test_answers_of_non_command_events_are_ignored(home):
    write_hook(home, "h", "['*']", answer({"decision": "deny", "message": "no"}))
    hooks = load(home)
    assert hooks.emit_sync("agent:start", {}) == CommandDecision()
    assert hooks.emit_sync("command:reset", {}).decision == "deny"


def test_python_plugins_run_before_gateway_hooks(home):
    write_hook(home, "gw", "['command:*']", answer({"decision": "handled", "message": "gateway"}))
    hooks = load(home)

    class Native:
        @hookimpl
        def gateway_event(self, event_type):
            return {"decision": "handled", "message": "python"}

    hooks.register(Native(), "native")
    names = [r["name"] for r in hooks.rows(event="gateway_event")]
    assert names == ["native", "gateway:gw"]
    assert hooks.emit_sync("command:x", {}).message == "python"


def test_emit_sync_works_inside_a_running_loop(home):
    write_hook(home, "h", "['command:*']", answer({"decision": "handled", "message": "inside"}))
    hooks = load(home)

    async def host() -> CommandDecision:
        return hooks.emit_sync("command:x", {})  # a sync host API called from async code

    assert asyncio.run(host()).message == "inside"


def test_handlers_share_one_copy_of_the_context(home):
    write_hook(home, "h", "['command:*']", "def handle(e, c):\n    c['touched'] = True\n")
    context = {"user_id": "1"}
    load(home).emit_sync("command:x", context)
    assert context == {"user_id": "1"}  # the host's dict is never changed by a hook
