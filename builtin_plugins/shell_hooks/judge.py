"""Internal: part of the built-ins (docs/builtins.md), not an API.

The ``prompt`` hook type (an LLM judge): the entry's ``prompt``, filled from the event's
payload (the template language below), is sent to an OpenAI-compatible ``/chat/completions`` endpoint, and
the model's reply becomes the hook's answer.

- Endpoint: the entry's ``base_url`` (which must match ``allowed_http_hook_urls``: the payload
  goes there), else ``OPENAI_BASE_URL``, else ``https://api.openai.com/v1``. Key: the variable
  the entry's ``api_key_env`` names, else ``OPENAI_API_KEY`` (none: no ``Authorization``).
- On events whose answer decides whether the agent acts (the answer type's ``guards_actions``:
  ``pre_tool_call``, ``permission_request``) the model is asked, through structured output,
  for ``{"decision": "allow"|"ask"|"deny", "reason"}``. The reply must be that JSON object (or
  hold it as its one fenced code block): an object merely quoted in the text (the tool argument
  can hold ``{"decision": "allow"}``) decides nothing. Claude Code's ``{"ok", "reason"}`` is
  accepted; a decision or ``ok`` of another value, or the two disagreeing, is no allow. ``deny`` is the event's block (exit 2 with the reason), ``ask`` asks the human
  where the event can, ``allow`` allows. These hooks are ``fail_closed``: a timeout, an HTTP
  error or an unreadable reply denies.
- On other events the reply text is context (``{"ok": false, "reason"}`` blocks where the event
  can block); a failure is an ordinary hook failure.

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
import os
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from hermes_hooks.catalogue import EventInfo

from . import processes, remote, web
from .matching import ShellHook

KEYS = ("prompt", "model", "base_url", "api_key_env")
DEFAULT_TIMEOUT = 15.0
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DECISIONS = {"allow": "allow", "ask": "ask", "deny": "deny", "block": "deny"}
SCHEMA = {
    "type": "json_schema",
    "json_schema": {
        "name": "hook_decision",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {
                "decision": {"type": "string", "enum": ["allow", "ask", "deny"]},
                "reason": {"type": "string"},
            },
            "required": ["decision", "reason"],
            "additionalProperties": False,
        },
    },
}
INSTRUCTIONS = (
    "You are a policy judge deciding whether an AI agent may go ahead. Answer only with a JSON "
    'object {"decision": "allow" | "ask" | "deny", "reason": "<one sentence>"}: "ask" leaves the '
    "decision to the human."
)
#: How an ``ask`` and an ``allow`` are written for the answer types (read by ``wire.parse``).
ASK = {"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": ""}}
ALLOW = {"action": "allow", "message": ""}


class Unreadable(ValueError):
    """The model's reply says nothing the hook can use."""


def read(
    raw: Mapping[str, Any],
    where: str,
    warn: Callable[[str], None],
    settings: Mapping[str, Any],
    info: EventInfo,
) -> tuple[str, dict[str, Any]] | None:
    """The command label and options of a prompt entry, or ``None`` (reported) to skip it."""
    prompt = raw.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        warn(f"{where}: a prompt hook needs a non-empty 'prompt' (the question for the model); skipped")  # fmt: skip
        return None
    decides = info.answer.guards_actions
    problems = check(prompt, payload_fields(info))
    for problem in problems:
        then = f"the judge denies on {info.name} until it is fixed" if decides else "it renders as nothing"  # fmt: skip
        warn(f"{where}: prompt placeholder {problem}; {then}")
    model = raw.get("model")
    if model is not None and not isinstance(model, str):
        warn(f"{where}: model must be a string; ignored")
        model = None
    options: dict[str, Any] = {
        "prompt": prompt,
        "model": model or None,
        "api_key_env": None,
        "base_url": None,
        "refused": None,
        "remedy": remote.REMEDY.replace("its URL", "its base_url"),
        "decides": decides,
        "template_problems": problems,
        "can_block": info.can_block,
        "ask": info.answer.normalise(_ask("x"), "x") is not None,
        "allow": info.answer.normalise(_allow("x"), "x") is not None,
        "context": "text" if info.meta.plain_text_context
        else "json" if info.answer.normalise({"context": "x"}, "x") is not None else None,
    }  # fmt: skip
    key_env = raw.get("api_key_env")
    if key_env is not None:
        if isinstance(key_env, str) and re.fullmatch(r"\w+", key_env):
            options["api_key_env"] = key_env
        else:
            warn(f"{where}: api_key_env must name an environment variable; using OPENAI_API_KEY")
    base = raw.get("base_url")
    if base is not None:
        if isinstance(base, str) and web.web_url(base.strip()):
            options["base_url"] = base.strip().rstrip("/")
            options["refused"] = remote.gate(options["base_url"], settings)
            if options["refused"]:
                warn(f"{where}: prompt hook refused: {options['refused']} (it would send the "
                     f"event's payload there); {options['remedy']}")  # fmt: skip
        else:
            warn(f"{where}: base_url {base!r} is not an http(s) URL; using OPENAI_BASE_URL")
    label = f"prompt{' ' + model if model else ''}: {' '.join(prompt.split())}"
    return label, options


