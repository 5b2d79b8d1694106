"""Internal: part of the built-ins (docs/builtins.md), not an API.

Reading shell hooks from the config: ``hooks:`` in ``config.yaml`` (Hermes schema) and the
``hooks`` of Claude Code ``settings.json`` files, every problem reported with its file, event and
entry index. Event names are resolved with the runtime's catalogue, so events a host added with
``hooks.add_hookspecs`` can have shell hooks too.
"""

from __future__ import annotations

import logging
import math
import re
import shlex
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hermes_hooks import catalogue, wire
from hermes_hooks import dialects as agent_dialects
from hermes_hooks.catalogue import EventInfo, UnknownEvent
from hermes_hooks.contract import AgentEvent

from . import dialects, kinds, unreadable
from .matching import DEFAULT_TIMEOUT, MAX_TIMEOUT, ShellHook, claude_names

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
_PROTOCOL_NAMES = {"hermes": wire.HERMES, "claude-code": wire.CLAUDE, "claude_code": wire.CLAUDE,
                   "claude": wire.CLAUDE, **dialects.PROTOCOL_NAMES}  # fmt: skip


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
        #: (:mod:`.unreadable`).
        self.unreadable: list[ShellHook] = []

    @property
    def fail_closed_events(self) -> frozenset[str]:
        return self.manager.fail_closed_events

    def mark(self) -> tuple[int, int]:
        """Where the hooks and problems read so far end (for :func:`.unreadable.record`)."""
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
                from .claude_entries import UNFIRED

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
                unreadable.record(self, entries, guarded, name, 0, origin, f"hooks.{name} in {origin}",
                                since)  # fmt: skip
                continue
            if entries is None:
                continue
            if not isinstance(entries, list):
                since = self.mark()
                self.warn(
                    f"hooks.{name} in {origin}: must be a list of hooks, not {type(entries).__name__}; skipped"
                )
                unreadable.record(self, entries, [info], name, 0, origin, f"hooks.{name} in {origin}",
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
                    unreadable.record(self, entry, [info], name, index, origin,
                                    f"hooks.{name}[{index}] in {origin}", since)  # fmt: skip

    def dialect_block(self, name: str, entries: Any, origin: str, root: str | None) -> bool:
        """Entries under another agent's event name, each with that agent's ``protocol``."""
        if not isinstance(entries, list) or not entries:
            return False
        found = [dialects.event_named(_PROTOCOL_NAMES.get(str(e.get("protocol", "")).lower(), ""),
                                      name, self.manager.events) if isinstance(e, Mapping)
                 else None for e in entries]  # fmt: skip
        if any(info is None for info in found):
            return False
        for index, (info, entry) in enumerate(zip(found, entries, strict=True)):
            assert info is not None
            self.entry(info, name, index, entry, origin, wire.HERMES, None, root)
        return True

    def claude_group(self, info: EventInfo, name: str, index: int, group: Mapping[str, Any], origin: str,
                     plugin_root: str | None) -> None:  # fmt: skip
        """One Claude Code matcher group (:mod:`.claude_entries`)."""
        from .claude_entries import read_group

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
        if protocol == wire.HERMES:
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
        hook.occurrence, wrong = dialects.occurrence(protocol, name, info)
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
        if hook.protocol != wire.HERMES and matcher in ("", "*"):
            return
        if not matcher:
            return
        if isinstance(hook.occurrence, AgentEvent):
            if hook.occurrence.matcher is None:
                self.warn(f"{where}: matcher {matcher!r} is ignored: {hook.occurrence.name} has "
                          "no matcher, so the hook fires on every call")  # fmt: skip
            else:
                agent = agent_dialects.get(hook.protocol)
                hook.matcher = matcher if agent is None or agent.trims_matcher else raw
            return
        if hook.protocol == wire.CLAUDE:
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
        if hook.protocol == wire.HERMES and (named := claude_names(matcher)):
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
