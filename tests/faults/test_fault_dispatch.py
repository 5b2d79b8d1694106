"""Unusual exceptions from hooks stay with the hook: only ``KeyboardInterrupt`` and the host's
own cancellation of a whole call propagate. Time limits hold against hooks that swallow their
cancellation."""

from __future__ import annotations

import asyncio
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

import hermes_hooks
from hermes_hooks.hooks import Hooks
from tests.conftest import native_plugin


class Custom(BaseException):
    """An exception outside the Exception hierarchy, as some libraries define."""


def _blocker() -> Any:
    return native_plugin(pre_tool_call=lambda: {"action": "block", "message": "no"})


def _raiser(exc: BaseException, *, is_async: bool = False) -> Any:
    if is_async:

        async def hook() -> Any:
            raise exc

        return native_plugin(pre_tool_call=hook)

    def sync_hook() -> Any:
        raise exc

    return native_plugin(pre_tool_call=sync_hook)


ODD = [
    pytest.param(Custom("odd"), False, id="custom BaseException"),
    pytest.param(GeneratorExit(), False, id="GeneratorExit"),
    pytest.param(Custom("odd"), True, id="async custom BaseException"),
    pytest.param(asyncio.CancelledError(), True, id="async CancelledError"),
    pytest.param(GeneratorExit(), True, id="async GeneratorExit"),
]


@pytest.mark.parametrize(("exc", "is_async"), ODD)
def test_odd_exception_costs_only_its_hook(
    tmp_path: Path, exc: BaseException, is_async: bool
) -> None:
    hooks = Hooks(home=tmp_path)
    hooks.register(_raiser(exc, is_async=is_async), "odd")
    hooks.register(_blocker(), "guard")
    d = hooks.pre_tool_call(tool_name="t", args={})
    assert (d.action, d.message) == ("block", "no")


@pytest.mark.parametrize(("exc", "is_async"), ODD)
def test_odd_exception_in_async_api_costs_only_its_hook(
    tmp_path: Path, exc: BaseException, is_async: bool
) -> None:
    hooks = Hooks(home=tmp_path)
    hooks.register(_raiser(exc, is_async=is_async), "odd")
    hooks.register(_blocker(), "guard")
    d = asyncio.run(hooks.acall("pre_tool_call", tool_name="t", args={}))
    assert (d.action, d.message) == ("block", "no")


@pytest.mark.parametrize(("exc", "is_async"), ODD)
def test_odd_exception_from_a_fail_closed_hook_blocks(
    tmp_path: Path, exc: BaseException, is_async: bool
) -> None:
    hooks = Hooks(home=tmp_path)
    hooks.register(_raiser(exc, is_async=is_async), "odd", fail_closed=True)
    d = hooks.pre_tool_call(tool_name="t", args={})
    assert d.action == "block"
    assert "'odd'" in d.message


def test_odd_exception_from_an_observer_does_not_stop_the_others(tmp_path: Path) -> None:
    seen: list[str] = []

    def bad(**kwargs: Any) -> None:
        raise Custom("odd")

    hooks = Hooks(home=tmp_path)
    hooks.register(native_plugin(on_session_start=bad), "odd")
    hooks.register(native_plugin(on_session_start=lambda: seen.append("ran")), "fine")
    hooks.on_session_start(session_id="s")
    assert seen == ["ran"]


def test_keyboard_interrupt_propagates(tmp_path: Path) -> None:
    hooks = Hooks(home=tmp_path)
    hooks.register(_raiser(KeyboardInterrupt()), "ctrl-c")
    with pytest.raises(KeyboardInterrupt):
        hooks.pre_tool_call(tool_name="t", args={})


def test_host_cancelling_the_call_propagates(tmp_path: Path) -> None:
    async def slow() -> Any:
        await asyncio.sleep(30)

    hooks = Hooks(home=tmp_path)
    hooks.register(native_plugin(pre_tool_call=slow), "slow")

    async def main() -> None:
        task = asyncio.create_task(hooks.acall("pre_tool_call", tool_name="t", args={}))
        await asyncio.sleep(0.2)
        task.cancel()
        await task

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(main())


STUBBORN = """
import asyncio
async def {name}(*args, **kwargs):
    swallowed = 0
    for _ in range(40):
        try:
            await asyncio.sleep(0.5)
        except asyncio.CancelledError:
            swallowed += 1  # the first cancellation is swallowed: it keeps going
            if swallowed > 1:
                raise
"""


def test_async_hook_swallowing_cancellation_cannot_hold_the_call(tmp_path: Path) -> None:
    namespace: dict[str, Any] = {}
    exec(STUBBORN.format(name="hook"), namespace)  # noqa: S102 - the hook under test
    hooks = Hooks(home=tmp_path, config={"plugins": {"hook_callback_timeout": 0.5}})
    hooks.register(native_plugin(pre_tool_call=namespace["hook"]), "stubborn", fail_closed=True)
    start = time.monotonic()
    d = hooks.pre_tool_call(tool_name="t", args={})
    assert time.monotonic() - start < 5  # its own loop would run 20 s
    assert d.action == "block"


def test_gateway_handler_swallowing_cancellation_cannot_hold_emit(home: Path) -> None:
    d = home / "hooks" / "stubborn"
    d.mkdir(parents=True)
    (d / "HOOK.yaml").write_text("events: ['command:*']\ntimeout: 0.5\n")
    (d / "handler.py").write_text(textwrap.dedent(STUBBORN.format(name="handle")))
    hooks = hermes_hooks.load(home, {}, entry_points=False)

    async def main() -> float:
        start = time.monotonic()
        await hooks.emit("command:reset", {})
        return time.monotonic() - start

    assert asyncio.run(main()) < 5  # its own loop would run 20 s


def test_abandoned_gateway_threads_are_bounded(home: Path) -> None:
    import threading

    from hermes_hooks.builtin_plugins import gateway_hooks

    d = home / "hooks" / "stuck"
    d.mkdir(parents=True)
    (d / "HOOK.yaml").write_text("events: ['agent:step']\ntimeout: 0.05\n")
    (d / "handler.py").write_text("import time\ndef handle(e, c):\n    time.sleep(3)\n")
    hooks = hermes_hooks.load(home, {}, entry_points=False)
    # threads of an earlier test's hook also named "stuck" may still be sleeping: count ours only
    earlier = set(threading.enumerate())

    async def main() -> None:
        for _ in range(30):
            await hooks.emit("agent:step", {})

    asyncio.run(main())
    alive = [
        t for t in threading.enumerate() if t.name == "hermes-gateway:stuck" and t not in earlier
    ]
    assert 0 < len(alive) <= gateway_hooks.MAX_THREADS
