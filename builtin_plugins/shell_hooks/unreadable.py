"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Guard entries that cannot be read: an entry that says it is a guard (``required: true``,
``fail_closed: true``, Claude Code's ``onFailure: block``) but that the reader has to skip (a
typo such as ``comand:``, a misspelt event, a malformed Claude Code group, ``args`` that is not
a list) must not leave its event unguarded: it would block if it ran and failed, so it blocks
when it cannot even be read.

Such an entry becomes a hook of type ``unreadable``: nothing runs for it, its consent is
``refused`` with what the reader found, so at each firing it answers as a ``fail_closed`` hook
that was not run: a block naming the entry, the file and the fix. Its events are the event it
is configured under; under an unknown event name, every event that guards an action
(``pre_tool_call``, ``permission_request``: the answer type's ``guards_actions``), as for a
required plugin whose events are unknown. It is listed (status ``refused``) and fails
``hermes hooks doctor``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from hermes_hooks.catalogue import EventInfo

from . import processes
from .matching import UNREADABLE, ShellHook


class Reader(Protocol):
    """What an entry is read into (:class:`.config.Reader`, named by its shape: the config
    reader imports this module)."""

    hooks: list[ShellHook]
    problems: list[str]
    unreadable: list[ShellHook]
    guards: list[str]

    @property
    def fail_closed_events(self) -> frozenset[str]:
        """config.yaml's ``fail_closed_events``: every hook of these events is a guard."""
        ...

    def mark(self) -> tuple[int, int]: ...

    def warn(self, message: str) -> None: ...


_DEPTH = 4


def says_guard(raw: Any, depth: int = _DEPTH) -> bool:
    """Whether ``raw`` (an entry, a Claude Code group, a list of them) declares a guard
    anywhere inside: a true ``required`` or ``fail_closed`` (Cursor's ``failClosed``), or
    ``onFailure: block``."""
    if depth <= 0:
        return False
    if isinstance(raw, Mapping):
        if raw.get("type") == "builtin":
            return False  # a built-in's entry: read by builtin_plugins/switches.py
        if raw.get("required") is True or raw.get("fail_closed") is True:
            return True
        if raw.get("failClosed") is True:
            return True
        if raw.get("onFailure") == "block":
            return True
        return any(says_guard(v, depth - 1) for v in raw.values())
    if isinstance(raw, list):
        return any(says_guard(v, depth - 1) for v in raw)
    return False


def record(reader: Reader, raw: Any, events: Sequence[EventInfo], name: str, index: int,
           origin: str, where: str, since: tuple[int, int]) -> None:  # fmt: skip
    """When ``raw`` declares a guard and reading it (since ``reader.mark()`` gave ``since``)
    added no hook, add to ``reader.unreadable`` the hooks that make its events fail closed."""
    if len(reader.hooks) > since[0]:
        return
    named = None
    if isinstance(raw, Mapping) and raw.get("type") == "builtin":
        named = _no_builtin(raw, events)
        if named is None:
            return  # a built-in's entry: read (and reported) by builtin_plugins/switches.py
    # Under config.yaml's fail_closed_events every hook of the event is a guard.
    if not says_guard(raw) and not all(i.name in reader.fail_closed_events for i in events):
        return
    why = reasons(reader.problems[since[1] :], where) + ([named] if named else [])
    lost = hooks_for(events, name, index, origin, where, why, raw)
    reader.unreadable += lost
    reader.guards.append(f"{where}: a guard whose entry cannot be read")
    blocked = " and ".join(h.event for h in lost)
    reader.warn(f"{where}: this entry declares a guard (required / fail_closed / onFailure: "
                f"block / fail_closed_events) but cannot be read, so {blocked} block until it is fixed")  # fmt: skip


def _no_builtin(raw: Mapping[str, Any], events: Sequence[EventInfo]) -> str | None:
    """Why a ``type: builtin`` entry runs no built-in on ``events`` (a name that is none, or one
    that does not serve the event), or ``None`` when it does."""
    from ..switches import SERVES

    name = raw.get("name")
    if not isinstance(name, str) or name not in SERVES:
        return f"{name!r} is no built-in"
    serves = SERVES[name]
    if serves is not None and any(i.name not in serves for i in events):
        return f"built-in {name!r} does not serve {', '.join(i.name for i in events)}"
    return None


def hooks_for(
    events: Sequence[EventInfo],
    name: str,
    index: int,
    origin: str,
    where: str,
    reasons: Sequence[str],
    raw: Any,
) -> list[ShellHook]:
    """The ``unreadable`` hooks standing for the guard entry at ``where``, one per event."""
    found = raw if isinstance(raw, Mapping) else {}
    label = found.get("name") or found.get("command")
    label = label if isinstance(label, str) and label.strip() else "unreadable guard entry"
    why = "; ".join(reasons) or "it is not a hook entry"
    refused = f"its entry cannot be read: {why}"
    remedy = f"fix the entry in {origin}, then check with `hermes hooks doctor`"
    return [
        ShellHook(
            event=info.name,
            configured_event=name,
            command=f"<unreadable entry {where}>",
            origin=origin,
            index=index,
            name=label,
            required=says_required(raw),
            fail_closed=True,
            kind=UNREADABLE,
            options={"refused": refused, "remedy": remedy},
            place=where,
        )
        for info in events
    ]


def says_required(raw: Any, depth: int = _DEPTH) -> bool:
    """Whether ``raw`` says ``required: true`` anywhere inside."""
    if depth <= 0:
        return False
    if isinstance(raw, Mapping):
        if raw.get("required") is True:
            return True
        return any(says_required(v, depth - 1) for v in raw.values())
    if isinstance(raw, list):
        return any(says_required(v, depth - 1) for v in raw)
    return False


def reasons(problems: Sequence[str], where: str) -> list[str]:
    """What the reader said about the entry at ``where``, without the place and the
    "skipped"/"ignored" it ended with."""
    out = []
    for text in problems:
        if text.startswith(f"{where}: "):
            text = text[len(where) + 2 :]
        for tail in ("; skipped", "; ignored"):
            if tail in text:
                text = text[: text.rindex(tail)]
        out.append(text)
    return out


class Transport:
    """The runner's transport for ``unreadable`` hooks: nothing ever runs (their consent is
    refused); ``problem`` is what ``hermes hooks list`` and ``doctor`` show."""

    def problem(self, hook: ShellHook) -> str | None:
        return "nothing runs: its entry cannot be read"

    def __call__(
        self, batch: Sequence[tuple[ShellHook, processes.Command]]
    ) -> list[processes.Outcome]:
        return [processes.Outcome(error=str(hook.options.get("refused"))) for hook, _ in batch]
