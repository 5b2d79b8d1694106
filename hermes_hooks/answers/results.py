"""Typed results: what the host gets back from an event, and what a hook may return instead of a
dict. Each type checks its fields when it is built, so a malformed answer fails inside the hook
that made it (and is isolated like any hook failure) instead of deep in dispatch.

How raw answers of every dialect become these types, and how they combine, is the business of
the answer types in :mod:`hermes_hooks.answers`, which each hookspec names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Literal

ToolAction = Literal["block", "approve", "allow"]
PromptAction = Literal["block"]
PermissionAction = Literal["allow", "deny"]
Scope = Literal["once", "session", "always"]
VerifyAction = Literal["continue"]
CompressAction = Literal["block"]
DispatchAction = Literal["skip", "rewrite", "allow"]
CommandAction = Literal["deny", "handled", "rewrite"]


class InvalidAnswer(ValueError):
    """A typed answer built with a value its field does not accept."""


def _check(cls: str, name: str, value: Any, allowed: tuple[Any, ...]) -> None:
    if value not in allowed:
        shown = ", ".join(repr(a) for a in allowed)
        raise InvalidAnswer(f"{cls}({name}={value!r}): {name} must be one of {shown}")


def _check_text(cls: str, name: str, value: Any) -> None:
    if value is not None and not isinstance(value, str):
        raise InvalidAnswer(f"{cls}({name}={value!r}): {name} must be a string or None")


_TOOL_ACTIONS = ("block", "approve", "allow", None)


def _check_texts(obj: Any, *names: str) -> None:
    for name in names:
        _check_text(type(obj).__name__, name, getattr(obj, name))


@dataclass(frozen=True)
class ToolDecision:
    """The combined answer of every ``pre_tool_call`` hook.

    ``action`` is ``"block"``, ``"approve"`` (ask a human), ``"allow"`` (skip the host's approval
    prompt) or ``None`` (no opinion). ``message`` says why (for a block: what the model sees as the
    tool result). ``args`` are the arguments after every rewrite, or ``None`` when nobody rewrote
    them. ``rule_key`` is the grain of an "always" approval. ``context`` is extra text for the
    model. ``source`` names the hook that decided.
    """

    action: ToolAction | None = None
    message: str | None = None
    args: dict[str, Any] | None = None
    rule_key: str | None = None
    context: str | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        # On every blocking answer's path: the checks are written out, not looped.
        if self.action not in _TOOL_ACTIONS:
            _check("ToolDecision", "action", self.action, _TOOL_ACTIONS)
        args = self.args
        if args is not None and type(args) is not dict and not isinstance(args, Mapping):
            raise InvalidAnswer(f"ToolDecision(args={args!r}): args must be a mapping or None")
        message, rule_key, context, source = self.message, self.rule_key, self.context, self.source
        if not (
            (message is None or type(message) is str)
            and (rule_key is None or type(rule_key) is str)
            and (context is None or type(context) is str)
            and (source is None or type(source) is str)
        ):
            _check_texts(self, "message", "rule_key", "context", "source")

    @property
    def blocked(self) -> bool:
        return self.action == "block"

    @classmethod
    def _checked(
        cls,
        action: ToolAction | None,
        message: str | None,
        args: dict[str, Any] | None,
        rule_key: str | None,
        context: str | None,
        source: str | None,
    ) -> ToolDecision:
        """Built from values a reader has already checked: the blocking path skips the frozen
        dataclass's per-field ``__setattr__`` and the re-check (a test holds the two equal)."""
        made = object.__new__(cls)
        made.__dict__.update(
            action=action,
            message=message,
            args=args,
            rule_key=rule_key,
            context=context,
            source=source,
        )
        return made


@dataclass(frozen=True)
class PromptDecision:
    """The combined answer of every ``user_prompt_submit`` hook.

    ``action`` is ``"block"`` or ``None``; ``message`` is the block's reason; ``text`` is the prompt
    after every rewrite (``None`` when nobody rewrote it); ``context`` is the joined extra text;
    ``source`` names the hook that blocked, else the first that rewrote the prompt.
    """

    action: PromptAction | None = None
    message: str | None = None
    text: str | None = None
    context: str | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        _check("PromptDecision", "action", self.action, ("block", None))
        _check_texts(self, "message", "text", "context", "source")

    @property
    def blocked(self) -> bool:
        return self.action == "block"


