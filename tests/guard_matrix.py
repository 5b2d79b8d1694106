"""The guard matrix (docs/security.md, "The guard matrix"): every way to declare a guard, each
fault a guard can have, written into a real home and project, declared once here and crossed
in tests/test_guard_matrix.py.

A :class:`Way` writes one guard into a :class:`Scene` (config.yaml entries, plugin directories,
an installed distribution's entry point, another agent's hook file, a gateway hook), healthy or
with one :data:`FAULTS` fault, declared ``fail_closed`` or not. A guard that is healthy blocks
the probe (a ``terminal`` call whose command is the string ``rm -rf /tmp/x``, never run; for a
gateway hook the ``/reset`` command); under a fault it gives no answer of its own, so a block
can only come from the runtime's handling of the fault. A script that is edited after its
approval, or never approved, is made to allow everything, for the same reason: a block then
comes from consent, not from the script.

A fault that has no meaning for a way is skipped with the reason (:meth:`Way.skip`), or is
mapped to its equivalent there (a Python plugin cannot drip bytes: it sleeps in small steps past
its time limit; a plugin directory is not approved, it is trusted: "unapproved" is a directory
others may write to).
"""

from __future__ import annotations

import json
import socket
import stat
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml
from hook_servers import misbehaving, serve_in_thread

#: The call every tool guard must stop: a string, judged, never run.
COMMAND = "rm -rf /tmp/x"
PROBE = {"tool_name": "terminal", "args": {"command": COMMAND}}
#: The gateway command every gateway guard must stop.
GATEWAY_EVENT = "command:reset"
GATEWAY_CONTEXT = {"platform": "cli", "user_id": "u1", "command": "reset", "raw_command": "/reset",
                   "args": "", "raw_args": ""}  # fmt: skip
#: The guard's time limit in a cell whose fault is not about time (seconds): generous, so a
#: healthy guard started on a loaded machine (the suite runs on several workers) is never cut off;
#: no such cell waits for it.
TIMEOUT = 5.0
#: The time limit of a cell whose fault is to run past it (the guard sleeps or drips for seconds):
#: short, since those cells wait for it (twice: the call, then ``doctor``).
PAST_LIMIT = 0.1
REASON = "matrix guard: no rm"


@dataclass(frozen=True)
class Fault:
    name: str
    what: str


FAULTS = (
    Fault("healthy", "no fault: the control column, the guard itself blocks"),
    Fault("crash", "the guard crashes (killed by a signal, an exception, HTTP 500)"),
    Fault("exit-garbage", "the guard exits 3 with garbage on stdout (sys.exit(3) in Python)"),
    Fault("timeout", f"the guard answers after its {PAST_LIMIT} s time limit"),
    Fault("slow-drip", "the guard keeps sending a byte at a time past its time limit"),
    Fault(
        "malformed-reply",
        "the answer is not one the event reads (a misspelt decision, a reply that is not HTTP)",
    ),  # fmt: skip
    Fault("missing-script", "what the entry runs is not there (script, module, server)"),
    Fault("edited", "the script was edited after it was approved"),
    Fault("unapproved", "the hook was never approved (a plugin: its directory is not trusted)"),
    Fault("typo", "a misspelt key or event name in the guard's own entry"),
    Fault("refused-url", "the hook's URL is outside allowed_http_hook_urls"),
)
FAULT_NAMES = tuple(f.name for f in FAULTS)


