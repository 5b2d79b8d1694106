"""Internal: part of the built-ins (docs/builtins.md), not an API.

The small template language of ``prompt`` hooks: ``{{ EXPR }}`` placeholders over the
payload a command hook would get on stdin, and Claude Code's ``$ARGUMENTS`` (the whole payload
as JSON). Nothing is evaluated: an expression is one of

- a path: ``tool_input.command``, ``payload.extra.result``, ``messages[0]`` (``payload`` is the
  whole payload; its top-level keys are names of their own);
- ``json(EXPR)``: the value as JSON;
- ``truncate(EXPR, N)``: at most ``N`` characters, with ``…`` when cut.

A string value is inserted as it is; anything else as compact JSON; a missing value as nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}", re.S)
_CALL = re.compile(r"^(json|truncate)\s*\((.*)\)$", re.S)
_PATH = re.compile(r"^[A-Za-z_]\w*(?:\.\w+|\[\d+\])*$")
_STEP = re.compile(r"\.(\w+)|\[(\d+)\]")
ARGUMENTS = "$ARGUMENTS"


class TemplateError(ValueError):
    """An expression the template language does not have."""


def check(text: str) -> list[str]:
    """The problems of a template (each names the placeholder), empty when it is well formed."""
    problems = []
    for match in _PLACEHOLDER.finditer(text):
        try:
            _evaluate(match.group(1).strip(), {})
        except TemplateError as exc:
            problems.append(f"{match.group(0)!r}: {exc}")
    return problems


def render(text: str, payload: Mapping[str, Any]) -> str:
    """``text`` with its placeholders filled from ``payload`` (a bad one renders as nothing;
    :func:`check` reports it when the entry is read)."""

    def fill(match: re.Match[str]) -> str:
        try:
            return _text(_evaluate(match.group(1).strip(), payload))
        except TemplateError:
            return ""

    out = _PLACEHOLDER.sub(fill, text)
    if ARGUMENTS in out:
        out = out.replace(ARGUMENTS, json.dumps(payload, ensure_ascii=False, default=str))
    return out


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _evaluate(expr: str, payload: Mapping[str, Any]) -> Any:
    call = _CALL.match(expr)
    if call is None:
        return _lookup(expr, payload)
    name, inner = call.group(1), call.group(2).strip()
    if name == "json":
        return json.dumps(_evaluate(inner, payload), ensure_ascii=False, default=str)
    head, sep, limit = inner.rpartition(",")
    if not sep or not limit.strip().isdigit():
        raise TemplateError("truncate takes an expression and a number: truncate(EXPR, 200)")
    value, size = _text(_evaluate(head.strip(), payload)), int(limit)
    return value if len(value) <= size else value[:size] + "…"


def _lookup(path: str, payload: Mapping[str, Any]) -> Any:
    if not _PATH.match(path):
        raise TemplateError(
            "not a name, a path (tool_input.command, messages[0]), json(...) or truncate(..., N)"
        )
    first = re.match(r"[A-Za-z_]\w*", path)
    assert first is not None
    root = first.group(0)
    value: Any = payload if root == "payload" else payload.get(root)
    for key, index in _STEP.findall(path[first.end() :]):
        if key and isinstance(value, Mapping):
            value = value.get(key)
        elif index and isinstance(value, list) and int(index) < len(value):
            value = value[int(index)]
        else:
            return None
    return value
