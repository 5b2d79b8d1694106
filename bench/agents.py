"""What the real Claude Code reports for its hooks on one PreToolUse event: its own floor, our
service with five guards behind it, and the same five guards as five command hooks of its own.

Usage: ``python bench/agents.py [--rounds N] [--quick] [--write]``. Needs the Claude Code the
oracle suite caches (``tests/oracle/oracle_install.py``: ``install_npm(CLAUDE)``, installed on
first use) and runs it offline against the oracle's fake model, which asks for one Bash call
(``ls -la``, which every guard lets through). Claude Code runs with ``--output-format
stream-json --verbose --include-hook-events``: it prints a ``hook_started`` line when a hook
starts and a ``hook_response`` line when it answered (neither carries a duration). Each stdout
line is timestamped as it arrives (the pipe is read line by line); a row's figure is the time
from the first ``hook_started`` to the last ``hook_response`` of the PreToolUse event. A command
hook that sleeps 200 ms is a row too: it shows that the lines are not held back (its figure is
the no-op command hook's plus 200 ms).

Rows, one Claude Code run each per round, interleaved, every row in every round:

- (a) Claude Code's floor: an ``http`` hook to a local endpoint answering ``{}`` at once (its
  UserPromptSubmit posts there first, as it does to the service over ``--via http``, so Claude
  Code's connection is open in both); one no-op command hook (``true``) for reference, and
  one that starts the client's Python (``python -c pass``): the least the client route costs.
- (b) the event routed by ``hermes hooks install-into claude`` (``--via http``, the default,
  and ``--via client``: the client command) to ``hermes hooks serve`` with five guards in its home: a shell worker
  (``persistent: true``), a Python plugin, ``command_guard``, ``dangerous_patterns``,
  ``redact_secrets``.
- (c) the same five guards without the service: five command hooks of Claude Code's own, each
  ``hermes hooks client claude PreToolUse --home HOME_i`` for a home holding that one guard and
  no service (the client runs it in-process: what hermes-hooks costs a Claude Code user who
  does not run the service, one hook per guard).
- reference: (b) over http to a second service whose home holds the same guards but the shell
  worker: how much of (b) is the round trip to that guard's own process.

After the rounds each route of (b) and (c) is checked to decide: the plugin and the worker each
deny a marked ``echo`` and Claude Code must report the deny. The service alone (per request and
throughput) is ``bench/serve_load.py``, run here with its defaults (``--quick``: 400 events).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "oracle"))
from dispatch import write_section  # noqa: E402
from oracle_agents import base_env  # noqa: E402
from oracle_install import CLAUDE, install_npm  # noqa: E402
from oracle_servers import FakeModel, ToolCall  # noqa: E402
from serve_load import run as serve_load_run  # noqa: E402
from serve_load import start as serve_start  # noqa: E402

TOKEN_ENV = "HERMES_HOOKS_TOKEN"
COMMAND = "ls -la"
SLEEP = 0.2
PLUGIN_DENY = "echo hermes-bench-deny-plugin"
WORKER_DENY = "echo hermes-bench-deny-worker"
#: What ``hermes hooks client`` says on stderr when the service did not answer it.
FALLBACK = "the hooks ran in-process"

PLUGIN = f"""
def register(ctx):
    def pre(tool_name=None, args=None, **kw):
        if (args or {{}}).get("command") == {PLUGIN_DENY!r}:
            return {{"action": "block", "message": "denied by the bench plugin"}}
        return None
    ctx.register_hook("pre_tool_call", pre)
"""

WORKER = f"""from hermes_hooks.worker import block, serve

def handle(event, payload):
    if (payload.get("tool_input") or {{}}).get("command") == {WORKER_DENY!r}:
        raise block("denied by the bench worker")

serve(handle)
"""

#: The five guards, each as the config.yaml (and plugin folder) of a home.
#: A row beside (b): the same route and service with every guard but the shell worker.
REFERENCE = "reference: install-into claude --via http -> serve, the 4 guards but the shell worker"
GUARDS = ("shell worker", "Python plugin", "command_guard", "dangerous_patterns", "redact_secrets")


#: The floor endpoint: a process of its own (as the service is) on asyncio's protocol layer, which
#: reads a request and answers ``{}`` in one write, keeping the connection open.
FLOOR = r"""
import asyncio, sys

