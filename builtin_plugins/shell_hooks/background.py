"""Internal: part of the built-ins (docs/builtins.md), not an API.

Background hooks: Claude Code's ``async`` and ``asyncRewake`` handlers.

A background hook starts with its event and the firing does not wait for it: its answer decides
nothing. When it ends:

- an ``asyncRewake`` hook that exited 2 wakes the model: its stderr (its stdout when stderr is
  empty) is delivered as a message for the model;
- any background hook whose answer carries context (``additionalContext``, ``{"context"}``, a
  ``decision: block`` reason) has that context delivered the same way, for the next turn.

Delivery is the source's (:meth:`~builtin_plugins.shell_hooks.source.ShellHooks.deliver`): the
host's ``inject_message`` when it has one, else a mailbox the host drains with
``hooks.take_wakeups(session_id)``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hermes_hooks.answers.base import context_of
from hermes_hooks.catalogue import EventInfo
from hermes_hooks.contract import session_of

from . import protocol
from .matching import ShellHook
from .runs import Run

log = logging.getLogger("hermes_hooks")


@dataclass(frozen=True)
class Wakeup:
    """What a background hook has for the model."""

    session_id: str
    hook: str
    event: str
    text: str
    #: ``rewake`` (an asyncRewake hook exited 2) or ``context`` (its answer added context).
    kind: str

    @property
    def message(self) -> str:
        """The message the model gets."""
        why = "asks for attention" if self.kind == "rewake" else "adds context"
        return f"Background hook {self.hook} ({self.event}) {why}:\n{self.text}"


def wakeup_of(info: EventInfo, run: Run, kwargs: Mapping[str, Any]) -> Wakeup | None:
    """What a finished background run has for the model, or ``None``."""
    out, hook = run.outcome, run.hook
    if not run.ran or out is None:
        return None
    session = str(session_of(kwargs))
    if hook.rewake and out.returncode == 2:
        text = protocol.decode(out.stderr).strip() or protocol.decode(out.stdout).strip()
        text = text or f"background hook {hook.name} exited 2"
        return Wakeup(session, hook.name, info.name, text, "rewake")
    raw = run.answer.raw if run.answer is not None else None
    context = context_of(raw) if isinstance(raw, Mapping) else None
    if context:
        return Wakeup(session, hook.name, info.name, context, "context")
    return None


class Background:
    """Runs background hooks in threads of their own; ``run`` runs one hook to its end (in the
    foreground of its thread), ``deliver`` takes what it has for the model."""

    def __init__(
        self,
        run: Callable[[EventInfo, Mapping[str, Any], ShellHook], Run | None],
        deliver: Callable[[Wakeup], None],
    ) -> None:
        self._run = run
        self._deliver = deliver
        self._threads: set[threading.Thread] = set()
        self._lock = threading.Lock()

    def start(self, info: EventInfo, kwargs: Mapping[str, Any], hook: ShellHook) -> None:
        thread = threading.Thread(
            target=self._work, args=(info, dict(kwargs), hook), daemon=True,
            name=f"hermes-hooks-async-{info.name}",
        )  # fmt: skip
        with self._lock:
            self._threads.add(thread)
        thread.start()

    def _work(self, info: EventInfo, kwargs: dict[str, Any], hook: ShellHook) -> None:
        try:
            run = self._run(info, kwargs, hook)
            wake = wakeup_of(info, run, kwargs) if run is not None else None
            if wake is not None:
                self._deliver(wake)
        except Exception as exc:  # a background hook's fault stays with it
            log.warning("background shell hook %r on %s failed: %s: %s", hook.name, info.name,
                        type(exc).__name__, exc)  # fmt: skip
        finally:
            with self._lock:
                self._threads.discard(threading.current_thread())

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the running background hooks; ``False`` when some still run."""
        with self._lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join(timeout)
        with self._lock:
            return not any(t.is_alive() for t in self._threads)


class Mailbox:
    """Delivers what background hooks have for the model: to the host's ``inject_message``
    (``host()`` is the current host) when it has one, else kept until the host takes it."""

    def __init__(self, host: Callable[[], Any], warn_once: Callable[[Any, str], None]) -> None:
        self.host = host
        self.warn_once = warn_once
        self._kept: list[Wakeup] = []
        self._lock = threading.Lock()

    def deliver(self, wake: Wakeup) -> None:
        inject = getattr(self.host(), "inject_message", None)
        if callable(inject):
            try:
                inject(wake.message, role="user")
                return
            except Exception as exc:  # the host's fault: keep the message rather than lose it
                log.warning("host.inject_message failed for background hook %r: %s: %s; kept "
                            "for hooks.take_wakeups()", wake.hook, type(exc).__name__, exc)  # fmt: skip
        else:
            self.warn_once(("no-inject", wake.hook),
                           f"background shell hook {wake.hook!r} on {wake.event} has a message for "
                           "the model, and the host has no inject_message: kept until the host "
                           "calls hooks.take_wakeups(session_id)")  # fmt: skip
        with self._lock:
            self._kept.append(wake)

    def take(self, session_id: str | None = None) -> list[Wakeup]:
        """The kept messages (of one session, or all), removed from the mailbox."""
        with self._lock:
            taken = [w for w in self._kept if session_id is None or w.session_id == session_id]
            self._kept = [w for w in self._kept if w not in taken]
        return taken
