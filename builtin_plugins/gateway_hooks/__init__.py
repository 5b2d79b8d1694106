"""Internal: part of the built-ins (docs/builtins.md), not an API.

Gateway hooks: ``<home>/hooks/<dir>/HOOK.yaml`` + ``handler.py``, as Hermes Agent's gateway has them.

Each directory becomes its own plugin ``gateway:<name>`` (source ``gateway``), so ``hermes hooks
list`` shows it and ``plugins.disabled`` / ``HERMES_HOOKS_DISABLED`` can turn it off. The host fires
gateway events with ``await hooks.emit(event_type, context)``; every hook whose ``events:`` match
runs concurrently: an ``async`` handler on the loop, a sync one in a thread of its own, each under
its ``timeout:``. ``docs/gateway-hooks.md`` is the reference.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import inspect
import logging
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks import catalogue
from hermes_hooks.answers.results import CommandDecision
from hermes_hooks.faults import escapes
from hermes_hooks.loader import ensure_package, import_file
from hermes_hooks.markers import hookimpl
from hermes_hooks.sources import SourceBase
from hermes_hooks.trace import Probe, outcome_of, summarise
from hermes_hooks.trust import untrusted_tree
from hermes_hooks.watchdog import within

from .manifest import HookSpec, matches, read_spec

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

log = logging.getLogger("hermes_hooks")

#: The event gateway hooks answer, and how it reads answers (the hookspec's answer type).
_EVENT = catalogue.events()["gateway_event"]
_ANSWERS = _EVENT.answer
MODULE_NAMESPACE = "hermes_gateway_hooks"


class GatewayHookError(Exception):
    """A gateway handler raised, timed out or called ``sys.exit``; the message says which and where."""


class _Escaped(Exception):
    """Carries a ``SystemExit`` (or other ``BaseException``) out of a handler: raised as is, it
    would stop the event loop instead of just this handler."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(str(original))
        self.original = original


class NoHandle(ImportError):
    """``handler.py`` imported fine but defines no callable ``handle``."""


# ---------------------------------------------------------------------- one hook


#: How many handler threads of one hook may run at once (the ones abandoned at their timeout
#: included); past it, a call fails at once instead of starting another.
MAX_THREADS = 4


class GatewayHook(SourceBase):
    """One loaded gateway hook directory, registered as the plugin ``gateway:<name>``."""

    reports = True  # its handler runs after the impl returned: it times and records each run

    def __init__(
        self, spec: HookSpec, handle: Callable[..., Any], hooks: Hooks | None = None
    ) -> None:
        self.spec = spec
        self.handle = handle
        self.plugin_name = f"gateway:{spec.name}"
        self._patterns = tuple(spec.events)
        self._hooks = hooks  # for its tracer: it records its handler's runs (``reports``)
        # A stuck sync handler is abandoned at its timeout, its thread left running: at most
        # MAX_THREADS of them per hook, so a flood of events cannot pile up threads.
        self._slots = threading.BoundedSemaphore(MAX_THREADS)

    def wants(self, event_type: str) -> bool:
        """True when one of the hook's ``events:`` matches ``event_type``."""
        return any(matches(p, event_type) for p in self._patterns)

    @hookimpl(trylast=True)
    def gateway_event(self, event_type: str, context: dict[str, Any]) -> Any:
        """Run the handler when its events match; returns an awaitable (``emit`` gathers them)."""
        if not self.wants(event_type):
            return None
        return self.run(event_type, context)

    async def run(self, event_type: str, context: dict[str, Any]) -> CommandDecision | None:
        """Run the handler under the hook's timeout; a ``command:*`` answer becomes a decision.
        Each run is reported to the runtime's tracer, when tracing is on."""
        tracer = self._hooks.tracer if self._hooks is not None else None
        if tracer is None:
            return (await self._run(event_type, context))[0]
        started = time.perf_counter()
        answer, raw, error = None, None, None
        try:
            answer, raw = await self._run(event_type, context)
            return answer
        except GatewayHookError as exc:
            error = str(exc)
            raise
        finally:
            dropped = _ANSWERS.explain(raw) if answer is None and raw is not None else ""
            probe = Probe(raw=raw, error=error, dropped=dropped or None)
            kwargs = {"event_type": event_type, "context": context}
            tracer.record(event=_EVENT.name, hook=self.plugin_name, source="gateway",
                          ms=(time.perf_counter() - started) * 1000,
                          outcome=outcome_of(answer, probe), decision=summarise(answer, tracer.redact),
                          dropped=probe.dropped, error=error, kwargs=kwargs, raw=raw)  # fmt: skip

    async def _run(
        self, event_type: str, context: dict[str, Any]
    ) -> tuple[CommandDecision | None, Any]:
        where = self.spec.directory / "handler.py"
        try:
            if inspect.iscoroutinefunction(self.handle):
                work = self.handle(event_type, context)
            else:
                if not self._slots.acquire(blocking=False):
                    raise GatewayHookError(
                        f"{event_type}: not run: {MAX_THREADS} earlier calls of {where} are still "
                        "running past their timeout"
                    )
                work = _in_thread(
                    self.handle,
                    event_type,
                    context,
                    name=self.plugin_name,
                    done=self._slots.release,
                )
            value = await within(_guarded(work), self.spec.timeout)
        except asyncio.TimeoutError:
            raise GatewayHookError(
                f"{event_type}: timed out after {self.spec.timeout:g}s ({where}; "
                "raise `timeout:` in HOOK.yaml if it needs longer)"
            ) from None
        except BaseException as exc:
            if escapes(exc):
                raise
            cause = exc.original if isinstance(exc, _Escaped) else exc
            raise GatewayHookError(
                f"{event_type}: {type(cause).__name__}: {cause} ({where})"
            ) from cause
        if not event_type.startswith("command:") or value is None:
            return None, None  # As in Hermes: only command hooks may act on what happens next.
        command = event_type.split(":", 1)[1]
        answer: CommandDecision | None = _ANSWERS.normalise(
            value,
            self.plugin_name,
            f"Command /{command} was blocked by gateway hook {self.spec.name!r}.",
        )
        allow = isinstance(value, Mapping) and value.get("decision") == "allow"
        why = _ANSWERS.explain(value) if answer is None and not allow else ""
        if why:  # an answer that cannot be read (a misspelt decision): never silent
            self._ignored(why, value)
            if self.spec.fail_closed:
                raise GatewayHookError(f"{event_type}: its answer cannot be read: {why} ({where})")
        return answer, value

    def _ignored(self, why: str, value: Any) -> None:
        """Report an answer that reads as nothing, once per reason, and count it."""
        if self._hooks is None:
            log.warning("gateway hook %r: its answer was ignored: %s", self.spec.name, why)
            return
        self._hooks.manager.ignored(self.plugin_name, _EVENT, why, value)

    def fail_closed_on(self, event: str) -> bool:
        return self.spec.fail_closed

    def rows(self) -> list[dict[str, Any]]:
        """The hook's row in ``hermes hooks list``."""
        return [
            {
                "event": _EVENT.name,
                "name": self.plugin_name,
                "source": "gateway",
                "status": "active",
                "error": None,
                "matcher": ", ".join(self.spec.events),
                "function": f"{self.spec.directory / 'handler.py'}:{getattr(self.handle, '__name__', 'handle')}",
                "description": self.spec.description,
                "timeout": self.spec.timeout,
                "fail_closed": self.spec.fail_closed,
                "path": str(self.spec.directory),
                "style": "gateway",
                "trylast": True,
            }
        ]


