"""Internal: part of the built-ins (docs/builtins.md), not an API.

One shell hook at one firing (:class:`Run`), what records the runs of a firing
(:class:`Recorder`, for ``hermes hooks test``) and what its receipt says (:func:`settled`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from hermes_hooks.catalogue import EventInfo
from hermes_hooks.manager import Settled

from . import processes, protocol
from .matching import ShellHook


@dataclass
class Run:
    """One hook at one firing: whether it ran, what the process did, what its answer means."""

    hook: ShellHook
    status: str  # active / unapproved / changed
    detail: str | None = None
    ran: bool = False
    outcome: processes.Outcome | None = None
    answer: protocol.Answer | None = None
    argv: list[str] = field(default_factory=list)
    stdin: bytes = b""
    digest: str | None = None  # the sha256 consent pinned for what ran
    declined: bool = False  # a person was asked to approve it and said no
    #: The sha256 of each pinned file just before it ran (to catch a hook changing its own).
    pinned: dict[str, str | None] = field(default_factory=dict)
    #: What the hook changed of its own pinned files while it ran (reported), or ``None``.
    self_changed: str | None = None
    #: The arguments it was run with (the firing's, or what a sequence or a Stop cap changed).
    kwargs: Mapping[str, Any] | None = None

    @property
    def ms(self) -> float:
        """How long the process ran, in milliseconds (0 when it did not run)."""
        return self.outcome.elapsed * 1000 if self.outcome else 0.0

    def report(self) -> dict[str, Any]:
        """The run as plain data (what ``hermes hooks test --json`` prints for each hook)."""
        out, answer, hook = self.outcome, self.answer, self.hook
        return {
            "name": hook.name,
            "command": hook.command,
            "matcher": hook.matcher,
            "protocol": hook.protocol,
            "status": self.status,
            "detail": self.detail,
            "ran": self.ran,
            "stdin": protocol.decode(self.stdin) if self.stdin else None,
            "exit_code": out.returncode if out else None,
            "elapsed_ms": round(out.elapsed * 1000, 1) if out else None,
            "timed_out": out.timed_out if out else False,
            "truncated": out.truncated if out else False,
            "stdout": protocol.decode(out.stdout) if out else "",
            "stderr": protocol.decode(out.stderr) if out else "",
            "answer": plain(answer.value) if answer else None,
            "failure": answer.failure if answer else (out.error if out else None),
            "warning": answer.warning if answer else None,
            "dropped": answer.dropped if answer else None,
            "defaulted": answer.defaulted if answer else None,
            "sha256": self.digest,
            "self_changed": self.self_changed,
            "persistent": hook.kind == "worker",
            "pid": out.pid if out else None,
        }


def plain(value: Any) -> Any:
    """A typed answer (a dataclass) as a dict without its unset fields; other values as is."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: v for k, v in dataclasses.asdict(value).items() if v is not None}
    return value


@dataclass
class Recorder:
    """Collects the runs of the firings made while it is active."""

    force: bool = False  # also run hooks that are not approved (or changed)
    runs: list[Run] = field(default_factory=list)


#: What receipts of shell hooks name as their source.
SOURCE = "shell"

RECORDER: ContextVar[Recorder | None] = ContextVar("hermes_shell_recorder", default=None)


def settled(run: Run) -> Settled:
    """What the run means for the dispatcher (its answer, counted) and for its receipt, which
    the dispatcher writes: a hook that was not run says why (its ``outcome`` is its consent
    status; a withheld hook's block says so, as its error), the sha256 consent pinned for what
    ran, a hook that changed its own pinned files, its raw answer."""
    answer = run.answer
    outcome = None
    if not run.ran and (answer is None or not run.hook.fail_closed):
        outcome = run.status  # not run
    error = (
        (not_run(run) if not run.ran and not run.hook.fail_closed else None)
        or (answer.failure if answer is not None else None)
        or (not_run(run) if not run.ran else None)
        or run.self_changed
    )
    if answer is None:
        return Settled(outcome=outcome, error=error, sha256=run.digest, kwargs=run.kwargs)
    return Settled(
        value=answer.value,
        failure=answer.failure,
        dropped=answer.dropped,
        outcome=outcome,
        error=error,
        sha256=run.digest,
        raw=answer.raw,
        kwargs=run.kwargs,
    )


def trace(tracer: Any, info: EventInfo, run: Run, kwargs: Mapping[str, Any]) -> None:
    """Record a background (``async``) run: no dispatcher waits for it, so it is recorded where
    it ends, through the same :meth:`~hermes_hooks.trace.Tracer.settled` and with the same
    fields as the receipt the dispatcher writes of every other run; its time is the
    process's."""
    tracer.settled(event=info.name, hook=run.hook.name, source=SOURCE, ms=run.ms,
                   outcome=settled(run), kwargs=kwargs)  # fmt: skip


def not_run(run: Run) -> str:
    """Why a hook was not run, with the command that approves it (an unpinned hook's reason
    already names its own: ``approve --unpinned``)."""
    if run.status == "unpinned":
        return run.detail or run.status
    return f"{run.detail or run.status}; {run.hook.remedy}"
