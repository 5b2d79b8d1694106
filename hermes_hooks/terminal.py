"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Text shown on a terminal: control and bidirectional-override characters made visible.

A command, path, name or hook message may hold escape sequences that move the cursor, repaint a
line or reverse its direction: shown raw, a command could paint over itself and be approved as
something else. :func:`shown` writes every such character as a Python-style escape.
"""

from __future__ import annotations

import logging
import re

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
