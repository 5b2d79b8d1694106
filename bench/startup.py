"""Start-up cost: ``hermes hooks --help`` and ``import hermes_hooks`` against ``python -c pass``.

Usage: ``python bench/startup.py [--runs N] [--write]``. Each command runs N times as a fresh
process; the table shows the median wall time and the ratio to ``python -c pass`` measured in the
same run. Target: ``hermes hooks --help`` under 3× ``python -c pass``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dispatch import write_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
#: From bytecode, as an installed package runs (pip compiles what it installs).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd: list[str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                       env=ENV)  # fmt: skip
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--write", action="store_true", help="update docs/performance.md")
    args = parser.parse_args()
    py = sys.executable
    script = shutil.which("hermes-hooks") or "hermes-hooks"
    commands = {
        "python -c pass": [py, "-c", "pass"],
        "python -c 'import hermes_hooks'": [py, "-c", "import hermes_hooks"],
        "hermes hooks --help (console script)": [script, "--help"],
        "python -m hermes_hooks --help": [py, "-m", "hermes_hooks", "--help"],
        "hermes hooks events": [script, "events"],
    }
    folders = [str(ROOT / d) for d in ("hermes_hooks", "builtin_plugins", "hookspecs")]
    subprocess.run([py, "-m", "compileall", "-q", *folders], env=ENV, capture_output=True,
                   check=False)  # fmt: skip
    for cmd in commands.values():  # warm the file cache
        timed(cmd, 1)
    base = None
    lines = [
        f"Median of {args.runs} fresh processes each.",
        "",
        "| command | ms | × python -c pass |",
        "| --- | ---: | ---: |",
    ]
    for label, cmd in commands.items():
        ms = timed(cmd, args.runs)
        base = base or ms
        lines.append(f"| `{label}` | {ms:.1f} | {ms / base:.2f}× |")
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section(text, "<!-- startup:begin -->", "<!-- startup:end -->")


if __name__ == "__main__":
    main()
