"""Internal: part of the built-ins (docs/builtins.md), not an API.

Which built-ins the config switches on, with what arguments and on which events.

Two ways, one meaning:

- ``NAME: true`` (or its arguments) at the top level of config.yaml: the built-in on every
  event it serves;
- ``{type: builtin, name: NAME, args: [...] | {...}}`` under an event of ``hooks:``: the built-in
  on that event. ``args`` is the value the top-level key would have: a mapping is its
  arguments; a list fills the built-in's main argument (:data:`POSITIONAL`: ``[5]`` for
  ``add_recent_commits`` is ``{count: 5}``), or is the bare value when it has none
  (``max_iterations: [50]`` is ``max_iterations: 50``); no args is ``true``.

Collected once per config and read by each built-in's ``setup`` through :func:`value` and
:func:`events`, so a built-in has one reading of its settings whichever way it was switched on.
An unknown name gets a did-you-mean, an event the built-in does not serve a warning naming the
events it serves; both name the file and the entry.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hermes_hooks.builtin_plugins import SWITCHES

if TYPE_CHECKING:
    from hermes_hooks.catalogue import EventInfo
    from hermes_hooks.hooks import Hooks

log = logging.getLogger("hermes_hooks")

#: Every built-in switch a config can turn on, and the events it serves (``None``: any event it is
#: told to, like ``http_post``); read off the declarations in :mod:`hermes_hooks.builtin_plugins`.
SERVES: dict[str, tuple[str, ...] | None] = {name: s.serves for name, s in SWITCHES.items()}
#: The argument a list of ``args`` fills (a list-valued one takes the whole list).
POSITIONAL: dict[str, str] = {name: s.main_arg for name, s in SWITCHES.items() if s.main_arg}
_LISTS = frozenset(name for name, s in SWITCHES.items() if s.list_arg)
ENTRY_KEYS = ("type", "name", "args")


@dataclass
class Switch:
    """One built-in switched on: its value (as the top-level key would have it) and the events
    its ``hooks:`` entries put it on (``None``: switched on at the top level, every event)."""

    value: Any
    events: list[str] | None = None
    where: list[str] = field(default_factory=list)


_CACHE: weakref.WeakKeyDictionary[Any, tuple[int, dict[str, Switch]]] = weakref.WeakKeyDictionary()


def switches(hooks: Hooks) -> dict[str, Switch]:
    """Every built-in the config of ``hooks`` switches on (collected, and reported, once)."""
    cached = _CACHE.get(hooks)
    if cached is not None and cached[0] == id(hooks.config):
        return cached[1]
    found = _collect(hooks)
    _CACHE[hooks] = (id(hooks.config), found)
    return found


def value(hooks: Hooks, name: str) -> Any:
    """What switches ``name`` on (the top-level value, or its entries' args), or ``None``."""
    switch = switches(hooks).get(name)
    return switch.value if switch is not None else None


def events(hooks: Hooks, name: str) -> list[str] | None:
    """The events ``name`` is put on by ``hooks:`` entries; ``None``: all it serves."""
    switch = switches(hooks).get(name)
    return switch.events if switch is not None else None


def resolve(hooks: Hooks, name: str, given: Any, default: Sequence[str]) -> list[EventInfo]:
    """The events a built-in's ``events`` argument names (a list, or one name; none given:
    ``default``), as the catalogue has them; an unknown one is reported and left out."""
    found: list[EventInfo] = []
    for event in (given if isinstance(given, list) else [given]) if given else default:
        info = hooks.manager.find_event(str(event))
        if info is None:
            log.warning("%s: unknown event %r in config.yaml %s.events; ignored (default: %s; "
                        "`hermes hooks events` lists them)", name, event, name, ", ".join(default))  # fmt: skip
            continue
        found.append(info)
    return found


def _collect(hooks: Hooks) -> dict[str, Switch]:
    config = hooks.config
    found = {name: Switch(config[name]) for name in SERVES if config.get(name)}
    block = config.get("hooks")
    if not isinstance(block, Mapping):
        return found
    origin = str(hooks.config_path) if hooks.config_path else "the host's config"
    for event_name, entries in block.items():
        if not isinstance(entries, list):
            continue
        for index, entry in enumerate(entries):
            if isinstance(entry, Mapping) and entry.get("type") == "builtin":
                where = f"hooks.{event_name}[{index}] in {origin}"
                _entry(hooks, found, str(event_name), entry, where)
    return found


def _warn(hooks: Hooks, message: str) -> None:
    log.warning("%s", message)
    hooks.config_warnings.append(message)


def _entry(
    hooks: Hooks, found: dict[str, Switch], event_name: str, entry: Mapping[str, Any], where: str
) -> None:
    from hermes_hooks import catalogue

    for key in entry:
        if key not in ENTRY_KEYS:
            guess = catalogue.suggest(str(key), ENTRY_KEYS)
            hint = f" (did you mean {guess!r}?)" if guess else ""
            _warn(hooks, f"{where}: unknown key {key!r} for a builtin hook{hint}; ignored")
    name = entry.get("name")
    if not isinstance(name, str) or name not in SERVES:
        guess = catalogue.suggest(str(name), SERVES) if isinstance(name, str) else None
        hint = f" (did you mean {guess!r}?)" if guess else ""
        _warn(hooks, f"{where}: unknown built-in {name!r}{hint}; skipped (built-ins: "
                     f"{', '.join(SERVES)})")  # fmt: skip
        return
    info = hooks.manager.find_event(event_name)
    if info is None:
        return  # the shell-hook reader reports the unknown event
    serves = SERVES[name]
    if serves is not None and info.name not in serves:
        _warn(hooks, f"{where}: built-in {name!r} does not serve {info.name}; it serves "
                     f"{', '.join(serves)}; skipped")  # fmt: skip
        return
    args = _args(name, entry.get("args"), where, hooks)
    switch = found.get(name)
    if switch is not None and switch.events is None:
        _warn(hooks, f"{where}: {name} is also switched on at the top level of the config, on "
                     "every event it serves, with those arguments; this entry adds nothing")  # fmt: skip
        return
    if switch is None:
        switch = found[name] = Switch(args, [])
    elif args != switch.value:
        _warn(hooks, f"{where}: {name} has other args in {switch.where[0]}; one built-in has one "
                     "set of arguments: the first entry's are used")  # fmt: skip
    assert switch.events is not None
    if info.name not in switch.events:
        switch.events.append(info.name)
    switch.where.append(where)


def _args(name: str, raw: Any, where: str, hooks: Hooks) -> Any:
    if raw is None:
        return True
    if isinstance(raw, Mapping):
        return dict(raw)
    if not isinstance(raw, list):
        _warn(hooks, f"{where}: args must be a list or a mapping, not {type(raw).__name__}; "
                     "using none")  # fmt: skip
        return True
    param = POSITIONAL.get(name)
    if param is None:
        if len(raw) != 1:
            _warn(hooks, f"{where}: {name} takes one value in args (or a mapping); using none")
            return True
        return raw[0]
    if name in _LISTS:
        return {param: list(raw)}
    if len(raw) != 1:
        _warn(hooks, f"{where}: {name} takes one value in args ({param}) or a mapping; "
                     f"using {raw[0]!r}" if raw else "using none")  # fmt: skip
        if not raw:
            return True
    return {param: raw[0]}
