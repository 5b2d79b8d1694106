"""Reading shell hooks from the config: ``hooks:`` in ``config.yaml`` (Hermes schema) and the
``hooks`` of Claude Code ``settings.json`` files, every problem reported with its file, event and
entry index. Event names are resolved with the runtime's catalogue, so events a host added with
``hooks.add_hookspecs`` can have shell hooks too.
"""

from __future__ import annotations

import logging
import math
import os
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks import catalogue, wire
from hermes_hooks.catalogue import EventInfo, UnknownEvent

from .matching import DEFAULT_TIMEOUT, MAX_TIMEOUT, ShellHook

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks
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
    "persistent",
    "warm",
)
RESERVED = frozenset({"output_spill"})  # sub-sections Hermes keeps under hooks:, not events
_PROTOCOL_NAMES = {"hermes": wire.HERMES, "claude-code": wire.CLAUDE, "claude_code": wire.CLAUDE,
                   "claude": wire.CLAUDE}  # fmt: skip


class Reader:
    """Turns config entries into :class:`ShellHook` objects, warning about every problem with
    the file, the event and the entry index."""

    def __init__(self, manager: HookManager) -> None:
        self.problems: list[str] = []
        self.hooks: list[ShellHook] = []
        self.manager = manager

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
                hint = f" (did you mean {exc.suggestion!r}?)" if exc.suggestion else ""
                self.warn(f"hooks.{name} in {origin}: unknown event {name!r}{hint}; skipped "
                          "(`hermes hooks events` lists the events)")  # fmt: skip
                continue
            if entries is None:
                continue
            if not isinstance(entries, list):
                self.warn(
                    f"hooks.{name} in {origin}: must be a list of hooks, not {type(entries).__name__}; skipped"
                )
                continue
            for index, entry in enumerate(entries):
                if isinstance(entry, Mapping) and "hooks" in entry and "command" not in entry:
                    self.claude_group(info, name, index, entry, origin, plugin_root)
                else:
                    self.entry(
                        info, name, index, entry, origin, default_protocol, None, plugin_root
                    )

    def claude_group(self, info: EventInfo, name: str, index: int, group: Mapping[str, Any], origin: str,
                     plugin_root: str | None) -> None:  # fmt: skip
        where = f"hooks.{name}[{index}] in {origin}"
        inner = group.get("hooks")
        if not isinstance(inner, list):
            self.warn(
                f"{where}: 'hooks' must be a list of {{type: command, command: ...}}; skipped"
            )
            return
        extra = set(map(str, group)) - {"matcher", "hooks"}
        if extra:
            self.warn(f"{where}: unknown key(s) {', '.join(sorted(extra))} ignored")
        for sub, entry in enumerate(inner):
            if isinstance(entry, Mapping):
                kind = entry.get("type", "command")
                if kind != "command":
                    self.warn(f"{where}.hooks[{sub}]: hook type {kind!r} is not supported (only "
                              "'command'); skipped")  # fmt: skip
                    continue
                entry = {
                    k: v for k, v in entry.items() if k not in ("type", "async", "statusMessage")
                }
                if "matcher" in group:
                    entry["matcher"] = group.get("matcher")
            self.entry(info, name, index, entry, origin, wire.CLAUDE, sub, plugin_root)

    def entry(self, info: EventInfo, name: str, index: int, raw: Any, origin: str, default_protocol: str,
              sub: int | None, plugin_root: str | None) -> None:  # fmt: skip
        where = (
            f"hooks.{name}[{index}]"
            + (f".hooks[{sub}]" if sub is not None else "")
            + f" in {origin}"
        )
        if not isinstance(raw, Mapping):
            self.warn(
                f"{where}: must be a mapping with a 'command' key, not {type(raw).__name__}; skipped"
            )
            return
        for key in raw:
            if key not in ENTRY_KEYS:
                guess = catalogue.suggest(str(key), ENTRY_KEYS)
                hint = f" (did you mean {guess!r}?)" if guess else ""
                self.warn(f"{where}: unknown key {key!r}{hint}; ignored")
        command = raw.get("command")
        if not isinstance(command, str) or not command.strip():
            self.warn(f"{where}: missing a non-empty 'command'; skipped")
            return
        command = command.strip()
        protocol = default_protocol
        if "protocol" in raw:
            protocol = _PROTOCOL_NAMES.get(str(raw.get("protocol")).strip().lower(), "")
            if not protocol:
                self.warn(f"{where}: protocol {raw.get('protocol')!r} is not 'hermes' or 'claude-code'; "
                          f"using {default_protocol!r}")  # fmt: skip
                protocol = default_protocol
        if protocol == wire.HERMES:
            try:
                if not shlex.split(command):
                    raise ValueError("empty")
            except ValueError as exc:
                self.warn(
                    f"{where}: command {command!r} cannot be split into words ({exc}); skipped"
                )
                return
        hook = ShellHook(
            event=info.name,
            configured_event=name,
            command=command,
            origin=origin,
            index=index,
            timeout=self.timeout(raw, where),
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
            pin=self.pins(raw.get("pin"), where),
            env_passthrough=self.names(raw.get("env_passthrough"), f"{where}: env_passthrough"),
        )
        hook.occurrence = info.claude_named(name)
        if self.flag(raw, "persistent", where):
            hook.kind = "worker"  # a warm worker: one kept process (shell_hooks/workers.py)
            hook.options["warm"] = self.flag(raw, "warm", where)
        elif self.flag(raw, "warm", where):
            self.warn(f"{where}: warm: true applies only with persistent: true; ignored")
        self.matcher(hook, info, raw.get("matcher"), where)
        self.hooks.append(hook)

    def matcher(self, hook: ShellHook, info: EventInfo, raw: Any, where: str) -> None:
        if raw is None:
            return
        if not isinstance(raw, str):
            self.warn(f"{where}: matcher must be a string, not {type(raw).__name__}; ignored")
            return
        matcher = raw.strip()
        if hook.protocol == wire.CLAUDE and matcher in ("", "*"):
            return
        if not matcher:
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

    def timeout(self, raw: Mapping[str, Any], where: str) -> float:
        value = raw.get("timeout", DEFAULT_TIMEOUT)
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
            or value <= 0
        ):
            self.warn(
                f"{where}: timeout {value!r} is not a positive number of seconds; using {DEFAULT_TIMEOUT}"
            )
            return DEFAULT_TIMEOUT
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

    def names(self, value: Any, where: str) -> list[str]:
        if value is None:
            return []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            self.warn(f"{where} must be a list of variable names; ignored")
            return []
        return list(value)

    def pins(self, value: Any, where: str) -> list[str]:
        if value is None:
            return []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            self.warn(f"{where}: pin must be a list of file or directory paths; ignored")
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


