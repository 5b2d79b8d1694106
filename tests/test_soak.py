"""A short soak (bench/soak.py): threads firing Python hooks, shell hooks and a warm worker
while a plugin is registered and unregistered over and over; nothing lost, duplicated or
leaked."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from soak import run  # noqa: E402


def test_short_soak_loses_nothing_and_leaks_nothing(home):
    result = run(threads=4, events=400)
    assert result["problems"] == []
    assert result["events"] == 1600 and result["churn_cycles"] > 0
    assert result["shell_runs"] == 4 * 8 + 1
    assert result["worker_runs"] == 4 * 200  # every second event of each thread
    assert result["worker_starts"] == 1  # by one kept process, not a process per event


def test_the_leak_check_sees_a_child_nobody_waited_for():
    import os
    import subprocess

    from soak import _children

    before = _children()
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # exited, still not reaped
        assert _children() - before == {child.pid}
    finally:
        child.wait()
    assert _children() - before == set()
