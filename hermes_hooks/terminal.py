"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Text shown on a terminal: control and bidirectional-override characters made visible.

A command, path, name or hook message may hold escape sequences that move the cursor, repaint a
line or reverse its direction: shown raw, a command could paint over itself and be approved as
something else. :func:`shown` writes every such character as a Python-style escape.
"""

from __future__ import annotations

import logging
import re
import sys
import threading

# C0 controls (but tab), DEL, C1 controls, and the Unicode bidi embeddings/overrides/isolates.
_HIDDEN = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


# the same characters, the line break (\x0a) aside
_HIDDEN_BUT_NEWLINE = re.compile(_HIDDEN.pattern.replace("\x0a-", "\x0b-"))


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def shown(text: object) -> str:
    """``text`` as one line safe to print on a terminal (every hidden character escaped)."""
    return _HIDDEN.sub(_escape, str(text))


def shown_lines(text: object) -> str:
    """:func:`shown` for text of several lines (the line breaks kept)."""
    return "\n".join(shown(line) for line in str(text).split("\n"))


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def shown_json(text: str) -> str:
    """JSON text (``json.dumps``'s, which escapes control characters below 0x20 but not DEL,
    the C1 controls or the bidi characters) with every hidden character but the line break
    written as a JSON ``\\uXXXX`` escape: still the same JSON, safe on a terminal."""
    return _HIDDEN_BUT_NEWLINE.sub(_json_escape, text)


def echo(text: object = "", *, err: bool = False) -> None:
    """``click.echo`` of ``text`` with every hidden character escaped (line breaks kept)."""
    import click

    click.echo(shown_lines(text), err=err)


class ShownFormatter(logging.Formatter):
    """A log formatter that shows every hidden character of a message escaped (line breaks
    kept)."""

    def format(self, record: logging.LogRecord) -> str:
        return shown_lines(super().format(record))


log = logging.getLogger("hermes_hooks")

#: ``extra=`` of a warning the person at the terminal must see even when the host sends the log
#: to a file: a guard that failed, or whose answer was ignored, and so did not guard.
TELL = {"tell": True}


def log_reaches_stderr() -> bool:
    """Whether a warning of ours is already printed on stderr by the logging setup."""
    logger: logging.Logger | None = log
    handled = False
    while logger is not None:
        for handler in logger.handlers:
            if isinstance(handler, TerminalEcho):
                continue
            handled = True
            stream = getattr(handler, "stream", None)
            if stream in (sys.stderr, sys.__stderr__) and handler.level <= logging.WARNING:
                return True
        if not logger.propagate:
            break
        logger = logger.parent
    return not handled and logging.lastResort is not None


def _write(message: str) -> None:
    try:
        sys.stderr.write(f"hermes-hooks: {shown(message)}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def tell(message: str) -> None:
    """Report ``message`` on the terminal (stderr, escaped) and in the log: a host that sends
    the log to a file (Hermes Agent: agent.log) would otherwise show nothing."""
    log.warning("%s", message)
    if not log_reaches_stderr():
        _write(message)


class TerminalEcho(logging.Handler):
    """Writes the warnings marked :data:`TELL` on stderr, each message once, when the host's
    logging does not print them there (a host that installs it: the Hermes Agent bridge)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self._seen: set[str] = set()
        self._lock_seen = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        if not getattr(record, "tell", False):
            return
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: nothing to show
            return
        with self._lock_seen:
            if message in self._seen or len(self._seen) > 1000:
                return
            self._seen.add(message)
        if not log_reaches_stderr():
            _write(message)


def echo_on_terminal() -> None:
    """Install :class:`TerminalEcho` on our logger (once)."""
    if not any(isinstance(h, TerminalEcho) for h in log.handlers):
        log.addHandler(TerminalEcho())