@dataclass
class Scene:
    """A Hermes home, a project (the working directory) and a user's ``$HOME``, in ``root``."""

    root: Path
    stack: ExitStack
    config: dict[str, Any] = field(default_factory=dict)
    #: What the reports must name: the hook's name, command or file.
    names: list[str] = field(default_factory=list)
    event: str = "pre_tool_call"
    #: Approve every hook at load (``--accept-hooks``); False: nobody is asked.
    accept: bool = True
    #: Run after a first load that approves everything (the ``edited`` fault).
    after_approval: list[Callable[[], None]] = field(default_factory=list)
    #: Entry-point distributions to put on sys.path: (site directory, module names).
    sites: list[tuple[Path, list[str]]] = field(default_factory=list)
    #: The guard's time limit (seconds), as its way writes it.
    timeout: float = TIMEOUT

    def __post_init__(self) -> None:
        self.home = self.root / "home"
        self.project = self.root / "project"
        self.user = self.root / "user"
        for path in (self.home / "plugins", self.project, self.user):
            path.mkdir(parents=True, exist_ok=True)

    def script(self, path: Path, body: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(0o755)
        return path

    def hooks(self, event: str, entry: dict[str, Any]) -> None:
        self.config.setdefault("hooks", {}).setdefault(event, []).append(entry)

    def write_json(self, path: Path, doc: Any) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc, indent=2))
        return path

    def write_config(self) -> None:
        (self.home / "config.yaml").write_text(yaml.safe_dump(self.config, sort_keys=False))


# ---------------------------------------------------------------------- shell scripts

ALLOW_ALL = "cat > /dev/null\nexit 0\n"


def script_body(fault: str, deny: str, malformed: str) -> str:
    """A hook script's body: ``deny`` (the dialect's block, JSON without single quotes) when
    healthy, else the fault."""
    bodies = {
        "healthy": f"cat > /dev/null\nprintf '%s\\n' '{deny}'\n",
        "crash": "cat > /dev/null\necho 'guard: internal error' >&2\nkill -s SEGV $$\n",
        "exit-garbage": "cat > /dev/null\necho '<<garbage>> not an answer'\nexit 3\n",
        "timeout": "cat > /dev/null\nexec sleep 5\n",
        "slow-drip": "cat > /dev/null\nfor i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"
        "; do printf ' '; sleep 0.1; done\n",
        "malformed-reply": f"cat > /dev/null\nprintf '%s\\n' '{malformed}'\n",
        "edited": f"cat > /dev/null\nprintf '%s\\n' '{deny}'\n",
        "unapproved": ALLOW_ALL,
    }
    if fault not in bodies:
        raise KeyError(fault)
    return bodies[fault]


def shell_guard(scene: Scene, fault: str, deny: str, malformed: str, where: Path) -> str:
    """Write the guard script for ``fault`` at ``where``; its command line (a missing script
    is named but never written)."""
    if fault == "missing-script":
        return str(where.with_name("no-such-guard.sh"))
    body = script_body("healthy" if fault in ("typo", "refused-url") else fault, deny, malformed)
    path = scene.script(where, body)
    if fault == "edited":
        scene.after_approval.append(lambda: path.write_text("#!/bin/sh\n" + ALLOW_ALL))
    if fault == "unapproved":
        scene.accept = False
    return str(path)


def _no_url(way: str) -> str:
    return f"a {way} has no URL: nothing is sent anywhere"


# ---------------------------------------------------------------------- HTTP servers


@contextmanager
def canned(
    status: int = 200,
    body: bytes = b"",
    *,
    delay: float = 0.0,
    completion: bool = False,
) -> Iterator[str]:
    """A server on 127.0.0.1 answering every POST alike: ``status`` with ``body`` (wrapped in a
    ``/chat/completions`` reply when ``completion``), after ``delay`` seconds. Yields its URL."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if delay:
                time.sleep(delay)
            data = body
            if completion and status == 200:
                message = {"role": "assistant", "content": body.decode()}
                data = json.dumps(
                    {"id": "c", "object": "chat.completion",
                     "choices": [{"index": 0, "finish_reason": "stop", "message": message}]}
                ).encode()  # fmt: skip
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:
                pass  # the client gave up (a timeout)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    serve_in_thread(httpd)
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def closed_port() -> str:
    """A URL on 127.0.0.1 where nothing listens (the port was just free)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


ALLOWED = ["http://127.0.0.1:*/*"]


# ---------------------------------------------------------------------- the ways


class Way:
    """One way to declare a guard."""

    name = ""
    #: Whether ``fail_closed`` can be left undeclared (``plugins.required`` always declares it).
    open_variant = True

    def skip(self, fault: str) -> str | None:
        """Why ``fault`` has no meaning for this way (``None``: it has)."""
        return None

    def write(self, scene: Scene, fault: str, fail_closed: bool) -> None:
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.name


