"""Internal: part of the built-ins (docs/builtins.md), not an API.

BOOT.md: a startup checklist the agent runs once each time the gateway starts.

On ``gateway:startup``, when ``<home>/BOOT.md`` holds any text, the host is asked (through
``hooks.host.run_background_task``) to run it as a background agent task. The prompt tells the
agent to answer ``[SILENT]`` when there is nothing to report; a silent answer delivers nothing, any
other answer goes to ``hooks.host.deliver(text)`` (or to the log when the host has no ``deliver``).

Host contract: ``run_background_task(prompt, *, name, source)`` is called from a worker thread of its
own, never on the event loop, and may take as long as the agent needs; it returns the agent's final
reply (a string, ``None``, or an awaitable of one). Startup never waits for it.

Off with ``boot_md: false`` in config, and in safe mode (``HERMES_SAFE_MODE=1``).
"""

from __future__ import annotations

import inspect
import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks.markers import hookimpl
from hermes_hooks.sources import SourceBase

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

log = logging.getLogger("hermes_hooks")

SILENT = "[SILENT]"

PROMPT = """\
You are running the startup checklist of this agent, written by its owner in BOOT.md.
Carry out the instructions between the markers below, using your tools as needed.

--- BOOT.md ---
{text}
--- end of BOOT.md ---

When you are done: if nothing needs the owner's attention, reply with exactly {silent} and nothing
else. Otherwise reply with a short report for the owner; it will be delivered to them as written.
"""


def is_silent(reply: Any) -> bool:
    """True when the agent's reply means "nothing to report": empty, or ``[SILENT]`` at the very
    start or end (agents often add a line around it)."""
    if reply is None:
        return True
    text = str(reply).strip()
    return not text or text.startswith(SILENT) or text.endswith(SILENT)


def build_prompt(text: str) -> str:
    """The task prompt for the BOOT.md text."""
    return PROMPT.format(text=text.strip(), silent=SILENT)


class BootMd(SourceBase):
    """Runs ``<home>/BOOT.md`` once per gateway start."""

    def __init__(self, hooks: Hooks, path: Path) -> None:
        self._hooks = hooks
        self.path = path
        self.started = False
        self.thread: threading.Thread | None = None
        self.reply: Any = None
        self._warned = False

    @hookimpl(trylast=True)
    def gateway_event(self, event_type: str) -> None:
        """Start the BOOT.md task on the first ``gateway:startup``; returns at once."""
        if event_type != "gateway:startup" or self.started:
            return None
        self.started = True
        from hermes_hooks.trust import untrusted

        distrust = untrusted(self.path) if self.path.exists() else None
        if distrust is not None:
            log.warning("BOOT.md: not run: refused: %s", distrust)
            return None
        try:
            text = self.path.read_text(encoding="utf-8")
        except OSError as exc:
            if self.path.exists():
                log.warning("BOOT.md: cannot read %s: %s", self.path, exc.strerror or exc)
            return None
        if not text.strip():
            log.debug("BOOT.md at %s is empty: nothing to run", self.path)
            return None
        host = self._hooks.host
        runner = getattr(host, "run_background_task", None) if host is not None else None
        if not callable(runner):
            if not self._warned:
                self._warned = True
                log.warning(
                    "BOOT.md: %s was not run: this host offers no background agent tasks "
                    "(it has to pass a host with run_background_task to hooks.set_host())",
                    self.path,
                )
            return None
        self.thread = threading.Thread(
            target=self._run,
            args=(host, runner, build_prompt(text)),
            name="hermes-boot-md",
            daemon=True,
        )
        self.thread.start()
        return None

    def _run(self, host: Any, runner: Any, prompt: str) -> None:
        try:
            reply = runner(prompt, name="boot-md", source=str(self.path))
            if inspect.isawaitable(reply):
                from hermes_hooks.dispatch import run_sync

                reply = run_sync(reply)
        except Exception as exc:
            log.warning("BOOT.md: the background task failed: %s: %s", type(exc).__name__, exc)
            return
        self.reply = reply
        if is_silent(reply):
            log.info("BOOT.md: done, nothing to report")
            return
        deliver = getattr(host, "deliver", None)
        if not callable(deliver):
            log.info("BOOT.md reported (this host has no deliver()): %s", str(reply).strip())
            return
        try:
            deliver(str(reply).strip(), source="boot-md")
        except Exception as exc:
            log.warning("BOOT.md: delivering the report failed: %s: %s", type(exc).__name__, exc)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the background task (tests, and hosts shutting down); True when it finished."""
        if self.thread is None:
            return True
        self.thread.join(timeout)
        return not self.thread.is_alive()

    def rows(self) -> list[dict[str, Any]]:
        """The row in ``hermes hooks list --all``."""
        return [
            {
                "event": "gateway_event",
                "name": "builtin:boot_md",
                "source": "builtin",
                "matcher": "gateway:startup",
                "function": str(self.path),
                "style": "builtin",
                "trylast": True,
            }
        ]


def setup(hooks: Hooks) -> BootMd | None:
    """A :class:`BootMd` when ``<home>/BOOT.md`` exists and BOOT.md is not turned off."""
    if hooks.safe_mode or hooks.config.get("boot_md", True) is False:
        return None
    path = hooks.home / "BOOT.md"
    if not path.is_file():
        return None  # nothing to run: contribute no hook at all
    return BootMd(hooks, path)
