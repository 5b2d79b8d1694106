"""Internal: part of the built-ins (docs/builtins.md), not an API.

The packs of ``command_guard``: one module per area, each defining ``PACK``
(:class:`..rules.Pack`). The set of packs is the set of modules here: adding a pack is adding
its module."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from ..rules import Pack


@cache
def all_packs() -> dict[str, Pack]:
    """Every shipped pack by name, in module-name order."""
    packs: dict[str, Pack] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        pack = importlib.import_module(f"{__name__}.{info.name}").PACK
        packs[pack.name] = pack
    return packs
