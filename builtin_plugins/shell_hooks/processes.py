"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Starting and running hook processes: what a command runs with (its environment) and why it
cannot run, each in its own process group, several at once, without polling.

Running hook commands: each in its own process group, several at once, without polling.

One thread drives every process of a batch with a ``selectors`` loop: it writes each payload to
stdin, reads stdout and stderr as they come (capped), and learns that a process exited from a
pidfd (Linux) or a pipe its status arrives on (see starting one process, below). Nothing sleeps
or polls, so a hook costs what its process costs. On timeout or over-cap output the whole process
group is killed; a grandchild that escaped the group and still holds a pipe open cannot keep the
caller waiting for more than :data:`EXIT_GRACE` after the child itself is gone.

Starting one hook process, and learning its exit status whatever the host did to signals.

A process starts in a new process group with its stdin, stdout and stderr on fresh pipes. How its
exit is learnt depends on the host:

* ``pidfd``: the kernel's process fd (Linux), readable when the child exits; the status comes
  from ``waitpid``.
* ``waiter``: where there is no ``pidfd_open`` (another system, an old kernel, a seccomp filter
  that refuses it), a thread waits for the child and writes its status to a pipe.
* ``status``: when the host ignores ``SIGCHLD``, the kernel reaps children itself and their
  status is lost to any ``waitpid``. The command then runs under a small supervisor (this
  Python, ``-I -S``) that waits for it with ``SIGCHLD`` at its default and writes the status to a
  pipe; the supervisor is the group leader, so killing the group kills both.

Only Python's view of the ``SIGCHLD`` disposition is consulted: a host that ignores it from C
code without telling Python's ``signal`` module is not detected (``docs/security.md``).

The environment of a shell hook: what it inherits from the host (all of it, or a minimal
set), what the OS would refuse, and reading the variables a ``SessionStart`` hook exported to
its ``CLAUDE_ENV_FILE``.

Why a command hook cannot run as configured (``hermes hooks doctor``): a missing working
directory, a program not found or not executable, a script not readable.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import selectors
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import consent, protocol
from .consent import which
from .matching import ShellHook

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
    watch: str = (
        "pidfd"  # how the exit is learnt (see hermes_hooks.builtin_plugins.shell_hooks.processes)
    )
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
                started = spawn(cmd.argv, _env(cmd), cmd.cwd)
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
    kill_group(proc.pid)
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
        proc.out.returncode = reap(proc.pid)
    else:
        proc.out.returncode = read_status(fd)
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
        kill_group(proc.pid)
        reap(proc.pid)
        proc.exited = True
    if proc.pid and not proc.out.elapsed:
        proc.out.elapsed = time.monotonic() - proc.started


_HAS_PIDFD = hasattr(os, "pidfd_open") and sys.platform.startswith("linux")
# Signals the child must get back at their defaults (Python ignores SIGPIPE and SIGXFSZ; a host
# may ignore SIGCHLD, which a hook's shell needs at its default to wait for its own children).
_RESET_SIGNALS = tuple(
    s
    for s in (
        getattr(signal, "SIGPIPE", None),
        getattr(signal, "SIGXFSZ", None),
        getattr(signal, "SIGCHLD", None),
    )
    if s is not None
)
# The status supervisor: argv is [fd, exe, argv0, args...]; writes the raw wait status (4 bytes,
# little-endian) to fd. Kept tiny: it runs only when the host ignores SIGCHLD.
_SUPERVISOR = (
    "import os,signal,sys\n"
    "signal.signal(signal.SIGCHLD,signal.SIG_DFL)\n"
    "fd=int(sys.argv[1]);os.set_inheritable(fd,False)\n"
    "try:\n"
    " pid=os.posix_spawn(sys.argv[2],sys.argv[3:],os.environ,setsigdef=(13,25))\n"
    "except OSError as e:\n"
    " os.write(2,('cannot start %s: %s\\n'%(sys.argv[2],e.strerror)).encode());os._exit(127)\n"
    "s=os.waitpid(pid,0)[1]\n"
    "os.write(fd,s.to_bytes(4,'little',signed=True))\n"
)


@dataclass
class Spawned:
    """A started process: its pid, our ends of its pipes, and how its exit is learnt."""

    pid: int
    stdin: int
    stdout: int
    stderr: int
    watch: str  # "pidfd", "waiter" or "status"
    exit_fd: int


def _sigchld_ignored() -> bool:
    sigchld = getattr(signal, "SIGCHLD", None)
    return sigchld is not None and signal.getsignal(sigchld) == signal.SIG_IGN


def _pipes(count: int) -> list[tuple[int, int]]:
    """``count`` pipes, or none at all (nothing is left open when one cannot be made)."""
    made: list[tuple[int, int]] = []
    try:
        for _ in range(count):
            made.append(os.pipe())
    except BaseException:
        _close_all(fd for pair in made for fd in pair)
        raise
    return made


