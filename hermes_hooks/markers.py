"""The two public pluggy markers, and the decorator that turns a hookspec into an event."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import pluggy

from .answers import AnswerType
from .contract import AgentEvent, ClaudeEvent, EventMeta

PROJECT = "hermes"

#: Marks a function in a hookspec module as the specification of an event.
hookspec = pluggy.HookspecMarker(PROJECT)
#: Marks a plugin function as the implementation of an event.
hookimpl = pluggy.HookimplMarker(PROJECT)

KINDS = ("observe", "decide", "context", "transform", "first")

F = TypeVar("F", bound=Callable[..., Any])


def event(
    answer: AnswerType,
    *,
    claude: tuple[ClaudeEvent, ...] = (),
    docker: tuple[str, ...] = (),
    aliases: tuple[str, ...] = (),
    example: Mapping[str, Any] | None = None,
    hermes_returns_ignored: bool = False,
    plain_text_context: bool = False,
    continues: bool = False,
    subtypes: Mapping[str, tuple[str, ...]] | None = None,
    required: tuple[str, ...] = (),
    dialects: Mapping[str, tuple[AgentEvent, ...]] | None = None,
) -> Callable[[F], F]:
    """Declare a hookspec as an event: its answer type (see :mod:`hermes_hooks.answers`; the
    type's kind decides how hooks combine, and ``first`` kinds are pluggy ``firstresult``), the
    Claude Code events it stands for, the events of other agents' dialects (``dialects``, by
    dialect name), docker-agent names and other aliases, and a realistic
    ``example`` payload (used by ``hermes hooks test`` and the docs). See
    :class:`~hermes_hooks.contract.EventMeta` for the flags."""
    if not isinstance(answer, AnswerType):
        raise TypeError(f"event(): {answer!r} is not an answer type (hermes_hooks.answers)")
    if answer.kind not in KINDS:
        raise ValueError(f"unknown event kind {answer.kind!r}; expected one of {', '.join(KINDS)}")
    meta = EventMeta(
        answer=answer,
        aliases=tuple(aliases),
        claude=tuple(claude),
        docker=tuple(docker),
        example=dict(example or {}),
        hermes_returns_ignored=hermes_returns_ignored,
        plain_text_context=plain_text_context,
        continues=continues,
        subtypes=dict(subtypes or {}),
        required=tuple(required),
        dialects={name: tuple(events) for name, events in (dialects or {}).items()},
    )

    def deco(fn: F) -> F:
        params = fn.__code__.co_varnames[: fn.__code__.co_argcount]
        unknown = [name for name in required if name not in params]
        if unknown:
            raise ValueError(f"{fn.__name__}: required names no argument: {unknown}")
        # What a failure does is the answer type's to say; the docstring states it from there.
        fn.__doc__ = _with_failure(fn.__doc__ or "", answer.on_failure())
        fn.hermes_event = meta  # type: ignore[attr-defined]  # read back by the catalogue
        return hookspec(firstresult=(answer.kind == "first"))(fn)

    return deco


def _with_failure(doc: str, sentence: str) -> str:
    """``doc`` with an "On failure" paragraph before its example (or at its end)."""
    paragraph = f"On failure: {sentence}"
    head, sep, tail = doc.partition("\n    Example::")
    if sep:
        return f"{head.rstrip()}\n\n    {paragraph}\n{sep}{tail}"
    return f"{doc.rstrip()}\n\n    {paragraph}\n"
