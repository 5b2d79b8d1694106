"""Internal: part of the built-ins (docs/builtins.md), not an API.

Hooks that run one after another (Gemini CLI's ``sequential: true`` groups, or
``sequential: true`` on a config.yaml entry): when any matching hook of a firing asks for it,
every matching hook of that firing runs in config order, each seeing the tool arguments the
earlier ones rewrote, and a block ends the firing (later hooks do not run)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hermes_hooks.catalogue import EventInfo

from .matching import ShellHook
from .runs import Run

Execute = Callable[[EventInfo, Mapping[str, Any], Sequence[ShellHook]], list[Run]]


def wanted(hooks: Sequence[ShellHook]) -> bool:
    """Whether the hooks of one firing run one after another."""
    return any(h.options.get("sequential") for h in hooks)


def execute(
    run: Execute, info: EventInfo, kwargs: Mapping[str, Any], hooks: Sequence[ShellHook]
) -> list[Run]:
    """Run ``hooks`` one after another with ``run``; the reports in run order."""
    current = dict(kwargs)
    runs: list[Run] = []
    for hook in hooks:
        done = run(info, current, [hook])
        runs.extend(done)
        value = done[0].answer.value if done and done[0].answer else None
        if getattr(value, "action", None) == "block":
            break
        args = getattr(value, "args", None)
        if isinstance(args, Mapping) and isinstance(current.get("args"), Mapping):
            # a new dict: each run keeps the arguments it saw (its receipt shows them)
            current = {**current, "args": {**current["args"], **args}}
    return runs
