"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

The plugin manager: pluggy's ``PluginManager``, keeping our records and the dispatch plan in
step with pluggy's own registration API.

pluggy owns registration, validation and ordering. Whatever changes them (``register``,
``unregister``, ``set_blocked``, ``add_hookspecs``, from our loader or from a host calling
pluggy's API directly) rebuilds the plan: per event, the ordered hook implementations with what
dispatch needs to call each one (see :mod:`hermes_hooks.dispatch`).
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pluggy

from . import catalogue
from .catalogue import EventInfo, UnknownEvent
from .markers import PROJECT
from .records import PluginRecord
from .terminal import TELL

log = logging.getLogger("hermes_hooks")

Monitor = tuple[Callable[..., Any], Callable[..., Any]]


@dataclass(frozen=True)
class Impl:
    """One hook implementation in the plan, ready to call."""

    fn: Callable[..., Any]
    argnames: tuple[str, ...]
    kwargnames: tuple[str, ...]
    all_kwargs: bool  # Hermes-style callback, or **kwargs: gets every keyword
    name: str
    hermes: bool
    fail_closed: bool
    is_async: bool
    impl: Any  # pluggy's HookImpl
    simple: bool  # positional call, sync, no keyword-only extras, no time limit: the fast path
    timeout: float | None = None  # seconds; None: no limit
    #: A hook of a hook source (a shell, http, prompt, mcp or worker hook): ``fn(kwargs)``
    #: returns a pending answer (or ``None``: it does not match), which ``batch.settle``
    #: settles with the other pending answers of the firing at once (:class:`Entry`).
    batch: Any = None
    #: The hook's row of ``hermes hooks list`` (a hook source's entry; ``None``: read off ``fn``).
    row: Callable[[], dict[str, Any]] | None = None
    #: The ``source`` its receipts name (a hook source's entry: ``Entry.source``).
    source: str | None = None


@dataclass(frozen=True)
class Entry:
    """One hook of a hook source, as the source hands it to the plan (its ``entries``).

    ``start(kwargs)`` decides whether the hook runs at this firing and returns a pending answer
    (``None``: it does not match), cheaply: the work happens in ``batch.settle(info, kwargs,
    pending)``, which gets the pending answers of every entry of the firing sharing that batch
    and returns, in the same order, what each hook did (a :class:`Settled`; ``None``: it was not
    run at this firing, and has no receipt). The dispatcher does the rest: order, isolation,
    ``fail_closed``, counting, piping, combining, and each entry's receipt (timed from its
    start to its batch's settling; ``source`` is what the receipt names as its source)."""

    name: str
    start: Callable[[Mapping[str, Any]], Any]
    batch: Any
    fail_closed: bool = False
    row: Callable[[], dict[str, Any]] | None = None
    source: str = "builtin"


@dataclass(frozen=True)
class Settled:
    """What one entry's hook did at one firing, as its source settled it.

    ``value`` is the answer as the event's answer type reads it (``None``: no opinion);
    ``failure`` why the run failed, ``dropped`` why its answer was ignored (both counted). The
    rest is what only the source knows, for the receipt the dispatcher writes: ``outcome`` when
    it is not one the dispatcher derives from the above (a hook that was not run says why:
    ``unapproved``, ``changed``, ...), ``error`` (``None``: ``failure``), the ``sha256`` of what
    ran, the hook's ``raw`` answer and the arguments it was run with (``kwargs``; ``None``: the
    firing's)."""

    value: Any = None
    failure: str | None = None
    dropped: str | None = None
    outcome: str | None = None
    error: str | None = None
    sha256: str | None = None
    raw: Any = None
    kwargs: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Route:
    """What dispatch needs for one event, resolved once per plan change: the event, its hooks in
    call order, and its answer type's methods (looked up here, not at every firing)."""

    info: EventInfo
    plan: tuple[Impl, ...]
    independent: bool  # every hook runs on the same arguments (no pipe, not firstresult)
    normalise: Callable[..., Any]
    combine: Callable[[Any, Any], Any]
    neutral: Callable[[Any], Any]
    hermes_ignored: bool
    required: tuple[str, ...]
    rejudges: bool  # an answer may rewrite what will run: the hooks judge the rewrite again
    rewrite_of: Callable[[Any, Any], Any]

    @classmethod
    def of(cls, info: EventInfo, plan: tuple[Impl, ...]) -> Route:
        answer = info.answer
        return cls(
            info=info,
            plan=plan,
            independent=answer.pipes is None and info.kind != "first",
            normalise=answer.normalise,
            combine=answer.combine,
            neutral=answer.neutral,
            hermes_ignored=info.meta.hermes_returns_ignored,
            required=info.required,
            rejudges=answer.rejudges is not None,
            rewrite_of=answer.rewrite_of,
        )


def _accepts_var_keyword(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


class HookManager(pluggy.PluginManager):
    """pluggy's ``PluginManager`` for project ``"hermes"`` that owns the dispatch plan.

    ``events`` is this manager's catalogue: the built-in events plus every spec a host added
    with :meth:`add_hookspecs`. ``records`` describe every plugin, loaded or not.
    """

    def __init__(
        self, fail_closed_events: Iterable[str] = (), hook_timeout: float | None = None
    ) -> None:
        super().__init__(PROJECT)
        #: The time limit of every in-process hook without its own (``hook_callback_timeout``).
        self.hook_timeout = hook_timeout
        self._lock = threading.RLock()
        self._defer = 0  # inside deferred(): rebuilds wait for the end of the block
        self._stale = False
        self.records: dict[str, PluginRecord] = {}
        self.failures: Counter[tuple[str, str]] = Counter()
        #: Answers ignored per (hook, event), and the (hook, event, reason) already reported.
        self.dropped: Counter[tuple[str, str]] = Counter()
        self.reported: set[tuple[str, str, str]] = set()
        self.events: dict[str, EventInfo] = {}
        self._aliases: dict[str, str] = {}
        self._plans: dict[str, tuple[Impl, ...]] = {}
        #: Every event name and alias -> its :class:`Route` (swapped whole on every change).
        self.routes: dict[str, Route] = {}
        #: Every event name and alias that has at least one hook.
        self.hooked: frozenset[str] = frozenset()
        #: pluggy hook-call monitors (``add_hookcall_monitoring``), replaced whole on change.
        self.monitors: list[Monitor] = []
        #: Called with a plugin's name after it was unregistered (registries, event bus, ...).
        self.on_unregister: list[Callable[[str], None]] = []
        for module in catalogue.spec_modules():
            self.add_hookspecs(module)
        self.fail_closed_events = frozenset(self._known(fail_closed_events))

    # ------------------------------------------------------------------ the catalogue

    def add_hookspecs(self, module_or_class: Any) -> None:
        """pluggy's ``add_hookspecs``; the new events join this manager's catalogue (a spec
        without :func:`~hermes_hooks.markers.event` is an observe event, or a first event when
        it is ``firstresult``)."""
        with self._lock:
            super().add_hookspecs(module_or_class)
            family = getattr(module_or_class, "__name__", "host").rsplit(".", 1)[-1]
            # In the order the module declares them (pluggy's own order is alphabetical).
            for name in vars(module_or_class):
                caller = getattr(self.hook, name, None)
                spec = getattr(caller, "spec", None)
                if spec is None or name in self.events or spec.namespace is not module_or_class:
                    continue
                info = catalogue.info_of(
                    name, spec.function, family, firstresult=bool(spec.opts.get("firstresult"))
                )
                self.events[name] = info
                for alias in info.aliases:
                    self._aliases.setdefault(alias, name)
            self._rebuild()

    def event(self, name: str) -> EventInfo:
        """The event called ``name`` (or aliased ``name``); :class:`UnknownEvent` otherwise."""
        info = self.events.get(name)
        if info is None:
            target = self._aliases.get(name)
            info = self.events.get(target) if target else None
            if info is None:
                raise UnknownEvent(name, catalogue.suggest(name, [*self.events, *self._aliases]))
        return info

    def find_event(self, name: str) -> EventInfo | None:
        """:meth:`event`, or ``None`` for an unknown name."""
        try:
            return self.event(name)
        except UnknownEvent:
            return None

    def _known(self, names: Iterable[str]) -> list[str]:
        out = []
        for name in names:
            info = self.find_event(str(name))
            if info is None:
                guess = catalogue.suggest(str(name))
                hint = f" (did you mean {guess!r}?)" if guess else ""
                log.warning("config fail_closed_events: unknown event %r%s; ignored", name, hint)
            else:
                out.append(info.name)
        return out

    # ------------------------------------------------------------------ registration

    def register(  # pluggy's (plugin, name), plus keyword-only metadata
        self,
        plugin: Any,
        name: str | None = None,
        *,
        source: str = "python",
        fail_closed: bool = False,
        priority: int = 0,
        timeout: float | None = None,
        path: str | None = None,
        version: str | None = None,
        description: str = "",
        manifest: Mapping[str, Any] | None = None,
        parent: str | None = None,
        hook_source: Any = None,
    ) -> str | None:
        """Register a plugin (pluggy's ``register``) and record what we know about it.

        A plugin pluggy rejects (an implementation that does not fit its event) leaves nothing
        registered. pluggy hook wrappers are refused with ``ValueError``: this dispatcher does
        not run them (a transform event changes values). A blocked name (:meth:`is_blocked`,
        which includes a plugin the config disabled) registers nothing and returns ``None``, as
        pluggy does for ``set_blocked``.
        """
        with self._lock:
            if self._disabled(name or self.get_canonical_name(plugin)):
                return None
            try:
                registered = super().register(plugin, name)
            except Exception:
                # pluggy may have added some of the plugin's impls before it refused one.
                if self.is_registered(plugin):
                    super().unregister(plugin)
                raise
            if registered is None:  # blocked name
                return None
            wrappers = [
                caller.name
                for caller in self.get_hookcallers(plugin) or []
                for impl in caller.get_hookimpls()
                if impl.plugin is plugin and (impl.hookwrapper or impl.wrapper)
            ]
            if wrappers:
                super().unregister(plugin, name=registered)
                raise ValueError(
                    f"plugin {registered!r}: hook wrappers are not supported "
                    f"({', '.join(wrappers)}); use a plain @hookimpl, or a transform_* event to "
                    "change a value"
                )
            unknown = self._unknown_impls(plugin)
            if unknown:
                super().unregister(plugin, name=registered)
                raise ValueError(f"plugin {registered!r}: {'; '.join(unknown)}")
            self.records[registered] = PluginRecord(
                name=registered,
                source=source,
                fail_closed=fail_closed,
                priority=priority,
                timeout=timeout,
                path=path,
                version=version,
                description=description,
                manifest=dict(manifest or {}),
                plugin=plugin,
                parent=parent,
                hook_source=hook_source,
            )
            self._rebuild()
        return registered

    def _unknown_impls(self, plugin: Any) -> list[str]:
        """What is wrong with ``plugin``'s ``@hookimpl`` functions of events this manager does
        not know (a misspelt ``pre_tool_cal`` would never run). Hermes-style ``register_hook``
        objects keep unknown names (for newer hosts; the context warns), and so does an impl
        marked ``@hookimpl(optionalhook=True)``."""
        if getattr(plugin, "keeps_unknown_events", False):
            return []
        out = []
        for caller in self.get_hookcallers(plugin) or []:
            if caller.spec is not None:
                continue
            if any(i.plugin is plugin and not i.optionalhook for i in caller.get_hookimpls()):
                alias = self.find_event(caller.name)
                guess = catalogue.suggest(caller.name, list(self.events))
                hint = (f" (an alias: name the function {alias.name!r})" if alias else
                        f" (did you mean {guess!r}?)" if guess else "")  # fmt: skip
                out.append(f"@hookimpl {caller.name!r} is no known event{hint}; fix the name, "
                           "or mark it @hookimpl(optionalhook=True) if a newer host defines it")  # fmt: skip
        return out

    def _disabled(self, name: str) -> bool:
        rec = self.records.get(name)
        return rec is not None and rec.status == "disabled" and not self.has_plugin(name)

    def is_blocked(self, name: str) -> bool:
        """pluggy's ``is_blocked``: whether registering ``name`` is refused. True for a name
        blocked with ``set_blocked``, and for a plugin the config or the environment disabled
        (``plugins.disabled``, ``plugins.enabled`` without it, ``HERMES_HOOKS_DISABLED``, ...):
        it was never imported, and :meth:`register` refuses its name. Such a name is lifted by
        changing the config, not by ``unblock``."""
        return super().is_blocked(name) or self._disabled(name)

    def add_distribution(self, name: str, dist: Any) -> None:
        """Note that plugin ``name`` (and the plugins that belong to it) came from the installed
        distribution ``dist`` through an entry point, as pluggy's
        ``load_setuptools_entrypoints`` does for the plugins it loads: pluggy's
        ``list_plugin_distinfo`` and ``list_plugin_distributions`` then list them."""
        with self._lock:
            names = [name, *(n for n, r in self.records.items() if r.parent == name)]
            for plugin in filter(None, map(self.get_plugin, names)):
                # pluggy's own list behind both methods (load_setuptools_entrypoints fills it)
                self._plugin_distinfo.append((plugin, dist))

    def unregister(self, plugin: Any = None, name: str | None = None) -> Any:
        """pluggy's ``unregister`` (by object or name); the plugin's record, the plugins that
        belong to it and what it put in the registries go too."""
        with self._lock:
            if name is None:
                name = self.get_name(plugin) if plugin is not None else None
            if plugin is None and name is not None:
                plugin = self.get_plugin(name)
            removed = super().unregister(plugin, name) if plugin is not None else None
            if removed is not None:  # an unregistered plugin is no longer a distribution's
                self._plugin_distinfo[:] = [d for d in self._plugin_distinfo if d[0] is not removed]
            if name is not None:
                self.records.pop(name, None)
                for child in [n for n, r in self.records.items() if r.parent == name]:
                    self.unregister(name=child)
                for listener in self.on_unregister:
                    listener(name)
            self._rebuild()
            return removed

    def replace(self, name: str, plugin: Any) -> None:
        """Swap the object registered as ``name`` for ``plugin``, keeping its record (a plugin
        that registers more hooks after loading)."""
        with self._lock:
            record = self.records[name]
            old = self.get_plugin(name)
            if old is not None:
                super().unregister(old, name)
            super().register(plugin, name)
            record.plugin = plugin
            self._rebuild()

    def record(self, rec: PluginRecord) -> None:
        """Keep a record of a plugin that is not registered (disabled, failed, shadowed, ...)."""
        with self._lock:
            self.records.setdefault(rec.name, rec)

    def ignored(self, hook: str, info: EventInfo, reason: str, value: Any) -> None:
        """Count an answer of ``hook`` that ``info``'s event cannot read (``reason``), and say
        so once per hook, event and reason; on an event that can block the person at the
        terminal is told too (a guard that did not guard)."""
        self.dropped[(hook, info.name)] += 1
        key = (hook, info.name, reason)
        if key in self.reported:
            return
        self.reported.add(key)
        log.warning(
            "hook %r on %s: its answer was ignored: %s (it returned %.200r)",
            hook,
            info.name,
            reason,
            value,
            extra=TELL if info.can_block else None,
        )

    # ------------------------------------------------------------------ monitoring

    def add_hookcall_monitoring(
        self, before: Callable[..., Any], after: Callable[..., Any]
    ) -> Callable[[], None]:
        """pluggy's hook-call monitoring (also behind ``enable_tracing``), extended to every
        dispatch of :class:`~hermes_hooks.Hooks`. Nobody monitoring costs nothing."""
        undo_pluggy = super().add_hookcall_monitoring(before, after)
        pair = (before, after)
        with self._lock:
            self.monitors = [*self.monitors, pair]

        def undo() -> None:
            undo_pluggy()
            with self._lock:
                self.monitors = [m for m in self.monitors if m is not pair]

        return undo

    # ------------------------------------------------------------------ the plan

    def plan(self, event: str) -> tuple[Impl, ...]:
        """The hooks of ``event`` in call order (empty when none)."""
        return self._plans.get(event, ())

    def planned_events(self) -> list[str]:
        """Events that have at least one hook."""
        return list(self._plans)

    def has_hook(self, event: str) -> bool:
        """Whether ``event`` (a name or an alias) has at least one hook: one set lookup."""
        return event in self.hooked

    @contextlib.contextmanager
    def deferred(self) -> Iterator[None]:
        """Register many plugins with one rebuild of the plan at the end (``load()``): inside
        the block, dispatch still sees the plan as it was before the block."""
        with self._lock:
            self._defer += 1
        try:
            yield
        finally:
            with self._lock:
                self._defer -= 1
                if not self._defer and self._stale:
                    self._stale = False
                    self._rebuild()

    def _rebuild(self) -> None:
        if self._defer:
            self._stale = True
            return
        plans: dict[str, tuple[Impl, ...]] = {}
        for event, caller in vars(self.hook).items():
            if not isinstance(caller, pluggy.HookCaller):
                continue
            impls = tuple(
                entry
                for impl in reversed(caller.get_hookimpls())
                for entry in self._entries(event, impl)
            )
            if impls:
                plans[event] = impls
        routes: dict[str, Route] = {}
        for name, info in self.events.items():
            route = Route.of(info, plans.get(name, ()))
            routes[name] = route
            for alias in info.aliases:
                routes.setdefault(alias, route)
        hooked = {name for name, route in routes.items() if route.plan}
        # Plain assignments: a reader sees the old plan or the new one, never half of each.
        self._plans = plans
        self.routes = routes
        self.hooked = frozenset(hooked | set(plans))

    def _entries(self, event: str, impl: Any) -> Iterable[Impl]:
        """What ``impl`` puts in the plan: itself, or, for a hook source that hands out its
        hooks (:class:`Entry`), one entry per hook, in the source's place."""
        rec = self.records.get(impl.plugin_name)
        source = rec.hook_source if rec is not None else None
        entries = source.entries(event) if source is not None else None
        if entries is None:
            return (self._entry(event, impl),)
        always = event in self.fail_closed_events
        return tuple(
            Impl(
                fn=entry.start,
                argnames=(),
                kwargnames=(),
                all_kwargs=True,
                name=entry.name,
                hermes=False,
                fail_closed=always or entry.fail_closed,
                is_async=False,
                impl=impl,
                simple=False,
                batch=entry.batch,
                row=entry.row,
                source=entry.source,
            )
            for entry in entries
        )

    def _entry(self, event: str, impl: Any) -> Impl:
        fn = impl.function
        callback = getattr(fn, "__hermes_callback__", None)
        rec = self.records.get(impl.plugin_name)
        fail_closed = (
            event in self.fail_closed_events
            or bool(rec and rec.fail_closed)
            or bool(rec and rec.hook_source is not None and rec.hook_source.fail_closed_on(event))
        )
        target = callback if callback is not None else fn
        all_kwargs = callback is not None or _accepts_var_keyword(fn)
        is_async = inspect.iscoroutinefunction(target)
        kwargnames = () if callback is not None else tuple(impl.kwargnames)
        # Sources (shell hooks, gateway hooks) enforce their own hooks' limits.
        timeout = None
        if rec is None or rec.hook_source is None:
            timeout = rec.timeout if rec is not None and rec.timeout else self.hook_timeout
        return Impl(
            fn=target,
            argnames=() if callback is not None else tuple(impl.argnames),
            kwargnames=kwargnames,
            all_kwargs=all_kwargs,
            name=impl.plugin_name,
            hermes=callback is not None,
            fail_closed=fail_closed,
            is_async=is_async,
            impl=impl,
            simple=not all_kwargs and not kwargnames and not is_async and not timeout,
            timeout=timeout,
        )
