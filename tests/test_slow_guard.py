"""``-m "not slow"`` stays fast: a test that builds a venv, installs from a registry or runs a
real agent and is not marked ``slow`` stops the run (``slow_guard``)."""

from __future__ import annotations

from pathlib import Path

import pytest

CONFTEST = """
import pytest
import slow_guard
pytest_plugins = ["slow_guard"]


@pytest.fixture(scope="session")
def builds_a_venv(expensive):
    return "venv"


@pytest.fixture
def uses_it(builds_a_venv):
    return builds_a_venv
"""

INI = """
[pytest]
markers =
    slow: expensive
"""


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    pytester.makeini(INI)
    return pytester


def test_an_unmarked_test_reaching_a_venv_fixture_stops_the_run(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_a="""
        import pytest

        @pytest.mark.slow
        def test_marked(builds_a_venv):
            pass

        def test_through_another_fixture(uses_it):
            pass

        def test_cheap():
            pass
        """
    )
    result = suite.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*not marked slow*", "*test_a.py::test_through_another_fixture"])
    assert "test_marked" not in result.stderr.str()
    assert "test_cheap" not in result.stderr.str()
    # deselecting the slow tests does not hide it
    assert suite.runpytest("-p", "no:cacheprovider", "-m", "not slow").ret == (
        pytest.ExitCode.USAGE_ERROR
    )


def test_marked_tests_run_and_an_unmarked_one_that_builds_a_venv_fails(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(
        test_b="""
        import pytest
        import slow_guard

        @pytest.mark.slow
        def test_marked(uses_it):
            assert uses_it == "venv"

        @pytest.mark.slow
        def test_marked_builds():
            slow_guard.require_slow("building a venv")

        def test_unmarked_builds():
            slow_guard.require_slow("building a venv")
        """
    )
    result = suite.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        ["*test_b.py::test_unmarked_builds is not marked slow but is building a venv*"]
    )


def test_the_guard_holds_on_pytest_xdist_workers(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The suite runs on pytest-xdist workers by default: each worker collects, so an unmarked
    test reaching a venv fixture still stops the run, and one that builds a venv still fails."""
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent))  # slow_guard, for the workers
    suite.makepyfile(
        test_a="""
        import pytest

        def test_through_another_fixture(uses_it):
            pass
        """
    )
    stopped = suite.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2")
    assert stopped.ret != pytest.ExitCode.OK
    assert "test_a.py::test_through_another_fixture" in stopped.stdout.str() + stopped.stderr.str()
    assert "not marked slow" in stopped.stdout.str() + stopped.stderr.str()
    suite.makepyfile(
        test_a="""
        import slow_guard

        def test_unmarked_builds():
            slow_guard.require_slow("building a venv")

        def test_cheap():
            pass
        """
    )
    failed = suite.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2")
    failed.assert_outcomes(passed=1, failed=1)
    failed.stdout.fnmatch_lines(
        ["*test_unmarked_builds is not marked slow but is building a venv*"]
    )
