"""The two public pluggy markers, and the decorator that turns a hookspec into a catalogue entry."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pluggy

PROJECT = "hermes"

#: Marks a function in a hookspec module as the specification of an event.
hookspec = pluggy.HookspecMarker(PROJECT)
#: Marks a plugin function as the implementation of an event.
hookimpl = pluggy.HookimplMarker(PROJECT)

KINDS = ("observe", "decide", "context", "transform", "first")

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class EventMeta:
    """What the decorator records on a hookspec function (read by :mod:`hermes_hooks.catalogue`)."""

    kind: str
    aliases: tuple[str, ...] = ()
    value: str | None = None
    can_block: bool = False
    example: Mapping[str, Any] = field(default_factory=dict)


def event(
    kind: str,
    *,
    aliases: tuple[str, ...] = (),
    value: str | None = None,
    can_block: bool = False,
    example: Mapping[str, Any] | None = None,
) -> Callable[[F], F]:
    """Declare a hookspec as an event of the catalogue.

        ``kind`` is one of :data:`KINDS`; ``value`` names the argument a transform event pipes through
        its hooks; ``can_block`` says whether a shell hook's exit code 2 (and a failing ``fail_closed``
    hook) blocks this event, in the event's own terms (``results.blocked``: a block, a deny, a
    continue, or feedback for the model); decide events always can; ``example``
        is a realistic payload (used by ``hermes hooks test`` and the docs).
    """
    if kind not in KINDS:
        raise ValueError(f"unknown event kind {kind!r}; expected one of {', '.join(KINDS)}")
    if kind == "transform" and not value:
        raise ValueError("a transform event must name its value argument")

    def deco(fn: F) -> F:
        fn.hermes_event = EventMeta(  # type: ignore[attr-defined]
            kind=kind,
            aliases=tuple(aliases),
            value=value,
            can_block=can_block or kind == "decide",
            example=dict(example or {}),
        )
        return hookspec(firstresult=(kind == "first"))(fn)

    return deco