def _ask(reason: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {**ASK["hookSpecificOutput"], "permissionDecisionReason": reason}}


def _allow(reason: str) -> dict[str, Any]:
    return {**ALLOW, "message": reason}


def payload_fields(info: EventInfo) -> set[str]:
    """The top-level fields a payload of ``info``'s event can have, in either protocol."""
    from . import protocol

    fields = {
        *protocol.HERMES_WIRE_KEYS,
        *protocol.CLAUDE_COMMON_KEYS,
        *protocol.CLAUDE_OPTIONAL_KEYS,
    }
    if info.tool_event:
        fields |= {"tool_name", "tool_input"}
    for event in info.claude:
        fields |= set(event.fields)
    if not info.claude:  # sent under the arguments' own names
        fields |= set(info.args)
    return fields


def problem(hook: ShellHook) -> str | None:
    """Why the hook cannot run as configured (``hermes hooks doctor``)."""
    if hook.options.get("refused"):
        return str(hook.options["refused"])
    if hook.options.get("template_problems"):
        return f"prompt placeholder {hook.options['template_problems'][0]}"
    if not hook.options.get("model"):
        return "no model: give the entry a 'model'"
    return None


def transport(batch: Sequence[tuple[ShellHook, processes.Command]]) -> list[processes.Outcome]:
    """Ask the model for every hook of the batch at once; outcomes in order."""
    return remote.at_once(batch, ask, "hermes-judge")


def base_url(options: Mapping[str, Any]) -> str:
    """Where a prompt hook's judge is asked: its ``base_url``, else ``OPENAI_BASE_URL`` when it
    fires, else OpenAI's."""
    return str(options.get("base_url") or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL)


def ask(hook: ShellHook, command: processes.Command) -> processes.Outcome:
    """One question to the model, as the outcome of a process."""
    options = hook.options
    if not options.get("model"):
        return processes.Outcome(error="no model configured (give the entry a 'model')")
    if options["decides"] and options.get("template_problems"):  # never judge a prompt with holes
        return processes.Outcome(error=f"prompt placeholder {options['template_problems'][0]}")
    try:
        payload = json.loads(command.stdin.decode("utf-8", "surrogatepass"))
    except ValueError:
        payload = {}
    messages = [{"role": "user", "content": render(options["prompt"], payload)}]
    request: dict[str, Any] = {"model": options["model"], "messages": messages}
    if options["decides"]:
        messages.insert(0, {"role": "system", "content": INSTRUCTIONS})
        request["response_format"] = SCHEMA
    base = base_url(options)
    key = os.environ.get(options["api_key_env"] or "OPENAI_API_KEY")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    url = base.rstrip("/") + "/chat/completions"
    data = json.dumps(request, ensure_ascii=False).encode()
    reply = web.post(url, data, timeout=command.timeout, headers=headers, cap=command.cap)
    failed = remote.failure(reply, url)
    if failed is not None:
        return failed
    try:
        text = content(reply.body)
        outcome = answer(options, text)
    except Unreadable as exc:
        return processes.Outcome(error=f"unreadable reply: {exc}", elapsed=reply.elapsed)
    outcome.elapsed = reply.elapsed
    return outcome


