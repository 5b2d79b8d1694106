"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Other agents' hook dialects: Gemini CLI, Codex, Cursor and GitHub Copilot.

Each event's part of a dialect (its name there, payload fields, matcher) is declared on the
hookspecs (``dialects=`` of :func:`hermes_hooks.markers.event`); what is the same for every
event of an agent (tool names, common fields, how its answers read, timeouts) is its
:class:`~.base.Dialect` here. Reference: ``docs/dialects.md``.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_hooks.catalogue import EventInfo
    from hermes_hooks.contract import AgentEvent

    from .base import Dialect, matches

    #: Every dialect, by the name a ``protocol:`` (and ``hooks_sources``) uses.
    DIALECTS: dict[str, Dialect]


@cache
def _dialects() -> dict[str, Dialect]:
    # imported on first use: the hookspecs import .fields, and a host whose hooks speak no other
    # agent's dialect should not pay for the four modules at every start
    from .codex import DIALECT as CODEX
    from .copilot import DIALECT as COPILOT
    from .cursor import DIALECT as CURSOR
    from .gemini import DIALECT as GEMINI

    return {d.name: d for d in (GEMINI, CODEX, CURSOR, COPILOT)}


def __getattr__(name: str) -> Any:
    if name == "DIALECTS":
        return _dialects()
    if name in ("Dialect", "matches"):
        from . import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def shell_tools() -> frozenset[str]:
    """The host's shell tool (``terminal``) under its own name, Claude Code's and every
    dialect's (``Bash``, ``run_shell_command``, ``Shell``, ``bash``): what a guard of command
    lines looks at, whichever agent's names the call arrives with."""
    from hermes_hooks.contract import claude_tool_name

    names = {"terminal", claude_tool_name("terminal")}
    names |= {d.tool_name("terminal") for d in _dialects().values()}
    return frozenset(n for n in names if isinstance(n, str))


def get(name: str | None) -> Dialect | None:
    """The dialect called ``name``, or ``None`` (Hermes, Claude Code, unknown)."""
    return _dialects().get(name) if name else None


def lookup(
    dialect: str, name: str, events: Iterable[EventInfo]
) -> tuple[EventInfo, AgentEvent] | None:
    """Our event and the dialect's event that ``name`` names in ``dialect``, or ``None``."""
    for info in events:
        for candidate in info.dialect_events(dialect):
            if candidate.name == name:
                return info, candidate
    return None


def names(dialect: str, events: Iterable[EventInfo]) -> list[str]:
    """Every event name of ``dialect`` that one of ours stands for."""
    return [c.name for info in events for c in info.dialect_events(dialect)]


__all__ = ["DIALECTS", "Dialect", "get", "lookup", "matches", "names", "shell_tools"]
