"""The oracle's summary lines (``oracle_summary``) reach the end of a run on pytest-xdist
workers: the controller, which runs no oracle test, merges what every worker sends back."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_the_oracle_summary_is_printed_by_the_controller_of_a_run_on_workers(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent))  # oracle_summary, for workers
    pytester.makeini("[pytest]\nmarkers =\n    oracle: against a real agent\n")
    pytester.makeconftest('pytest_plugins = ["oracle_summary"]\n')
    pytester.makepyfile(
        oracle_compare="RESULTS = {}\n",
        test_a="""
        import time
        import pytest
        import oracle_compare

        @pytest.mark.oracle
        @pytest.mark.parametrize("case", ["one", "two", "three", "four"])
        def test_case(case):
            time.sleep(0.2)
            status = "disagree" if case == "four" else "agree"
            oracle_compare.RESULTS.setdefault("fake", {})[case] = status

        def test_not_oracle():
            time.sleep(1.5)
        """,
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2")
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.OK, out
    # every worker's cases, merged: four, one of them disagreeing
    assert "oracle fake: 3/4 cases agree (DISAGREE: four)" in out, out
    line = next(x for x in out.splitlines() if x.startswith("oracle time: "))
    assert "(4 tests, " in line, line
    busy = float(line.split("(4 tests, ")[1].split()[0])
    # the oracle's own tests' time, summed over the workers: not the slow non-oracle test's
    assert 0.8 <= busy < 1.5, line
