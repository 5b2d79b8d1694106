"""What ``hermes_hooks.load()`` costs: 0, 10 and 100 plugin directories, 0 and 50 shell hooks,
and an environment with 1,000 installed distributions (fake ``dist-info`` folders on the path).

Usage: ``python bench/load.py [--runs N] [--write]``. Each case runs in fresh processes (a load is
a start-up cost: nothing is warm), timing ``load()`` alone after ``import hermes_hooks``. The
baselines are measured in the same run, in the same kind of process: importing the same plugin
modules by hand (what any loader must do), and one ``importlib.metadata.entry_points()`` scan of
the same environment (what any entry-point discovery must do). Each child also reports how many
times the environment's distributions were scanned and which built-in modules were imported.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dispatch import write_section  # noqa: E402

PLUGIN = """\
def register(ctx):
    ctx.register_hook("pre_tool_call", lambda **kw: None)
"""
HOOK = "#!/bin/sh\ncat >/dev/null\n"

CHILD = r"""
import importlib.metadata as md, json, sys, time
scans = 0
real = md.distributions
def counting(*a, **k):
    global scans
    scans += 1
    return real(*a, **k)
md.distributions = counting
mode, home, plugins = sys.argv[1], sys.argv[2], int(sys.argv[3])
if mode == "load":
    import hermes_hooks
    start = time.perf_counter()
    hooks = hermes_hooks.load(home)
    elapsed = time.perf_counter() - start
    built = sorted(m.rsplit(".", 1)[1] for m in sys.modules
                   if m.startswith("hermes_hooks.builtin_plugins."))
    print(json.dumps({"ms": elapsed * 1000, "scans": scans, "builtins": built,
                      "hooks": len(hooks.rows())}))
elif mode == "imports":  # the floor of loading plugin directories: import each module
    import importlib.util
    start = time.perf_counter()
    for i in range(plugins):
        path = f"{home}/plugins/p{i}/__init__.py"
        spec = importlib.util.spec_from_file_location(f"p{i}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    print(json.dumps({"ms": (time.perf_counter() - start) * 1000}))
else:  # the floor of entry-point discovery: one scan of the environment
    start = time.perf_counter()
    md.entry_points(group="hermes_agent.plugins")
    print(json.dumps({"ms": (time.perf_counter() - start) * 1000}))
"""


def make_home(root: Path, name: str, plugins: int, shell: int) -> Path:
    home = root / name
    (home / "plugins").mkdir(parents=True)
    for i in range(plugins):
        folder = home / "plugins" / f"p{i}"
        folder.mkdir()
        (folder / "__init__.py").write_text(PLUGIN)
        (folder / "plugin.yaml").write_text(f"name: p{i}\n")
    lines = ["plugins:", "  enabled: [" + ", ".join(f"p{i}" for i in range(plugins)) + "]"]
    if shell:
        script = home / "hook.sh"
        script.write_text(HOOK)
        script.chmod(0o755)
        lines += ["hooks_auto_accept: true", "hooks:", "  pre_tool_call:"]
        lines += [f"    - {{command: '{script} {i}'}}" for i in range(shell)]
    (home / "config.yaml").write_text("\n".join(lines) + "\n")
    return home


def fake_site(root: Path, count: int) -> Path:
    site = root / "site"
    site.mkdir()
    for i in range(count):
        info = site / f"fake_dist_{i}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: fake-dist-{i}\nVersion: 1.0\n"
        )
        if i % 10 == 0:  # some distributions have entry points, in other groups
            (info / "entry_points.txt").write_text(f"[console_scripts]\nfake{i} = fake{i}:main\n")
    return site


def child(mode: str, home: Path, plugins: int, env: dict[str, str]) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(home), str(plugins)],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--write", action="store_true", help="update docs/performance.md")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-load-"))
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    base_env.pop("PYTHONDONTWRITEBYTECODE", None)  # from bytecode, as an installed package runs
    here = Path(__file__).resolve().parent.parent
    folders = [str(here / d) for d in ("hermes_hooks", "builtin_plugins", "hookspecs")]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], env=base_env,
                   capture_output=True, check=False)  # fmt: skip
    big_env = {**base_env, "PYTHONPATH": str(fake_site(root, 1000))}
    cases = [
        ("empty home", 0, 0, base_env),
        ("10 plugin directories", 10, 0, base_env),
        ("100 plugin directories", 100, 0, base_env),
        ("50 shell hooks", 0, 50, base_env),
        ("100 plugin directories + 50 shell hooks", 100, 50, base_env),
        ("empty home, 1,000 installed distributions", 0, 0, big_env),
    ]
    lines = [
        f"Median of {args.runs} fresh processes per row; `load()` timed alone, after "
        "`import hermes_hooks`.",
        "",
        "| case | load() ms | floor ms | × floor | distribution scans | built-in modules imported |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for name, plugins, shell, env in cases:
        home = make_home(root, name.replace(" ", "_").replace(",", ""), plugins, shell)
        loads = [child("load", home, plugins, env) for _ in range(args.runs)]
        if plugins:
            floor_name = "imports"
        elif env is big_env:
            floor_name = "scan"
        else:
            floor_name = ""
        floor = (
            statistics.median(child(floor_name, home, plugins, env)["ms"] for _ in range(args.runs))
            if floor_name
            else None
        )
        ms = statistics.median(r["ms"] for r in loads)
        last = loads[-1]
        lines.append(
            f"| {name} | {ms:.1f} | "
            + (f"{floor:.1f} | {ms / floor:.2f}× | " if floor else " |  | ")
            + f"{last['scans']} | {', '.join(last['builtins']) or 'none'} |"
        )
    lines += [
        "",
        "Floors: for plugin directories, importing the same modules by hand "
        "(`importlib.util`); for the 1,000 distributions, one "
        "`importlib.metadata.entry_points()` scan of the same path.",
    ]
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section(text, "<!-- load:begin -->", "<!-- load:end -->")


if __name__ == "__main__":
    main()
