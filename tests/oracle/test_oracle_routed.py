"""The real Claude Code, Codex and Gemini CLI with hermes-hooks as their hook runner, configured
only by `hermes hooks install-into AGENT --project P --yes` (run as a process, with ``HOME``
the agent run's own fake home), against one real home:

- a `config.yaml` shell guard that refuses commands mentioning ``ORC-SHELL``;
- `command_guard: true`, on ``true || rm -rf ~`` (rule `filesystem.rm-home`, which blocks; the
  `rm` would not run even if no guard stopped the line, since `true` succeeds and ``HOME`` is
  the run's fake home: the guard judges the whole line as written);
- a Python plugin in `<home>/plugins/` that refuses ``ORC-PLUG``, rewrites the command of a call
  mentioning ``ORC-REWRITE`` (``original`` becomes ``rewritten``) and adds a context line to a
  prompt mentioning ``ORC-CTX``;
- `plugins.required` naming a guard that is missing: the guard is configured (a Claude Code
  settings file of the home, `hooks_settings_files`, with `if: Bash(*ORC-REQ*)`) but its script
  does not exist. A required guard that is configured nowhere blocks every guarded event (every
  tool call: docs/host-api.md), which would hide the rewrite here; the `if` rule scopes it to
  the marked call. (`if` is read in Claude Code settings files only, not in config.yaml.)

Each agent gets one start per scenario, with every scripted call in it:

a) `hermes hooks serve` running: each guard blocks its call and its message reaches the model
   (the fake model's recorded requests), the rewrite takes effect where the agent takes one, a
   context line from `UserPromptSubmit` / `BeforeAgent` reaches the model;
b) the service stopped: the same, through the client's in-process fallback;
c) the service down and the home unloadable (a plugin raising KeyboardInterrupt at import):
   the first decision event of the run (the prompt) blocks, so nothing runs.

Cursor and Copilot have no offline CLI here: their documented payloads go through
`hermes hooks client cursor|copilot EVENT` in each scenario, and the replies have the form
their docs define. The three agents of a scenario run side by side.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from oracle_agents import AgentRun, run_claude, run_codex, run_gemini
from oracle_install import Installed
from oracle_servers import ToolCall
from serve_helpers import HERMES, serving

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SHELL_MSG = "ORC-SHELL-GUARD refused this command"
PLUGIN_MSG = "ORC-PLUGIN-POLICY refused this command"
CONTEXT = "ORC-CONTEXT-LINE from the policy plugin"
SESSION_CONTEXT = "ORC-SESSION-CONTEXT from the policy plugin"
PROMPT = "Run the commands, please. ORC-CTX"

PLUGIN = f"""
def register(ctx):
    def pre(tool_name=None, args=None, **kw):
        command = str((args or {{}}).get("command", ""))
        if "ORC-PLUG" in command:
            return {{"action": "block", "message": {PLUGIN_MSG!r}}}
        if "ORC-REWRITE" in command:
            rewritten = {{**args, "command": command.replace("original", "rewritten")}}
            return {{"action": "modify", "args": rewritten}}
        return None

    def prompt(user_message=None, **kw):
        if "ORC-CTX" in (user_message or ""):
            return {{"context": {CONTEXT!r}}}
        return None

    def start(**kw):
        return {SESSION_CONTEXT!r}

    ctx.register_hook("pre_tool_call", pre)
    ctx.register_hook("user_prompt_submit", prompt)
    ctx.register_hook("on_session_start", start)
