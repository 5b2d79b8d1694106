"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Dispatch: one driver that fires an event's planned hooks and combines their answers with the
event's answer type.

Every hook is called in its own isolation: its call, awaiting it, and reading its answer happen
inside one ``try``, so an exception, a malformed answer or a bad typed answer costs only that
hook its answer (or, when it is ``fail_closed``, becomes the event's failed-closed form). A
hook source's hooks (shell, http, prompt, mcp, worker hooks) are entries of the plan like any
other; each returns a pending answer, and the pending answers of one firing are settled in one
batch by their source (:class:`~hermes_hooks.manager.Entry`), so they run side by side; the
dispatcher writes their receipts as it does every other hook's, with what the source settled
(:class:`~hermes_hooks.manager.Settled`: the sha256 of what ran, a hook not run and why). Two
step shapes, chosen from the answer type: independent hooks (every hook runs on the same
arguments, awaitables resolved together) and a pipeline (each hook sees what the previous piped;
a ``firstresult`` event stops at the first answer its type calls final: ``AnswerType.final``).

The async API runs this same driver in a worker thread, with async hooks scheduled on the
caller's event loop: a sync hook or a shell hook never blocks the loop, and there is no second,
async copy of the loop to keep in step.
"""

from __future__ import annotations

import inspect
import logging
import threading
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pluggy

from .config import env_flag
from .faults import escapes
from .manager import HookManager, Impl, Route, Settled
from .terminal import TELL
from .trace import Probe, Tracer
from .watchdog import run_limited

if TYPE_CHECKING:
    import asyncio

log = logging.getLogger("hermes_hooks")

#: Turns an awaitable into its value (raising what it raised).
Resolve = Callable[[Any], Any]
#: How many times a rewrite of what will run is judged again before the call is blocked.
MAX_REJUDGE = 3


def _is_awaitable(value: Any) -> bool:
    if value is None or value.__class__ in (str, dict, list, tuple, int, bool, float):
        return False
    return inspect.isawaitable(value)


async def _await(value: Any) -> Any:
    return await value


class _Raised:
    """An awaited hook's exception, carried out of ``gather`` as a value."""

    __slots__ = ("exc",)

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


async def _settled(value: Any) -> Any:
    try:
        return await value
    except BaseException as exc:
        if escapes(exc):
            raise
        return _Raised(exc)


async def _gather(values: Sequence[Any]) -> list[Any]:
    import asyncio

    # Each awaitable is settled on its own: asyncio lets SystemExit and other BaseExceptions
    # of one task escape the whole loop.
    return list(await asyncio.gather(*map(_settled, values)))


def run_sync(awaitable: Any) -> Any:
    """Run an awaitable to completion from synchronous code, whatever loop is (not) running."""
    import asyncio  # here, not at import: hosts that never await pay nothing for asyncio

    coro = awaitable if inspect.iscoroutine(awaitable) else _await(awaitable)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run_detaching(coro)
    # Called from inside a running loop (a sync API used by async code): the loop cannot be
    # re-entered, so the coroutine gets its own loop in a helper thread.
    box: dict[str, Any] = {}

    def runner() -> None:
        try:
            box["value"] = _run_detaching(coro)
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=runner, name="hermes-hooks-async", daemon=True)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


#: How long tasks left over at the end of a sync call get to finish once cancelled.
_GRACE = 0.25


def _run_detaching(coro: Coroutine[Any, Any, Any]) -> Any:
    """``asyncio.run(coro)``, except for the tasks left over when ``coro`` is done (a hook
    abandoned at its time limit): they are cancelled and given a moment, and those that ignore
    their cancellation are reported and left running detached, on this loop in a daemon
    thread, instead of holding the caller past every time limit (``asyncio.run`` waits for
    them)."""
    import asyncio

    loop = asyncio.new_event_loop()
    detached = False
    try:
        asyncio.set_event_loop(loop)
        return loop.run_until_complete(coro)
    finally:
        try:
            leftovers = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for task in leftovers:
                task.cancel()
            if leftovers:
                loop.run_until_complete(asyncio.wait(leftovers, timeout=_GRACE))
            stubborn = [t for t in leftovers if not t.done()]
            if stubborn:
                detached = True
                _detach(loop, stubborn)
            else:
                loop.run_until_complete(loop.shutdown_asyncgens())
                loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            asyncio.set_event_loop(None)
            if not detached:
                loop.close()


