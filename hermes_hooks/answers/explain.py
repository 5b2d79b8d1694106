"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

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
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


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
