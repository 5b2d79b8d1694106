"""Each built-in declares itself once (``builtin_plugins/__init__.py``), and the declarations
tell the truth about the modules: these tests are the checklist of "Adding a built-in hook
source" in CONTRIBUTING.md. That each switch serves exactly the events its module implements is
``test_serves_matches_what_each_builtin_implements`` in ``tests/test_builtin_entries.py``."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest
from hermes_hooks.builtin_plugins import (
    BUILTINS,
    CONFIG_KEYS,
    DECLARED,
    LIBRARY,
    SWITCHES,
    switches,
)

from hermes_hooks import catalogue, config

PACKAGE = "hermes_hooks.builtin_plugins"
ROOT = Path(__file__).resolve().parent.parent / "builtin_plugins"


def _modules_with_setup() -> set[str]:
    found = set()
    for info in pkgutil.iter_modules([str(ROOT)]):
        module = importlib.import_module(f"{PACKAGE}.{info.name}")
        if callable(getattr(module, "setup", None)):
            found.add(info.name)
    return found


def test_every_module_with_setup_is_declared_and_every_declared_one_has_setup():
    # lockdown has no setup: it is registered by the runtime builder, only for a bad config
    assert _modules_with_setup() == set(BUILTINS)


def test_names_are_unique_and_switches_are_owned_once():
    assert len(BUILTINS) == len(DECLARED)
    assert len(SWITCHES) == sum(len(b.switches) for b in DECLARED)


@pytest.mark.parametrize("switch", list(SWITCHES.values()), ids=list(SWITCHES))
def test_a_switch_declares_known_events_and_a_main_argument_it_accepts(switch):
    known = catalogue.events()
    assert switch.serves is None or set(switch.serves) <= set(known)
    assert not switch.list_arg or switch.main_arg is not None
    assert switch.main_arg is None or switch.main_arg in switch.keys


def _source(name: str) -> str:
    path = ROOT / name
    files = sorted(path.rglob("*.py")) if path.is_dir() else [path.with_suffix(".py")]
    return "\n".join(f.read_text(encoding="utf-8") for f in files)


@pytest.mark.parametrize("builtin", DECLARED, ids=[b.name for b in DECLARED])
def test_the_keys_a_builtin_declares_are_read_by_its_module(builtin):
    source = _source(builtin.name)
    for key in builtin.config:
        assert re.search(rf"[\"']{key}[\"']", source), f"{builtin.name} never reads {key!r}"
    for switch in builtin.switches:
        for key in switch.keys:
            # read as a literal, or through the declaration (the main argument)
            assert re.search(rf"[\"']{key}[\"']", source) or key == switch.main_arg, (
                f"{switch.name} never reads its key {key!r}"
            )


def test_the_tables_that_list_builtins_are_read_off_the_declarations():
    assert switches.SERVES == {s.name: s.serves for s in SWITCHES.values()}
    assert switches.POSITIONAL == {s.name: s.main_arg for s in SWITCHES.values() if s.main_arg}
    assert set(switches._LISTS) == {s.name for s in SWITCHES.values() if s.list_arg}
    assert set(SWITCHES) | {k for b in DECLARED for k in b.config} <= set(CONFIG_KEYS)
    assert not set(CONFIG_KEYS) & set(config.TOP_LEVEL)  # the core lists only its own


def test_the_library_implements_each_of_its_declared_switches():
    from hermes_hooks.builtin_plugins import library

    assert library.NAMES == LIBRARY
    context = {name for name in LIBRARY if SWITCHES[name].serves == ("pre_llm_call",)}
    assert set(library.CONTEXT) == context
    assert all(callable(library.CONTEXT[name].fn) for name in context)
