"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

The interface built-in hook sources implement (shell hooks, gateway hooks, BOOT.md, ...).

A hook source is a pluggy plugin object (its ``@hookimpl`` methods are what dispatch calls) that
manages hooks of its own. It tells the manager, the listing and the CLI about them through these
methods, never through attributes found by name. Register one with
:meth:`hermes_hooks.Hooks.add_source`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from .manager import Entry


@runtime_checkable
class HookSource(Protocol):
    """What a built-in hook source offers besides its ``@hookimpl`` methods.

    ``reports``: the source records each run of its hooks with the runtime's tracer itself (a
    gateway hook: its handler runs after its impl returned, and what the source reads of the
    handler's answer, its raw value and why it was ignored, never reaches the dispatcher);
    otherwise the dispatcher does, as for any hook, a source's entries included (from what
    their batch settled: :class:`~hermes_hooks.manager.Settled`)."""

    reports: bool

    def rows(self) -> list[dict[str, Any]]:
        """One row per hook it manages, each with at least ``event`` (our name), ``name``,
        ``source`` and ``status``, in the order they run within the source's turn."""
        ...

    def entries(self, event: str) -> Sequence[Entry] | None:
        """Its hooks of ``event``, each its own entry of the dispatch plan in the source's place
        (:class:`~hermes_hooks.manager.Entry`), or ``None``: the source's ``@hookimpl`` is one
        entry. The dispatcher writes each entry's receipt."""
        ...

    def fail_closed_on(self, event: str) -> bool:
        """Whether a failure of the source itself on ``event`` must fail closed (one of its
        hooks of that event is ``fail_closed``)."""
        ...

    def session_env(self, session_id: str) -> dict[str, str]:
        """Environment variables its hooks exported for a session (``{}`` when none)."""
        ...

    def close(self) -> None:
        """Release what it holds (processes, threads); the manager is closing."""
        ...

    def take_wakeups(self, session_id: str | None = None) -> list[Any]:
        """Messages for the model its background hooks left (``[]`` when none), removed."""
        ...


def blocking_impl(info: Any, name: str, message: str) -> Callable[..., Any]:
    """A ``tryfirst`` hook implementation of ``info``'s event that always answers with the
    event's blocked form (``message``, from ``name``): the lockdown and unmet required guards."""
    from .markers import hookimpl

    @hookimpl(tryfirst=True)
    def impl(**kwargs: Any) -> Any:
        return info.answer.blocked(message, name)

    impl.__name__ = impl.__qualname__ = f"{name}.{info.name}"
    return impl


class SourceBase:
    """Neutral defaults for :class:`HookSource` (a source overrides what it has)."""

    reports = False

    def rows(self) -> list[dict[str, Any]]:
        return []

    def entries(self, event: str) -> Sequence[Entry] | None:
        return None

    def fail_closed_on(self, event: str) -> bool:
        return False

    def session_env(self, session_id: str) -> dict[str, str]:
        return {}

    def close(self) -> None:
        return None

    def take_wakeups(self, session_id: str | None = None) -> list[Any]:
        return []


def builtin_rows(
    name: str, events: Iterable[str], matcher: Any, **extra: Any
) -> list[dict[str, Any]]:
    """A built-in's ``hermes hooks list`` rows: one per event, active, with what it matches."""
    return [
        {"event": event, "name": name, "source": "builtin", "status": "active",
         "matcher": matcher, "style": "builtin", **extra}
        for event in events
    ]  # fmt: skip
