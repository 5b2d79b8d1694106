"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Running hook commands: each in its own process group, several at once, without polling.

One thread drives every process of a batch with a ``selectors`` loop: it writes each payload to
stdin, reads stdout and stderr as they come (capped), and learns that a process exited from a
pidfd (Linux) or a pipe its status arrives on (:mod:`hermes_hooks.spawn`). Nothing sleeps or
polls, so a hook costs what its process costs. On timeout or over-cap output the whole process
group is killed; a grandchild that escaped the group and still holds a pipe open cannot keep the
caller waiting for more than :data:`EXIT_GRACE` after the child itself is gone.
"""

from __future__ import annotations

import os
import selectors
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from . import spawn

#: Default cap on each of stdout and stderr, in bytes.
OUTPUT_CAP = 1 << 20
#: How long to keep reading a pipe after the child exited (a grandchild may hold it open).
EXIT_GRACE = 0.1
_CHUNK = 1 << 16


@dataclass
class Command:
    """One process to run: ``argv`` (already split and expanded), its input and its limits."""

    argv: Sequence[str]
    stdin: bytes = b""
    timeout: float = 60.0
    env: Mapping[str, str] | None = None
    cwd: str | None = None
    cap: int = OUTPUT_CAP
    #: The sha256 consent pinned for what runs (a transport that keeps processes keys them by it).
    pinned: str | None = None


@dataclass
class Outcome:
    """What happened to one process.

    ``returncode`` is ``None`` when the process could not be started (``error`` says why) or its
    status was lost. ``timed_out`` and ``truncated`` mean the process group was killed.
    """

    returncode: int | None = None
    stdout: bytes = b""
    stderr: bytes = b""
    timed_out: bool = False
    truncated: bool = False
    error: str | None = None
    elapsed: float = 0.0
    pid: int | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and not self.timed_out and not self.truncated


@dataclass
class _Proc:
    cmd: Command
    out: Outcome
    pid: int = 0
    started: float = 0.0
    deadline: float = 0.0
    stdin_fd: int | None = None
    stdin_view: memoryview = field(default_factory=lambda: memoryview(b""))
    pipes: dict[int, bytearray] = field(default_factory=dict)  # fd -> buffer (stdout, stderr)
    stdout_fd: int = -1
    exit_fd: int | None = None  # pidfd, or the read end of a pipe the status arrives on
    watch: str = "pidfd"  # how the exit is learnt (see hermes_hooks.spawn)
    exited: bool = False
    exit_deadline: float = 0.0
    killed: bool = False

    @property
    def done(self) -> bool:
        return self.exited and not self.pipes


def run_many(commands: Sequence[Command]) -> list[Outcome]:
    """Run every command at once and wait for all of them; outcomes in the same order.

    Never raises for a command that cannot start: its outcome carries the ``error``.
    """
    procs: list[_Proc] = []
    sel = selectors.DefaultSelector()
    try:
        for cmd in commands:
            proc = _Proc(cmd, Outcome())
            procs.append(proc)
            proc.started = time.monotonic()
            try:
                started = spawn.spawn(cmd.argv, _env(cmd), cmd.cwd)
            except (OSError, ValueError, TypeError) as exc:
                proc.out.error = _describe_spawn_error(cmd, exc)
                proc.exited = True
                continue
            proc.pid = proc.out.pid = started.pid
            proc.deadline = proc.started + cmd.timeout
            proc.stdout_fd = started.stdout
            proc.pipes = {started.stdout: bytearray(), started.stderr: bytearray()}
            proc.stdin_fd = started.stdin
            proc.exit_fd, proc.watch = started.exit_fd, started.watch
            for fd in (started.stdin, started.stdout, started.stderr):
                os.set_blocking(fd, False)
            proc.stdin_view = memoryview(cmd.stdin)
            _feed(proc)
            if proc.stdin_fd is not None:
                sel.register(proc.stdin_fd, selectors.EVENT_WRITE, (proc, "in"))
            sel.register(started.stdout, selectors.EVENT_READ, (proc, "pipe"))
            sel.register(started.stderr, selectors.EVENT_READ, (proc, "pipe"))
            sel.register(started.exit_fd, selectors.EVENT_READ, (proc, "exit"))
        _loop(sel, procs)
    finally:
        for proc in procs:
            _close(sel, proc)
        sel.close()
    return [p.out for p in procs]


def run(cmd: Command) -> Outcome:
    """Run one command (see :func:`run_many`)."""
    return run_many([cmd])[0]


def _env(cmd: Command) -> dict[str, str]:
    return dict(cmd.env) if cmd.env is not None else dict(os.environ)


def _describe_spawn_error(cmd: Command, exc: Exception) -> str:
    name = cmd.argv[0] if cmd.argv else ""
    if not isinstance(exc, OSError):  # a NUL byte, a variable name with '=': the OS refuses
        return f"cannot start {name!r}: {exc}"
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {name}"
    if isinstance(exc, PermissionError):
        return f"not executable: {name} (chmod +x it, or run it through its interpreter)"
    return f"cannot start {name}: {exc.strerror or exc}"


def _feed(proc: _Proc) -> None:
    fd = proc.stdin_fd
    if fd is None:
        return
    view = proc.stdin_view
    try:
        while view:
            written = os.write(fd, view[:_CHUNK])
            view = view[written:]
    except BlockingIOError:
        proc.stdin_view = view
        return
    except OSError:  # EPIPE: the hook does not read its input, which is its right
        view = memoryview(b"")
    proc.stdin_view = view
    os.close(fd)
    proc.stdin_fd = None


def _loop(sel: selectors.BaseSelector, procs: list[_Proc]) -> None:
    while True:
        now = time.monotonic()
        wake: float | None = None
        for proc in procs:
            if proc.done:
                continue
            if not proc.exited:
                if not proc.killed and now >= proc.deadline:
                    proc.out.timed_out = True
                    _kill(proc, now)
                if proc.killed and now >= proc.exit_deadline:
                    _abandon(sel, proc)  # unkillable (stuck in the kernel): stop waiting
                    continue
                limit = proc.exit_deadline if proc.killed else proc.deadline
            else:
                if now >= proc.exit_deadline:
                    _drop_pipes(sel, proc)
                    continue
                limit = proc.exit_deadline
            wake = limit if wake is None else min(wake, limit)
        if wake is None:
            return
        registered = sel.get_map()
        for key, _ in sel.select(max(0.0, wake - now)):
            if registered.get(key.fd) is not key:
                continue  # closed by an earlier readiness of this batch (the process exited)
            proc, what = key.data
            try:
                _ready(sel, proc, what, key.fd)
            except Exception as exc:  # stays with this process: the others keep their answers
                proc.out.error = f"lost track of the process: {type(exc).__name__}: {exc}"
                _close(sel, proc)


def _ready(sel: selectors.BaseSelector, proc: _Proc, what: str, fd: int) -> None:
    if what == "in":
        _feed(proc)
        if proc.stdin_fd is None:
            sel.unregister(fd)
    elif what == "pipe":
        _read(sel, proc, fd)
    else:
        _exited(sel, proc, fd)


def _abandon(sel: selectors.BaseSelector, proc: _Proc) -> None:
    if proc.exit_fd is not None:
        sel.unregister(proc.exit_fd)
        os.close(proc.exit_fd)
        proc.exit_fd = None
    proc.exited = True
    _drop_pipes(sel, proc)


def _kill(proc: _Proc, now: float) -> None:
    proc.killed = True
    spawn.kill_group(proc.pid)
    # Once killed, the child is gone within milliseconds; its pipes get a short grace.
    proc.exit_deadline = now + EXIT_GRACE * 3


def _read(sel: selectors.BaseSelector, proc: _Proc, fd: int) -> None:
    buf = proc.pipes.get(fd)
    if buf is None:
        return
    try:
        data = os.read(fd, _CHUNK)
    except BlockingIOError:
        return
    except OSError:
        data = b""
    if not data:
        sel.unregister(fd)
        os.close(fd)
        del proc.pipes[fd]
        _store(proc, fd, buf)
        return
    room = proc.cmd.cap - len(buf)
    if len(data) > room:
        buf += data[: max(room, 0)]
        proc.out.truncated = True
        if not proc.killed:
            _kill(proc, time.monotonic())
    else:
        buf += data


def _store(proc: _Proc, fd: int, buf: bytearray) -> None:
    if fd == proc.stdout_fd:
        proc.out.stdout = bytes(buf)
    else:
        proc.out.stderr = bytes(buf)


def _drop_pipes(sel: selectors.BaseSelector, proc: _Proc) -> None:
    for fd, buf in list(proc.pipes.items()):
        _store(proc, fd, buf)
        sel.unregister(fd)
        os.close(fd)
    proc.pipes.clear()


def _exited(sel: selectors.BaseSelector, proc: _Proc, fd: int) -> None:
    if proc.watch == "pidfd":
        proc.out.returncode = spawn.reap(proc.pid)
    else:
        proc.out.returncode = spawn.read_status(fd)
    sel.unregister(fd)
    os.close(fd)
    proc.exit_fd = None
    proc.exited = True
    now = time.monotonic()
    proc.out.elapsed = now - proc.started
    proc.exit_deadline = now + EXIT_GRACE
    if proc.stdin_fd is not None:
        sel.unregister(proc.stdin_fd)
        os.close(proc.stdin_fd)
        proc.stdin_fd = None


def _close(sel: selectors.BaseSelector, proc: _Proc) -> None:
    """Release everything a process still holds (also on an exception in the loop)."""
    fds = [fd for fd in (proc.stdin_fd, proc.exit_fd, *proc.pipes) if fd is not None]
    for fd, buf in list(proc.pipes.items()):
        _store(proc, fd, buf)
    for fd in fds:
        try:
            sel.unregister(fd)
        except (KeyError, ValueError):
            pass
        try:
            os.close(fd)
        except OSError:
            pass
    proc.pipes.clear()
    proc.stdin_fd = proc.exit_fd = None
    if proc.pid and not proc.exited:
        spawn.kill_group(proc.pid)
        spawn.reap(proc.pid)
        proc.exited = True
    if proc.pid and not proc.out.elapsed:
        proc.out.elapsed = time.monotonic() - proc.started
