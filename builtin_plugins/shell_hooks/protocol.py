"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

The shell-hook wire protocol: the JSON a hook reads on stdin, and what its answer means.

Two protocols. ``hermes`` (the default for ``config.yaml`` entries) sends exactly
``hook_event_name``, ``tool_name``, ``tool_input``, ``session_id``, ``cwd`` and ``extra``.
``claude-code`` (every ``settings.json`` hook) sends what Claude Code sends: PascalCase event
names, Claude Code's tool and argument names (mapped by
:data:`hermes_hooks.contract.TOOLS`), ``tool_use_id``,
``tool_response``, ``prompt``, ... Both are one line of compact JSON ending in ``\n``.

Answers from every dialect are turned into the event's typed result by
:mod:`hermes_hooks.answers.results`; this module only decides *which* raw answer a process gave (exit
code, stdout, stderr) and never raises on any bytes.

The cap on what one Claude Code hook adds to the model's context, as Claude Code applies it:
text over :data:`CONTEXT_CAP` characters (plain stdout that becomes context,
``additionalContext``, ``systemMessage``) is saved whole to a file under the home, and the model
gets the beginning of it and a line saying how long it was and where the file is.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks.catalogue import EventInfo
from hermes_hooks.contract import FROM_CLAUDE as FROM_CLAUDE
from hermes_hooks.contract import (
    OMIT,
    args_from_claude,
    args_to_claude,
    claude_tool_name,
    session_of,
)
from hermes_hooks.contract import TOOLS as TOOLS
from hermes_hooks.contract import ToolName as ToolName
from hermes_hooks.contract import host_tool_name as host_tool_name
from hermes_hooks.contract import map_tool as map_tool

from .dialects.base import Note, Speech, reads_answer

# Claude Code's tool names are part of the event contract (:mod:`hermes_hooks.contract`); these
# names stay importable from here for hosts that extended the map through this module.

if TYPE_CHECKING:
    from .dialects.base import Translate

HERMES = "hermes"
CLAUDE = "claude-code"
PROTOCOLS = (HERMES, CLAUDE)


# ---------------------------------------------------------------------- payloads


