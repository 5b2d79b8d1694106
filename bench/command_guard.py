"""What ``command_guard`` costs per command line and what it catches, over the three command
corpora (tests/data/command_corpus: dcg's, the public one, and the held-out one), beside Hermes
Agent 0.19's own ``tools.approval.detect_dangerous_command`` and ``dangerous_patterns`` with every
shipped group on.

Usage: ``python bench/command_guard.py [--quick] [--write] [--no-hermes]``. Like
``bench/hermes.py`` it re-runs itself in the bench venv (``.bench-venv/``: hermes-agent==0.19.0
and this checkout, made on first use) so Hermes' checker is measured in the same run;
``--no-hermes`` runs here, without Hermes' column. Each line is judged with every pack on and an
uncached parse (the parser's cache is bypassed), once per round, the checkers alternating line by
line so load on the machine hits them alike; a line's figure is its median over the rounds, and
p50/p99 are over the lines. "caught" counts the deny cases flagged, "flagged" the allow cases
flagged (a line ``command_guard`` cannot read counts as flagged). ``--write`` replaces the
command_guard section of docs/performance.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
CORPUS = ROOT / "tests" / "data" / "command_corpus"
CORPORA = {"dcg": CORPUS / "dcg", "public": CORPUS / "public", "heldout": CORPUS / "heldout"}

sys.path.insert(0, str(BENCH))
from dispatch import write_section  # noqa: E402

Checker = Callable[[str], bool]
"""Whether a checker flags a command line."""


def bench_module(name: str) -> Any:
    """Another bench script, imported under a name of its own (``hermes`` would shadow
    hermes-agent's modules)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load(folder: Path) -> list[tuple[str, str]]:
    """(command, expected) of every case of a corpus that carries a command."""
    import tomllib

    cases = []
    for path in sorted(folder.rglob("*.toml")):
        for item in tomllib.loads(path.read_text(encoding="utf-8")).get("case", []):
            if "command" in item:
                cases.append((item["command"], item.get("expected", item.get("expected_decision"))))
    return cases


def command_guard() -> Checker:
    """The full default rulebook, judging with an uncached parse."""
    from hermes_hooks.builtin_plugins.command_guard import rules
    from hermes_hooks.builtin_plugins.command_guard.packs import all_packs

    from hermes_hooks import shell_syntax

    parse = shell_syntax.parse
    rules.parse = getattr(parse, "__wrapped__", parse)  # type: ignore[attr-defined]
    clear = getattr(parse, "cache_clear", None)
    book = rules.Rulebook(rule for pack in all_packs().values() for rule in pack.rules)

    def check(line: str) -> bool:
        if clear is not None:
            clear()
        verdict = book.judge(line)
        return bool(verdict.findings) or verdict.parsed.error is not None

    return check


def dangerous_patterns() -> Checker:
    """The ``dangerous_patterns`` built-in with every shipped group on, through
    ``pre_tool_call`` as an agent calls it."""
    import yaml
    from hermes_hooks.builtin_plugins.dangerous_patterns import SHIPPED

    import hermes_hooks

    groups = sorted({str(rule.get("group")) for path in SHIPPED.glob("*.yaml")
                     for rule in yaml.safe_load(path.read_text())["rules"]})  # fmt: skip
    home = Path(tempfile.mkdtemp(prefix="bench-command-guard-"))
    hooks = hermes_hooks.load(home, {"dangerous_patterns": {"enable_groups": groups}},
                              entry_points=False)  # fmt: skip

    def check(line: str) -> bool:
        args = {"command": line}
        decision = hooks.pre_tool_call(tool_name="terminal", args=args, session_id="s")
        return decision.action in ("block", "approve")

    return check


def hermes_agent() -> Checker | None:
    """Hermes Agent's own check of a terminal command, when hermes-agent is installed."""
    try:
        from tools.approval import detect_dangerous_command
    except ImportError:
        return None

    def check(line: str) -> bool:
        dangerous, *_ = detect_dangerous_command(line)
        return bool(dangerous)

    return check


def measure(
    checkers: dict[str, Checker], lines: list[str], rounds: int
) -> dict[str, tuple[list[float], list[bool]]]:
    """Per checker: each line's median µs over the rounds, and whether it flagged the line."""
    samples: dict[str, list[list[float]]] = {name: [[] for _ in lines] for name in checkers}
    verdicts: dict[str, list[bool]] = {name: [False] * len(lines) for name in checkers}
    clock = time.perf_counter_ns
    for _ in range(rounds):
        for i, line in enumerate(lines):
            for name, check in checkers.items():
                start = clock()
                verdicts[name][i] = check(line)
                samples[name][i].append((clock() - start) / 1000)
    return {name: ([statistics.median(s) for s in samples[name]], verdicts[name])
            for name in checkers}  # fmt: skip


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def render(results: dict[str, dict[str, Any]], sizes: dict[str, tuple[int, int]],
           rounds: int, notes: list[str]) -> str:  # fmt: skip
    import hermes_hooks

    corpora = ", ".join(f"{name} {d + a} lines ({d} deny, {a} allow)"
                        for name, (d, a) in sizes.items())  # fmt: skip
    lines = [
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores; "
        f"hermes-hooks {hermes_hooks.__version__}; {rounds} rounds, each line's median; "
        f"corpora: {corpora}.",
        *notes,
        "",
        "| checker | corpus | caught (deny flagged) | flagged (allow flagged) | p50 µs | p99 µs |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for checker, per_corpus in results.items():
        for corpus, (times, caught, flagged) in per_corpus.items():
            deny, allow = sizes[corpus]
            lines.append(
                f"| {checker} | {corpus} | {caught}/{deny} | {flagged}/{allow} | "
                f"{percentile(times, 0.5):.1f} | {percentile(times, 0.99):.1f} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one round (smoke run)")
    parser.add_argument("--write", action="store_true", help="update docs/performance.md")
    parser.add_argument("--no-hermes", action="store_true",
                        help="run here, without Hermes Agent's checker")  # fmt: skip
    args = parser.parse_args()
    if not args.no_hermes:
        bench_module("hermes").ensure_venv(__file__)
        os.environ.setdefault("HERMES_HOME", tempfile.mkdtemp(prefix="bench-hermes-"))
    rounds = 1 if args.quick else 5
    checkers: dict[str, Checker] = {"command_guard (every pack)": command_guard()}
    notes = []
    theirs = None if args.no_hermes else hermes_agent()
    if theirs is not None:
        checkers["Hermes Agent 0.19 detect_dangerous_command"] = theirs
    else:
        notes.append("Hermes Agent's checker not measured (no hermes-agent in this run).")
    checkers["dangerous_patterns (every shipped group)"] = dangerous_patterns()
    results: dict[str, dict[str, Any]] = {name: {} for name in checkers}
    sizes: dict[str, tuple[int, int]] = {}
    for corpus, folder in CORPORA.items():
        cases = load(folder)
        expected = [e for _, e in cases]
        sizes[corpus] = (expected.count("deny"), expected.count("allow"))
        measured = measure(checkers, [c for c, _ in cases], rounds)
        for name, (times, verdicts) in measured.items():
            caught = sum(v for v, e in zip(verdicts, expected, strict=True) if e == "deny")
            flagged = sum(v for v, e in zip(verdicts, expected, strict=True) if e == "allow")
            results[name][corpus] = (times, caught, flagged)
    text = render(results, sizes, rounds, notes)
    print(text)
    if args.write:
        write_section(text, "<!-- command_guard:begin -->", "<!-- command_guard:end -->")


if __name__ == "__main__":
    main()
