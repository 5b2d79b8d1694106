"""Internal: part of the built-ins (docs/builtins.md), not an API.

Secret redaction as configuration: ``redact_secrets: true`` in config.yaml.

Scrubs API keys, tokens, private keys and passwords from the tool arguments the model wrote (a
``pre_tool_call`` rewrite), from the messages sent to the model (``transform_messages``) and from
tool results (``transform_tool_result``). Each match becomes ``[REDACTED:<name>]``. The pattern
set is documented in ``docs/builtins.md`` and extendable (``redact_secrets: {patterns: [{name,
pattern}]}``). It fails closed: if redaction itself fails, the value is withheld (the event's
failed-closed form), never passed on unscrubbed.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hermes_hooks.builtin_plugins import declared, switches

from hermes_hooks.markers import hookimpl
from hermes_hooks.sources import SourceBase, builtin_rows

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

log = logging.getLogger("hermes_hooks")

#: (name, pattern, the group to keep before the secret or 0). Order matters: specific first.
PATTERNS: tuple[tuple[str, str, int], ...] = (
    (
        "private-key",
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----",
        0,
    ),
    ("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}", 0),
    ("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}", 0),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b", 0),
    ("aws-access-key-id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", 0),
    ("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}", 0),
    ("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9_/]+", 0),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}", 0),
    ("url-password", r"(\b[a-z][a-z0-9+.-]*://[^:/\s@]+:)[^@/\s]+(?=@)", 1),
    (
        "authorization",
        r"(?i)(\bauthorization\s*[:=]\s*(?:bearer|basic|token)?\s*)[A-Za-z0-9._~+/=-]{8,}",
        1,
    ),
    ("aws-secret-key", r"(?i)(\baws_secret_access_key\s*[=:]\s*[\"']?)[A-Za-z0-9/+=]{40}", 1),
    (
        "password",
        # a key ending in one of these words (DB_PASSWORD, api_key), then its value
        r"(?i)(\b[\w.-]*(?:password|passwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token)"
        r"[\"']?\s*[=:]\s*[\"']?)[^\s\"',;]{6,}",
        1,
    ),
)


class Redactor:
    """Applies the pattern set to strings, and to every string inside lists and dicts."""

    def __init__(self, extra: list[Any] | None = None) -> None:
        self.patterns = [(n, re.compile(p), keep) for n, p, keep in PATTERNS]
        for item in extra or []:
            try:
                self.patterns.append((str(item["name"]), re.compile(str(item["pattern"])), 0))
            except (KeyError, TypeError, re.error) as exc:
                log.warning(
                    "redact_secrets: pattern %r ignored: %s (need {name, pattern})", item, exc
                )

        # each pattern's replacement made once, not once per string
        self._subs = [(regex, _replacement(name, keep)) for name, regex, keep in self.patterns]

    def text(self, value: str) -> str:
        for regex, replace in self._subs:
            value = regex.sub(replace, value)
        return value

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        return value


def _replacement(name: str, keep: int) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        prefix = match.group(keep) if keep else ""
        return f"{prefix}[REDACTED:{name}]"

    return replace


class RedactSecrets(SourceBase):
    """The ``redact_secrets`` built-in."""

    EVENTS: tuple[str, ...] = declared("redact_secrets").switch.serves or ()

    def __init__(self, options: dict[str, Any]) -> None:
        self.redactor = Redactor(options.get("patterns"))
        #: The events it answers (all of :attr:`EVENTS` unless ``hooks:`` entries chose some).
        self.events: tuple[str, ...] = self.EVENTS

    @hookimpl(trylast=True)
    def pre_tool_call(self, args: Any) -> Any:
        if not isinstance(args, dict):
            return None
        cleaned = self.redactor.value(args)
        return {"action": "modify", "args": cleaned} if cleaned != args else None

    @hookimpl(trylast=True)
    def transform_messages(self, messages: Any) -> Any:
        if not isinstance(messages, list):
            return None
        cleaned = self.redactor.value(messages)
        return cleaned if cleaned != messages else None

    @hookimpl(trylast=True)
    def transform_tool_result(self, result: Any) -> Any:
        if not isinstance(result, str):
            return None
        cleaned = self.redactor.text(result)
        return cleaned if cleaned != result else None

    def fail_closed_on(self, event: str) -> bool:
        return True  # a failure withholds the value instead of letting a secret through

    def rows(self) -> list[dict[str, Any]]:
        matcher = f"{len(self.redactor.patterns)} patterns"
        return builtin_rows("builtin:redact_secrets", self.events, matcher, fail_closed=True)


def setup(hooks: Hooks) -> RedactSecrets | None:
    """Active when config.yaml says ``redact_secrets: true`` (or gives its options)."""
    options = switches.value(hooks, "redact_secrets")
    if hooks.safe_mode or not options:
        return None
    plugin = RedactSecrets(options if isinstance(options, dict) else {})
    # What leaves the process (http and prompt hooks, http_post, traces, error messages) goes
    # through hooks.redact, whatever events the rewrites below are put on.
    hooks.set_redactor(plugin.redactor.value)
    chosen = switches.events(hooks, "redact_secrets")
    if chosen is not None:  # put on some events by hooks: entries: only those
        for event in plugin.EVENTS:
            if event not in chosen:
                setattr(plugin, event, None)
        plugin.events = tuple(e for e in plugin.EVENTS if e in chosen)
    return plugin
