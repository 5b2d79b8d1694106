"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Finding plugins (directories, entry points), deciding which may load, and loading them.

Discovery never imports plugin code: names are filtered by the allow/deny lists first, so a
disabled plugin is never imported. Plugins are then registered in reverse discovery order, because
pluggy calls the most recently registered plugin first: the result is that hooks run in discovery
order (see ``docs/writing-plugins.md``, "Order").

Which plugins may load: config ``plugins.enabled`` / ``plugins.disabled`` and the
environment switches, applied before anything is imported.

Importing plugin code from files and directories (plugin directories, gateway handlers).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import inspect
import logging
import os
import re
import sys
import types
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config import (
    check_manifest,
    env_flag,
    env_list,
    manifest_int,
    manifest_seconds,
    read_yaml,
    section,
)
from .faults import escapes
from .records import PluginRecord

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from .hooks import Hooks

log = logging.getLogger("hermes_hooks")

NATIVE_GROUP = "hermes_hooks"
HERMES_GROUP = "hermes_agent.plugins"
NAMESPACE = "hermes_plugins"


@dataclass
class Candidate:
    """A plugin found by discovery, not yet imported."""

    name: str
    source: str  # "directory" or "entrypoint"
    origin: str  # "user", "project", or the entry-point group
    path: str | None = None
    entry_point: EntryPoint | None = None
    distribution: str | None = None
    version: str | None = None
    manifest: dict[str, Any] = field(default_factory=dict)
    manifest_error: str | None = None
    priority: int = 0
    fail_closed: bool = False
    timeout: float | None = None


def slug(name: str) -> str:
    """A valid Python identifier for a plugin directory name (``my-plugin`` -> ``my_plugin``)."""
    s = re.sub(r"\W", "_", name)
    return f"_{s}" if s[:1].isdigit() else s


# ---------------------------------------------------------------------- discovery


@dataclass(frozen=True)
class Manifest:
    """A plugin directory's ``plugin.yaml`` (or ``plugin.yml``), read: ``file`` is ``None``
    when it has none; ``data`` is empty when it cannot be read (``error`` says why)."""

    file: Path | None
    data: dict[str, Any]
    error: str | None = None

    def settings(self) -> dict[str, Any]:
        """What it says that the runtime reads for every hook of the plugin (``priority``,
        ``fail_closed``, ``timeout``), a bad value reported with the file it is in."""
        data, where = self.data, self.file
        return {
            "priority": manifest_int(data.get("priority"), f"{where} priority"),
            "fail_closed": bool(data.get("fail_closed") or data.get("required")),
            "timeout": manifest_seconds(data.get("timeout"), f"{where} timeout"),
        }


def read_manifest(folder: Path) -> Manifest:
    """The manifest of the plugin directory ``folder``; its misspelt keys are reported."""
    file = folder / "plugin.yaml"
    if not file.is_file():
        file = folder / "plugin.yml"
    if not file.is_file():
        return Manifest(None, {})
    data, error = read_yaml(file)
    if error is None and data is not None and not isinstance(data, dict):
        error = f"{file}: must be a mapping (name: ..., version: ...), not {type(data).__name__}"
    if error is not None or not isinstance(data, dict):
        return Manifest(file, {}, error)
    check_manifest(data, str(file))
    return Manifest(file, data)


def scan_directory(root: Path, origin: str) -> list[Candidate]:
    """Plugin directories directly under ``root``, alphabetically."""
    if not root.is_dir():
        return []
    found = []
    for child in sorted(root.iterdir(), key=lambda p: p.name):
        if not child.is_dir() or child.name.startswith((".", "_")):
            continue
        init = child / "__init__.py"
        found_manifest = read_manifest(child)
        if not init.is_file():
            if found_manifest.file is not None:
                found.append(
                    Candidate(
                        name=child.name,
                        source="directory",
                        origin=origin,
                        path=str(child),
                        manifest_error=f"{child}: has plugin.yaml but no __init__.py; add an __init__.py defining register(ctx)",
                    )
                )
            continue
        manifest = found_manifest.data
        name = str(manifest.get("name") or child.name)
        found.append(
            Candidate(
                name=name,
                source="directory",
                origin=origin,
                path=str(child),
                manifest=manifest,
                manifest_error=found_manifest.error,
                version=str(manifest["version"]) if manifest.get("version") is not None else None,
                **found_manifest.settings(),
            )
        )
    return found


