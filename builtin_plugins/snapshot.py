"""Internal: part of the built-ins (docs/builtins.md), not an API.

Work-tree snapshots as configuration: ``snapshot: true`` in config.yaml.

On each firing of its events (default: turn start and end, ``pre_llm_call``/``post_llm_call``,
and around every tool call, ``pre_tool_call``/``post_tool_call``) it records the git work tree
the agent runs in (the process's working directory) as a commit in a shadow repository under the
user data directory (:mod:`hermes_hooks.shadow`): the repo's ignore rules hold, new files over
``max_file_bytes`` (2 MiB) are left out, an unchanged tree records nothing, and the real ``.git``
is never written. It only observes: it never answers, blocks or rewrites, and a failure is
logged once (then at debug level) and never reaches the agent. Outside a git repository, or
without git, it does nothing (said at debug level). ``hermes hooks snapshots`` lists the
snapshots, ``hermes hooks restore ID`` puts one back. Reference: ``docs/builtins.md``.
"""

from __future__ import annotations

import logging
import os
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks.builtin_plugins import declared, switches

from hermes_hooks.catalogue import EventInfo
from hermes_hooks.markers import hookimpl
from hermes_hooks.shadow import (
    MAX_FILE_BYTES,
    GitMissing,
    Shadow,
    SnapshotError,
    data_dir,
    toplevel,
)
from hermes_hooks.sources import SourceBase, builtin_rows

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

log = logging.getLogger("hermes_hooks")
NAME = "builtin:snapshot"
SWITCH = declared("snapshot").switch
#: Turn start and end, and around each tool call.
EVENTS: tuple[str, ...] = SWITCH.serves or ()
#: The arguments ``snapshot: {...}`` accepts.
ARGS = SWITCH.keys


class Snapshots(SourceBase):
    """Records a snapshot of the working directory's repository on each of its events."""

    def __init__(self, hooks: Hooks, options: dict[str, Any]) -> None:
        for key in options:
            if key not in ARGS:
                log.warning("snapshot: unknown argument %r in config.yaml; ignored (accepted: %s)",
                            key, ", ".join(ARGS))  # fmt: skip
        self.hooks = hooks
        self.max_file_bytes = max_file_bytes(options)
        self.root = data_dir()
        self.shadows: dict[Path, Shadow] = {}
        self.reported: set[str] = set()
        self.lock = threading.Lock()
        self.events = switches.resolve(hooks, "snapshot", options.get("events"), EVENTS)
        for info in self.events:
            setattr(self, info.name, self._impl(info))

    def _impl(self, info: EventInfo) -> Callable[..., Any]:
        @hookimpl(trylast=True)
        def impl(**kwargs: Any) -> None:
            self.take(info.name, kwargs)

        impl.__name__ = impl.__qualname__ = f"snapshot.{info.name}"
        return impl

    def take(self, event: str, kwargs: dict[str, Any]) -> str | None:
        """Record a snapshot for this firing; its commit, or ``None`` (nothing new, no repo, or
        a failure, which is logged and swallowed: an observer never breaks the agent)."""
        try:
            repo = toplevel(os.getcwd())
            if repo is None:
                log.debug("snapshot: %s is not in a git work tree; nothing recorded", os.getcwd())
                return None
            fields = {"event": event}
            for key, name in (("session", "session_id"), ("tool", "tool_name")):
                if kwargs.get(name):
                    fields[key] = str(kwargs[name])
            return self._shadow(repo).record(fields, self.max_file_bytes)
        except GitMissing as exc:
            self._fail("git", f"{exc}; no snapshots", debug=True)
        except (OSError, SnapshotError, subprocess.TimeoutExpired, ValueError) as exc:
            self._fail(type(exc).__name__, f"snapshot on {event} failed: {exc}")
        return None

    def _shadow(self, repo: Path) -> Shadow:
        with self.lock:
            shadow = self.shadows.get(repo)
            if shadow is None:
                shadow = self.shadows[repo] = Shadow(repo, self.root)
            return shadow

    def _fail(self, kind: str, message: str, debug: bool = False) -> None:
        first = kind not in self.reported
        self.reported.add(kind)
        if debug or not first:
            log.debug("snapshot: %s", message)
        else:
            log.warning("snapshot: %s (reported once; later failures are logged at debug)",
                        message)  # fmt: skip

    def rows(self) -> list[dict[str, Any]]:
        matcher = f"new files ≤ {self.max_file_bytes} bytes"
        return builtin_rows(NAME, [info.name for info in self.events], matcher)


def max_file_bytes(options: Any) -> int:
    """The size over which a new file is left out, as ``snapshot: {max_file_bytes: N}`` gives
    it (read here for the built-in and for ``hermes hooks restore``, which must leave out the
    same files); not a positive whole number: the default, said so."""
    given = options.get("max_file_bytes") if isinstance(options, dict) else None
    if given is None:
        return MAX_FILE_BYTES
    try:
        value = 0 if isinstance(given, bool) else int(given)  # "50" is 50, as it always was
    except (TypeError, ValueError):
        value = 0
    if value <= 0:
        log.warning("snapshot: max_file_bytes must be a positive whole number of bytes, not %r; "
                    "using %d", given, MAX_FILE_BYTES)  # fmt: skip
        return MAX_FILE_BYTES
    return value


def setup(hooks: Hooks) -> Snapshots | None:
    """Active when config.yaml says ``snapshot: true`` (or gives its arguments)."""
    options = switches.value(hooks, "snapshot")
    if hooks.safe_mode or not options:
        return None
    chosen = switches.events(hooks, "snapshot")  # `type: builtin` entries: their events only
    if chosen is not None:
        options = {**(options if isinstance(options, dict) else {}), "events": chosen}
    if options is not True and not isinstance(options, dict):
        log.warning(
            "snapshot: expected true or {max_file_bytes: N, events: [...]}, got %r; off", options
        )
        return None
    return Snapshots(hooks, options if isinstance(options, dict) else {})
