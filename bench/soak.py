"""Soak: many threads firing events through Python hooks, one-shot shell hooks and a warm
worker (``persistent: true``) while another thread registers and unregisters a plugin, then
checks that nothing was lost, duplicated or answered to the wrong caller, and that file
descriptors and child processes (running or never waited for) are back where they started and
memory grew by less than RSS_GROWTH_KIB.

Usage: ``python bench/soak.py [--threads 8] [--events 10000] [--write]``. The test suite runs a
short version (``tests/test_soak.py``).
"""

from __future__ import annotations

import argparse
import os
import resource
import stat
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

SHELL_EVERY = 50  # one post_tool_call (with its shell hook) every SHELL_EVERY events per thread
WORKER_EVERY = 2  # one pre_llm_call (with its warm worker) every WORKER_EVERY events per thread
# The warm worker: notes its pid when it starts (it must start once), logs each event's n,
# answers with context naming it (checked by the caller).
WORKER = """#!{python}
import os
from hermes_hooks.worker import serve
with open({log!r} + ".starts", "a") as starts:
    starts.write(f"{{os.getpid()}}\\n")
log = open({log!r}, "a")
def handle(event, payload):
    n = payload["extra"]["n"]
    log.write(f"{{n}}\\n")
    log.flush()
    return {{"context": f"worker saw {{n}}"}}
serve(handle)
"""


def _fds() -> int:
    return len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else -1


def _rss_kib() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


RSS_GROWTH_KIB = 64 * 1024  # more than this much growth over the soak counts as a leak


def _children() -> set[int]:
    """This process's children, running or exited but never waited for (zombies): both are
    leaks. Read from ``/proc`` so nothing is reaped by looking; elsewhere, what ``waitpid``
    sees (a child still running)."""
    me = str(os.getpid())
    if not os.path.isdir("/proc/self"):
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return set()
        return {-1} if pid == 0 else set()
    found = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[1] == me:
            found.add(int(entry.name))
    return found


