"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

``hermes hooks replay``: a reference agent loop that drives a recorded session through the
hooks, to see what a policy would have done (shadow mode) or to check a hook pack in CI
(``--expect``). Reference: ``docs/replay.md``."""

from __future__ import annotations

from .formats import FormatError, Session, ToolCall, Turn, read_session
from .runner import Replay, compare, replay

__all__ = [
    "FormatError",
    "Replay",
    "Session",
    "ToolCall",
    "Turn",
    "compare",
    "read_session",
    "replay",
]
