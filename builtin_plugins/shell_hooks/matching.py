"""Internal: part of the built-ins (docs/builtins.md), not an API.

One configured shell hook: whether it fires for an occurrence of its event (its matcher, its
Claude Code ``if`` rule) and the dialect it speaks.

What a matcher tests comes from the event's contract (:class:`~hermes_hooks.contract.
ClaudeEvent`): a Hermes matcher tests the tool name of a tool event; a Claude Code matcher tests
the field the Claude Code event declares (``tool_name``, ``source``, ``trigger``, ...). A hook
configured under a Claude Code name (``PostToolUseFailure``) hears only the occurrences that
name stands for.

Claude Code permission rules as hook filters: the ``if`` field of a ``settings.json`` hook
handler (``"if": "Bash(git *)"``, ``"Edit(*.ts)"``, ``"mcp__github"``).

A rule is ``Tool`` or ``Tool(specifier)``. The tool part is Claude Code's tool name (the host's
tool is compared under its Claude Code name, :mod:`.protocol`); an MCP rule
``mcp__server`` (or ``mcp__server__*``) takes every tool of that server. The specifier depends
on the tool:

- ``Bash``: the command, ``*`` standing for any text; ``prefix:*`` (the older form) and a
  trailing `` *`` mean "this command, alone or with arguments". A compound command
  (``a && b``, ``a | b``, ``a; b``, subshells, ``$()``, ``bash -c '...'``, wrappers such as
  ``sudo``/``timeout``) matches when one simple command it would run does
  (:mod:`hermes_hooks.shell_syntax`); a command that cannot be read matches (the hook runs: a
  filter must not silence a guard on what it cannot read).
- ``Read``, ``Edit``, ``Write``, ``MultiEdit``, ``NotebookEdit``, ``Glob``, ``Grep``: the file
  path, gitignore-style: ``*.ts`` anywhere, ``/src/**`` under the project directory, ``//abs``
  an absolute path, ``~/x`` under the home directory, ``./x`` under the working directory.
- ``WebFetch``: ``domain:example.com`` (that host or its subdomains); a URL that cannot be
  parsed matches.
- any other tool: the specifier is compared with the tool's first string argument.

Shell hooks written for another agent (Gemini CLI, Codex, Cursor, Copilot): the payload
that agent would send, the variables it sets, and how its answers read as ours. The dialects
themselves are :mod:`.dialects`; this module joins them to one configured hook.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from hermes_hooks.catalogue import EventInfo, suggest
from hermes_hooks.contract import AgentEvent, ClaudeEvent

from . import consent, dialects, protocol
from .dialects.base import (
    CLAUDE_NAMES,
    CLAUDE_SEPARATORS,
    SHELL,
    Translate,
    js_regex,
)

DEFAULT_TIMEOUT = 60
#: Hook kinds that run nothing here: they send the payload to a URL (their gate: the allow-list).
REMOTE_KINDS = frozenset({"http", "prompt"})
#: The kind of a guard entry that cannot be read: nothing runs, its events fail closed
#: (:func:`.config.record`).
UNREADABLE = "unreadable"
MAX_TIMEOUT = 300
#: :attr:`ShellHook.key`: event, event as written, matcher, what runs, the settings.
HookKey = tuple[str, str, str | None, str, str]


def claude_names(matcher: str) -> list[tuple[str, str | None]]:
    """The Claude Code tool names a Hermes-protocol matcher names (``Bash`` in ``Bash|Write``),
    each with the host's name for it, or ``None`` when the matcher names that too."""
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", matcher))
    return [
        (word, None if protocol.host_tool_name(word) in words else protocol.host_tool_name(word))
        for word in sorted(words)
        if word in protocol.FROM_CLAUDE
    ]