class Floor(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport, self.buf = transport, b""

    def data_received(self, data):
        self.buf += data
        while b"\r\n\r\n" in self.buf:
            head, rest = self.buf.split(b"\r\n\r\n", 1)
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if len(rest) < length:
                return
            self.buf = rest[length:]
            self.transport.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                 b"Content-Length: 2\r\n\r\n{}")

async def main():
    server = await asyncio.get_running_loop().create_server(Floor, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()

asyncio.run(main())
"""


class Floor:
    """An endpoint on 127.0.0.1 answering every POST with ``{}`` at once (its own process)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", FLOOR], stdout=subprocess.PIPE,
                                     text=True)  # fmt: skip
        assert self.proc.stdout is not None
        self.url = f"http://127.0.0.1:{self.proc.stdout.readline().strip()}/hook"

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def guard_home(home: Path, guards: tuple[str, ...], worker: Path) -> Path:
    """A hermes home holding ``guards`` (the shell worker approved by ``hooks_auto_accept``)."""
    home.mkdir(parents=True)
    lines = ["hooks_auto_accept: true"]
    if "shell worker" in guards:
        lines += ["hooks:", "  pre_tool_call:",
                  f"    - command: {sys.executable} {worker}", "      persistent: true"]  # fmt: skip
    if "Python plugin" in guards:
        folder = home / "plugins" / "bench_guard"
        folder.mkdir(parents=True)
        (folder / "plugin.yaml").write_text("name: bench_guard\n")
        (folder / "__init__.py").write_text(PLUGIN)
    lines += [f"{name}: true" for name in guards if name.isidentifier()]
    (home / "config.yaml").write_text("\n".join(lines) + "\n")
    return home


def hermes(home: Path, *args: str) -> None:
    cmd = [sys.executable, "-m", "hermes_hooks", "--home", str(home), *args]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stdout}{done.stderr}")


def project_with(
    root: Path, name: str, hooks: list[dict[str, Any]], prompt: list[dict[str, Any]] | None = None
) -> Path:
    """A project whose ``.claude/settings.local.json`` holds ``hooks`` on PreToolUse (and
    ``prompt`` on UserPromptSubmit)."""
    project = root / name
    (project / ".claude").mkdir(parents=True)
    settings = {"hooks": {"PreToolUse": [{"hooks": hooks}]}}
    if prompt:
        settings["hooks"]["UserPromptSubmit"] = [{"hooks": prompt}]
    (project / ".claude" / "settings.local.json").write_text(json.dumps(settings, indent=2))
    return project


