"""The run's venvs are built once per run, whichever pytest-xdist worker asks first
(``venvs.run_pool``, the ``venvs`` fixture)."""

from __future__ import annotations

from pathlib import Path

import pytest

CONFTEST = """
import pytest
import venvs

pytest_plugins = ["slow_guard"]


@pytest.fixture(scope="session")
def pool(expensive, tmp_path_factory, request):
    return venvs.run_pool(request.config, tmp_path_factory)
"""

TESTS = """
import pytest


@pytest.mark.slow
@pytest.mark.parametrize("i", range(6))
def test_get(pool, i):
    venv = pool.get()  # no install step: a bare venv, quick to build
    assert venv.python.exists()
    print("ROOT", venv.root)
"""


@pytest.mark.slow
def test_a_shared_venv_is_built_once_across_xdist_workers(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent))  # venvs, slow_guard
    pytester.makeconftest(CONFTEST)
    pytester.makeini("[pytest]\nmarkers =\n    slow: expensive\n")
    pytester.makepyfile(test_pool=TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "-rA")
    result.assert_outcomes(passed=6)
    out = result.stdout.str()
    assert "created: 2/2 workers" in out
    roots = {line.split("ROOT", 1)[1].strip() for line in out.splitlines() if "ROOT " in line}
    built = [cfg.parent for cfg in (pytester.path / "runpytest-0").rglob("pyvenv.cfg")]
    assert len(built) == 1, built
    assert roots == {str(built[0])}, roots  # every test got that one
