"""Internal: part of the built-ins (docs/builtins.md), not an API.

The lockdown: while config.yaml cannot be read, every event that guards an action blocks.

A config that cannot be read (a YAML syntax error, a bad encoding, a top level that is not a
mapping) never re-enables anything: nothing it might disable or guard can be known, so no
third-party plugin, shell hook or gateway hook loads, and tool calls (and permission requests) are
blocked with a message naming the file and the fix. The agent can still talk; it cannot act until
the file is fixed. Not in :data:`BUILTINS`: :func:`hermes_hooks.load` registers it only then.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hermes_hooks.catalogue import EventInfo
from hermes_hooks.sources import SourceBase, blocking_impl, builtin_rows

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

NAME = "builtin:lockdown"
log = logging.getLogger("hermes_hooks")


class Lockdown(SourceBase):
    """Blocks every event whose answer type guards an action (see ``guards_actions``)."""

    def __init__(self, hooks: Hooks, problems: list[str]) -> None:
        self.message = (
            f"hermes-hooks is locked down: {'; '.join(problems)}. Until the config is fixed no "
            "plugin or hook is loaded and no tool may run; fix the file, then check it with "
            "`hermes hooks doctor`."
        )
        self._hooks = hooks
        self.events = [i for i in hooks.manager.events.values() if i.answer.guards_actions]
        for info in self.events:
            setattr(self, info.name, self._impl(info))

    def _impl(self, info: EventInfo) -> Callable[..., Any]:
        message = self.message
        return blocking_impl(info, NAME, message)

    def rows(self) -> list[dict[str, Any]]:
        return builtin_rows(NAME, [info.name for info in self.events], None, error=self.message)

    def fail_closed_on(self, event: str) -> bool:
        return True


def engage(hooks: Hooks, problems: list[str]) -> Lockdown:
    """Register the lockdown for ``problems`` (why the config cannot be read)."""
    source = Lockdown(hooks, problems)
    hooks.add_source(source, NAME, path=__file__)
    log.error("%s", source.message)
    return source
