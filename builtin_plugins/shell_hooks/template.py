"""Internal: part of the built-ins (docs/builtins.md), not an API.

The small template language of ``prompt`` hooks: ``{{ EXPR }}`` placeholders over the
payload a command hook would get on stdin, and Claude Code's ``$ARGUMENTS`` (the whole payload
as JSON). Nothing is evaluated: an expression is one of

- a path: ``tool_input.command``, ``payload.extra.result``, ``messages[0]`` (``payload`` is the
  whole payload; its top-level keys are names of their own);
- ``json(EXPR)``: the value as JSON;
- ``truncate(EXPR, N)``: at most ``N`` characters, with ``…`` when cut.

A string value is inserted as it is; anything else as compact JSON; a missing value as nothing.
A template with neither a placeholder nor ``$ARGUMENTS`` gets the payload as JSON appended after
a blank line (Claude Code's rule), so a judge never decides on a question without its subject.
:func:`check` reports malformed placeholders and, given the fields the event's payload has, a
name no payload has (``tool_inputt``), with a did-you-mean.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Collection, Mapping
from typing import Any

_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}", re.S)
_CALL = re.compile(r"^(json|truncate)\s*\((.*)\)$", re.S)
_PATH = re.compile(r"^[A-Za-z_]\w*(?:\.\w+|\[\d+\])*$")
_STEP = re.compile(r"\.(\w+)|\[(\d+)\]")
ARGUMENTS = "$ARGUMENTS"


class TemplateError(ValueError):
    """An expression the template language does not have."""


def check(text: str, fields: Collection[str] | None = None) -> list[str]:
    """The problems of a template (each names the placeholder), empty when it is well formed.
    With ``fields`` (the top-level names the event's payload can have), a path whose first
    name is none of them is a problem too (``payload`` is always one)."""
    problems = []
    for match in _PLACEHOLDER.finditer(text):
        expr = match.group(1).strip()
        try:
            _evaluate(expr, {})
        except TemplateError as exc:
            problems.append(f"{match.group(0)!r}: {exc}")
            continue
        if fields is None:
            continue
        known = {"payload", *fields}
        for root in _roots(expr):
            if root not in known:
                close = difflib.get_close_matches(root, sorted(known), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                problems.append(f"{match.group(0)!r}: no field {root!r} in the payload{hint}")
    return problems


def _roots(expr: str) -> list[str]:
    """The first names of the paths in a well-formed expression."""
    call = _CALL.match(expr)
    if call is None:
        first = re.match(r"[A-Za-z_]\w*", expr)
        return [first.group(0)] if first else []
    inner = call.group(2).strip()
    return _roots(inner.rpartition(",")[0].strip() if call.group(1) == "truncate" else inner)


def render(text: str, payload: Mapping[str, Any]) -> str:
    """``text`` with its placeholders filled from ``payload`` (a bad one renders as nothing;
    :func:`check` reports it when the entry is read) and ``$ARGUMENTS`` (in the template's own
    text, never in a filled-in value) replaced by the payload as JSON; with neither, the
    payload as JSON is appended."""
    whole = json.dumps(payload, ensure_ascii=False, default=str)
    if ARGUMENTS not in text and not _PLACEHOLDER.search(text):
        return f"{text.rstrip()}\n\n{whole}"
    out: list[str] = []
    end = 0
    for match in _PLACEHOLDER.finditer(text):
        out.append(text[end : match.start()].replace(ARGUMENTS, whole))
        try:
            out.append(_text(_evaluate(match.group(1).strip(), payload)))
        except TemplateError:
            pass
        end = match.end()
    out.append(text[end:].replace(ARGUMENTS, whole))
    return "".join(out)


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
