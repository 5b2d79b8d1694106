"""Internal: not an API; the service and its client use it (docs/agents.md).

Answering another agent's command hook: the JSON that agent writes on a hook's stdin becomes
our event's keyword arguments, the event fires through ``hooks.call`` (every source of the
home), and the combined result becomes what that agent reads from a command hook's stdout.
:func:`handle` is the one function behind ``hermes hooks serve`` and the client's in-process
fallback, so both give the same decisions.

Nothing here is a table of the agents' events: the payload is read back through the event the
hookspecs declare for that agent (:class:`~hermes_hooks.contract.ClaudeEvent` through
:func:`hermes_hooks.cli.payloads.to_kwargs`; another agent's
:class:`~hermes_hooks.contract.AgentEvent` by asking each declared field which argument it
reads, and its :class:`~hermes_hooks.builtin_plugins.shell_hooks.dialects.Dialect` for tool names and common fields).

An answer the agent cannot take from a hook is never dropped into something more open: a
rewrite the agent cannot carry (Codex, Copilot, Cursor's shell event) or an approval it cannot
ask for (Codex, Copilot) becomes a block whose message says what the hooks wanted.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hermes_hooks.builtin_plugins.shell_hooks import dialects
from hermes_hooks.builtin_plugins.shell_hooks.dialects.base import Speech, reads_answer
from hermes_hooks.builtin_plugins.shell_hooks.protocol import CLAUDE_SPEECH

from .. import catalogue
from ..answers.results import (
    CompressAnswer,
    PermissionAnswer,
    PromptDecision,
    ToolDecision,
    VerifyAnswer,
)
from ..catalogue import EventInfo
from ..contract import AgentEvent, ClaudeEvent

log = logging.getLogger("hermes_hooks")

#: The agents whose command hooks we answer: Claude Code, the dialects, and Hermes' own.
AGENTS = ("claude", "codex", "gemini", "cursor", "copilot", "hermes")
#: The largest body accepted (bytes).
MAX_BODY = 1 << 20


class Refused(Exception):
    """A request that names no event we answer, or whose body cannot be read (a 4xx)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Reply:
    """What the agent reads: ``body`` (its JSON, also the HTTP reply), and, for a command hook,
    the exit code and stderr it honours."""

    status: int
    body: dict[str, Any]
    exit_code: int = 0
    stderr: str = ""

    def command(self) -> dict[str, Any]:
        """The reply as a command hook gives it (``stdout``, ``stderr``, ``exit``)."""
        return {"stdout": json.dumps(self.body), "stderr": self.stderr, "exit": self.exit_code}


# ---------------------------------------------------------------------- which event


@dataclass(frozen=True)
class Target:
    """Our event, and the agent's own event it was asked as (``None`` for Hermes)."""

    agent: str
    name: str
    info: EventInfo
    chosen: ClaudeEvent | AgentEvent | None


def _agent_events(agent: str, info: EventInfo) -> tuple[Any, ...]:
    if agent == "claude":
        return info.claude
    if agent == "hermes":
        return ()
    return info.dialect_events(agent)


def target(agent: str, name: str) -> Target:
    """The event ``name`` names for ``agent``: the agent's own event name, or one of ours (or
    an alias). Raises :class:`Refused` (404) naming what is known."""
    if agent not in AGENTS:
        raise Refused(404, f"unknown agent {agent!r}; known: {', '.join(AGENTS)}")
    events = catalogue.events().values()
    if agent != "hermes":
        for info in events:
            for candidate in _agent_events(agent, info):
                if candidate.name == name:
                    return Target(agent, name, info, candidate)
    found = catalogue.get(name)
    if found is None:
        own = [c.name for i in events for c in _agent_events(agent, i)]
        guess = catalogue.suggest(name, own or [*catalogue.events(), *catalogue.aliases()])
        hint = f" (did you mean {guess!r}?)" if guess else ""
        raise Refused(404, f"unknown event {name!r} for {agent}{hint}")
    info = found
    if agent == "hermes":
        return Target(agent, name, info, None)
    declared = _agent_events(agent, info)
    if not declared:
        raise Refused(404, f"{agent} has no event that {info.name} stands for")
    return Target(agent, name, info, declared[0])


