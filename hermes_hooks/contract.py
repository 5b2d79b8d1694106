"""What a hookspec declares about its event besides its arguments: the answer type, and how
other agents name and describe the event (Claude Code, docker-agent), with Claude Code's names
for the host's tools and their arguments (:data:`TOOLS`, extended with :func:`map_tool`).

Hookspec modules build these with :func:`hermes_hooks.markers.event`; the catalogue reads them,
and every other module (dispatcher, wire protocol, shell adapter, CLI, docs) asks the catalogue.

Payload fields the dialects' events declare on the hookspecs (besides the generic ones of
:mod:`hermes_hooks.contract`): each reads the host's keyword arguments, as
:data:`~hermes_hooks.contract.Field` does. ``CWD`` is the working directory the payload builder
passes along with the arguments.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .answers import AnswerType

#: A Claude Code payload field: computed from the host's keyword arguments. :func:`optional`,
#: :func:`arg` and :func:`flag` set ``reads`` on theirs: the one argument they are built from
#: (what a saved payload's field is read back as). A field that reshapes its argument may set
#: ``reads`` and ``back``, the function that turns the field's value back into the argument's.
Field = Callable[[Mapping[str, Any]], Any]

#: What a field returns to be left out of the payload.
OMIT: Any = object()


def optional(name: str) -> Field:
    """The host argument ``name``; the field is left out when it is missing or ``None``."""

    def read(kwargs: Mapping[str, Any]) -> Any:
        value = kwargs.get(name)
        return OMIT if value is None else value

    read.__doc__ = f"argument {name!r}, left out when unset"
    read.reads = name  # type: ignore[attr-defined]  # see Field
    return read


def arg(name: str, default: Any = "") -> Field:
    """The host argument ``name``, or ``default`` when it is missing or ``None``."""

    def read(kwargs: Mapping[str, Any]) -> Any:
        value = kwargs.get(name)
        return default if value is None else value

    read.__doc__ = f"argument {name!r} (default {default!r})"
    read.reads = name  # type: ignore[attr-defined]  # see Field
    return read


def flag(name: str) -> Field:
    """The host argument ``name`` as a bool (``False`` when missing)."""

    def read(kwargs: Mapping[str, Any]) -> Any:
        return bool(kwargs.get(name, False))

    read.__doc__ = f"bool(argument {name!r})"
    read.reads = name  # type: ignore[attr-defined]  # see Field
    return read


def const(value: Any) -> Field:
    """Always ``value``."""

    def read(kwargs: Mapping[str, Any]) -> Any:
        return value

    read.__doc__ = f"always {value!r}"
    return read


def either(*names: str, default: Any = "") -> Field:
    """The first of the host arguments ``names`` that is set, else ``default``."""

    def read(kwargs: Mapping[str, Any]) -> Any:
        for name in names:
            value = kwargs.get(name)
            if value is not None and value != "":
                return value
        return default

    read.__doc__ = f"first set of {', '.join(names)} (default {default!r})"
    return read


#: The session an event belongs to, as every agent's payload names it: ``session_id``, else
#: ``parent_session_id`` (a sub-agent event carries its parent's), else ``""``.
session_of = either("session_id", "parent_session_id")


def subagent_of(kwargs: Mapping[str, Any]) -> Any:
    """The sub-agent an event is about (``subagent_start``, ``subagent_stop``): its session,
    ``child_session_id``, else ``child_subagent_id``, else ``""``. One id for one sub-agent on
    every event that names it (Claude Code's ``agent_id``), and the ``session_id`` its own
    calls carry, so a sub-agent's start, calls and stop pair up."""
    for name in ("child_session_id", "child_subagent_id"):
        value = kwargs.get(name)
        if value is not None and value != "":
            return value
    return ""


subagent_of.reads = "child_session_id"  # type: ignore[attr-defined]  # see Field


def lineage_of(kwargs: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(sub-agent session, parent session)`` when an event's arguments announce a sub-agent
    (both ``child_session_id`` and ``parent_session_id`` set), else ``None``: what receipts
    read to name a sub-agent's parent on every call the sub-agent makes."""
    child, parent = kwargs.get("child_session_id"), kwargs.get("parent_session_id")
    if isinstance(child, str) and child and isinstance(parent, str) and parent:
        return child, parent
    return None


def tool_response(kwargs: Mapping[str, Any]) -> Any:
    """The host's ``result`` string as Claude Code's ``tool_response``: the JSON object it holds,
    else ``{"output": result}``."""
    result = kwargs.get("result")
    if isinstance(result, Mapping):
        return result
    if isinstance(result, str):
        try:
            parsed = json.loads(result)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    return {"output": result}


# ---------------------------------------------------------------------- Claude Code's tool names


@dataclass(frozen=True)
class ToolName:
    """How one host tool is called in Claude Code: its name and its argument names."""

    host: str
    claude: str
    args: Mapping[str, str] = field(default_factory=dict)  # host argument -> Claude Code argument
    args_back: Mapping[str, str] = field(default_factory=dict)  # the same, read the other way


#: Host tool name -> its Claude Code name and argument names. Arguments not listed keep their
#: name. Extend it with :func:`map_tool`.
TOOLS: dict[str, ToolName] = {}
#: Claude Code tool name -> the host's, kept in step with :data:`TOOLS` by :func:`map_tool`.
FROM_CLAUDE: dict[str, str] = {}


def map_tool(host: str, claude: str, args: Mapping[str, str] | None = None) -> None:
    """Teach the contract (every payload and answer in Claude Code's shape) that the host's tool ``host`` is Claude Code's ``claude``; ``args`` maps
    the host's argument names to Claude Code's (e.g. ``{"path": "file_path"}``)."""
    args = dict(args or {})
    TOOLS[host] = ToolName(host, claude, args, {v: k for k, v in args.items()})
    FROM_CLAUDE[claude] = host


for _host, _claude, _args in (
    ("terminal", "Bash", {}),
    ("write_file", "Write", {"path": "file_path"}),
    ("patch", "Edit", {"path": "file_path"}),
    ("read_file", "Read", {"path": "file_path"}),
    ("search_files", "Grep", {}),
    ("web_search", "WebSearch", {}),
    ("web_extract", "WebFetch", {}),
    ("todo", "TodoWrite", {}),
    ("delegate_task", "Task", {}),
):
    map_tool(_host, _claude, _args)


def claude_tool_name(host: str | None) -> str | None:
    """Claude Code's name for a host tool (the host's name when there is no mapping)."""
    if host is None:
        return None
    entry = TOOLS.get(host)
    return entry.claude if entry else host


def host_tool_name(claude: Any) -> Any:
    """The host's name for a Claude Code tool (the name itself when there is no mapping)."""
    return FROM_CLAUDE.get(claude, claude) if isinstance(claude, str) else claude


def args_to_claude(host: str | None, args: Any) -> Any:
    """Host arguments renamed for Claude Code."""
    entry = TOOLS.get(host or "")
    if entry is None or not isinstance(args, Mapping):
        return args
    return {entry.args.get(k, k): v for k, v in args.items()}


def args_from_claude(host: str | None, args: Any) -> Any:
    """Claude Code arguments (an ``updatedInput``) renamed back to the host's names."""
    entry = TOOLS.get(host or "")
    if entry is None or not isinstance(args, Mapping):
        return args
    back = entry.args_back
    return {back.get(k, k): v for k, v in args.items()}


@dataclass(frozen=True)
class ClaudeEvent:
    """One Claude Code event that one of our events stands for.

    ``fields`` are the event-specific payload fields (besides ``session_id``,
    ``transcript_path``, ``cwd``, ``permission_mode`` and ``hook_event_name``, which every event
    carries, ``prompt_id``/``effort`` when the host passes ``turn_id``/``effort``
    (``wire.CLAUDE_OPTIONAL_KEYS``), and ``tool_name``/``tool_input`` when ``tool`` is set).
    ``when`` selects this name from the host's arguments (``PostToolUseFailure`` only when the
    tool failed): a hook configured under this name fires only then. ``matcher`` is the host
    argument a Claude Code matcher tests (``None``: matchers are ignored). ``env_file``: Claude
    Code gives these hooks a ``CLAUDE_ENV_FILE`` to export variables into the session.
    ``http``: Claude Code runs ``type: http`` hooks on this event (2.1.330 skips them on
    ``SessionStart``: only command hooks run there).
    """

    name: str
    fields: Mapping[str, Field] = field(default_factory=dict)
    when: Callable[[Mapping[str, Any]], bool] | None = None
    matcher: str | None = None
    tool: bool = False
    env_file: bool = False
    http: bool = True

    def applies(self, kwargs: Mapping[str, Any]) -> bool:
        """Whether the host's arguments are an occurrence of this Claude Code event."""
        return self.when is None or bool(self.when(kwargs))


@dataclass(frozen=True)
class AgentEvent:
    """One event of another agent's hook dialect (Gemini CLI, Codex, Cursor, Copilot: the
    dialects of :mod:`hermes_hooks.builtin_plugins.shell_hooks.dialects`) that one of our events stands for.

    ``fields`` are the event-specific payload fields, besides the ones every event of the
    dialect carries (the dialect adds those). ``tool``: the payload carries the tool's name and
    arguments, named and keyed as that agent names them. ``when`` selects the occurrences this
    event stands for (Cursor's ``beforeShellExecution`` only for the shell tool). ``matcher`` is
    the payload field a matcher tests (``None``: the dialect has no matcher on this event).
    ``answers``: what the agent reads from this event's answers, for the docs and the reader
    (``""``: the answer is ignored, the event only observes). ``matches_text``: the matcher is
    a regular expression searched in free text (Cursor's shell command), never a list of names.
    """

    name: str
    fields: Mapping[str, Field] = field(default_factory=dict)
    when: Callable[[Mapping[str, Any]], bool] | None = None
    matcher: str | None = None
    tool: bool = False
    answers: str = ""
    matches_text: bool = False

    def applies(self, kwargs: Mapping[str, Any]) -> bool:
        """Whether the host's arguments are an occurrence of this event."""
        return self.when is None or bool(self.when(kwargs))


@dataclass(frozen=True)
class EventMeta:
    """Everything a hookspec declares about its event (read by :mod:`hermes_hooks.catalogue`).

    ``hermes_returns_ignored``: Hermes ignores the return values of ``register_hook`` callbacks
    on this event, so we do too for Hermes-style plugins. ``plain_text_context``: a shell hook's
    plain (non-JSON) stdout is context for the model, as in Claude Code. ``subtypes``: the event
    types one event carries (``gateway_event``'s ``agent:start``, ...) with their context keys.
    ``required``: the arguments a host must pass (a transform's value always is).
    ``continues``: an answer keeps the agent working instead of letting it stop (Claude Code's
    ``Stop``), so shell hooks are told ``stop_hook_active`` and capped at
    ``hooks_max_stop_continues`` answers in a row. ``dialects``: the events of other agents'
    hook dialects this event stands for, by dialect (``{"gemini": (AgentEvent(...),)}``); their
    names are not aliases (they are read only in that agent's files, or with its ``protocol``).
    """

    answer: AnswerType
    aliases: tuple[str, ...] = ()
    claude: tuple[ClaudeEvent, ...] = ()
    docker: tuple[str, ...] = ()
    example: Mapping[str, Any] = field(default_factory=dict)
    hermes_returns_ignored: bool = False
    plain_text_context: bool = False
    continues: bool = False
    subtypes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    dialects: Mapping[str, tuple[AgentEvent, ...]] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return self.answer.kind

    def all_aliases(self) -> tuple[str, ...]:
        names = [c.name for c in self.claude] + list(self.docker) + list(self.aliases)
        return tuple(dict.fromkeys(names))


#: The key under which :meth:`Dialect.payload` (of the shell hooks' dialects) passes the working
#: directory to the field readers.
CWD = "\0cwd"
#: How much of a file a ``beforeReadFile`` payload carries (Cursor sends the content).
READ_CAP = 1 << 20


def tool_is(*names: str) -> Callable[[Mapping[str, Any]], bool]:
    """An occurrence test: the host's tool is one of ``names``."""

    def when(kwargs: Mapping[str, Any]) -> bool:
        return kwargs.get("tool_name") in names

    when.__doc__ = f"tool_name in {names!r}"
    when.about = ", ".join(f"`{n}`" for n in names)  # type: ignore[attr-defined]  # for the docs
    return when


def mcp_tool(kwargs: Mapping[str, Any]) -> bool:
    """An occurrence test: the host's tool is an MCP server's (``mcp_…`` / ``mcp__…``)."""
    return str(kwargs.get("tool_name") or "").startswith("mcp")


mcp_tool.about = "MCP tools"  # type: ignore[attr-defined]  # for the docs


def arg_of(name: str, default: Any = "") -> Field:
    """The tool argument ``name`` (``args[name]``)."""

    def read(kwargs: Mapping[str, Any]) -> Any:
        args = kwargs.get("args")
        value = args.get(name) if isinstance(args, Mapping) else None
        return default if value is None else value

    read.__doc__ = f"args[{name!r}]"
    return read


def cwd(kwargs: Mapping[str, Any]) -> Any:
    """The working directory."""
    return kwargs.get(CWD, "")


def args_text(kwargs: Mapping[str, Any]) -> Any:
    """The tool arguments as a JSON string."""
    return json.dumps(kwargs.get("args") or {}, ensure_ascii=False)


def result_text(kwargs: Mapping[str, Any]) -> Any:
    """The host's ``result`` as text."""
    result = kwargs.get("result")
    if result is None or isinstance(result, str):
        return result or ""
    return json.dumps(result, ensure_ascii=False, default=str)


def file_content(kwargs: Mapping[str, Any]) -> Any:
    """The content of the file the tool reads (up to :data:`READ_CAP` bytes), ``""`` when it
    cannot be read."""
    args = kwargs.get("args")
    path = args.get("path") or args.get("file_path") if isinstance(args, Mapping) else None
    if not isinstance(path, str) or not path:
        return ""
    try:
        with open(path, "rb") as handle:
            return handle.read(READ_CAP).decode("utf-8", "replace")
    except (OSError, ValueError):
        return ""


def edits(kwargs: Mapping[str, Any]) -> Any:
    """Cursor's ``edits``: ``[{old_string, new_string}]`` of a patch or a whole-file write."""
    args = kwargs.get("args")
    if not isinstance(args, Mapping):
        return []
    if "old_string" in args or "new_string" in args:
        return [
            {"old_string": args.get("old_string", ""), "new_string": args.get("new_string", "")}
        ]
    return [{"old_string": "", "new_string": args.get("content", "")}]


def gemini_tool_response(kwargs: Mapping[str, Any]) -> Any:
    """Gemini CLI's ``tool_response``: ``llmContent`` and ``returnDisplay`` (and ``error``)."""
    text = result_text(kwargs)
    out: dict[str, Any] = {"llmContent": text, "returnDisplay": text}
    if kwargs.get("status") == "error":
        out["error"] = {"message": kwargs.get("error_message") or text}
    return out


def copilot_tool_result(kwargs: Mapping[str, Any]) -> Any:
    """Copilot's ``toolResult``: ``resultType`` and ``textResultForLlm``."""
    status = kwargs.get("status")
    kind = {"error": "failure", "blocked": "denied"}.get(str(status), "success")
    return {"resultType": kind, "textResultForLlm": result_text(kwargs)}


def llm_request(kwargs: Mapping[str, Any]) -> Any:
    """Gemini CLI's ``llm_request``: the model and the messages (role and text)."""
    messages = []
    for item in kwargs.get("conversation_history") or []:
        if isinstance(item, Mapping):
            role = "model" if item.get("role") == "assistant" else item.get("role", "user")
            content = item.get("content")
            messages.append({"role": role, "content": content if isinstance(content, str) else ""})
    if kwargs.get("user_message"):
        messages.append({"role": "user", "content": kwargs["user_message"]})
    return {"model": kwargs.get("model") or "", "messages": messages, "config": {}}


def llm_response(kwargs: Mapping[str, Any]) -> Any:
    """Gemini CLI's ``llm_response``: one candidate holding the assistant's text."""
    text = kwargs.get("assistant_response") or ""
    return {"candidates": [{"content": {"role": "model", "parts": [text]}, "finishReason": "STOP"}]}


def millis(kwargs: Mapping[str, Any]) -> Any:
    """Now, in milliseconds since the epoch (Copilot's ``timestamp``)."""
    return int(time.time() * 1000)


def duration(kwargs: Mapping[str, Any]) -> Any:
    """The host's ``duration_ms`` (left out when unset)."""
    value = kwargs.get("duration_ms")
    return OMIT if value is None else value
