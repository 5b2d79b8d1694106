"""Where one request to ``hermes hooks serve`` spends its time, independent of the machine's load.

Usage: ``python bench/serve_profile.py [--requests 2000] [--home five|empty] [--profile]
[--compare A B]``.

The real service (``hermes hooks serve``, one worker, uvicorn) in the home of
``bench/agents.py`` (its five guards: a persistent shell worker, a Python plugin,
``command_guard``, ``dangerous_patterns``, ``redact_secrets``; ``--home empty``: none; ``--home worker``: the shell worker alone) gets
Claude Code's PreToolUse for ``ls -la`` (what ``bench/agents.py`` measures), posted one after
another on one kept-alive connection. Reported per request: the wall time (median) and the CPU
time of the service's process and of the shell worker it started, from ``/proc/<pid>/stat``
(utime + stime over the whole run, divided by the requests): CPU time moves far less with the
machine's load than wall time does.

``--profile`` runs the worker under cProfile (the standard library's) instead, in every thread
(the event loop's and the one the request is answered in), and groups its time by part:
uvicorn and the HTTP parser, the event loop, reading the request (answering: which event, the
payload read back as our event's arguments), the dispatcher, each guard, rendering the answer,
JSON encoding and tracing. Figures under a profiler are inflated; the shares are what it shows.

``--compare VARIANT...``: several services measured in the same run, rounds alternating between
them, so a change's before and after meet the same load: ``.`` (this checkout), a git revision
(``main``), either with ``:plain`` (uvicorn's optional httptools and uvloop hidden), or
``floor``: bench/agents.py's endpoint that answers ``{}`` at once (Claude Code's floor).
"""

from __future__ import annotations

import argparse
import cProfile
import http.client
import json
import os
import pstats
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

#: The request measured: Claude Code's PreToolUse for the command bench/agents.py runs.
PAYLOAD = {
    "session_id": "bench",
    "transcript_path": "/tmp/bench.jsonl",
    "cwd": "/tmp",
    "permission_mode": "default",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "ls -la", "description": "bench"},
    "tool_use_id": "toolu_bench",
}
PATH = "/v1/hooks/claude/PreToolUse"
_TICK = os.sysconf("SC_CLK_TCK")


def make_home(root: Path, which: str) -> Path:
    """The five-guard home of bench/agents.py (or an empty one, or its shell worker alone)."""
    from agents import GUARDS, WORKER, guard_home

    worker = root / "worker.py"
    worker.write_text(WORKER)
    guards = {"five": GUARDS, "empty": (), "worker": ("shell worker",)}[which]
    return guard_home(root / "home", guards, worker)


