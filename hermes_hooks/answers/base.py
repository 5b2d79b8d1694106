"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

The answer-type protocol, and the types whose answers are plain values: observers, context
text, and transform pipelines."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from .dialect import context_of, first, mapping, specific
from .explain import Vocabulary, explain
from .results import join_texts


class AnswerType:
    """Base of every answer type; see :mod:`hermes_hooks.answers`."""

    #: The combining kind: observe, decide, context, transform or first.
    kind: ClassVar[str] = "observe"
    #: The typed result a hook may return as is (``None``: plain values).
    result: ClassVar[type | None] = None
    #: The argument an answer rewrites for the hooks after it, if any.
    pipes: str | None = None
    #: The result when no hook answered.
    neutral_value: ClassVar[Any] = None
    #: One line for ``hermes hooks events`` and the docs (the class name when empty).
    summary: ClassVar[str] = ""
    #: What a hook that raises (or a shell hook that fails) does to this event.
    failure: ClassVar[str] = (
        "the hook is skipped and logged; the other hooks still run. ``fail_closed`` cannot "
        "change this event's outcome (it has nothing to block)."
    )
    #: What answers of this type may say (for explaining an ignored one).
    vocabulary: ClassVar[Vocabulary | None] = None
    #: The event decides whether the agent acts (runs a tool): it blocks while the config is
    #: unreadable (see ``builtin_plugins/lockdown.py``).
    guards_actions: ClassVar[bool] = False
    #: The argument whose rewrite the hooks judge again before the decision is final (what will
    #: run must be what they approved); ``None``: answers rewrite nothing that runs.
    rejudges: ClassVar[str | None] = None

    def normalise(self, raw: Any, source: str | None, default_block: str | None = None) -> Any:
        """One hook's answer as this event's typed answer, or ``None`` for no opinion.

        ``default_block`` is the message a block without one gets (shell hooks); without it such
        a block is no opinion, as in Hermes."""
        return None

    def combine(self, answers: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        """The normalised answers of one firing, in call order, as the event's result."""
        return answers[0] if answers else self.neutral(kwargs)

    def final(self, answer: Any) -> bool:
        """On a ``first`` event: whether ``answer`` ends the firing (no later hook could
        outrank it, so the rest are not asked). Every answer, unless the type ranks them."""
        return True

    def neutral(self, kwargs: Mapping[str, Any]) -> Any:
        """The result when no hook answered (:attr:`neutral_value`, an immutable value)."""
        return self.neutral_value

    def blocked(self, message: str, source: str | None) -> Any:
        """The event's form of "blocked because ``message``", or ``None`` if it cannot block."""
        return None

    def failed(self, message: str, source: str | None) -> Any:
        """What a failing ``fail_closed`` hook contributes to the event."""
        return self.blocked(message, source)

    def rewrite_of(self, result: Any, kwargs: Mapping[str, Any]) -> Any:
        """The new value of :attr:`rejudges` a combined ``result`` would run with, when it
        differs from ``kwargs``'; ``None`` otherwise (nothing to judge again)."""
        return None

    def settled(self, result: Any, original: Any, final: Any, earlier: Sequence[Any] = ()) -> Any:
        """The result of the last round, once what runs (``final``) is settled; ``earlier``
        holds the results of the rounds before it (what they said to the model still counts)."""
        return result

    def piped(self, answer: Any) -> Any:
        """The new value of :attr:`pipes` an answer carries, or ``None``."""
        return None

    def explain(self, raw: Any) -> str:
        """Why ``raw`` (which normalised to ``None``) was ignored, with what would have been
        accepted; ``""`` when it is a plain "no opinion" that needs no warning."""
        if self.result is not None and isinstance(raw, self.result):
            return ""
        if self.vocabulary is None:
            return ""
        if isinstance(raw, Mapping) and set(raw) <= self.vocabulary.quiet:
            return ""  # {} or {"continue": true}: a plain "no opinion"
        return explain(raw, self.vocabulary, self.result) or self.incomplete(raw)

    def incomplete(self, raw: Any) -> str:
        """Why a well-formed answer still says nothing (a block without its message, ...)."""
        return ""

    def on_failure(self) -> str:
        """What a hook that raises (or a shell hook that fails) does to this event."""
        return self.failure

    @property
    def can_block(self) -> bool:
        """Whether exit code 2 (and ``fail_closed``) means anything for this event."""
        return self.blocked("", None) is not None

    def describe(self) -> str:
        """One line for ``hermes hooks events`` and the docs."""
        return self.summary or type(self).__name__


class Observe(AnswerType):
    """Observers: every hook runs, return values are ignored (``invoke`` hands them back as
    they are)."""

    kind = "observe"

    def normalise(self, raw: Any, source: str | None, default_block: str | None = None) -> Any:
        return raw

    def combine(self, answers: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        return None


class Raw(AnswerType):
    """A host's own ``firstresult`` hookspec without an answer type: the first non-``None``
    value wins, as pluggy would return it."""

    kind = "first"

    def normalise(self, raw: Any, source: str | None, default_block: str | None = None) -> Any:
        return raw


class Context(AnswerType):
    """Context text: every hook runs; non-empty texts are joined with a blank line.

    ``feedback=True`` (``post_tool_call``): a block is feedback for the model, so exit code 2 and
    a failing ``fail_closed`` hook add their message to it."""

    kind = "context"
    vocabulary = Vocabulary(
        values={
            "context": None,
            "hookSpecificOutput": None,
            "hook_specific_output": None,
            "decision": ("block",),
            "reason": None,
        },
        shape="a string, {'context': str} or hookSpecificOutput.additionalContext",
    )

    def __init__(self, *, feedback: bool = False) -> None:
        self.feedback = feedback

    def normalise(self, raw: Any, source: str | None, default_block: str | None = None) -> Any:
        return context_of(raw, retry=self.feedback)

    def combine(self, answers: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        return join_texts(a for a in answers if isinstance(a, str))

    def blocked(self, message: str, source: str | None) -> Any:
        return (message or "blocked") if self.feedback else None

    def on_failure(self) -> str:
        if self.feedback:
            return (
                "the hook is skipped and logged; with ``fail_closed``, feedback naming the failed "
                "hook is added for the model (the tool already ran)."
            )
        return super().on_failure()


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


class Transform(AnswerType):
    """A pipeline over the argument ``value``: each hook gets the current value and may return a
    replacement (``None`` leaves it unchanged).

    Accepted: a replacement of the right type, ``{<value>: new}``, and for tool output Claude
    Code ``hookSpecificOutput.updatedToolOutput`` / docker-agent ``updated_tool_response`` (sent
    on as compact JSON text when structured). A failing ``fail_closed`` hook withholds the value:
    it is replaced by a notice naming the hook, so what the hook was meant to clean never
    passes on uncleaned.
    """

    kind = "transform"

    def __init__(
        self,
        value: str,
        *,
        accepts: Callable[[Any], bool] = _is_str,
        tool_output: bool = False,
        withheld: Callable[[str], Any] | None = None,
    ) -> None:
        self.pipes = value
        self.accepts = accepts
        self.tool_output = tool_output
        self.withheld = withheld or (lambda notice: notice)

    def normalise(self, raw: Any, source: str | None, default_block: str | None = None) -> Any:
        m = mapping(raw)
        if m is None:
            return raw if self.accepts(raw) else None
        assert self.pipes is not None
        value = m.get(self.pipes)
        if value is None and self.tool_output:
            value = first(
                specific(m), "updatedToolOutput", "updatedMCPToolOutput", "updated_tool_response"
            )
            if isinstance(value, (Mapping, list)):
                value = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
        return value if value is not None and self.accepts(value) else None

    def piped(self, answer: Any) -> Any:
        return answer

    def explain(self, raw: Any) -> str:
        assert self.pipes is not None
        if isinstance(raw, Mapping) and not raw:
            return ""
        shape = f"a replacement value for `{self.pipes}`, or {{{self.pipes!r}: value}}"
        if isinstance(raw, Mapping):
            if self.pipes in raw:
                return f"{self.pipes!r} holds a {type(raw[self.pipes]).__name__}, not {shape}"
            return f"none of its keys ({', '.join(map(repr, raw))}) is read; accepted: {shape}"
        return f"a {type(raw).__name__} ({raw!r:.40}) is not accepted; return {shape}"

    def combine(self, answers: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        return self.neutral(kwargs)

    def neutral(self, kwargs: Mapping[str, Any]) -> Any:
        assert self.pipes is not None
        return kwargs.get(self.pipes)

    def failed(self, message: str, source: str | None) -> Any:
        return self.withheld(f"[withheld by hermes-hooks: {message}]")

    def on_failure(self) -> str:
        return (
            "the hook is skipped and the value passes on unchanged; with ``fail_closed`` the value "
            "is withheld: replaced by a notice naming the failed hook."
        )

    def describe(self) -> str:
        return f"Transform of `{self.pipes}`"