def jsonable(value: Any, _depth: int = 0) -> Any:
    """``value`` as plain JSON data; anything JSON cannot hold becomes a string."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if _depth > 64:
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v, _depth + 1) for v in value]
    try:
        return str(value)
    except Exception:
        return repr(value)


def encode(payload: Mapping[str, Any]) -> bytes:
    """One line of compact JSON ending in ``\\n`` (UTF-8; lone surrogates are escaped)."""
    data = jsonable(payload)
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return json.dumps(data, separators=(",", ":")).encode("ascii") + b"\n"


_HERMES_TOP = ("tool_name", "args", "session_id")


#: The keys of every Hermes payload (:func:`hermes_payload`), and the fields every Claude Code
#: payload starts with (:func:`claude_payload`); the readers of hand-written payloads use both.
HERMES_WIRE_KEYS = ("hook_event_name", "tool_name", "tool_input", "session_id", "cwd", "extra")
CLAUDE_COMMON_KEYS = ("session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name")
#: The fields any Claude Code payload carries when the host passes their argument (field ->
#: argument): the user prompt the event belongs to (Hermes' turn) and the reasoning effort.
CLAUDE_OPTIONAL_KEYS = {"prompt_id": "turn_id", "effort": "effort"}


def hermes_payload(event: str, kwargs: Mapping[str, Any], cwd: str) -> dict[str, Any]:
    """The Hermes payload: exactly the six keys Hermes Agent sends."""
    session = kwargs.get("session_id")
    extra = {k: v for k, v in kwargs.items() if k not in _HERMES_TOP}
    if not session:
        # Hermes sends parent_session_id as the session when there is no session_id; it then
        # is not repeated in extra. With a session_id it stays in extra.
        session = kwargs.get("parent_session_id")
        if session:
            extra.pop("parent_session_id", None)
    args = kwargs.get("args")
    return {
        "hook_event_name": event,
        "tool_name": kwargs.get("tool_name"),
        "tool_input": args if isinstance(args, Mapping) else None,
        "session_id": session or "",
        "cwd": cwd,
        "extra": extra,
    }


def claude_payload(info: EventInfo, kwargs: Mapping[str, Any], cwd: str) -> dict[str, Any]:
    """The Claude Code payload for ``info``'s event: the common fields, the tool fields for a
    tool event, and the fields the hookspec declares for the Claude Code event (an event Claude
    Code does not have sends its arguments under their own names)."""
    chosen = info.claude_event(kwargs)
    get = kwargs.get
    out: dict[str, Any] = {
        "session_id": session_of(kwargs),
        "transcript_path": get("transcript_path") or "",
        "cwd": cwd,
        "permission_mode": get("permission_mode") or "default",
        "hook_event_name": chosen.name if chosen is not None else info.name,
    }
    for key, name in CLAUDE_OPTIONAL_KEYS.items():
        if get(name):
            out[key] = get(name)
    if (chosen is None or chosen.tool) and info.tool_event:
        tool = get("tool_name")
        out["tool_name"] = claude_tool_name(tool)
        out["tool_input"] = args_to_claude(tool, get("args") if get("args") is not None else {})
    if chosen is None:
        for key, value in kwargs.items():
            out.setdefault(key, value)
        return out
    for key, read in chosen.fields.items():
        value = read(kwargs)
        if value is not OMIT:
            out[key] = value
    return out


# ---------------------------------------------------------------------- answers


@dataclass(frozen=True)
class Answer:
    """What one hook run means for its event.

    ``value`` is the normalised answer of the event's type (a :class:`~hermes_hooks.ToolDecision`,
    :class:`~hermes_hooks.PromptDecision`, a context string, a first-result answer, a transform
    replacement) or ``None`` for no opinion. ``failure`` says why the run failed (it is not an
    opinion; ``fail_closed`` turned it into ``value`` when set). ``warning`` is something the
    user should see (unparseable output, a ``systemMessage``). ``raw`` is the parsed JSON, if any.
    ``dropped`` says why an answer was ignored (the answer type's explanation, with what would have
    been accepted), as for a Python hook; ``defaulted`` says why the hook's block got the default
    message (a block without a message still blocks, DESIGN 3.1, and is reported).
    """

    value: Any = None
    failure: str | None = None
    warning: str | None = None
    raw: Any = None
    unparseable: bool = False
    dropped: str | None = None
    defaulted: str | None = None


def decode(data: bytes) -> str:
    """Bytes from a hook as text: UTF-8, invalid sequences replaced."""
    return data.decode("utf-8", "replace")


def parse(
    info: EventInfo,
    protocol: str,
    returncode: int | None,
    stdout: bytes,
    stderr: bytes,
    *,
    source: str,
    fail_closed: bool = False,
    failure: str | None = None,
    tool_name: str | None = None,
    translate: Translate | None = None,
    cap: Callable[[str], str] | None = None,
) -> Answer:
    """Turn one hook run into an :class:`Answer`. Never raises, whatever the bytes.

    ``failure`` is set by the caller when the run itself failed (spawn error, timeout, output
    over the cap); ``tool_name`` maps a Claude Code ``updatedInput`` back; ``translate`` reads
    another agent's answer (:mod:`.dialects`); ``cap`` shortens the context texts
    (plain stdout, ``additionalContext``, ``systemMessage``) as Claude Code does."""
    try:
        answer = _parse(
            info, protocol, returncode, stdout, stderr, source, failure, tool_name, translate, cap
        )
    except Exception as exc:  # a bug here must not take the agent down
        answer = Answer(failure=f"cannot read the answer: {type(exc).__name__}: {exc}")
    # An answer the event cannot read (dropped) is an unknown answer, not "no opinion".
    dropped = answer.dropped if answer.value is None else None
    if (answer.failure or answer.unparseable or dropped) and fail_closed:
        why = answer.failure or answer.warning or f"its answer was ignored: {dropped}"
        message = f"shell hook {source} failed ({why}) and is fail_closed"
        return replace(answer, value=info.answer.failed(message, source))
    return answer


def _parse(
    info: EventInfo,
    protocol: str,
    returncode: int | None,
    stdout: bytes,
    stderr: bytes,
    source: str,
    failure: str | None,
    tool_name: str | None,
    translate: Translate | None = None,
    cap: Callable[[str], str] | None = None,
) -> Answer:
    if failure:
        return Answer(failure=failure)
    err = decode(stderr).strip()
    out = decode(stdout).strip()
    if returncode == 2 and info.can_block:
        message = err or f"blocked by shell hook {source} (exit 2)"
        blocked = info.answer.blocked(message, source)
        raw = _json_object(out) if protocol == CLAUDE else None
        if raw is not None:
            # Claude Code (2.1.330) reads stdout JSON on exit 2 too: a block there gives the
            # message (its reason, not stderr), context is kept; an allow or ask is outranked
            # where answers rank (a tool call), and decides where the first answer does (a
            # PermissionRequest allow on exit 2 runs the call in Claude Code)
            raw, value, _, _ = _read(info, protocol, raw, source, tool_name, cap)
            if value is not None and _claude_blocks(raw):
                return Answer(value=value, raw=raw)
            if value is not None and info.kind == "first":
                return Answer(value=value, raw=raw)  # the first answer decides: stdout's
            if value is not None:
                return Answer(value=info.answer.combine([value, blocked], {}), raw=raw)
        return Answer(value=blocked)
    if returncode != 0:
        why = f"exit code {returncode}" if returncode is not None else "exit status lost"
        if err:
            why += f": {err[:200]}"
        if protocol in (HERMES, CLAUDE) and out:
            # Hermes honours a JSON answer whatever the exit code, and so does Claude Code
            # (2.1.330: a deny, allow or context printed before exit 1, 3 or 127 is read); so do
            # we. A Claude Code hook's run still failed: fail_closed / onFailure block.
            raw = _json_object(out)
            if raw is not None:
                raw, value, _, defaulted = _read(info, protocol, raw, source, tool_name, cap)
                if value is not None:
                    failed = why if protocol == CLAUDE else None
                    return Answer(value=value, raw=raw, warning=why, defaulted=defaulted,
                                  failure=failed)  # fmt: skip
        return Answer(failure=why)
    if not out:
        return Answer()
    raw = _json_object(out)
    brace = raw is None and protocol == CLAUDE and out.startswith("{")
    if brace and not info.meta.plain_text_context:
        # JSON that does not parse: the run failed (onFailure: block / fail_closed then blocks).
        return Answer(failure=f"stdout starts with '{{' but is not a JSON object: {_json_error(out)}",
                      raw=out)  # fmt: skip
    if raw is None:
        if info.meta.plain_text_context and (translate is None or translate.plain_text):
            out = cap(out) if cap is not None else out
            # Claude Code passes broken JSON on a context event to the model as text (the
            # oracle shows it): so do we, and say so.
            bad = (f"stdout starts with '{{' but is not a JSON object ({_json_error(out)}); it "
                   "was read as plain text, as Claude Code does: fix the JSON") if brace else None  # fmt: skip
            return Answer(value=info.answer.normalise(out, source), raw=out, warning=bad)
        return Answer(
            warning=f"stdout is not a JSON object, ignored: {out[:120]!r}",
            raw=out,
            unparseable=True,
        )
    notes: list[str] = []
    if translate is not None:
        read, notes = translate(raw)
        if not isinstance(read, dict):
            return Answer(raw=raw, dropped="; ".join(notes) or None)
        raw = read
    raw, value, dropped, defaulted = _read(info, protocol, raw, source, tool_name, cap)
    warning = "; ".join(notes) or None
    system = raw.get("systemMessage") or raw.get("system_message")
    if isinstance(system, str) and system.strip():
        warning = "; ".join(filter(None, [system.strip(), warning]))
    return Answer(
        value=value, raw=raw, warning=warning, dropped=dropped or None, defaulted=defaulted
    )


def _read(
    info: EventInfo,
    protocol: str,
    raw: dict[str, Any],
    source: str,
    tool_name: str | None,
    cap: Callable[[str], str] | None,
) -> tuple[dict[str, Any], Any, str, str | None]:
    """A JSON answer, its context texts capped (``cap``: Claude Code's hooks), read with the
    event's answer type: ``(raw as capped, value, why it was dropped, why it defaulted)``."""
    if cap is not None:
        raw = _capped(raw, cap)
    value, dropped, defaulted = _value(info, protocol, raw, source, tool_name)
    return raw, value, dropped, defaulted


def _claude_blocks(raw: Mapping[str, Any]) -> bool:
    """Whether a Claude Code answer blocks on its own (``decision: block``, a ``deny``)."""
    spec = raw.get("hookSpecificOutput")
    decision = spec.get("permissionDecision") if isinstance(spec, Mapping) else None
    return raw.get("decision") == "block" or decision == "deny"


def _json_object(text: str) -> dict[str, Any] | None:
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _json_error(text: str) -> str:
    """Why ``text`` is not a JSON object (the parser's message, or the type it holds)."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        return str(exc)
    return f"it is JSON, but a {type(value).__name__}"


def _capped(raw: dict[str, Any], cap: Callable[[str], str]) -> dict[str, Any]:
    """``raw`` with its context texts (``additionalContext``, ``systemMessage``) capped."""
    out = dict(raw)
    for key in ("systemMessage", "system_message"):
        if isinstance(out.get(key), str):
            out[key] = cap(out[key])
    for key in ("hookSpecificOutput", "hook_specific_output"):
        spec = out.get(key)
        if isinstance(spec, Mapping):
            spec = dict(spec)
            for field_name in ("additionalContext", "additional_context"):
                if isinstance(spec.get(field_name), str):
                    spec[field_name] = cap(spec[field_name])
            out[key] = spec
    return out


def _value(
    info: EventInfo, protocol: str, raw: dict[str, Any], source: str, tool: str | None
) -> tuple[Any, str, str | None]:
    """The normalised answer, why it was ignored (``""``: it was not, or was a plain "no
    opinion"), and why a block got the default message (``None``: it did not)."""
    if info.kind == "observe":
        return None, "", None  # observers have no answer
    answer_type = info.answer
    value = answer_type.normalise(raw, source)
    defaulted = None
    if value is None:
        # The same answer from Python would be ignored; a shell block without a message blocks
        # with a default message naming the hook (DESIGN 3.1), and that is reported.
        value = answer_type.normalise(raw, source, f"blocked by shell hook {source}")
        if value is None:
            return None, answer_type.explain(raw), None
        defaulted = (
            answer_type.explain(raw)
            or "a block without a message (add 'message', or 'reason' for Claude Code)"
        ) + "; blocked with the default message naming the hook"
    if protocol == CLAUDE and getattr(value, "args", None) is not None and tool is not None:
        value = replace(value, args=args_from_claude(tool, value.args))  # a rewrite, Claude-named
    return value, "", defaulted


log = logging.getLogger("hermes_hooks")

#: Claude Code's limit, in characters, on one hook's context text.
CONTEXT_CAP = 10_000
#: How much of an over-long text the model still sees.
PREVIEW = 2_000


class ContextCap:
    """Caps context texts at ``limit`` characters, saving the whole text in ``directory``."""

    def __init__(self, directory: Path, limit: int = CONTEXT_CAP) -> None:
        self.directory = directory
        self.limit = limit

    def __call__(self, text: str) -> str:
        if len(text) <= self.limit:
            return text
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        path = self.directory / f"context-{digest}.txt"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as out:
                out.write(text)
            where = f"the whole output is in {path}"
        except OSError as exc:
            log.warning("hook context over %d characters could not be saved to %s: %s",
                        self.limit, path, exc.strerror or exc)  # fmt: skip
            where = f"the rest could not be saved ({exc.strerror or exc})"
        preview = text[: min(PREVIEW, self.limit // 2)]
        return (
            f"{preview}\n\n[hook output cut: {len(text)} characters, over the {self.limit}-character "
            f"limit; {where}]"
        )


# ---------------------------------------------------------------------- answers, written


def _claude_context(event: str, text: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def _claude_block(chosen: Any, event: str, reason: str) -> dict[str, Any] | None:
    if not reads_answer(chosen, "block", "decision", "deny", "continue"):
        return None  # an event of an agent of Claude Code's shape that reads no block (Codex)
    return {"decision": "block", "reason": reason}


def _claude_stop(reason: str) -> dict[str, Any]:
    return {"decision": "block", "reason": reason}


def _claude_tool(
    chosen: Any,
    event: str,
    word: str | None,
    message: str | None,
    args: Mapping[str, Any] | None,
    context: str | None,
    note: Note,
) -> dict[str, Any]:
    spec: dict[str, Any] = {"hookEventName": event}
    if word:
        spec["permissionDecision"] = word
        if message:
            spec["permissionDecisionReason"] = message
    if args is not None:
        spec["updatedInput"] = args
    if context:
        spec["additionalContext"] = context
    return {"hookSpecificOutput": spec} if len(spec) > 1 else {}


def _claude_prompt_rewrite(event: str, text: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, "updatedPrompt": text}}


def _claude_permission(
    event: str, behavior: str, message: str | None, args: Mapping[str, Any] | None
) -> dict[str, Any]:
    decision: dict[str, Any] = {"behavior": behavior}
    if message:
        decision["message"] = message
    if args is not None:
        decision["updatedInput"] = dict(args)
    return {"hookSpecificOutput": {"hookEventName": event, "decision": decision}}


#: Our answers as Claude Code reads them from a command hook (and Codex, which has its shape,
#: but takes no rewritten prompt).
CLAUDE_SPEECH = Speech(
    context=_claude_context,
    block=_claude_block,
    stop=_claude_stop,
    tool=_claude_tool,
    prompt_rewrite=_claude_prompt_rewrite,
    permission=_claude_permission,
)
