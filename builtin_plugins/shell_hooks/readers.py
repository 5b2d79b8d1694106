"""Internal: part of the built-ins (docs/builtins.md), not an API.

Where every shell hook is configured: ``hooks:`` of config.yaml, Claude Code
``settings.json`` files, and, when ``hooks_sources`` names them, the hook files of other agents
where each keeps them (Codex, Gemini CLI, Cursor, GitHub Copilot). Each agent's file is read in
its own shape; every entry becomes a :class:`ShellHook` speaking that agent's dialect, and every
key, event or entry that cannot be carried over is reported with its file and entry."""

from __future__ import annotations

import glob
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks import catalogue, dialects, resolve, wire

from . import unreadable
from .config import Reader
from .matching import ShellHook
from .settings_files import read_object, read_settings_file

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
            unreadable.record(reader, item, [info], name, index, origin,
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


def sources(config: Mapping[str, Any], reader: Reader, origin: str) -> list[str]:
    """The agents ``hooks_sources`` turns on (unknown names reported)."""
    listed = config.get("hooks_sources")
    if listed is None:
        return []
    if isinstance(listed, str):
        listed = [listed]
    if not isinstance(listed, list):
        reader.warn(f"hooks_sources in {origin}: must be a list of {', '.join(SOURCES)}; ignored")
        return []
    chosen = []
    for item in listed:
        name = str(item).strip().lower()
        if name not in SOURCES:
            hint = catalogue.suggest(name, SOURCES)
            reader.warn(f"hooks_sources in {origin}: unknown source {item!r}"
                        + (f" (did you mean {hint!r}?)" if hint else "")
                        + f"; expected {', '.join(SOURCES)}")  # fmt: skip
        elif name not in chosen:
            chosen.append(name)
    return chosen


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
    reader.settings = {k: config.get(k) for k in ("allowed_http_hook_urls", "allowed_env_vars")}
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
    project = Path(resolve.current_dir())
    chosen = sources(config, reader, origin)
    from .claude_files import claude_files, project_settings

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
    # guard entries that cannot be read block their events (unreadable.py)
    return reader.hooks + reader.unreadable, reader.problems
