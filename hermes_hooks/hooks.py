"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

The host API: :class:`Hooks`, what :func:`hermes_hooks.load` returns.

A thin facade over the plugin manager (registration and plan, :mod:`hermes_hooks.manager`) and
the dispatcher (:mod:`hermes_hooks.dispatch`): it resolves event names, hands the plan to the
dispatcher, and offers the typed helpers hosts call at each hook site.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

from .answers.results import CommandDecision, redacted
from .bus import EventBus
from .catalogue import EventInfo
from .config import manifest_seconds
from .dispatch import Dispatcher, run_sync
from .manager import HookManager, PluginRecord
from .registries import PluginRegistries
from .trace import Tracer
from .typed import TypedHelpers
from .watchdog import DEFAULT_WATCHDOG, Watchdog


class Hooks(TypedHelpers):
    """The loaded hook system of one agent runtime.

    Build one with :func:`hermes_hooks.load`; a bare ``Hooks()`` has the event catalogue and no
    plugins (handy in tests, see :mod:`hermes_hooks.testing`).
    """

    def __init__(
        self,
        *,
        home: Path | None = None,
        config: Mapping[str, Any] | None = None,
        config_path: Path | None = None,
        accept_hooks: bool = False,
        host: Any = None,
    ) -> None:
        self.home = Path(home) if home is not None else Path.home() / ".hermes"
        self.config: dict[str, Any] = dict(config or {})
        self.config_path = config_path
        self.accept_hooks = accept_hooks
        self.safe_mode = False
        self.host = host
        #: The host's consent prompt for shell hooks (``None``: a terminal prompt when there is
        #: a terminal); see :func:`hermes_hooks.load`.
        self.ask: Any = None
        #: Whether the home's HOOK.yaml gateway hooks load here (``False``: the host's own
        #: gateway runs them); see :func:`hermes_hooks.runtime.build_runtime`.
        self.gateway_hooks = True
        #: Built for a command that inspects the hooks, not for an agent run: sources start
        #: nothing ahead of use (see :func:`hermes_hooks.runtime.build_runtime`).
        self.inspecting = False
        #: Plugins and hooks the host loads and runs itself (name -> who), not this runtime: a
        #: required guard among them is not missing.
        self.hosted: dict[str, str] = {}
        #: Why the config could not be read (then nothing loads and tool calls block).
        self.config_errors: list[str] = []
        #: Keys of ours that look misspelt (reported, not fatal).
        self.config_warnings: list[str] = []
        #: The built-ins a config can switch on (``add_date``, ``redact_secrets``, ...), asked
        #: only when needed: their rows are the user's hooks, listed by :meth:`rows` without
        #: ``include_builtin``. Set by :mod:`hermes_hooks.runtime` from the built-ins' own table
        #: (the core does not import the built-ins).
        self.switchable_builtins: Callable[[], Collection[str]] = tuple
        raw = self.config.get("fail_closed_events") or []
        #: The :class:`~hermes_hooks.manager.HookManager` (a ``pluggy.PluginManager``) behind
        #: this runtime: register, unregister, block, monitor and inspect plugins through it.
        #: Not for firing events: ``manager.hook.<event>(...)`` is pluggy's raw loop, without
        #: this runtime's isolation, fail-closed, answer types, time limits, tracing or shell
        #: hooks; fire events with :meth:`call`, :meth:`invoke`, :meth:`acall` or the typed
        #: helpers.
        self.manager = HookManager(
            fail_closed_events=raw if isinstance(raw, list) else [],
            hook_timeout=_seconds(self.config, "hook_callback_timeout", None),
        )
        self.watchdog: Watchdog | None = None
        base = config_path.parent if config_path is not None else self.home
        #: What :meth:`redact` applies (identity unless ``redact_secrets`` is configured).
        self._redactor: Callable[[Any], Any] = _identity
        self._dispatch = Dispatcher(self.manager, Tracer.from_config(self.config, base))
        if self._dispatch.tracer is not None:
            self._dispatch.tracer.redact = self.redact
        self.registries = PluginRegistries()
        self.bus = EventBus()
        self.manager.on_unregister += [self.registries.drop, self.bus.drop]

    # ------------------------------------------------------------------ registries, records

    @property
    def tools(self) -> Any:
        """Tools plugins offer the model: name -> entry (``handler``, ``plugin``, ...)."""
        return self.registries.tools

    @property
    def commands(self) -> Any:
        """In-session slash commands plugins registered."""
        return self.registries.commands

    @property
    def cli_commands(self) -> Any:
        """Terminal subcommands plugins registered."""
        return self.registries.cli_commands

    @property
    def skills(self) -> Any:
        """Skills plugins registered (``"<plugin>:<name>"``)."""
        return self.registries.skills

    @property
    def middleware(self) -> Any:
        """Middleware by kind (tuples of entries, in registration order)."""
        return self.registries.middleware

    @property
    def extensions(self) -> Any:
        """Registrations of newer hosts' kinds (``register_<kind>``) kept for the host."""
        return self.registries.extensions

    @property
    def tracer(self) -> Tracer | None:
        """Traces and receipts (``None`` when off); hook sources report their hooks to it."""
        return self._dispatch.tracer

    @tracer.setter
    def tracer(self, value: Tracer | None) -> None:
        # ``hermes hooks test`` and ``replay`` swap in a collector to show what each hook did.
        if value is not None:
            value.redact = self.redact
        self._dispatch.tracer = value

    def redact(self, value: Any) -> Any:
        """``value`` with what ``redact_secrets`` removes removed (strings, and the strings inside
        lists and dicts); ``value`` itself when redaction is off. Applied to everything that leaves
        the process: http and prompt hook payloads, ``http_post``, traces, their error messages.
        Fails closed: if redaction fails, the value is withheld."""
        try:
            return self._redactor(value)
        except Exception as exc:  # never let the unredacted value through
            return f"[REDACTED: redaction failed: {type(exc).__name__}]"

    def set_redactor(self, redactor: Callable[[Any], Any] | None) -> None:
        """Use ``redactor`` for :meth:`redact` from now on (``None``: redaction off)."""
        self._redactor = redactor if redactor is not None else _identity

    def set_tracer(self, tracer: Tracer | None) -> None:
        """Trace with ``tracer`` from now on (``None``: tracing off)."""
        self.tracer = tracer

    @property
    def records(self) -> dict[str, PluginRecord]:
        """Every plugin the manager knows of, loaded or not, by name."""
        return self.manager.records

    @property
    def failures(self) -> Any:
        """How often each (plugin, event) failed."""
        return self.manager.failures

    @property
    def dropped(self) -> Any:
        """How many answers of each (plugin, event) were ignored (each reason is logged once)."""
        return self.manager.dropped

    @property
    def fail_closed_events(self) -> frozenset[str]:
        """Events the config says fail closed (``fail_closed_events``), by our names."""
        return self.manager.fail_closed_events

    @property
    def events(self) -> Mapping[str, Any]:
        """This runtime's event catalogue (built-in events and any a host added)."""
        return self.manager.events

    def register(self, plugin: Any, name: str | None = None, **meta: Any) -> str:
        """Register a plugin object or module with ``@hookimpl`` functions; return its name.
        Keyword metadata (``source``, ``fail_closed``, ``path``, ...) is kept in its record."""
        registered = self.manager.register(plugin, name, **meta)
        if registered is None:
            raise ValueError(
                f"plugin name {name!r} is blocked (set_blocked, or disabled by the config)"
            )
        return registered

    def add_source(self, source: Any, name: str, **meta: Any) -> str:
        """Register a built-in hook source (:class:`~hermes_hooks.sources.HookSource`)."""
        return self.register(source, name, source="builtin", hook_source=source, **meta)

    def unregister(self, name: str) -> None:
        """Remove a plugin (by name), the plugins that belong to it, and its hooks."""
        self.manager.unregister(name=name)

    def record(self, rec: PluginRecord) -> None:
        """Keep a record of a plugin that is not registered (disabled, failed, shadowed, ...)."""
        self.manager.record(rec)

    def add_hookspecs(self, module: Any) -> None:
        """Add a host's own events (a module or class of pluggy hookspecs)."""
        self.manager.add_hookspecs(module)

    # ------------------------------------------------------------------ firing

    def has_hook(self, event: str) -> bool:
        """True when at least one hook implements ``event`` (our name or an alias): a host may
        skip building the keyword arguments."""
        return event in self.manager.hooked

    def call(self, event: str, /, **kwargs: Any) -> Any:
        """Fire ``event`` and return the combined result for its kind.

        decide: a typed decision; context: joined text or ``None``; transform: the final value;
        first: the first valid typed answer or ``None``; observe: ``None``.
        """
        route = self.manager.routes.get(event)
        if route is None:
            route = self.manager.routes[self.manager.event(event).name]  # raises for unknown
        self._note(kwargs)
        if not route.plan:
            return route.neutral(kwargs)
        return self._told(route, self._dispatch.run(route, kwargs))

    def _told(self, route: Any, result: Any) -> Any:
        """What the host gets, with the hooks' own words redacted when ``redact_secrets`` is on
        (only for events whose answer carries words: context, decisions)."""
        if self._redactor is _identity or result is None or route.info.kind not in _TELLS:
            return result
        return redacted(result, self.redact)

    async def acall(self, event: str, /, **kwargs: Any) -> Any:
        """:meth:`call` for async hosts. Hooks run off the event loop (async hooks on it), so no
        hook, sync or shell, blocks the loop."""
        route = self.manager.routes.get(event)
        if route is None:
            route = self.manager.routes[self.manager.event(event).name]  # raises for unknown
        self._note(kwargs)
        if not route.plan:
            return route.neutral(kwargs)
        return self._told(route, await self._dispatch.arun(route, kwargs))

    def invoke(self, event: str, /, **kwargs: Any) -> list[Any]:
        """Every non-``None`` normalised result, in call order (Hermes' ``invoke_hook``).

        Works for any event name, including unknown ones that Hermes-style plugins registered
        (their raw values come back)."""
        self._note(kwargs)
        route = self.manager.routes.get(event)
        if route is None:
            # A name no spec declares, that Hermes-style plugins registered: raw values back.
            from .catalogue import info_of
            from .manager import Route

            plan = self.manager.plan(event)
            if not plan:
                return []
            route = Route.of(info_of(event, lambda: None, "unknown"), plan)
        if not route.plan:
            return []
        answers, _ = self._dispatch.answers(route, kwargs)
        return [self._told(route, a) for a in answers]

    async def emit(
        self, event_type: str, context: Mapping[str, Any] | None = None
    ) -> CommandDecision:
        """Fire a gateway event (``"agent:start"``, ``"command:reset"``, ...) to every
        ``gateway_event`` hook; awaitable answers run concurrently. Returns the combined
        :class:`CommandDecision` (``decision=None`` when nobody acted)."""
        result: CommandDecision = await self.acall(
            "gateway_event", event_type=event_type, context=dict(context or {})
        )
        return result

    def emit_sync(
        self, event_type: str, context: Mapping[str, Any] | None = None
    ) -> CommandDecision:
        """:meth:`emit` for hosts without an event loop."""
        result: CommandDecision = self.call(
            "gateway_event", event_type=event_type, context=dict(context or {})
        )
        return result

    def _fire(self, event: str, kwargs: dict[str, Any]) -> Any:
        """What every typed helper (:mod:`hermes_hooks.typed`) does: check the required
        arguments, then :meth:`call`."""
        route = self.manager.routes[event]
        for name in route.required:
            if name not in kwargs:
                raise missing_argument(route.info, name, kwargs)
        self._note(kwargs)
        if not route.plan:
            return route.neutral(kwargs)
        return self._told(route, self._dispatch.run(route, kwargs))

    def _note(self, kwargs: Mapping[str, Any]) -> None:
        """Every firing, hooked or not, tells the tracer which session started which sub-agent
        (so the receipts of a sub-agent's calls name its parent)."""
        tracer = self._dispatch.tracer
        if tracer is not None:
            tracer.note(kwargs)

    # ------------------------------------------------------------------ host interface

    def set_host(self, host: Any) -> None:
        """Give plugins the host's capabilities (``inject_message``, ``dispatch_tool``, ``llm``,
        ``run_background_task``); see :class:`hermes_hooks.context.Host`."""
        self.host = host

    def sources(self) -> list[Any]:
        """The registered built-in hook sources."""
        return [r.hook_source for r in self.records.values() if r.hook_source is not None]

    def session_env(self, session_id: str) -> dict[str, str]:
        """Variables ``SessionStart`` shell hooks exported to their ``CLAUDE_ENV_FILE``."""
        env: dict[str, str] = {}
        for source in self.sources():
            env.update(source.session_env(session_id))
        return env

    def take_wakeups(self, session_id: str | None = None) -> list[Any]:
        """Messages background hooks (Claude Code ``asyncRewake``/``async``) left for the model
        of ``session_id`` (or of every session) when the host has no ``inject_message``:
        each has ``message`` (the text for the model), ``hook``, ``event``, ``kind``. Taken
        ones are removed."""
        return [w for source in self.sources() for w in source.take_wakeups(session_id)]

    def start_watchdog(self) -> Watchdog | None:
        """Start reporting in-process hooks stuck longer than ``plugins.hook_watchdog_seconds``
        (30 by default; 0 turns it off). :func:`hermes_hooks.load` calls this."""
        threshold = _seconds(self.config, "hook_watchdog_seconds", DEFAULT_WATCHDOG)
        if threshold is None or self.watchdog is not None:
            return self.watchdog
        self.watchdog = Watchdog(self.manager, threshold)
        self.watchdog.start()
        return self.watchdog

    def close(self) -> None:
        """Release what hook sources hold (processes, threads) and stop the watchdog."""
        if self.watchdog is not None:
            self.watchdog.stop()
        for source in self.sources():
            source.close()

    # ------------------------------------------------------------------ listing

    def rows(
        self, *, include_builtin: bool = True, event: str | None = None
    ) -> list[dict[str, Any]]:
        """What ``hermes hooks list`` prints: one dict per hook, events in catalogue order,
        hooks in call order (every source's hooks where they run); then plugins that
        registered no hook (failed, disabled, shadowed, or only tools and commands)."""
        from .listing import rows

        return rows(
            self.manager,
            self.registered_by,
            include_builtin=include_builtin,
            event=event,
            switched=() if include_builtin else self.switchable_builtins(),
        )

    def registered_by(self, name: str) -> dict[str, list[str]]:
        """What plugin ``name`` put in the registries (tools, commands, skills, ...)."""
        return self.registries.registered_by(name)


def missing_argument(info: EventInfo, name: str, given: Mapping[str, Any]) -> TypeError:
    """The ``TypeError`` for a required argument the host did not pass."""
    strays = [k for k in given if k not in info.args]
    guess = difflib.get_close_matches(name, strays, n=1, cutoff=0.5)
    hint = f" (you passed {guess[0]!r}: did you mean {name!r}?)" if guess else ""
    return TypeError(f"{info.name}() missing required argument {name!r}{hint}")


def _identity(value: Any) -> Any:
    return value


#: Kinds of event whose combined answer carries a hook's words for the host or the model
#: (a transform's value is what the redactor itself rewrites; observe answers nothing).
_TELLS = frozenset({"decide", "context", "first"})


def _seconds(config: Mapping[str, Any], key: str, default: float | None) -> float | None:
    """``plugins.<key>`` in seconds (0: off -> ``None``); a bad value is reported, not used."""
    plugins = config.get("plugins")
    value = plugins.get(key, default) if isinstance(plugins, Mapping) else default
    return manifest_seconds(value, f"config plugins.{key}", default)


__all__ = ["Hooks", "run_sync"]
