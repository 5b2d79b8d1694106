"""Internal: part of the built-ins (docs/builtins.md), not an API.

Shell hooks: any executable as a hook, configured in ``config.yaml`` (Hermes schema) or in
Claude Code ``settings.json`` files. Reference: ``docs/shell-hooks.md``.

The package, one idea a module:

- :mod:`.config`: reading the hooks from ``config.yaml`` and ``settings.json`` files;
- :mod:`.readers`: where every hook is configured, other agents' files included
  (``hooks_sources``); :mod:`.dialects`: payloads, variables and answers of those agents' hooks;
- :mod:`.claude_entries`: a Claude Code matcher group and the handler fields only Claude Code has
  (``if``, ``args``, ``async``/``asyncRewake``, ``onFailure``, ``type: mcp_tool``);
- :mod:`.rules`: Claude Code permission rules, the ``if`` filters;
- :mod:`.matching`: one configured hook, and whether it fires for an occurrence of its event;
- :mod:`.approvals`: consent (approved, unapproved, changed), the terminal question, pinning;
- :mod:`.execution`: environment, running the processes, reading and combining the answers;
  :mod:`.checks`: why a command hook cannot run as configured (`doctor`);
- :mod:`.background`: ``async`` hooks, and delivering what they have for the model;
- :mod:`.mcp`: ``mcp_tool`` hooks, called through the host;
- :mod:`.context_cap`: Claude Code's 10,000-character cap on one hook's context;
- :mod:`.workers`, :mod:`.worker_process`: warm workers (``persistent: true``), one kept process
  per hook;
- :mod:`.source`: :class:`ShellHooks`, the hook source registered as ``builtin:shell_hooks``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .approvals import Ask, Consent, question, revoke, tty_prompt
from .environment import parse_env_file
from .matching import DEFAULT_TIMEOUT, MAX_TIMEOUT, ShellHook
from .readers import load_entries
from .runs import Recorder, Run, plain
from .settings_files import read_settings_file
from .source import ShellHooks

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks


def build(hooks: Hooks, *, ask: bool | Ask = True) -> ShellHooks | None:
    """The shell-hook source for ``hooks``'s config, or ``None`` when there is no shell hook
    (or safe mode). ``ask=False``: nobody is asked to approve a hook (the CLI); a callable is
    the host's own consent prompt (it gets the question, returns ``True`` for yes)."""
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
