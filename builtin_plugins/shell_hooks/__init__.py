"""Shell hooks: any executable as a hook, configured in ``config.yaml`` (Hermes schema) or in
Claude Code ``settings.json`` files. Reference: ``docs/shell-hooks.md``.

The package, one idea a module:

- :mod:`.config`: reading the hooks from ``config.yaml`` and ``settings.json`` files;
- :mod:`.matching`: one configured hook, and whether it fires for an occurrence of its event;
- :mod:`.approvals`: consent (approved, unapproved, changed), the terminal question, pinning;
- :mod:`.execution`: environment, running the processes, reading and combining the answers;
- :mod:`.workers`, :mod:`.worker_process`: warm workers (``persistent: true``), one kept process
  per hook;
- :mod:`.source`: :class:`ShellHooks`, the hook source registered as ``builtin:shell_hooks``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .approvals import Ask, Consent, question, revoke, tty_prompt
from .config import load_entries, read_settings_file
from .environment import parse_env_file
from .matching import DEFAULT_TIMEOUT, MAX_TIMEOUT, ShellHook
from .runs import Recorder, Run, combine, plain
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
    """The built-in plugin's entry point: ``None`` when there is no shell hook (or safe mode)."""
    ask = hooks.ask
    source = build(hooks, ask=True if ask is None else ask)
    if source is not None:
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
    "combine",
    "load_entries",
    "parse_env_file",
    "plain",
    "question",
    "read_settings_file",
    "revoke",
    "setup",
    "tty_prompt",
]
