"""Internal: part of the built-ins (docs/builtins.md), not an API.

Reading one Claude Code matcher group of a ``settings.json``: ``{matcher, hooks: [handler,
...]}``, and the handler fields only Claude Code has.

Handler fields read here (every other key goes through the common entry reader, which reports
unknown ones):

- ``type``: ``command`` (default), ``http`` and ``prompt`` (read by :mod:`.kinds`, like the
  config.yaml entries of those types), or ``mcp_tool`` (``server``, ``tool``, ``input``: the
  host calls the tool, :mod:`.mcp`);
- ``args``: the exec form: ``command`` is the program, ``args`` its arguments, no shell;
- ``if``: a permission rule (:mod:`.rules`) the tool call must match; only on events about one
  tool call (``ClaudeEvent.tool``), as in Claude Code (elsewhere the hook never runs, and that
  is reported);
- ``async`` / ``asyncRewake``: run in the background (:mod:`.background`);
- ``onFailure``: ``"block"`` makes a failed run (crash, timeout, invalid JSON) block, which is
  our ``fail_closed``; ``"continue"`` is the default;
- ``statusMessage``: the spinner text Claude Code shows while the hook runs; accepted, no effect.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from hermes_hooks.catalogue import EventInfo

from . import protocol, unreadable
from .matching import BadRule, Rule, ShellHook


class Reader(unreadable.Reader, Protocol):
    """What a matcher group is read into: :class:`.config.Reader` (named here by its shape, so
    this module does not import the module that imports it)."""

    def entry(self, info: EventInfo, name: str, index: int, raw: Any, origin: str, default_protocol: str,
              sub: int | None, plugin_root: str | None) -> ShellHook | None: ...  # fmt: skip


#: The handler types this reader runs (Claude Code's ``agent`` type is skipped with a warning).
KINDS = ("command", "http", "prompt", "mcp_tool")
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
        unreadable.record(reader, group, [info], name, index, origin, where, since)
        return
    extra = set(map(str, group)) - {"matcher", "hooks"}
    if extra:
        reader.warn(f"{where}: unknown key(s) {', '.join(sorted(extra))} ignored")
    for sub, entry in enumerate(inner):
        here = f"hooks.{name}[{index}].hooks[{sub}] in {origin}"
        since = reader.mark()
        _handler(reader, info, name, index, sub, entry, group, origin, plugin_root)
        unreadable.record(reader, entry, [info], name, index, origin, here, since)


def _handler(reader: Reader, info: EventInfo, name: str, index: int, sub: int, entry: Any,
             group: Mapping[str, Any], origin: str, plugin_root: str | None) -> None:  # fmt: skip
    """Read one handler of a matcher group into ``reader``'s hooks (or report why not)."""
    here = f"hooks.{name}[{index}].hooks[{sub}] in {origin}"
    if not isinstance(entry, Mapping):
        reader.entry(info, name, index, entry, origin, protocol.CLAUDE, sub, plugin_root)
        return
    kind = entry.get("type", "command")
    if kind not in KINDS:
        reader.warn(f"{here}: hook type {kind!r} is not supported (only "
                    f"{', '.join(map(repr, KINDS))}); skipped")  # fmt: skip
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
    hook = reader.entry(info, name, index, common, origin, protocol.CLAUDE, sub, plugin_root)
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
