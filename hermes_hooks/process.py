"""Running hook commands: each in its own process group, several at once, without polling.

One thread drives every process of a batch with a ``selectors`` loop: it writes each payload to
stdin, reads stdout and stderr as they come (capped), and learns that a process exited from a
pidfd (Linux) or, elsewhere, from a waiter thread that writes to a self-pipe. Nothing sleeps or
polls, so a hook costs what its process costs. On timeout or over-cap output the whole process
group is killed; a grandchild that escaped the group and still holds a pipe open cannot keep the
caller waiting for more than :data:`EXIT_GRACE` after the child itself is gone.
"""

from __future__ import annotations

import errno
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .resolve import which

#: Default cap on each of stdout and stderr, in bytes.
OUTPUT_CAP = 1 << 20
#: How long to keep reading a pipe after the child exited (a grandchild may hold it open).
EXIT_GRACE = 0.1
_CHUNK = 1 << 16
_HAS_PIDFD = hasattr(os, "pidfd_open") and sys.platform.startswith("linux")
# Signals the child must get back at their defaults (Python ignores SIGPIPE and SIGXFSZ).
_RESET_SIGNALS = tuple(
    s for s in (getattr(signal, "SIGPIPE", None), getattr(signal, "SIGXFSZ", None)) if s is not None
)


@dataclass
class Command:
    """One process to run: ``argv`` (already split and expanded), its input and its limits."""

    argv: Sequence[str]
    stdin: bytes = b""
    timeout: float = 60.0
    env: Mapping[str, str] | None = None
    cwd: str | None = None
    cap: int = OUTPUT_CAP


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
    exit_fd: int | None = None  # pidfd, or the read end of a waiter's pipe
    exited: bool = False
    exit_deadline: float = 0.0
    killed: bool = False

    @property
    def done(self) -> bool:
        return self.exited and not self.pipes


def _spawn(cmd: Command) -> tuple[int, int, int, int]:
    """Start ``cmd`` in a new process group; return (pid, stdin_w, stdout_r, stderr_r)."""
    if not cmd.argv:
        raise OSError(errno.ENOENT, "empty command")
    exe = which(cmd.argv[0], cmd.env, cmd.cwd)
    if exe is None:
        raise FileNotFoundError(errno.ENOENT, "command not found", cmd.argv[0])
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        env = dict(cmd.env) if cmd.env is not None else dict(os.environ)
        if cmd.cwd is None:
            # posix_spawn is the cheapest way to start a process (vfork + exec, no Python code
            # in between); it cannot change directory, so a working_dir goes through Popen.
            pid = os.posix_spawn(
                exe,
                list(cmd.argv),
                env,
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, in_r, 0),
                    (os.POSIX_SPAWN_DUP2, out_w, 1),
                    (os.POSIX_SPAWN_DUP2, err_w, 2),
                ],
                setpgroup=0,
                setsigdef=_RESET_SIGNALS,
                setsigmask=(),
            )
        else:
            extra: dict[str, Any] = (
                {"process_group": 0} if sys.version_info >= (3, 11) else {"preexec_fn": os.setpgrp}
            )
            popen = subprocess.Popen(  # noqa: S603 - argv comes from the user's own config
                list(cmd.argv),
                executable=exe,
                stdin=in_r,
                stdout=out_w,
                stderr=err_w,
                env=env,
                cwd=cmd.cwd,
                close_fds=True,
                **extra,
            )
            pid = popen.pid
            # We reap it ourselves; stop subprocess from trying to (and warning about it).
            popen.returncode = 0
    except BaseException:
        for fd in (in_r, in_w, out_r, out_w, err_r, err_w):
            os.close(fd)
        raise
    for fd in (in_r, out_w, err_w):
        os.close(fd)
    return pid, in_w, out_r, err_r


def _exit_watch(pid: int) -> int:
    """An fd that becomes readable when ``pid`` exits (a pidfd, or a waiter thread's pipe)."""
    if _HAS_PIDFD:
        try:
            return os.pidfd_open(pid)
        except OSError:
            pass
    r, w = os.pipe()

    def wait() -> None:
        try:
            _, status = os.waitpid(pid, 0)
            os.write(w, status.to_bytes(4, "little", signed=True))
        except OSError:
            pass
        finally:
            os.close(w)

    threading.Thread(target=wait, name=f"hermes-hooks-wait-{pid}", daemon=True).start()
    return r


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _reap(proc: _Proc) -> None:
    try:
        _, status = os.waitpid(proc.pid, 0)
    except ChildProcessError:
        return  # already reaped elsewhere (the host ignores SIGCHLD): the status is lost
    proc.out.returncode = os.waitstatus_to_exitcode(status)


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
                pid, in_w, out_r, err_r = _spawn(cmd)
            except OSError as exc:
                proc.out.error = _describe_spawn_error(cmd, exc)
                proc.exited = True
                continue
            proc.pid = proc.out.pid = pid
            proc.deadline = proc.started + cmd.timeout
            proc.stdout_fd = out_r
            proc.pipes = {out_r: bytearray(), err_r: bytearray()}
            for fd in (in_w, out_r, err_r):
                os.set_blocking(fd, False)
            proc.stdin_fd = in_w
            proc.stdin_view = memoryview(cmd.stdin)
            _feed(proc)
            if proc.stdin_fd is not None:
                sel.register(proc.stdin_fd, selectors.EVENT_WRITE, (proc, "in"))
            sel.register(out_r, selectors.EVENT_READ, (proc, "pipe"))
            sel.register(err_r, selectors.EVENT_READ, (proc, "pipe"))
            proc.exit_fd = _exit_watch(pid)
            sel.register(proc.exit_fd, selectors.EVENT_READ, (proc, "exit"))
        _loop(sel, procs)
    finally:
        for proc in procs:
            _close(sel, proc)
        sel.close()
    return [p.out for p in procs]


def run(cmd: Command) -> Outcome:
    """Run one command (see :func:`run_many`)."""
    return run_many([cmd])[0]


def _describe_spawn_error(cmd: Command, exc: OSError) -> str:
    name = cmd.argv[0] if cmd.argv else ""
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
        for key, _ in sel.select(max(0.0, wake - now)):
            proc, what = key.data
            if what == "in":
                _feed(proc)
                if proc.stdin_fd is None:
                    sel.unregister(key.fd)
            elif what == "pipe":
                _read(sel, proc, key.fd)
            else:
                _exited(sel, proc, key.fd)


def _abandon(sel: selectors.BaseSelector, proc: _Proc) -> None:
    if proc.exit_fd is not None:
        sel.unregister(proc.exit_fd)
        os.close(proc.exit_fd)
        proc.exit_fd = None
    proc.exited = True
    _drop_pipes(sel, proc)


def _kill(proc: _Proc, now: float) -> None:
    proc.killed = True
    _kill_group(proc.pid)
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
    if _HAS_PIDFD:
        _reap(proc)
    else:
        try:
            raw = os.read(fd, 4)
        except OSError:
            raw = b""
        if len(raw) == 4:
            status = int.from_bytes(raw, "little", signed=True)
            proc.out.returncode = os.waitstatus_to_exitcode(status)
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
        _kill_group(proc.pid)
        try:
            os.waitpid(proc.pid, 0)
        except ChildProcessError:
            pass
        proc.exited = True
    if proc.pid and not proc.out.elapsed:
        proc.out.elapsed = time.monotonic() - proc.started
