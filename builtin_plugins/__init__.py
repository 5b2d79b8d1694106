"""Internal: part of the built-ins (docs/builtins.md), not an API.

Plugins that ship with the runtime; registered after every third-party plugin (``trylast``).

Each built-in is a module (or package, like ``shell_hooks``) that exposes ``setup(hooks)``, which
returns a plugin object to register as ``builtin:<name>`` (or ``None`` when it has nothing to
contribute); one that is a :class:`hermes_hooks.sources.HookSource` is registered as a hook
source. ``hooks`` is the :class:`hermes_hooks.Hooks` being loaded; a built-in reads
``hooks.config`` and ``hooks.home`` from it.

Every built-in declares itself once, here (:data:`DECLARED`): its name, the config switches it
owns (each with the events it serves, its main argument and the keys its arguments accept), the
other top-level config.yaml keys it reads, and a cheap test of whether the home or config gives it
anything to do. The declarations live in this one module, which imports no built-in, because the
loader reads them before importing any: when the test says no, the module is not even imported (a
host without shell hooks pays nothing for the shell adapter, ``asyncio`` or the process code).
``setup`` still has the last word. Each built-in reads its own declaration back with
:func:`declared`, and every table that lists built-ins is derived from :data:`DECLARED`
(:data:`BUILTINS`, :data:`LIBRARY`, the tables of :mod:`.switches`,
``CONFIG_KEYS``, which the runtime builder gives ``hermes_hooks.config``); ``tests/test_builtin_declarations.py`` checks each
declaration against its module.

A switch is turned on by its top-level key in config.yaml or by ``{type: builtin, name: NAME}``
entries under ``hooks:``; :mod:`.switches` reads both, and each built-in reads its arguments from
there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks


@dataclass(frozen=True)
class Switch:
    """A config switch: ``NAME: true`` (or its arguments) at the top level of config.yaml, or
    ``{type: builtin, name: NAME, args: ...}`` under an event of ``hooks:``."""

    name: str
    #: The events it serves (``None``: any event it is told to, like ``http_post``).
    serves: tuple[str, ...] | None
    #: The argument a list of ``args`` fills (``None``: a list is the bare value).
    main_arg: str | None = None
    #: The main argument is list-valued: a list of ``args`` is its whole value.
    list_arg: bool = False
    #: The keys its mapping of arguments accepts.
    keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class Builtin:
    """One built-in module or package of ``builtin_plugins/``."""

    #: Its module (or package) name; registered as ``builtin:<name>``.
    name: str
    #: The switches it owns (the library has several, most built-ins one, some none).
    switches: tuple[Switch, ...] = ()
    #: Other top-level config.yaml keys it reads (``boot_md: false``, ``hooks_env``, ...).
    config: tuple[str, ...] = ()
    #: Whether the home or config gives it anything to do (cheap: reads no built-in module);
    #: ``None``: one of its switches is on.
    wanted: Callable[[Hooks], bool] | None = None

    def wants(self, hooks: Hooks) -> bool:
        """Whether to import and set it up for ``hooks``."""
        if self.wanted is not None:
            return self.wanted(hooks)
        return any(value(hooks, switch.name) for switch in self.switches)

    @property
    def switch(self) -> Switch:
        """Its one switch (for a built-in that owns exactly one)."""
        (only,) = self.switches
        return only


def value(hooks: Hooks, name: str) -> Any:
    """Whether the config switches the built-in ``name`` on, read cheaply: its top-level value,
    else ``True`` when a ``type: builtin`` entry under ``hooks:`` names it. Only the "anything
    to do?" tests use it; a built-in reads its arguments with :func:`.switches.value`, which
    also reports what is wrong (this module does not import :mod:`.switches`, which reads the
    declarations here)."""
    config: Any = hooks.config
    if config.get(name):
        return config[name]
    block = config.get("hooks")
    named = isinstance(block, Mapping) and any(
        isinstance(e, Mapping) and e.get("type") == "builtin" and e.get("name") == name
        for entries in block.values()
        if isinstance(entries, list)
        for e in entries
    )
    return True if named else None


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


def _max_iterations(hooks: Hooks) -> bool:
    given = hooks.config.get("max_iterations")  # 0 too: a bad limit is reported, not ignored
    return (given is not None and given is not False) or bool(value(hooks, "max_iterations"))


def failed_guard(record: Any, fail_closed_events: Any) -> bool:
    """Whether ``record`` is a Python plugin that failed to load and was a guard: ``fail_closed``
    in its plugin.yaml, or any while config.yaml's ``fail_closed_events`` makes every hook of
    those events fail closed (an entry point has no plugin.yaml). It has no answer on any of
    its events, so they block as a required guard's do (builtin_plugins/required.py)."""
    return (
        record.status == "failed"
        and record.source not in ("builtin", "gateway")
        and ((record.manifest or {}).get("fail_closed") is True or bool(fail_closed_events))
    )