def _detach(loop: asyncio.AbstractEventLoop, tasks: Sequence[asyncio.Task[Any]]) -> None:
    """Leave ``tasks`` (cancelled, still running) to finish on ``loop`` in a daemon thread."""
    import asyncio

    names = ", ".join(sorted({_task_name(t) for t in tasks}))
    log.warning(
        "%d task(s) ignored cancellation after a hook's time limit and keep running detached "
        "(not waited for): %s",
        len(tasks),
        names,
    )

    def finish() -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(asyncio.wait(tasks))
            loop.run_until_complete(loop.shutdown_asyncgens())
        except BaseException:  # the process is leaving, or the task broke: nothing to report to
            pass
        finally:
            loop.close()

    threading.Thread(target=finish, name="hermes-hooks-detached", daemon=True).start()


def _task_name(task: asyncio.Task[Any]) -> str:
    coro = task.get_coro()
    qualname = getattr(coro, "__qualname__", None)
    code = getattr(coro, "cr_code", None)
    where = f" ({code.co_filename})" if code is not None else ""
    return f"{qualname or task.get_name()}{where}"


def on_loop(loop: asyncio.AbstractEventLoop) -> Resolve:
    """A resolver that awaits on ``loop`` (the host's) from a worker thread."""
    import asyncio

    def resolve(awaitable: Any) -> Any:
        coro: Coroutine[Any, Any, Any] = _await(awaitable)
        return asyncio.run_coroutine_threadsafe(coro, loop).result()

    return resolve


def _invoke(impl: Impl, kwargs: Mapping[str, Any]) -> Any:
    if impl.all_kwargs:
        return impl.fn(**kwargs)
    if impl.kwargnames:
        extra = {k: kwargs[k] for k in impl.kwargnames if k in kwargs}
        return impl.fn(*map(kwargs.get, impl.argnames), **extra)
    return impl.fn(*map(kwargs.get, impl.argnames))


