"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

The answer-type protocol, what every type shares, and the types whose answers are plain values:
observers, context text, and transform pipelines.

Small readers shared by the answer types: the shapes every dialect uses for text and for
Claude Code's ``hookSpecificOutput`` / docker-agent's ``hook_specific_output``.

Why an answer was ignored, and what would have been accepted.

Each answer type declares its vocabulary (:class:`Vocabulary`): the keys it reads, the values a
key accepts, common synonyms (``deny`` for ``block``), and the keys that are a legitimate "no
opinion" (Claude Code's ``{"continue": true}``). It is the one table of the type's readable keys:
its accepted values are the constants the type's ``normalise`` compares with, and
``tests/test_answer_vocabulary.py`` checks that ``normalise`` reads exactly its keys. :func:`explain` turns an answer that normalised to
nothing into one sentence for the warning the dispatcher logs; an empty string means the answer
was a plain "no opinion" and nothing needs saying.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .results import join_texts


def text(value: Any) -> str | None:
    """A non-empty, stripped string, or ``None``."""
    if isinstance(value, str):
        value = value.strip()
        return value or None
    return None


def mapping(value: Any) -> Mapping[str, Any] | None:
    if type(value) is dict:  # the common case, without the ABC check's cost
        return value
    return value if isinstance(value, Mapping) else None


_EMPTY: Mapping[str, Any] = {}


def specific(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    """Claude Code ``hookSpecificOutput`` or docker-agent ``hook_specific_output``, else ``{}``."""
    if "hookSpecificOutput" not in raw and "hook_specific_output" not in raw:
        return _EMPTY
    return (
        mapping(raw.get("hookSpecificOutput")) or mapping(raw.get("hook_specific_output")) or _EMPTY
    )


def first(values: Mapping[str, Any], *keys: str) -> Any:
    """The first of ``keys`` present with a non-``None`` value."""
    for key in keys:
        if key in values and values[key] is not None:
            return values[key]
    return None


def says_block(m: Mapping[str, Any]) -> bool:
    """Claude Code's ``"decision": "block"``, however it is cased or padded."""
    decision = m.get("decision")
    return isinstance(decision, str) and decision.strip().lower() == "block"


def stop_or_block(
    m: Mapping[str, Any], action: str | None, message: str | None, default_block: str | None
) -> tuple[str | None, str | None]:
    """The last two rules of a decision, shared by tool calls and prompts: Claude Code's
    ``"continue": false`` blocks (with ``stopReason``) when nothing else decided, and a block
    needs a message: ``default_block`` (a shell hook's exit 2) or else it is no block at all."""
    if m.get("continue") is False and action is None:
        action, message = "block", text(m.get("stopReason")) or text(m.get("reason"))
    if action == "block" and message is None:
        if default_block is None:
            return None, None
        message = default_block
    return action, message


#: What the model is told when a PermissionDenied hook answers ``retry: true``.
RETRY = "The denied tool call may be retried."


def context_of(raw: Any, *, reasons: bool = True, retry: bool = True) -> str | None:
    """The context text in a hook's answer: a string, ``{"context"}``, Claude Code's
    ``additionalContext``; with ``reasons``, a ``decision: block`` reason (PostToolUse feedback:
    off where a block decides instead); with ``retry``, :data:`RETRY` for Claude Code's
    ``hookSpecificOutput.retry: true`` (PermissionDenied: only where a denied call is reported)."""
    if isinstance(raw, str):
        return text(raw)
    m = mapping(raw)
    if m is None:
        return None
    spec = specific(m)
    texts = [text(m.get("context")), text(first(spec, "additionalContext", "additional_context"))]
    if reasons and says_block(m):
        texts.append(text(m.get("reason")))
    if retry and spec.get("retry") is True:  # Claude Code PermissionDenied: the model may try again
        texts.append(RETRY)
    return join_texts(dict.fromkeys(t for t in texts if t))


def retag(answer: Any, source: str | None) -> Any:
    """A typed answer with ``source`` filled in when it had none."""
    from dataclasses import replace

    if answer.source or not source:
        return answer
    return replace(answer, source=source)


@dataclass(frozen=True)
class Vocabulary:
    """What an answer type reads.

    ``values`` maps a key (``"action"``, or a nested ``"hookSpecificOutput.permissionDecision"``)
    to the values it accepts (``None``: any value). ``synonyms`` maps words hooks often write to
    the accepted one. ``quiet`` are keys that carry no opinion on their own. ``shape`` describes an
    accepted answer for the message.
    """

    values: Mapping[str, tuple[str, ...] | None]
    shape: str
    synonyms: Mapping[str, str] = field(default_factory=dict)
    quiet: frozenset[str] = frozenset(
        {"continue", "suppressOutput", "suppress_output", "systemMessage", "system_message"}
    )


def _nested(raw: Mapping[str, Any], key: str) -> Any:
    node: Any = raw
    for part in key.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _guess(word: str, accepted: tuple[str, ...], synonyms: Mapping[str, str]) -> str | None:
    folded = word.strip().lower()
    if folded in accepted:
        return folded
    if folded in synonyms and synonyms[folded] in accepted:
        return synonyms[folded]
    close = difflib.get_close_matches(folded, accepted, n=1, cutoff=0.6)
    return close[0] if close else None


def explain(raw: Any, vocabulary: Vocabulary, typed: type | None = None) -> str:
    """Why ``raw`` says nothing this event can use; ``""`` when it is a plain "no opinion"."""
    if not isinstance(raw, Mapping):
        kinds = "a dict" + (f" or a {typed.__name__}" if typed is not None else "")
        return f"a {type(raw).__name__} is not an answer here; return {kinds}: {vocabulary.shape}"
    if not raw:
        return ""
    problems = []
    for key, accepted in vocabulary.values.items():
        value = _nested(raw, key)
        if value is None or accepted is None:
            continue
        if not isinstance(value, str) or value not in accepted:
            shown = ", ".join(repr(a) for a in accepted)
            guess = _guess(value, accepted, vocabulary.synonyms) if isinstance(value, str) else None
            hint = f" (did you mean {guess!r}?)" if guess else ""
            problems.append(f"{key} {value!r} is not one of {shown}{hint}")
    if problems:
        return "; ".join(problems)
    known = {key.split(".", 1)[0] for key in vocabulary.values}
    if not set(raw) & known:
        if set(raw) <= vocabulary.quiet:
            return ""
        keys = ", ".join(repr(k) for k in raw)
        return f"none of its keys ({keys}) is read for this event; accepted: {vocabulary.shape}"
    return ""


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
