"""Internal: part of the built-ins (docs/builtins.md), not an API.

The types of hook entry besides ``command``: what each accepts, how its entry is read, how
it runs (a transport of :class:`~.execution.Runner`) and what ``hermes hooks doctor`` checks.

- ``http`` (:mod:`.remote`): the payload POSTed to an allow-listed URL; the body is the answer.
- ``prompt`` (:mod:`.judge`): an LLM judge over an OpenAI-compatible endpoint.

Consent: both send the payload out, so a URL the entry names must match
``allowed_http_hook_urls``. Neither runs code on this machine, so one from the user's own config
needs no ``hermes hooks approve``; one read from a project's file does (``ShellHook.
needs_approval``): its answer decides approvals, and nobody who runs the agent wrote it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hermes_hooks.catalogue import EventInfo

from . import processes
from .matching import REMOTE_KINDS, ShellHook

# remote and judge (and, through them, http.client, ssl and a thread pool) are imported only
# when an entry of their type is read or run: a config of command hooks does not pay for them.
_COMMON = ("type", "matcher", "timeout", "fail_closed", "priority", "name", "protocol",
           "required", "canary")  # fmt: skip


def keys(kind: str) -> tuple[str, ...]:
    """The keys an entry of ``kind`` (not ``command``) may have."""
    from . import judge, remote

    return (*_COMMON, *{"http": remote.KEYS, "prompt": judge.KEYS}.get(kind, ()))


def read(
    kind: str,
    raw: Mapping[str, Any],
    where: str,
    warn: Callable[[str], None],
    settings: Mapping[str, Any],
    info: EventInfo,
) -> tuple[str, dict[str, Any]] | None:
    """The command label and options of an entry of ``kind`` (``None``: skipped, reported).

    ``options["pinned"]`` holds the entry's own keys of its kind as read (an http hook's url,
    headers and variables; a prompt hook's prompt, model, base_url and key variable): what an
    approval of the hook covers (``ShellHook.binding``), so an edit makes it ``changed``."""
    from . import judge, remote

    module = remote if kind == "http" else judge
    read = (
        remote.read(raw, where, warn, settings)
        if kind == "http"
        else judge.read(raw, where, warn, settings, info)
    )
    if read is not None:
        options = read[1]
        options["pinned"] = {k: options[k] for k in module.KEYS if k in options}
    return read


def default_timeout(kind: str) -> float:
    from . import judge, remote

    return remote.DEFAULT_TIMEOUT if kind == "http" else judge.DEFAULT_TIMEOUT


def fails_closed(kind: str, options: Mapping[str, Any]) -> bool:
    """A judge on an event that decides whether the agent acts denies when it cannot answer."""
    return kind == "prompt" and bool(options.get("decides"))


def short(label: str, limit: int = 60) -> str:
    """A hook's default name: its label on one line, cut."""
    one = " ".join(label.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


Batch = Sequence[tuple[ShellHook, processes.Command]]


def _http(batch: Batch) -> list[processes.Outcome]:
    from . import remote

    return remote.transport(batch)


def _prompt(batch: Batch) -> list[processes.Outcome]:
    from . import judge

    return judge.transport(batch)


def _http_problem(hook: ShellHook) -> str | None:
    from . import remote

    return remote.problem(hook)


def _prompt_problem(hook: ShellHook) -> str | None:
    from . import judge

    return judge.problem(hook)


#: How each type runs: a batch of (hook, prepared command) in, outcomes out.
TRANSPORTS = {"http": _http, "prompt": _prompt}
assert set(TRANSPORTS) == REMOTE_KINDS, "the types that only send data are matching.REMOTE_KINDS"
#: Why a hook of that type cannot run as configured (``None``: it can).
PROBLEMS: dict[str, Callable[[ShellHook], str | None]] = {
    "http": _http_problem,
    "prompt": _prompt_problem,
}
