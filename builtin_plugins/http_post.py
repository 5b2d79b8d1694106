"""Internal: part of the built-ins (docs/builtins.md), not an API.

A notify-only webhook: ``http_post: {url, events, timeout, headers}`` in config.yaml POSTs
each firing of ``events`` (default ``post_tool_call``) as JSON to ``url``, which must match
``allowed_http_hook_urls``. Its answer is ignored; a failure is logged and never blocks. No
redirect to another host is followed. Reference: ``docs/builtins.md``."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hermes_hooks.builtin_plugins import switches
from hermes_hooks.builtin_plugins.shell_hooks.web import (
    fill_headers,
    post_json,
    refusal,
    variable_names,
    web_url,
)

from hermes_hooks.catalogue import EventInfo
from hermes_hooks.markers import hookimpl
from hermes_hooks.sources import SourceBase, builtin_rows

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

log = logging.getLogger("hermes_hooks")
NAME = "builtin:http_post"
#: The events it posts when none are given.
DEFAULT_EVENTS = ("post_tool_call",)


def _headers(raw: Any, allowed: Any) -> dict[str, str]:
    """Header values with ``$VAR`` filled in, only for variables listed in ``allowed_env_vars``
    (read as the ``http`` hook type reads it)."""
    if not isinstance(raw, dict):
        return {}
    headers, refused = fill_headers(raw, variable_names(allowed) or [], os.environ)
    for name in refused:
        log.warning("http_post: $%s is not in allowed_env_vars; left empty", name)
    return headers


class HttpPost(SourceBase):
    """POSTs the configured events to one URL."""

    def __init__(self, hooks: Hooks, options: dict[str, Any]) -> None:
        self.url = str(options["url"])
        self._hooks = hooks
        self.timeout = float(options.get("timeout", 5))
        self.headers = _headers(options.get("headers"), hooks.config.get("allowed_env_vars"))
        self.events = switches.resolve(hooks, "http_post", options.get("events"), DEFAULT_EVENTS)
        for info in self.events:
            setattr(self, info.name, self._impl(info))

    def _impl(self, info: EventInfo) -> Callable[..., Any]:
        @hookimpl(trylast=True)
        def impl(**kwargs: Any) -> None:
            try:
                post_json(
                    self.url,
                    self._hooks.redact({"event": info.name, **kwargs}),
                    timeout=self.timeout,
                    headers=self.headers,
                )
            except OSError as exc:
                log.warning("http_post to %s on %s failed: %s", self.url, info.name, exc)

        impl.__name__ = impl.__qualname__ = f"http_post.{info.name}"
        return impl

    def rows(self) -> list[dict[str, Any]]:
        return builtin_rows(NAME, [info.name for info in self.events], self.url)


def setup(hooks: Hooks) -> HttpPost | None:
    """Active when config.yaml has ``http_post: {url: ...}`` (or ``{type: builtin, name:
    http_post, args: {url: ...}}`` entries under the events to post) and the URL is allowed."""
    options = switches.value(hooks, "http_post")
    if hooks.safe_mode or not options:
        return None
    if not isinstance(options, dict) or not isinstance(options.get("url"), str):
        log.warning("http_post: expected {url: ..., events: [...]}; off")
        return None
    chosen = switches.events(hooks, "http_post")
    if chosen is not None:  # hooks: entries put it on these events
        options = {**options, "events": chosen}
    if not web_url(options["url"]):
        log.warning("http_post: %s is not an http:// or https:// URL; off", options["url"])
        return None
    refused = refusal(options["url"], hooks.config.get("allowed_http_hook_urls"))
    if refused is not None:
        log.warning(
            "http_post: %s; off (add it, or a pattern such as 'https://hooks.example.com/*', "
            "to allowed_http_hook_urls in config.yaml)",
            refused,
        )
        return None
    return HttpPost(hooks, options)
