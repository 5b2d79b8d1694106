"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Which plugins may load: config ``plugins.enabled`` / ``plugins.disabled`` and the
environment switches, applied before anything is imported."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .config import env_flag, env_list, section


@dataclass
class Policy:
    """Which plugin names may load: config ``plugins.enabled``/``plugins.disabled`` and env."""

    enabled: set[str] | None
    disabled: set[str]
    env_allow: set[str] | None
    env_deny: set[str]
    autoload: bool

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Policy:
        enabled = section(config, "plugins", "enabled")
        disabled = section(config, "plugins", "disabled")
        allow = env_list("HERMES_HOOKS_PLUGINS")
        return cls(
            enabled=set(map(str, enabled)) if isinstance(enabled, list) else None,
            disabled=set(map(str, disabled)) if isinstance(disabled, list) else set(),
            env_allow=set(allow) if allow is not None else None,
            env_deny=set(env_list("HERMES_HOOKS_DISABLED") or []),
            autoload=not env_flag("HERMES_HOOKS_DISABLE_AUTOLOAD"),
        )

    def refusal(
        self, name: str, *, distribution: str | None = None, entrypoint: bool = False
    ) -> str | None:
        """Why the plugin ``name`` (of ``distribution``, found as an entry point or not) may not
        load, or ``None``."""
        names = {name}
        if distribution:
            names.add(distribution)
        if names & self.env_deny:
            return "disabled by HERMES_HOOKS_DISABLED"
        if names & self.disabled:
            return "disabled by plugins.disabled in config"
        if self.env_allow is not None and not names & self.env_allow:
            return "not in HERMES_HOOKS_PLUGINS"
        if self.enabled is not None and not names & self.enabled:
            return "not in plugins.enabled in config"
        if entrypoint and not self.autoload and self.env_allow is None:
            return "entry-point autoload is off (HERMES_HOOKS_DISABLE_AUTOLOAD)"
        return None


def required_names(config: Mapping[str, Any]) -> list[str]:
    """The names ``plugins.required`` lists (a string is a one-item list)."""
    plugins = config.get("plugins")
    named = plugins.get("required") if isinstance(plugins, Mapping) else None
    if isinstance(named, str):
        named = [named]
    return [str(n) for n in named] if isinstance(named, list) else []