@functools.lru_cache(maxsize=8)
def _environment(path: tuple[str, ...], stamps: tuple[int, ...]) -> Any:
    """Every entry point on ``path`` (of every group): one metadata scan per state of its folders."""
    from importlib.metadata import entry_points

    return entry_points()


def _mtime(folder: str) -> int:
    """When a folder on the path last changed (installing a distribution adds to one)."""
    try:
        return os.stat(folder or ".").st_mtime_ns
    except OSError:
        return 0


def scan_entry_points(groups: Iterable[str] = (NATIVE_GROUP, HERMES_GROUP)) -> list[Candidate]:
    """Entry points of ``groups``, sorted by distribution name then entry-point name. Our own
    entry point (the bridge into Hermes Agent, :mod:`hermes_hooks.hermes.agent`) is never a
    candidate: loading it into ourselves would recurse."""
    path = tuple(sys.path)
    visible = _environment(path, tuple(_mtime(folder) for folder in path))
    found = []
    for group in groups:
        for ep in visible.select(group=group):
            if _is_ours(ep.value):
                continue  # hermes-hooks' own bridge
            dist = getattr(ep, "dist", None)
            found.append(
                Candidate(
                    name=ep.name,
                    source="entrypoint",
                    origin=group,
                    path=ep.value,
                    entry_point=ep,
                    distribution=dist.metadata["Name"] if dist is not None else None,
                    version=dist.version if dist is not None else None,
                )
            )
    found.sort(key=lambda c: ((c.distribution or "").lower(), c.name))
    return found


def _is_ours(target: str) -> bool:
    module = target.partition(":")[0].strip()
    return module == __package__ or module.startswith(f"{__package__}.")


def discover(
    home: Path, *, entry_points: bool = True, hermes_plugins: bool = True
) -> list[Candidate]:
    """Every plugin candidate, in discovery order (user dirs, project dirs, entry points).

    ``hermes_plugins=False`` leaves out what Hermes Agent loads itself when it hosts us (plugin
    directories and ``hermes_agent.plugins`` entry points): only native entry points remain."""
    candidates: list[Candidate] = []
    if hermes_plugins:
        candidates += scan_directory(home / "plugins", "user")
        if env_flag("HERMES_ENABLE_PROJECT_PLUGINS"):
            project = Path.cwd() / ".hermes" / "plugins"
            if project.resolve() != (home / "plugins").resolve():
                candidates += scan_directory(project, "project")
    if entry_points:
        groups = (NATIVE_GROUP, HERMES_GROUP) if hermes_plugins else (NATIVE_GROUP,)
        candidates += scan_entry_points(groups)
    return candidates


# ---------------------------------------------------------------------- loading


def load_plugins(hooks: Hooks, *, entry_points: bool = True, hermes_plugins: bool = True) -> None:
    """Discover, filter, import and register every third-party plugin into ``hooks``.
    ``hermes_plugins=False``: Hermes-style plugins are the host's (see :func:`discover`); those the
    policy lets load are only named in ``hooks.hosted`` (a required guard among them is there)."""
    if hooks.safe_mode:
        log.info("HERMES_SAFE_MODE is on: no plugins, shell hooks or gateway hooks are loaded")
        return
    policy = Policy.from_config(hooks.config)
    required = required_names(hooks.config)
    winners: list[Candidate] = []
    seen: dict[str, Candidate] = {}
    # Autoload off: entry points are not even discovered (as pytest's PYTEST_DISABLE_PLUGIN_
    # AUTOLOAD), unless HERMES_HOOKS_PLUGINS names the ones wanted.
    entry_points = entry_points and (policy.autoload or policy.env_allow is not None)
    for cand in discover(hooks.home, entry_points=entry_points):
        if not hermes_plugins and (cand.source == "directory" or cand.origin == HERMES_GROUP):
            ep = cand.source == "entrypoint"
            if policy.refusal(cand.name, distribution=cand.distribution, entrypoint=ep) is None:
                hooks.hosted.setdefault(cand.name, "Hermes Agent")
            continue
        earlier = seen.get(cand.name)
        if earlier is not None:
            why = f"shadowed by the {earlier.origin} {earlier.source} plugin at {earlier.path}"
            _record(hooks, cand, "shadowed", why, name=f"{cand.name} ({cand.source}: {cand.path})")
            continue
        seen[cand.name] = cand
        cand.fail_closed = cand.fail_closed or cand.name in required  # a guard: raising blocks
        reason = policy.refusal(
            cand.name, distribution=cand.distribution, entrypoint=cand.source == "entrypoint"
        )
        if reason:
            _record(hooks, cand, "disabled", reason)
            continue
        winners.append(cand)

    # Import and run register() in discovery order (so logs and side effects are in that order),
    # then register with pluggy in reverse order: pluggy calls the last registered first.
    prepared: list[tuple[Candidate, Any]] = []
    for cand in winners:
        # A plugin that prints while loading must not corrupt the host's (or `list --json`'s)
        # standard output: whatever it prints goes to stderr.
        with contextlib.redirect_stdout(sys.stderr):
            staged = _prepare(hooks, cand)
        if staged is not None:
            prepared.append((cand, staged))
    order = sorted(range(len(prepared)), key=lambda i: -prepared[i][0].priority)
    with hooks.manager.deferred():  # one rebuild of the dispatch plan, not one per plugin
        for i in reversed(order):
            cand, staged = prepared[i]
            _commit(hooks, cand, staged)