# ---------------------------------------------------------------------- payload -> kwargs

_PROBE = object()


class _Probe(Mapping[str, Any]):
    """A host argument (or a key inside one) as a field reader sees it while we ask it which
    argument it reads: any key read from it is a probe one step deeper."""

    def __init__(self, path: tuple[str, ...]) -> None:
        self.path = path

    def __getitem__(self, key: str) -> Any:
        return _Probe((*self.path, key))

    def get(self, key: str, default: Any = None) -> Any:
        return _Probe((*self.path, key))

    def __iter__(self) -> Any:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __bool__(self) -> bool:
        return True


class _Arguments(Mapping[str, Any]):
    """The event's arguments as probes (others are missing), recording what is read."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.read: list[str] = []

    def __getitem__(self, key: str) -> Any:
        self.read.append(key)
        if key in self.names:
            return _Probe((key,))
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        return key in self.names

    def __iter__(self) -> Any:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


class _Compared:
    """A value that remembers what it was compared with (the constants of a ``when`` test)."""

    def __init__(self, seen: list[Any]) -> None:
        self.seen = seen

    def __eq__(self, other: object) -> bool:
        self.seen.append(other)
        return False

    def __hash__(self) -> int:
        return 0


def _reader_path(read: Callable[[Mapping[str, Any]], Any], args: tuple[str, ...]) -> Any:
    """What a payload field is made of: a probe path (the field is that argument, or a key of
    it, unchanged), else the arguments it read (it reshapes them)."""
    known = _Arguments(args)
    try:
        value = read(known)
    except Exception:
        return [a for a in known.read if a in args]
    if isinstance(value, _Probe):
        return value.path
    return [a for a in known.read if a in args]


def _leaves(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _leaves(v)]
    return []


def _same(a: Any, b: Any) -> bool:
    """Equal values, or the same JSON however it is spaced (Cursor's ``tool_input`` text)."""
    try:
        if a == b or json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True):
            return True
        if isinstance(a, str) and isinstance(b, str):
            return bool(json.loads(a) == json.loads(b))
    except (TypeError, ValueError):
        pass
    return False


def _reshaped(read: Callable[[Mapping[str, Any]], Any], arg: str, value: Any) -> Any:
    """The argument ``arg`` a reshaping field was made from, found by reading candidates
    forward through the field itself (the value, its JSON, the text in it), or
    :data:`_PROBE` when none reads back as ``value``."""
    candidates: list[Any] = [value]
    if isinstance(value, str):
        try:
            candidates.append(json.loads(value))
        except ValueError:
            pass
    candidates += _leaves(value)
    for candidate in candidates:
        try:
            if _same(read({arg: candidate}), value):
                return candidate
        except Exception:
            continue
    return _PROBE


def _text_of(value: Any) -> Any:
    """A reshaped value's best guess when no candidate reads back: its first text, or JSON."""
    leaves = _leaves(value)
    if leaves:
        return leaves[0]
    return value if isinstance(value, str) else json.dumps(value)


