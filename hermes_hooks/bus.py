"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

The extension bus: plugin-to-plugin messages, isolated like hooks."""

from __future__ import annotations

import bisect
import inspect
import itertools
import logging
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

from .dispatch import Resolve, on_loop, run_sync
from .faults import escapes

log = logging.getLogger("hermes_hooks")


#: Subscription order across the whole process. A plugin context draws its number when it is
#: created (in discovery order), so its listeners keep that place even though the loader commits
#: plugins in reverse; a live subscription draws a fresh one.
_ORDER = itertools.count()


def ticket() -> int:
    """A place in the bus's delivery order: plugin contexts take theirs when created (in
    discovery order), so their listeners keep it although the loader commits plugins in reverse.
    One counter for both: with a second one, where a host's live subscription landed among the
    plugins' depended on how many of each the process had drawn before."""
    return next(_ORDER)


class EventBus:
    """Plugin-to-plugin messages: ``ctx.events.on(name, cb)`` and ``ctx.events.emit(name, payload)``.

    Delivery order: plugins' listeners in plugin discovery order (within a plugin, in the order it
    subscribed), then later subscriptions (the host's, or a plugin's after it loaded) in the order
    they were made. A listener that raises (any ``Exception``, or ``SystemExit``) is logged with its
    owner and the message name, counted in :attr:`failures`, and skipped: the others still get the
    message. An ``async`` listener is awaited: ``emit`` runs it to completion, ``aemit`` awaits it
    on the running loop, one listener after the other. Both return the listeners' non-``None``
    results in delivery order. Names are free-form strings (``"memory:saved"``); ``*`` is not a
    wildcard here.
    """

    def __init__(self) -> None:
        self._listeners: dict[str, list[tuple[int, str, Callable[[Any], Any]]]] = {}
        self._lock = threading.Lock()
        #: Failures per ``(owner, message name)``.
        self.failures: Counter[tuple[str, str]] = Counter()

    def on(
        self,
        name: str,
        callback: Callable[[Any], Any],
        *,
        owner: str = "host",
        order: int | None = None,
    ) -> None:
        """Call ``callback(payload)`` for every message ``name``."""
        if not callable(callback):
            raise TypeError(f"events.on({name!r}, ...): the callback is not callable")
        key = ticket() if order is None else order
        with self._lock:
            entries = list(self._listeners.get(name, ()))
            bisect.insort_right(entries, (key, owner, callback), key=lambda e: e[0])
            self._listeners[name] = entries

    def off(self, name: str, callback: Callable[[Any], Any]) -> None:
        """Stop calling ``callback`` for ``name``."""
        with self._lock:
            self._listeners[name] = [
                e for e in self._listeners.get(name, []) if e[2] is not callback
            ]

    def drop(self, owner: str) -> None:
        """Forget every listener of ``owner`` (a plugin being unregistered)."""
        with self._lock:
            for name in list(self._listeners):
                self._listeners[name] = [e for e in self._listeners[name] if e[1] != owner]

    def listeners(self, name: str) -> list[tuple[str, Callable[[Any], Any]]]:
        """``(owner, callback)`` pairs for ``name``, in delivery order."""
        return [(owner, cb) for _, owner, cb in self._listeners.get(name, ())]

    def _failed(self, owner: str, name: str, exc: BaseException) -> None:
        self.failures[(owner, name)] += 1
        log.warning(
            "event listener of %r for %r failed: %s: %s (skipped)",
            owner,
            name,
            type(exc).__name__,
            exc,
        )

    def emit(self, name: str, payload: Any = None, resolve: Resolve = run_sync) -> list[Any]:
        """Deliver ``payload`` to every listener of ``name``; return their non-``None`` results.
        ``resolve`` awaits an async listener's result."""
        out = []
        for owner, cb in self.listeners(name):
            try:
                value = cb(payload)
                if inspect.isawaitable(value):
                    value = resolve(value)
            except BaseException as exc:
                if escapes(exc):
                    raise
                self._failed(owner, name, exc)
                continue
            if value is not None:
                out.append(value)
        return out

    async def aemit(self, name: str, payload: Any = None) -> list[Any]:
        """:meth:`emit` for async code: listeners run off the event loop, async listeners are
        awaited on it, one listener after the other."""
        import asyncio

        loop = asyncio.get_running_loop()
        return await asyncio.to_thread(self.emit, name, payload, on_loop(loop))


class PluginEvents:
    """``ctx.events``: the shared :class:`EventBus`, with this plugin as the owner.

    Subscriptions made during ``register(ctx)`` wait for the plugin to load (a plugin whose
    ``register`` raises leaves none behind); later ones take effect at once.
    """

    def __init__(
        self, bus: EventBus, owner: str, pending: list[tuple[str, Callable[[Any], Any]]], order: int
    ) -> None:
        self._bus, self._owner, self._pending, self._order = bus, owner, pending, order
        self._live = False

    def on(self, name: str, callback: Callable[[Any], Any]) -> None:
        """Call ``callback(payload)`` for every message ``name``."""
        if not callable(callback):
            raise TypeError(f"events.on({name!r}, ...): the callback is not callable")
        if self._live:
            self._bus.on(name, callback, owner=self._owner)
        else:
            self._pending.append((name, callback))

    def go_live(self) -> None:
        """Subscribe what was collected during ``register(ctx)``; later ones are live."""
        for name, cb in self._pending:
            self._bus.on(name, cb, owner=self._owner, order=self._order)
        self._live = True

    def emit(self, name: str, payload: Any = None) -> list[Any]:
        """Deliver ``payload`` to every listener of ``name``; return their non-``None`` results."""
        return self._bus.emit(name, payload)

    async def aemit(self, name: str, payload: Any = None) -> list[Any]:
        """:meth:`emit` for async code."""
        return await self._bus.aemit(name, payload)