def _fail(hooks: Hooks, cand: Candidate, error: str) -> None:
    log.warning("plugin %r (%s %s) failed to load: %s", cand.name, cand.source, cand.path, error)
    _record(hooks, cand, "failed", error)


def _record(
    hooks: Hooks, cand: Candidate, status: str, error: str, name: str | None = None
) -> None:
    hooks.record(
        PluginRecord(
            name=name or cand.name,
            source=cand.source,
            status=status,
            error=error,
            path=cand.path,
            version=cand.version,
            distribution=cand.distribution,
            manifest=cand.manifest,
        )
    )


def describe(exc: BaseException) -> str:
    """A plugin's failure in one line (the whole traceback logged too with ``--verbose``)."""

    if env_flag("HERMES_HOOKS_DEBUG"):  # --verbose: the whole traceback, file and line each
        log.warning("plugin failure:", exc_info=exc)
    return describe_failure(exc)


def _prepare(hooks: Hooks, cand: Candidate) -> Any:
    """Import the plugin and run its ``register(ctx)``; return what to commit, or ``None``."""
    from .context import PluginContext

    if cand.manifest_error:
        _fail(hooks, cand, cand.manifest_error)
        return None
    if ":" in cand.name:
        why = (
            f"the name {cand.name!r} is reserved: names with ':' belong to built-in "
            "('builtin:...') and gateway ('gateway:...') hooks; give it another `name:`"
        )
        _fail(hooks, cand, why)
        return None
    if cand.source == "directory" and cand.path:
        from .trust import untrusted_tree

        distrust = untrusted_tree(Path(cand.path), (".py", ".yaml", ".yml"))
        if distrust is not None:
            _fail(hooks, cand, f"refused: {distrust}")
            return None
    try:
        target = _import(cand)
    except BaseException as exc:
        if escapes(exc):
            raise
        _fail(hooks, cand, f"import failed: {describe(exc)}")
        return None
    register = register_function(target, by_entry_point=cand.origin == HERMES_GROUP)
    if register is None:
        if not has_hookimpls(target):
            _fail(
                hooks,
                cand,
                "found neither a register(ctx) function nor any @hookimpl function; "
                "define one of them (see docs/writing-plugins.md)",
            )
            return None
        return ("native", target)
    ctx = PluginContext(hooks, cand.name, cand.manifest)
    try:
        result = register(ctx)
        if inspect.isawaitable(result):
            from .dispatch import run_sync

            run_sync(result)
    except BaseException as exc:
        if escapes(exc):
            raise
        _fail(hooks, cand, f"register() raised {describe(exc)}; nothing it registered was kept")
        return None
    return ("hermes", ctx, target)


def _commit(hooks: Hooks, cand: Candidate, staged: Any) -> None:
    meta = {
        "source": cand.source,
        "fail_closed": cand.fail_closed,
        "priority": cand.priority,
        "timeout": cand.timeout,
        "path": cand.path,
        "version": cand.version,
        "description": str(cand.manifest.get("description", "")),
    }
    try:
        if staged[0] == "native":
            hooks.register(staged[1], cand.name, manifest=cand.manifest, **meta)
        else:
            ctx, target = staged[1], staged[2]
            ctx.commit(**meta)
            if has_hookimpls(target) and target is not None:
                # A module with both register(ctx) and @hookimpl functions gets both; the
                # companion belongs to the plugin (unregistering the plugin removes it).
                hooks.register(target, f"{cand.name}:impls", parent=cand.name, **meta)
        hooks.records[cand.name].distribution = cand.distribution
        dist = getattr(cand.entry_point, "dist", None)
        if dist is not None:
            hooks.manager.add_distribution(cand.name, dist)
    except Exception as exc:  # pluggy validation: an impl that does not fit its event
        # The manager left nothing of the rejected object registered; the plugin's other
        # part (register(ctx) hooks, when its @hookimpl companion was refused) goes too.
        hooks.unregister(cand.name)
        _fail(hooks, cand, f"rejected by the dispatcher: {describe(exc)}")


