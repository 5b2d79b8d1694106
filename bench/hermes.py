"""Side by side with Hermes Agent 0.19, in one run: dispatch with no hook, 1 and 10 Python
callbacks, a blocking answer in each dialect, the floor of those rows (a bare loop calling the
same callbacks), 1 and 5 shell hooks (Hermes' own shell hooks run one after another; ours at
once), a warm worker (Hermes has none: its one-shot hook is the comparison), and ``hooks list``
cold start of both CLIs.

Usage: ``python bench/hermes.py [--quick] [--write]``. The first run makes a bench venv
(``.bench-venv/``: hermes-agent==0.19.0 and this checkout, editable) and re-runs itself there.
Measurements are interleaved (ours, Hermes', ours, ...) so load on the machine hits both alike;
each figure is the best and the median of several rounds, and only the ratios carry over to other
machines. ``--write`` replaces the Hermes section of docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".bench-venv"
KW = {
    "tool_name": "terminal",
    "args": {"command": "rm -rf /"},
    "task_id": "t",
    "session_id": "s",
    "tool_call_id": "c",
    "turn_id": "u",
    "api_request_id": "a",
    "middleware_trace": [],
}
BLOCKS = {
    "Hermes {action: block}": {"action": "block", "message": "no"},
    "Claude Code {decision: block}": {"decision": "block", "reason": "no"},
    "Claude Code permissionDecision": {
        "hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}
    },
}


def ensure_venv(script: str = __file__) -> None:
    """Re-run ``script`` (this one unless another bench script names itself) inside the bench
    venv (made on first use)."""
    python = VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        pip = [str(python), "-m", "pip", "install", "--quiet"]
        subprocess.run([*pip, "hermes-agent==0.19.0"], check=True)
        subprocess.run([*pip, "-e", str(ROOT)], check=True)
    os.execv(str(python), [str(python), script, *sys.argv[1:]])


def best_and_median(samples: list[float]) -> tuple[float, float]:
    return min(samples), statistics.median(samples)


def interleave(
    pairs: dict[str, tuple[Callable[[], Any], Callable[[], Any]]], number: int, rounds: int
):
    """µs per call for (ours, Hermes') of each row, measured alternately."""
    samples: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in pairs}
    for _ in range(rounds):
        for row, (ours, theirs) in pairs.items():
            samples[row][0].append(timeit.timeit(ours, number=number) / number * 1e6)
            samples[row][1].append(timeit.timeit(theirs, number=number) / number * 1e6)
    return {row: (best_and_median(o), best_and_median(t)) for row, (o, t) in samples.items()}


def dispatch_rows(number: int, rounds: int) -> dict[str, Any]:
    from hermes_cli import plugins as hp

    from hermes_hooks.context import PluginContext
    from hermes_hooks.hooks import Hooks

    manager = hp.get_plugin_manager()
    pairs: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {}

    def setup(answer: Any, count: int) -> tuple[Any, dict[str, list[Any]]]:
        ours = Hooks()
        table: dict[str, list[Any]] = {}
        if count:
            ctx = PluginContext(ours, "bench")
            for _ in range(count):
                ctx.register_hook("pre_tool_call", lambda answer=answer, **kw: answer)
            ctx.commit(source="python")
            table["pre_tool_call"] = [lambda answer=answer, **kw: answer for _ in range(count)]
        return ours, table

    def row(
        name: str,
        ours_call: Callable[[Any], Any],
        theirs_call: Callable[[], Any],
        answer: Any,
        count: int,
    ) -> None:
        ours, table = setup(answer, count)

        def theirs() -> Any:
            manager._hooks = table  # this row's callbacks, swapped in for the call
            return theirs_call()

        pairs[name] = (lambda: ours_call(ours), theirs)

    run_loop = lambda: hp.resolve_pre_tool_block(**KW)  # noqa: E731  # Hermes' tool-dispatch path
    row("no hook: the run loop's pre_tool_call", lambda h: h.pre_tool_call(**KW), run_loop, None, 0)
    row(
        "no hook: has_hook",
        lambda h: h.has_hook("pre_tool_call"),
        lambda: hp.has_hook("pre_tool_call"),
        None,
        0,
    )
    row(
        "no hook: invoke_hook / hooks.call",
        lambda h: h.call("pre_tool_call", **KW),
        lambda: hp.invoke_hook("pre_tool_call", **KW),
        None,
        0,
    )
    row("1 callback, no opinion", lambda h: h.pre_tool_call(**KW), run_loop, None, 1)
    row("10 callbacks, no opinion", lambda h: h.pre_tool_call(**KW), run_loop, None, 10)
    for name, answer in BLOCKS.items():
        row(f"blocking answer: {name}", lambda h: h.pre_tool_call(**KW), run_loop, answer, 1)
    return interleave(pairs, number, rounds)


