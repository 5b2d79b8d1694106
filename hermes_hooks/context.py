"""What a Hermes-style plugin's ``register(ctx)`` receives: :class:`PluginContext`.

Registrations are collected on the context and committed only when ``register`` returns, so a
plugin that raises halfway leaves nothing behind.
"""

from __future__ import annotations

import bisect
import inspect
import itertools
import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from . import catalogue
from .markers import hookimpl

if TYPE_CHECKING:
    from .manager import Hooks

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

    llm: Any


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
    """A read-only mapping from name to :class:`Entry` (middleware: kind to a tuple of entries)."""

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
        self.tools = Registry()
        self.commands = Registry()
        self.cli_commands = Registry()
        self.skills = Registry()
        self.middleware = Registry()
        self.extensions = Registry()

    def _all(self) -> tuple[Registry, ...]:
        return (self.tools, self.commands, self.cli_commands, self.skills)

    def drop(self, plugin: str) -> None:
        """Forget everything ``plugin`` registered."""
        for reg in self._all():
            for key in [k for k, e in reg._items.items() if e.plugin == plugin]:
                del reg._items[key]
        for reg in (self.middleware, self.extensions):
            for key, entries in list(reg._items.items()):
                kept = tuple(e for e in entries if e.plugin != plugin)
                if kept:
                    reg._items[key] = kept
                else:
                    del reg._items[key]


#: Subscription order across the whole process. A plugin context draws its number when it is
#: created (in discovery order), so its listeners keep that place even though the loader commits
#: plugins in reverse; a live subscription draws a fresh one.
_ORDER = itertools.count()


class EventBus:
    """Plugin-to-plugin messages: ``ctx.events.on(name, cb)`` and ``ctx.events.emit(name, payload)``.

    Delivery order: plugins' listeners in plugin discovery order (within a plugin, in the order it
    subscribed), then later subscriptions (the host's, or a plugin's after it loaded) in the order
    they were made. A listener that raises (any ``Exception``, or ``SystemExit``) is logged with its
    owner and the message name, counted in :attr:`failures`, and skipped: the others still get the
    message. An ``async`` listener is awaited: ``emit`` runs it to completion, ``aemit`` awaits it
    on the running loop, one listener after the other. Both return the listeners' non-``None``
    results in delivery order. Names are free-form strings (``"memory:saved"``); ``*`` is not a
    wildcard here.
    """

    def __init__(self) -> None:
        self._listeners: dict[str, list[tuple[int, str, Callable[[Any], Any]]]] = {}
        self._lock = threading.Lock()
        #: Failures per ``(owner, message name)``.
        self.failures: Counter[tuple[str, str]] = Counter()

    def on(
        self,
        name: str,
        callback: Callable[[Any], Any],
        *,
        owner: str = "host",
        order: int | None = None,
    ) -> None:
        """Call ``callback(payload)`` for every message ``name``."""
        if not callable(callback):
            raise TypeError(f"events.on({name!r}, ...): the callback is not callable")
        key = next(_ORDER) if order is None else order
        with self._lock:
            entries = list(self._listeners.get(name, ()))
            bisect.insort_right(entries, (key, owner, callback), key=lambda e: e[0])
            self._listeners[name] = entries

    def off(self, name: str, callback: Callable[[Any], Any]) -> None:
        """Stop calling ``callback`` for ``name``."""
        with self._lock:
            self._listeners[name] = [
                e for e in self._listeners.get(name, []) if e[2] is not callback
            ]

    def drop(self, owner: str) -> None:
        """Forget every listener of ``owner`` (a plugin being unregistered)."""
        with self._lock:
            for name in list(self._listeners):
                self._listeners[name] = [e for e in self._listeners[name] if e[1] != owner]

    def listeners(self, name: str) -> list[tuple[str, Callable[[Any], Any]]]:
        """``(owner, callback)`` pairs for ``name``, in delivery order."""
        return [(owner, cb) for _, owner, cb in self._listeners.get(name, ())]

    def _failed(self, owner: str, name: str, exc: BaseException) -> None:
        self.failures[(owner, name)] += 1
        log.warning(
            "event listener of %r for %r failed: %s: %s (skipped)",
            owner,
            name,
            type(exc).__name__,
            exc,
        )

    def emit(self, name: str, payload: Any = None) -> list[Any]:
        """Deliver ``payload`` to every listener of ``name``; return their non-``None`` results."""
        from .manager import run_sync

        out = []
        for owner, cb in self.listeners(name):
            try:
                value = cb(payload)
                if inspect.isawaitable(value):
                    value = run_sync(value)
            except (Exception, SystemExit) as exc:
                self._failed(owner, name, exc)
                continue
            if value is not None:
                out.append(value)
        return out

    async def aemit(self, name: str, payload: Any = None) -> list[Any]:
        """:meth:`emit` for async code: async listeners are awaited on the running loop."""
        out = []
        for owner, cb in self.listeners(name):
            try:
                value = cb(payload)
                if inspect.isawaitable(value):
                    value = await value
            except (Exception, SystemExit) as exc:
                self._failed(owner, name, exc)
                continue
            if value is not None:
                out.append(value)
        return out


