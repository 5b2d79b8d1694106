"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

What a hook dialect of another agent is: how it names tools and their arguments, the fields
every payload of it carries, how its answers read as ours, and where its configuration lives.

One :class:`Dialect` per agent (:mod:`.gemini`, :mod:`.codex`, :mod:`.cursor`,
:mod:`.copilot`); its events are declared on the hookspecs (``dialects=`` of
:func:`hermes_hooks.markers.event`, :class:`~hermes_hooks.contract.AgentEvent`).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from hermes_hooks.catalogue import EventInfo
from hermes_hooks.contract import CWD, OMIT, AgentEvent

#: A hook run's exit code, stdout and stderr.
Output = tuple["int | None", bytes, bytes]

#: An answer as one of ours reads it (Claude Code / Hermes shape), and the notes on what the
#: agent's answer said that cannot be carried over (reported, never silent).
Translated = tuple[Any, list[str]]


#: What runs another agent's hook command, unless its dialect says otherwise.
SHELL = ("/bin/sh", "-c")
#: What a plain list of names looks like in a matcher (``Bash|Edit``, ``run_shell_command``); any
#: other matcher is a regular expression.
NAMES = re.compile(r"[\w|.-]+")
PIPE = re.compile(r"\|")
#: Claude Code's list of names (2.1.330, on the events whose matcher names tools, sources, ...):
#: ASCII letters, digits, ``_``, ``-``, spaces, split on ``|`` or ``,`` with each name trimmed
#: (``Write, Bash`` names Bash; ``Write Bash`` is one name). A ``.`` makes it a regex.
CLAUDE_NAMES = re.compile(r"[A-Za-z0-9_|, -]+")
CLAUDE_SEPARATORS = re.compile(r"[|,]")


#: Where a note goes on what an agent cannot take from a hook (reported once by the caller).
Note = Callable[[str], None]


def reads_answer(chosen: Any, *words: str) -> bool:
    """Whether the agent reads this kind of answer on ``chosen``: a Claude Code event reads
    every kind; another agent's event what its declaration's ``answers`` says (``""``: any)."""
    if not isinstance(chosen, AgentEvent):
        return True
    answers = chosen.answers
    if not answers or answers == "ignored":
        return False
    return any(w in answers for w in words)


@dataclass(frozen=True)
class Speech:
    """Our answers written as one agent reads them from a command hook's stdout: the other
    direction of :attr:`Dialect.translate`, owned by the same module (Claude Code's is
    :data:`~builtin_plugins.shell_hooks.protocol.CLAUDE_SPEECH`). What to say is decided by the
    caller (``hermes_hooks.serve.answering``: an answer the agent cannot take becomes a block);
    these only write it.

    ``context(event, text)``: context for the model. ``block(chosen, event, reason)``: a block
    of a prompt or a compaction (``None``: the agent cannot be blocked there by a hook).
    ``stop(reason)``: keep working (a stop hook's block). ``tool(chosen, event, word, message,
    args, context, note)``: a tool call's answer, ``word`` ``deny``, ``ask``, ``allow`` or
    ``None``, ``args`` a rewritten input in the agent's names (``note`` takes what it cannot
    carry). ``prompt_rewrite(event, text)``: a rewritten prompt (``None``: the agent takes none
    from a hook). ``permission(event, behavior, message, args)``: a permission request's
    answer (``None``: the agent has none).
    """

    context: Callable[[str, str], dict[str, Any]]
    block: Callable[[Any, str, str], dict[str, Any] | None]
    stop: Callable[[str], dict[str, Any]]
    tool: Callable[
        [Any, str, str | None, str | None, Mapping[str, Any] | None, str | None, Note],
        dict[str, Any],
    ]
    prompt_rewrite: Callable[[str, str], dict[str, Any]] | None = None
    permission: (
        Callable[[str, str, str | None, Mapping[str, Any] | None], dict[str, Any]] | None
    ) = None


