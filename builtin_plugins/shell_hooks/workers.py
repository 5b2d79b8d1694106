"""Internal: part of the built-ins (docs/builtins.md), not an API.

Warm workers: ``persistent: true`` shell hooks run as one kept process each
(:mod:`.worker_process`), which gets a JSON line per event and answers one (the protocol:
:mod:`hermes_hooks.worker`).

:class:`WorkerPool` is the runner's transport for hooks of kind ``worker``: it gets the same
prepared commands as one-shot hooks (consent checked, argv, environment, payload, timeout,
output cap) and returns the same outcomes, so answers are read as a one-shot hook's are.

A worker is keyed by what consent pinned: its argv, environment (without the per-firing
variables, which the payload carries), working dir and the approval's sha256. A re-approved,
changed script gets a new worker and the old one is stopped. The pool's workers are stopped
when the source is closed (``hooks.close()``), and every worker at interpreter exit.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hermes_hooks import process

from .environment import PER_FIRING
from .matching import HookKey, ShellHook
from .worker_process import BACKOFF, Sent, Worker

if TYPE_CHECKING:
    from .approvals import Approvals
    from .execution import Runner

log = logging.getLogger("hermes_hooks")


class WorkerPool:
    """The workers of one hook source, and the runner's transport for ``worker`` hooks."""

    def __init__(self, backoff: tuple[float, float] = BACKOFF) -> None:
        self.backoff = backoff
        self.workers: dict[HookKey, Worker] = {}
        self._lock = threading.Lock()
        self.closed = False

    def __call__(self, batch: Sequence[tuple[ShellHook, process.Command]]) -> list[process.Outcome]:
        """Every hook's event sent to its worker first, then every answer read: the workers of
        one firing work at the same time, without a thread each."""
        sent: list[tuple[Worker, Sent] | process.Outcome] = []
        try:
            for hook, command in batch:
                try:
                    worker = self._worker_for(hook, command)
                except Exception as exc:  # closed, or a fault of ours: stays with this hook
                    sent.append(process.Outcome(error=str(exc)))
                    continue
                state = worker.send(hook.event, command.stdin, command.timeout)
                sent.append(state if isinstance(state, process.Outcome) else (worker, state))
        finally:  # every worker sent to is read from (and unlocked), whatever happened
            outcomes = [
                item if isinstance(item, process.Outcome) else item[0].receive(item[1])
                for item in sent
            ]
        return outcomes

    def run(self, hook: ShellHook, command: process.Command) -> process.Outcome:
        """One event to ``hook``'s worker (started, or replaced, as needed)."""
        return self([(hook, command)])[0]

    def _worker_for(self, hook: ShellHook, command: process.Command) -> Worker:
        env = dict(command.env if command.env is not None else os.environ)
        for name in PER_FIRING:
            env.pop(name, None)
        return self.worker(hook, list(command.argv), env, command.cwd, command.pinned, command.cap)

    def worker(self, hook: ShellHook, argv: list[str], env: dict[str, str], cwd: str | None,
               digest: str | None, cap: int = process.OUTPUT_CAP) -> Worker:  # fmt: skip
        """``hook``'s worker for what consent pinned now; a stale one is stopped."""
        with self._lock:
            if self.closed:
                raise RuntimeError("its worker was stopped (the hooks were closed)")
            old = self.workers.get(hook.key)
            if old is not None and old.matches(argv, env, cwd, digest):
                return old
            new = self.workers[hook.key] = Worker(hook, argv, env, cwd, digest, cap, self.backoff)
        if old is not None:
            log.info("shell hook %r: what runs changed (re-approved); its old worker is stopped",
                     hook.name)  # fmt: skip
            old.close()
        return new

    def warm(self, hook: ShellHook, runner: Runner, approvals: Approvals) -> None:
        """Start ``hook``'s worker now, in the background (``warm: true``), if it is approved
        and unchanged (else it waits for its first event, and consent, like any hook)."""
        env = runner.static_env(hook)
        state = approvals.consent(hook, env)
        if state.status != "active":
            return
        try:
            argv, cwd = hook.argv(env), hook.cwd(env)
        except ValueError:
            return  # its first event reports why
        for name in PER_FIRING:
            env.pop(name, None)
        worker = self.worker(hook, argv, env, cwd, state.digest, runner.cap)
        name = f"hermes-hooks-warm-{hook.name}"[:60]
        threading.Thread(target=worker.warm, args=(hook.timeout,), name=name, daemon=True).start()

    def describe(self, hook: ShellHook) -> dict[str, object] | None:
        """The state of ``hook``'s worker (``None``: never started)."""
        worker = self.workers.get(hook.key)
        if worker is None:
            return None
        return {"pid": worker.pid, "starts": worker.starts, "failures": worker.failures,
                "last_error": worker.last_error}  # fmt: skip

    def close(self) -> None:
        """Stop every worker (each gets :data:`CLOSE_GRACE` to exit on its own)."""
        with self._lock:
            self.closed = True
            workers = list(self.workers.values())
            self.workers.clear()
        for worker in workers:
            worker.close()
