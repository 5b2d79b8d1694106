"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

What plugins register besides hooks: tools, slash commands, CLI commands, skills,
middleware, and other hosts' extension kinds. The host reads them; plugins add to them through
their :class:`~hermes_hooks.context.PluginContext`."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("hermes_hooks")

#: Registries holding one entry per name; the others hold a tuple of entries per kind.
SINGLE = ("tools", "commands", "cli_commands", "skills")
MULTI = ("middleware", "extensions")


@dataclass(frozen=True)
class Entry:
    """One thing a plugin registered (a tool, a command, a skill, ...)."""

    name: str
    handler: Any
    plugin: str
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        if key in ("name", "handler", "plugin"):
            return getattr(self, key)
        return self.meta[key]


class Registry(Mapping[str, Any]):
    """A read-only mapping from name to :class:`Entry` (middleware and extensions: kind to a
    tuple of entries). Changed only through :class:`PluginRegistries`."""

    def __init__(self) -> None:
        self._items: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Registry({sorted(self._items)})"


class PluginRegistries:
    """Tools, slash commands, CLI commands, skills, middleware and other extensions."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.tools = Registry()
        self.commands = Registry()
        self.cli_commands = Registry()
        self.skills = Registry()
        self.middleware = Registry()
        self.extensions = Registry()

    def _registry(self, kind: str) -> Registry:
        if kind not in SINGLE + MULTI:
            raise ValueError(f"unknown registry {kind!r}")
        registry: Registry = getattr(self, kind)
        return registry

    def add(self, kind: str, entry: Entry, key: str | None = None) -> None:
        """Add ``entry`` to the registry ``kind`` (a later registration of a name wins, with a
        warning when another plugin had it)."""
        registry = self._registry(kind)
        key = entry.name if key is None else key
        with self._lock:
            items = dict(registry._items)
            if kind in MULTI:
                items[key] = (*items.get(key, ()), entry)
            else:
                earlier = items.get(key)
                if earlier is not None and earlier.plugin != entry.plugin:
                    log.warning(
                        "plugin %r re-registered %r (was %r's); the later registration wins",
                        entry.plugin,
                        key,
                        earlier.plugin,
                    )
                items[key] = entry
            registry._items = items  # swapped whole: readers never see a half-made change

    def drop(self, plugin: str) -> None:
        """Forget everything ``plugin`` registered."""
        with self._lock:
            for kind in SINGLE:
                registry = self._registry(kind)
                registry._items = {k: e for k, e in registry._items.items() if e.plugin != plugin}
            for kind in MULTI:
                registry = self._registry(kind)
                kept = {
                    k: tuple(e for e in es if e.plugin != plugin)
                    for k, es in registry._items.items()
                }
                registry._items = {k: es for k, es in kept.items() if es}

    def registered_by(self, plugin: str) -> dict[str, list[str]]:
        """What ``plugin`` registered, by registry (empty registries left out)."""
        out = {
            kind: sorted(k for k, e in self._registry(kind).items() if e.plugin == plugin)
            for kind in SINGLE
        }
        out["middleware"] = sorted(
            k for k, es in self.middleware.items() if any(e.plugin == plugin for e in es)
        )
        return {k: v for k, v in out.items() if v}
