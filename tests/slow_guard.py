"""Keeps ``-m "not slow"`` fast: every test that builds a venv, installs from a registry or runs
a real agent CLI must be marked ``slow``.

Checked twice: at collection, a test whose fixtures reach ``expensive`` (the session fixture that
every such fixture requests, in ``conftest.py``) and that is not marked ``slow`` stops the run
before anything runs (on a pytest-xdist worker, which cannot stop the run with a message, each
such test fails before its fixtures run); while running, :func:`require_slow` (called by ``venvs.Venv`` and
``venvs.wheel``) fails a test that is not marked ``slow`` and builds one anyway.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

#: The fixture every venv-building, registry-installing or agent-starting fixture requests.
EXPENSIVE = "expensive"

_current: list[pytest.Item] = []


@pytest.fixture(scope="session")
def expensive() -> None:
    """Requested by every fixture that builds a venv, installs from a registry or runs a real
    agent CLI: a test that reaches it must be marked ``slow``."""


def unmarked(items: list[pytest.Item]) -> list[str]:
    """The node ids of the tests that reach ``expensive`` without the ``slow`` marker."""
    return [
        item.nodeid
        for item in items
        if EXPENSIVE in getattr(item, "fixturenames", ())
        and item.get_closest_marker("slow") is None
    ]


_WHY = (
    "build a venv, install from a registry or run a real agent (they use a fixture that "
    "requests `expensive`) but are not marked slow"
)
_refused: set[str] = set()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    missing = unmarked(items)
    if missing and hasattr(config, "workerinput"):
        # A pytest-xdist worker: an error raised here would reach the controller as an internal
        # error without its message, so each such test fails instead, before its fixtures run.
        _refused.update(missing)
    elif missing:
        raise pytest.UsageError(f"these tests {_WHY}:\n  " + "\n  ".join(missing))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.nodeid in _refused:
        pytest.fail(f"{item.nodeid}: this test and those like it {_WHY}", pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    _current.append(item)
    try:
        return (yield)
    finally:
        _current.pop()


def require_slow(what: str) -> None:
    """Fail unless the running test is marked ``slow`` (outside a pytest run: nothing)."""
    if _current and _current[-1].get_closest_marker("slow") is None:
        pytest.fail(f"{_current[-1].nodeid} is not marked slow but is {what}", pytrace=False)