class _PluginEvents:
    """``ctx.events``: the shared :class:`EventBus`, with this plugin as the owner.

    Subscriptions made during ``register(ctx)`` wait for the plugin to load (a plugin whose
    ``register`` raises leaves none behind); later ones take effect at once.
    """

    def __init__(
        self, bus: EventBus, owner: str, pending: list[tuple[str, Callable[[Any], Any]]], order: int
    ) -> None:
        self._bus, self._owner, self._pending, self._order = bus, owner, pending, order
        self._live = False

    def on(self, name: str, callback: Callable[[Any], Any]) -> None:
        """Call ``callback(payload)`` for every message ``name``."""
        if not callable(callback):
            raise TypeError(f"events.on({name!r}, ...): the callback is not callable")
        if self._live:
            self._bus.on(name, callback, owner=self._owner)
        else:
            self._pending.append((name, callback))

    def _commit(self) -> None:
        for name, cb in self._pending:
            self._bus.on(name, cb, owner=self._owner, order=self._order)
        self._live = True

    def emit(self, name: str, payload: Any = None) -> list[Any]:
        """Deliver ``payload`` to every listener of ``name``; return their non-``None`` results."""
        return self._bus.emit(name, payload)

    async def aemit(self, name: str, payload: Any = None) -> list[Any]:
        """:meth:`emit` for async code."""
        return await self._bus.aemit(name, payload)