@dataclass(frozen=True)
class Dialect:
    """One agent's hook dialect.

    ``tools``: host tool name -> (the agent's tool name, host argument -> the agent's argument).
    ``tool_keys``: the payload keys of the tool's name and arguments. ``args_as_text``: the
    arguments are sent as a JSON string (Copilot's ``toolArgs``). ``common``: the fields every
    payload carries, from the host's arguments, the working directory and the event's name.
    ``translate``: the agent's answer (a parsed JSON object) as one of ours, for one event;
    ``speech``: ours written as the agent reads them (:class:`Speech`, the other direction).
    ``timeout_unit``: seconds per unit of the configured ``timeout`` (Gemini: milliseconds).
    ``default_timeout``: the seconds an entry without a timeout gets (``None``: ours).
    ``plain_text_context``: plain stdout is context, as in Claude Code (Codex), or ignored and
    reported. ``env``: the variables the agent gives its hooks (from the project dir).
    ``matcher_names``: more names a matcher may use for a tool (none of the dialects has any).
    ``answer_keys``: the top-level keys of an answer the agent defines (others are reported).
    ``list_names``: what a matcher that is a list of exact names looks like (``None``: every
    matcher is a regular expression, searched in the value). ``exact_occurrence``: a matcher
    on an event that is no tool call (a session's ``source``, a ``trigger``) must equal the value
    (Gemini CLI), rather than be read like a tool matcher. ``output``: the agent's own rules
    for which stream holds the answer and what an exit code means, as the exit code, stdout and
    stderr our shell protocol reads (``None``: Claude Code's rules). ``trims_matcher``: spaces
    around a matcher are dropped (Codex keeps them: ``" Bash"`` is a regex that never matches).
    ``shell``: what runs a hook's command (the command is its last argument).
    """

    name: str
    label: str
    tools: Mapping[str, tuple[str, Mapping[str, str]]]
    common: Callable[[Mapping[str, Any], str, str], dict[str, Any]]
    translate: Callable[[EventInfo, AgentEvent | None, dict[str, Any], str | None], Translated]
    speech: Speech
    tool_keys: tuple[str, str] = ("tool_name", "tool_input")
    args_as_text: bool = False
    timeout_unit: float = 1.0
    default_timeout: float | None = None
    plain_text_context: bool = False
    answer_keys: frozenset[str] = frozenset()
    env: Callable[[str], dict[str, str]] = field(default=lambda cwd: {})
    matcher_names: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    list_names: re.Pattern[str] | None = NAMES
    exact_occurrence: bool = False
    trims_matcher: bool = True
    shell: tuple[str, ...] = SHELL
    output: Callable[[int | None, bytes, bytes], Output] | None = None

    # ------------------------------------------------------------------ tools

    def tool_name(self, host: Any) -> Any:
        """The agent's name for a host tool (the host's name when it has none)."""
        entry = self.tools.get(host) if isinstance(host, str) else None
        return entry[0] if entry else host

    def tool_args(self, host: Any, args: Any) -> Any:
        """Host arguments renamed as the agent names them."""
        entry = self.tools.get(host) if isinstance(host, str) else None
        if entry is None or not isinstance(args, Mapping):
            return args
        return {entry[1].get(k, k): v for k, v in args.items()}

    def args_back(self, host: Any, args: Any) -> Any:
        """Arguments in the agent's names (a rewrite) renamed back to the host's."""
        entry = self.tools.get(host) if isinstance(host, str) else None
        if entry is None or not isinstance(args, Mapping):
            return args
        back = {v: k for k, v in entry[1].items()}
        return {back.get(k, k): v for k, v in args.items()}

    def names_of(self, host: Any) -> list[str]:
        """Every name a matcher may use for a host tool: the agent's, its extra names, ours."""
        agent = self.tool_name(host)
        names = [agent, *self.matcher_names.get(agent, ()), host]
        return [n for n in dict.fromkeys(names) if isinstance(n, str)]

    # ------------------------------------------------------------------ payloads

    def payload(
        self, info: EventInfo, kwargs: Mapping[str, Any], cwd: str, chosen: AgentEvent | None
    ) -> dict[str, Any]:
        """What the agent sends its hook for this occurrence of ``info``'s event."""
        chosen = chosen or info.dialect_event(self.name, kwargs)
        out = self.common(kwargs, cwd, chosen.name if chosen else info.name)
        if chosen is None:
            for key, value in kwargs.items():  # an event the agent lacks: our arguments
                out.setdefault(key, value)
            return out
        if chosen.tool:
            tool = kwargs.get("tool_name")
            args = self.tool_args(tool, kwargs.get("args") or {})
            name_key, args_key = self.tool_keys
            out[name_key] = self.tool_name(tool)
            out[args_key] = json.dumps(args, ensure_ascii=False) if self.args_as_text else args
        known = {**kwargs, CWD: cwd}
        for key, read in chosen.fields.items():
            value = read(known)
            if value is not OMIT:
                out[key] = value
        return out

    def matches(self, chosen: AgentEvent, matcher: str, kwargs: Mapping[str, Any]) -> bool:
        """Whether ``matcher`` on ``chosen`` selects this firing, read as the agent reads it."""
        values = self.match_values(chosen, kwargs)
        if self.exact_occurrence and not chosen.tool and not chosen.matches_text:
            return matcher in ("", "*") or matcher in values
        # no list of names in this agent's grammar: every matcher is a regex searched in the value
        searched = chosen.matches_text or self.list_names is None
        return matches(matcher, values, searched, self.list_names or NAMES)

    def match_values(self, chosen: AgentEvent, kwargs: Mapping[str, Any]) -> list[str]:
        """The values a matcher on ``chosen`` is tried against."""
        if chosen.matcher is None:
            return []
        if chosen.matcher == self.tool_keys[0] and chosen.tool:
            return self.names_of(kwargs.get("tool_name"))
        read = chosen.fields.get(chosen.matcher)
        value = read(kwargs) if read is not None else kwargs.get(chosen.matcher)
        return [value] if isinstance(value, str) else []