class ConfigCommand(Way):
    """``hooks:`` of config.yaml, a ``command`` entry (Hermes protocol)."""

    name = "config-command"
    persistent = False
    deny = json.dumps({"action": "block", "message": REASON})
    malformed = json.dumps({"action": "blok", "message": REASON})

    def skip(self, fault: str) -> str | None:
        return _no_url("command hook") if fault == "refused-url" else None

    def write(self, scene: Scene, fault: str, fail_closed: bool) -> None:
        where = scene.home / "hooks" / ("worker.py" if self.persistent else "guard.sh")
        if self.persistent and fault != "missing-script":
            command = self.worker(scene, fault, where)
        else:
            command = shell_guard(scene, fault, self.deny, self.malformed, where)
        entry: dict[str, Any] = {
            "command": command,
            "timeout": scene.timeout,
            "name": "matrix-guard",
        }
        if self.persistent:
            entry["persistent"] = True
        if fail_closed:
            entry["fail_closed"] = True
        if fault == "typo":
            entry["comand"] = entry.pop("command")
        scene.hooks("pre_tool_call", entry)
        scene.names += ["matrix-guard", command, "hooks.pre_tool_call[0]"]

    def worker(self, scene: Scene, fault: str, path: Path) -> str:
        """A warm worker (docs/shell-hooks.md, protocol 1) in Python: a handshake, then one
        JSON line per event, or the fault."""
        answer = 'print(json.dumps({"id": rid, "answer": %s}), flush=True)'
        bodies = {
            "healthy": answer % self.deny,
            "crash": "os.kill(os.getpid(), signal.SIGSEGV)",
            "exit-garbage": "print('<<garbage>> not an answer', flush=True); sys.exit(3)",
            "timeout": "time.sleep(5)",
            "slow-drip": "for _ in range(30):\n"
            "        sys.stdout.write(' '); sys.stdout.flush(); time.sleep(0.1)",
            "malformed-reply": answer % self.malformed,
            "allow": 'print(json.dumps({"id": rid}), flush=True)',
        }

        def code(body: str) -> str:
            return (f"#!{sys.executable}\nimport json, os, signal, sys, time\n"
                    'print(json.dumps({"worker": "hermes-hooks", "protocol": 1}), flush=True)\n'
                    "for line in sys.stdin:\n    rid = json.loads(line)['id']\n"
                    f"    {body}\n")  # fmt: skip

        kind = {"edited": "healthy", "unapproved": "allow"}.get(fault, fault)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code(bodies.get(kind, bodies["healthy"])))
        path.chmod(0o755)
        if fault == "edited":
            scene.after_approval.append(lambda: path.write_text(code(bodies["allow"])))
        if fault == "unapproved":
            scene.accept = False
        return str(path)


class ConfigWorker(ConfigCommand):
    """``hooks:`` of config.yaml, a warm worker (``persistent: true``)."""

    name = "config-worker"
    persistent = True


class ConfigHttp(Way):
    """``hooks:`` of config.yaml, a ``type: http`` entry."""

    name = "config-http"

    def skip(self, fault: str) -> str | None:
        if fault in ("edited", "unapproved"):
            return ("an http hook runs no code here: it needs no approval and has no script "
                    "to edit; its gate is the URL (refused-url)")  # fmt: skip
        return None

    def write(self, scene: Scene, fault: str, fail_closed: bool) -> None:
        deny = json.dumps({"action": "block", "message": REASON}).encode()
        url = scene.stack.enter_context(self.server(fault, deny)) + "/guard"
        entry: dict[str, Any] = {"type": "http", "url": url, "timeout": scene.timeout,
                                 "name": "matrix-guard"}  # fmt: skip
        if fail_closed:
            entry["fail_closed"] = True
        if fault == "typo":
            entry["ulr"] = entry.pop("url")
        scene.hooks("pre_tool_call", entry)
        scene.config["allowed_http_hook_urls"] = (
            ["http://allowed.example/*"] if fault == "refused-url" else ALLOWED
        )
        scene.names += ["matrix-guard", "hooks.pre_tool_call[0]"]

    @staticmethod
    @contextmanager
    def server(fault: str, deny: bytes, completion: bool = False) -> Iterator[str]:
        if fault == "missing-script":
            yield closed_port()
        elif fault in ("slow-drip", "malformed-reply") and not completion:
            with misbehaving("drip" if fault == "slow-drip" else "bad-status") as s:
                yield s.url
        elif fault == "slow-drip":
            with misbehaving("drip") as s:
                yield s.url
        else:
            status, body, delay = {
                "crash": (500, b"Traceback: internal error", 0.0),
                "exit-garbage": (200, b"<<garbage>> not an answer", 0.0),
                "timeout": (200, deny, 3.0),
                "malformed-reply": (200, b'{"decision": "maybe", "reason": "?"}', 0.0),
            }.get(fault, (200, deny, 0.0))
            with canned(status, body, delay=delay, completion=completion) as url:
                yield url


