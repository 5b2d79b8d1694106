"""Helpers of the dialect tests: a user's HOME and a project directory as the other agents
find them, hook scripts written there (real files, run as real processes), and a home whose
config.yaml turns the agents' files on with ``hooks_sources``."""

from __future__ import annotations

import json
import stat
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

import hermes_hooks


@dataclass
class Agents:
    """Where the agents look: ``user`` is ``$HOME``, ``project`` the working directory."""

    user: Path
    project: Path
    home: Path  # the hermes home

    def write_json(self, path: Path, data: Any) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2))
        return path

    def script(self, path: Path, body: str) -> Path:
        """A Python hook script at ``path`` (its first line runs this interpreter). The script
        gets ``payload`` (the parsed stdin) and ``record()`` (appends it to ``path.seen``)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        head = textwrap.dedent(
            f"""\
            #!{sys.executable}
            import json, os, sys
            payload = json.loads(sys.stdin.read())
            def record():
                with open({str(path) + ".seen"!r}, "a") as out:
                    out.write(json.dumps({{"payload": payload, "env": dict(os.environ)}}) + "\\n")
            """
        )
        path.write_text(head + textwrap.dedent(body))
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return path

    def seen(self, script: Path) -> list[dict[str, Any]]:
        """What the script recorded: ``{"payload", "env"}`` per run."""
        log = Path(str(script) + ".seen")
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines()]

    def load(self, sources: list[str], **config: Any) -> Any:
        self.home.mkdir(parents=True, exist_ok=True)
        data = {"hooks_sources": sources, **config}
        (self.home / "config.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
        return hermes_hooks.load(self.home, accept_hooks=True, entry_points=False)


@pytest.fixture(name="agents")
def agents_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Agents:
    for var in ("HERMES_HOME", "HERMES_SAFE_MODE", "HERMES_ACCEPT_HOOKS", "CODEX_HOME",
                "COPILOT_HOME", "HERMES_HOOKS_DISABLED", "HERMES_HOOKS_PLUGINS"):  # fmt: skip
        monkeypatch.delenv(var, raising=False)
    user, project = tmp_path / "user", tmp_path / "project"
    user.mkdir()
    project.mkdir()
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.chdir(project)
    monkeypatch.delenv("PWD", raising=False)
    return Agents(user=user, project=project, home=tmp_path / "hermes")


def group(command: str, matcher: str | None = None, **entry: Any) -> dict[str, Any]:
    """A Gemini CLI / Codex matcher group holding one command hook (``entry``: its other keys)."""
    out: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **entry}]}
    if matcher is not None:
        out["matcher"] = matcher
    return out


def rows_of(hooks: Any) -> list[dict[str, Any]]:
    return [r for r in hooks.rows() if r.get("source") == "shell"]