def _close_all(fds: Any) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def spawn(
    argv: Sequence[str], env: dict[str, str], cwd: str | None, exe: str | None = None
) -> Spawned:
    """Start ``argv`` in a new process group; raises ``OSError`` (or ``ValueError`` for an
    argument or environment the OS cannot take) with nothing left open."""
    if not argv:
        raise OSError(errno.ENOENT, "empty command")
    exe = exe or which(argv[0], env, cwd)
    if exe is None:
        raise FileNotFoundError(errno.ENOENT, "command not found", argv[0])
    supervised = _sigchld_ignored()
    (in_r, in_w), (out_r, out_w), (err_r, err_w), *status = _pipes(4 if supervised else 3)
    ours = [in_w, out_r, err_r]
    theirs = [in_r, out_w, err_w]
    try:
        child_argv, child_exe, extra_fd = list(argv), exe, None
        if supervised:
            st_r, st_w = status[0]
            ours.append(st_r)
            theirs.append(st_w)
            # Above 2 and not 3, so the DUP2 below always clears close-on-exec.
            extra_fd = fcntl.fcntl(st_w, fcntl.F_DUPFD_CLOEXEC, 10)
            theirs.append(extra_fd)
            child_exe = sys.executable
            child_argv = [sys.executable, "-I", "-S", "-c", _SUPERVISOR, "", exe, *argv]
        pid = _start(child_exe, child_argv, env, cwd, in_r, out_w, err_w, extra_fd)
    except BaseException:
        _close_all(ours + theirs)
        raise
    _close_all(theirs)
    if supervised:
        return Spawned(pid, in_w, out_r, err_r, "status", ours[3])
    try:
        watch, exit_fd = exit_watch(pid)
    except OSError:
        kill_group(pid)
        _close_all(ours)
        raise
    return Spawned(pid, in_w, out_r, err_r, watch, exit_fd)


def _start(
    exe: str,
    argv: list[str],
    env: dict[str, str],
    cwd: str | None,
    in_r: int,
    out_w: int,
    err_w: int,
    extra_fd: int | None,
) -> int:
    if cwd is None:
        actions: list[tuple[int, ...]] = [
            (os.POSIX_SPAWN_DUP2, in_r, 0),
            (os.POSIX_SPAWN_DUP2, out_w, 1),
            (os.POSIX_SPAWN_DUP2, err_w, 2),
        ]
        if extra_fd is not None:
            actions.append((os.POSIX_SPAWN_DUP2, extra_fd, 3))
            argv[5] = "3"
        # posix_spawn has no close_fds: close every inheritable descriptor of the host's.
        keep = {0, 1, 2, 3} if extra_fd is not None else {0, 1, 2}
        actions.extend((os.POSIX_SPAWN_CLOSE, fd) for fd in _inheritable_fds() if fd not in keep)
        # posix_spawn is the cheapest way to start a process (vfork + exec, no Python code in
        # between); it cannot change directory, so a working_dir goes through Popen.
        return os.posix_spawn(
            exe,
            argv,
            env,
            file_actions=actions,
            setpgroup=0,
            setsigdef=_RESET_SIGNALS,
            setsigmask=(),
        )
    extra: dict[str, Any] = (
        {"process_group": 0} if sys.version_info >= (3, 11) else {"preexec_fn": os.setpgrp}
    )
    if extra_fd is not None:
        argv[5] = str(extra_fd)
    popen = subprocess.Popen(  # noqa: S603 - argv comes from the user's own config
        argv,
        executable=exe,
        stdin=in_r,
        stdout=out_w,
        stderr=err_w,
        env=env,
        cwd=cwd,
        close_fds=True,
        pass_fds=(extra_fd,) if extra_fd is not None else (),
        **extra,
    )
    # We reap it ourselves; stop subprocess from trying to (and warning about it).
    popen.returncode = 0
    return popen.pid


def _inheritable_fds() -> list[int]:
    """The descriptors of this process a child would inherit (those without close-on-exec)."""
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        try:
            import resource

            limit = min(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 4096)
        except (ImportError, OSError, ValueError):
            limit = 256
        names = [str(fd) for fd in range(3, limit)]
    out = []
    for name in names:
        fd = int(name)
        if fd > 2:
            try:
                if os.get_inheritable(fd):
                    out.append(fd)
            except OSError:
                pass  # closed meanwhile (or the directory's own descriptor)
    return out


def exit_watch(pid: int) -> tuple[str, int]:
    """How ``pid``'s exit will be seen: (``"pidfd"``, its pidfd) or (``"waiter"``, the read end
    of a pipe a waiting thread writes the status to)."""
    if _HAS_PIDFD:
        try:
            return "pidfd", os.pidfd_open(pid)
        except OSError:
            pass  # ENOSYS (old kernel), EPERM (seccomp), EMFILE: a waiter thread does it
    r, w = os.pipe()

    def wait() -> None:
        try:
            _, status = os.waitpid(pid, 0)
            os.write(w, status.to_bytes(4, "little", signed=True))
        except OSError:
            pass
        finally:
            os.close(w)

    try:
        threading.Thread(target=wait, name=f"hermes-hooks-wait-{pid}", daemon=True).start()
    except BaseException:
        _close_all((r, w))
        raise
    return "waiter", r


