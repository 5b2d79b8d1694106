"""Run the real agent CLIs, offline, against :class:`~oracle_servers.FakeModel`.

Each run gets a fresh empty ``HOME``, a project directory as its working directory, the fake
server as its model endpoint and as its only proxy (every other address is refused), and one
scripted tool call. What a run leaves behind is an :class:`AgentRun`: the requests the model got
(what it saw), the agent's own output, and the hook payloads a recording hook captured.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oracle_servers import FakeModel, Recorded, ToolCall

RUN_TIMEOUT = 120


@dataclass
class AgentRun:
    returncode: int
    stdout: str
    stderr: str
    requests: list[Recorded]
    payloads: list[dict[str, Any]] = field(default_factory=list)

    def bodies(self, path_part: str) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if path_part in r.path and isinstance(r.body, dict)]

    def refused(self) -> list[str]:
        return [f"{r.method} {r.path}" for r in self.requests if r.refused]


def hook_responses(stdout: str, event: str) -> list[dict[str, Any]]:
    """Claude Code's ``hook_response`` lines for ``event`` in its ``--output-format stream-json
    --verbose --include-hook-events`` output: each hook's ``stdout``, ``stderr``,
    ``exit_code`` and ``outcome`` (where a SessionStart hook's ``systemMessage`` shows in a
    ``-p`` run: in its ``stdout``)."""
    out = []
    for line in stdout.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if (
            isinstance(item, dict)
            and item.get("subtype") == "hook_response"
            and item.get("hook_event") == event
        ):
            out.append(item)
    return out


def recorder_command(record: Path) -> str:
    """A hook command appending its stdin (one line of JSON) and a newline to ``record``
    (always no opinion; :func:`read_records` skips the empty lines). A shell, not Python: it runs
    at every event of every call, and a shell starts in a tenth of the time."""
    line = f"cat >> {shlex.quote(str(record))}; echo >> {shlex.quote(str(record))}"
    return f"sh -c {shlex.quote(line)}"


def read_records(record: Path) -> list[dict[str, Any]]:
    if not record.exists():
        return []
    out = []
    for line in record.read_text().splitlines():
        if line.strip():
            out.append(json.loads(line))
    return out


def base_env(home: Path, model: FakeModel) -> dict[str, str]:
    """The environment an agent runs in here: ``home`` as its ``HOME``, the fake model as its
    only proxy (127.0.0.1 reached directly), nothing else of this process's (the oracle tests
    and ``bench/agents.py`` start the agents with it)."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "HTTPS_PROXY": model.url,
        "HTTP_PROXY": model.url,
        "https_proxy": model.url,
        "http_proxy": model.url,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    return env


def _dirs(root: Path) -> tuple[Path, Path]:
    home = root / "home"
    project = root / "project"
    home.mkdir(parents=True, exist_ok=True)
    project.mkdir(parents=True, exist_ok=True)
    return home, project


def _finish(
    cmd: list[str], project: Path, env: dict[str, str], model: FakeModel, record: Path | None
) -> AgentRun:
    """Run the agent's command against ``model`` and collect what it did."""
    done = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True,
                          timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)  # fmt: skip
    return AgentRun(done.returncode, done.stdout, done.stderr, list(model.requests),
                    read_records(record) if record else [])  # fmt: skip


def run_claude(
    binary: Path,
    root: Path,
    settings: dict[str, Any] | None,
    calls: list[ToolCall],
    *,
    prompt: str = "Run the command, please.",
    allowed_tools: str | None = "Bash",
    record: Path | None = None,
    extra: dict[str, str] | None = None,
) -> AgentRun:
    """``claude -p`` with hooks from one settings file (no other setting source); with
    ``settings=None``, from the project's ``.claude/settings.local.json`` alone (what
    ``hermes hooks install-into claude --project`` writes). ``extra``: more of its environment
    (``HERMES_HOOKS_TOKEN`` for the http hooks install-into writes)."""
    home, project = _dirs(root)
    cmd = [str(binary), "-p", prompt, "--output-format", "stream-json", "--verbose",
           "--include-hook-events"]  # fmt: skip
    if settings is None:
        cmd += ["--setting-sources", "local"]
    else:
        settings_file = root / "claude-settings.json"
        settings_file.write_text(json.dumps(settings, indent=2))
        cmd += ["--settings", str(settings_file), "--setting-sources", ""]
    if allowed_tools:
        cmd += ["--allowedTools", allowed_tools]
    with FakeModel(list(calls)) as model:
        env = base_env(home, model)
        env.update({
            "ANTHROPIC_BASE_URL": model.url,
            "ANTHROPIC_API_KEY": "sk-ant-oracle-not-a-key",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        })  # fmt: skip
        return _finish(cmd, project, {**env, **(extra or {})}, model, record)


def run_gemini(
    binary: Path,
    root: Path,
    hooks: dict[str, Any] | None,
    calls: list[ToolCall],
    *,
    prompt: str = "Run the command, please.",
    record: Path | None = None,
) -> AgentRun:
    """``gemini --yolo -p`` with ``hooks`` in ``~/.gemini/settings.json``; with ``hooks=None``
    none there (the project's ``.gemini/settings.json`` holds them: the workspace is trusted)."""
    home, project = _dirs(root)
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "hooksConfig": {"enabled": True},
        **({} if hooks is None else {"hooks": hooks}),
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
    }
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings, indent=2))
    cmd = ["node", str(binary), "--yolo", "-p", prompt, "--output-format", "json"]
    with FakeModel(list(calls)) as model:
        env = base_env(home, model)
        env.update({
            "GOOGLE_GEMINI_BASE_URL": model.url,
            "GEMINI_API_KEY": "oracle-not-a-key",
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
            "GEMINI_CLI_NO_RELAUNCH": "true",
        })  # fmt: skip
        return _finish(cmd, project, env, model, record)


def run_codex(
    binary: Path,
    root: Path,
    hooks: dict[str, Any] | None,
    calls: list[ToolCall],
    *,
    prompt: str = "Run the command, please.",
    record: Path | None = None,
) -> AgentRun:
    """``codex exec`` with a custom model provider at the fake server and ``hooks.json``; with
    ``hooks=None`` no ``hooks.json`` in ``CODEX_HOME``: the project's ``.codex/hooks.json`` holds
    them, and the project is trusted (Codex runs no hooks of an untrusted folder)."""
    home, project = _dirs(root)
    codex_home = home / ".codex"
    codex_home.mkdir(exist_ok=True)
    with FakeModel(list(calls)) as model:
        (codex_home / "config.toml").write_text(
            'model = "oracle-model"\n'
            'model_provider = "oracle"\n'
            'approval_policy = "never"\n'
            'sandbox_mode = "danger-full-access"\n'
            "[features]\nhooks = true\n"
            "[model_providers.oracle]\n"
            'name = "oracle"\n'
            f'base_url = "{model.url}/v1"\n'
            'wire_api = "responses"\n'
            'env_key = "ORACLE_API_KEY"\n'
            "supports_websockets = false\n"
            "request_max_retries = 0\nstream_max_retries = 0\n"
            + ("" if hooks is not None else f'[projects."{project}"]\ntrust_level = "trusted"\n')
        )
        if hooks is not None:
            (codex_home / "hooks.json").write_text(json.dumps({"hooks": hooks}, indent=2))
        env = base_env(home, model)
        env.update({"CODEX_HOME": str(codex_home), "ORACLE_API_KEY": "oracle-not-a-key"})
        cmd = [str(binary), "exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust",
               "--json", prompt]  # fmt: skip
        return _finish(cmd, project, env, model, record)