@dataclass(frozen=True)
class PermissionAnswer:
    """A ``permission_request`` hook's answer: ``action`` ``"allow"``/``"deny"``/``None``,
    ``scope`` ``"once"``/``"session"``/``"always"``, ``message``; with an allow, ``args`` are
    the arguments to run the call with instead (Claude Code's ``updatedInput``; ``None``: as
    asked)."""

    action: PermissionAction | None = None
    scope: Scope = "once"
    message: str | None = None
    source: str | None = None
    args: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        _check("PermissionAnswer", "action", self.action, ("allow", "deny", None))
        _check("PermissionAnswer", "scope", self.scope, ("once", "session", "always"))
        _check_texts(self, "message", "source")
        if self.args is not None and not isinstance(self.args, Mapping):
            raise InvalidAnswer(f"PermissionAnswer(args={self.args!r}): args must be a mapping")


@dataclass(frozen=True)
class VerifyAnswer:
    """A ``pre_verify`` hook's answer: ``action`` is ``"continue"`` and ``message`` what to do."""

    action: VerifyAction | None = None
    message: str | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        _check("VerifyAnswer", "action", self.action, ("continue", None))
        _check_texts(self, "message", "source")


@dataclass(frozen=True)
class CompressAnswer:
    """A ``pre_compress`` hook's answer: a veto (``action="block"``), a ``summary`` to use, or
    ``context`` guidance for the summariser."""

    action: CompressAction | None = None
    message: str | None = None
    summary: str | None = None
    context: str | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        _check("CompressAnswer", "action", self.action, ("block", None))
        _check_texts(self, "message", "summary", "context", "source")


@dataclass(frozen=True)
class DispatchAnswer:
    """A ``pre_gateway_dispatch`` hook's answer: ``action`` ``"skip"``/``"rewrite"``/``"allow"``;
    ``text`` is the rewritten message, ``reason`` why it was skipped (or rewritten)."""

    action: DispatchAction | None = None
    text: str | None = None
    reason: str | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        _check("DispatchAnswer", "action", self.action, ("skip", "rewrite", "allow", None))
        _check_texts(self, "text", "reason", "source")


@dataclass(frozen=True)
class CommandDecision:
    """The combined answer for a gateway event (``command:<name>`` hooks may act on the command).

    ``decision`` is ``"deny"``, ``"handled"``, ``"rewrite"`` or ``None``; ``message`` is the reply;
    ``command_name``/``raw_args`` are the rewritten command.
    """

    decision: CommandAction | None = None
    message: str | None = None
    command_name: str | None = None
    raw_args: str | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        _check("CommandDecision", "decision", self.decision, ("deny", "handled", "rewrite", None))
        _check_texts(self, "message", "command_name", "raw_args", "source")


def join_texts(texts: Iterable[str | None]) -> str | None:
    """Non-empty texts joined with a blank line, in order; ``None`` when there are none."""
    parts = [t for t in texts if t]
    return "\n\n".join(parts) if parts else None


#: The fields of a typed result that carry a hook's own words to the host and the model.
_TOLD = ("message", "reason", "context")


def redacted(result: Any, redact: Callable[[Any], Any]) -> Any:
    """``result`` with the words hooks wrote for the model (``message``, ``reason``, ``context``,
    or a context event's joined text) passed through ``redact`` (``redact_secrets``): a hook that
    echoes a secret it was shown does not hand it on. What will run (``args``, a transform's
    value) is left as it is."""
    if isinstance(result, str):
        return redact(result)
    names = [f.name for f in fields(result)] if hasattr(result, "__dataclass_fields__") else ()
    changes = {n: redact(getattr(result, n)) for n in _TOLD if n in names and getattr(result, n)}
    return replace(result, **changes) if changes else result