def cpu_seconds(pid: int) -> float:
    """utime + stime of one process (seconds)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICK


def family(pid: int) -> list[int]:
    """``pid`` and every process below it (the shell worker is the service's child)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                todo += [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                pass
    return out


class Service:
    """``hermes hooks serve`` (one worker) from ``python`` in ``home``; ``profile`` names a file
    the worker writes its cProfile statistics to when it stops."""

    def __init__(
        self,
        python: str,
        home: Path,
        profile: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        url_file = home / "serve" / "url"
        url_file.unlink(missing_ok=True)
        if profile is None:
            cmd = [python, "-m", "hermes_hooks", "--home", str(home), "serve", "--port", "0"]
        else:
            cmd = [python, str(Path(__file__).resolve()), "--serve-profiled", str(home),
                   str(profile)]  # fmt: skip
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     env={**os.environ, **(env or {})})  # fmt: skip
        deadline = time.monotonic() + 60
        while not url_file.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.proc.kill()
                raise SystemExit(f"serve did not start: {self.proc.stderr.read().decode()}")  # type: ignore[union-attr]
            time.sleep(0.05)
        host, port = url_file.read_text().strip().removeprefix("http://").rsplit(":", 1)
        self.token = (home / "serve" / "token").read_text().strip()
        self.conn = http.client.HTTPConnection(host, int(port), timeout=30)
        self.body = json.dumps(PAYLOAD).encode()
        self.headers = {"Authorization": f"Bearer {self.token}",
                        "Content-Type": "application/json"}  # fmt: skip
        self.post()  # the worker answers (and the shell worker is started) before any figure

    def post(self) -> dict[str, Any]:
        # the socket listens before the URL is written: a first request waits in its backlog
        self.conn.request("POST", PATH, body=self.body, headers=self.headers)
        res = self.conn.getresponse()
        data = res.read()
        if res.status != 200:
            raise SystemExit(f"status {res.status}: {data[:300]!r}")
        return dict(json.loads(data))

    def cpu(self) -> float:
        return sum(cpu_seconds(p) for p in family(self.proc.pid))

    def measure(self, n: int) -> tuple[list[float], float]:
        """``n`` requests: their wall times (s) and the CPU seconds the service spent."""
        times = []
        cpu0 = self.cpu()
        for _ in range(n):
            started = time.perf_counter()
            self.post()
            times.append(time.perf_counter() - started)
        return times, self.cpu() - cpu0

    def close(self) -> None:
        self.conn.close()
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


# ---------------------------------------------------------------------- the profiled worker


def serve_profiled(home: str, out: str) -> None:
    """One worker of ``hermes hooks serve`` under cProfile in every thread; the statistics
    are written to ``out`` when it stops (SIGINT)."""
    import uvicorn

    from hermes_hooks.serve import service

    profiles: list[cProfile.Profile] = []
    local = threading.local()

    def profiled(func: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            prof = getattr(local, "prof", None)
            if prof is None:
                prof = local.prof = cProfile.Profile()
                profiles.append(prof)
            prof.enable()
            try:
                return func(*args, **kwargs)
            finally:
                prof.disable()

        return call

    # the request is answered in a thread of its own when it cannot run on the loop: profile
    # whatever runs off the loop too (cProfile sees only the thread that enabled it)
    service.handle = profiled(service.handle)
    home_path = Path(home)
    token = service.serve_dir(home_path) / "token"
    service.ensure_token(token)
    service.prepare_env(home_path, token)
    app = service.create_app()
    sock = service.bind_socket("127.0.0.1", 0)
    service.write_url(home_path, sock, "127.0.0.1")
    main = cProfile.Profile()
    profiles.append(main)
    # asyncio's own loop: uvloop runs its callbacks from C, where cProfile would count the
    # loop's waiting as the work of whatever called run()
    server = uvicorn.Server(
        uvicorn.Config(app, **{**service.uvicorn_settings(), "loop": "asyncio"})
    )
    main.enable()
    try:
        server.run(sockets=[sock])
    finally:
        main.disable()
        stats = pstats.Stats(profiles[0])
        for prof in profiles[1:]:
            stats.add(prof)
        stats.dump_stats(out)


LOOP = "event loop, threads (asyncio, selectors, to_thread)"
IDLE = "waiting for the next request (not work: left out of the total)"
#: Built-ins that wait: their time under the event loop or an idle thread is no work.
WAITS = ("poll", "select", "acquire", "wait")
#: The parts of a request, each a test on a profiled function (file, name) whose cumulative
#: time it is; the first that matches a function on the stack owns it.
PARTS: list[tuple[str, Any]] = [
    ("shell worker round trip (guard)", lambda f, n: "shell_hooks" in f and "workers" in f),
    ("command_guard (guard)", lambda f, n: "command_guard" in f or "shell_syntax" in f),
    ("dangerous_patterns (guard)", lambda f, n: "dangerous_patterns" in f),
    ("redact_secrets (guard)", lambda f, n: "redact_secrets" in f),
    ("Python plugin (guard)", lambda f, n: "bench_guard" in f),
    ("tracing", lambda f, n: f.endswith("hermes_hooks/trace.py")),
    (
        "shell hooks: which run, consent, environment, payload",
        lambda f, n: "/shell_hooks/" in f and "/dialects/" not in f,
    ),  # fmt: skip
    (
        "reading the request (answering: event, payload -> arguments)",
        lambda f, n: (
            f.endswith(("answering.py", "payloads.py", "catalogue.py", "contract.py"))
            and n not in ("render",)
        ),
    ),  # fmt: skip
    ("rendering the answer (agent's JSON)", lambda f, n: "dialects" in f),
    (
        "dispatcher (hooks.call, plan, combine)",
        lambda f, n: (
            f.endswith(("hooks.py", "dispatch.py", "manager.py", "watchdog.py")) or "/answers/" in f
        ),
    ),  # fmt: skip
    (
        "JSON encode/decode",
        lambda f, n: f.endswith(("json/encoder.py", "json/decoder.py", "json/__init__.py")),
    ),  # fmt: skip
    ("hermes-hooks, other", lambda f, n: "/hermes_hooks/" in f and "/serve/" not in f),
    ("HTTP: uvicorn + parser", lambda f, n: "uvicorn" in f or "h11" in f or "httptools" in f),
    ("the service's ASGI app", lambda f, n: "/serve/" in f),
    (
        LOOP,
        lambda f, n: (
            "asyncio" in f
            or "selectors" in f
            or "threading" in f
            or "concurrent" in f
            or "uvloop" in f
        ),
    ),  # fmt: skip
]


def breakdown(path: Path, requests: int) -> list[tuple[str, float]]:
    """Own (``tottime``) profiled time per part, per request (µs): each function's own time is
    given to the part of the nearest function on its stack that a part claims. cProfile keeps
    callers, not stacks, so a function's own time is split among its callers in proportion to
    their calls, following callers up until a part claims one."""
    stats = pstats.Stats(str(path)).stats  # type: ignore[attr-defined]
    names = {key: (key[0], key[2]) for key in stats}

    def part_of(key: Any, depth: int = 0, seen: frozenset[Any] = frozenset()) -> dict[str, float]:
        file, name = names[key]
        for label, test in PARTS:
            if test(file, name):
                return {label: 1.0}
        callers = stats[key][4]
        if depth > 40 or not callers:
            return {"other (builtins, the standard library)": 1.0}
        total = sum(c[0] for c in callers.values()) or 1
        out: dict[str, float] = {}
        for caller, c in callers.items():
            if caller in seen or caller not in stats:
                continue
            for label, share in part_of(caller, depth + 1, seen | {key}).items():
                out[label] = out.get(label, 0.0) + share * c[0] / total
        return out or {"other (builtins, the standard library)": 1.0}

    parts: dict[str, float] = {}
    for key, (_cc, _nc, tt, _ct, _callers) in stats.items():
        waits = key[0] == "~" and any(w in key[2] for w in WAITS)
        for label, share in part_of(key).items():
            if waits and label == LOOP:  # the loop or an idle thread waiting: no work
                label = IDLE
            parts[label] = parts.get(label, 0.0) + tt * share
    return sorted(((k, v / requests * 1e6) for k, v in parts.items()), key=lambda kv: -kv[1])


def top(path: Path, requests: int, count: int) -> list[str]:
    """The functions with the most own time (µs per request)."""
    stats = pstats.Stats(str(path)).stats  # type: ignore[attr-defined]
    ranked = sorted(stats.items(), key=lambda kv: -kv[1][2])[:count]
    return [f"| {Path(k[0]).name}:{k[1]} {k[2]} | {v[1]} | {v[2] / requests * 1e6:.1f} | "
            f"{v[3] / requests * 1e6:.1f} |" for k, v in ranked]  # fmt: skip


# ---------------------------------------------------------------------- reports


def hop_us(n: int = 2000, loop: str = "asyncio") -> float:
    """One ``asyncio.to_thread`` round trip of a no-op on an otherwise idle loop (µs), on
    asyncio's own loop or uvloop's."""
    import asyncio

    async def go() -> float:
        await asyncio.to_thread(int)
        started = time.perf_counter()
        for _ in range(n):
            await asyncio.to_thread(int)
        return (time.perf_counter() - started) / n * 1e6

    if loop == "uvloop":
        import uvloop

        runner = uvloop.new_event_loop()
    else:
        runner = asyncio.new_event_loop()
    try:
        return runner.run_until_complete(go())
    finally:
        runner.close()


def row(label: str, times: list[float], cpu: float, n: int) -> str:
    med = statistics.median(times) * 1000
    return f"| {label} | {med:.3f} | {cpu / n * 1000:.3f} |"


def variant(spec: str, root: Path) -> dict[str, str]:
    """The environment that runs the service as ``spec`` says: ``.`` is this checkout, any other
    name a git revision of it (its tree, laid out as it installs, first on ``PYTHONPATH``);
    ``:plain`` after either hides uvicorn's optional speedups (httptools, uvloop), as on a
    machine without them."""
    rev, _, how = spec.partition(":")
    paths = []
    if how == "plain":
        hide = root / "plain"
        hide.mkdir(exist_ok=True)
        for name in ("httptools", "uvloop"):
            (hide / f"{name}.py").write_text("raise ImportError('hidden by the benchmark')\n")
        paths.append(str(hide))
    if rev != ".":
        tree = root / f"rev-{rev.replace('/', '_')}"
        if not tree.exists():
            src = tree / "src"
            src.mkdir(parents=True)
            archive = subprocess.run(["git", "-C", str(HERE.parent), "archive", rev],
                                     capture_output=True, check=True).stdout  # fmt: skip
            subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
            pkg = tree / "pkg" / "hermes_hooks"
            pkg.mkdir(parents=True)
            for entry in (src / "hermes_hooks").iterdir():
                (pkg / entry.name).symlink_to(entry)
            for name in ("hookspecs", "builtin_plugins"):
                (pkg / name).symlink_to(src / name)
        paths.append(str(tree / "pkg"))
    return {"PYTHONPATH": os.pathsep.join(paths)} if paths else {}


class FloorService(Service):
    """bench/agents.py's floor endpoint (answers ``{}`` at once), measured as a service."""

    def __init__(self) -> None:
        from agents import Floor

        floor = Floor()
        self.proc, self.floor = floor.proc, floor
        host, port = floor.url.removeprefix("http://").split("/")[0].rsplit(":", 1)
        self.conn = http.client.HTTPConnection(host, int(port), timeout=30)
        self.body = json.dumps(PAYLOAD).encode()
        self.headers = {"Content-Type": "application/json"}
        self.post()

    def close(self) -> None:
        self.conn.close()
        self.floor.close()


def compare(specs: list[str], home: Path, rounds: int, n: int) -> str:
    """Each variant's service, measured in rounds that alternate between them."""
    services: dict[str, Service] = {}
    try:
        for spec in specs:
            if spec == "floor":
                services[spec] = FloorService()
                continue
            env = variant(spec, home.parent)
            services[spec] = Service(sys.executable, home_copy(home, spec), env=env)
        times: dict[str, list[float]] = {spec: [] for spec in services}
        cpu = dict.fromkeys(services, 0.0)
        for svc in services.values():
            svc.measure(200)
        order = list(services.items())
        for r in range(rounds):
            # each round starts with the next variant: none is always first after the client's
            # own pause, or always last
            for spec, svc in order[r % len(order) :] + order[: r % len(order)]:
                t, c = svc.measure(n)
                times[spec] += t
                cpu[spec] += c
    finally:
        for svc in services.values():
            svc.close()
    lines = [f"{rounds} rounds of {n} sequential requests per variant, interleaved (each round "
             f"starting with the next variant); load "
             f"average {os.getloadavg()[0]:.1f}:", "",
             "| variant | wall p50 ms | service CPU ms/request |", "| --- | ---: | ---: |"]  # fmt: skip
    lines += [row(spec, times[spec], cpu[spec], rounds * n) for spec in services]
    return "\n".join(lines)


def home_copy(home: Path, label: str) -> Path:
    """A home of its own per service (each writes its URL and token there)."""
    import shutil

    target = home.parent / f"home-{len(list(home.parent.glob('home-*')))}"
    shutil.copytree(home, target, symlinks=True)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--home", choices=("five", "empty", "worker"), default="five")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--compare", nargs="+", metavar="VARIANT",
                        help="'.', a git revision, either with ':plain' (see variant())")  # fmt: skip
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--save", help="with --profile: keep the cProfile statistics here")
    parser.add_argument("--top", type=int, default=0, help="with --profile: the N costliest")
    parser.add_argument("--serve-profiled", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_profiled:
        serve_profiled(*args.serve_profiled)
        return
    with tempfile.TemporaryDirectory(prefix="bench-serve-profile-") as tmp:
        home = make_home(Path(tmp), args.home)
        if args.compare:
            print(compare(args.compare, home, args.rounds, args.requests // args.rounds))
            return
        n = args.requests
        if args.profile:
            out = Path(args.save) if args.save else Path(tmp) / "worker.prof"
            svc = Service(sys.executable, home, out)
            try:
                svc.measure(n)
            finally:
                svc.close()
            print(f"cProfile of one worker ({args.home} home), {n} sequential requests; own "
                  "time per request by part (µs, inflated by the profiler):\n")  # fmt: skip
            print("| part | µs/request |\n| --- | ---: |")
            parts = breakdown(out, n + 1)
            for label, us in parts:
                print(f"| {label} | {us:.0f} |")
            print(f"| total | {sum(us for label, us in parts if label != IDLE):.0f} |")
            if args.top:
                print("\n| function | calls | own µs/request | cumulative µs/request |")
                print("| --- | ---: | ---: | ---: |")
                print("\n".join(top(out, n + 1, args.top)))
            hops = [f"{hop_us():.0f} µs on asyncio's loop"]
            try:
                hops.append(f"{hop_us(loop='uvloop'):.0f} µs on uvloop's (the service's)")
            except ImportError:
                pass
            print(f"\nasyncio.to_thread round trip of a no-op, alone: {', '.join(hops)}")
            return
        svc = Service(sys.executable, home)
        try:
            svc.measure(200)
            times, cpu = svc.measure(n)
        finally:
            svc.close()
        print(f"{n} sequential requests ({args.home} home), load average "
              f"{os.getloadavg()[0]:.1f}:\n")  # fmt: skip
        print("| service | wall p50 ms | service CPU ms/request |\n| --- | ---: | ---: |")
        print(row(f"{args.home} home", times, cpu, n))


if __name__ == "__main__":
    main()
