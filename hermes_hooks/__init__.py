"""hermes-hooks: a complete, safe, fast hook system for AI-agent runtimes.

The host API::

    import hermes_hooks
    hooks = hermes_hooks.load()
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, session_id="s1")

Importing this package is cheap: nothing heavy (YAML, click, entry-point metadata, plugins) is
imported until :func:`load` runs.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from .answers.results import (
        CommandDecision,
        CompressAnswer,
        DispatchAnswer,
        PermissionAnswer,
        PromptDecision,
        ToolDecision,
        VerifyAnswer,
    )
    from .catalogue import UnknownEvent
    from .context import HostUnavailable, PluginContext
    from .hooks import Hooks
    from .markers import hookimpl, hookspec

_LAZY = {
    "hookimpl": "markers",
    "hookspec": "markers",
    "Hooks": "hooks",
    "PluginContext": "context",
    "HostUnavailable": "context",
    "UnknownEvent": "catalogue",
    "ToolDecision": "answers.results",
    "PromptDecision": "answers.results",
    "PermissionAnswer": "answers.results",
    "VerifyAnswer": "answers.results",
    "CompressAnswer": "answers.results",
    "DispatchAnswer": "answers.results",
    "CommandDecision": "answers.results",
}

__all__ = [
    "load",
    "__version__",
    "hookimpl",
    "hookspec",
    "Hooks",
    "PluginContext",
    "HostUnavailable",
    "UnknownEvent",
    "ToolDecision",
    "PromptDecision",
    "PermissionAnswer",
    "VerifyAnswer",
    "CompressAnswer",
    "DispatchAnswer",
    "CommandDecision",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'hermes_hooks' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def load(
    home: str | os.PathLike[str] | None = None,
    config: Mapping[str, Any] | str | os.PathLike[str] | None = None,
    *,
    accept_hooks: bool = False,
    host: Any = None,
    entry_points: bool = True,
    builtins: bool = True,
    hookspecs: Iterable[Any] = (),
    hermes_plugins: bool = True,
    ask: Callable[[str], bool] | bool | None = None,
) -> Hooks:
    """Load the hook system: find the home, read its config, register every plugin and hook.

    :param home: the hermes home (default ``$HERMES_HOME``, else ``~/.hermes``).
    :param config: a dict, or a path to a YAML file (default ``<home>/config.yaml``, falling
        back to ``cli-config.yaml``).
    :param accept_hooks: approve every configured shell hook without asking (``--accept-hooks``).
    :param host: the runtime's capabilities for plugins (see :meth:`Hooks.set_host`).
    :param entry_points: discover pip-installed plugins (tests turn it off).
    :param builtins: register the built-in plugins (shell hooks, gateway hooks, ...).
    :param hookspecs: the host's own events: modules (or classes) of pluggy hookspecs, added
        before any plugin loads (config ``hookspecs: [dotted.module, ...]`` adds more).
    :param hermes_plugins: load Hermes-style plugins (plugin directories and
        ``hermes_agent.plugins`` entry points). Hermes Agent loads those itself when it hosts
        hermes-hooks (:mod:`hermes_hooks.hermes.agent`), which passes ``False``.
    :param ask: how a person is asked to approve a shell hook at its first firing: a callable
        (the host's own UI) gets the question (the command, its script and sha256, where it is
        configured) and returns ``True`` to approve; ``False`` asks nobody (unapproved hooks do
        not run); ``None`` asks on the terminal when there is one.

    Nothing here raises for a broken plugin or config: problems are logged and shown by
    ``hermes hooks list``. The runtime is built by :func:`hermes_hooks.runtime.build_runtime`,
    as every CLI command and the Hermes Agent bridge build theirs.
    """
    from .runtime import build_runtime

    return build_runtime(
        home,
        config,
        accept_hooks=accept_hooks,
        host=host,
        entry_points=entry_points,
        builtins=builtins,
        hookspecs=hookspecs,
        hermes_plugins=hermes_plugins,
        ask=ask,
    )
