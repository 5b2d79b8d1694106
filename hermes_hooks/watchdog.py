"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Time limits for in-process hooks, and the watchdog that reports a hook stuck without one.

A hook with a limit (``plugins.hook_callback_timeout`` in config, ``timeout:`` in its
``plugin.yaml``) runs in a worker thread (an async one awaited there under :func:`within`);
past the limit the call goes on without its answer, and the hook is reported with the stack it
is stuck in. A hook without a limit runs inline, as fast as ever; the watchdog samples the threads' stacks
every few seconds from a thread of its own and reports a hook still inside one call after
``plugins.hook_watchdog_seconds`` (30 by default), so a hang is never silent. Nothing on the
dispatch path pays for the watchdog.
"""

from __future__ import annotations

import inspect
import logging
import queue
import sys
import threading
import time
import traceback
import weakref
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .manager import HookManager, Impl

log = logging.getLogger("hermes_hooks")

DEFAULT_WATCHDOG = 30.0
_CANCEL_GRACE = 0.5


class HookTimeout(Exception):
    """An in-process hook gave no answer within its time limit."""


def _stack_of(thread: threading.Thread) -> str:
    frame = sys._current_frames().get(thread.ident or -1)
    return "".join(traceback.format_stack(frame)) if frame is not None else "(no stack)"


class _Worker:
    """A thread that runs limited hook calls one at a time. Idle workers wait in
    :data:`_IDLE` so a limited call costs a hand-over, not a thread start; a worker whose call
    overran its limit is simply not there to take the next one until that call returns."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._loop, name="hermes-hook:idle", daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while True:
            job = self.jobs.get()
            job()  # never raises: run_limited's target keeps every exception in its box
            self.thread.name = "hermes-hook:idle"
            if len(_IDLE) >= _MAX_IDLE:
                return
            _IDLE.append(self)


_IDLE: list[_Worker] = []
_MAX_IDLE = 4


def _worker() -> _Worker:
    try:
        return _IDLE.pop()  # atomic in CPython: two callers never get the same worker
    except IndexError:
        return _Worker()


def run_limited(impl: Impl, call: Callable[[], Any], resolve: Callable[[Any], Any]) -> Any:
    """``call()`` (and await what it returns) within ``impl.timeout`` seconds, or raise
    :class:`HookTimeout` naming the hook and the stack it is stuck in."""

    limit = impl.timeout
    assert limit is not None
    box: dict[str, Any] = {}
    done = threading.Event()

    # Async hooks too run from a thread of their own: a coroutine that swallows its
    # cancellation would otherwise hold the caller (asyncio.wait_for waits for it to finish).
    def target() -> None:
        try:
            value = call()
            if value is not None and inspect.isawaitable(value):
                value = resolve(within(value, limit))
            box["value"] = value
        except BaseException as exc:  # handed to the dispatching thread
            box["error"] = exc
        finally:
            done.set()

    worker = _worker()
    worker.thread.name = f"hermes-hook:{impl.name}"
    worker.jobs.put(target)
    # An async hook is cancelled by within() at the limit; the grace lets that cancellation
    # land before the call moves on (a coroutine that swallows it is still not waited for).
    if not done.wait(limit + (_CANCEL_GRACE if impl.is_async else 0.0)):
        raise HookTimeout(
            f"no answer within {limit:g}s; the call was abandoned (its thread keeps running). "
            f"It is stuck in:\n{_stack_of(worker.thread)}"
        )
    if "error" in box:
        raise box["error"]
    return box.get("value")


async def within(awaitable: Any, limit: float) -> Any:
    """Await ``awaitable`` for at most ``limit`` seconds, then cancel it and raise
    :class:`asyncio.TimeoutError` *without* waiting for it to finish (``asyncio.wait_for`` waits,
    so a coroutine that swallows ``CancelledError`` would hold the caller)."""
    import asyncio

    task = asyncio.ensure_future(awaitable)
    try:
        done, _ = await asyncio.wait({task}, timeout=limit)
    except BaseException:
        task.cancel()  # the caller itself was cancelled: so is the hook
        raise
    if not done:
        task.cancel()
        raise asyncio.TimeoutError(f"no answer within {limit:g}s")
    return task.result()


class _Patrol:
    """The one thread, per process, that runs every live :class:`Watchdog`'s check."""

    def __init__(self) -> None:
        self.watchdogs: weakref.WeakSet[Watchdog] = weakref.WeakSet()
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.thread: threading.Thread | None = None

    def add(self, watchdog: Watchdog) -> None:
        with self.lock:
            self.watchdogs.add(watchdog)
            if self.thread is None:
                self.thread = threading.Thread(target=self.run, name="hermes-hooks-watchdog")
                self.thread.daemon = True
                self.thread.start()
        self.wake.set()  # a shorter interval takes effect at once

    def run(self) -> None:
        while True:
            with self.lock:
                current = list(self.watchdogs)
            interval = min((w.interval for w in current if not w.stopped), default=5.0)
            self.wake.wait(interval)
            self.wake.clear()
            for watchdog in current:
                if watchdog.stopped:
                    continue
                try:
                    watchdog.check()
                except Exception as exc:  # the watchdog must never take the host down
                    log.debug("hook watchdog: %s", exc)


_PATROL = _Patrol()


class Watchdog:
    """Reports in-process hooks stuck in one call for longer than ``threshold`` seconds."""

    def __init__(self, manager: HookManager, threshold: float = DEFAULT_WATCHDOG) -> None:
        self.manager = manager
        self.threshold = threshold
        self.interval = min(5.0, max(0.05, threshold / 4))
        self.stopped = False
        self._seen: dict[tuple[int, int], tuple[float, str]] = {}
        self._reported: set[tuple[int, int]] = set()
        #: Reports made, as (hook name, seconds, stack) (tests and ``hermes hooks doctor``).
        self.reports: list[tuple[str, float, str]] = []

    def start(self) -> None:
        _PATROL.add(self)

    def stop(self) -> None:
        self.stopped = True

    def _watched(self) -> dict[Any, str]:
        codes: dict[Any, str] = {}
        for event in self.manager.planned_events():
            for impl in self.manager.plan(event):
                code = getattr(impl.fn, "__code__", None)
                record = self.manager.records.get(impl.name)
                if (
                    code is not None
                    and impl.timeout is None
                    and impl.batch is None
                    and not (record and record.hook_source)
                ):
                    codes[code] = impl.name
        return codes

    def check(self, now: float | None = None) -> None:
        """One look at every thread's stack."""
        now = time.monotonic() if now is None else now
        codes = self._watched()
        alive: set[tuple[int, int]] = set()
        for thread_id, top in sys._current_frames().items():
            frame: FrameType | None = top
            while frame is not None:
                name = codes.get(frame.f_code)
                if name is not None:
                    key = (thread_id, id(frame))
                    alive.add(key)
                    first, _ = self._seen.setdefault(key, (now, name))
                    if now - first >= self.threshold and key not in self._reported:
                        self._reported.add(key)
                        self._report(name, now - first, top)
                frame = frame.f_back
        self._seen = {k: v for k, v in self._seen.items() if k in alive}
        self._reported &= alive

    def _report(self, name: str, seconds: float, top: FrameType) -> None:
        stack = "".join(traceback.format_stack(top))
        self.reports.append((name, seconds, stack))
        log.warning(
            "hook %r has been running for %.0fs and has not returned (no time limit is set: "
            "plugins.hook_callback_timeout, or timeout: in its plugin.yaml). It is stuck in:\n%s",
            name,
            seconds,
            stack,
        )