@dataclass
class ShellHook:
    """One configured shell hook."""

    event: str  # our event name
    configured_event: str  # as written in the file (an alias, maybe)
    command: str
    origin: str  # the file it came from
    index: int
    matcher: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    fail_closed: bool = False
    priority: int = 0
    env: dict[str, str] = field(default_factory=dict)
    working_dir: str | None = None
    name: str = ""
    protocol: str = protocol.HERMES
    plugin_root: str | None = None
    #: Extra files (or directories) the approval pins: what the hook loads that its command
    #: does not name.
    pin: list[str] = field(default_factory=list)
    #: Host variables passed through with ``hooks_env: minimal``.
    env_passthrough: list[str] = field(default_factory=list)
    #: The host argument the matcher tests (``None``: the matcher is ignored).
    match_field: str | None = None
    #: The matched value is a host tool name, also tried under its Claude Code name.
    match_tool: bool = False
    pattern: re.Pattern[str] | None = None
    #: A guard: when it cannot run (unapproved, changed, not runnable), its event fails closed.
    required: bool = False
    #: ``{payload: {...}, expect: DECISION}``: what ``hermes hooks verify`` fires and expects.
    canary: dict[str, Any] | None = None
    #: The Claude Code event the hook was configured under, when it names one: the hook hears
    #: only the occurrences that event stands for.
    occurrence: ClaudeEvent | AgentEvent | None = None
    #: How the hook runs: ``command`` (a process per firing) or another transport the runner
    #: knows (:attr:`~builtin_plugins.shell_hooks.execution.Runner.transports`).
    kind: str = "command"
    #: The entry's settings for its kind (an http hook's url and headers, ...).
    options: dict[str, Any] = field(default_factory=dict)
    #: Claude Code's ``if``: a permission rule the tool call must match for the hook to run.
    condition: Rule | None = None
    #: Claude Code's exec form (``args``): ``command`` is the program, run without a shell.
    exec_args: tuple[str, ...] | None = None
    #: Claude Code's ``async``: runs in the background; its answer decides nothing.
    background: bool = False
    #: Claude Code's ``asyncRewake``: a background hook whose exit 2 wakes the model with its
    #: stderr (:mod:`.background`).
    rewake: bool = False
    #: Where the entry is, when that is not ``hooks.EVENT[INDEX]`` (a handler of a Claude Code
    #: group, a whole event's list).
    place: str | None = None
    #: The configuration entry the hook was read from, in config.yaml's shape (a Claude Code
    #: handler as a matcher group of its own, ``{matcher, hooks: [handler]}``; another agent's
    #: entry as the reader converted it): what ``hermes hooks import`` writes.
    entry: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    #: Read from a project's own file (``.claude/settings.json`` of the working directory):
    #: whoever wrote the repository wrote it, so whatever its kind it runs only once approved.
    project: bool = False

    @property
    def key(self) -> HookKey:
        """What makes two entries the same hook: identical ones run once. Everything that
        changes how or whether the hook runs and what its failure does counts (its env,
        ``fail_closed``, ``required``, timeout, working dir, protocol, ...); only where it was
        written and its ``name`` do not, so merging never drops a guard's settings."""
        ident = self.command
        if self.exec_args is not None:
            ident += "\0args=" + json.dumps(list(self.exec_args))
        if self.condition is not None:
            ident += "\0if=" + self.condition.text
        if self.kind != "command":
            ident += f"\0{self.kind}"
        settings = {
            "timeout": self.timeout,
            "fail_closed": self.fail_closed,
            "required": self.required,
            "priority": self.priority,
            "env": sorted(self.env.items()),
            "working_dir": self.working_dir,
            "protocol": self.protocol,
            "plugin_root": self.plugin_root,
            "pin": list(self.pin),
            "env_passthrough": list(self.env_passthrough),
            "canary": self.canary and {k: v for k, v in self.canary.items() if k != "where"},
            "async": (self.background, self.rewake),
            "options": self.options,
        }
        text = json.dumps(settings, sort_keys=True, default=str)
        return (self.event, self.configured_event, self.matcher, ident, text)

    @property
    def approval_key(self) -> tuple[str, str | None, str]:
        """What an approval covers (the allowlist keys it by event, matcher and command)."""
        return (self.event, self.matcher, self.command)

    @property
    def where(self) -> str:
        return self.place or f"hooks.{self.configured_event}[{self.index}] in {self.origin}"

    @property
    def runs_code(self) -> bool:
        """Whether something on this machine runs for it (a command, a warm worker, an MCP tool
        call the host makes); an http or prompt hook only sends data."""
        return self.kind not in REMOTE_KINDS and self.kind != UNREADABLE

    @property
    def needs_approval(self) -> bool:
        """Whether it runs only once approved (``hermes hooks approve``): every hook that runs
        code, and an http or prompt hook read from a project's file. An http or prompt hook of
        the user's own config (config.yaml, the home's ``settings.json``, the user's Claude Code
        settings) has the URL allow-list as its gate; one a repository brings would otherwise
        decide (an ``allow`` skips the host's approval prompt) with nobody's consent."""
        return self.runs_code or (self.project and self.kind in REMOTE_KINDS)

    @property
    def approve_command(self) -> str:
        """The command that approves this hook, quoted for a message: `hermes hooks approve …`."""
        return f"`hermes hooks approve {shlex.quote(self.command)}`"

    @property
    def remedy(self) -> str:
        """How to let the hook run when it is not allowed to: approve it; an http or prompt
        hook whose URL is refused says what its entry needs (its URL allow-listed)."""
        if self.needs_approval and not self.options.get("refused"):
            return f"approve it: {self.approve_command}"
        return str(self.options.get("remedy") or "fix its entry")

    def matches(self, kwargs: Mapping[str, Any]) -> bool:
        """Whether this hook fires for these event arguments."""
        if self.occurrence is not None and not self.occurrence.applies(kwargs):
            return False
        if self.condition is not None and not self._condition_holds(kwargs):
            return False
        if self.matcher is None:
            return True
        if isinstance(self.occurrence, AgentEvent):
            dialect = dialects.get(self.protocol)
            if dialect is not None:
                return dialect.matches(self.occurrence, self.matcher, kwargs)
        if self.match_field is None:
            return True
        value = kwargs.get(self.match_field)
        if not isinstance(value, str):
            return False
        if self.protocol == protocol.CLAUDE:
            candidates = [value]
            if self.match_tool:
                candidates.insert(0, protocol.claude_tool_name(value) or value)
            return dialects.matches(self.matcher, candidates, names=CLAUDE_NAMES,
                                    separators=CLAUDE_SEPARATORS, regex=js_regex)  # fmt: skip
        candidates = [value]
        if self.match_tool:  # a Hermes matcher naming Claude Code tools (claude_names)
            candidates.append(protocol.claude_tool_name(value) or value)
        if self.pattern is not None:
            return any(self.pattern.fullmatch(v) is not None for v in candidates)
        return self.matcher in candidates

    def _condition_holds(self, kwargs: Mapping[str, Any]) -> bool:
        assert self.condition is not None
        cwd = consent.current_dir()
        # The project the hook runs for: its entry's CLAUDE_PROJECT_DIR (an imported entry
        # names its project), else the host's, else the working directory, as in static_env.
        project = self.env.get("CLAUDE_PROJECT_DIR") or os.environ.get("CLAUDE_PROJECT_DIR") or cwd
        return self.condition.matches(
            kwargs.get("tool_name"), kwargs.get("args"), cwd=cwd, project=project
        )

    def argv(self, env: Mapping[str, str]) -> list[str]:
        """The argv to run: Claude Code hooks (and other agents') through ``/bin/sh -c`` (or the
        shell their agent runs them with: Gemini CLI's and Codex's ``bash -c``); Hermes
        hooks split with ``shlex`` and every token expanded (``~``, ``$VAR``), without a shell;
        Claude Code's exec form (``args``) is the program and its arguments as written, each
        expanded the same way, without a shell."""
        if self.exec_args is not None:
            return [consent.expand(token, env) for token in (self.command, *self.exec_args)]
        if self.protocol != protocol.HERMES:
            agent = dialects.get(self.protocol)
            shell = agent.shell if agent else SHELL
            if shell != SHELL and consent.which(shell[0], env, None) is None:
                shell = SHELL  # no bash here: the shell every agent falls back to
            return [*shell, self.command]
        return [consent.expand(token, env) for token in self.tokens]

    @functools.cached_property
    def tokens(self) -> tuple[str, ...]:
        """The command split with ``shlex`` (once: the command never changes)."""
        return tuple(shlex.split(self.command))

    def cwd(self, env: Mapping[str, str]) -> str | None:
        """The directory the hook runs in (``None``: the host's)."""
        if not self.working_dir:
            return None
        return os.path.normpath(
            os.path.join(consent.current_dir(), consent.expand(self.working_dir, env))
        )

    def pins(self, env: Mapping[str, str]) -> consent.Pins:
        """What the command runs and the files whose hash the approval pins
        (:mod:`.consent`)."""
        cwd = self.cwd(env) or consent.current_dir()
        extra = consent.files_in([consent.expand(p, env) for p in self.pin], cwd)
        if self.kind == "mcp_tool" or self.kind in REMOTE_KINDS:
            # Nothing on disk runs: the approval covers the entry (server, tool, input; url,
            # prompt, model, base_url: ``binding``).
            return consent.Pins(None, tuple(extra))
        if self.protocol != protocol.HERMES and self.exec_args is None:
            return consent.of_shell(self.command, cwd, env, extra)
        try:
            argv = self.argv(env)
        except ValueError as exc:
            return consent.Pins(None, tuple(extra), f"the command cannot be split: {exc}")
        return consent.of_argv(argv, cwd, env, extra)

    def scripts(self, env: Mapping[str, str]) -> list[str]:
        """The files whose hash the approval pins."""
        return list(self.pins(env).files)

    @property
    def binding(self) -> str:
        """A hash of what else the approval covers besides command, event and matcher: the
        protocol (a shell runs a Claude Code command), the entry's env (``PYTHONPATH``,
        ``BASH_ENV`` change what runs), its working dir and its ``pin:`` list."""
        bound: dict[str, Any] = {
            "protocol": self.protocol,
            "env": sorted(self.env.items()),
            "working_dir": self.working_dir,
            "pin": list(self.pin),
        }
        if self.env_passthrough:
            bound["env_passthrough"] = sorted(self.env_passthrough)
        if self.exec_args is not None:
            bound["args"] = list(self.exec_args)
        if self.kind == "mcp_tool":
            bound["mcp_tool"] = self.options
        elif self.kind in REMOTE_KINDS:  # where the payload goes and what is asked there
            bound[self.kind] = self.options.get("pinned")
        text = json.dumps(bound, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()

    def row(self) -> dict[str, Any]:
        """The hook's part of its ``hermes hooks list`` row."""
        return {
            "event": self.event,
            "name": self.name,
            "source": "shell",
            "command": self.command,
            "matcher": self.matcher,
            "timeout": self.timeout,
            "protocol": self.protocol,
            "fail_closed": self.fail_closed,
            "required": self.required,
            "canary": self.canary,
            "priority": self.priority,
            "origin": self.origin,
            "configured_event": self.configured_event,
            "type": self.kind,
            "if": self.condition.text if self.condition is not None else None,
            "args": list(self.exec_args) if self.exec_args is not None else None,
            "async": self.background,
            "async_rewake": self.rewake,
            "persistent": self.kind == "worker",
            "warm": bool(self.options.get("warm")),
        }


_PATH_TOOLS = {"Read": "file_path", "Edit": "file_path", "Write": "file_path",
               "MultiEdit": "file_path", "NotebookEdit": "notebook_path", "Glob": "path",
               "Grep": "path"}  # fmt: skip
_RULE = re.compile(r"\s*([A-Za-z0-9_.:*-]+)\s*(?:\((.*)\))?\s*", re.DOTALL)
_SPLIT = re.compile(r"\s*(?:&&|\|\||;|\||&|\n)\s*")


class BadRule(ValueError):
    """The text is not a permission rule."""


@dataclass(frozen=True)
class Rule:
    """One permission rule, compiled."""

    text: str
    tool: str
    specifier: str | None

    @classmethod
    def parse(cls, text: str) -> Rule:
        match = _RULE.fullmatch(text)
        if match is None:
            raise BadRule(f"{text!r} is not a permission rule (Tool or Tool(specifier))")
        tool, spec = match.group(1), match.group(2)
        if spec is not None:
            spec = spec.strip()
            if spec in ("", "*"):
                spec = None
        return cls(text, tool, spec)

    def matches(self, tool_name: Any, args: Any, *, cwd: str, project: str) -> bool:
        """Whether a call of the host tool ``tool_name`` with ``args`` matches this rule."""
        if not isinstance(tool_name, str):
            return False
        claude = protocol.claude_tool_name(tool_name) or tool_name
        if not self._tool_matches(claude) and not self._tool_matches(tool_name):
            return False
        if self.specifier is None:
            return True
        given = protocol.args_to_claude(tool_name, args)
        given = given if isinstance(given, Mapping) else {}
        if claude == "Bash" or self.tool == "Bash":
            command = given.get("command")
            return isinstance(command, str) and bash_matches(self.specifier, command)
        if self.tool in _PATH_TOOLS:
            path = given.get(_PATH_TOOLS[self.tool]) or given.get("file_path") or given.get("path")
            return isinstance(path, str) and path_matches(self.specifier, path, cwd, project)
        if self.tool == "WebFetch":
            return _domain_matches(self.specifier, given.get("url"))
        value = next((v for v in given.values() if isinstance(v, str)), None)
        return value is not None and _glob(self.specifier).fullmatch(value) is not None

    def _tool_matches(self, name: str) -> bool:
        if self.tool == name:
            return True
        if self.tool.startswith("mcp__"):
            server = self.tool[:-3] if self.tool.endswith("__*") else self.tool
            return server.count("__") == 1 and name.startswith(server + "__")
        return False


@functools.lru_cache(maxsize=256)  # a rule's specifier is translated once, not at every firing
def _glob(pattern: str, *, slash: bool = False) -> re.Pattern[str]:
    """``*`` (and ``**``) as regex; with ``slash``, ``*`` stays within one path segment."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            if slash and pattern.startswith("/", i):
                out[-1] = "(?:.*/)?"
                i += 1
        elif pattern[i] == "*":
            out.append("[^/]*" if slash else ".*")
            i += 1
        elif pattern[i] == "?" and slash:
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out), re.DOTALL)


def bash_matches(spec: str, command: str) -> bool:
    """Whether a Bash specifier matches ``command`` or one simple command it would run (read
    by :mod:`hermes_hooks.shell_syntax`: ``(rm -rf x)``, ``FOO=1 rm``, ``timeout 5 rm`` and
    ``bash -c 'rm ...'`` all run ``rm``), as written or as it runs (quotes removed, path and
    wrappers stripped). A line the parser cannot read matches: the hook runs."""
    from hermes_hooks.shell_syntax import parse

    if spec.endswith(":*"):
        spec = spec[:-2].rstrip() + " *"
    parsed = parse(command)
    if parsed.error is not None:
        return True
    parts = [p for p in _SPLIT.split(command.strip()) if p]
    for simple in parsed.commands:
        parts += simple.readings
    return any(_one_command(spec, p) for p in [command.strip(), *parts] if p)


def _one_command(spec: str, command: str) -> bool:
    if spec.endswith(" *") and command == spec[:-2].rstrip():
        return True  # "git *" also takes a bare "git"
    return _glob(spec).fullmatch(command) is not None


def path_matches(spec: str, path: str, cwd: str, project: str) -> bool:
    """Whether a gitignore-style path specifier matches ``path`` (absolute or relative to
    ``cwd``)."""
    target = os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))
    if spec.startswith("//"):
        base, pattern = "/", spec[2:]
    elif spec.startswith("~/"):
        base, pattern = os.path.expanduser("~"), spec[2:]
    elif spec.startswith("/"):
        base, pattern = project, spec[1:]
    elif spec.startswith("./"):
        base, pattern = cwd, spec[2:]
    elif "/" in spec.rstrip("/"):
        base, pattern = cwd, spec
    else:  # a bare name or glob: at any depth
        return _glob(spec, slash=True).fullmatch(os.path.basename(target)) is not None
    base = os.path.normpath(base)
    rel = os.path.relpath(target, base) if target != base else "."
    if rel.startswith(".."):
        return False
    pattern = pattern.rstrip("/")
    regex = _glob(pattern, slash=True)
    return (
        regex.fullmatch(rel) is not None
        or _glob(pattern + "/**", slash=True).fullmatch(rel) is not None
    )


def _domain_matches(spec: str, url: Any) -> bool:
    if not isinstance(url, str) or not spec.startswith("domain:"):
        return False
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        # A URL that cannot be read (``http://[::1``) matches: the hook runs, as for a Bash
        # command the parser cannot read (a filter must not silence a guard on it).
        return True
    want = spec[len("domain:") :].strip().lower()
    if want.startswith("*."):
        return host.endswith(want[1:])
    return host == want or host.endswith("." + want)


def chosen(hook: ShellHook, info: EventInfo, kwargs: Mapping[str, Any]) -> AgentEvent | None:
    """The dialect event this firing is, for ``hook``: the one it was configured under."""
    if isinstance(hook.occurrence, AgentEvent):
        return hook.occurrence
    dialect = dialects.get(hook.protocol)
    return info.dialect_event(dialect.name, kwargs) if dialect else None


def payload(
    hook: ShellHook, info: EventInfo, kwargs: Mapping[str, Any], cwd: str
) -> dict[str, Any] | None:
    """What the hook's agent would send it, or ``None`` for Hermes and Claude Code hooks."""
    dialect = dialects.get(hook.protocol)
    if dialect is None:
        return None
    return dialect.payload(info, kwargs, cwd, chosen(hook, info, kwargs))


def payload_key(hook: ShellHook) -> str:
    """Hooks with the same key get the same payload at one firing."""
    occurrence = hook.occurrence.name if isinstance(hook.occurrence, AgentEvent) else ""
    return f"{hook.protocol}:{occurrence}"


def env(hook: ShellHook, cwd: str) -> dict[str, str]:
    """The variables the hook's agent sets for its hooks."""
    dialect = dialects.get(hook.protocol)
    return dialect.env(cwd) if dialect else {}


def output(
    hook: ShellHook, returncode: int | None, stdout: bytes, stderr: bytes
) -> tuple[int | None, bytes, bytes]:
    """A run's exit code, stdout and stderr as our protocol reads them, by the hook's agent's
    own rules for streams and exit codes (unchanged for Hermes and Claude Code hooks)."""
    dialect = dialects.get(hook.protocol)
    if dialect is None or dialect.output is None:
        return returncode, stdout, stderr
    return dialect.output(returncode, stdout, stderr)


def translate(hook: ShellHook, info: EventInfo, kwargs: Mapping[str, Any]) -> Translate | None:
    """How the hook's answers read as ours (``None``: ours or Claude Code's already)."""
    dialect = dialects.get(hook.protocol)
    if dialect is None:
        return None
    event = chosen(hook, info, kwargs)
    tool = kwargs.get("tool_name")

    def read(raw: dict[str, Any]) -> tuple[Any, list[str]]:
        unknown = sorted(set(map(str, raw)) - dialect.answer_keys)
        notes = [
            f"unknown {dialect.label} answer key {key!r} ignored"
            + (f" (did you mean {hint!r}?)" if (hint := suggest(key, dialect.answer_keys)) else "")
            for key in unknown
        ]
        if event is not None and not event.answers:
            if any(k not in ("systemMessage", "suppressOutput") for k in raw):
                return None, [f"{dialect.label} ignores the answer of {event.name}; so do we"]
            return None, notes
        if unknown and dialect.answer_keys:
            # reported as ignored, so ignored: a stray Hermes "action" decides nothing
            raw = {k: v for k, v in raw.items() if k in dialect.answer_keys}
        answer, more = dialect.translate(info, event, raw, tool if isinstance(tool, str) else None)
        return answer, notes + more

    return Translate(read, dialect.plain_text_context)


#: ``protocol:`` values naming a dialect (besides the dialects' own names).
PROTOCOL_NAMES = {
    **{name: name for name in dialects.DIALECTS},
    "gemini-cli": "gemini",
    "gemini_cli": "gemini",
    "github-copilot": "copilot",
}


def event_named(protocol: str, name: str, events: Mapping[str, EventInfo]) -> EventInfo | None:
    """Our event that the dialect event ``name`` of ``protocol`` stands for, if any."""
    found = dialects.lookup(protocol, name, events.values()) if dialects.get(protocol) else None
    return found[0] if found else None


def occurrence(protocol: str, name: str, info: EventInfo) -> tuple[AgentEvent | None, str | None]:
    """The dialect event a hook of ``protocol`` configured under ``name`` hears, and why it
    cannot be read (the dialect has no event for ours). Under our own name it hears the
    dialect's general event (one without an occurrence test), else the first declared."""
    dialect = dialects.get(protocol)
    if dialect is None:
        return None, None
    declared = info.dialect_events(dialect.name)
    named = next((e for e in declared if e.name == name), None)
    if named is not None:
        return named, None
    if not declared:
        return None, f"{dialect.label} has no event for {info.name}"
    return next((e for e in declared if e.when is None), declared[0]), None
