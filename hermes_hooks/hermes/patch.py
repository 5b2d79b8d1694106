"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

The two places where the Hermes Agent bridge (:mod:`hermes_hooks.hermes.agent`) reaches into
Hermes Agent's internals, because Hermes 0.19 has no switch for them. Both apply only to the
Hermes version they were written against (:data:`SUPPORTED`); on any other version
:meth:`Patch.for_running_hermes` returns ``None`` and the bridge runs unpatched, with a warning.

1. **Adopting hook callbacks.** Hermes calls every callback in its hook table and, for
   ``pre_tool_call``, takes the first directive it finds: an ``approve`` registered before the
   bridge would hide our ``block``. So the bridge moves every other callback of the events it
   bridges out of ``PluginManager._hooks`` into our manager (one Hermes-style plugin per owning
   Hermes plugin, found by module), leaving only the bridge's callback in Hermes' table. Hermes
   still loads those plugins (its ``plugins.enabled``, its ``ctx``: their tools and commands stay
   Hermes'); only their hooks run through our combiner. It also keeps the bridge's ``tool_request``
   middleware last, so our ``pre_tool_call`` sees the arguments every other middleware produced.
2. **Claiming the ``hooks:`` block.** Our shell adapter runs config.yaml's ``hooks:`` (with
   Claude Code ``settings.json``), so Hermes must not register them as well (nor ask for its own
   consent). Hermes' registration is idempotent: it skips every ``(event, matcher, command)``
   already in ``agent.shell_hooks._registered``. The bridge adds the configured entries there
   (parsed by Hermes' own ``iter_configured_hooks``) before Hermes registers them. Callbacks of
   Hermes' shell runner that show up anyway are dropped when adopting.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

log = logging.getLogger("hermes_hooks")

#: The Hermes Agent release whose internals this module was written against.
SUPPORTED = "0.19.0"

_SHELL_RUNNER = "agent.shell_hooks"


def running_version() -> str | None:
    """The installed hermes-agent version, or ``None``."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hermes-agent")
    except PackageNotFoundError:
        return None


def hermes_home() -> Path | None:
    """Hermes' home as Hermes resolves it (profiles included), or ``None`` outside Hermes."""
    try:
        return Path(importlib.import_module("hermes_constants").get_hermes_home())
    except Exception:
        return None


class Patch:
    """The running Hermes' plugin manager, patched as the module docstring says."""

    def __init__(self, manager: Any, shell: Any) -> None:
        self.manager = manager
        self.shell = shell
        self.adopted: list[str] = []

    @classmethod
    def for_running_hermes(cls) -> Patch | None:
        """The patch, when the running Hermes is :data:`SUPPORTED` and has what it touches."""
        if running_version() != SUPPORTED:
            return None
        try:
            manager = importlib.import_module("hermes_cli.plugins").get_plugin_manager()
            shell = importlib.import_module(_SHELL_RUNNER)
        except Exception as exc:
            log.warning("hermes-hooks: Hermes Agent internals not found (%s); unpatched", exc)
            return None
        if not (
            isinstance(getattr(manager, "_hooks", None), dict)
            and isinstance(getattr(manager, "_middleware", None), dict)
            and isinstance(getattr(shell, "_registered", None), set)
        ):
            log.warning("hermes-hooks: Hermes Agent %s looks different; unpatched", SUPPORTED)
            return None
        return cls(manager, shell)

    # ------------------------------------------------------------------ the hooks: block

    def claim_hooks_block(self) -> int:
        """Mark every ``hooks:`` entry as registered in Hermes' shell runner (ours runs them);
        returns how many."""
        try:
            config = importlib.import_module("hermes_cli.config").load_config()
            specs = self.shell.iter_configured_hooks(config)
            keys = {(s.event, s.matcher, s.command) for s in specs}
            with self.shell._registered_lock:
                self.shell._registered.update(keys)
        except Exception as exc:
            log.warning("hermes-hooks: could not take over the hooks: block from Hermes: %s", exc)
            return 0
        if keys:
            log.info(
                "hermes-hooks runs the %d hooks: entries; Hermes' registration skipped", len(keys)
            )
        return len(keys)

    # ------------------------------------------------------------------ adopting callbacks

    def lead(self, callbacks: Mapping[str, Callable[..., Any]]) -> None:
        """Put each bridge callback first in Hermes' table: Hermes then calls the bridge before
        any callback not adopted yet, and the bridge adopts them before Hermes reaches them
        (Hermes iterates the very list the adoption empties)."""
        for event, cb in callbacks.items():
            table = self.manager._hooks.get(event)
            if table and table[0] != cb and cb in table:
                table.remove(cb)
                table.insert(0, cb)

    def foreign(
        self, event: str, callbacks: Mapping[str, Callable[..., Any]], middleware: Any = None
    ) -> bool:
        """Whether Hermes' table holds anything but the bridge for ``event``, or (when
        ``middleware`` is given) the bridge's middleware is not last."""
        table = self.manager._hooks.get(event)
        if table is not None and (len(table) != 1 or table[0] != callbacks.get(event)):
            return True
        chain = self.manager._middleware.get("tool_request")
        return middleware is not None and bool(chain) and chain[-1] != middleware

    def adopt(
        self, hooks: Hooks, callbacks: Mapping[str, Callable[..., Any]], middleware: Any = None
    ) -> None:
        """Move every other callback of the bridged events into ``hooks``, grouped by owning
        Hermes plugin and in Hermes' order; put the bridge's ``middleware`` (when given) last.
        Never reorder middleware from inside a middleware call: Hermes is iterating that list."""
        from hermes_hooks.context import PluginContext

        owners = self._owners()
        contexts: dict[str, tuple[PluginContext, dict[str, Any]]] = {}
        dropped = 0
        for event, table in list(self.manager._hooks.items()):
            ours = callbacks.get(event)
            if ours is None:
                continue  # not an event we bridge: Hermes keeps running it
            for cb in list(table):
                if cb == ours:
                    continue
                if _module_of(cb) == _SHELL_RUNNER:
                    dropped += 1  # Hermes' runner for the hooks: block, which ours runs
                    continue
                key, meta = _owner(cb, owners)
                if key not in contexts:
                    name = _free_name(hooks, key)
                    meta = dict(meta)
                    manifest = meta.pop("manifest", None) or {"name": key}
                    contexts[key] = (PluginContext(hooks, name, manifest), meta)
                contexts[key][0].register_hook(event, cb)
            table[:] = [ours]
        # pluggy calls the last registered first: commit in reverse to keep Hermes' order.
        for ctx, meta in reversed(list(contexts.values())):
            ctx.commit(**meta)
            self.adopted.append(ctx.name)
        if contexts or dropped:
            log.info(
                "hermes-hooks adopted the hooks of %s; dropped %d of Hermes' shell-hook callbacks",
                ", ".join(c.name for c, _ in contexts.values()) or "no plugin",
                dropped,
            )
        chain = self.manager._middleware.get("tool_request")
        if middleware is not None and chain and middleware in chain and chain[-1] != middleware:
            chain.remove(middleware)
            chain.append(middleware)

    def release(self, hooks: Hooks) -> None:
        """Forget what was adopted (Hermes rediscovered its plugins and registers them anew)."""
        for name in self.adopted:
            if name in hooks.records:
                hooks.unregister(name)
        self.adopted.clear()

    def _owners(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(module name, plugin key, record metadata) of Hermes' loaded plugins, longest module
        name first so a plugin's submodule finds its own plugin."""
        found = []
        for key, loaded in dict(getattr(self.manager, "_plugins", {})).items():
            module = getattr(loaded, "module", None)
            manifest = getattr(loaded, "manifest", None)
            if module is None:
                continue
            origin = getattr(manifest, "source", "") or ""
            path = getattr(manifest, "path", None)
            meta = {
                "source": "entrypoint" if origin == "entrypoint" else "directory",
                "path": path,
                "version": getattr(manifest, "version", None) or None,
                "description": f"loaded by Hermes Agent ({origin or 'unknown'} plugin)",
                **_our_keys(path, str(key)),
            }
            found.append((module.__name__, str(key), meta))
        found.sort(key=lambda item: -len(item[0]))
        return found


def _our_keys(path: Any, key: str) -> dict[str, Any]:
    """What the plugin's ``plugin.yaml`` says that Hermes does not read and we do
    (``fail_closed``, ``required``, ``timeout``, ``priority``): a plugin Hermes loads keeps its
    guard settings under the bridge, as under ``load()``, read by the same reader (a manifest
    that cannot be read, or a misspelt key, is reported as there)."""
    from hermes_hooks.loader import Manifest, read_manifest

    if not path:
        return {}
    where = Path(str(path))
    manifest = read_manifest(where) if where.is_dir() else Manifest(None, {})
    if where.is_file():  # a path naming the manifest itself
        manifest = read_manifest(where.parent)
    if manifest.error is not None:
        log.warning("%s", manifest.error)
    if manifest.file is None or manifest.error is not None:
        return {}
    return {"manifest": {**manifest.data, "name": key}, **manifest.settings()}


def _module_of(cb: Any) -> str:
    return str(getattr(cb, "__module__", None) or getattr(type(cb), "__module__", ""))


def _owner(cb: Any, owners: list[tuple[str, str, dict[str, Any]]]) -> tuple[str, dict[str, Any]]:
    module = _module_of(cb)
    for prefix, key, meta in owners:
        if module == prefix or module.startswith(prefix + "."):
            return key, meta
    return f"hermes:{module}", {"source": "entrypoint", "description": "registered in Hermes Agent"}


def _free_name(hooks: Hooks, key: str) -> str:
    name, n = key, 1
    while name in hooks.records:
        n += 1
        name = f"{key}#{n}"
    return name
