"""What each built-in costs per turn (or per tool call), beside one shell hook doing the same job.

Usage: ``python bench/builtins.py [--rounds N] [--write]``. In a temporary git repository with a
few files and commits, each context built-in alone answers ``pre_llm_call`` (as a first turn, so
the once-per-session ones speak too); the comparison row is one minimal shell hook on the same
event that prints a line of context (the least a hook of one's own costs: a process). The guards
(``dangerous_patterns`` with every shipped rule group on, ``redact_secrets``) and ``snapshot``
(an unchanged tree after the first call) answer ``pre_tool_call`` beside a shell hook on that
event. Rows are measured alternately in one run; the figure is the median of the rounds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dispatch import write_section  # noqa: E402

CONTEXT = (
    "add_date",
    "add_environment_info",
    "add_user_info",
    "add_directory_listing",
    "add_prompt_files",
    "add_git_status",
    "add_git_diff",
    "add_recent_commits",
)
GUARDS = ("dangerous_patterns", "redact_secrets", "snapshot")
TOOL = {"tool_name": "terminal", "args": {"command": "ls -la"}, "session_id": "s"}
TURN = {"session_id": "s", "user_message": "hi", "is_first_turn": True}


def repo(root: Path) -> Path:
    path = root / "project"
    path.mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=path, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("config", "user.email", "bench@example.com")
    git("config", "user.name", "Bench")
    for i in range(20):
        (path / f"module{i}.py").write_text(f"VALUE = {i}\n" * 20)
    (path / "AGENTS.md").write_text("Run the tests before committing.\n")
    git("add", ".")
    for i in range(10):
        (path / "module0.py").write_text(f"VALUE = {i}\n")
        git("commit", "-q", "-am", f"change {i}")
    (path / "module1.py").write_text("VALUE = 'edited'\n")
    return path


def shell_hook(root: Path, name: str, prints: str) -> str:
    script = root / name
    script.write_text(f"#!/bin/sh\ncat >/dev/null\necho '{prints}'\n")
    script.chmod(0o755)
    return str(script)


def measure(fn: Callable[[], Any], number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--write", action="store_true", help="update docs/performance.md")
    args = parser.parse_args()
    import hermes_hooks

    root = Path(tempfile.mkdtemp(prefix="bench-builtins-"))
    os.environ["HERMES_HOOKS_DATA_DIR"] = str(root / "data")  # snapshots stay in the temp dir
    os.chdir(repo(root))
    scripts = {
        "pre_llm_call": shell_hook(root, "context.sh", "one line of context"),
        "pre_tool_call": shell_hook(root, "guard.sh", "{}"),
    }
    settings: dict[str, Any] = {
        "dangerous_patterns": {"enable_groups": ["cloud", "infrastructure", "package-managers",
                                                 "backups"]},
        "redact_secrets": True,
        "snapshot": True,
    }  # fmt: skip
    rows: dict[str, tuple[Callable[[], Any], int, str]] = {}
    for name in CONTEXT:
        home = root / f"home-{name}"
        home.mkdir()
        hooks = hermes_hooks.load(home, {name: True}, entry_points=False)
        assert hooks.pre_llm_call(**TURN), f"{name} said nothing"
        rows[name] = (lambda h=hooks: h.pre_llm_call(**TURN), 200, "pre_llm_call")
    for name in GUARDS:
        home = root / f"home-{name}"
        home.mkdir()
        hooks = hermes_hooks.load(home, {name: settings[name]}, entry_points=False)
        number = 20 if name == "snapshot" else 2000
        rows[name] = (lambda h=hooks: h.pre_tool_call(**TOOL), number, "pre_tool_call")
    for event, kwargs in (("pre_llm_call", TURN), ("pre_tool_call", TOOL)):
        home = root / f"home-shell-{event}"
        home.mkdir()
        config = {"hooks": {event: [{"command": scripts[event]}]}, "hooks_auto_accept": True}
        hooks = hermes_hooks.load(home, config, entry_points=False)
        fire = getattr(hooks, event)
        rows[f"one shell hook ({event})"] = (lambda f=fire, k=kwargs: f(**k), 50, event)
    samples: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(args.rounds):
        for name, (fn, number, _event) in rows.items():
            samples[name].append(measure(fn, number))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    lines = [
        f"Median of {args.rounds} rounds, measured alternately in one run, in a git repository "
        "of 20 files and 11 commits.",
        "",
        "| built-in | event | ms per firing | × one shell hook on the event |",
        "| --- | --- | ---: | ---: |",
    ]
    for name, (_fn, _number, event) in rows.items():
        shell = medians[f"one shell hook ({event})"]
        lines.append(f"| {name} | {event} | {medians[name]:.3f} | {medians[name] / shell:.3f}× |")
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section(text, "<!-- builtins:begin -->", "<!-- builtins:end -->")


if __name__ == "__main__":
    main()