"""

GUARD = f"""#!/bin/sh
if grep -q ORC-SHELL; then echo "{SHELL_MSG}" >&2; exit 2; fi
exit 0
"""

BROKEN = "raise KeyboardInterrupt('ORC-BROKEN: this plugin will not load')\n"


def make_home(home: Path) -> Path:
    (home / "hooks").mkdir(parents=True)
    guard = home / "hooks" / "shell-guard.sh"
    guard.write_text(GUARD)
    guard.chmod(0o755)
    plugin = home / "plugins" / "orc_policy"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: orc_policy\n")
    (plugin / "__init__.py").write_text(PLUGIN)
    missing = str(home / "guards" / "missing-guard.sh")  # never written
    (home / "guards").mkdir()
    rule = {"type": "command", "command": missing, "if": "Bash(*ORC-REQ*)"}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [rule]}]}}
    (home / "guards" / "settings.json").write_text(json.dumps(settings))
    config = {
        "hooks": {"pre_tool_call": [{"command": str(guard), "name": "orc-shell-guard",
                                     "protocol": "claude-code"}]},
        "hooks_settings_files": [str(home / "guards" / "settings.json")],
        "hooks_auto_accept": True,  # the service and the client run headless: no one to ask
        "command_guard": True,
        "plugins": {"required": [missing]},
    }  # fmt: skip
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    return home


@dataclass
class Agent:
    name: str
    root: Path  # root/home is the run's HOME, root/project its working directory
    shell_tool: str
    arg: str
    rewrites: bool  # takes a rewritten tool input (docs/agents.md); else the call is blocked

    @property
    def project(self) -> Path:
        return self.root / "project"

    def call(self, command: str) -> ToolCall:
        extra = {"description": "oracle"} if self.name == "claude" else {}
        return ToolCall(self.shell_tool, {self.arg: command, **extra})


AGENTS = {
    "claude": ("Bash", "command", True),
    "codex": ("exec_command", "cmd", False),
    "gemini": ("run_shell_command", "command", True),
}


def install_into(hermes_home: Path, agent: Agent) -> None:
    """`hermes hooks install-into AGENT --project P --yes`, as a person runs it."""
    (agent.root / "home").mkdir(parents=True)
    agent.project.mkdir()
    env = {**os.environ, "HOME": str(agent.root / "home")}
    env.pop("HERMES_HOME", None)
    done = subprocess.run(
        [HERMES, "hooks", "--home", str(hermes_home), "install-into", agent.name,
         "--project", str(agent.project), "--yes"],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


@dataclass
class World:
    hermes_home: Path
    agents: dict[str, Agent]
    out: Path  # where the scripted commands leave their marks


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("routed")
    home = make_home(root / "hermes")
    agents = {}
    for name, (tool, arg, rewrites) in AGENTS.items():
        agents[name] = Agent(name, root / name, tool, arg, rewrites)
        install_into(home, agents[name])
    yield World(home, agents, root / "marks")


def marks(world: World, scenario: str, agent: str) -> Path:
    where = world.out / scenario / agent
    where.mkdir(parents=True)
    return where


def script(agent: Agent, where: Path) -> list[ToolCall]:
    """One call per guard, then the rewrite, then a plain call that runs."""
    return [
        agent.call(f"touch {where}/shell # ORC-SHELL"),
        agent.call("true || rm -rf ~"),
        agent.call(f"touch {where}/plugin # ORC-PLUG"),
        agent.call(f"touch {where}/required # ORC-REQ"),
        agent.call(f"touch {where}/original # ORC-REWRITE"),
        agent.call(f"touch {where}/plain"),
    ]


def start(agent: Agent, binary: Path, calls: list[ToolCall]) -> AgentRun:
    if agent.name == "claude":
        return run_claude(binary, agent.root, None, calls, prompt=PROMPT)
    if agent.name == "codex":
        return run_codex(binary, agent.root, None, calls, prompt=PROMPT)
    return run_gemini(binary, agent.root, None, calls, prompt=PROMPT)


def run_all(
    world: World, binaries: dict[str, Path], scenario: str
) -> dict[str, tuple[AgentRun, Path]]:
    """Every agent's start of ``scenario``, side by side."""

    def one(name: str) -> tuple[AgentRun, Path]:
        where = marks(world, scenario, name)
        agent = world.agents[name]
        return start(agent, binaries[name], script(agent, where)), where

    with ThreadPoolExecutor(len(world.agents)) as pool:
        futures = {name: pool.submit(one, name) for name in world.agents}
        return {name: f.result() for name, f in futures.items()}


def model_saw(run: AgentRun) -> str:
    return json.dumps([r.body for r in run.requests if not r.refused])


def check_decisions(name: str, agent: Agent, run: AgentRun, where: Path) -> None:
    seen = model_saw(run)
    why = f"{name}: {run.stdout[-2000:]}\n{run.stderr[-2000:]}"
    assert (where / "plain").exists(), f"the plain call did not run: {why}"
    for mark in ("shell", "plugin", "required"):
        assert not (where / mark).exists(), f"{name} ran the {mark}-guarded call"
    assert SHELL_MSG in seen, why
    assert "filesystem.rm-home" in seen, why
    assert PLUGIN_MSG in seen, why
    assert "required guard" in seen and "missing-guard.sh" in seen, why
    assert CONTEXT in seen, why
    assert not (where / "original").exists()
    if agent.rewrites:
        assert (where / "rewritten").exists(), f"{name} did not run the rewritten call: {why}"
    else:  # Codex takes no rewrite: the call is blocked, naming the rewrite (docs/agents.md)
        assert not (where / "rewritten").exists()
        assert "rewrote this call" in seen, why


@pytest.fixture(scope="module")
def binaries(claude_cli: Installed, codex_cli: Installed, gemini_cli: Installed) -> dict[str, Path]:
    return {"claude": claude_cli.binary, "codex": codex_cli.binary, "gemini": gemini_cli.binary}


def test_a_the_service_decides_for_every_agent(world: World, binaries: dict[str, Path]) -> None:
    with serving(world.hermes_home):
        runs = run_all(world, binaries, "a")
    for name, (run, where) in runs.items():
        check_decisions(name, world.agents[name], run, where)


def test_b_with_the_service_stopped_the_client_decides_the_same_in_process(
    world: World, binaries: dict[str, Path]
) -> None:
    # `serving` ended in test a: the URL file still names its port, where nothing listens now
    assert (world.hermes_home / "serve" / "url").exists()
    runs = run_all(world, binaries, "b")
    for name, (run, where) in runs.items():
        check_decisions(name, world.agents[name], run, where)


@pytest.fixture
def unloadable(world: World) -> Iterator[None]:
    """The home with a plugin that raises KeyboardInterrupt at import: `load()` fails."""
    broken = world.hermes_home / "plugins" / "zz_broken"
    broken.mkdir()
    (broken / "plugin.yaml").write_text("name: zz_broken\n")
    (broken / "__init__.py").write_text(BROKEN)
    yield
    shutil.rmtree(broken)


def test_c_with_neither_the_prompt_blocks_and_nothing_runs(
    world: World, binaries: dict[str, Path], unloadable: None
) -> None:
    runs = run_all(world, binaries, "c")
    for name, (run, where) in runs.items():
        why = f"{name}: {run.stdout[-3000:]}\n{run.stderr[-3000:]}"
        assert list(where.iterdir()) == [], why
        tool_turns = [r for r in run.requests if isinstance(r.body, dict) and r.body.get("tools")]
        assert tool_turns == [], f"{name} asked the model with the prompt: {why}"
        if name != "codex":  # Codex shows no hook's reason in `codex exec --json`
            assert "fail closed" in run.stdout + run.stderr, why
