"""Internal: part of the built-ins (docs/builtins.md), not an API.

The ``max_iterations`` built-in: at most N model calls in a session.

Every model call is counted from ``pre_api_request`` (once per call to the provider, retries
included), per session. Hermes' own API has no hook that can refuse a model call before it is
made (``pre_api_request`` is observe-only), so the limit is enforced where the host asks before
doing what would lead to the next model call: once N calls were made, every ``pre_tool_call`` of
the session is blocked (the model reads, as the tool's result, that it must answer now without
tools, so the loop ends at its next answer) and every further ``user_prompt_submit`` of the
session is blocked (no new turn starts). A new session (``/new``) starts from zero.

``max_iterations: 50`` in config.yaml (``"50"`` and ``50.0`` are 50), or
``max_iterations: {limit: 50}``, or a ``{type: builtin,
name: max_iterations, args: [50]}`` entry under any of its events (it needs all of them, so
an entry switches it on whole).
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from hermes_hooks.builtin_plugins import declared, switches

from hermes_hooks.answers.results import PromptDecision, ToolDecision
from hermes_hooks.markers import hookimpl
from hermes_hooks.sources import SourceBase, builtin_rows

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

log = logging.getLogger("hermes_hooks")
NAME = "builtin:max_iterations"
#: Its switch: the events it serves and the one key of ``max_iterations: {limit: N}``.
SWITCH = declared("max_iterations").switch
#: Sessions remembered at once; the oldest is forgotten beyond this (a long-lived gateway).
MAX_SESSIONS = 10_000


class MaxIterations(SourceBase):
    """Counts model calls per session; refuses tool calls and new prompts past the limit."""

    EVENTS: tuple[str, ...] = SWITCH.serves or ()

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.calls: dict[str, int] = {}
        self._lock = threading.Lock()

    def _message(self, session_id: str) -> str:
        return (
            f"This session reached its limit of {self.limit} model calls (max_iterations). "
            "Do not call any more tools; give the user your answer now."
        )

    def reached(self, session_id: str | None) -> bool:
        """Whether ``session_id`` made its ``limit`` model calls."""
        return self.calls.get(session_id or "", 0) >= self.limit

    @hookimpl(trylast=True)
    def pre_api_request(self, session_id: str | None) -> None:
        key = session_id or ""
        with self._lock:
            count = self.calls.pop(key, 0) + 1
            self.calls[key] = count  # re-inserted: the dict's order is least recently used
            if len(self.calls) > MAX_SESSIONS:
                del self.calls[next(iter(self.calls))]
        if count == self.limit + 1:
            log.warning(
                "max_iterations: session %r made a model call past its limit of %d (the host "
                "made it although the built-in refused every tool call since)",
                key,
                self.limit,
            )

    @hookimpl(tryfirst=True)
    def pre_tool_call(self, session_id: str | None) -> ToolDecision | None:
        if not self.reached(session_id):
            return None
        return ToolDecision("block", self._message(session_id or ""), source=NAME)

    @hookimpl(tryfirst=True)
    def user_prompt_submit(self, session_id: str | None) -> PromptDecision | None:
        if not self.reached(session_id):
            return None
        message = (
            f"This session reached its limit of {self.limit} model calls (max_iterations); "
            "start a new session (/new) to go on."
        )
        return PromptDecision("block", message, source=NAME)

    @hookimpl(trylast=True)
    def on_session_reset(self, old_session_id: str | None, new_session_id: str | None) -> None:
        with self._lock:
            self.calls.pop(old_session_id or "", None)
            self.calls.pop(new_session_id or "", None)

    def rows(self) -> list[dict[str, Any]]:
        return builtin_rows(NAME, self.EVENTS, f"{self.limit} model calls per session")


def limit_of(value: Any) -> int | str:
    """The limit ``max_iterations:`` gives, or why the value is not one. A whole number
    written as text (``"50"``) or with a point (``50.0``) is that number: the user clearly
    meant it, and refusing it would turn the limit off."""
    if isinstance(value, dict):
        unknown = sorted(set(map(str, value)) - set(SWITCH.keys))
        if unknown:
            return f"unknown key(s) {', '.join(unknown)} (the one key is {SWITCH.main_arg!r})"
        value = value.get(SWITCH.main_arg)
    number: Any = value
    if isinstance(value, str) and value.strip().isdigit():
        number = int(value.strip())
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        return f"{value!r} is not a positive whole number of model calls"
    return number


def setup(hooks: Hooks) -> MaxIterations | None:
    """Active when config.yaml gives ``max_iterations: N`` (or ``{limit: N}``)."""
    value = hooks.config.get("max_iterations")
    if value is None or value is False:  # not at the top level: maybe a `type: builtin` entry
        value = switches.value(hooks, "max_iterations")
    if hooks.safe_mode or value is None or value is False:
        return None
    limit = limit_of(value)
    if isinstance(limit, str):
        origin = hooks.config_path or "the host's config"
        message = (
            f"max_iterations in {origin}: {limit}; the built-in is off (write max_iterations: 50)"
        )
        log.warning("%s", message)
        hooks.config_warnings.append(message)  # `hermes hooks doctor` fails on it
        return None
    return MaxIterations(limit)
