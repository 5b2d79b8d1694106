"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

What the manager knows about each plugin (:class:`PluginRecord`), loaded or not."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class PluginRecord:
    """What the manager knows about one plugin, whether or not it loaded.

    ``parent`` names the plugin this one belongs to (a module's ``@hookimpl`` functions
    registered beside its ``register(ctx)`` hooks): unregistering the parent removes it too.
    ``hook_source`` is the built-in hook source object (shell hooks, gateway hooks, ...) when
    the plugin is one (see :mod:`hermes_hooks.sources`).
    """

    name: str
    source: str  # builtin / entrypoint / directory / python / gateway / shell
    status: str = "active"
    error: str | None = None
    path: str | None = None
    version: str | None = None
    distribution: str | None = None
    fail_closed: bool = False
    priority: int = 0
    timeout: float | None = None
    description: str = ""
    manifest: dict[str, Any] = field(default_factory=dict)
    plugin: Any = None
    parent: str | None = None
    hook_source: Any = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source": self.source,
            "status": self.status,
            "error": self.error,
            "path": self.path,
            "version": self.version,
            "distribution": self.distribution,
        }
