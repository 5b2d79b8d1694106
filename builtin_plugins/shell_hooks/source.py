"""Internal: part of the built-ins (docs/builtins.md), not an API.

The shell-hook source: one plugin object that carries every shell hook of a runtime.

It implements (``trylast``) only the events that have shell hooks, so ``hooks.has_hook(event)``
stays false for the rest, and hands each hook to the dispatch plan as its own entry in that
place (:meth:`ShellHooks.entries`): the dispatcher orders, isolates, fails closed, counts, pipes
and combines shell hooks exactly as it does Python hooks. What this source alone knows stays
here: reading the config, consent, building each payload, starting the transports and reading
their output. At a firing the matching hooks' pending answers are settled in one batch
(:meth:`ShellHooks.settle`), so they run side by side.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks.catalogue import EventInfo
from hermes_hooks.config import truthy
from hermes_hooks.loader import required_names
from hermes_hooks.manager import Entry, Settled
from hermes_hooks.markers import hookimpl
from hermes_hooks.sources import SourceBase

from . import processes, protocol, sequence
from .approvals import Approvals, Ask, Consent, interactive, question, tty_prompt
from .background import Background, Mailbox, Wakeup
from .config import UnreadableTransport
from .execution import Runner
from .matching import UNREADABLE, HookKey, ShellHook
from .mcp import McpTransport
from .processes import parse_env_file
from .runs import RECORDER, SOURCE, Recorder, Run, settled, trace
from .workers import WorkerPool

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

log = logging.getLogger("hermes_hooks")

DEFAULT_STOP_CONTINUES = 3


class ShellHooks(SourceBase):
    """The shell-hook source of one :class:`~hermes_hooks.Hooks`.

    ``ask`` is how a person is asked to approve a hook at its first firing: ``prompt`` when it
    is a callable (a host's own UI: it gets the question, returns ``True`` for yes), a terminal
    prompt when there is a terminal and ``prompt`` is true; ``None`` (unapproved hooks are not
    run) otherwise.
    """

    def __init__(
        self,
        hooks: Hooks,
        entries: Sequence[ShellHook],
        problems: Sequence[str] = (),
        *,
        prompt: bool | Ask = True,
    ) -> None:
        self.home = Path(hooks.home)
        self.problems = list(problems)
        self._manager = hooks.manager
        self._hooks = hooks
        config = hooks.config
        accept = bool(hooks.accept_hooks) or truthy(config.get("hooks_auto_accept"))
        ask: Ask | None
        if callable(prompt):
            ask = prompt
        else:
            ask = tty_prompt if prompt and interactive() else None
        self.approvals = Approvals(
            self.home, self._event_of, self._static_env, accept=accept, ask=ask
        )
        self.runner = Runner(
            self.home,
            self.approvals,
            cap=_positive_int(config.get("hooks_max_output"), processes.OUTPUT_CAP),
            observe=self._settle,
            minimal=str(config.get("hooks_env") or "").strip().lower() == "minimal",
            redact=lambda value: hooks.redact(value),
        )
        self.runner.transports["mcp_tool"] = McpTransport(lambda: hooks.host)
        self.runner.transports[UNREADABLE] = UnreadableTransport()
        self.mailbox = Mailbox(lambda: hooks.host, self.approvals.warn_once)
        self.runner.background = Background(self._in_background, self.mailbox.deliver)
        #: The warm workers of ``persistent: true`` hooks (started on first use, or at load).
        self.workers = WorkerPool()
        self.runner.transports["worker"] = self.workers
        named = required_names(config)
        for hook in entries:
            if hook.name in named or hook.command in named:
                hook.required = hook.fail_closed = True
                if hook.background:
                    hook.background = hook.rewake = False
                    self._problem(f"{hook.where}: {hook.name!r} is named in plugins.required, so "
                                  "it is a guard and must be able to block: it runs in the "
                                  "foreground ('async'/'asyncRewake' ignored)")  # fmt: skip
        self.max_continues = _positive_int(
            config.get("hooks_max_stop_continues"), DEFAULT_STOP_CONTINUES, zero=True
        )
        self._continues: dict[str, int] = {}
        self._lock = threading.Lock()
        seen: dict[HookKey, ShellHook] = {}
        ordered: list[ShellHook] = []
        for hook in entries:
            first = seen.get(hook.key)
            if first is not None:
                # identical in every setting (ShellHook.key): one hook, and said so
                self._problem(f"{hook.where}: identical to {first.where} (same event, matcher, "
                              "command and settings); it runs once")  # fmt: skip
                continue
            seen[hook.key] = hook
            ordered.append(hook)
        self.approvals.configured = lambda: self.all_hooks
        # priority moves a hook earlier among the shell hooks of its event; ties keep config order
        ordered.sort(key=lambda h: -h.priority)
        self.by_event: dict[str, list[ShellHook]] = {}
        for hook in ordered:
            self.by_event.setdefault(hook.event, []).append(hook)
        for event in self.by_event:
            setattr(self, event, self._impl(self._manager.event(event)))

    def _problem(self, message: str) -> None:
        self.problems.append(message)
        log.warning("%s", message)

    # -------------------------------------------------------------- pluggy glue

    def _impl(self, info: EventInfo) -> Callable[..., Any]:
        # What registers the event's shell hooks with pluggy: the manager puts the hooks
        # themselves in its plan in this impl's place (:meth:`entries`). pluggy's raw loop
        # (``hooks.manager.hook.X()``) calls this instead, and runs no shell hook: said once.
        @hookimpl(trylast=True)
        def impl(**kwargs: Any) -> Any:
            self.approvals.warn_once(
                ("raw", info.name),
                f"shell hooks of {info.name} did not run: pluggy's own loop "
                "(hooks.manager.hook...) runs only Python hooks; fire events with hooks.call, "
                "hooks.invoke, hooks.acall, hooks.emit or the typed helpers",
            )

        impl.__name__ = impl.__qualname__ = f"shell_hooks.{info.name}"
        return impl

    def _event_of(self, name: Any) -> str | None:
        info = self._manager.find_event(str(name)) if name is not None else None
        return info.name if info else None

    def _static_env(self, hook: ShellHook) -> dict[str, str]:
        return self.runner.static_env(hook)

    # -------------------------------------------------------------- consent

    @property
    def ask(self) -> Ask | None:
        """How a person is asked to approve a hook (``None``: nobody is asked)."""
        return self.approvals.ask

    @ask.setter
    def ask(self, value: Ask | None) -> None:
        self.approvals.ask = value

    @property
    def allowlist(self) -> Any:
        """The approvals file of this home (:class:`.consent.Allowlist`)."""
        return self.approvals.allowlist

    def consent(self, hook: ShellHook, env: Mapping[str, str] | None = None) -> Consent:
        """Whether ``hook`` may run now: active, unapproved or changed (and why)."""
        return self.approvals.consent(hook, env)

    def question(self, hook: ShellHook) -> str:
        """The question that asks a person to approve ``hook``."""
        return question(hook, self.consent(hook))

    def approve(self, hooks: Iterable[ShellHook], *, unpinned: bool = False) -> list[ShellHook]:
        """Record approvals of ``hooks`` (pinning each script's current hash); return the ones
        approved (one whose script cannot be identified needs ``unpinned``)."""
        return self.approvals.approve(hooks, unpinned=unpinned)

    @property
    def auto_accept(self) -> bool:
        """Whether every configured hook is approved without asking (``--accept-hooks``,
        ``HERMES_ACCEPT_HOOKS``, ``hooks_auto_accept``)."""
        return self.approvals.accept

    def problem(self, hook: ShellHook) -> str | None:
        """Why ``hook``'s command cannot run as configured, or ``None``."""
        return self.runner.problem(hook)

    def startup(self) -> None:
        """At load: approve everything when told to, else warn once about unapproved hooks."""
        self.approvals.startup(self.all_hooks)
        for hook in self.all_hooks:
            if hook.options.get("warm"):
                self.workers.warm(hook, self.runner, self.approvals)

    # -------------------------------------------------------------- the source interface

    @property
    def all_hooks(self) -> list[ShellHook]:
        """Every shell hook, events in catalogue order, each event's hooks in run order."""
        return [h for hooks in self.by_event.values() for h in hooks]

    def fail_closed_on(self, event: str) -> bool:
        return any(h.fail_closed or h.required for h in self.by_event.get(event, ()))

    def rows(self) -> list[dict[str, Any]]:
        """One row per shell hook for ``hermes hooks list``."""
        return [self.row(hook) for hook in self.all_hooks]

    def row(self, hook: ShellHook) -> dict[str, Any]:
        """``hook``'s row of ``hermes hooks list``, with its consent state now."""
        state = self.consent(hook)
        entry = state.entry or {}
        row = hook.row()
        problem = self.problem(hook) if state.status == "active" else None
        row.update(
            status="failed" if problem else state.status,
            error=problem or (state.detail if state.status != "active" else None),
            approved_at=entry.get("approved_at"),
            sha256=state.digest,
            scripts=list(state.scripts),
        )
        if hook.kind == "worker":
            row["worker"] = self.workers.describe(hook)
        return row

    def _in_background(self, info: EventInfo, kwargs: Mapping[str, Any], hook: ShellHook) -> Any:
        return next(iter(self.runner.execute(info, kwargs, [hook], foreground=True)), None)

    def take_wakeups(self, session_id: str | None = None) -> list[Wakeup]:
        """What background hooks had for the model that no ``inject_message`` took."""
        return self.mailbox.take(session_id)

    def close(self) -> None:
        """Wait (a while) for background hooks (their processes die with their time limits),
        then stop the warm workers (each gets a moment to exit, then its group is killed)."""
        if self.runner.background is not None:
            self.runner.background.wait(max((h.timeout for h in self.all_hooks), default=0))
        self.workers.close()

    def session_env(self, session_id: str) -> dict[str, str]:
        """The variables ``SessionStart`` hooks exported to their ``CLAUDE_ENV_FILE``."""
        path = self.runner.env_file(session_id)
        if not path.is_file():
            host_file = os.environ.get("CLAUDE_ENV_FILE")
            if not host_file:
                return {}
            path = Path(host_file)
        return parse_env_file(path)

    # -------------------------------------------------------------- firing

    def _settle(self, info: EventInfo, run: Run, kwargs: Mapping[str, Any]) -> None:
        """After each run: a required hook that could not run blocks; a background run is
        counted and traced here (the dispatcher counts and traces every run it settles)."""
        hook = run.hook
        answer = run.answer
        if hook.required and (not run.ran or (answer is not None and answer.failure)):
            why = (answer.failure if answer is not None and answer.failure else None) or (
                f"{run.status}: {run.detail}"
            )
            fix = hook.remedy if not run.ran else "fix it, then check with `hermes hooks doctor`"
            message = (
                f"required guard {hook.name!r} ({hook.where}) cannot run on {info.name} "
                f"({why}); {fix}"
            )
            run.answer = answer = protocol.Answer(
                value=info.answer.failed(message, hook.name),
                failure=why,
                raw=answer.raw if answer is not None else None,
            )
            self.approvals.warn_once(("required", hook.key, run.status), message)
        if not hook.background or RECORDER.get() is not None:
            return  # settled by the dispatcher, which counts it and writes its receipt
        # A background (async) run: no dispatcher waits for it, so it is counted and recorded
        # here, where it ends, through the same Tracer.settled as every settled run's receipt.
        if answer is not None and answer.dropped:
            self._manager.dropped[(hook.name, info.name)] += 1
        if answer is not None and answer.failure:
            self._manager.failures[(hook.name, info.name)] += 1
        tracer = self._hooks.tracer
        if tracer is not None:
            trace(tracer, info, run, kwargs)

    def matching(self, event: str, kwargs: Mapping[str, Any]) -> list[ShellHook]:
        """The hooks of ``event`` whose matcher accepts these arguments, in run order (a
        filter that raises: see :meth:`_start`)."""
        info = self._manager.event(event)
        return [h for h in self.by_event.get(info.name, ()) if self._start(info, h, kwargs)]

    def recording(self, *, force: bool = False) -> contextlib.AbstractContextManager[Recorder]:
        """Record what every shell hook does in the firings made inside the block::

            with source.recording(force=True) as report:
                result = hooks.call("pre_tool_call", **payload)
            for run in report.runs: ...

        ``force`` also runs hooks that are not approved or changed."""
        return self.runner.recording(force=force)

    def execute(
        self,
        info: EventInfo,
        kwargs: Mapping[str, Any],
        hooks: Sequence[ShellHook] | None = None,
        *,
        force: bool = False,
        foreground: bool = False,
    ) -> list[Run]:
        """Run the matching hooks (or ``hooks``) of one event at once, without combining their
        answers; reports in run order. Unapproved or changed hooks are not run, unless
        ``force``; background hooks run in the background unless ``foreground``."""
        chosen = self.matching(info.name, kwargs) if hooks is None else hooks
        if sequence.wanted(chosen):
            return sequence.execute(
                lambda i, kw, hs: self.runner.execute(i, kw, hs, force=force, foreground=foreground),
                info, kwargs, chosen,
            )  # fmt: skip
        return self.runner.execute(info, kwargs, chosen, force=force, foreground=foreground)

    # -------------------------------------------------------------- the plan's entries

    def entries(self, event: str) -> list[Entry]:
        """Each shell hook of ``event`` as its own entry of the dispatch plan, in run order:
        the dispatcher orders, isolates, fails closed, counts, pipes and combines them as it
        does Python hooks; what runs at a firing is settled in one batch (:meth:`settle`)."""
        info = self._manager.event(event)
        return [
            Entry(
                name=hook.name,
                start=functools.partial(self._start, info, hook),
                batch=self,
                fail_closed=hook.fail_closed,
                row=functools.partial(self.row, hook),
                source=SOURCE,
            )
            for hook in self.by_event.get(info.name, ())
        ]

    def _start(self, info: EventInfo, hook: ShellHook, kwargs: Mapping[str, Any]) -> Any:
        """``hook`` when it runs at this firing (its matcher accepts the arguments), else
        ``None``. A filter (matcher, ``if`` rule) that raises costs only its own hook, which
        runs (a filter must not silence a guard on what it cannot read) and is reported."""
        try:
            matched = hook.matches(kwargs)
        except Exception as exc:
            matched = True
            self._manager.failures[(hook.name, info.name)] += 1
            self.approvals.warn_once(
                ("filter", hook.key, type(exc).__name__),
                f"shell hook {hook.name} ({hook.where}): its filter failed on {info.name} "
                f"({type(exc).__name__}: {exc}); it runs",
            )
        return hook if matched else None

    def settle(
        self, info: EventInfo, kwargs: Mapping[str, Any], hooks: Sequence[ShellHook]
    ) -> list[Settled | None]:
        """Run ``hooks`` (the entries of one firing that matched) at once; what each did, in
        the same order, for its answer and its receipt (``None``: it was not run at this
        firing, or runs in the background)."""
        if not info.meta.continues:
            return self._answers(info, kwargs, hooks)
        # An answer keeps the agent going; cap how often in a row shell hooks may do that.
        session = str(kwargs.get("session_id") or "")
        attempt = kwargs.get("attempt")
        with self._lock:
            kept = self._continues.get(session, 0)
        count = attempt if isinstance(attempt, int) and not isinstance(attempt, bool) else kept
        if count >= self.max_continues:
            with self._lock:
                self._continues.pop(session, None)
            log.warning("%s: shell hooks already kept the agent going %d time(s) this turn "
                        "(hooks_max_stop_continues); letting it stop", info.name, count)  # fmt: skip
            return [None] * len(hooks)
        payload = dict(kwargs)
        payload["stop_hook_active"] = bool(kwargs.get("stop_hook_active")) or count > 0
        done = self._answers(info, payload, hooks)
        with self._lock:
            if any(a is not None and a.value is not None for a in done):
                self._continues[session] = count + 1
            else:
                self._continues.pop(session, None)
        return done

    def _answers(
        self, info: EventInfo, kwargs: Mapping[str, Any], hooks: Sequence[ShellHook]
    ) -> list[Settled | None]:
        runs = {id(run.hook): run for run in self.execute(info, kwargs, hooks)}
        return [settled(runs[id(h)]) if id(h) in runs else None for h in hooks]


def _positive_int(value: Any, default: int, *, zero: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return value if value > 0 or (zero and value == 0) else default
