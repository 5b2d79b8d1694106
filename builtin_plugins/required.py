"""Internal: part of the built-ins (docs/builtins.md), not an API.

Required guards: a guard that must run, or the agent must not act.

A guard is required by ``required: true`` on a shell hook entry or in a plugin's ``plugin.yaml``,
or by naming it in ``plugins.required: [name, ...]`` in config.yaml (a Python plugin's name, a
gateway hook's directory name, or a shell hook's ``name`` or command).

A required shell hook that is unapproved, changed or cannot run blocks its own event at each
firing (the shell-hook source does that, since consent can change while the agent runs). This
module covers what no source can: a required plugin or hook that is missing (not installed,
disabled, removed from the config, or everything is off in safe mode) or failed to load. Its
events are unknown, so every event it declares in ``plugin.yaml`` ``provides_hooks`` fails closed,
and without that list every event that guards an action (``pre_tool_call``,
``permission_request``, ...), with a message naming the guard and the fix. A required plugin that
did load is ``fail_closed``: a hook of it that raises blocks.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hermes_hooks.catalogue import EventInfo
from hermes_hooks.loader import required_names
from hermes_hooks.sources import SourceBase, blocking_impl, builtin_rows

from . import failed_guard

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

NAME = "builtin:required"
log = logging.getLogger("hermes_hooks")


def unmet(hooks: Hooks) -> list[tuple[str, str, list[str]]]:
    """Every required guard that is missing or failed: ``(guard, why and fix, events)``;
    ``events`` is empty when the guard's events are unknown."""
    names = required_names(hooks.config)
    closed = sorted(hooks.manager.fail_closed_events)
    out: list[tuple[str, str, list[str]]] = []
    seen: set[str] = set()
    for record in hooks.records.values():
        manifest = record.manifest or {}
        # (one that was disabled or shadowed was switched off: not a failed guard)
        broken = failed_guard(record, closed)
        if record.name not in names and not manifest.get("required") and not broken:
            continue
        seen.add(record.name)
        if record.status == "active":
            continue
        fix = {
            "disabled": "enable it (plugins.enabled / plugins.disabled / HERMES_HOOKS_DISABLED)",
            "shadowed": "remove the copy that shadows it",
        }.get(record.status, "fix the error, then check with `hermes hooks doctor`")
        provides = manifest.get("provides_hooks")
        events = [str(e) for e in provides] if isinstance(provides, list) else []
        if broken and record.name not in names and not manifest.get("required"):
            if manifest.get("fail_closed") is True:
                fix += " (its plugin.yaml says fail_closed: true)"
            else:
                fix += f" (config.yaml fail_closed_events: {', '.join(closed)})"
                events = [e for e in events if e in closed] if events else list(closed)
                if not events:
                    continue
        out.append((record.name, f"{record.status} ({record.error}); {fix}", events))
    present = set(seen) | set(hooks.hosted)  # the host loads and runs those itself
    for source in hooks.sources():
        for row in source.rows():
            present.update(str(row.get(k)) for k in ("name", "command") if row.get(k))
    for name in names:
        if name in present:
            continue
        why = (
            "HERMES_SAFE_MODE is on, so nothing loads; unset it to run with your guards"
            if hooks.safe_mode
            else "not found: no plugin, gateway hook or shell hook has this name; install it, "
            "or remove it from plugins.required"
        )
        out.append((name, why, []))
    if hooks.safe_mode:
        out += _safe_mode_shell(hooks)
    return out


def _safe_mode_shell(hooks: Hooks) -> list[tuple[str, str, list[str]]]:
    # In safe mode the shell source is never built; its required entries are still guards.
    from hermes_hooks.builtin_plugins.shell_hooks import load_entries

    entries, _ = load_entries(hooks)
    why = "HERMES_SAFE_MODE is on, so no shell hook runs; unset it to run with your guards"
    return [(h.name, why, [h.event]) for h in entries if h.required]


class Required(SourceBase):
    """Blocks the events of required guards that are missing or failed to load."""

    def __init__(self, hooks: Hooks, problems: list[tuple[str, str, list[str]]]) -> None:
        self.problems = problems
        self._hooks = hooks
        guarded = [i.name for i in hooks.manager.events.values() if i.answer.guards_actions]
        self.messages: dict[str, list[str]] = {}
        for guard, why, events in problems:
            text = f"required guard {guard!r} is not running: {why}"
            for event in events or guarded:
                info = hooks.manager.find_event(event)
                if info is not None and info.answer.can_block:
                    self.messages.setdefault(info.name, []).append(text)
        for event in self.messages:
            setattr(self, event, self._impl(hooks.manager.event(event)))

    def _impl(self, info: EventInfo) -> Callable[..., Any]:
        message = "; ".join(self.messages[info.name]) + " (hermes-hooks blocks until it runs)"
        return blocking_impl(info, NAME, message)

    def rows(self) -> list[dict[str, Any]]:
        return [
            row
            for event, texts in self.messages.items()
            for row in builtin_rows(NAME, [event], None, error="; ".join(texts))
        ]

    def fail_closed_on(self, event: str) -> bool:
        return event in self.messages


def setup(hooks: Hooks) -> Required | None:
    """The built-in plugin's entry point: ``None`` when every required guard is in place."""
    problems = unmet(hooks)
    if not problems:
        return None
    for guard, why, _ in problems:
        log.error("required guard %r is not running: %s", guard, why)
    return Required(hooks, problems)