def content(body: bytes) -> str:
    """The text of the first choice of a ``/chat/completions`` response."""
    try:
        data = json.loads(body.decode("utf-8", "replace"))
        message = data["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise Unreadable(f"not a chat completion: {body[:120]!r}") from None
    if not isinstance(message, Mapping):
        raise Unreadable("the choice has no message")
    text = message.get("content")
    if isinstance(text, list):  # content parts
        text = "".join(p.get("text", "") for p in text if isinstance(p, Mapping))
    if not isinstance(text, str) or not text.strip():
        refusal = message.get("refusal")
        raise Unreadable(f"the model refused: {refusal}" if refusal else "the reply is empty")
    return text


_FENCE = re.compile(r"```[ \t]*(?:json)?[ \t]*\n?(.*?)```", re.S | re.I)


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("a key is repeated")
    return dict(pairs)


def _object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text, object_pairs_hook=_unique)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def reply_object(text: str) -> dict[str, Any] | None:
    """The JSON object the reply is: the whole reply, or its one fenced code block. An object
    merely quoted inside prose (the payload's own ``{"decision": "allow"}``, echoed) is not
    the judge's answer, and two fenced blocks are no single answer."""
    whole = _object(text.strip())
    if whole is not None:
        return whole
    fences = _FENCE.findall(text[:65536])
    return _object(fences[0].strip()) if len(fences) == 1 else None


_RANK = {"allow": 0, "ask": 1, "deny": 2}


def verdict(text: str) -> tuple[str, str] | None:
    """``(allow|ask|deny, reason)`` from a reply, or ``None`` when the reply is no verdict
    (not a JSON object, or one with neither ``decision`` nor ``ok``). A ``decision`` other
    than allow/ask/deny (``block`` is deny) or a non-boolean ``ok`` is :class:`Unreadable`;
    both present, the stricter wins."""
    found = reply_object(text)
    if found is None or ("decision" not in found and "ok" not in found):
        return None
    reason = found.get("reason")
    reason = reason.strip() if isinstance(reason, str) else ""
    said: list[str] = []
    if "decision" in found:
        decision = found["decision"]
        key = decision.strip().lower() if isinstance(decision, str) else None
        if key not in DECISIONS:
            raise Unreadable(f"no decision in {text.strip()[:160]!r}: 'decision' is {decision!r}, not allow, ask or deny")  # fmt: skip
        said.append(DECISIONS[key])
    if "ok" in found:
        if not isinstance(found["ok"], bool):
            raise Unreadable(f"no decision in {text.strip()[:160]!r}: 'ok' is {found['ok']!r}, not true or false")  # fmt: skip
        said.append("allow" if found["ok"] else "deny")
    return max(said, key=_RANK.__getitem__), reason


def answer(options: Mapping[str, Any], text: str) -> processes.Outcome:
    """The reply as what a command hook would have said (exit code and stdout)."""
    found = verdict(text)
    if options["decides"]:
        if found is None:
            raise Unreadable(
                f"no decision in {text.strip()[:160]!r} (the reply must be the JSON object, "
                "or hold it as its one fenced block)"
            )
        decision, reason = found
        if decision == "deny":
            return processes.Outcome(
                returncode=2, stderr=(reason or "denied by the judge").encode()
            )
        said = _ask(reason or "the judge asks") if decision == "ask" else _allow(reason)
        if not options[decision]:  # this event has no such answer: no opinion, said why
            note = f"the judge said {decision} ({reason}); the event has no {decision} answer"
            return processes.Outcome(returncode=0, stderr=note.encode())
        return processes.Outcome(returncode=0, stdout=json.dumps(said).encode())
    if found is not None and found[0] == "deny" and options["can_block"]:
        return processes.Outcome(returncode=2, stderr=(found[1] or "blocked by the judge").encode())
    if found is not None:
        return processes.Outcome(returncode=0, stderr=text.encode())  # a verdict, not context
    if options["context"] == "text":
        return processes.Outcome(returncode=0, stdout=text.strip().encode())
    if options["context"] == "json":
        return processes.Outcome(
            returncode=0, stdout=json.dumps({"context": text.strip()}).encode()
        )
    return processes.Outcome(returncode=0, stderr=text.encode())  # the event takes no text


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
