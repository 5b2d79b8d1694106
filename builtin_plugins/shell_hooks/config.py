"""Internal: part of the built-ins (docs/builtins.md), not an API.

Reading shell hooks from every file they are configured in: where each is, each file's shape, a
Claude Code matcher group, and what becomes of a guard entry that cannot be read.

Reading shell hooks from the config: ``hooks:`` in ``config.yaml`` (Hermes schema) and the
``hooks`` of Claude Code ``settings.json`` files, every problem reported with its file, event and
entry index. Event names are resolved with the runtime's catalogue, so events a host added with
``hooks.add_hookspecs`` can have shell hooks too.

Where every shell hook is configured: ``hooks:`` of config.yaml, Claude Code
``settings.json`` files, and, when ``hooks_sources`` names them, the hook files of other agents
where each keeps them (Codex, Gemini CLI, Cursor, GitHub Copilot). Each agent's file is read in
its own shape; every entry becomes a :class:`ShellHook` speaking that agent's dialect, and every
key, event or entry that cannot be carried over is reported with its file and entry.

Where Claude Code keeps hooks, for ``hooks_sources: [claude]``: the user's
``~/.claude/settings.json``, the project's ``.claude/settings.json`` and
``.claude/settings.local.json``, and the ``hooks/hooks.json`` of every plugin those settings
enable (``enabledPlugins``) that ``~/.claude/plugins/installed_plugins.json`` says where it is
installed. ``$CLAUDE_CONFIG_DIR`` moves the user's folder, as it does for Claude Code.

Claude Code ``settings.json`` files (and a Claude Code plugin's ``hooks/hooks.json``): their
``hooks`` read with the same :class:`Reader` as config.yaml's, every problem reported
with the file.

Reading one Claude Code matcher group of a ``settings.json``: ``{matcher, hooks: [handler,
...]}``, and the handler fields only Claude Code has.

Handler fields read here (every other key goes through the common entry reader, which reports
unknown ones):

- ``type``: ``command`` (default), ``http`` and ``prompt`` (read by :mod:`.kinds`, like the
  config.yaml entries of those types), or ``mcp_tool`` (``server``, ``tool``, ``input``: the
  host calls the tool, :mod:`.mcp`);
- ``args``: the exec form: ``command`` is the program, ``args`` its arguments, no shell;
- ``if``: a permission rule (:class:`~.matching.Rule`) the tool call must match; only on events about one
  tool call (``ClaudeEvent.tool``), as in Claude Code (elsewhere the hook never runs, and that
  is reported);
- ``async`` / ``asyncRewake``: run in the background (:mod:`.background`);
- ``onFailure``: ``"block"`` makes a failed run (crash, timeout, invalid JSON) block, which is
  our ``fail_closed``; ``"continue"`` is the default;
- ``statusMessage``: the spinner text Claude Code shows while the hook runs; accepted, no effect.

Guard entries that cannot be read: an entry that says it is a guard (``required: true``,
``fail_closed: true``, Claude Code's ``onFailure: block``) but that the reader has to skip (a
typo such as ``comand:``, a misspelt event, a malformed Claude Code group, ``args`` that is not
a list) must not leave its event unguarded: it would block if it ran and failed, so it blocks
when it cannot even be read.

Such an entry becomes a hook of type ``unreadable``: nothing runs for it, its consent is
``refused`` with what the reader found, so at each firing it answers as a ``fail_closed`` hook
that was not run: a block naming the entry, the file and the fix. Its events are the event it
is configured under; under an unknown event name, every event that guards an action
(``pre_tool_call``, ``permission_request``: the answer type's ``guards_actions``), as for a
required plugin whose events are unknown. It is listed (status ``refused``) and fails
``hermes hooks doctor``.
"""

from __future__ import annotations

import glob
import json
import logging
import math
import os
import re
import shlex
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks import catalogue
from hermes_hooks.catalogue import EventInfo, UnknownEvent
from hermes_hooks.contract import AgentEvent

from . import consent, dialects, kinds, matching, processes
from .matching import (
    DEFAULT_TIMEOUT,
    MAX_TIMEOUT,
    UNREADABLE,
    BadRule,
    Rule,
    ShellHook,
    claude_names,
)
from .protocol import CLAUDE, HERMES

if TYPE_CHECKING:
    from hermes_hooks.manager import HookManager

log = logging.getLogger("hermes_hooks")

ENTRY_KEYS = (
    "command",
    "matcher",
    "timeout",
    "fail_closed",
    "priority",
    "env",
    "working_dir",
    "name",
    "protocol",
    "required",
    "canary",
    "pin",
    "env_passthrough",
    "sequential",
    "persistent",
    "warm",
)
#: The entry types (``type:``); ``builtin`` entries are read by the built-ins
#: (``builtin_plugins/switches.py``), ``http`` and ``prompt`` by :mod:`.kinds`.
KINDS = ("command", "http", "prompt", "builtin")
RESERVED = frozenset({"output_spill"})  # sub-sections Hermes keeps under hooks:, not events
_PROTOCOL_NAMES = {"hermes": HERMES, "claude-code": CLAUDE, "claude_code": CLAUDE,
                   "claude": CLAUDE, **matching.PROTOCOL_NAMES}  # fmt: skip