def read_status(fd: int) -> int | None:
    """The exit code a ``waiter`` or ``status`` pipe carries (``None``: it carries nothing)."""
    try:
        raw = os.read(fd, 4)
    except OSError:
        return None
    if len(raw) != 4:
        return None
    return os.waitstatus_to_exitcode(int.from_bytes(raw, "little", signed=True))


def reap(pid: int) -> int | None:
    """Wait for ``pid`` and return its exit code (``None``: already reaped elsewhere)."""
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return None
    return os.waitstatus_to_exitcode(status)


def kill_group(pid: int) -> None:
    """SIGKILL ``pid``'s process group (gone already: nothing to do)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


#: What a hook inherits from the host with ``hooks_env: minimal`` (besides ``LC_*``,
#: ``CLAUDE_*`` and ``HERMES_*`` variables and the entry's ``env_passthrough``).
MINIMAL_ENV = frozenset("PATH HOME USER LOGNAME SHELL LANG TERM TMPDIR TZ".split())
#: The variables set per firing (``Runner.environment``), on top of a hook's static environment
#: (``Runner.static_env``); the payload carries them too, so a warm worker's is the rest.
PER_FIRING = ("HERMES_HOOK_EVENT", "HERMES_SESSION_ID", "CLAUDE_ENV_FILE")


_snapshot: tuple[dict[bytes, bytes], dict[str, str]] | None = None


def host_env() -> Mapping[str, str]:
    """``os.environ`` as a plain dict, shared: not to be changed. Decoding ``os.environ``
    costs 10-20 µs a firing; the decoded copy is kept while the raw variables (its ``_data``,
    compared in about a microsecond) stay the same."""
    global _snapshot
    raw = getattr(os.environ, "_data", None)
    if not isinstance(raw, dict):
        return dict(os.environ)  # not CPython's os.environ: no shortcut
    kept = _snapshot
    if kept is not None and kept[0] == raw:
        return kept[1]
    fresh = (dict(raw), dict(os.environ))
    _snapshot = fresh
    return fresh[1]


def bad_environment(env: Mapping[str, str]) -> str | None:
    """Why the OS would refuse ``env`` (naming the variable), or ``None``."""
    for name, value in env.items():
        if not name or "=" in name or "\0" in name:
            return (
                f"env: {name!r} is not a valid variable name (it must be non-empty, without '=' "
                "or NUL); fix the hook's env: in its config"
            )
        if "\0" in value:
            return f"env: the value of {name} contains a NUL byte, which no process can receive"
    return None


def parse_env_file(path: Path) -> dict[str, str]:
    """``export NAME=value`` / ``NAME=value`` lines of a ``CLAUDE_ENV_FILE``, shell quoting
    removed and ``$VAR`` expanded with the environment and the earlier lines."""
    out: dict[str, str] = {}
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return out
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].strip()
        name, sep, value = line.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z_]\w*", name):
            continue
        try:
            words = shlex.split(value, comments=True)
        except ValueError:
            words = [value]
        out[name] = consent.expand(" ".join(words), {**os.environ, **out})
    return out


def command_problem(hook: ShellHook, env: Mapping[str, str]) -> str | None:
    """Why ``hook``'s command cannot run with ``env``, or ``None``."""
    cwd = hook.cwd(env)
    if cwd is not None and not os.path.isdir(cwd):
        return f"working_dir {cwd} does not exist"
    if hook.protocol != protocol.HERMES and hook.exec_args is None:
        try:
            words = shlex.split(hook.command)
        except ValueError as exc:
            return f"the command cannot be parsed: {exc}"
        if not words:
            return "empty command"
        first = consent.expand(words[0], env)
        if "/" in first:
            return _file_problem(first, cwd, os.X_OK, "is not executable (chmod +x it)")
        return None
    try:
        argv = hook.argv(env)
    except ValueError as exc:
        return f"the command cannot be split: {exc}"
    exe = consent.which(argv[0], env, cwd)
    if exe is None:
        return f"{argv[0]} not found" + ("" if "/" in argv[0] else " on PATH")
    if not os.access(exe, os.X_OK) or os.path.isdir(exe):
        return f"{exe} is not executable (chmod +x it, or run it through its interpreter)"
    for token in argv[1:]:
        if token.lower().endswith(consent.SCRIPT_EXTENSIONS) and "/" in token:
            problem = _file_problem(token, cwd, os.R_OK, "is not readable", prefix="script ")
            if problem:
                return problem
    return None


def _file_problem(
    token: str, cwd: str | None, mode: int, denied: str, *, prefix: str = ""
) -> str | None:
    """Why the file ``token`` names (relative to ``cwd``) is missing or lacks ``mode``."""
    path = token if os.path.isabs(token) else os.path.join(cwd or consent.current_dir(), token)
    if not os.path.isfile(path):
        return f"{prefix}{token} does not exist"
    if not os.access(path, mode):
        return f"{prefix}{token} {denied}"
    return None
