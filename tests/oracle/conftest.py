"""Fixtures of the oracle tests: the real CLIs (installed once into a cache). The summary lines
at the end of a run are ``tests/oracle_summary.py``'s.

Every oracle test is marked ``oracle`` and ``slow``. A CLI that cannot be installed or run fails
the tests that need it with the reason; ``HERMES_HOOKS_SKIP_ORACLE=1`` skips them instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest
from oracle_install import (
    CLAUDE,
    CODEX,
    GEMINI,
    SKIP_ENV,
    Installed,
    OracleUnavailable,
    install_npm,
)


def _installer(spec: tuple[str, str, str]) -> Callable[[], Installed]:
    def get() -> Installed:
        if os.environ.get(SKIP_ENV) == "1":
            pytest.skip(f"{SKIP_ENV}=1: the oracle tests against the real agent CLIs are skipped")
        try:
            return install_npm(spec)
        except OracleUnavailable as exc:
            why = str(exc)
        pytest.fail(f"oracle: {why}\n(set {SKIP_ENV}=1 to skip the oracle tests)", pytrace=False)

    return get


@pytest.fixture(scope="session")
def claude_cli(expensive: None) -> Installed:
    return _installer(CLAUDE)()


@pytest.fixture(scope="session")
def gemini_cli(expensive: None) -> Installed:
    return _installer(GEMINI)()


@pytest.fixture(scope="session")
def codex_cli(expensive: None) -> Installed:
    return _installer(CODEX)()


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HERMES_HOME", "HERMES_SAFE_MODE", "HERMES_HOOKS_DISABLED", "HERMES_HOOKS_PLUGINS",
                "HERMES_ENABLE_PROJECT_PLUGINS", "HERMES_ACCEPT_HOOKS", "CLAUDE_ENV_FILE",
                "CLAUDE_PROJECT_DIR"):  # fmt: skip
        monkeypatch.delenv(var, raising=False)
