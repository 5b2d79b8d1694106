"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

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
"""

from __future__ import annotations

import errno
import fcntl
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .resolve import which

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