def _put(out: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    if value is None or value == "":
        return
    if len(path) == 1:
        out.setdefault(path[0], value)
        return
    inner = out.setdefault(path[0], {})
    if isinstance(inner, dict) and len(path) == 2:
        inner.setdefault(path[1], value)


def _fields_back(
    fields: Mapping[str, Callable[[Mapping[str, Any]], Any]],
    info: EventInfo,
    payload: Mapping[str, Any],
    out: dict[str, Any],
) -> None:
    for key, read in fields.items():
        if key not in payload:
            continue
        value = payload[key]
        named = getattr(read, "reads", None)
        if named in info.args:
            back = getattr(read, "back", None)
            _put(out, (named,), back(value) if back is not None else value)
            continue
        found = _reader_path(read, info.args)
        if isinstance(found, tuple):
            _put(out, found, value)
        elif found:
            for arg in found:
                back = _reshaped(read, arg, value)
                if back is not _PROBE:
                    _put(out, (arg,), back)
                    break
            else:
                _put(out, (found[0],), _text_of(value))


def _occurrence(
    info: EventInfo, chosen: Any, kwargs: dict[str, Any], pick: Callable[[dict[str, Any]], Any]
) -> None:
    """Make ``kwargs`` an occurrence of ``chosen`` (``pick`` finds the declared event the
    arguments select): when another event was picked, try the constants ``chosen.when``
    compares arguments with (Claude Code's ``PostToolUseFailure``: ``status == "error"``;
    Cursor's ``beforeShellExecution``: the tool is ``terminal``)."""
    if chosen is None or chosen.when is None or pick(kwargs) is chosen:
        return
    seen: dict[str, list[Any]] = {}

    class Recording(dict[str, Any]):
        def get(self, key: str, default: Any = None) -> Any:
            if key in kwargs:
                return kwargs[key]
            return _Compared(seen.setdefault(key, []))

    try:
        chosen.when(Recording())
    except Exception:
        return
    for key, values in seen.items():
        for value in values:
            trial = {**kwargs, key: value}
            if pick(trial) is chosen:
                kwargs[key] = value
                return


def _claude_kwargs(t: Target, payload: dict[str, Any]) -> dict[str, Any]:
    from ..cli.payloads import PayloadError, to_kwargs

    data = dict(payload)
    if t.chosen is not None:
        data.setdefault("hook_event_name", t.chosen.name)
    try:
        kwargs, _ = to_kwargs(t.info, data)
    except PayloadError as exc:
        named = str(data.get("hook_event_name") or t.info.name)
        unknown = [k for k in data if not _claude_knows(t.info, named, k, data)]
        if not unknown or unknown == list(data):
            raise Refused(400, str(exc)) from None
        for key in unknown:
            _note_once(f"{t.agent}/{t.name}: key {key!r} is not one we read; ignored")
            data.pop(key)
        try:
            kwargs, _ = to_kwargs(t.info, data)
        except PayloadError as again:
            raise Refused(400, str(again)) from None
    _occurrence(t.info, t.chosen, kwargs, t.info.claude_event)
    return kwargs


_KNOWN: dict[tuple[str, str, str], bool] = {}


def _claude_knows(info: EventInfo, event: str, key: str, data: Mapping[str, Any]) -> bool:
    """Whether :func:`~hermes_hooks.cli.payloads.to_kwargs` reads ``key`` of ``event`` (asked once
    per key: a newer agent's extra field is dropped and reported, not a refusal)."""
    from ..cli.payloads import PayloadError, to_kwargs

    cached = _KNOWN.get((info.name, event, key))
    if cached is None:
        try:
            to_kwargs(info, {"hook_event_name": event, key: data[key]})
            cached = True
        except PayloadError:
            cached = False
        except Exception:
            cached = True  # read, but not alone: keep it, to_kwargs will say what is wrong
        _KNOWN[(info.name, event, key)] = cached
    return cached


def _dialect_kwargs(t: Target, payload: dict[str, Any]) -> dict[str, Any]:
    d = dialects.get(t.agent)
    assert d is not None and isinstance(t.chosen, AgentEvent)
    chosen, info = t.chosen, t.info
    out: dict[str, Any] = {}
    common = d.common(_Arguments(info.args), "", chosen.name)
    for key, value in common.items():
        if isinstance(value, _Probe) and key in payload:
            _put(out, value.path, payload[key])
    if chosen.tool:
        name_key, args_key = d.tool_keys
        agent_tool = payload.get(name_key)
        host = next((h for h, (a, _) in d.tools.items() if a == agent_tool), agent_tool)
        args = payload.get(args_key)
        if d.args_as_text and isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                raise Refused(400, f"{args_key} is not JSON text") from None
        if host is not None:
            out["tool_name"] = host
        out["args"] = d.args_back(host, args if isinstance(args, Mapping) else {})
    _fields_back(chosen.fields, info, payload, out)
    read = {*common, *chosen.fields, *(d.tool_keys if chosen.tool else ())}
    for key in payload:
        if key not in read:
            _note_once(f"{t.agent}/{t.name}: key {key!r} is not one we read; ignored")
    if "tool_name" in out and isinstance(out.get("args"), Mapping) and not chosen.tool:
        out["args"] = d.args_back(out["tool_name"], out["args"])
    kwargs = {k: v for k, v in out.items() if k in info.args}
    _occurrence(info, chosen, kwargs, lambda kw: info.dialect_event(t.agent, kw))
    return kwargs


def kwargs_of(t: Target, payload: dict[str, Any]) -> dict[str, Any]:
    """Our event's keyword arguments from the JSON ``t.agent`` sends a command hook."""
    if t.agent in ("claude", "hermes"):
        return _claude_kwargs(t, payload)
    return _dialect_kwargs(t, payload)


# ---------------------------------------------------------------------- result -> reply

_NOTED: set[str] = set()


def _note_once(message: str) -> None:
    if message not in _NOTED:
        _NOTED.add(message)
        log.warning("serve: %s", message)


def _speech(t: Target) -> Speech:
    """How ``t.agent`` reads our answers, owned by its dialect's module (Claude Code's by the
    shell protocol's)."""
    d = dialects.get(t.agent)
    return d.speech if d is not None else CLAUDE_SPEECH


def _agent_args(t: Target, args: Mapping[str, Any], tool: Any) -> Mapping[str, Any]:
    if t.agent == "claude":
        from ..contract import args_to_claude

        return dict(args_to_claude(tool, args))
    d = dialects.get(t.agent)
    return dict(d.tool_args(tool, args)) if d is not None else dict(args)


def _can_rewrite(t: Target) -> bool:
    """Whether the agent's event reads a rewritten input (its declaration's ``answers``: Codex's
    ``PreToolUse`` and Cursor's ``beforeShellExecution`` do not)."""
    return reads_answer(t.chosen, "updatedInput", "updated_input", "tool_input")


def _carried(t: Target, body: dict[str, Any], tool: Any) -> bool:
    """Whether ``t.agent`` acts on ``body`` as written: our reader of its dialect (which reads
    answers as that agent does) takes it without a note of something it ignores or rejects
    (Codex's ``ask`` and ``allow``); Claude Code reads every answer of ours."""
    d = dialects.get(t.agent)
    if d is None or not isinstance(t.chosen, AgentEvent):
        return True
    if not body:
        return False
    _, notes = d.translate(t.info, t.chosen, body, tool)
    return not notes


def render(t: Target, result: Any, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """``result`` (what ``hooks.call`` returned) as ``t.agent`` reads it from a command hook:
    what to say is decided here (an answer the agent cannot take becomes a block, or a note);
    the agent's dialect writes it (:class:`~.dialects.base.Speech`)."""
    kind = t.info.kind
    if t.agent == "hermes":
        return _hermes(t.info, result)
    event = t.chosen.name if t.chosen is not None else t.info.name
    if not reads_answer(t.chosen, ""):
        said = _said(t, result, kwargs)
        if said:  # Copilot's userPromptSubmitted and sessionStart read no answer at all
            _note_once(f"{t.agent} {event} reads no answer from a hook: {said} not delivered")
        return {}
    if kind == "context":
        return _context(t, event, result) if isinstance(result, str) and result else {}
    if isinstance(result, ToolDecision):
        return _tool(t, event, result, kwargs)
    if isinstance(result, PromptDecision):
        return _prompt(t, event, result)
    if isinstance(result, VerifyAnswer):
        return (
            _speech(t).stop(result.message or "keep working") if result.action == "continue" else {}
        )
    if isinstance(result, CompressAnswer):
        return _block(t, event, result.message) if result.action == "block" else {}
    if isinstance(result, PermissionAnswer):
        return _permission(t, event, result)
    return {}


def _said(t: Target, result: Any, kwargs: Mapping[str, Any]) -> str:
    """What ``result`` asks of the agent, in words (empty when it asks nothing)."""
    if isinstance(result, PromptDecision):
        kinds = [("a block", result.blocked), ("a rewrite", result.text is not None),
                 ("context", bool(result.context))]  # fmt: skip
        return ", ".join(word for word, on in kinds if on)
    if result is None or result == "" or result == t.info.answer.neutral(kwargs):
        return ""
    if isinstance(result, str) and t.info.kind == "context":
        return "context"
    return f"its answer ({type(result).__name__})"


def _context(t: Target, event: str, text: str) -> dict[str, Any]:
    if not reads_answer(t.chosen, "ontext", "additional"):
        _note_once(f"{t.agent} {event} reads no context from a hook: context not delivered")
        return {}
    return _speech(t).context(event, text)


def _block(t: Target, event: str, message: str | None) -> dict[str, Any]:
    """A block of a prompt or a compaction, as ``t.agent`` reads one."""
    body = _speech(t).block(t.chosen, event, message or "blocked by hermes-hooks")
    if body is None:
        _note_once(f"{t.agent} {event} cannot be blocked by a hook: the block is not delivered")
        return {}
    return body


def _tool(t: Target, event: str, d: ToolDecision, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    action, message, context = d.action, d.message, d.context
    tool = kwargs.get("tool_name")
    rewrite = d.args if d.args is not None and d.args != kwargs.get("args") else None
    if action == "approve" and not _carried(t, _tool_words(t, event, "ask", "?", None, None), tool):
        action = "block"
        message = f"needs approval, which {t.agent} cannot ask from a hook: {message or ''}"
    if action == "allow" and not _carried(
        t, _tool_words(t, event, "allow", None, None, None), tool
    ):
        action = None  # an allow the agent ignores: no opinion (its own prompt decides)
    if rewrite is not None and action != "block" and not _can_rewrite(t):
        action = "block"
        message = (
            f"the hooks rewrote this call to {json.dumps(rewrite, ensure_ascii=False)}, which "
            f"{t.agent} cannot take from a {event} hook; run it that way instead"
        )
        rewrite = None
    if action == "block" and not message:
        message = "blocked by hermes-hooks"
    args = _agent_args(t, rewrite, tool) if rewrite is not None and action != "block" else None
    word = {"block": "deny", "approve": "ask", "allow": "allow"}.get(action or "")
    return _tool_words(t, event, word, message, args, context)


def _tool_words(
    t: Target,
    event: str,
    word: str | None,
    message: str | None,
    args: Mapping[str, Any] | None,
    context: str | None,
) -> dict[str, Any]:
    """A tool call's answer in ``t.agent``'s words: ``word`` is ``deny``, ``ask`` or
    ``allow``, ``args`` the rewritten input in the agent's names."""
    return _speech(t).tool(t.chosen, event, word, message, args, context, _note_once)


def _prompt(t: Target, event: str, d: PromptDecision) -> dict[str, Any]:
    action, message = d.action, d.message
    rewrite = _speech(t).prompt_rewrite
    if d.text is not None and action != "block" and rewrite is None:
        action = "block"
        message = (
            f"the hooks rewrote this prompt to {d.text!r}, which {t.agent} cannot take from "
            f"a {event} hook; send it that way instead"
        )
    if action == "block":
        return _block(t, event, message)
    out: dict[str, Any] = {}
    if d.text is not None and rewrite is not None:
        out = rewrite(event, d.text)
    if d.context:
        ctx = _context(t, event, d.context)
        spec = ctx.get("hookSpecificOutput")
        if isinstance(spec, dict) and "hookSpecificOutput" in out:
            out["hookSpecificOutput"].update(spec)
        else:
            out.update(ctx)
    return out


def _permission(t: Target, event: str, p: PermissionAnswer) -> dict[str, Any]:
    if p.action is None:
        return {}
    write = _speech(t).permission
    if write is None:
        _note_once(f"{t.agent} {event} reads no permission answer: {p.action} not delivered")
        return {}
    return write(event, p.action, p.message, p.args)


def _hermes(info: EventInfo, result: Any) -> dict[str, Any]:
    """Our own answer shape (Hermes' shell-hook protocol reads it back): a transform's new
    value under the name of the argument it pipes."""
    kind = info.kind
    if result is None:
        return {}
    if kind == "context":
        return {"context": result} if isinstance(result, str) and result else {}
    if kind == "transform":
        return {info.value or "result": result}
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        out = {
            k: v
            for k, v in dataclasses.asdict(result).items()
            if v is not None and k != "source" and not (k == "scope" and v == "once")
        }
        if isinstance(result, ToolDecision) and "args" in out and "action" not in out:
            out["action"] = "modify"
        return out
    return {"result": result}


def blocked(t: Target, why: str) -> Reply:
    """The agent's block form for ``t`` (fail closed: neither the service nor the home could
    answer), with exit code 2 and ``why`` on stderr for the agents that honour it."""
    info = t.info
    kwargs: dict[str, Any] = {}
    if info.tool_event:
        kwargs["tool_name"] = None
    answer = info.answer
    value = answer.failed(why, "hermes-hooks") if info.can_block else None
    body = render(t, value, kwargs) if value is not None else {}
    return Reply(200, body, 2 if t.agent != "copilot" else 0, why)


# ---------------------------------------------------------------------- the one handler


def parse(body: bytes) -> dict[str, Any]:
    """The JSON object of a request body, or :class:`Refused` (413 too big, 400 not JSON)."""
    if len(body) > MAX_BODY:
        raise Refused(413, f"body of {len(body)} bytes is over the {MAX_BODY}-byte limit")
    try:
        data = json.loads(body.decode("utf-8") if body else "{}")
    except (UnicodeDecodeError, ValueError) as exc:
        raise Refused(400, f"body is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise Refused(400, f"body must be a JSON object, not {type(data).__name__}")
    return data


def _check_types(kwargs: Mapping[str, Any]) -> None:
    """A tool's name is text and its arguments an object, as every agent sends them."""
    name, args = kwargs.get("tool_name"), kwargs.get("args")
    if name is not None and not isinstance(name, str):
        raise Refused(400, f"the tool's name must be a string, not {type(name).__name__}")
    if args is not None and not isinstance(args, Mapping):
        raise Refused(400, f"the tool's input must be an object, not {type(args).__name__}")


def handle(hooks: Any, agent: str, event: str, body: bytes) -> Reply:
    """Answer one command hook of ``agent``'s ``event`` whose stdin was ``body``: 200 and the
    agent's reply, or a 4xx naming the problem (never an exception)."""
    try:
        t = target(agent, event)
        payload = parse(body)
        try:
            kwargs = kwargs_of(t, payload)
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            raise Refused(400, f"the body is no {agent} {event} payload: {exc}") from None
        _check_types(kwargs)
    except Refused as exc:
        return Reply(exc.status, {"error": exc.message}, 1, exc.message)
    from ..trace import origin

    with origin(agent, t.chosen.name if t.chosen is not None else t.info.name):
        result = hooks.call(t.info.name, **kwargs)
    return Reply(200, render(t, result, kwargs))
