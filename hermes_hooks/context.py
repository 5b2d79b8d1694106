"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

What a Hermes-style plugin's ``register(ctx)`` receives: :class:`PluginContext`.

Registrations are collected on the context and committed only when ``register`` returns, so a
plugin that raises halfway leaves nothing behind. After that, the context is live: a plugin that
registers a hook, a tool or a command later (from a hook, a thread, a command handler) gets it
registered at once.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .bus import PluginEvents, ticket
from .dispatch import run_sync
from .markers import hookimpl
from .registries import Entry

if TYPE_CHECKING:
    from .hooks import Hooks


log = logging.getLogger("hermes_hooks")


class HostUnavailable(RuntimeError):
    """A plugin used a capability (``inject_message``, ``dispatch_tool``, ``llm``, ...) that only
    the agent runtime can provide, and no runtime registered one with ``hooks.set_host()``."""


class Host(Protocol):
    """What an agent runtime may give plugins through ``hooks.set_host(host)``.

    Every member is optional; a missing one makes the plugin call fail with
    :class:`HostUnavailable`.
    """

    def inject_message(self, content: str, role: str = "user") -> bool: ...

    def dispatch_tool(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str: ...

    def run_background_task(self, prompt: str, **kwargs: Any) -> Any: ...

    def call_mcp_tool(self, server: str, tool: str, arguments: dict[str, Any]) -> Any: ...

    llm: Any


@dataclass
class _Pending:
    hooks: list[tuple[str, Callable[..., Any]]] = field(default_factory=list)
    entries: list[tuple[str, Entry]] = field(default_factory=list)
    listeners: list[tuple[str, Callable[[Any], Any]]] = field(default_factory=list)


class PluginContext:
    """The ``ctx`` a Hermes-style ``register(ctx)`` receives.

    Offers Hermes Agent's plugin surface: ``register_hook``, ``register_tool``,
    ``register_command``, ``register_cli_command``, ``register_skill``, ``register_middleware``,
    ``inject_message``, ``dispatch_tool``, ``llm``, ``profile_name``, ``manifest``, ``config``,
    ``get_config``, and ``events``. Other ``register_<kind>`` calls of newer hosts are kept in
    ``hooks.extensions[<kind>]`` so such plugins still load.
    """

    def __init__(self, hooks: Hooks, name: str, manifest: Mapping[str, Any] | None = None) -> None:
        self._hooks = hooks
        self.name = name
        self.manifest: dict[str, Any] = {"name": name, **dict(manifest or {})}
        self._pending = _Pending()
        self._live = False
        self.events = PluginEvents(hooks.bus, name, self._pending.listeners, ticket())

    # -- configuration -----------------------------------------------------------------

    @property
    def config(self) -> dict[str, Any]:
        """The whole loaded config, as a plain dict."""
        return self._hooks.config

    def get_config(self, key: str | None = None, default: Any = None) -> Any:
        """A config value by dotted path (``"plugins.entries.myplugin.level"``); without a key,
        this plugin's own section ``plugins.entries.<name>`` (or ``<name>`` at the top)."""
        if key is None:
            entries = self.config.get("plugins", {})
            entries = entries.get("entries", {}) if isinstance(entries, dict) else {}
            own = entries.get(self.name) if isinstance(entries, dict) else None
            if own is None:
                own = self.config.get(self.name)
            return own if own is not None else default
        node: Any = self.config
        for part in key.split("."):
            if not isinstance(node, Mapping) or part not in node:
                return default
            node = node[part]
        return node

    @property
    def profile_name(self) -> str:
        """``"default"`` for ``~/.hermes``, the profile's name under ``.../profiles/<name>``,
        else ``"custom"``."""
        home = self._hooks.home
        if home.parent.name == "profiles":
            return home.name
        if home.expanduser().resolve() == (Path.home() / ".hermes").resolve():
            return "default"
        return "custom"

    # -- hooks --------------------------------------------------------------------------

    def register_hook(self, hook_name: str, callback: Callable[..., Any]) -> None:
        """Call ``callback(**kwargs)`` when ``hook_name`` fires. Claude Code and docker-agent
        names are accepted; an unknown name is kept (with a warning) for newer hosts."""
        if not callable(callback):
            raise TypeError(f"register_hook({hook_name!r}, ...): the callback is not callable")
        info = self._hooks.manager.find_event(hook_name)
        if info is None:
            from .catalogue import suggest

            guess = suggest(hook_name, [*self._hooks.events])
            hint = f"; did you mean {guess!r}?" if guess else ""
            manifest = self.manifest
            if (manifest.get("fail_closed") is True or manifest.get("required")
                    or guess in self._hooks.manager.fail_closed_events):  # fmt: skip
                # a guard registered on a misspelt event would guard nothing: it fails to load,
                # and a failed fail_closed plugin blocks (builtin_plugins/required.py)
                raise ValueError(
                    f"register_hook({hook_name!r}, ...): no such event{hint} (plugin "
                    f"{self.name!r} is a guard, fail_closed or required: a hook on a misspelt "
                    "event would guard nothing)"
                )
            log.warning(
                "plugin %r registered unknown hook %r%s (kept: a newer host may fire it)",
                self.name,
                hook_name,
                hint,
            )
        self._pending.hooks.append((info.name if info else hook_name, callback))
        if self._live:
            self._hooks.manager.replace(self.name, _hermes_plugin_object(self._pending.hooks))

    def register_middleware(self, kind: str, callback: Callable[..., Any]) -> None:
        """Register behaviour-changing middleware of ``kind``; the host reads
        ``hooks.middleware[kind]`` (a tuple of entries, in registration order)."""
        self._add("middleware", Entry(kind, callback, self.name))

    # -- registries ---------------------------------------------------------------------

    def register_tool(
        self,
        name: str,
        toolset: str,
        schema: dict[str, Any],
        handler: Callable[..., Any],
        check_fn: Callable[..., Any] | None = None,
        requires_env: list[Any] | None = None,
        is_async: bool = False,
        description: str = "",
        emoji: str = "",
        override: bool = False,
    ) -> None:
        """Offer a tool to the model; the host reads ``hooks.tools[name]``."""
        self._add(
            "tools",
            Entry(
                name,
                handler,
                self.name,
                {
                    "toolset": toolset,
                    "schema": schema,
                    "check_fn": check_fn,
                    "requires_env": list(requires_env or []),
                    "is_async": is_async,
                    "description": description,
                    "emoji": emoji,
                    "override": override,
                },
            ),
        )

    def register_command(
        self, name: str, handler: Callable[..., Any], description: str = "", args_hint: str = ""
    ) -> None:
        """Register an in-session slash command (``/name``); ``handler(raw_args) -> str | None``."""
        clean = name.lower().strip().lstrip("/").replace(" ", "-")
        if not clean:
            log.warning("plugin %r tried to register a command with an empty name", self.name)
            return
        meta = {"description": description or "Plugin command", "args_hint": args_hint.strip()}
        self._add("commands", Entry(clean, handler, self.name, meta))

    def register_cli_command(
        self,
        name: str,
        help: str,
        setup_fn: Callable[..., Any],
        handler_fn: Callable[..., Any] | None = None,
        description: str = "",
    ) -> None:
        """Register a terminal subcommand (``hermes <name> ...``) for the host's CLI."""
        meta = {"help": help, "setup_fn": setup_fn, "description": description}
        self._add("cli_commands", Entry(name, handler_fn, self.name, meta))

    def register_skill(self, name: str, path: str | Path, description: str = "") -> None:
        """Register a read-only skill (a ``SKILL.md`` file, or a directory holding one), resolvable
        as ``"<plugin>:<name>"``."""
        if ":" in name or not name or not all(c.isalnum() or c in "-_" for c in name):
            raise ValueError(f"invalid skill name {name!r}: use letters, digits, '-' and '_'")
        p = Path(path)
        skill_file = p / "SKILL.md" if p.is_dir() else p
        if not skill_file.is_file():
            raise FileNotFoundError(f"SKILL.md not found at {skill_file}")
        qualified = f"{self.name}:{name}"
        meta = {"path": skill_file, "bare_name": name, "description": description}
        self._add("skills", Entry(qualified, skill_file, self.name, meta))

    def __getattr__(self, attr: str) -> Any:
        # register_platform, register_context_engine, register_tts_provider, ...: capabilities of
        # newer or richer hosts. Keep what the plugin offers so it loads, and let the host read it.
        if attr.startswith("register_"):
            kind = attr[len("register_") :]

            def register_extension(*args: Any, **kwargs: Any) -> None:
                payload = args[0] if len(args) == 1 and not kwargs else {"args": args, **kwargs}
                self._add("extensions", Entry(kind, payload, self.name))
                log.info(
                    "plugin %r registered %s (kept in hooks.extensions[%r])", self.name, kind, kind
                )

            return register_extension
        raise AttributeError(attr)

    # -- host capabilities ----------------------------------------------------------------

    def _host(self, capability: str) -> Any:
        host = self._hooks.host
        member = getattr(host, capability, None) if host is not None else None
        if member is None:
            raise HostUnavailable(
                f"plugin {self.name!r} used ctx.{capability}, which the agent runtime provides; "
                "this runtime has not registered it (the embedding code calls hooks.set_host(host))"
            )
        return member

    def inject_message(self, content: str, role: str = "user") -> bool:
        """Put a message into the active conversation (through the host)."""
        return bool(self._host("inject_message")(content, role))

    def dispatch_tool(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        """Run a tool through the host's registry and return its result string."""
        return str(self._host("dispatch_tool")(tool_name, args, **kwargs))

    @property
    def llm(self) -> Any:
        """The host's model facade for plugins."""
        return self._host("llm")

    # -- commit --------------------------------------------------------------------------

    def _add(self, kind: str, entry: Entry) -> None:
        if self._live:
            self._hooks.registries.add(kind, entry)
        else:
            self._pending.entries.append((kind, entry))

    def commit(self, **meta: Any) -> None:
        """Register everything collected during ``register(ctx)`` (the loader calls this when
        ``register`` returned); keyword metadata goes to the plugin's record. From then on the
        context is live."""
        hooks = self._hooks
        hooks.register(
            _hermes_plugin_object(self._pending.hooks),
            self.name,
            manifest=self.manifest,
            **meta,
        )
        for kind, entry in self._pending.entries:
            hooks.registries.add(kind, entry)
        self.events.go_live()
        self._live = True

    def registered(self) -> dict[str, list[str]]:
        """What this context collected so far (for ``hermes hooks install`` reports)."""
        out: dict[str, list[str]] = {"hooks": [h for h, _ in self._pending.hooks]}
        for kind in ("tools", "commands", "cli_commands", "skills", "middleware"):
            out[kind] = [e.name for k, e in self._pending.entries if k == kind]
        return out


def _hermes_plugin_object(callbacks: list[tuple[str, Callable[..., Any]]]) -> Any:
    """A pluggy plugin holding one hookimpl per ``register_hook`` callback.

    pluggy calls a plugin's impls of one hook last-registered-first and registers attributes in
    name order, so the attribute names count down to keep Hermes' registration order.
    """
    namespace: dict[str, Any] = {}
    total = len(callbacks)
    for index, (event, cb) in enumerate(callbacks):
        namespace[f"hook_{total - index:05d}"] = hookimpl(specname=event)(_bind(cb))
    attrs: dict[str, Any] = {k: staticmethod(v) for k, v in namespace.items()}
    attrs["keeps_unknown_events"] = True  # register_hook keeps unknown names (warned above)
    return type("HermesPlugin", (), attrs)()


def _bind(cb: Callable[..., Any]) -> Callable[..., Any]:
    def impl(**kwargs: Any) -> Any:
        result = cb(**kwargs)
        if inspect.isawaitable(result):
            return run_sync(result)
        return result

    impl.__hermes_callback__ = cb  # type: ignore[attr-defined]  # marker the manager reads
    impl.__qualname__ = getattr(cb, "__qualname__", repr(cb))
    impl.__name__ = getattr(cb, "__name__", "callback")
    return impl
