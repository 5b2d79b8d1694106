"""Internal: the rows of ``hermes hooks list`` (:meth:`hermes_hooks.Hooks.rows`).

Taken from the dispatch plan: what is listed is what runs, in the order it runs, whatever source
a hook comes from. Reads the manager, never the :class:`~hermes_hooks.Hooks` that owns it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .manager import HookManager, Impl, PluginRecord


def _impl_row(
    manager: HookManager, event: str, impl: Impl, rec: PluginRecord | None
) -> dict[str, Any]:
    opts = impl.impl
    return {
        "event": event,
        "name": impl.name,
        "source": rec.source if rec else "python",
        "status": "active",
        "error": None,
        "function": getattr(impl.fn, "__qualname__", repr(impl.fn)),
        "style": "hermes" if impl.hermes else "pluggy",
        "tryfirst": bool(opts.tryfirst),
        "trylast": bool(opts.trylast),
        "fail_closed": impl.fail_closed,
        "path": rec.path if rec else None,
        "version": rec.version if rec else None,
        "known_event": event in manager.events,
    }


def _source_rows(name: str, rec: PluginRecord) -> dict[str, list[dict[str, Any]]]:
    by_event: dict[str, list[dict[str, Any]]] = {}
    for row in rec.hook_source.rows():
        full = {"source": "builtin", "status": "active", "error": None, "plugin": name, **row}
        by_event.setdefault(full["event"], []).append(full)
    return by_event


def rows(
    manager: HookManager,
    registered_by: Callable[[str], dict[str, list[str]]],
    *,
    include_builtin: bool = True,
    event: str | None = None,
    switched: Collection[str] = (),
) -> list[dict[str, Any]]:
    """See :meth:`hermes_hooks.Hooks.rows`. ``registered_by`` tells what a plugin put in the
    registries; ``switched`` names the built-ins a config switches on (listed without
    ``include_builtin``: they are the user's hooks)."""
    if event is not None:
        info = manager.find_event(event)
        event = info.name if info else event
    records = manager.records
    expanded: dict[str, dict[str, list[dict[str, Any]]]] = {}
    per_event: dict[str, list[dict[str, Any]]] = {}
    for ev in manager.planned_events():
        out = per_event.setdefault(ev, [])
        for impl in manager.plan(ev):
            if impl.row is not None:  # a hook source's own entry (a shell hook)
                out.append({"source": "builtin", "status": "active", "error": None,
                            "plugin": impl.impl.plugin_name, **impl.row()})  # fmt: skip
                continue
            rec = records.get(impl.name)
            if rec is not None and rec.hook_source is not None:
                if impl.name not in expanded:
                    expanded[impl.name] = _source_rows(impl.name, rec)
                out.extend(expanded[impl.name].pop(ev, []))
            else:
                out.append(_impl_row(manager, ev, impl, rec))
    # A source's hooks of an event it registered no implementation for (none today) still show.
    for by_event in expanded.values():
        for ev, extra in by_event.items():
            per_event.setdefault(ev, []).extend(extra)
    order = list(manager.events) + sorted(set(per_event) - set(manager.events))
    listed: list[dict[str, Any]] = []
    for ev in order:
        if event is not None and ev != event:
            continue
        for position, row in enumerate(per_event.get(ev, []), start=1):
            row.setdefault("order", position)
            listed.append(row)
    if event is None:
        listed.extend(_without_hooks(manager, registered_by, listed))
    if not include_builtin:
        # The built-ins a config switches on (add_date, redact_secrets, ...) are the user's
        # hooks and are listed; the runtime's own (lockdown, required guards) only with --all.
        listed = [
            r
            for r in listed
            if r.get("source") != "builtin"
            or str(r.get("name")).removeprefix("builtin:") in switched
        ]
    return listed


def _without_hooks(
    manager: HookManager,
    registered_by: Callable[[str], dict[str, list[str]]],
    listed: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """Plugins without a hook row: those that did not load (failed, disabled, shadowed), and
    active ones that registered only tools, commands, skills or nothing at all."""
    seen = {r.get("plugin") or r.get("name") for r in listed}
    out = []
    for rec in manager.records.values():
        if rec.status == "active" and (
            rec.name in seen or rec.source == "builtin" or rec.hook_source is not None
        ):
            continue
        out.append(
            {
                "event": None,
                "name": rec.name,
                "source": rec.source,
                "status": rec.status,
                "error": rec.error,
                "path": rec.path,
                "version": rec.version,
                "registered": registered_by(rec.name),
            }
        )
    return out
