"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

The event catalogue, derived from the hookspec modules: names, kinds, arguments, aliases.

Everything that needs to know the events (validation, did-you-mean, the CLI, the docs, synthetic
payloads) asks this module, which reads them off the hookspecs once.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any

from .answers import AnswerType, Observe, Raw
from .contract import AgentEvent, ClaudeEvent, EventMeta


@dataclass(frozen=True)
class EventInfo:
    """One event of the catalogue: its hookspec's whole contract, read off the spec."""

    name: str
    family: str
    args: tuple[str, ...]
    meta: EventMeta
    summary: str
    doc: str

    @property
    def kind(self) -> str:
        return self.meta.answer.kind

    @property
    def answer(self) -> AnswerType:
        return self.meta.answer

    @property
    def aliases(self) -> tuple[str, ...]:
        return self.meta.all_aliases()

    @property
    def claude(self) -> tuple[ClaudeEvent, ...]:
        return self.meta.claude

    @property
    def value(self) -> str | None:
        """The argument a transform pipes through its hooks (``None`` for other kinds)."""
        return self.meta.answer.pipes if self.kind == "transform" else None

    @property
    def can_block(self) -> bool:
        return self.meta.answer.can_block

    @property
    def required(self) -> tuple[str, ...]:
        """The arguments a host must pass: the spec's ``required``, and a transform's value."""
        names = list(self.meta.required)
        if self.value is not None and self.value not in names:
            names.append(self.value)
        return tuple(names)

    @property
    def example(self) -> Mapping[str, Any]:
        return self.meta.example

    @property
    def tool_event(self) -> bool:
        """Whether the event concerns one tool call (it has a ``tool_name`` argument)."""
        return "tool_name" in self.args

    def claude_event(self, kwargs: Mapping[str, Any]) -> ClaudeEvent | None:
        """The Claude Code event these arguments are an occurrence of (the first that applies,
        else the first declared), or ``None`` when Claude Code has no such event."""
        for candidate in self.meta.claude:
            if candidate.applies(kwargs):
                return candidate
        return self.meta.claude[0] if self.meta.claude else None

    def claude_named(self, name: str | None) -> ClaudeEvent | None:
        """The declared Claude Code event called ``name``, if any."""
        return next((c for c in self.meta.claude if c.name == name), None)

    def dialect_events(self, dialect: str) -> tuple[AgentEvent, ...]:
        """The events of another agent's dialect (``gemini``, ``codex``, ...) this one stands for."""
        return self.meta.dialects.get(dialect, ())

    def dialect_event(self, dialect: str, kwargs: Mapping[str, Any]) -> AgentEvent | None:
        """The dialect's event these arguments are an occurrence of (the first that applies),
        or ``None`` when the dialect has none."""
        return next((e for e in self.dialect_events(dialect) if e.applies(kwargs)), None)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "family": self.family,
            "args": list(self.args),
            "aliases": list(self.aliases),
            "claude_code": [c.name for c in self.claude],
            "docker_agent": list(self.meta.docker),
            "dialects": {d: [e.name for e in evs] for d, evs in self.meta.dialects.items()},
            "value": self.value,
            "can_block": self.can_block,
            "answer": self.answer.describe(),
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


def info_of(name: str, fn: Any, family: str, *, firstresult: bool = False) -> EventInfo:
    """The catalogue entry of one hookspec function. A spec without :func:`~hermes_hooks.markers.
    event` (a host's plain pluggy hookspec) is an observe event, or a first event when it is
    ``firstresult``."""
    meta: EventMeta | None = getattr(fn, "hermes_event", None)
    if meta is None:
        meta = EventMeta(answer=Raw() if firstresult else Observe())
    doc = inspect.getdoc(fn) or ""
    return EventInfo(
        name=name,
        family=family,
        args=tuple(inspect.signature(fn).parameters),
        meta=meta,
        summary=doc.split("\n", 1)[0],
        doc=doc,
    )


def _events_of(module: ModuleType) -> Iterable[EventInfo]:
    family = module.__name__.rsplit(".", 1)[-1]
    for name, fn in vars(module).items():
        if getattr(fn, "hermes_event", None) is None or not inspect.isfunction(fn):
            continue
        if name.startswith("_"):
            continue
        yield info_of(name, fn, family)


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
