"""Load on ``hermes hooks serve``: several worker processes, concurrent clients of mixed agents,
thousands of events, every decision checked.

Usage: ``python bench/serve_load.py [--workers 2] [--clients 8] [--events 4000] [--write]``.
Bounded and local: the service listens on 127.0.0.1 (any free port) in a home of its own and is
stopped at the end. Each client thread keeps one HTTP/1.1 connection and posts the payloads of
its agents in turn (Claude Code, Codex, Gemini CLI, Cursor, Copilot); every request carries a
unique id that the home's Python plugin echoes back (as context for Claude Code and Codex, as a
rewrite for Gemini CLI and Cursor, in a block's message for Copilot), so a reply that is lost,
duplicated or answers another request (or another agent: each agent's reply has its own shape)
is counted. The workers' resident memory is read before and after (a leak shows as growth that
scales with the number of events).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dispatch import write_section  # noqa: E402

PLUGIN = """
def register(ctx):
    def pre(tool_name=None, args=None, **kw):
        command = (args or {}).get("command", "")
        rid = command.split()[-1]
        if command.startswith("echo"):  # the rewritten call, judged again: let it be
            return None
        if command.startswith("context"):
            return {"context": "id=" + rid}
        if command.startswith("rewrite"):
            return {"action": "modify", "args": {"command": "echo " + rid}}
        return {"action": "block", "message": "blocked id=" + rid}
    ctx.register_hook("pre_tool_call", pre)
"""

#: Each agent: its event, the payload for one id, and how its reply names the id.
AGENTS: dict[str, tuple[str, Any, Any]] = {
    "claude": (
        "PreToolUse",
        lambda rid: {
            "session_id": "s",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": f"context {rid}"},
            "cwd": "/",
        },
        lambda r: r["hookSpecificOutput"]["additionalContext"].removeprefix("id="),
    ),  # fmt: skip
    "codex": (
        "PreToolUse",
        lambda rid: {
            "session_id": "s",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": f"context {rid}"},
            "model": "m",
            "cwd": "/",
        },
        lambda r: r["hookSpecificOutput"]["additionalContext"].removeprefix("id="),
    ),  # fmt: skip
    "gemini": (
        "BeforeTool",
        lambda rid: {
            "session_id": "s",
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": f"rewrite {rid}"},
        },
        lambda r: r["hookSpecificOutput"]["tool_input"]["command"].removeprefix("echo "),
    ),  # fmt: skip
    "cursor": (
        "preToolUse",
        lambda rid: {
            "conversation_id": "s",
            "hook_event_name": "preToolUse",
            "tool_name": "Shell",
            "tool_input": {"command": f"rewrite {rid}"},
        },
        lambda r: r["updated_input"]["command"].removeprefix("echo "),
    ),  # fmt: skip
    "copilot": (
        "preToolUse",
        lambda rid: {
            "timestamp": 0,
            "cwd": "/",
            "toolName": "bash",
            "toolArgs": json.dumps({"command": f"block {rid}"}),
        },
        lambda r: r["permissionDecisionReason"].removeprefix("blocked id="),
    ),  # fmt: skip
}


def rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def workers_of(pid: int) -> list[int]:
    """The service's worker processes (its children; itself when it runs one worker)."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    try:
        found = [int(p) for p in children.read_text().split()]
    except OSError:
        found = []
    return found or [pid]


