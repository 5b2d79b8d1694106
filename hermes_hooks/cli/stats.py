"""Internal: the ``hermes hooks`` command line (docs/cli.md), not an API.

``hermes hooks stats FILE``: what the receipts of a ``trace_file`` say about each hook.

One row per hook (and its source): runs, p50/p95/max duration in ms, blocks (its decision was
``block`` or ``deny``), failures, dropped answers, and firings at which it did not run (a shell
hook not approved, or changed since its approval). Lines that are not receipts are counted and
reported, never silently skipped.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import click

from . import _logging
from .listing import print_table

BLOCKING = ("block", "deny")
#: Outcomes of a hook that did not run (a shell hook not approved, or changed since).
NOT_RUN = ("unapproved", "changed")


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` by the nearest-rank method."""
    ordered = sorted(values)
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[rank - 1]


def summarise(lines: list[str]) -> tuple[list[dict[str, Any]], int]:
    """Per-hook figures from receipt lines, busiest first; and how many lines were unreadable."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    bad = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            receipt = json.loads(line)
        except ValueError:
            bad += 1
            continue
        if not isinstance(receipt, dict) or "hook" not in receipt:
            bad += 1
            continue
        key = (str(receipt["hook"]), str(receipt.get("source")))
        groups.setdefault(key, []).append(receipt)
    rows = []
    for (hook, source), receipts in groups.items():
        ran = [r for r in receipts if r.get("outcome") not in NOT_RUN]
        ms = [float(r["ms"]) for r in ran if isinstance(r.get("ms"), (int, float))]
        decisions = [r.get("decision") for r in receipts]
        rows.append(
            {
                "hook": hook,
                "source": source,
                "events": sorted({str(r.get("event")) for r in receipts}),
                "runs": len(ran),
                "not_run": len(receipts) - len(ran),
                "p50_ms": round(percentile(ms, 0.5), 3) if ms else None,
                "p95_ms": round(percentile(ms, 0.95), 3) if ms else None,
                "max_ms": round(max(ms), 3) if ms else None,
                "blocks": sum(
                    isinstance(d, dict) and str(d.get("action")) in BLOCKING for d in decisions
                ),
                "failures": sum(r.get("outcome") == "failed" for r in receipts),
                "dropped": sum(r.get("outcome") == "dropped" for r in receipts),
            }
        )
    rows.sort(key=lambda r: (-r["runs"] - r["not_run"], r["hook"]))
    return rows, bad


@click.command("stats")
@click.argument("trace", type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print {file, hooks, unreadable} as JSON.")
def stats_cmd(trace: str, as_json: bool) -> None:
    """Summarise the receipts in TRACE (a ``trace_file``): per hook, runs, p50/p95/max ms,
    blocks, failures and dropped answers."""
    _logging()
    text = Path(trace).read_text(encoding="utf-8", errors="replace")
    rows, bad = summarise(text.splitlines())
    if as_json:
        click.echo(json.dumps({"file": trace, "hooks": rows, "unreadable": bad}, indent=2))
        return
    if bad:
        click.echo(f"{trace}: {bad} line(s) are not receipts; skipped", err=True)
    if not rows:
        click.echo(f"No receipts in {trace}.")
        return
    print_table(
        ["HOOK", "SOURCE", "RUNS", "P50 MS", "P95 MS", "MAX MS", "BLOCKS", "FAILED", "DROPPED"],
        [
            [
                r["hook"],
                r["source"],
                r["runs"],
                r["p50_ms"],
                r["p95_ms"],
                r["max_ms"],
                r["blocks"],
                r["failures"],
                r["dropped"],
            ]  # fmt: skip
            for r in rows
        ],
    )