@dataclass
class _Pending:
    hooks: list[tuple[str, Callable[..., Any]]] = field(default_factory=list)
    tools: dict[str, Entry] = field(default_factory=dict)
    commands: dict[str, Entry] = field(default_factory=dict)
    cli_commands: dict[str, Entry] = field(default_factory=dict)
    skills: dict[str, Entry] = field(default_factory=dict)
    middleware: list[Entry] = field(default_factory=list)
    extensions: list[Entry] = field(default_factory=list)
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
        self.events = _PluginEvents(hooks.bus, name, self._pending.listeners, next(_ORDER))

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
        info = catalogue.get(hook_name)
        if info is None:
            guess = catalogue.suggest(hook_name)
            hint = f"; did you mean {guess!r}?" if guess else ""
            log.warning(
                "plugin %r registered unknown hook %r%s (kept: a newer host may fire it)",
                self.name,
                hook_name,
                hint,
            )
            self._pending.hooks.append((hook_name, callback))
        else:
            self._pending.hooks.append((info.name, callback))

    def register_middleware(self, kind: str, callback: Callable[..., Any]) -> None:
        """Register behaviour-changing middleware of ``kind``; the host reads
        ``hooks.middleware[kind]`` (a tuple of entries, in registration order)."""
        self._pending.middleware.append(Entry(kind, callback, self.name))

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
        self._pending.tools[name] = Entry(
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
        )

    def register_command(
        self, name: str, handler: Callable[..., Any], description: str = "", args_hint: str = ""
    ) -> None:
        """Register an in-session slash command (``/name``); ``handler(raw_args) -> str | None``."""
        clean = name.lower().strip().lstrip("/").replace(" ", "-")
        if not clean:
            log.warning("plugin %r tried to register a command with an empty name", self.name)
            return
        self._pending.commands[clean] = Entry(
            clean,
            handler,
            self.name,
            {
                "description": description or "Plugin command",
                "args_hint": (args_hint or "").strip(),
            },
        )

    def register_cli_command(
        self,
        name: str,
        help: str,
        setup_fn: Callable[..., Any],
        handler_fn: Callable[..., Any] | None = None,
        description: str = "",
    ) -> None:
        """Register a terminal subcommand (``hermes <name> ...``) for the host's CLI."""
        self._pending.cli_commands[name] = Entry(
            name,
            handler_fn,
            self.name,
            {"help": help, "setup_fn": setup_fn, "description": description},
        )

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
        self._pending.skills[qualified] = Entry(
            qualified,
            skill_file,
            self.name,
            {"path": skill_file, "bare_name": name, "description": description},
        )

    def __getattr__(self, attr: str) -> Any:
        # register_platform, register_context_engine, register_tts_provider, ...: capabilities of
        # newer or richer hosts. Keep what the plugin offers so it loads, and let the host read it.
        if attr.startswith("register_"):
            kind = attr[len("register_") :]

            def register_extension(*args: Any, **kwargs: Any) -> None:
                payload = args[0] if len(args) == 1 and not kwargs else {"args": args, **kwargs}
                self._pending.extensions.append(Entry(kind, payload, self.name))
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

    def _commit(
        self,
        *,
        fail_closed: bool = False,
        priority: int = 0,
        source: str,
        path: str | None,
        version: str | None,
        description: str = "",
    ) -> None:
        """Register everything collected during ``register(ctx)``."""
        hooks = self._hooks
        plugin = _hermes_plugin_object(self._pending.hooks)
        hooks.register(
            plugin,
            self.name,
            source=source,
            fail_closed=fail_closed,
            path=path,
            version=version,
            description=description,
        )
        rec = hooks.records[self.name]
        rec.priority = priority
        rec.manifest = dict(self.manifest)
        regs = hooks.registries
        with hooks._lock:
            for target, items in (
                (regs.tools, self._pending.tools),
                (regs.commands, self._pending.commands),
                (regs.cli_commands, self._pending.cli_commands),
                (regs.skills, self._pending.skills),
            ):
                for key, entry in items.items():
                    if key in target._items and target._items[key].plugin != self.name:
                        log.warning(
                            "plugin %r re-registered %r (was %r's); the later registration wins",
                            self.name,
                            key,
                            target._items[key].plugin,
                        )
                    target._items[key] = entry
            for entry in self._pending.middleware:
                regs.middleware._items[entry.name] = (
                    *regs.middleware._items.get(entry.name, ()),
                    entry,
                )
            for entry in self._pending.extensions:
                regs.extensions._items[entry.name] = (
                    *regs.extensions._items.get(entry.name, ()),
                    entry,
                )
        self.events._commit()

    def registered(self) -> dict[str, list[str]]:
        """What this context collected so far (for ``hermes hooks install`` reports)."""
        p = self._pending
        return {
            "hooks": [h for h, _ in p.hooks],
            "tools": list(p.tools),
            "commands": list(p.commands),
            "cli_commands": list(p.cli_commands),
            "skills": list(p.skills),
            "middleware": [e.name for e in p.middleware],
        }


def _hermes_plugin_object(callbacks: list[tuple[str, Callable[..., Any]]]) -> Any:
    """A pluggy plugin holding one hookimpl per ``register_hook`` callback.

    pluggy calls a plugin's impls of one hook last-registered-first and registers attributes in
    name order, so the attribute names count down to keep Hermes' registration order.
    """
    namespace: dict[str, Any] = {}
    total = len(callbacks)
    for index, (event, cb) in enumerate(callbacks):
        namespace[f"hook_{total - index:05d}"] = hookimpl(specname=event)(_bind(cb))
    return type("HermesPlugin", (), {k: staticmethod(v) for k, v in namespace.items()})()


def _bind(cb: Callable[..., Any]) -> Callable[..., Any]:
    def impl(**kwargs: Any) -> Any:
        result = cb(**kwargs)
        if inspect.isawaitable(result):
            from .manager import run_sync

            return run_sync(result)
        return result

    impl.__hermes_callback__ = cb  # type: ignore[attr-defined]
    impl.__qualname__ = getattr(cb, "__qualname__", repr(cb))
    impl.__name__ = getattr(cb, "__name__", "callback")
    return impl
