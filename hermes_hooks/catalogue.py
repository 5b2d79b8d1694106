"""The event catalogue, derived from the hookspec modules: names, kinds, arguments, aliases.

Everything that needs to know the events (validation, did-you-mean, the CLI, the docs, synthetic
payloads) asks this module, which reads them off the hookspecs once.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import ModuleType
from typing import Any

from .markers import EventMeta


@dataclass(frozen=True)
class EventInfo:
    """One event of the catalogue."""

    name: str
    kind: str
    family: str
    args: tuple[str, ...]
    aliases: tuple[str, ...]
    value: str | None
    can_block: bool
    summary: str
    doc: str
    example: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "family": self.family,
            "args": list(self.args),
            "aliases": list(self.aliases),
            "value": self.value,
            "can_block": self.can_block,
            "summary": self.summary,
        }


class UnknownEvent(ValueError):
    """An event name that is neither an event of the catalogue nor one of its aliases."""

    def __init__(self, name: str, suggestion: str | None = None) -> None:
        self.name = name
        self.suggestion = suggestion
        hint = f" (did you mean {suggestion!r}?)" if suggestion else ""
        super().__init__(f"unknown event {name!r}{hint}; `hermes hooks events` lists them")


def spec_modules() -> list[ModuleType]:
    """The hookspec modules, in family order."""
    package = f"{__package__}.hookspecs"
    families: tuple[str, ...] = importlib.import_module(package).FAMILIES
    return [importlib.import_module(f"{package}.{f}") for f in families]


def _events_of(module: ModuleType) -> Iterable[EventInfo]:
    family = module.__name__.rsplit(".", 1)[-1]
    for name, fn in vars(module).items():
        meta: EventMeta | None = getattr(fn, "hermes_event", None)
        if meta is None or not inspect.isfunction(fn) or name.startswith("_"):
            continue
        doc = inspect.getdoc(fn) or ""
        yield EventInfo(
            name=name,
            kind=meta.kind,
            family=family,
            args=tuple(inspect.signature(fn).parameters),
            aliases=meta.aliases,
            value=meta.value,
            can_block=meta.can_block,
            summary=doc.split("\n", 1)[0],
            doc=doc,
            example=meta.example,
        )


@lru_cache(maxsize=1)
def events() -> dict[str, EventInfo]:
    """Every event, by name, in catalogue order."""
    out: dict[str, EventInfo] = {}
    for module in spec_modules():
        for info in _events_of(module):
            out[info.name] = info
    return out


@lru_cache(maxsize=1)
def aliases() -> dict[str, str]:
    """Every alias (Claude Code and docker-agent names), mapped to our event name."""
    return {alias: info.name for info in events().values() for alias in info.aliases}


def get(name: str) -> EventInfo | None:
    """The event called ``name`` (or aliased ``name``), or ``None``."""
    table = events()
    info = table.get(name)
    if info is None:
        target = aliases().get(name)
        info = table.get(target) if target else None
    return info


def suggest(name: str, candidates: Iterable[str] | None = None) -> str | None:
    """The closest known name to ``name`` (ours or an alias, whichever style it is written in)."""
    pool = list(candidates) if candidates is not None else [*events(), *aliases()]
    # Compare within the same style first: a PascalCase typo wants a PascalCase answer.
    if name[:1].isupper():
        styled = [c for c in pool if c[:1].isupper()]
    else:
        styled = [c for c in pool if not c[:1].isupper()]
    for group in (styled, pool):
        match = difflib.get_close_matches(name, group, n=1, cutoff=0.6)
        if match:
            return match[0]
        folded = {c.lower(): c for c in group}
        match = difflib.get_close_matches(name.lower(), list(folded), n=1, cutoff=0.6)
        if match:
            return folded[match[0]]
    return None


def resolve(name: str) -> str:
    """Our name for ``name`` (an event or alias); raise :class:`UnknownEvent` with a suggestion."""
    info = get(name)
    if info is None:
        raise UnknownEvent(name, suggest(name))
    return info.name


def example_payload(name: str) -> dict[str, Any]:
    """A realistic payload for the event, every argument filled (``None`` where unknown)."""
    info = events()[resolve(name)]
    payload: dict[str, Any] = {arg: None for arg in info.args}
    payload.update(info.example)
    return payload
