"""Internal: the one runtime builder. :func:`hermes_hooks.load`, every CLI command and the Hermes
Agent bridge (:mod:`hermes_hooks.hermes.agent`) build their :class:`~hermes_hooks.Hooks` here,
with the same sources in the same order.

This is the one module of the core that imports the built-ins (:mod:`hermes_hooks.builtin_plugins`):
assembling them is its job. The rest of the core learns about them through what this module
passes in (the built-ins' config switches to the config check and to :meth:`Hooks.rows`).

The order: the host's events, the config check, third-party plugins (discovery order), then every
built-in of :data:`hermes_hooks.builtin_plugins.BUILTINS` in its order (each decides from the
config whether it has anything to do). What a host changes is a parameter:

- ``hermes_plugins=False``: Hermes-style plugins (plugin directories, ``hermes_agent.plugins``
  entry points) are loaded by the host itself (Hermes Agent), not here; a guard that
  ``plugins.required`` names among them counts as present (:attr:`Hooks.hosted`).
- ``gateway_hooks=False``: ``<home>/hooks/*/HOOK.yaml`` gateway hooks are run by the host's own
  gateway (Hermes Agent's), so they are not loaded here (they run once); a required one counts as
  present.
- ``ask``: how a person approves a shell hook at its first firing (``False``: nobody, the CLI).
- ``inspecting=True``: built for a command that inspects the hooks (``hermes hooks test``,
  ``doctor``, ``verify``, ``approve``) rather than for an agent run: sources start nothing ahead
  of use (no warm workers) and do not warn at load about what the command itself reports
  (unapproved shell hooks); ``--accept-hooks`` still approves at load.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .hooks import Hooks


def build_runtime(
    home: str | os.PathLike[str] | None = None,
    config: Mapping[str, Any] | str | os.PathLike[str] | None = None,
    *,
    accept_hooks: bool = False,
    host: Any = None,
    entry_points: bool = True,
    builtins: bool = True,
    hookspecs: Iterable[Any] = (),
    hermes_plugins: bool = True,
    gateway_hooks: bool = True,
    ask: Callable[[str], bool] | bool | None = None,
    inspecting: bool = False,
) -> Hooks:
    """Build the hook runtime of ``home``: read its config, register plugins and built-ins.

    The parameters are :func:`hermes_hooks.load`'s, plus ``gateway_hooks`` (load the home's
    HOOK.yaml gateway hooks; ``False`` when the host's own gateway runs them) and ``inspecting``
    (see the module's docstring). ``builtins=False`` leaves every built-in out (tests of the
    dispatcher alone)."""
    from .builtin_plugins import CONFIG_KEYS
    from .config import check_config, env_flag, find_home, load_config
    from .hooks import Hooks
    from .loader import host_hookspecs, load_plugins

    root = find_home(home)
    if root.exists() and not root.is_dir():
        # nothing under it can be read: no config, no plugin, no guard; said, never silent
        import logging

        logging.getLogger("hermes_hooks").warning(
            "the hermes home %s is a file, not a directory: no config.yaml, plugin or hook of "
            "it can load; point --home / HERMES_HOME at the home's directory",
            root,
        )
    loaded = load_config(root, config)
    hooks = Hooks(
        home=root,
        config=loaded.data,
        config_path=loaded.path,
        accept_hooks=accept_hooks or env_flag("HERMES_ACCEPT_HOOKS"),
        host=host,
    )
    hooks.config_errors = loaded.errors
    hooks.switchable_builtins = switchable_builtins
    hooks.ask = ask
    hooks.safe_mode = env_flag("HERMES_SAFE_MODE")  # no plugin, shell hook or gateway hook
    hooks.gateway_hooks = gateway_hooks
    hooks.inspecting = inspecting
    for module in [*hookspecs, *host_hookspecs(hooks.config, loaded.path)]:
        hooks.add_hookspecs(module)
    if loaded.errors:
        # A config that cannot be read must not re-enable what it disables, nor drop its guards.
        from .builtin_plugins import lockdown

        lockdown.engage(hooks, loaded.errors)
        return hooks
    hooks.config_warnings = check_config(
        hooks.config, str(loaded.path or "the config"), CONFIG_KEYS
    )
    load_plugins(hooks, entry_points=entry_points, hermes_plugins=hermes_plugins)
    if builtins:
        load_builtins(hooks)
    hooks.start_watchdog()
    return hooks


def switchable_builtins() -> frozenset[str]:
    """The built-ins a config can switch on (:data:`.builtin_plugins.switches.SERVES`), read
    when asked: a runtime that is never listed does not import the switches."""
    from .builtin_plugins.switches import SERVES

    return frozenset(SERVES)


def load_builtins(hooks: Hooks, names: Iterable[str] | None = None) -> None:
    """Register the built-in plugins (after everything else: they are ``trylast``)."""
    import importlib
    import logging

    from .builtin_plugins import BUILTINS
    from .loader import describe
    from .records import PluginRecord
    from .sources import HookSource

    if names is None and _builtin_entries(hooks.config):
        # Read every `type: builtin` entry now, so one naming no built-in (a misspelt name)
        # is reported: no built-in's "anything to do?" test looks at a name it does not own.
        from .builtin_plugins.switches import switches

        switches(hooks)
    for modname in names if names is not None else BUILTINS:
        name = f"builtin:{modname}"
        builtin = BUILTINS.get(modname)
        if builtin is not None and not builtin.wants(hooks):
            continue  # nothing configured for it: not even imported
        try:
            module = importlib.import_module(f"{__package__}.builtin_plugins.{modname}")
            plugin = module.setup(hooks)
        except Exception as exc:
            logging.getLogger("hermes_hooks").warning(
                "built-in plugin %r failed to start: %s", modname, describe(exc)
            )
            hooks.record(
                PluginRecord(name=name, source="builtin", status="failed", error=describe(exc))
            )
            continue
        if plugin is None:
            continue
        path = getattr(module, "__file__", None)
        if isinstance(plugin, HookSource):
            hooks.add_source(plugin, name, path=path)
        else:
            hooks.register(plugin, name, source="builtin", path=path)


def _builtin_entries(config: Mapping[str, Any]) -> bool:
    block = config.get("hooks")
    return isinstance(block, Mapping) and any(
        isinstance(entry, Mapping) and entry.get("type") == "builtin"
        for entries in block.values()
        if isinstance(entries, list)
        for entry in entries
    )


__all__ = ["build_runtime", "load_builtins"]
