"""Shared helpers for the core tests: writing plugin directories into a temporary home."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest_plugins = ["pytester", "slow_guard", "oracle_summary"]

DATA = Path(__file__).parent / "data"

# The files the tests write (homes, config.yaml, hook scripts, plugin directories) must not be
# writable by others, or hermes-hooks rightly refuses them as untrusted (docs/security.md): under
# a umask of 000 or 002 every such test would test the refusal instead. The suite takes away the
# write bits for group and others and keeps whatever else the caller's umask takes away (077
# stays 077); the tests of modes set their own umask.
os.umask(os.umask(0) | 0o022)

#: pytest-xdist workers of a run unless ``-n`` says otherwise. Most of the suite waits (on
#: subprocesses, time limits, servers) rather than computes, so more workers than cores pay:
#: measured on 2 cores, see CONTRIBUTING.md.
WORKERS = 4


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """``python -m pytest`` runs on ``WORKERS`` pytest-xdist workers when xdist is installed and
    neither ``-n`` (``-n 0``: in this process), ``-p no:xdist`` nor ``--pdb`` says otherwise.
    Runs before xdist's own hook, which starts the workers from ``-n``."""
    if (
        config.pluginmanager.hasplugin("xdist")
        and not hasattr(config, "workerinput")
        and config.option.numprocesses is None
        and not config.option.usepdb
        and not config.option.collectonly
    ):
        config.option.numprocesses = WORKERS
        if config.option.dist == "no":
            # a module's tests on one worker: its module-scoped fixtures (an oracle corpus runs
            # every case of its agent once, then each test reads its case) are built once a run,
            # not once on every worker that gets one of its tests
            config.option.dist = "loadscope"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty hermes home; HERMES_* switches cleared so the machine's env cannot leak in."""
    for var in (
        "HERMES_HOME",
        "HERMES_SAFE_MODE",
        "HERMES_HOOKS_DISABLED",
        "HERMES_HOOKS_PLUGINS",
        "HERMES_ENABLE_PROJECT_PLUGINS",
        "HERMES_ACCEPT_HOOKS",
    ):
        monkeypatch.delenv(var, raising=False)
    path = tmp_path / "home"
    (path / "plugins").mkdir(parents=True)
    return path


def write_plugin(
    root: Path,
    dirname: str,
    code: str,
    manifest: str | None = "",
    files: dict[str, str] | None = None,
) -> Path:
    """Write ``root/plugins/<dirname>/`` with ``__init__.py`` (and plugin.yaml unless None)."""
    pdir = root / "plugins" / dirname
    pdir.mkdir(parents=True, exist_ok=True)
    (pdir / "__init__.py").write_text(textwrap.dedent(code))
    if manifest is not None:
        (pdir / "plugin.yaml").write_text(textwrap.dedent(manifest) or f"name: {dirname}\n")
    for name, text in (files or {}).items():
        (pdir / name).write_text(textwrap.dedent(text))
    return pdir


@pytest.fixture
def plugin_dir(home: Path) -> Callable[..., Path]:
    """``plugin_dir(dirname, code, manifest="")`` writes a plugin directory into the home."""

    def make(dirname: str, code: str, manifest: str | None = "", **kw: Any) -> Path:
        return write_plugin(home, dirname, code, manifest, **kw)

    return make


@pytest.fixture(autouse=True)
def _no_installed_plugins(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite must not depend on the plugins installed where it runs: entry-point autoload
    is off (they are not even discovered) except in tests that bring their own distributions
    (``fake_site``) or are marked ``entry_points``. Child processes inherit it."""
    if "fake_site" in request.fixturenames or request.node.get_closest_marker("entry_points"):
        monkeypatch.delenv("HERMES_HOOKS_DISABLE_AUTOLOAD", raising=False)
        return
    monkeypatch.setenv("HERMES_HOOKS_DISABLE_AUTOLOAD", "1")


@pytest.fixture
def closed_runtimes(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The ``Hooks`` runtimes closed while the test runs, in order (``Hooks.close`` still runs):
    a command that loads hooks must release them (warm workers, the watchdog thread)."""
    from hermes_hooks.hooks import Hooks

    closed: list[Any] = []
    real_close = Hooks.close

    def close(self: Hooks) -> None:
        closed.append(self)
        real_close(self)

    monkeypatch.setattr(Hooks, "close", close)
    return closed


@pytest.fixture
def fake_site(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Put tests/data/site (real *.dist-info distributions with entry points) on sys.path."""
    import importlib
    import sys

    from shell_helpers import keep_machine_plugins_out

    # The machine's own plugins stay out of these tests too: disabled by name (never imported).
    keep_machine_plugins_out(monkeypatch)
    site = DATA / "site"
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    yield site
    for mod in [
        m for m in sys.modules if m.startswith(("fake_hermes_plugin", "fake_native_plugin"))
    ]:
        del sys.modules[mod]


def native_plugin(**impls: Any) -> Any:
    """A native plugin object whose hookimpls are the given functions, named by event; a
    ``(function, {"tryfirst": True})`` pair passes hookimpl options."""
    from hermes_hooks import hookimpl

    namespace = {}
    for event, fn in impls.items():
        opts: dict[str, Any] = {}
        if isinstance(fn, tuple):
            fn, opts = fn
        namespace[event] = staticmethod(hookimpl(**opts)(fn))
    return type("Plugin", (), namespace)()


@pytest.fixture(scope="session")
def venvs(
    expensive: None, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Any:
    """The run's venvs (``venvs.VenvPool``): one per distinct list of install steps, built on
    first use and shared by every test that asks for the same list, in every pytest-xdist worker
    (a worker's base temp directory is inside the run's, which holds the shared ones). Only
    ``slow`` tests may use it (``slow_guard``)."""
    from venvs import run_pool

    return run_pool(request.config, tmp_path_factory)


@pytest.fixture(scope="session")
def editable_venv(venvs: Any) -> Any:
    """This repository installed editable with pytest and pip (``VenvPool.editable``)."""
    return venvs.editable()


@pytest.fixture
def otel_spans() -> Iterator[Any]:
    """An in-memory exporter of OpenTelemetry spans. The SDK lets a process set its tracer
    provider once, so every test that reads spans adds its exporter to that one provider."""
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield exporter
    exporter.shutdown()