class ConfigPrompt(Way):
    """``hooks:`` of config.yaml, a ``type: prompt`` entry (an LLM judge at ``base_url``)."""

    name = "config-prompt"

    def skip(self, fault: str) -> str | None:
        if fault in ("edited", "unapproved"):
            return ("a prompt hook runs no code here: it needs no approval and has no script "
                    "to edit; its gate is its base_url (refused-url)")  # fmt: skip
        return None

    def write(self, scene: Scene, fault: str, fail_closed: bool) -> None:
        deny = json.dumps({"decision": "deny", "reason": REASON}).encode()
        base = scene.stack.enter_context(ConfigHttp.server(fault, deny, completion=True))
        entry: dict[str, Any] = {"type": "prompt", "prompt": "May the agent run this? $ARGUMENTS",
                                 "base_url": base + "/v1", "model": "judge", "timeout": scene.timeout,
                                 "name": "matrix-guard"}  # fmt: skip
        if fail_closed:
            entry["fail_closed"] = True
        if fault == "typo":
            entry["promt"] = entry.pop("prompt")
        scene.hooks("pre_tool_call", entry)
        scene.config["allowed_http_hook_urls"] = (
            ["http://allowed.example/*"] if fault == "refused-url" else ALLOWED
        )
        scene.names += ["matrix-guard", "hooks.pre_tool_call[0]"]


class ConfigBuiltin(Way):
    """``hooks:`` of config.yaml, a ``type: builtin`` entry: ``dangerous_patterns`` with a rule
    file of the user's that denies ``rm -rf``. Its faults are the rule file's: not YAML
    (crash), a list of strings (exit-garbage), a misspelt action (malformed-reply), not there
    (missing-script), writable by everyone (unapproved: the trust rule)."""

    name = "config-builtin"

    def skip(self, fault: str) -> str | None:
        if fault in ("timeout", "slow-drip"):
            return ("a built-in runs in-process with no time limit of its own (the watchdog "
                    "reports a hang); it has no answer to wait for")  # fmt: skip
        if fault == "edited":
            return ("a built-in and its rule files are not approved and pinned: they are "
                    "configuration you own (the trust rule applies: unapproved)")  # fmt: skip
        return _no_url("dangerous_patterns built-in") if fault == "refused-url" else None

    def write(self, scene: Scene, fault: str, fail_closed: bool) -> None:
        rules = scene.home / "dangerous-patterns.yaml"
        rule = {"pattern": r"\brm\s+-rf\b", "description": REASON, "action": "deny"}
        text = {
            "crash": "rules: [unclosed\n",
            "exit-garbage": yaml.safe_dump({"rules": ["<<garbage>>"]}),
            "malformed-reply": yaml.safe_dump({"rules": [{**rule, "action": "dney"}]}),
        }.get(fault, yaml.safe_dump({"rules": [rule]}))
        if fault != "missing-script":
            rules.write_text(text)
        if fault == "unapproved":
            rules.chmod(0o666)
        entry: dict[str, Any] = {"type": "builtin", "name": "dangerous_patterns"}
        if fail_closed:  # a built-in entry has no fail_closed key of its own
            scene.config["fail_closed_events"] = ["pre_tool_call"]
        if fault == "typo":
            entry["name"] = "dangerous_pattern"
        scene.hooks("pre_tool_call", entry)
        scene.names += ["dangerous_pattern" if fault == "typo" else "dangerous_patterns",
                        str(rules)]  # fmt: skip