# ---------------------------------------------------------------------- helpers for dialects


def iso_now() -> str:
    """An ISO 8601 time stamp in UTC (Gemini CLI's ``timestamp``)."""
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


def matches(
    matcher: str,
    values: list[str],
    text: bool = False,
    names: re.Pattern[str] = NAMES,
    separators: re.Pattern[str] = PIPE,
    regex: Callable[[str], re.Pattern[str] | None] | None = None,
) -> bool:
    """A dialect matcher: ``*`` or empty matches all; a list of names (``names`` says what one
    looks like, ``separators`` what splits it; each name trimmed) matches exactly; anything else
    is a regular expression searched in the value (``regex`` reads it in the agent's own
    grammar: :func:`js_regex`), or the matcher itself when it is no valid regex (Gemini, Codex,
    Cursor and Claude Code all read matchers this way). ``text``: the value is free text (a
    command), so the matcher is always searched in it."""
    if matcher in ("", "*"):
        return True
    if not text and names.fullmatch(matcher):
        listed = [name.strip() for name in separators.split(matcher)]
        return any(v in listed for v in values if v)
    if regex is not None:
        found = regex(matcher)
        if found is None:
            return False  # no valid regex in the agent's grammar: it matches nothing
        return any(found.search(v) for v in values)
    try:
        pattern = re.compile(matcher)  # re keeps compiled patterns: no cost per firing
    except re.error:
        return matcher in values
    return any(pattern.search(v) for v in values)


#: Escapes that mean something in a JavaScript regular expression; any other escaped ASCII
#: letter is the letter itself there (``\A`` is ``A``), while Python reads ``\A``, ``\Z`` as
#: anchors or refuses the rest.
_JS_ESCAPES = frozenset("dDwWsSbBnrtvf0123456789xuk")
#: Groups only Python has: ``(?P<n>``, ``(?P=n)``, inline flags ``(?i)``, comments ``(?#``.
_PYTHON_ONLY_GROUP = re.compile(r"\(\?(?:P|#|[aiLmsux-]+\))")


@functools.lru_cache(maxsize=512)
def js_regex(source: str) -> re.Pattern[str] | None:
    r"""A JavaScript regular expression (``new RegExp(source)``, no flags) as a Python pattern
    that matches the same tool names, or ``None`` when JavaScript refuses it (it then matches
    nothing in Claude Code and Gemini CLI). Named groups are JavaScript's ``(?<n>...)`` and
    ``\k<n>``; Python-only syntax is refused as JavaScript refuses it."""
    if _PYTHON_ONLY_GROUP.search(source):
        return None
    out: list[str] = []
    i = 0
    while i < len(source):
        c = source[i]
        if c == "\\" and i + 1 < len(source):
            nxt = source[i + 1]
            if nxt == "k" and (m := re.match(r"<(\w+)>", source[i + 2 :])):
                out.append(f"(?P={m.group(1)})")
                i += 2 + m.end()
                continue
            if nxt.isascii() and nxt.isalpha() and nxt not in _JS_ESCAPES:
                out.append(nxt)  # an identity escape in JavaScript
            else:
                out.append(c + nxt)
            i += 2
            continue
        if source.startswith("(?<", i) and not source.startswith(("(?<=", "(?<!"), i):
            out.append("(?P<")
            i += 3
            continue
        out.append(c)
        i += 1
    try:
        return re.compile("".join(out))
    except re.error:
        return None


def block_unknown(info: EventInfo, label: str, key: str, value: Any) -> Translated:
    """A decision value the agent does not define: a guard that cannot be read blocks (where
    the event can block), never lets the action through."""
    note = f"{label} answer {key}={value!r} is not a value {label} defines"
    if not info.can_block:
        return None, [note + "; ignored"]
    message = f"{note}; blocked (a guard that cannot be read never lets the action through)"
    return {"decision": "block", "reason": message}, [message]


class Translate:
    """Reads another agent's parsed answer as one of ours: a callable returning the answer in
    a shape our answer types read (``None``: nothing to read) and notes on what could not be
    carried over; ``plain_text``: plain stdout may be context, as in Claude Code."""

    def __init__(self, read: Callable[[dict[str, Any]], tuple[Any, list[str]]], plain_text: bool):
        self.read, self.plain_text = read, plain_text

    def __call__(self, raw: dict[str, Any]) -> tuple[Any, list[str]]:
        return self.read(raw)


#: The top-level answer keys of the agents whose answers are shaped like Claude Code's.
CLAUDE_SHAPED_KEYS = frozenset(
    {"continue", "stopReason", "systemMessage", "suppressOutput", "decision", "reason",
     "hookSpecificOutput"}
)  # fmt: skip
