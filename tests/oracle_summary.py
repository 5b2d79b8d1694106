"""The oracle's summary lines at the end of a run: per agent, how many cases agree
(``oracle_compare.RESULTS``), and the oracle's own time, apart from the rest of the suite.

A plugin of the root ``conftest.py``, so it runs in pytest-xdist's controller too, which never
imports ``tests/oracle/``: each worker sends its ``RESULTS`` back when it finishes
(``workeroutput``) and the controller merges them; the times come from the test reports, which
reach the controller from every worker.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

#: agent -> case id -> status, merged from every process that ran oracle tests.
_results: dict[str, dict[str, str]] = {}
#: (start, stop) of every phase (setup, call, teardown) of every oracle test.
_spans: list[tuple[float, float]] = []
_tests: set[str] = set()


def _own_results() -> dict[str, dict[str, str]]:
    """This process's ``oracle_compare.RESULTS`` (empty when no oracle test was imported)."""
    module = sys.modules.get("oracle_compare")
    return dict(getattr(module, "RESULTS", {}))


def _merge(results: dict[str, dict[str, str]]) -> None:
    for agent, cases in results.items():
        _results.setdefault(agent, {}).update(cases)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if "oracle" in report.keywords:
        _spans.append((report.start, report.stop))
        _tests.add(report.nodeid)


def pytest_sessionfinish(session: pytest.Session) -> None:
    output = getattr(session.config, "workeroutput", None)
    if output is not None:  # an xdist worker: the controller prints the summary
        output["oracle_results"] = _own_results()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    _merge(getattr(node, "workeroutput", {}).get("oracle_results", {}))


def lines(
    results: dict[str, dict[str, str]], spans: list[tuple[float, float]], tests: int
) -> list[str]:
    """The summary lines: one per agent, then the oracle's time."""
    out = []
    for agent, cases in sorted(results.items()):
        agree = sum(1 for s in cases.values() if s == "agree")
        named = sum(1 for s in cases.values() if s.startswith("differs"))
        xfail = sum(1 for s in cases.values() if s == "xfail")
        bad = sorted(c for c, s in cases.items() if s == "disagree")
        line = f"oracle {agent}: {agree}/{len(cases)} cases agree"
        extra = [f"{named} named differences"] if named else []
        extra += [f"{xfail} xfail (missing features)"] if xfail else []
        extra += [f"DISAGREE: {', '.join(bad)}"] if bad else []
        out.append(line + (f" ({'; '.join(extra)})" if extra else ""))
    if spans:
        wall = max(stop for _, stop in spans) - min(start for start, _ in spans)
        busy = sum(stop - start for start, stop in spans)
        out.append(
            f"oracle time: {wall:.1f} s wall, from its first test's start to its last one's end "
            f"({tests} tests, {busy:.1f} s of test time summed over the workers)"
        )
    return out


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if getattr(terminalreporter.config, "workeroutput", None) is not None:
        return
    _merge(_own_results())
    for line in lines(_results, _spans, len(_tests)):
        terminalreporter.write_line(line)