def _import(cand: Candidate) -> Any:
    if cand.source == "entrypoint":
        assert cand.entry_point is not None
        return cand.entry_point.load()
    assert cand.path is not None
    return import_directory(Path(cand.path), cand.name)


def import_directory(path: Path, name: str) -> types.ModuleType:
    """Import a plugin directory as ``hermes_plugins.<slug>`` so relative imports work."""
    ensure_package(NAMESPACE)
    return import_file(f"{NAMESPACE}.{slug(name)}", path / "__init__.py", package_path=path)


__all__ = ["Candidate", "Policy", "describe", "discover", "load_plugins"]


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


def ensure_package(name: str, path: list[str] | None = None) -> types.ModuleType:
    """A (namespace-like) package module called ``name`` in ``sys.modules``, created if needed."""
    package = sys.modules.get(name)
    if package is None:
        package = types.ModuleType(name)
        package.__path__ = list(path or [])
        sys.modules[name] = package
    return package


def import_file(
    module_name: str, file: Path, *, package_path: Path | None = None
) -> types.ModuleType:
    """Import ``file`` as ``module_name`` (a package rooted at ``package_path`` when given, so
    relative imports inside it work). A module that fails to import is not left behind."""
    spec = importlib.util.spec_from_file_location(
        module_name,
        file,
        submodule_search_locations=[str(package_path)] if package_path is not None else None,
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def host_hookspecs(config: Mapping[str, Any], origin: Path | None) -> list[Any]:
    """The modules config ``hookspecs:`` names (a host's own events), imported; one that
    cannot be imported is reported and skipped."""
    names = config.get("hookspecs") or []
    if isinstance(names, str):
        names = [names]
    where = origin or "the config"
    if not isinstance(names, list):
        log.warning("%s: hookspecs must be a list of module names; ignored", where)
        return []
    modules = []
    for name in names:
        try:
            modules.append(importlib.import_module(str(name)))
        except BaseException as exc:
            if escapes(exc):
                raise
            log.warning(
                "%s: hookspecs module %r cannot be imported: %s",
                where,
                name,
                f"{type(exc).__name__}: {exc}",
            )
    return modules


def describe_failure(exc: BaseException) -> str:
    """``"ImportError: no module named x (at /path/plugin/__init__.py:3)"``: the exception and
    the file and line where the plugin's code raised it (a syntax error's own file and line)."""
    import os
    import traceback

    text = f"{type(exc).__name__}: {exc}"
    where = None
    if isinstance(exc, SyntaxError) and exc.filename:
        where = f"{exc.filename}:{exc.lineno}"
    else:
        ours = os.path.dirname(os.path.abspath(__file__))
        frames = [
            f
            for f in traceback.extract_tb(exc.__traceback__)
            if not f.filename.startswith("<") and not f.filename.startswith(ours)
        ]
        if frames:
            where = f"{frames[-1].filename}:{frames[-1].lineno}"
    return f"{text} (at {where})" if where and where not in text else text


def register_function(target: Any, *, by_entry_point: bool = False) -> Any:
    """A plugin's Hermes-style ``register(ctx)``, or ``None``."""
    if inspect.ismodule(target) or inspect.isclass(target):
        fn = getattr(target, "register", None)
        return fn if callable(fn) else None
    if callable(target) and by_entry_point:
        return target  # `pkg:register`: the entry point names the callable itself
    fn = getattr(target, "register", None)
    return fn if callable(fn) else None


def has_hookimpls(target: Any) -> bool:
    """Whether ``target`` holds ``@hookimpl`` functions of its own."""
    from .markers import PROJECT

    attr = f"{PROJECT}_impl"
    for name in dir(target):
        try:
            value = getattr(target, name)
        except Exception:
            continue
        if getattr(value, attr, None) is not None and not hasattr(value, "__hermes_callback__"):
            return True
    return False