class AgentFile(Way):
    """Another agent's hook file in the project, read with ``hooks_sources``."""

    source = ""
    deny: dict[str, Any] = {}
    malformed: dict[str, Any] = {}
    #: The key of an entry's command in this agent's files.
    command_key = "command"
    #: The agent's own key for fail-closed, if it has one (else ``fail_closed_events``).
    fail_key: tuple[str, Any] | None = None

    def file(self, scene: Scene, entry: dict[str, Any]) -> Path:
        raise NotImplementedError

    def skip(self, fault: str) -> str | None:
        return _no_url(f"{self.source} command hook") if fault == "refused-url" else None

    def write(self, scene: Scene, fault: str, fail_closed: bool) -> None:
        script = scene.project / f".{self.source}-hooks" / "guard.sh"
        command = shell_guard(scene, fault, json.dumps(self.deny), json.dumps(self.malformed),
                              script)  # fmt: skip
        entry: dict[str, Any] = {self.command_key: command}
        if fail_closed:
            if self.fail_key:
                entry[self.fail_key[0]] = self.fail_key[1]
            else:
                scene.config["fail_closed_events"] = ["pre_tool_call"]
        if fault == "typo":
            entry[self.command_key[:-1]] = entry.pop(self.command_key)
        scene.config["hooks_sources"] = [self.source]
        path = self.file(scene, entry)
        scene.names += [str(path), command]


def _claude_deny() -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": REASON}}  # fmt: skip


def _claude_malformed() -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "dney",
                                   "permissionDecisionReason": REASON}}  # fmt: skip


class ClaudeFile(AgentFile):
    name, source = "claude-settings", "claude"
    deny, malformed = _claude_deny(), _claude_malformed()
    fail_key = ("onFailure", "block")

    def file(self, scene: Scene, entry: dict[str, Any]) -> Path:
        entry = {"type": "command", "timeout": scene.timeout, **entry}
        return scene.write_json(scene.project / ".claude" / "settings.json",
                                {"hooks": {"PreToolUse": [{"matcher": "Bash",
                                                           "hooks": [entry]}]}})  # fmt: skip


class CodexFile(AgentFile):
    name, source = "codex-hooks", "codex"
    deny, malformed = _claude_deny(), _claude_malformed()

    def file(self, scene: Scene, entry: dict[str, Any]) -> Path:
        entry = {"type": "command", "timeout": scene.timeout, **entry}
        return scene.write_json(scene.project / ".codex" / "hooks.json",
                                {"hooks": {"PreToolUse": [{"matcher": "Bash",
                                                           "hooks": [entry]}]}})  # fmt: skip


class GeminiFile(AgentFile):
    name, source = "gemini-settings", "gemini"
    deny = {"decision": "deny", "reason": REASON}
    malformed = {"decision": "dney", "reason": REASON}

    def file(self, scene: Scene, entry: dict[str, Any]) -> Path:
        entry = {"type": "command", "timeout": int(scene.timeout * 1000), **entry}
        return scene.write_json(scene.project / ".gemini" / "settings.json",
                                {"hooks": {"BeforeTool": [{"matcher": "run_shell_command",
                                                           "hooks": [entry]}]}})  # fmt: skip


class CursorFile(AgentFile):
    name, source = "cursor-hooks", "cursor"
    deny = {"permission": "deny", "user_message": REASON, "agent_message": REASON}
    malformed = {"permission": "dney", "user_message": REASON}
    fail_key = ("failClosed", True)

    def file(self, scene: Scene, entry: dict[str, Any]) -> Path:
        entry = {"timeout": scene.timeout, **entry}
        return scene.write_json(scene.project / ".cursor" / "hooks.json",
                                {"version": 1, "hooks": {"beforeShellExecution": [entry]}})  # fmt: skip


