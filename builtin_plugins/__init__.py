"""Internal: part of the built-ins (docs/builtins.md), not an API.

Plugins that ship with the runtime; registered after every third-party plugin (``trylast``).

Each module (or package, like ``shell_hooks``) listed in :data:`BUILTINS` exposes
``setup(hooks)`` which returns a plugin object to register as ``builtin:<name>`` (or ``None``
when it has nothing to contribute); one that is a :class:`hermes_hooks.sources.HookSource` is
registered as a hook source. ``hooks`` is the :class:`hermes_hooks.Hooks` being loaded; a
built-in reads ``hooks.config`` and ``hooks.home`` from it.

A built-in is switched on by its top-level key in config.yaml or by ``{type: builtin, name:
NAME}`` entries under ``hooks:``; :mod:`.switches` reads both, and each built-in reads its
arguments from there.

Next to each name, a cheap test of whether the home or config gives the source anything to do:
when it says no, the module is not even imported (a host without shell hooks pays nothing for
the shell adapter, ``asyncio`` or the process code). ``setup`` still has the last word.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks


def value(hooks: Hooks, name: str) -> Any:
    """What switches the built-in ``name`` on (:func:`.switches.value`), without importing
    :mod:`.switches` when no ``hooks:`` entry is a ``type: builtin`` one."""
    config: Any = hooks.config
    if config.get(name):
        return config[name]
    block = config.get("hooks")
    if not isinstance(block, Mapping) or not any(
        isinstance(e, Mapping) and e.get("type") == "builtin"
        for entries in block.values()
        if isinstance(entries, list)
        for e in entries
    ):
        return None
    from .switches import value as switched

    return switched(hooks, name)


def _gateway_hooks(hooks: Hooks) -> bool:
    return (hooks.home / "hooks").is_dir()


def _boot_md(hooks: Hooks) -> bool:
    return (hooks.home / "BOOT.md").is_file()


def _shell_hooks(hooks: Hooks) -> bool:
    config: Any = hooks.config
    return (
        config.get("hooks") is not None
        or config.get("hooks_settings_files") is not None
        or bool(config.get("hooks_sources"))
        or (hooks.home / "settings.json").exists()
    )


def _dangerous_patterns(hooks: Hooks) -> bool:
    return bool(value(hooks, "dangerous_patterns"))


def _command_guard(hooks: Hooks) -> bool:
    return bool(value(hooks, "command_guard"))


def _redact_secrets(hooks: Hooks) -> bool:
    return bool(value(hooks, "redact_secrets"))


#: The library's one-line switches (builtin_plugins/library.py keeps the same list).
LIBRARY = (
    "add_date",
    "add_git_status",
    "add_git_diff",
    "add_environment_info",
    "add_user_info",
    "add_recent_commits",
    "add_directory_listing",
    "add_prompt_files",
    "limit_large_tool_results",
)


def _library(hooks: Hooks) -> bool:
    return any(value(hooks, name) for name in LIBRARY)


def _max_iterations(hooks: Hooks) -> bool:
    given = hooks.config.get("max_iterations")  # 0 too: a bad limit is reported, not ignored
    return (given is not None and given is not False) or bool(value(hooks, "max_iterations"))


def _snapshot(hooks: Hooks) -> bool:
    return bool(value(hooks, "snapshot"))


def _http_post(hooks: Hooks) -> bool:
    return bool(value(hooks, "http_post"))


def _required(hooks: Hooks) -> bool:
    # A required guard may be a plugin (plugins.required, plugin.yaml) or a shell hook entry.
    plugins: Any = hooks.config.get("plugins")
    named = isinstance(plugins, dict) and bool(plugins.get("required"))
    manifests = any((r.manifest or {}).get("required") for r in hooks.records.values())
    return named or manifests or _shell_hooks(hooks)


#: Built-in plugin modules and packages, in registration order, each with its "anything to do?"
BUILTINS: dict[str, Callable[[Hooks], bool]] = {
    "gateway_hooks": _gateway_hooks,
    "boot_md": _boot_md,
    "dangerous_patterns": _dangerous_patterns,
    "command_guard": _command_guard,
    "redact_secrets": _redact_secrets,
    "library": _library,
    "max_iterations": _max_iterations,
    "http_post": _http_post,
    "snapshot": _snapshot,
    "shell_hooks": _shell_hooks,
    "required": _required,
}