def _required(hooks: Hooks) -> bool:
    # A required guard may be a plugin (plugins.required, plugin.yaml) or a shell hook entry;
    # a fail_closed plugin that failed to load blocks as one does (failed_guard).
    plugins: Any = hooks.config.get("plugins")
    named = isinstance(plugins, dict) and bool(plugins.get("required"))
    closed = hooks.manager.fail_closed_events
    manifests = any(
        (r.manifest or {}).get("required") or failed_guard(r, closed)
        for r in hooks.records.values()
    )
    return named or manifests or _shell_hooks(hooks)


_CONTEXT = ("pre_llm_call",)
_URLS = ("allowed_http_hook_urls", "allowed_env_vars")

#: Every built-in, in registration order.
DECLARED: tuple[Builtin, ...] = (
    Builtin("gateway_hooks", config=("gateway_hooks",), wanted=_gateway_hooks),
    Builtin("boot_md", config=("boot_md",), wanted=_boot_md),
    Builtin(
        "dangerous_patterns",
        (Switch("dangerous_patterns", ("pre_tool_call",), keys=("enable_groups",)),),
    ),
    Builtin(
        "command_guard",
        (
            Switch(
                "command_guard",
                ("pre_tool_call",),
                main_arg="packs",
                list_arg=True,
                keys=("packs", "allow", "ask_instead"),
            ),
        ),
    ),
    Builtin(
        "redact_secrets",
        (
            Switch(
                "redact_secrets",
                ("pre_tool_call", "transform_messages", "transform_tool_result"),
                main_arg="patterns",
                list_arg=True,
                keys=("patterns",),
            ),
        ),
    ),
    Builtin(
        "library",
        (
            Switch("add_date", _CONTEXT),
            Switch("add_git_status", _CONTEXT),
            Switch("add_git_diff", _CONTEXT, keys=("full", "max_bytes")),
            Switch("add_environment_info", _CONTEXT),
            Switch("add_user_info", _CONTEXT),
            Switch("add_recent_commits", _CONTEXT, main_arg="count", keys=("count",)),
            Switch(
                "add_directory_listing", _CONTEXT, main_arg="max_entries", keys=("max_entries",)
            ),
            Switch(
                "add_prompt_files",
                _CONTEXT,
                main_arg="files",
                list_arg=True,
                keys=("files", "max_bytes"),
            ),
            Switch(
                "limit_large_tool_results",
                ("transform_tool_result",),
                main_arg="max_bytes",
                keys=("max_bytes",),
            ),
        ),
    ),
    Builtin(
        "max_iterations",
        # counts on pre_api_request, refuses on pre_tool_call and user_prompt_submit, forgets a
        # session on reset: an entry under any of them switches it on whole
        (
            Switch(
                "max_iterations",
                ("pre_api_request", "pre_tool_call", "user_prompt_submit", "on_session_reset"),
                main_arg="limit",
                keys=("limit",),
            ),
        ),
        wanted=_max_iterations,
    ),
    Builtin(
        "http_post",
        (Switch("http_post", None, main_arg="url", keys=("url", "events", "timeout", "headers")),),
        config=_URLS,
    ),
    Builtin(
        "snapshot",
        (
            Switch(
                "snapshot",
                ("pre_llm_call", "post_llm_call", "pre_tool_call", "post_tool_call"),
                main_arg="max_file_bytes",
                keys=("max_file_bytes", "events"),
            ),
        ),
    ),
    Builtin(
        "shell_hooks",
        config=(
            "hooks_settings_files",
            "hooks_sources",
            "hooks_auto_accept",
            "hooks_max_output",
            "hooks_max_stop_continues",
            "hooks_env",
            *_URLS,
        ),
        wanted=_shell_hooks,
    ),
    Builtin("required", wanted=_required),
)

#: Built-in plugin modules and packages by name, in registration order.
BUILTINS: dict[str, Builtin] = {builtin.name: builtin for builtin in DECLARED}
#: Every config switch by name.
SWITCHES: dict[str, Switch] = {s.name: s for builtin in DECLARED for s in builtin.switches}


def declared(name: str) -> Builtin:
    """The declaration of the built-in module ``name`` (a built-in reads its own here)."""
    return BUILTINS[name]


#: The library's one-line switches.
LIBRARY = tuple(switch.name for switch in declared("library").switches)
#: Every top-level config.yaml key a built-in reads (its switches, then its other keys): what
#: the runtime builder hands the config check besides the core's own keys.
CONFIG_KEYS = tuple(
    dict.fromkeys(key for b in DECLARED for key in (*(s.name for s in b.switches), *b.config))
)
