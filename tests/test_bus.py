"""The extension bus: ``ctx.events.on(name, cb)`` / ``ctx.events.emit(name, payload)``."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys

import pytest

import hermes_hooks
from hermes_hooks.bus import EventBus
from hermes_hooks.context import PluginContext

pytest_plugins = ["hermes_hooks.testing"]


def commit(ctx: PluginContext) -> None:
    ctx.commit(source="python")


@pytest.fixture
def bus() -> EventBus:
    return EventBus()


def test_listeners_run_in_subscription_order(bus):
    for tag in ("first", "second", "third"):
        bus.on("memory:saved", lambda p, tag=tag: f"{tag}:{p}")
    assert bus.emit("memory:saved", 1) == ["first:1", "second:1", "third:1"]


def test_none_results_are_left_out_and_other_names_are_not_called(bus):
    bus.on("a", lambda p: None)
    bus.on("a", lambda p: p * 2)
    bus.on("b", lambda p: "wrong name")
    assert bus.emit("a", 21) == [42]
    assert bus.emit("nobody-listens") == []


@pytest.mark.parametrize("exc", [RuntimeError("boom"), SystemExit(3), KeyError("k")])
def test_a_failing_listener_is_isolated_logged_and_counted(bus, caplog, exc):
    def bad(payload):
        raise exc

    bus.on("x", lambda p: "before")
    bus.on("x", bad, owner="flaky-plugin")
    bus.on("x", lambda p: "after")
    assert bus.emit("x") == ["before", "after"]
    message = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(message) == 1
    assert (
        "'flaky-plugin'" in message[0] and "'x'" in message[0] and type(exc).__name__ in message[0]
    )
    assert bus.failures[("flaky-plugin", "x")] == 1


def test_async_listener_is_run_to_completion_by_emit(bus):
    async def slow(payload):
        await asyncio.sleep(0.01)
        return f"async {payload}"

    bus.on("x", slow)
    bus.on("x", lambda p: f"sync {p}")
    assert bus.emit("x", 7) == ["async 7", "sync 7"]


def test_async_listeners_are_awaited_in_order_by_aemit(bus):
    order: list[str] = []

    async def first(p):
        await asyncio.sleep(0.05)
        order.append("first")
        return 1

    async def second(p):
        order.append("second")
        return 2

    bus.on("x", first)
    bus.on("x", second)
    assert asyncio.run(bus.aemit("x")) == [1, 2]
    assert order == ["first", "second"]


def test_failing_async_listener_is_isolated_in_aemit(bus, caplog):
    async def bad(p):
        raise ValueError("nope")

    bus.on("x", bad, owner="p")
    bus.on("x", lambda p: "ok")
    assert asyncio.run(bus.aemit("x")) == ["ok"]
    assert bus.failures[("p", "x")] == 1


def test_emit_from_inside_a_running_loop_runs_async_listeners(bus):
    async def listener(p):
        return "done"

    bus.on("x", listener)

    async def host():
        return bus.emit("x")  # the sync API, used from async code

    assert asyncio.run(host()) == ["done"]


def test_off_and_drop(bus):
    def keep(p):
        return "keep"

    def gone(p):
        return "gone"

    bus.on("x", keep, owner="a")
    bus.on("x", gone, owner="b")
    bus.off("x", gone)
    assert bus.emit("x") == ["keep"]
    bus.drop("a")
    assert bus.emit("x") == []


def test_a_listener_must_be_callable(bus, hermes_hooks_manager):
    with pytest.raises(TypeError, match="not callable"):
        bus.on("x", "not a function")  # type: ignore[arg-type]
    ctx = PluginContext(hermes_hooks_manager, "p")
    with pytest.raises(TypeError, match="not callable"):
        ctx.events.on("x", None)  # type: ignore[arg-type]


@pytest.fixture
def hermes_hooks_manager(tmp_path):
    return hermes_hooks.Hooks(home=tmp_path)


# ---------------------------------------------------------------------- through plugins


def test_plugins_talk_through_ctx_events(hermes_hooks_manager):
    hooks = hermes_hooks_manager
    listener = PluginContext(hooks, "memory")
    saved: list[object] = []
    listener.events.on("memory:saved", saved.append)
    commit(listener)
    speaker = PluginContext(hooks, "notes")
    commit(speaker)
    speaker.events.emit("memory:saved", {"id": 1})
    assert saved == [{"id": 1}]


def test_subscriptions_wait_for_a_successful_register(home, plugin_dir):
    plugin_dir(
        "broken",
        """
        def register(ctx):
            ctx.events.on("x", lambda p: "from broken")
            raise RuntimeError("half-way")
        """,
    )
    hooks = hermes_hooks.load(home, {}, entry_points=False)
    assert hooks.records["broken"].status == "failed"
    assert hooks.bus.emit("x") == []


def test_plugins_receive_messages_in_discovery_order(home, plugin_dir):
    # pluggy wants plugins registered in reverse; the bus still delivers in discovery order.
    for name in ("charlie", "alpha", "bravo"):
        plugin_dir(
            name,
            f"""
            def register(ctx):
                ctx.events.on("hello", lambda p: {name!r} + "-1")
                ctx.events.on("hello", lambda p: {name!r} + "-2")
            """,
        )
    hooks = hermes_hooks.load(home, {}, entry_points=False)
    hooks.bus.on("hello", lambda p: "host")
    assert hooks.bus.emit("hello") == [
        "alpha-1",
        "alpha-2",
        "bravo-1",
        "bravo-2",
        "charlie-1",
        "charlie-2",
        "host",
    ]


def test_subscribing_after_loading_takes_effect_at_once(home, plugin_dir):
    plugin_dir(
        "lazy",
        """
        def register(ctx):
            def later(**kw):
                ctx.events.on("late", lambda p: "subscribed at run time")
            ctx.register_hook("on_session_start", later)
        """,
    )
    hooks = hermes_hooks.load(home, {}, entry_points=False)
    assert hooks.bus.emit("late") == []
    hooks.on_session_start(session_id="s1")
    assert hooks.bus.emit("late") == ["subscribed at run time"]
    hooks.unregister("lazy")
    assert hooks.bus.emit("late") == []


def test_unregistering_a_plugin_drops_its_listeners(hermes_hooks_manager):
    hooks = hermes_hooks_manager
    ctx = PluginContext(hooks, "p")
    ctx.events.on("x", lambda p: "p")
    commit(ctx)
    hooks.bus.on("x", lambda p: "host")
    hooks.unregister("p")
    assert hooks.bus.emit("x") == ["host"]


def test_testing_fixture_registers_and_cleans_up_listeners(hermes_hooks, register_hermes_plugin):
    register_hermes_plugin(lambda ctx: ctx.events.on("ping", lambda p: "pong"), name="echo")
    assert hermes_hooks.bus.emit("ping") == ["pong"]


def test_a_hosts_subscription_comes_after_plugins_however_many_loaded_before(home, plugin_dir):
    # Plugin contexts and live subscriptions draw their places from one counter: with two,
    # a process that had created more plugin contexts than live subscriptions (earlier loads)
    # put the host's listener among the plugins', or first. A fresh interpreter, so what other
    # tests drew cannot hide it.
    for name in ("alpha", "bravo"):
        plugin_dir(name, f"def register(ctx):\n    ctx.events.on('hi', lambda p: {name!r})\n")
    script = (
        "import sys, hermes_hooks\n"
        "for _ in range(5):\n"
        "    hermes_hooks.load(sys.argv[1], {}, entry_points=False).close()\n"
        "hooks = hermes_hooks.load(sys.argv[1], {}, entry_points=False)\n"
        "hooks.bus.on('hi', lambda p: 'host')\n"
        "print(hooks.bus.emit('hi'))\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(home)], capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['alpha', 'bravo', 'host']"
