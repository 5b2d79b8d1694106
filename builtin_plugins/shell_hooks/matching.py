"""Internal: part of the built-ins (docs/builtins.md), not an API.

One configured shell hook, and whether it fires for an occurrence of its event.

What a matcher tests comes from the event's contract (:class:`~hermes_hooks.contract.
ClaudeEvent`): a Hermes matcher tests the tool name of a tool event; a Claude Code matcher tests
the field the Claude Code event declares (``tool_name``, ``source``, ``trigger``, ...). A hook
configured under a Claude Code name (``PostToolUseFailure``) hears only the occurrences that
name stands for.
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

from hermes_hooks import consent, dialects, pinning, resolve, wire
from hermes_hooks.contract import AgentEvent, ClaudeEvent
from hermes_hooks.dialects.base import CLAUDE_NAMES, CLAUDE_SEPARATORS, SHELL, js_regex

from .rules import Rule

DEFAULT_TIMEOUT = 60
#: Hook kinds that run nothing here: they send the payload to a URL (their gate: the allow-list).
REMOTE_KINDS = frozenset({"http", "prompt"})
#: The kind of a guard entry that cannot be read: nothing runs, its events fail closed
#: (:mod:`.unreadable`).
UNREADABLE = "unreadable"
MAX_TIMEOUT = 300
#: :attr:`ShellHook.key`: event, event as written, matcher, what runs, the settings.
HookKey = tuple[str, str, str | None, str, str]


def claude_names(matcher: str) -> list[tuple[str, str | None]]:
    """The Claude Code tool names a Hermes-protocol matcher names (``Bash`` in ``Bash|Write``),
    each with the host's name for it, or ``None`` when the matcher names that too."""
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", matcher))
    return [
        (word, None if wire.host_tool_name(word) in words else wire.host_tool_name(word))
        for word in sorted(words)
        if word in wire.FROM_CLAUDE
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
    protocol: str = wire.HERMES
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
        if self.protocol == wire.CLAUDE:
            candidates = [value]
            if self.match_tool:
                candidates.insert(0, wire.claude_tool_name(value) or value)
            return dialects.matches(self.matcher, candidates, names=CLAUDE_NAMES,
                                    separators=CLAUDE_SEPARATORS, regex=js_regex)  # fmt: skip
        candidates = [value]
        if self.match_tool:  # a Hermes matcher naming Claude Code tools (claude_names)
            candidates.append(wire.claude_tool_name(value) or value)
        if self.pattern is not None:
            return any(self.pattern.fullmatch(v) is not None for v in candidates)
        return self.matcher in candidates

    def _condition_holds(self, kwargs: Mapping[str, Any]) -> bool:
        assert self.condition is not None
        cwd = resolve.current_dir()
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
        if self.protocol != wire.HERMES:
            agent = dialects.get(self.protocol)
            shell = agent.shell if agent else SHELL
            if shell != SHELL and resolve.which(shell[0], env, None) is None:
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
            os.path.join(resolve.current_dir(), consent.expand(self.working_dir, env))
        )

    def pins(self, env: Mapping[str, str]) -> pinning.Pins:
        """What the command runs and the files whose hash the approval pins
        (:mod:`hermes_hooks.pinning`)."""
        cwd = self.cwd(env) or resolve.current_dir()
        extra = pinning.files_in([consent.expand(p, env) for p in self.pin], cwd)
        if self.kind == "mcp_tool" or self.kind in REMOTE_KINDS:
            # Nothing on disk runs: the approval covers the entry (server, tool, input; url,
            # prompt, model, base_url: ``binding``).
            return pinning.Pins(None, tuple(extra))
        if self.protocol != wire.HERMES and self.exec_args is None:
            return pinning.of_shell(self.command, cwd, env, extra)
        try:
            argv = self.argv(env)
        except ValueError as exc:
            return pinning.Pins(None, tuple(extra), f"the command cannot be split: {exc}")
        return pinning.of_argv(argv, cwd, env, extra)

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
