"""An answer type's readable keys are one table, its :class:`~hermes_hooks.answers.base.Vocabulary`:
``explain`` reads it to say why an answer was ignored, ``normalise`` reads its accepted values,
and these tests check that the keys ``normalise`` reads are exactly the table's, so an answer
that explain calls unread is never read, and one it calls read always is."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hermes_hooks import catalogue
from hermes_hooks.answers import AnswerType


class Recording(dict):  # type: ignore[type-arg]
    """A mapping that remembers every key read from it (itself and the mappings inside)."""

    def __init__(self, data: dict[str, Any], read: set[str], prefix: str = "") -> None:
        super().__init__(
            {
                k: Recording(v, read, f"{prefix}{k}.") if isinstance(v, dict) else v
                for k, v in data.items()
            }  # fmt: skip
        )
        self.read, self.prefix = read, prefix

    def _note(self, key: Any) -> None:
        self.read.add(f"{self.prefix}{key}")

    def get(self, key: Any, default: Any = None) -> Any:
        self._note(key)
        return super().get(key, default)

    def __getitem__(self, key: Any) -> Any:
        self._note(key)
        return super().__getitem__(key)

    def __contains__(self, key: Any) -> bool:
        self._note(key)
        return super().__contains__(key)


def _types() -> dict[str, AnswerType]:
    found: dict[str, AnswerType] = {}
    for info in catalogue.events().values():
        if info.answer.vocabulary is not None:
            found.setdefault(type(info.answer).__name__, info.answer)
    return found


TYPES = _types()


def _nest(flat: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in flat.items():
        *parents, last = key.split(".")
        node = out
        for part in parents:
            node = node.setdefault(part, {}) if isinstance(node.get(part, {}), dict) else {}
        node[last] = value
    return out


def _samples(answer: AnswerType) -> Iterator[dict[str, Any]]:
    """Answers built from the table: every free key with a text, and each key with a choice of
    values set to each of them (alone, and with the free keys)."""
    vocabulary = answer.vocabulary
    assert vocabulary is not None
    free = {k: "some text" for k, accepted in vocabulary.values.items() if accepted is None}
    for key, accepted in vocabulary.values.items():
        for value in accepted or ():
            yield _nest({key: value})
            yield _nest({**{k: v for k, v in free.items() if not key.startswith(k)}, key: value})
    yield _nest(free)
    yield _nest({**free, "continue": False})  # Claude Code's stop, read where the type reads it


def _top(keys: set[str]) -> set[str]:
    return {k.split(".", 1)[0] for k in keys}


@pytest.mark.parametrize("name", sorted(TYPES))
def test_normalise_reads_exactly_the_keys_of_the_table_explain_reads(name):
    answer = TYPES[name]
    assert answer.vocabulary is not None
    read: set[str] = set()
    for sample in _samples(answer):
        answer.normalise(Recording(sample, read), "hook")
    table = _top(set(answer.vocabulary.values))
    quiet = set(answer.vocabulary.quiet)
    assert _top(read) - table - quiet == set(), "read by normalise, not in the table"
    assert table - _top(read) == set(), "in the table, never read by normalise"
