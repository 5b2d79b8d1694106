"""pytest fixtures for plugin authors (opt-in).

Enable them in your plugin's ``conftest.py``::

    pytest_plugins = ["hermes_hooks.testing"]

Fixtures:

- ``hermes_hooks``: a fresh :class:`~hermes_hooks.hooks.Hooks` with the whole event catalogue,
  a temporary home, no entry points and no built-ins: only what the test registers runs.
- ``register_plugin``: ``register_plugin(obj_or_module, name=None)`` registers a native plugin
  (``@hookimpl`` functions) and always unregisters it when the test ends.
- ``register_hermes_plugin``: ``register_hermes_plugin(register, name="...")`` runs a Hermes-style
  ``register(ctx)`` against the fresh manager, as the loader would, and undoes it afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .hooks import Hooks


def make_hooks(home: Path, config: dict[str, Any] | None = None) -> Hooks:
    """A manager with the catalogue and nothing registered."""
    return Hooks(home=home, config=config or {})


@pytest.fixture
def hermes_hooks(tmp_path: Path) -> Hooks:
    """A fresh manager: the whole event catalogue, a temporary home, no plugins."""
    home = tmp_path / "hermes-home"
    home.mkdir()
    return make_hooks(home)


@pytest.fixture
def register_plugin(hermes_hooks: Hooks) -> Iterator[Callable[..., str]]:
    """Register a native plugin for the duration of the test."""
    names: list[str] = []

    def register(plugin: Any, name: str | None = None, **options: Any) -> str:
        registered = hermes_hooks.register(plugin, name, **options)
        names.append(registered)
        return registered

    yield register
    for name in reversed(names):
        hermes_hooks.unregister(name)


@pytest.fixture
def register_hermes_plugin(hermes_hooks: Hooks) -> Iterator[Callable[..., str]]:
    """Run a Hermes-style ``register(ctx)`` for the duration of the test."""
    from .context import PluginContext

    names: list[str] = []

    def register(
        register_fn: Callable[[PluginContext], Any], name: str = "test-plugin", **manifest: Any
    ) -> str:
        ctx = PluginContext(hermes_hooks, name, manifest)
        register_fn(ctx)
        ctx.commit(source="python")
        names.append(name)
        return name

    yield register
    for name in reversed(names):
        hermes_hooks.unregister(name)
        hermes_hooks.bus.drop(name)