def read_settings_file(path: Path, reader: Reader) -> None:
    """Read the hooks of a Claude Code ``settings.json`` (or a plugin's ``hooks/hooks.json``)."""
    import json

    from hermes_hooks.trust import untrusted

    distrust = untrusted(path) if path.exists() else None
    if distrust is not None:
        reader.warn(f"{path}: refused: {distrust}; no shell hook was loaded from it")
        return

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        reader.warn(f"{path}: cannot read: {exc.strerror or exc}; no shell hook was loaded from it")
        return
    except UnicodeDecodeError as exc:
        reader.warn(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8; "
                    "no shell hook was loaded from it")  # fmt: skip
        return
    except ValueError:  # a NUL byte in the name
        reader.warn(f"{str(path)!r}: not a valid file name; no shell hook was loaded from it")
        return
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        reader.warn(f"{path} at line {exc.lineno}, column {exc.colno}: JSON syntax error: {exc.msg}; "
                    "fix the file (no shell hook was loaded from it)")  # fmt: skip
        return
    if not isinstance(data, dict):
        reader.warn(f"{path}: the top level must be an object; no shell hook was loaded from it")
        return
    if data.get("disableAllHooks") is True:
        log.info("%s: disableAllHooks is true; its hooks are not loaded", path)
        return
    root = None
    if path.name == "hooks.json" and path.parent.name == "hooks":
        candidate = path.parent.parent
        if (candidate / ".claude-plugin").is_dir():
            root = str(candidate)
    reader.block(data.get("hooks"), str(path), wire.CLAUDE, plugin_root=root)


def load_entries(hooks: Hooks) -> tuple[list[ShellHook], list[str]]:
    """Every shell hook the config declares: ``hooks:`` of config.yaml, then ``settings.json``
    files (``<home>/settings.json`` and ``hooks_settings_files``); and the problems found."""
    config = hooks.config
    reader = Reader(hooks.manager)
    origin = str(hooks.config_path) if hooks.config_path else "the host's config"
    reader.block(config.get("hooks"), origin, wire.HERMES)
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
    for item in listed or []:
        path = Path(os.path.expandvars(os.path.expanduser(str(item))))
        if not path.is_absolute():
            path = base / path
        if path not in files:
            files.append(path)
    for path in files:
        read_settings_file(path, reader)
    return reader.hooks, reader.problems
