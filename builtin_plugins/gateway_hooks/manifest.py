"""Internal: part of the built-ins (docs/builtins.md), not an API.

Reading a gateway hook's ``HOOK.yaml``, and the gateway event types its ``events:`` name."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_hooks.hookspecs.gateway import GATEWAY_EVENTS

from hermes_hooks import catalogue

log = logging.getLogger("hermes_hooks")

#: Keys a HOOK.yaml may have.
MANIFEST_KEYS = ("name", "description", "events", "timeout", "fail_closed")

DEFAULT_TIMEOUT = 30.0


# ---------------------------------------------------------------------- matching


def matches(pattern: str, event_type: str) -> bool:
    """``*`` matches everything, ``prefix:*`` every event starting with ``prefix:``, anything
    else only itself."""
    if pattern == "*":
        return True
    if pattern.endswith(":*"):
        return event_type.startswith(pattern[:-1])
    return pattern == event_type


def _families() -> set[str]:
    return {name.split(":", 1)[0] for name in GATEWAY_EVENTS}


def is_known(pattern: str) -> bool:
    """True for the known events, ``command:<any name>``, ``<known family>:*`` and ``*``."""
    if pattern == "*" or pattern in GATEWAY_EVENTS:
        return True
    family, _, rest = pattern.partition(":")
    if not rest:
        return False
    if rest == "*":
        return family in _families()
    return family == "command" and ":" not in rest and rest.strip() == rest


def suggest(pattern: str) -> str | None:
    """The known gateway event (or family wildcard) closest to ``pattern``."""
    return catalogue.suggest(pattern, [*GATEWAY_EVENTS, *(f"{f}:*" for f in sorted(_families()))])


# ---------------------------------------------------------------------- HOOK.yaml


@dataclass
class HookSpec:
    """A HOOK.yaml read and checked; ``error`` is set when the hook cannot load."""

    directory: Path
    name: str
    events: list[str] = field(default_factory=list)
    description: str = ""
    timeout: float = DEFAULT_TIMEOUT
    fail_closed: bool = False
    error: str | None = None


def _manifest_problems(spec: HookSpec, data: Mapping[str, Any], manifest: Path) -> None:
    # read first: a fail_closed hook whose HOOK.yaml has another problem still fails closed
    spec.fail_closed = data.get("fail_closed") is True
    for key in data:
        if key not in MANIFEST_KEYS:
            guess = catalogue.suggest(str(key), MANIFEST_KEYS)
            hint = f" (did you mean {guess!r}?)" if guess else ""
            log.warning("%s: unknown key %r%s; ignored", manifest, key, hint)
    events = data.get("events")
    if isinstance(events, str):
        log.info(
            "%s: events: %r is a string; treated as the one-item list [%s]",
            manifest,
            events,
            events,
        )
        events = [events]
    if not events:
        spec.error = (
            f"{manifest}: no `events:` declared; list the events to handle, "
            "e.g. `events: [agent:start, command:*]`"
        )
        return
    if not isinstance(events, list):
        spec.error = (
            f"{manifest}: `events:` must be a list of event names, not {type(events).__name__}"
        )
        return
    for index, item in enumerate(events):
        if not isinstance(item, str) or not item.strip():
            spec.error = (
                f"{manifest}: events[{index}] must be an event name (a string), not {item!r}"
            )
            return
        pattern = item.strip()
        if not is_known(pattern):
            guess = suggest(pattern)
            hint = f" (did you mean {guess!r}?)" if guess else ""
            log.warning(
                "%s: unknown gateway event %r%s; kept, in case the host fires it",
                manifest,
                pattern,
                hint,
            )
        spec.events.append(pattern)
    timeout = data.get("timeout")
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            log.warning(
                "%s: timeout %r is not a positive number of seconds; using %gs",
                manifest,
                timeout,
                DEFAULT_TIMEOUT,
            )
        else:
            spec.timeout = float(timeout)


def read_spec(directory: Path) -> HookSpec:
    """Read and check ``directory/HOOK.yaml`` (and that ``handler.py`` exists)."""
    from hermes_hooks.config import read_yaml

    spec = HookSpec(directory=directory, name=directory.name)
    manifest = directory / "HOOK.yaml"
    if not manifest.is_file():
        spec.error = (
            f"{directory}: no HOOK.yaml; add one with at least `events: [...]` "
            "(see docs/gateway-hooks.md)"
        )
        return spec
    data, error = read_yaml(manifest)
    if error is not None:
        spec.error = error
        return spec
    if not isinstance(data, dict):
        kind = "empty" if data is None else f"a {type(data).__name__}"
        spec.error = (
            f"{manifest}: must be a mapping with `events:` (and optionally name, description, "
            f"timeout), but it is {kind}"
        )
        return spec
    if data.get("name") is not None and str(data["name"]).strip():
        spec.name = str(data["name"]).strip()
    spec.description = str(data.get("description") or "")
    _manifest_problems(spec, data, manifest)
    if spec.error is None and not (directory / "handler.py").is_file():
        spec.error = f"{directory}: no handler.py; add one defining `handle(event_type, context)`"
    return spec