class CopilotFile(AgentFile):
    name, source = "copilot-hooks", "copilot"
    deny = {"permissionDecision": "deny", "permissionDecisionReason": REASON}
    malformed = {"permissionDecision": "dney", "permissionDecisionReason": REASON}
    command_key = "bash"

    def file(self, scene: Scene, entry: dict[str, Any]) -> Path:
        entry = {"type": "command", "timeoutSec": scene.timeout, **entry}
        return scene.write_json(scene.project / ".github" / "hooks" / "guard.json",
                                {"version": 1, "hooks": {"preToolUse": [entry]}})  # fmt: skip


# ---------------------------------------------------------------------- Python plugins

_BLOCK = {"action": "block", "message": REASON}
#: What a Python guard's hook does under each fault (the body of its function).
PY_BODIES = {
    "healthy": f"return {_BLOCK!r}",
    "crash": "raise RuntimeError('guard: internal error')",
    "exit-garbage": "print('<<garbage>> not an answer'); sys.exit(3)",
    "timeout": "time.sleep(5)\n    return " + repr(_BLOCK),
    "slow-drip": "for _ in range(50):\n        time.sleep(0.1)\n    return " + repr(_BLOCK),
    "malformed-reply": "return {'action': 'blok', 'message': 'matrix guard: no rm'}",
}


def _py_skip(way: str, fault: str) -> str | None:
    if fault == "edited":
        return (f"a {way} is not approved and pinned: installing it is consent; its files "
                "are checked by the trust rule (unapproved)")  # fmt: skip
    return _no_url(way) if fault == "refused-url" else None


def python_module(fault: str, native: bool, event: str = "pre_tool_call") -> str:
    """A guard plugin's code (``native``: ``@hookimpl`` functions; else ``register(ctx)``)."""
    body = PY_BODIES.get(fault, PY_BODIES["healthy"])
    head = "import sys, time\n"
    if fault == "missing-script":
        head += "import matrix_guard_rules_that_are_not_installed\n"
    if native:
        return head + textwrap.dedent(
            f"""\
            from hermes_hooks import hookimpl

            @hookimpl
            def {event}(tool_name, args):
                {{body}}
            """
        ).format(body=body)
    return head + textwrap.dedent(
        f"""\

        def guard(**kwargs):
            {{body}}

        def register(ctx):
            ctx.register_hook({event!r}, guard)
        """
    ).format(body=body)


class PluginDir(Way):
    """``<home>/plugins/<name>/`` with ``plugin.yaml``: Hermes-style ``register(ctx)``
    (``native``: ``@hookimpl`` functions, a Python plugin)."""

    name = "plugin-dir"
    native = False

    def skip(self, fault: str) -> str | None:
        return _py_skip(self.name, fault)

    def write(self, scene: Scene, fault: str, fail_closed: bool) -> None:
        plugin = f"matrix-{self.name}-{fault}-{int(fail_closed)}"
        pdir = scene.home / "plugins" / plugin
        pdir.mkdir(parents=True)
        event = "pre_tool_cal" if fault == "typo" else "pre_tool_call"
        (pdir / "__init__.py").write_text(python_module(fault, self.native, event))
        manifest: dict[str, Any] = {"name": plugin, "timeout": scene.timeout}
        if fail_closed:
            manifest["fail_closed"] = True
        (pdir / "plugin.yaml").write_text(yaml.safe_dump(manifest))
        if fault == "unapproved":
            pdir.chmod(pdir.stat().st_mode | stat.S_IWOTH)
        scene.names += [plugin]


class PythonPlugin(PluginDir):
    name = "python-plugin"
    native = True


