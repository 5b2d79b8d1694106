"""The dispatcher: one pluggy ``PluginManager`` and the host API on top of it.

pluggy owns registration, validation and ordering. Dispatch iterates pluggy's ordered hookimpls in
our own loop (see ``docs/performance.md``) so that each hook is isolated, results are normalised
per event kind, Hermes-style callbacks receive every keyword, and async hooks are awaited.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pluggy

from . import catalogue, results
from .catalogue import EventInfo, UnknownEvent
from .markers import PROJECT
from .results import (
    CommandDecision,
    PromptDecision,
    ToolDecision,
)

log = logging.getLogger("hermes_hooks")

#: Statuses a plugin (and a row of ``hermes hooks list``) can have.
STATUSES = ("active", "disabled", "failed", "unapproved", "changed", "shadowed")

_KW_ALL = 1  # Hermes-style callback, or a native impl with **kwargs: gets every keyword.
_POSITIONAL = 0  # native impl: gets its declared arguments, like pluggy does.


class HookFailed(Exception):
    """Stands in for the result of a fail-closed hook that raised."""

    def __init__(self, hook: str, event: str, exc: BaseException) -> None:
        self.hook, self.event, self.exc = hook, event, exc
        super().__init__(
            f"hook {hook!r} failed on {event} ({type(exc).__name__}: {exc}) and is fail_closed"
        )


@dataclass
class PluginRecord:
    """What the manager knows about one plugin, whether or not it loaded."""

    name: str
    source: str  # builtin / entrypoint / directory / python / gateway / shell
    status: str = "active"
    error: str | None = None
    path: str | None = None
    version: str | None = None
    distribution: str | None = None
    fail_closed: bool = False
    priority: int = 0
    description: str = ""
    manifest: dict[str, Any] = field(default_factory=dict)
    plugin: Any = None

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


@dataclass(frozen=True)
class _Impl:
    fn: Callable[..., Any]
    argnames: tuple[str, ...]
    kwargnames: tuple[str, ...]
    mode: int
    name: str
    hermes: bool
    fail_closed: bool
    is_async: bool
    impl: Any
    simple: bool = False  # positional call, sync, no keyword-only extras: the fast path


def _accepts_var_keyword(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def _is_awaitable(value: Any) -> bool:
    if value is None or value.__class__ in (str, dict, list, tuple, int, bool, float):
        return False
    return inspect.isawaitable(value)


async def _await(value: Any) -> Any:
    return await value


def run_sync(awaitable: Any) -> Any:
    """Run an awaitable to completion from synchronous code, whatever loop is (not) running."""
    coro = awaitable if inspect.iscoroutine(awaitable) else _await(awaitable)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    # Called from inside a running loop (a sync API used by async code): the loop cannot be
    # re-entered, so the coroutine gets its own loop in a helper thread.
    box: dict[str, Any] = {}

    def runner() -> None:
        try:
            box["value"] = asyncio.run(coro)
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=runner, name="hermes-hooks-async", daemon=True)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


class Hooks:
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
        from .context import PluginRegistries

        self.home = Path(home) if home is not None else Path.home() / ".hermes"
        self.config: dict[str, Any] = dict(config or {})
        self.config_path = config_path
        self.accept_hooks = accept_hooks
        self.safe_mode = False
        self.host = host
        self.pm = pluggy.PluginManager(PROJECT)
        for module in catalogue.spec_modules():
            self.pm.add_hookspecs(module)
        self.records: dict[str, PluginRecord] = {}
        self.failures: Counter[tuple[str, str]] = Counter()
        self.registries = PluginRegistries()
        self.tools = self.registries.tools
        self.commands = self.registries.commands
        self.cli_commands = self.registries.cli_commands
        self.skills = self.registries.skills
        self.middleware = self.registries.middleware
        self.extensions = self.registries.extensions
        from .context import EventBus

        self.bus = EventBus()
        self._lock = threading.RLock()
        self._plans: dict[str, tuple[_Impl, ...]] = {}
        self._events = catalogue.events()
        #: Events the config says fail closed (``fail_closed_events``), by our names.
        self.fail_closed_events = frozenset(self._config_fail_closed_events())
        self._warned: set[str] = set()
        self.config_errors: list[str] = []

    # ------------------------------------------------------------------ registration

    def register(
        self,
        plugin: Any,
        name: str | None = None,
        *,
        source: str = "python",
        fail_closed: bool = False,
        path: str | None = None,
        version: str | None = None,
        description: str = "",
    ) -> str:
        """Register a plugin object or module with ``@hookimpl`` functions; return its name.

        Raises pluggy's ``PluginValidationError`` when an implementation does not fit its event
        (e.g. an argument the event does not have), and ``ValueError`` for a pluggy hook wrapper,
        which this dispatcher does not run (use a transform event to change values).
        """
        with self._lock:
            registered = self.pm.register(plugin, name=name)
            assert registered is not None
            wrappers = [
                f"{caller.name}"
                for caller in self.pm.get_hookcallers(plugin) or []
                for impl in caller.get_hookimpls()
                if impl.plugin is plugin and (impl.hookwrapper or impl.wrapper)
            ]
            if wrappers:
                self.pm.unregister(plugin, name=registered)
                raise ValueError(
                    f"plugin {registered!r}: hook wrappers are not supported ({', '.join(wrappers)}); "
                    "use a plain @hookimpl, or a transform_* event to change a value"
                )
            if registered in self.records and self.records[registered].status == "active":
                # Same name twice: pluggy would have refused, but keep the record consistent.
                pass
            self.records[registered] = PluginRecord(
                name=registered,
                source=source,
                fail_closed=fail_closed,
                path=path,
                version=version,
                description=description,
                plugin=plugin,
            )
            self._rebuild()
        return registered

    def unregister(self, name: str) -> None:
        """Remove a plugin (by name) and its hooks."""
        with self._lock:
            plugin = self.pm.get_plugin(name)
            if plugin is not None:
                self.pm.unregister(plugin, name=name)
            self.records.pop(name, None)
            self.registries.drop(name)
            self.bus.drop(name)
            self._rebuild()

    def record(self, rec: PluginRecord) -> None:
        """Keep a record of a plugin that is not registered (disabled, failed, shadowed, ...)."""
        with self._lock:
            self.records.setdefault(rec.name, rec)

    def _config_fail_closed_events(self) -> list[str]:
        raw = self.config.get("fail_closed_events") or []
        out = []
        for name in raw if isinstance(raw, list) else []:
            info = catalogue.get(str(name))
            if info is None:
                log.warning(
                    "config fail_closed_events: unknown event %r%s",
                    name,
                    _did_you_mean(str(name)),
                )
            else:
                out.append(info.name)
        return out

    def _rebuild(self) -> None:
        plans: dict[str, tuple[_Impl, ...]] = {}
        for event, caller in vars(self.pm.hook).items():
            if not isinstance(caller, pluggy.HookCaller):
                continue
            impls = []
            for impl in reversed(caller.get_hookimpls()):
                impls.append(self._plan_entry(event, impl))
            if impls:
                plans[event] = tuple(impls)
        self._plans = plans

    def _plan_entry(self, event: str, impl: Any) -> _Impl:
        fn = impl.function
        callback = getattr(fn, "__hermes_callback__", None)
        rec = self.records.get(impl.plugin_name)
        fail_closed = bool(rec and rec.fail_closed) or event in self.fail_closed_events
        if callback is not None:
            return _Impl(
                fn=callback,
                argnames=(),
                kwargnames=(),
                mode=_KW_ALL,
                name=impl.plugin_name,
                hermes=True,
                fail_closed=fail_closed,
                is_async=inspect.iscoroutinefunction(callback),
                impl=impl,
            )
        mode = _KW_ALL if _accepts_var_keyword(fn) else _POSITIONAL
        is_async = inspect.iscoroutinefunction(fn)
        return _Impl(
            fn=fn,
            argnames=tuple(impl.argnames),
            kwargnames=tuple(impl.kwargnames),
            mode=mode,
            name=impl.plugin_name,
            hermes=False,
            fail_closed=fail_closed,
            is_async=is_async,
            impl=impl,
            simple=mode == _POSITIONAL and not impl.kwargnames and not is_async,
        )

    # ------------------------------------------------------------------ running hooks

    def has_hook(self, event: str) -> bool:
        """True when at least one hook implements ``event``: a host may skip building kwargs."""
        return event in self._plans

    def _info(self, event: str) -> EventInfo:
        info = self._events.get(event)
        if info is None:
            info = catalogue.get(event)
            if info is None:
                raise UnknownEvent(event, catalogue.suggest(event))
        return info

    def _invoke_one(self, impl: _Impl, kwargs: dict[str, Any]) -> Any:
        if impl.mode == _KW_ALL:
            return impl.fn(**kwargs)
        if impl.kwargnames:
            extra = {k: kwargs[k] for k in impl.kwargnames if k in kwargs}
            return impl.fn(*map(kwargs.get, impl.argnames), **extra)
        return impl.fn(*map(kwargs.get, impl.argnames))

    def _failed(self, impl: _Impl, event: str, exc: BaseException) -> HookFailed | None:
        self.failures[(impl.name, event)] += 1
        log.warning(
            "hook %r failed on %s: %s: %s (skipped%s)",
            impl.name,
            event,
            type(exc).__name__,
            exc,
            "; fail_closed" if impl.fail_closed else "",
        )
        if impl.fail_closed:
            return HookFailed(impl.name, event, exc)
        return None

    def _results(
        self, event: str, plan: Sequence[_Impl], kwargs: dict[str, Any]
    ) -> list[tuple[_Impl, Any]]:
        # The hot path: kept flat on purpose (see docs/performance.md).
        out: list[tuple[_Impl, Any]] = []
        get = kwargs.get
        for impl in plan:
            try:
                if impl.simple:
                    value = impl.fn(*map(get, impl.argnames))
                elif impl.mode == _KW_ALL:
                    value = impl.fn(**kwargs)
                else:
                    value = self._invoke_one(impl, kwargs)
                if value is None:
                    continue
                if impl.is_async or _is_awaitable(value):
                    value = run_sync(value)
                    if value is None:
                        continue
            except (Exception, SystemExit) as exc:
                failure = self._failed(impl, event, exc)
                if failure is not None:
                    out.append((impl, failure))
                continue
            out.append((impl, value))
        return out

    async def _aresults(
        self, event: str, plan: Sequence[_Impl], kwargs: dict[str, Any]
    ) -> list[tuple[_Impl, Any]]:
        out: list[tuple[_Impl, Any]] = []
        for impl in plan:
            try:
                value = self._invoke_one(impl, kwargs)
                if impl.is_async or _is_awaitable(value):
                    value = await value
            except (Exception, SystemExit) as exc:
                failure = self._failed(impl, event, exc)
                if failure is not None:
                    out.append((impl, failure))
                continue
            if value is not None:
                out.append((impl, value))
        return out

    def call(self, event: str, /, **kwargs: Any) -> Any:
        """Fire ``event`` and return the combined result for its kind.

        decide: a typed decision; context: joined text or ``None``; transform: the final value;
        first: the first valid typed answer or ``None``; observe: ``None``.
        """
        plan = self._plans.get(event)
        info = self._events.get(event)
        if info is None:
            info = self._info(event)
            event = info.name
            plan = self._plans.get(event)
        if not plan:
            return _neutral(info, kwargs)
        kind = info.kind
        if kind == "transform":
            return self._transform(info, plan, kwargs)
        if kind == "first":
            return self._first(info, plan, kwargs)
        if event == "user_prompt_submit":
            return self._prompt(info, plan, kwargs)
        pairs = self._results(event, plan, kwargs)
        if not pairs:
            return _neutral(info, kwargs)
        return _combine(info, pairs)

    async def acall(self, event: str, /, **kwargs: Any) -> Any:
        """Async twin of :meth:`call`: async hooks are awaited on the running loop."""
        info = self._info(event)
        event = info.name
        plan = self._plans.get(event)
        if not plan:
            return _neutral(info, kwargs)
        if info.kind == "transform":
            return await self._atransform(info, plan, kwargs)
        if info.kind == "first":
            for impl in plan:
                answer = await self._aresults(event, (impl,), kwargs)
                found = _first_answer(info, answer)
                if found is not None:
                    return found
            return None
        if event == "user_prompt_submit":
            return await self._aprompt(info, plan, kwargs)
        return _combine(info, await self._aresults(event, plan, kwargs))

    def invoke(self, event: str, /, **kwargs: Any) -> list[Any]:
        """Every non-``None`` normalised result, in call order (Hermes' ``invoke_hook``).

        Works for any event name, including unknown ones that Hermes-style plugins registered.
        """
        info = self._events.get(event) or catalogue.get(event)
        if info is not None:
            event = info.name
        plan = self._plans.get(event)
        if not plan:
            return []
        pairs = self._results(event, plan, kwargs)
        if info is None:
            return [value for _, value in pairs if not isinstance(value, HookFailed)]
        out = []
        for impl, value in pairs:
            normalised = _normalise(info, impl, value)
            if normalised is not None:
                out.append(normalised)
        return out

    def _transform(self, info: EventInfo, plan: Sequence[_Impl], kwargs: dict[str, Any]) -> Any:
        assert info.value is not None
        kwargs = {info.value: None, **kwargs}
        for impl in plan:
            _transform_step(info, self._results(info.name, (impl,), kwargs), kwargs)
        return kwargs[info.value]

    async def _atransform(
        self, info: EventInfo, plan: Sequence[_Impl], kwargs: dict[str, Any]
    ) -> Any:
        assert info.value is not None
        kwargs = {info.value: None, **kwargs}
        for impl in plan:
            _transform_step(info, await self._aresults(info.name, (impl,), kwargs), kwargs)
        return kwargs[info.value]

    def _first(self, info: EventInfo, plan: Sequence[_Impl], kwargs: dict[str, Any]) -> Any:
        for impl in plan:
            found = _first_answer(info, self._results(info.name, (impl,), kwargs))
            if found is not None:
                return found
        return None

    def _prompt(
        self, info: EventInfo, plan: Sequence[_Impl], kwargs: dict[str, Any]
    ) -> PromptDecision:
        kwargs = dict(kwargs)
        decisions: list[PromptDecision] = []
        for impl in plan:
            _prompt_step(info, self._results(info.name, (impl,), kwargs), kwargs, decisions)
        return results.combine_prompt_decisions(decisions)

    async def _aprompt(
        self, info: EventInfo, plan: Sequence[_Impl], kwargs: dict[str, Any]
    ) -> PromptDecision:
        kwargs = dict(kwargs)
        decisions: list[PromptDecision] = []
        for impl in plan:
            pairs = await self._aresults(info.name, (impl,), kwargs)
            _prompt_step(info, pairs, kwargs, decisions)
        return results.combine_prompt_decisions(decisions)

    # ------------------------------------------------------------------ gateway events

    async def emit(
        self, event_type: str, context: Mapping[str, Any] | None = None
    ) -> CommandDecision:
        """Fire a gateway event (``"agent:start"``, ``"command:reset"``, ...) to every
        ``gateway_event`` hook; awaitable answers run concurrently. Returns the combined
        :class:`CommandDecision` (``decision=None`` when nobody acted)."""
        plan = self._plans.get("gateway_event")
        if not plan:
            return CommandDecision()
        kwargs = {"event_type": event_type, "context": dict(context or {})}
        info = self._events["gateway_event"]
        settled: list[tuple[_Impl, Any]] = []
        pending: list[tuple[_Impl, Any]] = []
        for impl in plan:
            try:
                value = self._invoke_one(impl, kwargs)
            except (Exception, SystemExit) as exc:
                failure = self._failed(impl, "gateway_event", exc)
                if failure is not None:
                    settled.append((impl, failure))
                continue
            if _is_awaitable(value):
                pending.append((impl, value))
            elif value is not None:
                settled.append((impl, value))
        if pending:
            outcomes = await asyncio.gather(*(v for _, v in pending), return_exceptions=True)
            for (impl, _), outcome in zip(pending, outcomes, strict=True):
                if isinstance(outcome, BaseException):
                    if isinstance(outcome, (KeyboardInterrupt, asyncio.CancelledError)):
                        raise outcome
                    failure = self._failed(impl, "gateway_event", outcome)
                    if failure is not None:
                        settled.append((impl, failure))
                elif outcome is not None:
                    settled.append((impl, outcome))
        order = {id(impl): i for i, impl in enumerate(plan)}
        settled.sort(key=lambda pair: order[id(pair[0])])
        return _combine(info, settled)

    def emit_sync(
        self, event_type: str, context: Mapping[str, Any] | None = None
    ) -> CommandDecision:
        """:meth:`emit` for hosts without an event loop."""
        return run_sync(self.emit(event_type, context))

    # ------------------------------------------------------------------ typed helpers

    def pre_tool_call(self, **kwargs: Any) -> ToolDecision:
        """Fire ``pre_tool_call``; see the event's docs. Returns a :class:`ToolDecision`."""
        return self.call("pre_tool_call", **kwargs)  # type: ignore[no-any-return]

    def post_tool_call(self, **kwargs: Any) -> str | None:
        """Fire ``post_tool_call``; returns feedback text for the model, or ``None``."""
        return self.call("post_tool_call", **kwargs)  # type: ignore[no-any-return]

    def transform_tool_result(self, **kwargs: Any) -> str:
        """Fire ``transform_tool_result``; returns the (possibly rewritten) result."""
        return self.call("transform_tool_result", **kwargs)  # type: ignore[no-any-return]

    def transform_terminal_output(self, **kwargs: Any) -> str:
        """Fire ``transform_terminal_output``; returns the (possibly rewritten) output."""
        return self.call("transform_terminal_output", **kwargs)  # type: ignore[no-any-return]

    def pre_llm_call(self, **kwargs: Any) -> str | None:
        """Fire ``pre_llm_call``; returns the joined context text, or ``None``."""
        return self.call("pre_llm_call", **kwargs)  # type: ignore[no-any-return]

    def post_llm_call(self, **kwargs: Any) -> None:
        """Fire ``post_llm_call`` (observers)."""
        self.call("post_llm_call", **kwargs)

    def transform_llm_output(self, **kwargs: Any) -> str:
        """Fire ``transform_llm_output``; returns the (possibly rewritten) response text."""
        return self.call("transform_llm_output", **kwargs)  # type: ignore[no-any-return]

    def user_prompt_submit(self, **kwargs: Any) -> PromptDecision:
        """Fire ``user_prompt_submit``; returns a :class:`PromptDecision`."""
        return self.call("user_prompt_submit", **kwargs)  # type: ignore[no-any-return]

    def transform_messages(self, **kwargs: Any) -> list[Any]:
        """Fire ``transform_messages``; returns the (possibly rewritten) message list."""
        return self.call("transform_messages", **kwargs)  # type: ignore[no-any-return]

    def pre_verify(self, **kwargs: Any) -> results.VerifyAnswer | None:
        """Fire ``pre_verify``; a :class:`VerifyAnswer` keeps the agent working."""
        return self.call("pre_verify", **kwargs)  # type: ignore[no-any-return]

    def on_session_start(self, **kwargs: Any) -> str | None:
        """Fire ``on_session_start``; returns context text to inject once, or ``None``."""
        return self.call("on_session_start", **kwargs)  # type: ignore[no-any-return]

    def on_session_end(self, **kwargs: Any) -> None:
        """Fire ``on_session_end`` (observers)."""
        self.call("on_session_end", **kwargs)

    def pre_compress(self, **kwargs: Any) -> results.CompressAnswer | None:
        """Fire ``pre_compress``; returns a :class:`CompressAnswer` or ``None``."""
        return self.call("pre_compress", **kwargs)  # type: ignore[no-any-return]

    def permission_request(self, **kwargs: Any) -> results.PermissionAnswer | None:
        """Fire ``permission_request``; returns a :class:`PermissionAnswer` or ``None``."""
        return self.call("permission_request", **kwargs)  # type: ignore[no-any-return]

    def pre_gateway_dispatch(self, **kwargs: Any) -> results.DispatchAnswer | None:
        """Fire ``pre_gateway_dispatch``; returns a :class:`DispatchAnswer` or ``None``."""
        return self.call("pre_gateway_dispatch", **kwargs)  # type: ignore[no-any-return]

    def notification(self, **kwargs: Any) -> None:
        """Fire ``notification`` (observers)."""
        self.call("notification", **kwargs)

    # ------------------------------------------------------------------ host interface

    def set_host(self, host: Any) -> None:
        """Give plugins the host's capabilities (``inject_message``, ``dispatch_tool``, ``llm``,
        ``run_background_task``); see :class:`hermes_hooks.context.Host`."""
        self.host = host

    def session_env(self, session_id: str) -> dict[str, str]:
        """Variables ``SessionStart`` shell hooks exported to their ``CLAUDE_ENV_FILE``."""
        for rec in self.records.values():
            fn = getattr(rec.plugin, "session_env", None)
            if rec.source == "builtin" and callable(fn):
                return dict(fn(session_id))
        return {}

    # ------------------------------------------------------------------ listing

    def rows(
        self, *, include_builtin: bool = True, event: str | None = None
    ) -> list[dict[str, Any]]:
        """What ``hermes hooks list`` prints: one dict per hook, events in catalogue order, hooks
        in call order; then plugins that registered nothing active (failed, disabled, ...)."""
        if event is not None:
            event = catalogue.get(event).name if catalogue.get(event) else event  # type: ignore[union-attr]
        per_event: dict[str, list[dict[str, Any]]] = {}
        for ev, plan in self._plans.items():
            for impl in plan:
                rec = self.records.get(impl.name)
                if rec is not None and callable(getattr(rec.plugin, "hermes_rows", None)):
                    continue  # described below, one row per hook it manages
                per_event.setdefault(ev, []).append(self._impl_row(ev, impl, rec))
        for name, rec in self.records.items():
            if not callable(getattr(rec.plugin, "hermes_rows", None)):
                continue
            for row in rec.plugin.hermes_rows():
                full = {
                    "source": "builtin",
                    "status": "active",
                    "error": None,
                    "plugin": name,
                    **row,
                }
                per_event.setdefault(full["event"], []).append(full)
        order = list(self._events) + sorted(set(per_event) - set(self._events))
        rows: list[dict[str, Any]] = []
        for ev in order:
            if event is not None and ev != event:
                continue
            for position, row in enumerate(per_event.get(ev, []), start=1):
                row.setdefault("order", position)
                rows.append(row)
        if event is None:
            # Plugins without a hook row: those that did not load (failed, disabled, shadowed),
            # and active ones that registered only tools, commands, skills or nothing at all.
            listed = {r.get("plugin") or r.get("name") for r in rows}
            for rec in self.records.values():
                if rec.status == "active" and (rec.name in listed or rec.source == "builtin"):
                    continue
                if rec.status == "active" and callable(getattr(rec.plugin, "hermes_rows", None)):
                    continue
                rows.append(
                    {
                        "event": None,
                        "name": rec.name,
                        "source": rec.source,
                        "status": rec.status,
                        "error": rec.error,
                        "path": rec.path,
                        "version": rec.version,
                        "registered": self.registered_by(rec.name),
                    }
                )
        if not include_builtin:
            rows = [r for r in rows if r.get("source") != "builtin"]
        return rows

    def registered_by(self, name: str) -> dict[str, list[str]]:
        """What plugin ``name`` put in the registries (tools, commands, skills, ...)."""
        regs = self.registries
        out = {
            kind: sorted(k for k, e in reg.items() if e.plugin == name)
            for kind, reg in (
                ("tools", regs.tools),
                ("commands", regs.commands),
                ("cli_commands", regs.cli_commands),
                ("skills", regs.skills),
            )
        }
        out["middleware"] = sorted(
            k for k, es in regs.middleware.items() if any(e.plugin == name for e in es)
        )
        return {k: v for k, v in out.items() if v}

    def _impl_row(self, event: str, impl: _Impl, rec: PluginRecord | None) -> dict[str, Any]:
        opts = impl.impl
        fn = impl.fn
        return {
            "event": event,
            "name": impl.name,
            "source": rec.source if rec else "python",
            "status": "active",
            "error": None,
            "function": getattr(fn, "__qualname__", repr(fn)),
            "style": "hermes" if impl.hermes else "pluggy",
            "tryfirst": bool(opts.tryfirst),
            "trylast": bool(opts.trylast),
            "fail_closed": impl.fail_closed,
            "path": rec.path if rec else None,
            "version": rec.version if rec else None,
            "known_event": event in self._events,
        }


# ---------------------------------------------------------------------- combining


def _did_you_mean(name: str) -> str:
    guess = catalogue.suggest(name)
    return f" (did you mean {guess!r}?)" if guess else ""


_NO_TOOL_DECISION = ToolDecision()
_NO_PROMPT_DECISION = PromptDecision()
_NO_COMMAND_DECISION = CommandDecision()


def _neutral(info: EventInfo, kwargs: Mapping[str, Any]) -> Any:
    if info.kind == "decide":
        if info.name == "pre_tool_call":
            return _NO_TOOL_DECISION
        if info.name == "user_prompt_submit":
            return _NO_PROMPT_DECISION
        return _NO_COMMAND_DECISION
    if info.kind == "transform":
        assert info.value is not None
        return kwargs.get(info.value)
    return None


def _normalise(info: EventInfo, impl: _Impl, value: Any) -> Any:
    if isinstance(value, HookFailed):
        # Only decision events fail closed (DESIGN 3.3): the failure becomes their block.
        return results.blocked(info, str(value), value.hook) if info.kind == "decide" else None
    if info.kind == "observe":
        return value  # no answer to normalise; invoke() hands observers' values back as they are
    if impl.hermes and info.name == "post_tool_call":
        return None  # Hermes ignores post_tool_call return values; so do we for its plugins.
    return results.normalise(info, value, impl.name)


def _first_answer(info: EventInfo, pairs: list[tuple[_Impl, Any]]) -> Any:
    for impl, value in pairs:
        answer = _normalise(info, impl, value)
        if answer is not None:
            return answer
    return None


def _combine(info: EventInfo, pairs: list[tuple[_Impl, Any]]) -> Any:
    if info.kind == "observe":
        return None
    normalised = [n for n in (_normalise(info, impl, v) for impl, v in pairs) if n is not None]
    combined = results.combine(info, normalised)
    return combined if combined is not None else _neutral(info, {})


def _transform_step(
    info: EventInfo, pairs: list[tuple[_Impl, Any]], kwargs: dict[str, Any]
) -> None:
    """Apply one hook's replacement value (a value of the right type, or a dict answer carrying
    one), if it gave one."""
    assert info.value is not None
    for impl, value in pairs:
        replacement = _normalise(info, impl, value)
        if replacement is not None:
            kwargs[info.value] = replacement


def _prompt_step(
    info: EventInfo,
    pairs: list[tuple[_Impl, Any]],
    kwargs: dict[str, Any],
    decisions: list[PromptDecision],
) -> None:
    """Keep one hook's prompt decision; a rewrite is what the next hook sees."""
    for impl, value in pairs:
        d = _normalise(info, impl, value)
        if d is not None:
            decisions.append(d)
            if d.text is not None:
                kwargs["user_message"] = d.text