class Reader:
    """Turns config entries into :class:`ShellHook` objects, warning about every problem with
    the file, the event and the entry index."""

    def __init__(self, manager: HookManager) -> None:
        self.problems: list[str] = []
        self.hooks: list[ShellHook] = []
        #: Guards (hooks that can stop an action in their agent) that could not be carried over.
        self.guards: list[str] = []
        self.manager = manager
        #: config.yaml's ``allowed_http_hook_urls`` and ``allowed_env_vars`` (http, prompt).
        self.settings: Mapping[str, Any] = {}
        #: Guard entries that cannot be read, as hooks that block their events
        #: (:func:`record`).
        self.unreadable: list[ShellHook] = []

    @property
    def fail_closed_events(self) -> frozenset[str]:
        return self.manager.fail_closed_events

    def mark(self) -> tuple[int, int]:
        """Where the hooks and problems read so far end (for :func:`record`)."""
        return len(self.hooks), len(self.problems)

    def warn(self, message: str) -> None:
        self.problems.append(message)
        log.warning("%s", message)

    def block(
        self, block: Any, origin: str, default_protocol: str, plugin_root: str | None = None
    ) -> None:
        """Read a whole ``hooks:`` mapping (Hermes or Claude Code shape)."""
        if block is None:
            return
        if not isinstance(block, Mapping):
            self.warn(f"hooks in {origin}: must be a mapping of event name to a list of hooks, "
                      f"not {type(block).__name__}; no shell hook was loaded from it")  # fmt: skip
            return
        for event_name, entries in block.items():
            name = str(event_name)
            if name in RESERVED:
                continue
            try:
                info = self.manager.event(name)
            except UnknownEvent as exc:
                if name in UNFIRED:
                    self.warn(f"hooks.{name} in {origin}: Claude Code's {name} never fires in "
                              f"Hermes ({UNFIRED[name]}); skipped")  # fmt: skip
                    continue
                if self.dialect_block(name, entries, origin, plugin_root):
                    continue
                since = self.mark()
                hint = f" (did you mean {exc.suggestion!r}?)" if exc.suggestion else ""
                self.warn(f"hooks.{name} in {origin}: unknown event {name!r}{hint}; skipped "
                          "(`hermes hooks events` lists the events)")  # fmt: skip
                guarded = [i for i in self.manager.events.values() if i.answer.guards_actions]
                record(self, entries, guarded, name, 0, origin, f"hooks.{name} in {origin}",
                                since)  # fmt: skip
                continue
            if entries is None:
                continue
            if not isinstance(entries, list):
                since = self.mark()
                self.warn(
                    f"hooks.{name} in {origin}: must be a list of hooks, not {type(entries).__name__}; skipped"
                )
                record(self, entries, [info], name, 0, origin, f"hooks.{name} in {origin}",
                                since)  # fmt: skip
                continue
            for index, entry in enumerate(entries):
                if isinstance(entry, Mapping) and "hooks" in entry and "command" not in entry:
                    self.claude_group(info, name, index, entry, origin, plugin_root)
                else:
                    since = self.mark()
                    self.entry(
                        info, name, index, entry, origin, default_protocol, None, plugin_root
                    )
                    record(self, entry, [info], name, index, origin,
                                    f"hooks.{name}[{index}] in {origin}", since)  # fmt: skip

    def dialect_block(self, name: str, entries: Any, origin: str, root: str | None) -> bool:
        """Entries under another agent's event name, each with that agent's ``protocol``."""
        if not isinstance(entries, list) or not entries:
            return False
        found = [matching.event_named(_PROTOCOL_NAMES.get(str(e.get("protocol", "")).lower(), ""),
                                      name, self.manager.events) if isinstance(e, Mapping)
                 else None for e in entries]  # fmt: skip
        if any(info is None for info in found):
            return False
        for index, (info, entry) in enumerate(zip(found, entries, strict=True)):
            assert info is not None
            self.entry(info, name, index, entry, origin, HERMES, None, root)
        return True

    def claude_group(self, info: EventInfo, name: str, index: int, group: Mapping[str, Any], origin: str,
                     plugin_root: str | None) -> None:  # fmt: skip
        """One Claude Code matcher group (:func:`read_group`)."""

        read_group(self, info, name, index, group, origin, plugin_root)

    def entry(self, info: EventInfo, name: str, index: int, raw: Any, origin: str, default_protocol: str,
              sub: int | None, plugin_root: str | None) -> ShellHook | None:  # fmt: skip
        """Read one entry; the hook it adds (``None``: skipped, and reported)."""
        where = (
            f"hooks.{name}[{index}]"
            + (f".hooks[{sub}]" if sub is not None else "")
            + f" in {origin}"
        )
        if not isinstance(raw, Mapping):
            self.warn(
                f"{where}: must be a mapping with a 'command' key, not {type(raw).__name__}; skipped"
            )
            return None
        kind = raw.get("type", "command")
        if kind == "builtin":
            return None  # a built-in's entry: builtin_plugins/switches.py reads it
        if kind not in KINDS:
            guess = catalogue.suggest(str(kind), KINDS)
            hint = f" (did you mean {guess!r}?)" if guess else ""
            self.warn(f"{where}: unknown hook type {kind!r}{hint}; skipped (types: "
                      f"{', '.join(KINDS)})")  # fmt: skip
            return None
        accepted = ("type", *ENTRY_KEYS) if kind == "command" else kinds.keys(kind)
        for key in raw:
            if key not in accepted:
                guess = catalogue.suggest(str(key), accepted)
                hint = f" (did you mean {guess!r}?)" if guess else ""
                typed = f" for a hook of type {kind!r}" if kind != "command" else ""
                self.warn(f"{where}: unknown key {key!r}{typed}{hint}; ignored")
        if kind != "command":
            return self.typed(
                kind, info, name, index, raw, where, origin, default_protocol, plugin_root
            )
        command = raw.get("command")
        if not isinstance(command, str) or not command.strip():
            self.warn(f"{where}: missing a non-empty 'command'; skipped")
            return None
        command = command.strip()
        protocol = self.protocol(raw, where, default_protocol)
        if protocol == HERMES:
            try:
                if not shlex.split(command):
                    raise ValueError("empty")
            except ValueError as exc:
                self.warn(
                    f"{where}: command {command!r} cannot be split into words ({exc}); skipped"
                )
                return None
        hook = ShellHook(
            event=info.name,
            configured_event=name,
            command=command,
            origin=origin,
            index=index,
            timeout=self.timeout(raw, where, DEFAULT_TIMEOUT),
            fail_closed=bool(raw.get("fail_closed", False) or raw.get("required", False))
            or info.name in self.manager.fail_closed_events,
            required=bool(raw.get("required", False)),
            canary=self.canary(raw.get("canary"), where),
            priority=self.integer(raw.get("priority", 0), f"{where}: priority", 0),
            env=self.env(raw.get("env"), where),
            working_dir=self.text(raw.get("working_dir"), f"{where}: working_dir"),
            name=self.text(raw.get("name"), f"{where}: name") or command,
            protocol=protocol,
            plugin_root=plugin_root,
            pin=self.strings(raw.get("pin"), f"{where}: pin", "file or directory paths"),
            env_passthrough=self.strings(
                raw.get("env_passthrough"), f"{where}: env_passthrough", "variable names"
            ),
        )
        hook.occurrence, wrong = matching.occurrence(protocol, name, info)
        if wrong:
            self.warn(f"{where}: {wrong}; skipped")
            return None
        hook.occurrence = hook.occurrence or info.claude_named(name)
        if raw.get("sequential"):
            hook.options["sequential"] = True
        if self.flag(raw, "persistent", where):
            hook.kind = "worker"  # a warm worker: one kept process (shell_hooks/workers.py)
            hook.options["warm"] = self.flag(raw, "warm", where)
        elif self.flag(raw, "warm", where):
            self.warn(f"{where}: warm: true applies only with persistent: true; ignored")
        self.matcher(hook, info, raw.get("matcher"), where)
        hook.entry = raw
        self.hooks.append(hook)
        return hook

    def typed(self, kind: str, info: EventInfo, name: str, index: int, raw: Mapping[str, Any], where: str,
              origin: str, protocol: str, plugin_root: str | None) -> ShellHook | None:  # fmt: skip
        """An ``http`` or ``prompt`` entry (:mod:`.remote`, :mod:`.judge`)."""
        read = kinds.read(kind, raw, where, self.warn, self.settings, info)
        if read is None:
            return None
        label, options = read
        protocol = self.protocol(raw, where, protocol)
        required = bool(raw.get("required", False))
        hook = ShellHook(
            event=info.name, configured_event=name, command=label, origin=origin,
            index=index, timeout=self.timeout(raw, where, kinds.default_timeout(kind)),
            fail_closed=bool(raw.get("fail_closed", False)) or required
            or info.name in self.manager.fail_closed_events or kinds.fails_closed(kind, options),
            required=required, canary=self.canary(raw.get("canary"), where),
            priority=self.integer(raw.get("priority", 0), f"{where}: priority", 0),
            name=self.text(raw.get("name"), f"{where}: name") or kinds.short(label),
            protocol=protocol, plugin_root=plugin_root, kind=kind, options=options,
        )  # fmt: skip
        hook.occurrence = info.claude_named(name)
        self.matcher(hook, info, raw.get("matcher"), where)
        hook.entry = raw
        self.hooks.append(hook)
        return hook

    def matcher(self, hook: ShellHook, info: EventInfo, raw: Any, where: str) -> None:
        if raw is None:
            return
        if not isinstance(raw, str):
            self.warn(f"{where}: matcher must be a string, not {type(raw).__name__}; ignored")
            return
        matcher = raw.strip()
        if hook.protocol != HERMES and matcher in ("", "*"):
            return
        if not matcher:
            return
        if isinstance(hook.occurrence, AgentEvent):
            if hook.occurrence.matcher is None:
                self.warn(f"{where}: matcher {matcher!r} is ignored: {hook.occurrence.name} has "
                          "no matcher, so the hook fires on every call")  # fmt: skip
            else:
                agent = dialects.get(hook.protocol)
                hook.matcher = matcher if agent is None or agent.trims_matcher else raw
            return
        if hook.protocol == CLAUDE:
            # The field the Claude Code event's matcher tests; a tool event Claude Code does not
            # have matches the tool name; elsewhere Claude Code ignores matchers, and so do we.
            claude = hook.occurrence or (info.claude[0] if info.claude else None)
            if claude is not None:
                hook.match_field, hook.match_tool = claude.matcher, claude.tool
            elif info.tool_event:
                hook.match_field, hook.match_tool = "tool_name", True
            if hook.match_field is None:
                return
        elif info.tool_event:
            hook.match_field = "tool_name"
        else:
            self.warn(f"{where}: matcher {matcher!r} is ignored: {info.name} is not a tool "
                      "event, so the hook fires on every call")  # fmt: skip
            return
        hook.matcher = matcher
        try:
            hook.pattern = re.compile(matcher)
        except re.error as exc:
            self.warn(
                f"{where}: matcher {matcher!r} is not a valid regex ({exc}); matching it literally"
            )
        if hook.protocol == HERMES and (named := claude_names(matcher)):
            hook.match_tool = True  # also tried against Claude Code's name of the host's tool
            said = ", ".join(f"{c!r} (the host's {h!r})" for c, h in named if h)
            if said:
                self.warn(f"{where}: matcher {matcher!r} names Claude Code tool(s) {said}; it "
                          "matches both names, but write the host's name")  # fmt: skip

    def protocol(self, raw: Mapping[str, Any], where: str, default: str) -> str:
        """The entry's ``protocol:`` (``default`` when it has none; an unknown one is reported)."""
        if "protocol" not in raw:
            return default
        chosen = _PROTOCOL_NAMES.get(str(raw.get("protocol")).strip().lower(), "")
        if not chosen:
            self.warn(f"{where}: protocol {raw.get('protocol')!r} is not one of "
                      f"{', '.join(sorted(set(_PROTOCOL_NAMES)))}; using {default!r}")  # fmt: skip
        return chosen or default

    def canary(self, raw: Any, where: str) -> dict[str, Any] | None:
        if raw is None:
            return None
        if not isinstance(raw, Mapping) or not isinstance(raw.get("expect"), str):
            self.warn(f"{where}: canary must be a mapping {{payload: {{...}}, expect: DECISION}} "
                      "(expect: block, allow, approve, none, ...); ignored")  # fmt: skip
            return None
        payload = raw.get("payload", {})
        if not isinstance(payload, Mapping):
            self.warn(
                f"{where}: canary.payload must be a mapping of the event's arguments; ignored"
            )
            return None
        return {"payload": dict(payload), "expect": raw["expect"], "where": where}

    def timeout(self, raw: Mapping[str, Any], where: str, default: float) -> float:
        value = raw.get("timeout", default)
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
            or value <= 0
        ):
            self.warn(
                f"{where}: timeout {value!r} is not a positive number of seconds; using {default:g}"
            )
            return default
        if value > MAX_TIMEOUT:
            self.warn(f"{where}: timeout {value} is over the maximum; clamped to {MAX_TIMEOUT}")
            return MAX_TIMEOUT
        return value

    def flag(self, raw: Mapping[str, Any], key: str, where: str) -> bool:
        value = raw.get(key, False)
        if not isinstance(value, bool):
            self.warn(f"{where}: {key} {value!r} is not true or false; using false")
            return False
        return value

    def integer(self, value: Any, where: str, default: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            self.warn(f"{where} {value!r} is not an integer; using {default}")
            return default
        return value

    def text(self, value: Any, where: str) -> str | None:
        if value is None:
            return None
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            self.warn(f"{where} must be a string; ignored")
            return None
        return str(value)

    def strings(self, value: Any, where: str, what: str) -> list[str]:
        """A list of non-empty strings (one string is a one-item list); else warned, ``[]``."""
        if value is None:
            return []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            self.warn(f"{where} must be a list of {what}; ignored")
            return []
        return list(value)

    def env(self, value: Any, where: str) -> dict[str, str]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            self.warn(f"{where}: env must be a mapping of NAME: value; ignored")
            return {}
        return {str(k): "" if v is None else str(v).lower() if isinstance(v, bool) else str(v)
                for k, v in value.items()}  # fmt: skip


if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

#: ``hooks_sources`` values. ``<home>/settings.json`` and ``hooks_settings_files`` are always read;
#: ``claude`` adds the files Claude Code itself reads (:mod:`.claude_files`).
SOURCES = ("claude", *dialects.DIALECTS)

#: Events each agent has that no event of ours stands for, and why they cannot fire here.
CANNOT_FIRE = {
    "BeforeToolSelection": "the host has no step that chooses the tools offered to the model",
    "errorOccurred": "the host reports errors through notification, not this event",
    "agentStop": "Copilot's stop answers are ignored; the host's stop is pre_verify",
    "subagentStop": "sub-agent stop hooks of this agent are not read yet",
    "subagentStart": "sub-agent start hooks of this agent are not read yet",
    "afterAgentThought": "the host does not report the model's thinking",
    "postToolUseFailure": "Cursor's failure event is not read yet (postToolUse hears failures)",
}
#: The events among those that can stop an action in their agent: a hook there is a guard.
GUARD_NAMES = frozenset({"BeforeToolSelection", "agentStop", "subagentStop"})
#: Events that run here but whose deny cannot: the agent can stop the action, the host cannot.
LOST_DENY = {
    ("gemini", "BeforeModel"): "the host cannot stop or replace a model call from here",
    ("gemini", "AfterModel"): "the host cannot discard or replace a model response from here",
    ("codex", "SubagentStop"): "the host's subagent_stop only observes; it cannot keep one going",
}


# ---------------------------------------------------------------------- each agent's files


def _home(*parts: str) -> Path:
    return Path(os.path.expanduser("~")).joinpath(*parts)


def files_of(source: str, project: Path) -> Iterator[Path]:
    """The files ``source`` keeps its hooks in (user-wide first, then the project's)."""
    if source == "codex":
        codex = Path(os.environ.get("CODEX_HOME") or _home(".codex"))
        yield from (codex / "hooks.json", codex / "config.toml")
        yield from (project / ".codex" / "hooks.json", project / ".codex" / "config.toml")
    elif source == "gemini":
        yield from (_home(".gemini", "settings.json"), project / ".gemini" / "settings.json")
    elif source == "cursor":
        yield from (_home(".cursor", "hooks.json"), project / ".cursor" / "hooks.json")
    elif source == "copilot":
        for folder in copilot_folders(project):
            yield from (Path(p) for p in sorted(glob.glob(str(folder / "*.json"))))


def copilot_folders(project: Path) -> tuple[Path, Path]:
    """The folders whose ``*.json`` files hold GitHub Copilot's hooks: the user's, the project's."""
    user = Path(os.environ.get("COPILOT_HOME") or _home(".copilot")) / "hooks"
    return user, project / ".github" / "hooks"


def read_agent_file(source: str, path: Path, reader: Reader, project: Path) -> None:
    """Read the hooks of one of ``source``'s files into ``reader``."""
    parse = _toml if path.suffix == ".toml" else None
    data = read_object(path, reader, parse)
    if data is None:
        return
    origin = str(path)
    if source == "gemini":
        switch = data.get("hooksConfig")
        if isinstance(switch, Mapping) and switch.get("enabled") is False:
            reader.warn(f"{origin}: hooksConfig.enabled is false; Gemini CLI runs none of its "
                        "hooks, so none was loaded")  # fmt: skip
            return
        hooks = data.get("hooks")
        disabled = set(_names(switch, "disabled")) | set(_names(hooks, "disabled"))
        if isinstance(hooks, Mapping):
            hooks = {k: v for k, v in hooks.items() if k not in ("enabled", "disabled")}
        _block(reader, "gemini", hooks, origin, _grouped("gemini", disabled), None)
        return
    expected = {"codex": {"hooks", "$schema"}, "cursor": {"version", "hooks"},
                "copilot": {"version", "hooks"}}[source]  # fmt: skip
    if path.suffix != ".toml":
        for key in set(map(str, data)) - expected:
            reader.warn(f"{origin}: unknown key {key!r} ignored (expected {sorted(expected)})")
    workdir = None
    if source == "cursor":
        workdir = str(path.parent.parent if path.parent.parent != _home() else path.parent)
    elif source == "copilot":
        workdir = str(project)
    convert = _grouped("codex", set()) if source == "codex" else _flat(source)
    _block(reader, source, data.get("hooks"), origin, convert, workdir)


def _toml(text: str) -> Any:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        raise ValueError("reading TOML needs Python 3.11 or later (tomllib)") from None
    return tomllib.loads(text)


def _names(section: Any, key: str) -> list[str]:
    value = section.get(key) if isinstance(section, Mapping) else None
    return [str(v) for v in value] if isinstance(value, list) else []


#: Turns one configured item (a group or an entry) into our entries: (sub index, entry).
Convert = Callable[[Reader, str, str, Any], list[tuple[int | None, dict[str, Any]]]]


def _block(
    reader: Reader, source: str, block: Any, origin: str, convert: Convert, workdir: str | None
) -> None:
    dialect = dialects.get(source)
    assert dialect is not None
    if block is None:
        return
    if not isinstance(block, Mapping):
        reader.warn(f"hooks in {origin}: must be a mapping of event name to a list; ignored")
        return
    events = reader.manager.events
    known = dialects.names(source, events.values())
    for name, items in block.items():
        name = str(name)
        found = dialects.lookup(source, name, events.values())
        if found is None:
            why = CANNOT_FIRE.get(name)
            hint = catalogue.suggest(name, known) if why is None else None
            text = (f"{dialect.label} event {name!r} cannot fire here ({why})" if why else
                    f"unknown {dialect.label} event {name!r}" +
                    (f" (did you mean {hint!r}?)" if hint else ""))  # fmt: skip
            reader.warn(f"hooks.{name} in {origin}: {text}; its hooks were not loaded")
            if name in GUARD_NAMES and items:
                reader.guards.append(f"hooks.{name} in {origin}: a {dialect.label} guard "
                                     f"that cannot be carried over ({text})")  # fmt: skip
            continue
        info, event = found
        lost = LOST_DENY.get((source, name))
        if lost and items:
            text = f"hooks.{name} in {origin}: its hooks run, but a deny cannot be carried over ({lost})"
            reader.warn(text)
            reader.guards.append(text)
        if not isinstance(items, list):
            reader.warn(f"hooks.{name} in {origin}: must be a list; skipped")
            continue
        for index, item in enumerate(items):
            since = reader.mark()
            for sub, entry in convert(reader, f"hooks.{name}[{index}]", origin, item):
                entry["protocol"] = source
                if "timeout" not in entry and dialect.default_timeout is not None:
                    entry["timeout"] = dialect.default_timeout
                if workdir and "working_dir" not in entry:
                    entry["working_dir"] = workdir
                before = len(reader.hooks)
                reader.entry(info, name, index, entry, origin, source, sub, None)
                if len(reader.hooks) == before and info.can_block and event.answers:
                    reader.guards.append(
                        f"hooks.{name}[{index}] in {origin}: a {dialect.label} guard was not loaded"
                    )
            # a guard entry (failClosed, or under fail_closed_events) that cannot be read
            record(reader, item, [info], name, index, origin,
                              f"hooks.{name}[{index}] in {origin}", since)  # fmt: skip


def _seconds(reader: Reader, where: str, value: Any, unit: float) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        reader.warn(f"{where}: timeout {value!r} is not a positive number; using the default")
        return None
    return float(value * unit)


def _grouped(source: str, disabled: set[str]) -> Convert:
    """Gemini CLI and Codex: ``{matcher, hooks: [{type, command, timeout, ...}]}`` groups."""
    dialect = dialects.get(source)
    assert dialect is not None
    group_keys = {"matcher", "hooks"} | ({"sequential"} if source == "gemini" else set())
    entry_keys = {"gemini": {"type", "command", "name", "timeout", "description"},
                  "codex": {"type", "command", "timeout", "statusMessage"}}[source]  # fmt: skip

    def convert(
        reader: Reader, place: str, origin: str, group: Any
    ) -> list[tuple[int | None, dict[str, Any]]]:
        where = f"{place} in {origin}"
        if not isinstance(group, Mapping) or not isinstance(group.get("hooks"), list):
            reader.warn(f"{where}: must be {{matcher, hooks: [...]}}; skipped")
            return []
        for key in set(map(str, group)) - group_keys:
            reader.warn(f"{where}: unknown key {key!r} ignored (expected {sorted(group_keys)})")
        out: list[tuple[int | None, dict[str, Any]]] = []
        for sub, raw in enumerate(group["hooks"]):
            at = f"{place}.hooks[{sub}] in {origin}"
            if not isinstance(raw, Mapping):
                reader.warn(f"{at}: must be an object; skipped")
                continue
            for key in set(map(str, raw)) - entry_keys:
                reader.warn(f"{at}: unknown key {key!r} ignored (expected {sorted(entry_keys)})")
            if raw.get("type", "command") != "command":
                reader.warn(f"{at}: hook type {raw.get('type')!r} is not supported (only "
                            "'command'); skipped")  # fmt: skip
                continue
            if raw.get("name") in disabled:
                reader.warn(f"{at}: {raw.get('name')!r} is disabled in this file; not loaded")
                continue
            entry: dict[str, Any] = {"command": raw.get("command")}
            for key in ("name", "matcher"):
                value = raw.get(key) if key == "name" else group.get(key)
                if value is not None:
                    entry[key] = value
            if raw.get("timeout") is not None:
                seconds = _seconds(reader, at, raw["timeout"], dialect.timeout_unit)
                if seconds is not None:
                    entry["timeout"] = seconds
            if group.get("sequential") is True:
                entry["sequential"] = True
            out.append((sub, entry))
        return out

    return convert


def _flat(source: str) -> Convert:
    """Cursor and Copilot: a list of entries under each event."""
    keys = {"cursor": {"command", "type", "matcher", "timeout", "failClosed", "loop_limit"},
            "copilot": {"type", "bash", "powershell", "cwd", "env", "timeoutSec", "comment"}}[source]  # fmt: skip

    def convert(
        reader: Reader, place: str, origin: str, raw: Any
    ) -> list[tuple[int | None, dict[str, Any]]]:
        where = f"{place} in {origin}"
        if not isinstance(raw, Mapping):
            reader.warn(f"{where}: must be an object; skipped")
            return []
        for key in set(map(str, raw)) - keys:
            reader.warn(f"{where}: unknown key {key!r} ignored (expected {sorted(keys)})")
        if raw.get("type", "command") != "command":
            reader.warn(f"{where}: hook type {raw.get('type')!r} is not supported (only "
                        "'command'); skipped")  # fmt: skip
            return []
        if source == "cursor":
            entry: dict[str, Any] = {"command": raw.get("command")}
            if raw.get("matcher") is not None:
                entry["matcher"] = raw["matcher"]
            if raw.get("failClosed") is True:
                entry["fail_closed"] = True
            timeout = raw.get("timeout")
        else:
            if not raw.get("bash"):
                reader.warn(f"{where}: no 'bash' command (a 'powershell' one runs on Windows "
                            "only); skipped")  # fmt: skip
                return []
            entry = {"command": raw["bash"]}
            if isinstance(raw.get("env"), Mapping):
                entry["env"] = dict(raw["env"])
            if isinstance(raw.get("cwd"), str):
                entry["working_dir"] = raw["cwd"]
            timeout = raw.get("timeoutSec")
        if timeout is not None:
            seconds = _seconds(reader, where, timeout, 1.0)
            if seconds is not None:
                entry["timeout"] = seconds
        return [(None, entry)]

    return convert


# ---------------------------------------------------------------------- everything


def listed_sources(config: Mapping[str, Any]) -> list[tuple[Any, str]] | None:
    """``hooks_sources`` as written: each item with its name as read (trimmed, lower case);
    ``None`` when it is neither a name nor a list of them."""
    listed = config.get("hooks_sources")
    if listed is None:
        return []
    if isinstance(listed, str):
        listed = [listed]
    if not isinstance(listed, list):
        return None
    return [(item, str(item).strip().lower()) for item in listed]


def sources(config: Mapping[str, Any], reader: Reader, origin: str) -> list[str]:
    """The agents ``hooks_sources`` turns on (unknown names reported)."""
    listed = listed_sources(config)
    if listed is None:
        reader.warn(f"hooks_sources in {origin}: must be a list of {', '.join(SOURCES)}; ignored")
        return []
    chosen = []
    for item, name in listed:
        if name not in SOURCES:
            hint = catalogue.suggest(name, SOURCES)
            reader.warn(f"hooks_sources in {origin}: unknown source {item!r}"
                        + (f" (did you mean {hint!r}?)" if hint else "")
                        + f"; expected {', '.join(SOURCES)}")  # fmt: skip
        elif name not in chosen:
            chosen.append(name)
    return chosen


def reads_sources(config: Mapping[str, Any], agent: str) -> bool:
    """Whether the config's ``hooks_sources`` reads ``agent``'s own hook files in place."""
    return agent in [name for _, name in listed_sources(config) or ()]


#: What the reader takes from config.yaml for http and prompt hooks: the allow-lists.
SETTINGS = ("allowed_http_hook_urls", "allowed_env_vars")


def _real(path: Path) -> str | None:
    """``path`` with its links resolved (``None`` for a name the OS refuses: a NUL byte)."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return None


def load_entries(hooks: Hooks) -> tuple[list[ShellHook], list[str]]:
    """Every shell hook the config declares: ``hooks:`` of config.yaml, then ``settings.json``
    files (``<home>/settings.json`` and ``hooks_settings_files``), then the other agents'
    files ``hooks_sources`` names; and the problems found."""
    config = hooks.config
    reader = Reader(hooks.manager)
    reader.settings = {k: config.get(k) for k in SETTINGS}
    origin = str(hooks.config_path) if hooks.config_path else "the host's config"
    reader.block(config.get("hooks"), origin, HERMES)
    files: list[Path] = []
    default = hooks.home / "settings.json"
    if default.is_file():
        files.append(default)
    listed = config.get("hooks_settings_files")
    if isinstance(listed, str):
        listed = [listed]
    if listed is not None and not isinstance(listed, list):
        reader.warn(f"hooks_settings_files in {origin}: must be a list of paths; ignored")
        listed = []
    base = hooks.config_path.parent if hooks.config_path else hooks.home
    for n, item in enumerate(listed or [], 1):
        if not isinstance(item, str):
            reader.warn(f"hooks_settings_files item {n} in {origin}: {item!r} is not a path; "
                        "write the file's path as a string; ignored")  # fmt: skip
            continue
        path = Path(os.path.expandvars(os.path.expanduser(item)))
        if not path.is_absolute():
            path = base / path
        if path not in files:
            files.append(path)
    project = Path(consent.current_dir())
    chosen = sources(config, reader, origin)

    if "claude" in chosen:  # Claude Code's own files, where Claude Code keeps them
        files += [p for p in claude_files(project, reader.warn) if p.is_file() and p not in files]
    # however it was named (hooks_settings_files too)
    owned = {_real(p) for p in project_settings(project)} - {None}
    for path in files:
        before = len(reader.hooks)
        read_settings_file(path, reader)
        if _real(path) in owned:
            for hook in reader.hooks[before:]:
                hook.project = True
    for source in chosen:
        if source == "claude":
            continue
        for path in files_of(source, project):
            if path.is_file():
                read_agent_file(source, path, reader, project)
    # guard entries that cannot be read block their events (:func:`record`)
    return reader.hooks + reader.unreadable, reader.problems


def user_dir() -> Path:
    """The user's Claude Code folder (``$CLAUDE_CONFIG_DIR``, else ``~/.claude``)."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured) if configured else Path(os.path.expanduser("~")) / ".claude"


def project_settings(project: Path) -> list[Path]:
    """The project's own settings files, shared and local: whoever wrote the repository wrote
    them, so every hook in them needs an approval (``ShellHook.project``)."""
    folder = project / ".claude"
    return [folder / "settings.json", folder / "settings.local.json"]


def settings_files(project: Path) -> list[Path]:
    """The settings files, user-wide first, then the project's shared and local ones."""
    return [user_dir() / "settings.json", *project_settings(project)]


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # the settings reader reports a broken settings file; this only looks


def enabled_plugins(files: Iterable[Path]) -> dict[str, bool]:
    """``enabledPlugins`` of the settings files, later files overriding earlier ones."""
    enabled: dict[str, bool] = {}
    for path in files:
        data = _json(path) if path.is_file() else None
        plugins = data.get("enabledPlugins") if isinstance(data, dict) else None
        if isinstance(plugins, dict):
            enabled.update({str(k): v is True for k, v in plugins.items()})
    return enabled


def plugin_hook_files(enabled: dict[str, bool], warn: Callable[[str], None]) -> list[Path]:
    """``hooks/hooks.json`` of each enabled plugin the install record knows; an enabled plugin
    that is not installed is reported (Claude Code would not run its hooks either)."""
    record = user_dir() / "plugins" / "installed_plugins.json"
    data = _json(record) if record.is_file() else None
    installed = data.get("plugins") if isinstance(data, dict) else None
    installed = installed if isinstance(installed, dict) else {}
    found = []
    for name, on in enabled.items():
        if not on:
            continue
        entries = installed.get(name)
        entries = entries if isinstance(entries, list) else [entries]
        given = [e.get("installPath") for e in entries if isinstance(e, dict)]
        paths = [Path(p) for p in given if isinstance(p, str) and p]
        if not paths:
            warn(f"Claude Code plugin {name!r} is enabled in enabledPlugins but {record} has no "
                 "installPath for it; its hooks were not loaded (install it with Claude Code)")  # fmt: skip
            continue
        hooks = paths[-1] / "hooks" / "hooks.json"
        if hooks.is_file():
            found.append(hooks)
    return found


def claude_files(project: Path, warn: Callable[[str], None]) -> list[Path]:
    """Every Claude Code file with hooks, in the order Claude Code merges them."""
    settings = settings_files(project)
    return [*settings, *plugin_hook_files(enabled_plugins(settings), warn)]


def read_object(path: Path, reader: Reader, parse: Callable[[str], Any] | None = None) -> Any:
    """The top-level object of a hook configuration file (JSON unless ``parse`` is given), or
    ``None`` when it cannot be used (reported with the file: untrusted, unreadable, invalid)."""
    import json

    from hermes_hooks.trust import untrusted

    try:
        distrust = untrusted(path) if path.exists() else None
    except (OSError, ValueError):  # a name stat() refuses (too long, a NUL byte): said below
        distrust = None
    if distrust is not None:
        reader.warn(f"{path}: refused: {distrust}; no shell hook was loaded from it")
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        reader.warn(f"{path}: cannot read: {exc.strerror or exc}; no shell hook was loaded from it")
        return None
    except UnicodeDecodeError as exc:
        reader.warn(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8; "
                    "no shell hook was loaded from it")  # fmt: skip
        return None
    except ValueError:  # a NUL byte in the name
        reader.warn(f"{str(path)!r}: not a valid file name; no shell hook was loaded from it")
        return None
    try:
        data = parse(text) if parse is not None else json.loads(text)
    except json.JSONDecodeError as exc:
        reader.warn(f"{path} at line {exc.lineno}, column {exc.colno}: JSON syntax error: {exc.msg}; "
                    "fix the file (no shell hook was loaded from it)")  # fmt: skip
        return None
    except ValueError as exc:  # TOML (tomllib.TOMLDecodeError is a ValueError)
        reader.warn(f"{path}: syntax error: {exc}; fix the file (no shell hook was loaded from it)")
        return None
    if not isinstance(data, dict):
        reader.warn(f"{path}: the top level must be an object; no shell hook was loaded from it")
        return None
    return data


def read_settings_file(path: Path, reader: Reader) -> None:
    """Read the hooks of a Claude Code ``settings.json`` (or a plugin's ``hooks/hooks.json``)."""
    data = read_object(path, reader)
    if data is None:
        return
    if data.get("disableAllHooks") is True:
        log.info("%s: disableAllHooks is true; its hooks are not loaded", path)
        return
    root = None
    if path.name == "hooks.json" and path.parent.name == "hooks":
        candidate = path.parent.parent
        if (candidate / ".claude-plugin").is_dir():
            root = str(candidate)
    reader.block(data.get("hooks"), str(path), CLAUDE, plugin_root=root)


#: The handler types this reader runs (Claude Code's ``agent`` type is skipped with a warning).
CLAUDE_KINDS = ("command", "http", "prompt", "mcp_tool")
#: Handler fields read here, not by the common entry reader.
CLAUDE_ONLY = frozenset(
    {"type", "args", "if", "async", "asyncRewake", "onFailure", "statusMessage", "server",
     "tool", "input"}
)  # fmt: skip


def read_group(reader: Reader, info: EventInfo, name: str, index: int, group: Mapping[str, Any],
               origin: str, plugin_root: str | None) -> None:  # fmt: skip
    """Read every handler of one matcher group into ``reader``'s hooks."""
    where = f"hooks.{name}[{index}] in {origin}"
    inner = group.get("hooks")
    if not isinstance(inner, list):
        since = reader.mark()
        reader.warn(f"{where}: 'hooks' must be a list of {{type: command, command: ...}}; skipped")
        record(reader, group, [info], name, index, origin, where, since)
        return
    extra = set(map(str, group)) - {"matcher", "hooks"}
    if extra:
        reader.warn(f"{where}: unknown key(s) {', '.join(sorted(extra))} ignored")
    for sub, entry in enumerate(inner):
        here = f"hooks.{name}[{index}].hooks[{sub}] in {origin}"
        since = reader.mark()
        _handler(reader, info, name, index, sub, entry, group, origin, plugin_root)
        record(reader, entry, [info], name, index, origin, here, since)


def _handler(reader: Reader, info: EventInfo, name: str, index: int, sub: int, entry: Any,
             group: Mapping[str, Any], origin: str, plugin_root: str | None) -> None:  # fmt: skip
    """Read one handler of a matcher group into ``reader``'s hooks (or report why not)."""
    here = f"hooks.{name}[{index}].hooks[{sub}] in {origin}"
    if not isinstance(entry, Mapping):
        reader.entry(info, name, index, entry, origin, CLAUDE, sub, plugin_root)
        return
    kind = entry.get("type", "command")
    if kind not in CLAUDE_KINDS:
        reader.warn(f"{here}: hook type {kind!r} is not supported (only "
                    f"{', '.join(map(repr, CLAUDE_KINDS))}); skipped")  # fmt: skip
        return
    common = {k: v for k, v in entry.items() if k not in CLAUDE_ONLY}
    if kind in ("http", "prompt"):
        common["type"] = kind
    if kind == "mcp_tool":
        options = _mcp_options(reader, entry, here)
        if options is None:
            return
        common["command"] = f"mcp_tool {options['server']}/{options['tool']}"
    if "matcher" in group:
        common["matcher"] = group.get("matcher")
    exec_args = None
    if "args" in entry:
        exec_args = _args(reader, entry.get("args"), here)
        if exec_args is None:
            return
    hook = reader.entry(info, name, index, common, origin, CLAUDE, sub, plugin_root)
    if hook is None:
        return
    if kind == "mcp_tool":
        hook.kind, hook.options = "mcp_tool", options or {}
    hook.exec_args = exec_args
    hook.place = here  # messages name the handler, not only its group
    # The handler as written, in a group of its own (what `hermes hooks import` writes).
    hook.entry = {**({"matcher": group["matcher"]} if "matcher" in group else {}), "hooks": [entry]}
    if not _handler_fields(reader, hook, info, entry, here):
        reader.hooks.remove(hook)


def _handler_fields(
    reader: Reader, hook: ShellHook, info: EventInfo, entry: Mapping[str, Any], where: str
) -> bool:
    """Apply ``if``, ``async``, ``asyncRewake`` and ``onFailure``; ``False``: the hook never
    runs (reported)."""
    if "if" in entry:
        rule = entry.get("if")
        claude = hook.occurrence or (info.claude[0] if info.claude else None)
        tool_event = claude.tool if claude is not None else info.tool_event
        if not tool_event:
            reader.warn(f"{where}: 'if' filters tool calls, and {hook.configured_event} has none: "
                        "as in Claude Code this hook never runs; skipped (remove 'if' to run it "
                        "on every occurrence)")  # fmt: skip
            return False
        if not isinstance(rule, str) or not rule.strip():
            reader.warn(f"{where}: 'if' must be a permission rule such as 'Bash(git *)', not "
                        f"{rule!r}; ignored (the hook runs on every call its matcher takes)")  # fmt: skip
        else:
            try:
                hook.condition = Rule.parse(rule)
            except BadRule as exc:
                reader.warn(f"{where}: 'if': {exc}; ignored (the hook runs on every call its "
                            "matcher takes)")  # fmt: skip
    for key, attr in (("async", "background"), ("asyncRewake", "rewake")):
        value = entry.get(key)
        if value is None:
            continue
        if not isinstance(value, bool):
            reader.warn(f"{where}: '{key}' must be true or false, not {value!r}; ignored")
            continue
        setattr(hook, attr, value)
    hook.background = hook.background or hook.rewake
    if hook.background and hook.required:
        reader.warn(f"{where}: a required guard must be able to block, so it runs in the "
                    "foreground: 'async'/'asyncRewake' ignored")  # fmt: skip
        hook.background = hook.rewake = False
    failure = entry.get("onFailure")
    if failure is not None:
        if failure == "block":
            hook.fail_closed = True
        elif failure != "continue":
            reader.warn(f"{where}: onFailure {failure!r} is not 'block' or 'continue'; "
                        "using 'continue'")  # fmt: skip
    if hook.background and hook.fail_closed:
        reader.warn(f"{where}: a background hook's answer decides nothing, so "
                    "onFailure/fail_closed has no effect on it")  # fmt: skip
        hook.fail_closed = False
    return True


def _args(reader: Reader, value: Any, where: str) -> tuple[str, ...] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    reader.warn(f"{where}: 'args' must be a list of strings (the exec form: 'command' is the "
                f"program, run without a shell), not {value!r}; skipped")  # fmt: skip
    return None


def _mcp_options(reader: Reader, entry: Mapping[str, Any], where: str) -> dict[str, Any] | None:
    server, tool, given = entry.get("server"), entry.get("tool"), entry.get("input", {})
    if not isinstance(server, str) or not server.strip():
        reader.warn(f"{where}: an mcp_tool hook needs 'server' (the MCP server's name); skipped")
        return None
    if not isinstance(tool, str) or not tool.strip():
        reader.warn(f"{where}: an mcp_tool hook needs 'tool' (the tool's name); skipped")
        return None
    if not isinstance(given, Mapping):
        reader.warn(f"{where}: 'input' must be an object of the tool's arguments; skipped")
        return None
    return {"server": server.strip(), "tool": tool.strip(), "input": dict(given)}


#: Claude Code events no Hermes hook site stands for, and why (docs/dialects.md, "Claude Code
#: events"): hooks configured under them are reported with the reason and not loaded.
UNFIRED = {
    "UserPromptExpansion": "Hermes' slash commands reach hooks as gateway command:<name> events "
    "(gateway_event), not as prompt expansions",
    "Elicitation": "MCP elicitation stays between the host's MCP client and the server; Hermes "
    "has no hook site for it",
    "ElicitationResult": "MCP elicitation stays between the host's MCP client and the server; "
    "Hermes has no hook site for it",
    "TeammateIdle": "Hermes has no agent teams",
    "TaskCreated": "Hermes has no shared task list of agent teams (its kanban events are "
    "kanban_task_*)",
    "TaskCompleted": "its exit 2 refuses a task's completion, which Hermes' kanban_task_completed "
    "(an observer, after the fact) cannot express",
    "Setup": "Hermes has no init/maintenance run (claude --init / --maintenance)",
    "InstructionsLoaded": "Hermes loads its context files without a hook site",
    "CwdChanged": "Hermes has no hook site for a change of working directory",
    "FileChanged": "Hermes has no file watcher",
    "ConfigChange": "Hermes reads its config at start; nothing fires when it changes",
    "WorktreeCreate": "its hook replaces Claude Code's own worktree creation; Hermes creates its "
    "worktrees without a hook site",
    "WorktreeRemove": "Hermes removes its worktrees without a hook site",
    "MessageDisplay": "it concerns Claude Code's terminal rendering; Hermes' display is the "
    "host's UI",
    "DirectoryAdded": "Hermes has no added working directories (Claude Code's /add-dir)",
}


_DEPTH = 4


def says_guard(raw: Any) -> bool:
    """Whether ``raw`` (an entry, a Claude Code group, a list of them) declares a guard
    anywhere inside: a true ``required`` or ``fail_closed`` (Cursor's ``failClosed``), or
    ``onFailure: block``. A built-in's entry is read by builtin_plugins/switches.py."""

    def guard(entry: Mapping[Any, Any]) -> bool | None:
        if entry.get("type") == "builtin":
            return False
        return (
            entry.get("required") is True
            or entry.get("fail_closed") is True
            or entry.get("failClosed") is True
            or entry.get("onFailure") == "block"
            or None
        )

    return _anywhere(raw, guard, _DEPTH)


def says_required(raw: Any) -> bool:
    """Whether ``raw`` says ``required: true`` anywhere inside."""
    return _anywhere(raw, lambda entry: entry.get("required") is True or None, _DEPTH)


def _anywhere(raw: Any, found: Callable[[Mapping[Any, Any]], bool | None], depth: int) -> bool:
    """Whether ``found`` says yes of a mapping anywhere inside ``raw`` (``False``: not inside
    this one; ``None``: look inside), at most ``depth`` levels down."""
    if depth <= 0:
        return False
    if isinstance(raw, Mapping):
        verdict = found(raw)
        if verdict is not None:
            return verdict
        return any(_anywhere(v, found, depth - 1) for v in raw.values())
    if isinstance(raw, list):
        return any(_anywhere(v, found, depth - 1) for v in raw)
    return False


def record(reader: Reader, raw: Any, events: Sequence[EventInfo], name: str, index: int,
           origin: str, where: str, since: tuple[int, int]) -> None:  # fmt: skip
    """When ``raw`` declares a guard and reading it (since ``reader.mark()`` gave ``since``)
    added no hook, add to ``reader.unreadable`` the hooks that make its events fail closed."""
    if len(reader.hooks) > since[0]:
        return
    named = None
    if isinstance(raw, Mapping) and raw.get("type") == "builtin":
        named = _no_builtin(raw, events)
        if named is None:
            return  # a built-in's entry: read (and reported) by builtin_plugins/switches.py
    # Under config.yaml's fail_closed_events every hook of the event is a guard.
    if not says_guard(raw) and not all(i.name in reader.fail_closed_events for i in events):
        return
    why = reasons(reader.problems[since[1] :], where) + ([named] if named else [])
    lost = hooks_for(events, name, index, origin, where, why, raw)
    reader.unreadable += lost
    reader.guards.append(f"{where}: a guard whose entry cannot be read")
    blocked = " and ".join(h.event for h in lost)
    reader.warn(f"{where}: this entry declares a guard (required / fail_closed / onFailure: "
                f"block / fail_closed_events) but cannot be read, so {blocked} block until it is fixed")  # fmt: skip


def _no_builtin(raw: Mapping[str, Any], events: Sequence[EventInfo]) -> str | None:
    """Why a ``type: builtin`` entry runs no built-in on ``events`` (a name that is none, or one
    that does not serve the event), or ``None`` when it does."""
    from ..switches import SERVES

    name = raw.get("name")
    if not isinstance(name, str) or name not in SERVES:
        return f"{name!r} is no built-in"
    serves = SERVES[name]
    if serves is not None and any(i.name not in serves for i in events):
        return f"built-in {name!r} does not serve {', '.join(i.name for i in events)}"
    return None


def hooks_for(
    events: Sequence[EventInfo],
    name: str,
    index: int,
    origin: str,
    where: str,
    reasons: Sequence[str],
    raw: Any,
) -> list[ShellHook]:
    """The ``unreadable`` hooks standing for the guard entry at ``where``, one per event."""
    found = raw if isinstance(raw, Mapping) else {}
    label = found.get("name") or found.get("command")
    label = label if isinstance(label, str) and label.strip() else "unreadable guard entry"
    why = "; ".join(reasons) or "it is not a hook entry"
    refused = f"its entry cannot be read: {why}"
    remedy = f"fix the entry in {origin}, then check with `hermes hooks doctor`"
    return [
        ShellHook(
            event=info.name,
            configured_event=name,
            command=f"<unreadable entry {where}>",
            origin=origin,
            index=index,
            name=label,
            required=says_required(raw),
            fail_closed=True,
            kind=UNREADABLE,
            options={"refused": refused, "remedy": remedy},
            place=where,
        )
        for info in events
    ]


def reasons(problems: Sequence[str], where: str) -> list[str]:
    """What the reader said about the entry at ``where``, without the place and the
    "skipped"/"ignored" it ended with."""
    out = []
    for text in problems:
        if text.startswith(f"{where}: "):
            text = text[len(where) + 2 :]
        for tail in ("; skipped", "; ignored"):
            if tail in text:
                text = text[: text.rindex(tail)]
        out.append(text)
    return out


class UnreadableTransport:
    """The runner's transport for ``unreadable`` hooks: nothing ever runs (their consent is
    refused); ``problem`` is what ``hermes hooks list`` and ``doctor`` show."""

    def problem(self, hook: ShellHook) -> str | None:
        return "nothing runs: its entry cannot be read"

    def __call__(
        self, batch: Sequence[tuple[ShellHook, processes.Command]]
    ) -> list[processes.Outcome]:
        return [processes.Outcome(error=str(hook.options.get("refused"))) for hook, _ in batch]
