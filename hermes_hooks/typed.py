"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Typed helpers: one method per event on :class:`~hermes_hooks.Hooks`, with the event's real
signature taken from its hookspec.

``hooks.pre_tool_call(tool_name=..., args=..., session_id=...)`` fires ``pre_tool_call``. The
arguments the spec marks ``required`` (and a transform's value) must be passed: a missing one is a
``TypeError`` naming it and the keyword you probably meant. Every other keyword, the spec's and
any other, reaches the hooks unchanged (Hermes passes new ones over time). Type checkers and IDEs
read the signatures from ``typed.pyi``, generated from the specs by ``python -m
hermes_hooks.typedgen`` (a test fails when it is stale); at run time each method carries the same
signature (``inspect.signature``, ``help()``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from . import catalogue
from .catalogue import EventInfo


def signature_of(info: EventInfo) -> inspect.Signature:
    """The helper's signature: ``self``, keyword-only arguments (required ones first), then
    ``**extra``."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    this = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    required = [inspect.Parameter(n, keyword) for n in info.required]
    optional = [
        inspect.Parameter(n, keyword, default=None) for n in info.args if n not in info.required
    ]
    extra = inspect.Parameter("extra", inspect.Parameter.VAR_KEYWORD)
    return inspect.Signature([this, *required, *optional, extra])


def _helper(info: EventInfo) -> Callable[..., Any]:
    name = info.name

    def fire(self: Any, /, **kwargs: Any) -> Any:
        return self._fire(name, kwargs)

    fire.__name__ = name
    fire.__qualname__ = f"TypedHelpers.{name}"
    fire.__doc__ = f"Fire ``{name}`` (see its section in docs/events.md).\n\n{info.summary}"
    fire.__signature__ = signature_of(info)  # type: ignore[attr-defined]  # read by inspect
    return fire


class TypedHelpers:
    """One method per event of the catalogue (see the module's docs)."""

    def _fire(self, event: str, kwargs: dict[str, Any]) -> Any:
        raise NotImplementedError  # Hooks provides it


for _info in catalogue.events().values():
    setattr(TypedHelpers, _info.name, _helper(_info))
