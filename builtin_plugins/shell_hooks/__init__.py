"""Internal: part of the built-ins (docs/builtins.md), not an API.

Shell hooks: any executable as a hook, configured in ``config.yaml`` (Hermes schema) or in
Claude Code ``settings.json`` files. Reference: ``docs/shell-hooks.md``.

The package, one idea a module:

- :mod:`.protocol`: the wire protocol (the JSON a hook reads, what its answer means) and
  Claude Code's 10,000-character cap on one hook's context;
- :mod:`.config`: where every hook is configured (``config.yaml``, ``settings.json`` files, other
  agents' files named by ``hooks_sources``) and reading them: a Claude Code matcher group and the
  handler fields only Claude Code has (``if``, ``args``, ``async``/``asyncRewake``,
  ``onFailure``, ``type: mcp_tool``), guard entries that cannot be read;
- :mod:`.dialects`: other agents' hook dialects (Gemini CLI, Codex, Cursor, Copilot);
- :mod:`.matching`: one configured hook, whether it fires for an occurrence of its event
  (Claude Code's ``if`` rules included) and its dialect;
- :mod:`.consent`: the allowlist, what a command runs and the files its approval pins;
  :mod:`.approvals`: whether a hook may run (approved, unapproved, changed), the terminal question;
- :mod:`.processes`: starting and running processes, their environment, and why a command hook
  cannot run as configured (``doctor``);
- :mod:`.execution`: running the hooks of one firing, reading and combining the answers;
- :mod:`.kinds`: the entry types besides ``command``; :mod:`.remote`: ``http`` hooks;
  :mod:`.judge`: ``prompt`` hooks and their templates; :mod:`.web`: the URL allow-list and
  POSTing; :mod:`.mcp`: ``mcp_tool`` hooks, called through the host;
- :mod:`.background`: ``async`` hooks, and delivering what they have for the model;
- :mod:`.workers`: warm workers (``persistent: true``), one kept process per hook;
- :mod:`.source`: :class:`ShellHooks`, the hook source registered as ``builtin:shell_hooks``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

    from .approvals import Ask, Consent, question, revoke, tty_prompt
    from .config import load_entries, read_settings_file
    from .matching import DEFAULT_TIMEOUT, MAX_TIMEOUT, ShellHook
    from .processes import parse_env_file
    from .runs import Recorder, Run, plain
    from .source import ShellHooks

#: The names this package exports, by the module that defines them: imported on first use, so
#: a built-in that needs one module of the package (the dialects' tool names, the URL allow-list)
#: does not load the whole shell-hook source.
_EXPORTS = {
    "approvals": ("Ask", "Consent", "question", "revoke", "tty_prompt"),
    "config": ("load_entries", "read_settings_file"),
    "matching": ("DEFAULT_TIMEOUT", "MAX_TIMEOUT", "ShellHook"),
    "processes": ("parse_env_file",),
    "runs": ("Recorder", "Run", "plain"),
    "source": ("ShellHooks",),
}
_HOME = {name: module for module, names in _EXPORTS.items() for name in names}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(import_module(f".{_HOME[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def build(hooks: Hooks, *, ask: bool | Ask = True) -> ShellHooks | None:
    """The shell-hook source for ``hooks``'s config, or ``None`` when there is no shell hook
    (or safe mode). ``ask=False``: nobody is asked to approve a hook (the CLI); a callable is
    the host's own consent prompt (it gets the question, returns ``True`` for yes)."""
    from .config import load_entries
    from .source import ShellHooks

    if hooks.safe_mode:
        return None
    entries, problems = load_entries(hooks)
    if not entries:
        return None
    return ShellHooks(hooks, entries, problems, prompt=ask)


def setup(hooks: Hooks) -> ShellHooks | None:
    """The built-in plugin's entry point: ``None`` when there is no shell hook (or safe mode).
    A runtime built for inspection (the CLI) starts nothing and does not warn at load; it still
    approves everything at load when hooks are auto-accepted."""
    ask = hooks.ask
    source = build(hooks, ask=True if ask is None else ask)
    if source is not None and (not hooks.inspecting or source.auto_accept):
        source.startup()
    return source


__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_TIMEOUT",
    "Consent",
    "Recorder",
    "Run",
    "ShellHook",
    "ShellHooks",
    "build",
    "load_entries",
    "parse_env_file",
    "plain",
    "question",
    "read_settings_file",
    "revoke",
    "setup",
    "tty_prompt",
]