class Dispatcher:
    """Fires events of one :class:`~hermes_hooks.manager.HookManager`."""

    def __init__(self, manager: HookManager, tracer: Tracer | None = None) -> None:
        self.manager = manager
        #: Traces, receipts and spans (``None``: tracing is off and costs one check per call).
        self.tracer = tracer
        #: ``HERMES_HOOKS_DEBUG=1`` (or ``--verbose``): a failing hook's full traceback is logged.
        self.debug = env_flag("HERMES_HOOKS_DEBUG")

    # -------------------------------------------------------------- one hook's answer

    def _failed(self, route: Route, impl: Impl, exc: BaseException) -> Any:
        info = route.info
        self.manager.failures[(impl.name, info.name)] += 1
        log.warning(
            "hook %r failed on %s: %s: %s (skipped%s)",
            impl.name,
            info.name,
            type(exc).__name__,
            exc,
            "; fail_closed" if impl.fail_closed else "",
            exc_info=exc if self.debug else None,
            extra=TELL if info.can_block and not impl.fail_closed else None,  # it did not guard
        )
        if not impl.fail_closed:
            return None
        message = (
            f"hook {impl.name!r} failed on {info.name} ({type(exc).__name__}: {exc}) "
            "and is fail_closed"
        )
        return info.answer.failed(message, impl.name)

    def _read(self, route: Route, impl: Impl, value: Any, probe: Probe | None = None) -> Any:
        if impl.hermes and route.hermes_ignored:
            return None
        answer = route.normalise(value, impl.name)
        if answer is None:
            reason = self._ignored(route, impl, value)
            if probe is not None:
                probe.dropped = reason or None
            if reason and impl.fail_closed:
                # An answer the event cannot read is an unknown answer, not "no opinion".
                message = (f"hook {impl.name!r} on {route.info.name} gave an answer that "
                           f"cannot be read ({reason}) and is fail_closed")  # fmt: skip
                return route.info.answer.failed(message, impl.name)
        return answer

    def _ignored(self, route: Route, impl: Impl, value: Any) -> str:
        """Report an answer that normalised to nothing, once per hook, event and reason; return
        the reason (``""`` for a plain "no opinion")."""
        reason = route.info.answer.explain(value)
        if reason:
            self.manager.ignored(impl.name, route.info, reason, value)
        return reason

    def _one(
        self,
        route: Route,
        impl: Impl,
        kwargs: Mapping[str, Any],
        resolve: Resolve,
        probe: Probe | None = None,
    ) -> Any:
        """One hook's answer (a hook source's entries are settled in batches: :meth:`_batch`)."""
        try:
            if impl.timeout is not None:
                value = run_limited(impl, lambda: _invoke(impl, kwargs), resolve)
            else:
                value = _invoke(impl, kwargs)
                if impl.is_async or _is_awaitable(value):
                    value = resolve(value)
            if probe is not None:
                probe.raw = value
            return None if value is None else self._read(route, impl, value, probe)
        except BaseException as exc:
            if escapes(exc):
                raise
            if probe is not None:
                probe.error = f"{type(exc).__name__}: {exc}"
            return self._failed(route, impl, exc)

    # -------------------------------------------------------------- the two step shapes

    def _independent(self, route: Route, kwargs: Mapping[str, Any], resolve: Resolve) -> list[Any]:
        # The hot path, kept flat (docs/performance.md): one call per hook, no per-hook frames.
        slots: list[Any] = []
        pending: list[tuple[int, Impl, Any]] = []
        started: list[tuple[int, Impl, Any]] = []  # a hook source's entries, settled in batch
        get = kwargs.get
        for impl in route.plan:
            try:
                if impl.simple:
                    value = impl.fn(*map(get, impl.argnames))
                elif impl.timeout is not None:
                    slots.append(self._one(route, impl, kwargs, resolve))
                    continue
                elif impl.batch is not None:
                    value = impl.fn(kwargs)
                    if value is not None:
                        started.append((len(slots), impl, value))
                        slots.append(None)
                    continue
                elif impl.all_kwargs:
                    value = impl.fn(**kwargs)
                else:
                    value = _invoke(impl, kwargs)
                if value is None:
                    continue
                if impl.is_async or _is_awaitable(value):
                    pending.append((len(slots), impl, value))
                    slots.append(None)
                    continue
                slots.append(self._read(route, impl, value))
            except BaseException as exc:
                if escapes(exc):
                    raise
                slots.append(self._failed(route, impl, exc))
        if started:
            self._settle_batches(route, kwargs, started, slots)
        if pending:
            self._settle(route, pending, slots, resolve)
        return [a for a in slots if a is not None] if slots else slots

    def _settle_batches(
        self,
        route: Route,
        kwargs: Mapping[str, Any],
        started: list[tuple[int, Impl, Any]],
        slots: list[Any],
        tracer: Tracer | None = None,
        began: Sequence[float] = (),
    ) -> None:
        """Settle the pending answers of a hook source's entries, each batch at once (the
        shell hooks of a firing run side by side). Should the settling itself fail, every
        entry of the batch failed: a ``fail_closed`` one blocks. With a tracer, each entry's
        receipt is written here, timed from its start (``began``, by slot) to its settling."""
        batches: dict[int, list[tuple[int, Impl, Any]]] = {}
        for item in started:
            batches.setdefault(id(item[1].batch), []).append(item)
        for group in batches.values():
            try:
                outcomes = list(
                    group[0][1].batch.settle(route.info, kwargs, [p for *_, p in group])
                )
                if len(outcomes) != len(group):
                    raise RuntimeError(
                        f"the hook source settled {len(outcomes)} of {len(group)} hooks"
                    )
            except BaseException as exc:
                if escapes(exc):
                    raise
                for index, impl, _ in group:
                    slots[index] = self._entry_failed(
                        route, impl, exc, kwargs, tracer, began, index
                    )
                continue
            for (index, impl, _), outcome in zip(group, outcomes, strict=True):
                slots[index] = self._taken(route, impl, outcome)
                if tracer is not None and outcome is not None:
                    self._receipt(tracer, route, impl, kwargs, began[index], outcome)

    def _entry_failed(
        self,
        route: Route,
        impl: Impl,
        exc: BaseException,
        kwargs: Mapping[str, Any],
        tracer: Tracer | None,
        began: Sequence[float],
        index: int,
    ) -> Any:
        """A hook source's entry whose start or settling raised: what the dispatcher makes of
        the failure (:meth:`_failed`), receipted with it when tracing."""
        slot = self._failed(route, impl, exc)
        if tracer is not None:
            failed = Settled(value=slot, failure=f"{type(exc).__name__}: {exc}")
            self._receipt(tracer, route, impl, kwargs, began[index], failed)
        return slot

    def _receipt(
        self,
        tracer: Tracer,
        route: Route,
        impl: Impl,
        kwargs: Mapping[str, Any],
        began: float,
        outcome: Any,
    ) -> None:
        """The receipt of one settled entry (:class:`~hermes_hooks.manager.Settled`): what its
        source knows of the run (or, when the source failed to start or settle it, that
        failure and what the dispatcher made of it), timed from the entry's start to now."""
        tracer.settled(
            event=route.info.name,
            hook=impl.name,
            source=impl.source or "builtin",
            ms=(time.perf_counter() - began) * 1000,
            outcome=outcome,
            kwargs=kwargs,
        )

    def _taken(self, route: Route, impl: Impl, outcome: Any) -> Any:
        """A settled entry's answer (already read by its source with the event's answer type):
        counted when it failed or was ignored; a ``fail_closed`` hook that failed without an
        answer blocks."""
        if outcome is None:
            return None
        key = (impl.name, route.info.name)
        failure = outcome.failure
        if failure:
            self.manager.failures[key] += 1
        if outcome.dropped:
            self.manager.dropped[key] += 1
        value = outcome.value
        if value is None and failure and impl.fail_closed:
            message = (
                f"hook {impl.name!r} failed on {route.info.name} ({failure}) and is fail_closed"
            )
            return route.info.answer.failed(message, impl.name)
        return value

    def _settle(
        self,
        route: Route,
        pending: list[tuple[int, Impl, Any]],
        slots: list[Any],
        resolve: Resolve,
    ) -> None:
        """Await the pending answers together (gateway handlers run concurrently)."""
        outcomes = resolve(_gather([value for _, _, value in pending]))
        for (index, impl, _), outcome in zip(pending, outcomes, strict=True):
            try:
                if isinstance(outcome, _Raised):
                    raise outcome.exc
                slots[index] = None if outcome is None else self._read(route, impl, outcome)
            except BaseException as exc:
                if escapes(exc):
                    raise
                slots[index] = self._failed(route, impl, exc)

    def _pipeline(
        self, route: Route, kwargs: dict[str, Any], resolve: Resolve, tracer: Tracer | None = None
    ) -> list[Any]:
        """Hooks one after the other; each sees what the previous piped. With a tracer, every
        route runs this way (independent hooks simply pipe nothing), each hook timed. Where
        nothing is piped, a run of one hook source's entries is settled at once (its hooks run
        side by side), their answers then read in order."""
        answer_type = route.info.answer
        pipes, stop = answer_type.pipes, route.info.kind == "first"
        answers: list[Any] = []
        plan, i = route.plan, 0
        while i < len(plan):
            impl = plan[i]
            i += 1
            if impl.batch is not None:  # a run of a source's entries (one alone when piped to)
                run = [impl]
                while pipes is None and i < len(plan) and plan[i].batch is impl.batch:
                    run.append(plan[i])
                    i += 1
                batch = self._batch(route, run, kwargs, tracer)
            elif tracer is None:
                batch = [self._one(route, impl, kwargs, resolve)]
            else:
                batch = [self._traced_one(tracer, route, impl, kwargs, resolve)]
            for answer in batch:
                if answer is None:
                    continue
                answers.append(answer)
                if stop and answer_type.final(answer):
                    return answers
                if pipes is not None:
                    value = answer_type.piped(answer)
                    if value is not None:
                        kwargs[pipes] = value
        return answers

    def _batch(
        self,
        route: Route,
        impls: Sequence[Impl],
        kwargs: Mapping[str, Any],
        tracer: Tracer | None = None,
    ) -> list[Any]:
        """The answers of consecutive entries of one hook source, settled at once (with a
        tracer, each receipted: the dispatcher writes every hook's receipt)."""
        slots: list[Any] = []
        started: list[tuple[int, Impl, Any]] = []
        began: list[float] = []
        for impl in impls:
            if tracer is not None:
                began.append(time.perf_counter())
            try:
                value = impl.fn(kwargs)
            except BaseException as exc:
                if escapes(exc):
                    raise
                slots.append(
                    self._entry_failed(route, impl, exc, kwargs, tracer, began, len(began) - 1)
                )
                continue
            if value is not None:
                started.append((len(slots), impl, value))
            slots.append(None)
        if started:
            self._settle_batches(route, kwargs, started, slots, tracer, began)
        return slots

    def _traced_one(
        self, tracer: Tracer, route: Route, impl: Impl, kwargs: dict[str, Any], resolve: Resolve
    ) -> Any:
        record = self.manager.records.get(impl.name)
        return tracer.around(
            route.info.name,
            impl.name,
            record.source if record is not None else "python",
            kwargs,
            lambda probe: self._one(route, impl, kwargs, resolve, probe),
            # A gateway hook times and records its handler's run itself (what it reads of the
            # handler's answer never reaches the dispatcher); the dispatcher reports every
            # other hook, a hook source's entries included (_receipt).
            report=record is None or record.hook_source is None or not record.hook_source.reports,
        )

    # -------------------------------------------------------------- the driver

    def run(self, route: Route, kwargs: Mapping[str, Any], resolve: Resolve = run_sync) -> Any:
        """Fire ``route``'s hooks and return the combined result.

        On an event whose answers may rewrite what will run (``AnswerType.rejudges``: the tool
        call's ``args``), a result that rewrites it is not final: the hooks fire again on the
        rewritten value, until a round rewrites nothing new, so every hook has judged what will
        run. Past :data:`MAX_REJUDGE` rounds the call is blocked (the hooks keep rewriting)."""
        if self.manager.monitors:
            result = self._monitored(route, kwargs, resolve)
        elif route.independent and self.tracer is None:
            answers = self._independent(route, kwargs, resolve)
            result = route.combine(answers, kwargs) if answers else route.neutral(kwargs)
        else:
            result = self._drive(route, kwargs, resolve)
        if not route.rejudges or route.rewrite_of(result, kwargs) is None:
            return result
        return self._rejudged(route, kwargs, resolve, result)

    def _rejudged(
        self, route: Route, kwargs: Mapping[str, Any], resolve: Resolve, result: Any
    ) -> Any:
        answer_type = route.info.answer
        name = answer_type.rejudges
        assert name is not None
        current, earlier = dict(kwargs), list[Any]()  # earlier: the results of the rounds before
        for _ in range(MAX_REJUDGE):
            rewritten = answer_type.rewrite_of(result, current)
            if rewritten is None:
                return answer_type.settled(result, kwargs.get(name), current[name], earlier)
            current[name] = rewritten
            earlier.append(result)
            result = self.run_once(route, current, resolve)
        if answer_type.rewrite_of(result, current) is None:
            return answer_type.settled(result, kwargs.get(name), current[name], earlier)
        log.warning("%s: hooks still rewrite %r after %d rounds; blocked", route.info.name,
                    name, MAX_REJUDGE)  # fmt: skip
        return answer_type.blocked(
            f"the hooks of {route.info.name} kept rewriting {name!r} ({MAX_REJUDGE} rounds): "
            "what would run was never approved as a whole, so it is blocked",
            None,
        )

    def run_once(self, route: Route, kwargs: Mapping[str, Any], resolve: Resolve) -> Any:
        """One round of :meth:`run`: fire the hooks once and combine their answers."""
        if self.manager.monitors:
            return self._monitored(route, kwargs, resolve)
        return self._drive(route, kwargs, resolve)

    def answers(
        self, route: Route, kwargs: Mapping[str, Any], resolve: Resolve = run_sync
    ) -> tuple[list[Any], dict[str, Any]]:
        """Every hook's normalised answer, in call order, and the arguments after piping."""
        if route.independent and self.tracer is None:
            return self._independent(route, kwargs, resolve), dict(kwargs)
        piped = dict(kwargs)
        pipes = route.info.answer.pipes
        if pipes is not None:
            piped.setdefault(pipes, None)
        return self._pipeline(route, piped, resolve, self.tracer), piped

    def _drive(self, route: Route, kwargs: Mapping[str, Any], resolve: Resolve) -> Any:
        tracer = self.tracer
        if tracer is None:
            answers, piped = self.answers(route, kwargs, resolve)
            return route.combine(answers, piped) if answers else route.neutral(piped)
        with tracer.event(route.info.name, kwargs) as done:
            piped = dict(kwargs)
            if route.info.answer.pipes is not None:
                piped.setdefault(route.info.answer.pipes, None)
            answers = self._pipeline(route, piped, resolve, tracer)
            result = route.combine(answers, piped) if answers else route.neutral(piped)
            done(result)
            return result

    def _monitored(self, route: Route, kwargs: Mapping[str, Any], resolve: Resolve) -> Any:
        monitors = self.manager.monitors
        impls = list(
            dict.fromkeys(impl.impl for impl in route.plan)
        )  # a source's entries share one
        name = route.info.name
        for before, _ in monitors:
            before(name, impls, kwargs)
        outcome = pluggy.Result.from_call(lambda: self._drive(route, kwargs, resolve))
        for _, after in monitors:
            after(outcome, name, impls, kwargs)
        return outcome.get_result()

    async def arun(self, route: Route, kwargs: Mapping[str, Any]) -> Any:
        """:meth:`run` off the event loop: hooks run in a worker thread, async hooks on the
        caller's loop, so nothing a hook does blocks the loop."""
        import asyncio

        loop = asyncio.get_running_loop()
        return await asyncio.to_thread(self.run, route, kwargs, on_loop(loop))
