"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Importing plugin code from files and directories (plugin directories, gateway handlers)."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import logging
import sys
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .faults import escapes

log = logging.getLogger("hermes_hooks")


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