SHELL_SCRIPT = "#!/bin/sh\ncat >/dev/null\necho '{}'\n"
WORKER_SCRIPT = "from hermes_hooks.worker import serve\nserve(lambda event, payload: None)\n"


def shell_rows(number: int, rounds: int) -> dict[str, Any]:
    """1 and 5 one-shot shell hooks on ``pre_tool_call``: ours through ``hooks.pre_tool_call``
    (started together), Hermes' through its run loop (``agent.shell_hooks`` callbacks)."""
    from agent import shell_hooks as hs
    from hermes_cli import plugins as hp

    import hermes_hooks

    folder = Path(tempfile.mkdtemp(prefix="bench-shell-"))
    manager = hp.get_plugin_manager()
    pairs: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {}
    for count in (1, 5):
        scripts = []
        for i in range(count):
            script = folder / f"hook{count}-{i}.sh"
            script.write_text(SHELL_SCRIPT)
            script.chmod(0o755)
            scripts.append(str(script))
        home = folder / f"home{count}"
        home.mkdir()
        config = {"hooks": {"pre_tool_call": [{"command": c} for c in scripts]},
                  "hooks_auto_accept": True}  # fmt: skip
        ours = hermes_hooks.load(home, config, entry_points=False)
        table = {"pre_tool_call": [hs._make_callback(hs.ShellHookSpec("pre_tool_call", c))
                                   for c in scripts]}  # fmt: skip

        def theirs(table: dict[str, list[Any]] = table) -> Any:
            manager._hooks = table
            return hp.resolve_pre_tool_block(**KW)

        pairs[f"{count} shell hook{'s' if count > 1 else ''} (ms)"] = (
            lambda ours=ours: ours.pre_tool_call(**KW),
            theirs,
        )
        if count == 1:  # Hermes has no warm workers: its one-shot hook is what it offers
            worker = folder / "worker.py"
            worker.write_text(WORKER_SCRIPT)
            home = folder / "home-worker"
            home.mkdir()
            entry = {"command": f"{sys.executable} {worker}", "persistent": True, "warm": True}
            warm = hermes_hooks.load(home, {"hooks": {"pre_tool_call": [entry]},
                                            "hooks_auto_accept": True}, entry_points=False)  # fmt: skip
            pairs["a warm worker vs Hermes' one-shot shell hook (ms)"] = (
                lambda warm=warm: warm.pre_tool_call(**KW),
                theirs,
            )
    rows = interleave(pairs, number, rounds)
    return {k: ((ob / 1000, om / 1000), (tb / 1000, tm / 1000))
            for k, ((ob, om), (tb, tm)) in rows.items()}  # fmt: skip


