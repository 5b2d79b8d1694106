"""Dispatch cost: ``hooks.call`` against raw pluggy and a plain callback loop, in one run.

Usage: ``python bench/dispatch.py [--quick] [--write]``. ``--write`` replaces the dispatch
section of docs/performance.md. Figures are the best of several repeats (least disturbed by
other load on the machine); compare ratios, not absolute times, across machines.
"""

from __future__ import annotations

import argparse
import platform
import queue
import sys
import threading
import timeit
from collections.abc import Callable
from pathlib import Path

import pluggy

from hermes_hooks import hookimpl
from hermes_hooks.catalogue import example_payload
from hermes_hooks.context import PluginContext
from hermes_hooks.hooks import Hooks

COUNTS = (0, 1, 10, 100)
EVENTS = ("pre_tool_call", "pre_llm_call")
# What a host passes: every argument of the event (raw pluggy warns about missing ones).
KWARGS = {event: example_payload(event) for event in EVENTS}


def make_native(event: str):
    if event == "pre_tool_call":

        def impl(tool_name, args):
            return None
    else:

        def impl(session_id, user_message):
            return None

    return type("P", (), {event: staticmethod(hookimpl(impl))})()


def best(stmt, number: int, repeat: int) -> float:
    """Best time per call in microseconds."""
    return min(timeit.repeat(stmt, number=number, repeat=repeat)) / number * 1e6


def measure(event: str, n: int, number: int, repeat: int) -> dict[str, float]:
    hooks = Hooks()
    for i in range(n):
        hooks.register(make_native(event), f"p{i}")
    kw = KWARGS[event]
    raw = getattr(hooks.manager.hook, event)
    callbacks = [lambda **k: None for _ in range(n)]

    def plain_loop():
        for cb in callbacks:
            cb(**kw)

    call = hooks.call

    def ours():
        call(event, **kw)

    def guarded():
        if hooks.has_hook(event):
            call(event, **kw)

    hermes = Hooks()
    if n:
        ctx = PluginContext(hermes, "hermes-style")
        for _ in range(n):
            ctx.register_hook(event, lambda **k: None)
        ctx.commit(source="python")
    hcall = hermes.call

    def hermes_style():
        hcall(event, **kw)

    return {
        "hermes_style": best(hermes_style, number, repeat),
        "hermes_hooks": best(ours, number, repeat),
        "has_hook_guard": best(guarded, number, repeat),
        "raw_pluggy": best(lambda: raw(**kw), number, repeat),
        "plain_loop": best(plain_loop, number, repeat),
    }


def run(quick: bool) -> tuple[str, dict]:
    number, repeat = (2000, 3) if quick else (20000, 7)
    results = {}
    for event in EVENTS:
        for n in COUNTS:
            k = max(1, number // max(1, n // 2))
            results[(event, n)] = measure(event, n, k, repeat)
    lines = [
        f"Python {platform.python_version()}, pluggy {pluggy.__version__}, {platform.machine()}; "
        f"best of {repeat} repeats, times in µs per event fired.",
        "",
        "| event | hooks | hooks.call | has_hook + call | raw pluggy | plain loop | call / pluggy | Hermes-style callbacks via hooks.call | Hermes-style / plain loop |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for (event, n), r in results.items():
        ratio = r["hermes_hooks"] / r["raw_pluggy"] if r["raw_pluggy"] else float("nan")
        lines.append(
            f"| {event} | {n} | {r['hermes_hooks']:.2f} | {r['has_hook_guard']:.2f} | "
            f"{r['raw_pluggy']:.2f} | {r['plain_loop']:.2f} | {ratio:.2f}× | "
            f"{r['hermes_style']:.2f} | {r['hermes_style'] / r['plain_loop']:.2f}× |"
        )
    summary = {}
    for event in EVENTS:
        r0, r1, r100 = results[(event, 0)], results[(event, 1)], results[(event, 100)]
        summary[event] = {
            "no_hook_guarded_us": r0["has_hook_guard"],
            "one_hook_ratio": r1["hermes_hooks"] / r1["raw_pluggy"],
            "per_hook_ratio": (r100["hermes_hooks"] - r1["hermes_hooks"])
            / (r100["raw_pluggy"] - r1["raw_pluggy"]),
        }
    lines += [
        "",
        "| event | no-hook event with has_hook (target ≤ 0.3 µs) | 1 hook vs pluggy (target ≤ 1.5×) | per-hook cost vs pluggy (target ≤ 1.2×) |",
        "| --- | ---: | ---: | ---: |",
    ]
    for event, s in summary.items():
        lines.append(
            f"| {event} | {s['no_hook_guarded_us']:.3f} µs | {s['one_hook_ratio']:.2f}× | {s['per_hook_ratio']:.2f}× |"
        )
    limited = measure_limit(number, repeat)
    lines += [
        "",
        "A time limit (`plugins.hook_callback_timeout`, `timeout:` in plugin.yaml) hands the "
        "call to a waiting worker thread; a hook without one keeps the inline fast path. The "
        "hand-over costs what the machine charges to wake a thread and be woken back, measured "
        "in the same run as a bare ping-pong (a queue and an event, no hook):",
        "",
        "| pre_tool_call, 1 hook | µs per event | × no limit | × bare hand-over |",
        "| --- | ---: | ---: | ---: |",
        f"| no limit | {limited['none']:.2f} | 1.00× | |",
        f"| with a time limit | {limited['limit']:.2f} | {limited['limit'] / limited['none']:.0f}× "
        f"| {limited['limit'] / limited['handover']:.2f}× |",
        f"| bare hand-over, no hook | {limited['handover']:.2f} | | 1.00× |",
    ]
    return "\n".join(lines), summary


def measure_limit(number: int, repeat: int) -> dict[str, float]:
    """One hook without and with a time limit."""
    kw = KWARGS["pre_tool_call"]
    out = {}
    for label, timeout in (("none", None), ("limit", 5.0)):
        hooks = Hooks()
        hooks.register(make_native("pre_tool_call"), "p", timeout=timeout)
        out[label] = best(
            lambda call=hooks.call: call("pre_tool_call", **kw), max(1, number // 20), repeat
        )
    out["handover"] = best(_handover(), max(1, number // 20), repeat)
    return out


def _handover() -> Callable[[], None]:
    """The floor under any time limit: put a job on a waiting thread's queue, wait for it."""
    jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()

    def loop() -> None:
        while True:
            jobs.get()()

    threading.Thread(target=loop, daemon=True).start()

    def once() -> None:
        done = threading.Event()
        jobs.put(done.set)
        done.wait(5)

    return once


def write_section(
    text: str, begin: str = "<!-- dispatch:begin -->", end: str = "<!-- dispatch:end -->"
) -> None:
    path = Path(__file__).resolve().parent.parent / "docs" / "performance.md"
    current = path.read_text() if path.exists() else "# Performance\n\n"
    block = f"{begin}\n{text}\n{end}"
    if begin in current and end in current:
        head, rest = current.split(begin, 1)
        _, tail = rest.split(end, 1)
        current = head + block + tail
    else:
        current = current.rstrip() + "\n\n" + block + "\n"
    path.write_text(current)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations (smoke run)")
    parser.add_argument("--write", action="store_true", help="update docs/performance.md")
    args = parser.parse_args()
    text, _ = run(args.quick)
    print(text)
    if args.write:
        write_section(text)


if __name__ == "__main__":
    sys.exit(main())
