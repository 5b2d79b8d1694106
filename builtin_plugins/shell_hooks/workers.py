"""Internal: part of the built-ins (docs/builtins.md), not an API.

Warm workers: one kept process per ``persistent: true`` hook, and the pool that asks them.

One warm worker: a kept process for one ``persistent: true`` shell hook, asked one event at
a time over the JSON-lines protocol of :mod:`hermes_hooks.worker`.

It runs in its own process group. A worker that misses a deadline, crashes, breaks the protocol
or overflows the output cap has its group killed and is started again on a later event: at once
after the first failure in a row, then after 1 s, 2 s, 4 s ... (at most 60 s); meanwhile its
events fail (a ``fail_closed`` hook blocks). Every running worker is stopped at interpreter
exit (:func:`close_all`).

Warm workers: ``persistent: true`` shell hooks run as one kept process each
(:class:`Worker`, above), which gets a JSON line per event and answers one (the protocol:
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

import atexit
import contextlib
import logging
import os
import secrets
import select
import selectors
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hermes_hooks.worker import Stale, check_handshake, read_answer, request

from . import processes
from .matching import HookKey, ShellHook
from .processes import PER_FIRING

log = logging.getLogger("hermes_hooks")

#: Restart delays after consecutive failures: the second waits ``base``, doubling to ``max``.
BACKOFF = (1.0, 60.0)
#: How long a closed worker gets to exit after its stdin closes, before its group is killed.
CLOSE_GRACE = 0.5
_TAIL = 2000  # bytes of a worker's stderr kept for error messages
_LIVE: set[Worker] = set()  # every running worker, stopped at interpreter exit


class Lost(Exception):
    """The worker cannot go on (it is killed and restarted later)."""

    def __init__(self, reason: str, *, timed_out: bool = False, truncated: bool = False) -> None:
        super().__init__(reason)
        self.reason, self.timed_out, self.truncated = reason, timed_out, truncated


@dataclass
class Sent:
    """A request sent (maybe in part: ``rest`` is still to write), waiting for its answer."""

    started: float
    deadline: float
    rest: memoryview


class Worker:
    """One kept process for one hook, as consent pinned it."""

    def __init__(self, hook: ShellHook, argv: list[str], env: dict[str, str], cwd: str | None,
                 digest: str | None, cap: int, backoff: tuple[float, float]) -> None:  # fmt: skip
        self.hook, self.argv, self.env, self.cwd, self.digest = hook, argv, env, cwd, digest
        self.cap, self.backoff = cap, backoff
        self.lock = threading.Lock()
        self.proc: processes.Spawned | None = None
        self.sel: selectors.BaseSelector | None = None
        self.buf = bytearray()  # stdout read past the last line
        self.tail = bytearray()  # the end of its stderr
        self.eof = self.reaped = False
        self.ident = 0
        self.starts = self.failures = 0
        self.retry_at = 0.0
        self.last_error: str | None = None
        self.closed = False
        #: Whether a line that was no answer to its request (stale) has been reported.
        self.stale_reported = False

    def matches(self, argv: list[str], env: Mapping[str, str], cwd: str | None,
                digest: str | None) -> bool:  # fmt: skip
        return self.digest == digest and self.argv == argv and self.cwd == cwd and self.env == env

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    # -------------------------------------------------------------- asking

    def ask(self, event: str, payload: bytes, timeout: float) -> processes.Outcome:
        """Send one event, wait for its answer until ``timeout``: the outcome a one-shot hook
        would have had."""
        sent = self.send(event, payload, timeout)
        return sent if isinstance(sent, processes.Outcome) else self.receive(sent)

    def send(self, event: str, payload: bytes, timeout: float) -> Sent | processes.Outcome:
        """Start (if need be) and send one event: what :meth:`receive` waits on (the worker
        stays locked until then), or already the outcome (it is down, busy or lost). The
        answer is due ``timeout`` after the event is sent; waiting longer than that for the
        worker to be free fails the event without killing the worker."""
        if not self.lock.acquire(timeout=timeout):
            return processes.Outcome(error=f"its worker stayed busy with earlier events for "
                                   f"{timeout}s", elapsed=timeout)  # fmt: skip
        started = time.monotonic()
        try:
            if self.proc is not None and select.select([self.proc.exit_fd], [], [], 0)[0]:
                self._fail(Lost(self._death("exited between events")))  # restarted at once
            if self.closed:
                out = processes.Outcome(error="its worker was stopped (the hooks were closed, "
                                      "or what it runs changed)")  # fmt: skip
            elif self.proc is None and self.retry_at > time.monotonic():
                out = processes.Outcome(error=f"its worker is down ({self.last_error}); next start in "
                                      f"{self.retry_at - started:.1f}s (back-off after "
                                      f"{self.failures} failures in a row)")  # fmt: skip
            else:
                deadline = started + timeout
                if self.proc is None:
                    self._start(deadline)
                # Nothing the worker wrote before this request can be its answer; and the id is
                # not guessable, so no line written before the worker read the request matches.
                self._drop_pending()
                self.ident = _new_id(self.ident)
                view = self._write(memoryview(request(self.ident, event, payload)))
                return Sent(started, deadline, view)  # the lock is released by receive()
        except Exception as exc:
            out = self._lost(exc, started)
        self.lock.release()
        return out

    def receive(self, sent: Sent) -> processes.Outcome:
        """The answer to what :meth:`send` sent (then the worker is unlocked)."""
        try:
            rest = sent.rest
            while True:  # until the answer to this request, or the deadline
                line, rest = self._exchange(rest, sent.deadline)
                try:
                    code, out, err = read_answer(line, self.ident)
                except Stale as exc:
                    self._stale(f"{exc}: {line[:200]!r}")
                    continue
                except ValueError as exc:
                    raise Lost(f"broke the protocol: {exc}") from None
                break
            self.failures = 0
            elapsed = time.monotonic() - sent.started
            return processes.Outcome(code, out, err, elapsed=elapsed, pid=self.pid)
        except Exception as exc:
            return self._lost(exc, sent.started)
        finally:
            self.lock.release()

    def _lost(self, exc: Exception, started: float) -> processes.Outcome:
        """The outcome of an event the worker was lost on (killed; restarted later)."""
        if not isinstance(exc, Lost):  # a fault of ours: the worker is not trusted further
            exc = Lost(f"was lost track of ({type(exc).__name__}: {exc})")
        pid = self.pid
        self._fail(exc)
        return processes.Outcome(
            error=None if exc.timed_out or exc.truncated else f"its worker {exc.reason}",
            timed_out=exc.timed_out,
            truncated=exc.truncated,
            elapsed=time.monotonic() - started,
            pid=pid,
        )

    def warm(self, timeout: float) -> None:
        """Start the worker now (``warm: true``), unless it runs or is backing off."""
        with self.lock:
            if self.proc is None and not self.closed and time.monotonic() >= self.retry_at:
                try:
                    self._start(time.monotonic() + timeout)
                except Lost as exc:
                    self._fail(exc)

    # -------------------------------------------------------------- the process

    def _start(self, deadline: float) -> None:
        try:
            proc = processes.spawn(self.argv, dict(self.env), self.cwd)
        except (OSError, ValueError, TypeError) as exc:
            raise Lost(f"cannot start: {self.argv[0]}: {exc}") from None
        self.proc, self.eof, self.buf, self.tail = proc, False, bytearray(), bytearray()
        self.reaped = False
        self.starts += 1
        _LIVE.add(self)
        sel = self.sel = selectors.DefaultSelector()
        for fd, what in ((proc.stdout, "out"), (proc.stderr, "err"), (proc.exit_fd, "exit")):
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ, what)
        os.set_blocking(proc.stdin, False)
        try:
            line, _ = self._exchange(memoryview(b""), deadline)
        except Lost as exc:
            if exc.timed_out:
                exc.reason = "sent no handshake in time"
            raise
        problem = check_handshake(line)
        if problem:
            raise Lost(f"sent a bad handshake: {problem}")

    def _drop_pending(self) -> None:
        """Discard every line the worker wrote before the request about to be sent (reported
        once): written before it, none of them can be its answer."""
        assert self.proc is not None
        self._read_out()
        end = self.buf.rfind(b"\n")
        if end < 0:
            return
        lines = bytes(self.buf[:end]).split(b"\n")
        del self.buf[: end + 1]
        for line in lines:
            if line.strip():
                self._stale(f"it wrote a line before the request: {line[:200]!r}")

    def _stale(self, what: str) -> None:
        """A line that is no answer to the current request: discarded, reported once."""
        if not self.stale_reported:
            self.stale_reported = True
            log.warning("shell hook %r: its worker wrote a line that answers no current request "
                        "(discarded; further ones are discarded silently): %s", self.hook.name,
                        what)  # fmt: skip

    def _exchange(self, view: memoryview, deadline: float) -> tuple[bytes, memoryview]:
        """Write (what it can of) the rest of a request until the worker writes a line: that
        line (without its ``\\n``) and what is still to write of the request."""
        proc, sel = self.proc, self.sel
        assert proc is not None and sel is not None
        if view:
            sel.register(proc.stdin, selectors.EVENT_WRITE, "in")
        try:
            while True:
                end = self.buf.find(b"\n")
                if end > self.cap or (end < 0 and len(self.buf) > self.cap):
                    raise Lost(f"wrote a line over the {self.cap}-byte cap", truncated=True)
                if end >= 0:
                    line = bytes(self.buf[:end])
                    del self.buf[: end + 1]
                    return line, view
                if self.eof:
                    raise Lost(self._death("closed its stdout"))
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Lost("did not answer in time", timed_out=True)
                for key, _ in sel.select(left):
                    if key.data == "out":
                        self._read_out()
                    elif key.data == "err":
                        self._read_err()
                    elif key.data == "in":
                        view = self._write(view)
                        if not view:
                            sel.unregister(proc.stdin)
                    else:
                        self._read_out()
                        if b"\n" not in self.buf:
                            raise Lost(self._death("exited"))
        finally:
            if view and self.proc is not None:
                with contextlib.suppress(KeyError, ValueError):
                    sel.unregister(proc.stdin)

    def _write(self, view: memoryview) -> memoryview:
        assert self.proc is not None
        try:
            while view:
                view = view[os.write(self.proc.stdin, view[: 1 << 16]) :]
        except BlockingIOError:
            pass
        except OSError as exc:
            raise Lost(self._death(f"stopped reading its stdin ({exc.strerror})")) from None
        return view

    def _read_out(self) -> None:
        assert self.proc is not None
        while not self.eof and len(self.buf) <= self.cap:
            data = _read(self.proc.stdout)
            if data is None:
                return
            if not data:
                self.eof = True
            self.buf += data

    def _read_err(self) -> None:
        assert self.proc is not None and self.sel is not None
        if self.proc.stderr not in self.sel.get_map():
            return  # at its end already
        data = _read(self.proc.stderr)
        if data is None:
            return
        if not data:
            self.sel.unregister(self.proc.stderr)
        self.tail = (self.tail + data)[-_TAIL:]

    def _death(self, what: str) -> str:
        """Why it is lost: ``exited with code N`` when it exits within a moment, else ``what``;
        with the end of its stderr."""
        assert self.proc is not None
        if select.select([self.proc.exit_fd], [], [], 0.2)[0]:
            self._read_err()
            status = self._reap()
            what = "exited" + (f" with code {status}" if status is not None else "")
        tail = self.tail.decode("utf-8", "replace").strip()
        return what + (f" (stderr: {tail[-300:]})" if tail else "")

    def _reap(self) -> int | None:
        proc = self.proc
        assert proc is not None
        if self.reaped:
            return None
        self.reaped = True
        if proc.watch == "pidfd":
            processes.kill_group(proc.pid)  # its group, before the leader's pid can be reused
            return processes.reap(proc.pid)
        os.set_blocking(proc.exit_fd, True)
        return processes.read_status(proc.exit_fd)

    def _fail(self, exc: Lost) -> None:
        self.failures += 1
        self.last_error = exc.reason
        self._stop(kill=True)
        base, most = self.backoff
        delay = 0.0 if self.failures == 1 else min(base * 2 ** (self.failures - 2), most)
        self.retry_at = time.monotonic() + delay
        log.warning("shell hook %r: its worker %s; killed, restarting %s", self.hook.name,
                    exc.reason, f"in {delay:g}s" if delay else "at its next event")  # fmt: skip

    def _stop(self, *, kill: bool) -> None:
        """Stop the process and its group, reap it, close every descriptor."""
        proc, sel = self.proc, self.sel
        if proc is None:
            return
        _LIVE.discard(self)
        if sel is not None:
            sel.close()
        with contextlib.suppress(OSError):
            os.close(proc.stdin)  # end of input: a worker's cue to exit
        if not kill:
            select.select([proc.exit_fd], [], [], CLOSE_GRACE)
        if not self.reaped:  # (once reaped, its pid, so its group id, may be another's)
            processes.kill_group(proc.pid)
            with contextlib.suppress(OSError):
                self._reap()
        self.proc = self.sel = None
        for fd in (proc.stdout, proc.stderr, proc.exit_fd):
            with contextlib.suppress(OSError):
                os.close(fd)

    def close(self) -> None:
        """Stop the worker for good: its stdin closes, then its group is killed."""
        self.closed = True
        if self.lock.acquire(timeout=1.0):
            try:
                self._stop(kill=False)
            finally:
                self.lock.release()
        elif self.proc is not None:  # busy: the asking thread sees it die and cleans up
            processes.kill_group(self.proc.pid)


def _new_id(previous: int) -> int:
    """A request id no worker can guess before it reads the request (so never the previous)."""
    while True:
        ident = secrets.randbelow(2**31 - 1) + 1
        if ident != previous:
            return ident


def _read(fd: int) -> bytes | None:
    """What a non-blocking pipe holds (up to 64 KiB): ``None`` when nothing yet, ``b""`` at its
    end (a read error counts as the end)."""
    try:
        return os.read(fd, 1 << 16)
    except BlockingIOError:
        return None
    except OSError:
        return b""


@atexit.register
def close_all() -> None:
    """Stop every running worker of every pool (at interpreter exit)."""
    for worker in list(_LIVE):
        worker.close()


if TYPE_CHECKING:
    from .approvals import Approvals
    from .execution import Runner


class WorkerPool:
    """The workers of one hook source, and the runner's transport for ``worker`` hooks."""

    def __init__(self, backoff: tuple[float, float] = BACKOFF) -> None:
        self.backoff = backoff
        self.workers: dict[HookKey, Worker] = {}
        self._lock = threading.Lock()
        self.closed = False

    def __call__(
        self, batch: Sequence[tuple[ShellHook, processes.Command]]
    ) -> list[processes.Outcome]:
        """Every hook's event sent to its worker first, then every answer read: the workers of
        one firing work at the same time, without a thread each."""
        sent: list[tuple[Worker, Sent] | processes.Outcome] = []
        try:
            for hook, command in batch:
                try:
                    worker = self._worker_for(hook, command)
                except Exception as exc:  # closed, or a fault of ours: stays with this hook
                    sent.append(processes.Outcome(error=str(exc)))
                    continue
                state = worker.send(hook.event, command.stdin, command.timeout)
                sent.append(state if isinstance(state, processes.Outcome) else (worker, state))
        finally:  # every worker sent to is read from (and unlocked), whatever happened
            outcomes = [
                item if isinstance(item, processes.Outcome) else item[0].receive(item[1])
                for item in sent
            ]
        return outcomes

    def run(self, hook: ShellHook, command: processes.Command) -> processes.Outcome:
        """One event to ``hook``'s worker (started, or replaced, as needed)."""
        return self([(hook, command)])[0]

    def _worker_for(self, hook: ShellHook, command: processes.Command) -> Worker:
        env = dict(command.env if command.env is not None else os.environ)
        for name in PER_FIRING:
            env.pop(name, None)
        return self.worker(hook, list(command.argv), env, command.cwd, command.pinned, command.cap)

    def worker(self, hook: ShellHook, argv: list[str], env: dict[str, str], cwd: str | None,
               digest: str | None, cap: int = processes.OUTPUT_CAP) -> Worker:  # fmt: skip
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
