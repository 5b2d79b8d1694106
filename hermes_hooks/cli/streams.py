"""Internal: the ``hermes hooks`` command line (docs/cli.md), not an API.

Keeping the command line's own output clean of what plugins do while they load or run.

A plugin may write to file descriptor 1 at import (a C extension, ``os.write``, a subprocess)
or start a thread that never ends. ``list --json`` must still print valid JSON, and no command
may hang at exit waiting for a plugin's thread.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator

#: How long the command line waits at exit for plugin threads that are not daemons.
THREAD_GRACE = 2.0


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Inside the block, everything written to stdout (``sys.stdout`` and descriptor 1) goes to
    stderr."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError):
        saved = -1
    try:
        if saved >= 0:
            os.dup2(2, 1)
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        if saved >= 0:
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.flush()
            os.dup2(saved, 1)
            os.close(saved)


def exit_despite_threads(code: object) -> None:
    """Exit with ``code``; if a plugin left threads that are not daemons running, wait
    :data:`THREAD_GRACE` seconds for them, then exit without them (saying so)."""
    deadline = time.monotonic() + THREAD_GRACE
    for thread in _strays():
        thread.join(max(0.0, deadline - time.monotonic()))
    strays = _strays()
    if not strays:
        raise SystemExit(code)
    names = ", ".join(t.name for t in strays)
    with contextlib.suppress(Exception):
        print(f"hermes hooks: not waiting for plugin thread(s) still running: {names}",
              file=sys.stderr)  # fmt: skip
    with contextlib.suppress(Exception):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code if isinstance(code, int) else 0 if code is None else 1)


def _strays() -> list[threading.Thread]:
    main = threading.main_thread()
    return [t for t in threading.enumerate() if t is not main and not t.daemon and t.is_alive()]