def make_home(root: Path) -> tuple[Path, Path, Path]:
    home = root / "home"
    plugin = home / "plugins" / "counter"
    plugin.mkdir(parents=True)
    (plugin / "__init__.py").write_text(
        "import threading\n"
        "from hermes_hooks import hookimpl\n"
        "LOCK = threading.Lock()\nCALLS = []\n\n"
        "@hookimpl\n"
        "def pre_tool_call(args):\n"
        "    with LOCK:\n"
        "        CALLS.append(args['n'])\n"
        "    if args['n'] % 7 == 0:\n"
        "        return {'action': 'block', 'message': f\"no {args['n']}\"}\n"
    )
    log = root / "shell.log"
    script = root / "count.sh"
    script.write_text(f"#!/bin/sh\ncat >/dev/null\necho x >> {log}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    worker_log = root / "worker.log"
    worker = root / "worker.py"
    worker.write_text(WORKER.format(python=sys.executable, log=str(worker_log)))
    worker.chmod(0o755)
    (home / "config.yaml").write_text(
        f"hooks:\n  post_tool_call:\n    - command: {script}\n"
        f"  pre_llm_call:\n    - command: {worker}\n      persistent: true\n"
    )
    return home, log, worker_log


def run(threads: int, events: int) -> dict[str, Any]:
    """The soak; returns its figures and the problems found (``problems`` empty: all good)."""
    import hermes_hooks
    from hermes_hooks import hookimpl

    tmp = Path(tempfile.mkdtemp(prefix="hermes-soak-"))
    home, log, worker_log = make_home(tmp)
    fds_at_start, children_at_start = _fds(), _children()
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    counter = sys.modules["hermes_plugins.counter"]
    problems: list[str] = []
    wrong: Counter[str] = Counter()
    stop = threading.Event()
    churned = [0]

    class Churn:
        @hookimpl
        def pre_tool_call(self) -> None:
            return None

    def churn() -> None:
        while not stop.is_set():
            name = hooks.register(Churn(), "churn")
            hooks.unregister(name)
            churned[0] += 1

    def fire(worker: int) -> None:
        for i in range(events):
            n = worker * events + i
            decision = hooks.pre_tool_call(tool_name="terminal", args={"n": n}, session_id="soak")
            expected = ("block", f"no {n}") if n % 7 == 0 else (None, None)
            if (decision.action, decision.message) != expected:
                wrong["decision"] += 1
            if i % WORKER_EVERY == 0:
                context = hooks.pre_llm_call(session_id="soak", user_message="hi", n=n)
                if context != f"worker saw {n}":
                    wrong["worker"] += 1
            if i % SHELL_EVERY == 0:
                hooks.post_tool_call(tool_name="terminal", args={"n": n}, result="ok", status="ok")

    # Warm-up (the worker starts), then the baseline.
    hooks.post_tool_call(tool_name="terminal", args={"n": -1}, result="ok", status="ok")
    hooks.pre_llm_call(session_id="soak", user_message="hi", n=-1)
    fds, rss, children = _fds(), _rss_kib(), _children()
    started = time.perf_counter()
    churner = threading.Thread(target=churn)
    churner.start()
    workers = [threading.Thread(target=fire, args=(w,)) for w in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    stop.set()
    churner.join()
    elapsed = time.perf_counter() - started
    total = threads * events
    shell_expected = threads * len(range(0, events, SHELL_EVERY)) + 1
    calls = Counter(counter.CALLS)
    if len(counter.CALLS) != total or set(calls.values()) != {1} or len(calls) != total:
        problems.append(f"counter plugin saw {len(counter.CALLS)} calls for {total} events")
    if wrong["decision"]:
        problems.append(f"{wrong['decision']} decision(s) differ from what the hooks answered")
    if wrong["worker"]:
        problems.append(f"{wrong['worker']} worker answer(s) missing or meant for another event")
    worker_expected = {
        w * events + i for w in range(threads) for i in range(0, events, WORKER_EVERY)
    }
    seen = Counter(int(x) for x in worker_log.read_text().split())
    seen[-1] -= 1  # the warm-up
    worker_runs = sum(seen.values())
    if set(+seen) != worker_expected or set(seen.values()) - {0, 1}:
        problems.append(f"the warm worker saw {worker_runs} events for {len(worker_expected)} fired "
                        "(or some twice)")  # fmt: skip
    worker_starts = len(Path(f"{worker_log}.starts").read_text().split())
    if worker_starts != 1:
        problems.append(f"the warm worker was started {worker_starts} times, not kept")
    shell_runs = len(log.read_text().splitlines())
    if shell_runs != shell_expected:
        problems.append(f"shell hook ran {shell_runs} times, expected {shell_expected}")
    counter.CALLS.clear()  # the plugin's own record, not the dispatcher's memory
    del calls, seen, worker_expected  # the checks' own data, not the dispatcher's memory
    import gc

    gc.collect()
    fds_after, rss_after = _fds(), _rss_kib()
    if fds_after > fds + 2:
        problems.append(f"file descriptors: {fds} before, {fds_after} after")
    left = _children() - children
    if left:
        problems.append(
            f"child processes left behind (running or never waited for): {sorted(left)}"
        )
    if rss_after > rss + RSS_GROWTH_KIB:
        problems.append(f"resident memory grew from {rss // 1024} to {rss_after // 1024} MiB")
    hooks.close()
    left = _children() - children_at_start
    if left:
        problems.append(f"after close(), child processes left: {sorted(left)}")
    if _fds() > fds_at_start + 2:
        problems.append(f"after close(), file descriptors: {fds_at_start} before load, {_fds()}")
    return {
        "threads": threads,
        "events": total,
        "shell_runs": shell_runs,
        "worker_runs": worker_runs,
        "worker_starts": worker_starts,
        "churn_cycles": churned[0],
        "seconds": round(elapsed, 2),
        "events_per_second": round(total / elapsed),
        "fds_before": fds,
        "fds_after": fds_after,
        "rss_kib_before": rss,
        "rss_kib_after": rss_after,
        "problems": problems,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--events", type=int, default=10000)
    parser.add_argument("--write", action="store_true", help="update docs/performance.md")
    args = parser.parse_args()
    result = run(args.threads, args.events)
    lines = [
        f"{result['threads']} threads × {args.events} events ({result['events']} in all), "
        f"{result['shell_runs']} one-shot shell hook runs, {result['worker_runs']} events to "
        f"a warm worker, {result['churn_cycles']} "
        f"register/unregister cycles alongside: {result['seconds']} s "
        f"({result['events_per_second']} events/s).",
        "",
        f"- file descriptors: {result['fds_before']} before, {result['fds_after']} after",
        f"- resident memory: {result['rss_kib_before'] // 1024} MiB before, "
        f"{result['rss_kib_after'] // 1024} MiB after",
        "- lost or duplicated results, wrong decisions, leftover child processes: "
        + ("none" if not result["problems"] else "; ".join(result["problems"])),
    ]
    text = "\n".join(lines)
    print(text)
    if args.write:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from dispatch import write_section

        write_section(text, "<!-- soak:begin -->", "<!-- soak:end -->")
    sys.exit(1 if result["problems"] else 0)


if __name__ == "__main__":
    main()