def floor_rows(number: int, rounds: int) -> dict[str, Any]:
    """What any dispatcher of Hermes-style callbacks pays: a bare loop calling the same
    callbacks with every argument (``cb(**kwargs)``), beside Hermes' run loop."""
    from hermes_cli import plugins as hp

    manager = hp.get_plugin_manager()
    pairs: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {}
    for count, answer in ((10, None), (1, BLOCKS["Hermes {action: block}"])):
        callbacks = [lambda answer=answer, **kw: answer for _ in range(count)]
        table = {"pre_tool_call": callbacks}

        def bare(callbacks: list[Any] = callbacks) -> Any:
            for cb in callbacks:
                result = cb(**KW)
                if result is not None:
                    return result
            return None

        def theirs(table: dict[str, list[Any]] = table) -> Any:
            manager._hooks = table
            return hp.resolve_pre_tool_block(**KW)

        what = "10 callbacks, no opinion" if count == 10 else "blocking answer"
        pairs[f"floor: a bare loop, {what}"] = (bare, theirs)
    return interleave(pairs, number, rounds)


def compiled(env: dict[str, str]) -> None:
    """Both sides from bytecode, as a pip-installed package runs: our editable checkout gets
    its ``__pycache__`` written (pip compiles Hermes' files when it installs them)."""
    folders = [ROOT / "hermes_hooks", ROOT / "builtin_plugins", ROOT / "hookspecs"]
    site = Path(sys.executable).parent.parent / "lib"
    subprocess.run([sys.executable, "-m", "compileall", "-q", *map(str, folders), str(site)],
                   env=env, capture_output=True, check=False)  # fmt: skip


def cold_start(rounds: int) -> dict[str, Any]:
    """``hooks list`` in a fresh process: ``hermes-hooks list`` and Hermes' own ``hermes hooks
    list`` (started through its entry function, since our ``hermes`` script takes ``hooks``)."""
    home = tempfile.mkdtemp(prefix="bench-home-")
    env = {**os.environ, "HOME": home, "HERMES_HOME": home}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    compiled(env)
    bindir = Path(sys.executable).parent
    ours = [str(bindir / "hermes-hooks"), "list"]
    code = "import sys; from hermes_cli.main import main; sys.argv[0] = 'hermes'; sys.exit(main())"
    theirs = [sys.executable, "-c", code, "hooks", "list"]
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        for i, cmd in enumerate((ours, theirs)):
            start = time.perf_counter()
            subprocess.run(cmd, env=env, capture_output=True, check=False)
            times[i].append((time.perf_counter() - start) * 1000)
    return {"hooks list, cold start (ms)": (best_and_median(times[0]), best_and_median(times[1]))}


def render(rows: dict[str, Any], rounds: int) -> str:
    import hermes_hooks

    lines = [
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores; "
        f"hermes-hooks {hermes_hooks.__version__} vs hermes-agent 0.19.0; interleaved, "
        f"{rounds} rounds; best / median.",
        "",
        "| measure | hermes-hooks | Hermes Agent | ratio (best) | ratio (median) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name, ((ob, om), (tb, tm)) in rows.items():
        unit = "" if "ms" in name else " µs"
        lines.append(
            f"| {name} | {ob:.2f} / {om:.2f}{unit} | {tb:.2f} / {tm:.2f}{unit} | "
            f"{ob / tb:.2f}× | {om / tm:.2f}× |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (smoke run)")
    parser.add_argument("--write", action="store_true", help="update docs/performance.md")
    args = parser.parse_args()
    ensure_venv()
    os.environ.setdefault("HERMES_HOME", tempfile.mkdtemp(prefix="bench-hermes-"))
    rounds = 3 if args.quick else 9
    rows = dispatch_rows(2000 if args.quick else 20000, rounds)
    rows.update(floor_rows(2000 if args.quick else 20000, rounds))
    rows.update(shell_rows(5 if args.quick else 20, rounds))
    rows.update(cold_start(3 if args.quick else 11))
    text = render(rows, rounds)
    print(text)
    if args.write:
        sys.path.insert(0, str(ROOT / "bench"))
        from dispatch import write_section

        write_section(text, "<!-- hermes:begin -->", "<!-- hermes:end -->")


if __name__ == "__main__":
    main()