def start(home: Path, workers: int) -> tuple[subprocess.Popen[bytes], str]:
    url_file = home / "serve" / "url"
    proc = subprocess.Popen(
        [sys.executable, "-m", "hermes_hooks", "--home", str(home), "serve", "--port", "0",
         "--workers", str(workers)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"serve exited: {proc.stderr.read().decode()}")  # type: ignore[union-attr]
        if url_file.exists():
            url = url_file.read_text().strip()
            if all(ready(url) for _ in range(workers * 2)):
                return proc, url
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("the service did not come up")


def ready(url: str) -> bool:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    try:
        conn = http.client.HTTPConnection(host, int(port), timeout=2)
        conn.request("GET", "/v1/health")
        ok = conn.getresponse().status == 200
        conn.close()
        return ok
    except OSError:
        return False


def client(
    url: str, token: str, ids: list[str], agents: list[str], out: dict[str, Any], lock: Any
) -> None:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    times: list[float] = []
    got: list[tuple[str, str, str]] = []  # (id sent, agent, id read back)
    errors: list[str] = []
    for n, rid in enumerate(ids):
        agent = agents[n % len(agents)]
        event, make, read = AGENTS[agent]
        body = json.dumps(make(rid)).encode()
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        started = time.perf_counter()
        try:
            conn.request("POST", f"/v1/hooks/{agent}/{event}", body=body, headers=headers)
            res = conn.getresponse()
            data = res.read()
        except (OSError, http.client.HTTPException) as exc:
            errors.append(f"{rid}: {exc}")
            conn.close()
            conn = http.client.HTTPConnection(host, int(port), timeout=30)
            continue
        times.append(time.perf_counter() - started)
        try:
            back = read(json.loads(data)) if res.status == 200 else f"status {res.status}"
        except (KeyError, TypeError, ValueError):
            back = f"unreadable {data[:80]!r}"
        got.append((rid, agent, back))
    conn.close()
    with lock:
        out["times"] += times
        out["got"] += got
        out["errors"] += errors


def _median_ms(cmd: list[str], stdin: bytes, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(cmd, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def client_starts(home: Path, runs: int = 15) -> dict[str, float]:
    """One client call as an agent makes it, against ``python -c pass`` (same interpreter), and
    the same call with no service (a copy of the home whose URL leads nowhere)."""
    hermes = str(Path(sys.executable).with_name("hermes"))
    body = json.dumps(AGENTS["claude"][1]("start")).encode()
    call = [hermes, "hooks", "client", "claude", "PreToolUse", "--home", str(home)]
    out = {"runs": float(runs), "pass": _median_ms([sys.executable, "-c", "pass"], b"", runs)}
    out["client"] = _median_ms(call, body, runs)
    dead = home.parent / "dead"
    dead.mkdir()
    (dead / "plugins").symlink_to(home / "plugins")
    (dead / "config.yaml").write_text("{}\n")
    (dead / "serve").mkdir(mode=0o700)
    (dead / "serve" / "url").write_text("http://127.0.0.1:9\n")
    out["fallback"] = _median_ms([*call[:-1], str(dead)], body, max(3, runs // 3))
    return out


def run(workers: int, clients: int, events: int) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        (home / "plugins" / "echo").mkdir(parents=True)
        (home / "plugins" / "echo" / "plugin.yaml").write_text("name: echo\n")
        (home / "plugins" / "echo" / "__init__.py").write_text(PLUGIN)
        (home / "config.yaml").write_text("{}\n")
        proc, url = start(home, workers)
        try:
            token = (home / "serve" / "token").read_text().strip()
            pids = workers_of(proc.pid)
            # warm-up: every worker answers a few of each agent before memory is read
            warm: dict[str, Any] = {"times": [], "got": [], "errors": []}
            client(url, token, [f"w{i}" for i in range(50 * workers)], list(AGENTS), warm,
                   threading.Lock())  # fmt: skip
            before = {p: rss_kib(p) for p in pids}
            names = list(AGENTS)
            per = events // clients
            out: dict[str, Any] = {"times": [], "got": [], "errors": []}
            lock = threading.Lock()
            threads = [
                threading.Thread(
                    target=client,
                    args=(
                        url,
                        token,
                        [f"c{c}-{i}" for i in range(per)],
                        names[c % len(names) :] + names[: c % len(names)],
                        out,
                        lock,
                    ),
                )  # fmt: skip
                for c in range(clients)
            ]
            started = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - started
            after = {p: rss_kib(p) for p in pids}
            starts = client_starts(home)
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
    sent = per * clients
    got = out["got"]
    wrong = [g for g in got if g[0] != g[2]]
    seen = [g[0] for g in got]
    duplicated = len(seen) - len(set(seen))
    lost = sent - len(set(seen))
    times = sorted(out["times"])
    p50 = statistics.median(times) * 1000
    p99 = times[max(0, int(len(times) * 0.99) - 1)] * 1000
    grew = sum(after.values()) - sum(before.values())
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    lines = [
        f"{workers} worker processes, {clients} concurrent clients (Claude Code, Codex, Gemini CLI, "
        f"Cursor, Copilot in turn), {sent} events over keep-alive HTTP/1.1 on 127.0.0.1, "
        f"{os.cpu_count()} CPUs, load average {load:.1f} at the end:",
        "",
        "| figure | value |",
        "| --- | --- |",
        f"| throughput | {sent / wall:.0f} events/s ({wall:.1f} s) |",
        f"| p50 per request | {p50:.1f} ms |",
        f"| p99 per request | {p99:.1f} ms |",
        f"| lost | {lost} |",
        f"| duplicated | {duplicated} |",
        f"| misrouted (another request's or another agent's reply) | {len(wrong)} |",
        f"| transport errors | {len(out['errors'])} |",
        f"| workers' resident memory | {sum(before.values()) // 1024} MiB after warm-up, "
        f"{sum(after.values()) // 1024} MiB after ({grew:+d} KiB) |",
    ]
    lines += [
        "",
        f"One hook call through `hermes hooks client claude PreToolUse` against this service, "
        f"as an agent runs it (a new process each time; median of {starts['runs']:.0f}):",
        "",
        "| process | ms |",
        "| --- | --- |",
        f"| `python -c pass` | {starts['pass']:.1f} |",
        f"| `hermes hooks client` (the service answers) | {starts['client']:.1f} |",
        f"| `hermes hooks client`, the service stopped (in-process fallback: `load()` of the "
        f"home) | {starts['fallback']:.1f} |",
    ]
    if wrong[:3]:
        lines.append("")
        lines.append(f"first misrouted: {wrong[:3]}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--events", type=int, default=4000)
    parser.add_argument("--write", action="store_true", help="update docs/performance.md")
    args = parser.parse_args()
    text = run(args.workers, args.clients, args.events)
    print(text)
    if args.write:
        write_section(text, "<!-- serve_load:begin -->", "<!-- serve_load:end -->")
    bad = any(f"| {k} | 0 |" not in text for k in ("lost", "duplicated", "transport errors"))
    if bad or "| misrouted (another request's or another agent's reply) | 0 |" not in text:
        sys.exit(1)


if __name__ == "__main__":
    main()