def run_claude(binary: Path, project: Path, user: Path, command: str, token: str) -> list[Any]:
    """One ``claude -p`` run in ``project`` (its local settings the only source): every stdout
    line as (arrival time, parsed JSON or None)."""
    cmd = [str(binary), "-p", "Run the command, please.", "--output-format", "stream-json",
           "--verbose", "--include-hook-events", "--setting-sources", "local",
           "--allowedTools", "Bash"]  # fmt: skip
    lines: list[tuple[float, Any]] = []
    with FakeModel([ToolCall("Bash", {"command": command, "description": "bench"})]) as model:
        env = base_env(user, model)
        env.update({"ANTHROPIC_BASE_URL": model.url, "ANTHROPIC_API_KEY": "sk-ant-bench-not-a-key",
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", TOKEN_ENV: token})  # fmt: skip
        proc = subprocess.Popen(cmd, cwd=project, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        assert proc.stdout is not None
        for raw in iter(proc.stdout.readline, b""):
            arrived = time.perf_counter()
            try:
                lines.append((arrived, json.loads(raw)))
            except ValueError:
                lines.append((arrived, None))
        _, err = proc.communicate(timeout=120)
        if proc.returncode:
            raise SystemExit(
                f"claude exited {proc.returncode} in {project}: {err.decode()[-2000:]}"
            )
    return lines


def pre_tool_use(lines: list[Any]) -> tuple[float, list[dict[str, Any]]]:
    """First hook_started -> last hook_response of PreToolUse (ms), and its responses."""
    started = [t for t, obj in lines if _hook(obj, "hook_started")]
    answered = [(t, obj) for t, obj in lines if _hook(obj, "hook_response")]
    if not started or not answered:
        raise SystemExit("Claude Code reported no PreToolUse hook_started/hook_response lines")
    return (answered[-1][0] - started[0]) * 1000, [obj for _, obj in answered]


def _hook(obj: Any, subtype: str) -> bool:
    return (
        isinstance(obj, dict)
        and obj.get("type") == "system"
        and obj.get("subtype") == subtype
        and obj.get("hook_event") == "PreToolUse"
    )


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="3 rounds, a short service load")
    parser.add_argument("--write", action="store_true", help="update docs/performance.md")
    args = parser.parse_args()
    rounds = 3 if args.quick else args.rounds
    binary = install_npm(CLAUDE).binary
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-agents-") as tmp:
        root = Path(tmp)
        user = root / "user"
        user.mkdir()
        worker = root / "worker.py"
        worker.write_text(WORKER)
        served = guard_home(root / "served", GUARDS, worker)
        floor = Floor()
        proc, _url = serve_start(served, 2)
        # the same service without the shell worker: how much of (b) is that process's round trip
        served4 = guard_home(root / "served4", GUARDS[1:], worker)
        proc4, _url4 = serve_start(served4, 2)
        try:
            token = (served / "serve" / "token").read_text().strip()
            token4 = (served4 / "serve" / "token").read_text().strip()
            client = [str(Path(sys.executable).with_name("hermes")), "hooks", "client", "claude",
                      "PreToolUse", "--home"]  # fmt: skip
            alone = [guard_home(root / f"alone-{i}", (g,), worker) for i, g in enumerate(GUARDS)]
            projects = {
                # UserPromptSubmit posts to the same endpoint first, as it does to the service
                # over --via http: Claude Code then finds its connection open (a new one costs
                # it several ms)
                "(a) http hook answering {} at once": project_with(
                    root, "a-http", [{"type": "http", "url": floor.url}],
                    [{"type": "http", "url": floor.url}]),
                "(a) one no-op command hook (`true`)": project_with(
                    root, "a-true", [{"type": "command", "command": "true"}]),
                "one no-op Python command hook (`python -c pass`, the client's interpreter)": (
                    project_with(root, "a-python", [{"type": "command",
                                                     "command": f"{sys.executable} -c pass"}])),
                f"command hook sleeping {SLEEP * 1000:.0f} ms (line timing check)": project_with(
                    root, "sleep", [{"type": "command", "command": f"sleep {SLEEP}"}]),
                "(b) install-into claude --via http -> serve, 5 guards": root / "b-http",
                "(b) install-into claude --via client -> serve, 5 guards": root / "b-client",
                "(c) 5 guards as 5 command hooks (client, no service)": project_with(
                    root, "c", [{"type": "command", "command": " ".join([*client, str(h)])}
                                for h in alone]),
                REFERENCE: root / "b-http-4",
            }  # fmt: skip
            tokens = {row: token4 if row == REFERENCE else token for row in projects}
            (root / "b-http-4").mkdir()
            hermes(served4, "install-into", "claude", "--project", str(root / "b-http-4"), "--yes")
            for name, via in (("b-http", ["--via", "http"]), ("b-client", ["--via", "client"])):
                (root / name).mkdir()
                hermes(served, "install-into", "claude", *via, "--project", str(root / name),
                       "--yes")  # fmt: skip
            samples: dict[str, list[float]] = {row: [] for row in projects}
            fell_back = dict.fromkeys(projects, 0)  # hook answers the client gave in-process
            for row, project in projects.items():  # warm-up: node's and Python's files cached
                run_claude(binary, project, user, COMMAND, tokens[row])
            for _ in range(rounds):
                for row, project in projects.items():
                    ms, answers = pre_tool_use(
                        run_claude(binary, project, user, COMMAND, tokens[row])
                    )
                    samples[row].append(ms)
                    fell_back[row] += sum(FALLBACK in str(a.get("stderr")) for a in answers)
            checks = []
            for row, project in projects.items():
                if not row.startswith(("(b)", "(c)")):
                    continue
                for command, said in ((PLUGIN_DENY, "plugin"), (WORKER_DENY, "worker")):
                    _, answers = pre_tool_use(run_claude(binary, project, user, command, token))
                    denied = any(f"denied by the bench {said}" in json.dumps(a) for a in answers)
                    checks.append((f"{row}: the {said}'s deny reached Claude Code", denied))
            b_client, c = list(projects)[5:7]
            checks.append((f"{b_client}: the service answered every call", not fell_back[b_client]))
            checks.append((f"{c}: every hook ran in-process", fell_back[c] == rounds * len(GUARDS)))
        finally:
            floor.close()
            for running in (proc, proc4):
                running.send_signal(signal.SIGINT)
                try:
                    running.wait(30)
                except subprocess.TimeoutExpired:
                    running.kill()
    load_after = os.getloadavg()
    service = serve_load_run(2, 8, 400 if args.quick else 4000)
    text = render(samples, rounds, version.stdout.strip(), load_before, load_after, checks,
                  service)  # fmt: skip
    print(text)
    if args.write:
        write_section(text, "<!-- agents:begin -->", "<!-- agents:end -->")
    if not all(ok for _, ok in checks):
        sys.exit(1)


def render(
    samples: dict[str, list[float]],
    rounds: int,
    version: str,
    load_before: tuple[float, ...],
    load_after: tuple[float, ...],
    checks: list[tuple[str, bool]],
    service: str,
) -> str:
    med = {row: statistics.median(v) for row, v in samples.items()}
    rows = list(samples)
    floor_http, floor_true, python, sleeper, b_http, b_client, c, _reference = rows
    lines = [
        f"Claude Code {version}, offline against the oracle's fake model; {rounds} rounds, each "
        f"row one Claude Code run per round, rows interleaved; {os.cpu_count()} CPUs, load "
        f"average {load_before[0]:.1f} before and {load_after[0]:.1f} after (other jobs ran on "
        "the machine). Time from Claude Code's first `hook_started` to its last `hook_response` "
        "line of the PreToolUse event, as the lines arrived on its stdout:",
        "",
        "| hooks on PreToolUse | p50 ms | p90 ms | × (a) http floor |",
        "| --- | ---: | ---: | ---: |",
    ]
    for row in rows:
        values = samples[row]
        lines.append(f"| {row} | {med[row]:.1f} | {p90(values):.1f} | "
                     f"{med[row] / med[floor_http]:.2f}× |")  # fmt: skip
    extra = med[sleeper] - med[floor_true]
    lines += [
        "",
        f"Line timing check: the sleeping hook took {extra:.0f} ms more than the no-op one "
        f"(it sleeps {SLEEP * 1000:.0f} ms), so Claude Code writes the lines as they happen.",
        "",
        f"The client route took {med[b_client] - med[python]:.0f} ms more than a no-op Python "
        f"command hook, which took {med[python] - med[floor_true]:.0f} ms more than `true`.",
        "",
        "| goal | figure | holds |",
        "| --- | --- | --- |",
    ]
    for row in (b_http, b_client):
        ratio = med[row] / med[floor_http]
        lines.append(f"| {row.split(' -> ')[0]}: at most 1.2× (a) | {ratio:.2f}× | "
                     f"{'yes' if ratio <= 1.2 else 'no'} |")  # fmt: skip
    for row in (b_http, b_client):
        ratio = med[row] / med[c]
        lines.append(f"| {row.split(' -> ')[0]}: well under (c) | {ratio:.2f}× (c) | "
                     f"{'yes' if ratio <= 0.5 else 'no'} |")  # fmt: skip
    lines += ["", "Checked in the same run:", ""]
    lines += [f"- {what}: {'yes' if ok else 'NO'}" for what, ok in checks]
    lines += [
        "",
        "The service alone (`bench/serve_load.py`, run by this benchmark):",
        "",
        service.splitlines()[0],
        "",
        "| figure | value |",
        "| --- | --- |",
        *[line for line in service.splitlines() if line.startswith(("| throughput", "| p50",
                                                                     "| p99"))],
        "",
        "One `hermes hooks client claude PreToolUse` call as a new process (what the default "
        "route starts per event), against a bare Python start (same run of serve_load.py):",
        "",
        "| process | ms |",
        "| --- | --- |",
        *[line for line in service.splitlines() if line.startswith(("| `python -c pass`",
                                                                     "| `hermes hooks client` (the service answers)"))],
    ]  # fmt: skip
    return "\n".join(lines)


if __name__ == "__main__":
    main()