async def _guarded(work: Any) -> Any:
    try:
        value = await work
        while inspect.isawaitable(value):  # a sync handle() that returned a coroutine
            value = await value
    except SystemExit as exc:  # a handler's sys.exit() ends the handler, not the gateway
        raise _Escaped(exc) from exc
    return value


async def _in_thread(
    fn: Callable[..., Any], *args: Any, name: str, done: Callable[[], Any] | None = None
) -> Any:
    """Run ``fn`` in a daemon thread of its own and await its result.

    Not ``asyncio.to_thread``: a handler that never returns would hold a worker of the shared
    executor, and ``asyncio.run`` (``emit_sync``) waits for those at exit; a daemon thread that
    outlives its timeout is simply abandoned.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def deliver(ok: bool, value: Any) -> None:
        if future.done():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def target() -> None:
        try:
            value: Any = fn(*args)
            ok = True
        except BaseException as exc:  # handed to the awaiting coroutine
            value = exc if isinstance(exc, Exception) else _Escaped(exc)
            ok = False
        finally:
            if done is not None:
                done()
        try:
            loop.call_soon_threadsafe(deliver, ok, value)
        except RuntimeError:
            pass  # the loop is gone: the caller stopped waiting long ago

    threading.Thread(target=target, name=f"hermes-{name}", daemon=True).start()
    return await future


# ---------------------------------------------------------------------- reading a directory


def _module_name(directory: Path) -> str:
    # Unique per directory, whatever the HOOK.yaml names say: two hooks can never share a module.
    digest = hashlib.sha1(str(directory.resolve()).encode()).hexdigest()[:10]
    stem = "".join(c if c.isalnum() else "_" for c in directory.name)
    return f"{MODULE_NAMESPACE}.{stem}_{digest}"


def import_handler(directory: Path) -> Callable[..., Any]:
    """Import ``directory/handler.py`` as its own package's module (so relative imports work) and
    return its ``handle``."""
    ensure_package(MODULE_NAMESPACE)
    package_name = _module_name(directory)
    ensure_package(package_name, [str(directory)])
    handler = directory / "handler.py"
    try:
        module = import_file(f"{package_name}.handler", handler)
    except BaseException:
        sys.modules.pop(package_name, None)
        raise
    handle = getattr(module, "handle", None)
    if not callable(handle):
        raise NoHandle(f"{handler}: defines no `handle(event_type, context)` function")
    return handle  # type: ignore[no-any-return]  # checked callable above


# ---------------------------------------------------------------------- loading


def _fail(hooks: Hooks, name: str, directory: Path, error: str, status: str = "failed") -> None:
    from hermes_hooks.manager import PluginRecord

    if status == "failed":
        log.warning("gateway hook %r not loaded: %s", name, error)
    hooks.record(
        PluginRecord(name=name, source="gateway", status=status, error=error, path=str(directory))
    )


def load_hooks(hooks: Hooks, root: Path) -> list[GatewayHook]:
    """Load every hook directory under ``root`` (sorted) into ``hooks``; return the loaded ones."""
    from hermes_hooks.loader import Policy

    if not root.is_dir():
        return []
    policy = Policy.from_config(hooks.config)
    loaded: list[GatewayHook] = []
    stand_ins: list[tuple[HookSpec, str]] = []
    seen: dict[str, Path] = {}
    for directory in sorted(root.iterdir(), key=lambda p: p.name):
        if not directory.is_dir() or directory.name.startswith((".", "_")):
            continue
        spec = read_spec(directory)
        plugin_name = f"gateway:{spec.name}"
        if spec.name in seen:
            _fail(
                hooks,
                f"{plugin_name} ({directory})",
                directory,
                f"{directory}: the name {spec.name!r} is already used by {seen[spec.name]}; "
                "give one of them another `name:`",
            )
            continue
        seen[spec.name] = directory
        if spec.error is not None:
            _fail(hooks, plugin_name, directory, spec.error)
            stand_ins.append((spec, spec.error))
            continue
        refusal = policy.refusal(plugin_name)
        if refusal is not None:
            _fail(hooks, plugin_name, directory, refusal, status="disabled")
            continue
        distrust = untrusted_tree(directory, (".py", ".yaml", ".yml"))
        if distrust is not None:
            _fail(hooks, plugin_name, directory, f"refused: {distrust}")
            stand_ins.append((spec, f"refused: {distrust}"))
            continue
        try:
            handle = import_handler(directory)
        except NoHandle as exc:
            _fail(hooks, plugin_name, directory, str(exc))
            stand_ins.append((spec, str(exc)))
            continue
        except BaseException as exc:
            if escapes(exc):
                raise
            error = f"{directory / 'handler.py'}: import failed: {type(exc).__name__}: {exc}"
            _fail(hooks, plugin_name, directory, error)
            stand_ins.append((spec, error))
            continue
        loaded.append(GatewayHook(spec, handle, hooks))
    # pluggy puts each new trylast impl at the far end of its group, behind the earlier ones:
    # registering in directory order makes them run in directory order.
    for hook in loaded:
        hooks.register(
            hook,
            hook.plugin_name,
            source="gateway",
            hook_source=hook,
            fail_closed=hook.spec.fail_closed,
            path=str(hook.spec.directory),
            description=hook.spec.description,
        )
    for spec, error in stand_ins:
        if spec.fail_closed:
            _stand_in(hooks, spec, error)
    if loaded:
        log.info("gateway hooks loaded: %s", ", ".join(h.spec.name for h in loaded))
    return loaded


def _stand_in(hooks: Hooks, spec: HookSpec, error: str) -> None:
    """A ``fail_closed`` hook that cannot load has no answer: in its place, a hook that fails
    on every event it would have handled (all of ``command:*`` when its events are unknown),
    so each such command is denied naming it and why it did not load. It belongs to the
    failed hook's record, which stays ``failed``."""

    def handle(event_type: str, context: Any) -> None:
        raise RuntimeError(f"not loaded, and fail_closed: {error}")

    stand = dataclasses.replace(spec, events=list(spec.events) or ["command:*"], error=None)
    name = f"gateway:{spec.name}"
    hook = GatewayHook(stand, handle, hooks)
    hooks.register(hook, f"{name}:fail-closed", parent=name, source="gateway", hook_source=hook,
                   fail_closed=True, path=str(spec.directory))  # fmt: skip


def setup(hooks: Hooks) -> None:
    """Register ``<home>/hooks/*`` as ``gateway:<name>`` plugins (nothing in safe mode, or with
    ``gateway_hooks: false`` in config)."""
    if hooks.safe_mode:
        return None
    if hooks.config.get("gateway_hooks", True) is False:
        log.info("gateway hooks are off (gateway_hooks: false in config)")
        return None
    if not hooks.gateway_hooks:  # the host's own gateway runs them (Hermes Agent's)
        for directory in sorted((hooks.home / "hooks").iterdir(), key=lambda p: p.name):
            if directory.is_dir() and not directory.name.startswith((".", "_")):
                spec = read_spec(directory)
                if spec.error is None:
                    hooks.hosted[f"gateway:{spec.name}"] = "the host's gateway"
        return None
    load_hooks(hooks, hooks.home / "hooks")
    return None