class EntryPoint(Way):
    """A distribution's ``hermes_hooks`` entry point: a real ``*.dist-info`` on ``sys.path``
    (tests/test_guard_matrix.py also installs a built wheel into a venv, slow)."""

    name = "entry-point"

    def skip(self, fault: str) -> str | None:
        if fault == "unapproved":
            return ("an installed distribution is not approved: installing it is consent "
                    "(pip), and site-packages is root's or yours")  # fmt: skip
        return _py_skip(self.name, fault)

    def write(self, scene: Scene, fault: str, fail_closed: bool) -> None:
        plugin = f"matrix-ep-{fault}-{int(fail_closed)}"
        module = plugin.replace("-", "_")
        site = scene.root / "site"
        site.mkdir(exist_ok=True)
        event = "pre_tool_cal" if fault == "typo" else "pre_tool_call"
        (site / f"{module}.py").write_text(python_module(fault, True, event))
        info = site / f"{module}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text(f"[hermes_hooks]\n{plugin} = {module}\n")
        scene.sites.append((site, [module]))
        plugins = scene.config.setdefault("plugins", {})
        plugins["hook_callback_timeout"] = scene.timeout
        if fail_closed:
            scene.config["fail_closed_events"] = ["pre_tool_call"]
        scene.names += [plugin]


class RequiredName(Way):
    """A shell hook named in ``plugins.required`` (the entry itself declares nothing)."""

    name = "plugins-required"
    open_variant = False

    def skip(self, fault: str) -> str | None:
        return ConfigCommand().skip(fault)

    def write(self, scene: Scene, fault: str, fail_closed: bool) -> None:
        ConfigCommand().write(scene, fault, False)
        scene.config.setdefault("plugins", {})["required"] = ["matrix-guard"]


class GatewayHook(Way):
    """``<home>/hooks/<name>/`` with ``HOOK.yaml`` and ``handler.py``, on ``command:*``."""

    name = "gateway-hook"

    def skip(self, fault: str) -> str | None:
        return _py_skip(self.name, fault)

    def write(self, scene: Scene, fault: str, fail_closed: bool) -> None:
        scene.event = GATEWAY_EVENT
        hook = scene.home / "hooks" / "matrix-gateway"
        hook.mkdir(parents=True)
        manifest: dict[str, Any] = {"name": "matrix-gateway", "events": ["command:*"],
                                    "timeout": scene.timeout}  # fmt: skip
        if fail_closed:
            manifest["fail_closed"] = True
        if fault == "typo":
            manifest["event"] = manifest.pop("events")
        (hook / "HOOK.yaml").write_text(yaml.safe_dump(manifest))
        body = {
            "healthy": f"return {{'decision': 'deny', 'message': {REASON!r}}}",
            "malformed-reply": f"return {{'decision': 'dney', 'message': {REASON!r}}}",
        }.get(fault) or PY_BODIES.get(fault, PY_BODIES["healthy"].replace("action", "decision")
                                      .replace("block", "deny"))  # fmt: skip
        head = "import sys, time\n"
        if fault != "missing-script":
            (hook / "handler.py").write_text(
                head + f"\ndef handle(event_type, context):\n    {body}\n"
            )
        if fault == "unapproved":
            hook.chmod(hook.stat().st_mode | stat.S_IWOTH)
        scene.names += ["matrix-gateway"]


WAYS: tuple[Way, ...] = (
    PythonPlugin(),
    PluginDir(),
    EntryPoint(),
    ConfigCommand(),
    ConfigHttp(),
    ConfigPrompt(),
    ConfigWorker(),
    ConfigBuiltin(),
    ClaudeFile(),
    CodexFile(),
    GeminiFile(),
    CursorFile(),
    CopilotFile(),
    GatewayHook(),
    RequiredName(),
)


def cells() -> Iterator[tuple[Way, Fault, bool, str | None]]:
    """Every (way, fault, fail_closed) of the matrix, with the reason when it is not applicable."""
    for way in WAYS:
        for fault in FAULTS:
            for fail_closed in (True, False):
                why = way.skip(fault.name)
                if why is None and not fail_closed and not way.open_variant:
                    why = "naming a guard in plugins.required declares it fail-closed"
                yield way, fault, fail_closed, why


def limit(fault: str) -> float:
    """The guard's time limit in a cell with ``fault``."""
    return PAST_LIMIT if fault in ("timeout", "slow-drip") else TIMEOUT
