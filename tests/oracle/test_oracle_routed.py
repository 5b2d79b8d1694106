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
  the marked call (`if` is read in Claude Code settings files only, not in config.yaml), and
  scenario d shows the guard configured nowhere in a home of its own.

Claude Code is installed twice: as by default (``claude``: its http hook type, no fallback) and
with ``--via client`` (``claude-client``: the client's in-process fallback). Each agent gets one
start per scenario, with every scripted call in it:

a) `hermes hooks serve` running (Claude Code with `$HERMES_HOOKS_TOKEN` set): each guard blocks
   its call and its message reaches the model (the fake model's recorded requests), the rewrite
   takes effect where the agent takes one, a context line from `UserPromptSubmit` /
   `BeforeAgent` reaches the model; Claude Code's SessionStart check says nothing;
b) the service stopped: the same, through the client's in-process fallback (Codex, Gemini CLI,
   ``claude-client``); ``claude`` instead blocks its first decision event (the prompt: nothing
   runs, the model is never asked, the block is in its output) after its SessionStart hook said
   the service does not answer, the fix, and that decision events are blocked until then;
c) the service down and the home unloadable (a plugin raising KeyboardInterrupt at import):
   the first decision event of the run (the prompt) blocks, so nothing runs;
d) a home whose config.yaml holds only `plugins: {required: [nowhere-guard]}`, a guard
   configured nowhere, the service running: each agent's first harmless tool call is blocked and
   the block names the guard and the fix (a home of its own: here every tool call blocks).

Cursor and Copilot have no offline CLI here: their documented payloads go through
`hermes hooks client cursor|copilot EVENT` in each scenario, and the replies have the form
their docs define. The three agents of a scenario run side by side, the drives meanwhile.

What each agent needs besides the file install-into wrote (oracle_agents.py): Claude Code reads
only `.claude/settings.local.json` (`--setting-sources local`); Gemini CLI reads the project's
`.gemini/settings.json` in a trusted workspace; Codex runs hooks only with `[features]` `hooks =
true` in its `config.toml` (install-into warns and does not edit TOML: docs/agents.md) and reads
a project's `.codex/hooks.json` only when that project is trusted (`[projects."P"] trust_level`).
Where an agent cannot take an answer, the test asserts what docs/agents.md says instead: Codex
takes no rewrite (the call is blocked, naming it); Copilot reads nothing of
`userPromptSubmitted` (reported, `{}`); Cursor takes a rewrite on `preToolUse` only; Codex
shows no hook's reason in `codex exec --json` when the prompt is blocked.

Measured on the 2-core CI machine (shared with other runs): about 65 s for the module (a: 11 s,
b: 31 s, the in-process fallback loading the home once per hook event, c: 9 s, d: 5 s and 1 s
of set-up, the first set-up with the agents cached: 8 s).
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
from typing import Any

import pytest
import yaml
from oracle_agents import AgentRun, hook_responses, run_claude, run_codex, run_gemini
from oracle_install import Installed
from oracle_servers import ToolCall
from serve_helpers import HERMES, free_port, serving

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SHELL_MSG = "ORC-SHELL-GUARD refused this command"
PLUGIN_MSG = "ORC-PLUGIN-POLICY refused this command"
CONTEXT = "ORC-CONTEXT-LINE from the policy plugin"
SESSION_CONTEXT = "ORC-SESSION-CONTEXT from the policy plugin"
PROMPT = "Run the commands, please. ORC-CTX"

#: The plugin's block names the process that decided: the service is started with
#: ``ORC_DECIDER=service``; a client running the hooks in-process has no such variable.
PLUGIN = f"""
import os

def register(ctx):
    def pre(tool_name=None, args=None, **kw):
        command = str((args or {{}}).get("command", ""))
        if "ORC-PLUG" in command:
            where = os.environ.get("ORC_DECIDER", "in-process")
            return {{"action": "block", "message": {PLUGIN_MSG!r} + f" (decided {{where}})"}}
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
    cli: str  # which agent runs: claude, codex, gemini
    via: tuple[str, ...] = ()  # install-into's --via

    @property
    def project(self) -> Path:
        return self.root / "project"

    def call(self, command: str) -> ToolCall:
        extra = {"description": "oracle"} if self.cli == "claude" else {}
        return ToolCall(self.shell_tool, {self.arg: command, **extra})


#: name: (agent, its shell tool, the command's argument, takes a rewrite, install-into's --via).
#: ``claude`` is installed as by default (its http hook type: no fallback, a stopped service
#: blocks), ``claude-client`` with ``--via client`` (the in-process fallback).
AGENTS = {
    "claude": ("claude", "Bash", "command", True, ()),
    "claude-client": ("claude", "Bash", "command", True, ("--via", "client")),
    "codex": ("codex", "exec_command", "cmd", False, ()),
    "gemini": ("gemini", "run_shell_command", "command", True, ()),
}


def install_into(hermes_home: Path, agent: Agent) -> None:
    """`hermes hooks install-into AGENT --project P --yes`, as a person runs it."""
    (agent.root / "home").mkdir(parents=True)
    agent.project.mkdir()
    env = {**os.environ, "HOME": str(agent.root / "home")}
    env.pop("HERMES_HOME", None)
    done = subprocess.run(
        [HERMES, "hooks", "--home", str(hermes_home), "install-into", agent.cli, *agent.via,
         "--project", str(agent.project), "--yes"],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


@dataclass
class World:
    hermes_home: Path
    agents: dict[str, Agent]
    out: Path  # where the scripted commands leave their marks

    @property
    def port(self) -> str:
        """The service's port: Claude Code's http hooks name the URL install-into found."""
        url = (self.hermes_home / "serve" / "url").read_text().strip()
        return url.rsplit(":", 1)[1]


def fix_port(home: Path) -> None:
    """``<home>/serve/url`` at a free port before install-into runs (it writes the URL into
    Claude Code's http hooks); the service is then started on that port."""
    (home / "serve").mkdir(mode=0o700, parents=True)
    (home / "serve" / "url").write_text(f"http://127.0.0.1:{free_port()}\n")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("routed")
    home = make_home(root / "hermes")
    fix_port(home)
    agents = {}
    for name, (cli, tool, arg, rewrites, via) in AGENTS.items():
        agents[name] = Agent(name, root / name, tool, arg, rewrites, cli, via)
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


def start(agent: Agent, binary: Path, calls: list[ToolCall], home: Path) -> AgentRun:
    if agent.cli == "claude":  # its http hooks send the token from its environment
        token = home / "serve" / "token"
        extra = {"HERMES_HOOKS_TOKEN": token.read_text().strip()} if token.exists() else {}
        return run_claude(binary, agent.root, None, calls, prompt=PROMPT, extra=extra)
    if agent.cli == "codex":
        return run_codex(binary, agent.root, None, calls, prompt=PROMPT)
    return run_gemini(binary, agent.root, None, calls, prompt=PROMPT)


# ---------------------------------------------------------------- Cursor and Copilot (no CLI)

#: Cursor's fields on every hook's stdin, as its hooks documentation gives them.
CURSOR = {"conversation_id": "orc-cursor", "generation_id": "orc-gen", "model": "orc-model",
          "workspace_roots": ["/work/project"], "transcript_path": None}  # fmt: skip
#: Copilot's fields on every hook's stdin (its hooks reference: a time in ms and the cwd).
COPILOT = {"timestamp": 1704614600000, "cwd": "/work/project"}


def _cursor_shell(command: str) -> tuple[str, str, dict[str, Any]]:
    body = {"hook_event_name": "beforeShellExecution", "command": command,
            "cwd": "/work/project", "sandbox": False}  # fmt: skip
    return "cursor", "beforeShellExecution", {**CURSOR, **body}


def _copilot_tool(command: str) -> tuple[str, str, dict[str, Any]]:
    return "copilot", "preToolUse", {**COPILOT, "toolName": "bash",
                                     "toolArgs": json.dumps({"command": command})}  # fmt: skip


GUARDED = {  # the command of each guard's call, and what its block must say
    "shell": ("touch /nonexistent/shell # ORC-SHELL", SHELL_MSG),
    "command_guard": ("true || rm -rf ~", "filesystem.rm-home"),
    "plugin": ("touch /nonexistent/plugin # ORC-PLUG", PLUGIN_MSG),
    "required": ("touch /nonexistent/required # ORC-REQ", "missing-guard.sh"),
    "rewrite": ("touch /nonexistent/original # ORC-REWRITE", "rewrote this call"),
}


def drives() -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for command, _ in GUARDED.values():
        out += [_cursor_shell(command), _copilot_tool(command)]
    rewrite = {**CURSOR, "hook_event_name": "preToolUse", "tool_name": "Shell",
               "tool_input": {"command": GUARDED["rewrite"][0]}, "tool_use_id": "orc-1",
               "cwd": "/work/project"}  # fmt: skip
    start = {**CURSOR, "hook_event_name": "sessionStart", "session_id": "orc-cursor",
             "is_background_agent": False}  # fmt: skip
    prompt = {**COPILOT, "prompt": "Run the commands, please. ORC-CTX"}
    return [*out, ("cursor", "preToolUse", rewrite), ("cursor", "sessionStart", start),
            ("copilot", "userPromptSubmitted", prompt)]  # fmt: skip


def drive(home: Path, agent: str, event: str, body: dict[str, Any]) -> Drive:
    done = subprocess.run([HERMES, "hooks", "client", agent, event, "--home", str(home)],
                          input=json.dumps(body), capture_output=True, text=True, timeout=120)  # fmt: skip
    try:
        reply = json.loads(done.stdout)
    except ValueError:
        reply = None
    return Drive(agent, event, body, done.returncode, reply, done.stderr)


@dataclass
class Drive:
    agent: str
    event: str
    body: dict[str, Any]
    code: int
    reply: Any
    stderr: str

    def command(self) -> str:
        if self.agent == "cursor":
            return str(
                self.body.get("command") or (self.body.get("tool_input") or {}).get("command", "")
            )
        return str(json.loads(self.body.get("toolArgs") or "{}").get("command", ""))


def check_drives(found: list[Drive], in_process: bool) -> None:
    """Each reply in the form the agent's docs define, with the home's decision."""
    decider = "in-process" if in_process else "service"
    plugin = [d for d in found if GUARDED["plugin"][0] == d.command()]
    assert len(plugin) == 2 and all(f"(decided {decider})" in json.dumps(d.reply) for d in plugin)
    for d in found:
        why = f"{d.agent} {d.event} {d.body}: exit {d.code}, {d.reply!r}, {d.stderr[-1500:]}"
        assert d.code == 0, why
        said = next((text for command, text in GUARDED.values() if command == d.command()), None)
        if d.agent == "cursor" and d.event == "beforeShellExecution":
            # Cursor: {"permission": "deny", "user_message", "agent_message"}; it cannot take a
            # rewrite here, so the rewrite is a deny naming it (docs/agents.md)
            assert d.reply["permission"] == "deny" and said in d.reply["agent_message"], why
            assert said in d.reply["user_message"], why
        elif d.agent == "copilot" and d.event == "preToolUse":
            # Copilot reads only {"permissionDecision": "deny", "permissionDecisionReason"}
            assert d.reply["permissionDecision"] == "deny", why
            assert said in d.reply["permissionDecisionReason"], why
        elif d.event == "preToolUse":  # Cursor's preToolUse takes a rewrite: updated_input
            assert d.reply == {"updated_input": {"command": d.command().replace("original",
                                                                               "rewritten")}}, why  # fmt: skip
        elif d.event == "sessionStart":  # Cursor reads additional_context there
            assert d.reply == {"additional_context": SESSION_CONTEXT}, why
        else:  # Copilot reads nothing of userPromptSubmitted: reported, not delivered
            assert d.reply == {}, why
            if in_process:  # else it is in the service's log
                assert "userPromptSubmitted reads no answer from a hook: context" in d.stderr, why


def check_drives_blocked(found: list[Drive]) -> None:
    """With neither service nor home: decision events get the block form, others exit 1."""
    for d in found:
        why = f"{d.agent} {d.event}: exit {d.code}, {d.reply!r}, {d.stderr[-1500:]}"
        assert "fail closed" in d.stderr or d.code == 1, why
        if d.agent == "cursor" and d.event in ("beforeShellExecution", "preToolUse"):
            assert d.code == 2 and d.reply["permission"] == "deny", why
        elif d.agent == "copilot" and d.event == "preToolUse":
            assert d.code == 0 and d.reply["permissionDecision"] == "deny", why  # it reads JSON
        elif d.agent == "copilot":  # its prompt cannot be blocked: said so, not delivered
            assert d.code == 0 and d.reply == {}, why
            assert "userPromptSubmitted reads no answer from a hook: a block" in d.stderr, why
        else:  # Cursor's sessionStart decides nothing: no block, exit 1 with the reason
            assert d.code == 1 and d.reply == {}, why


def run_all(
    world: World,
    binaries: dict[str, Path],
    scenario: str,
    names: list[str],
    calls: Any = script,
    drive_too: bool = True,
) -> tuple[dict[str, tuple[AgentRun, Path]], list[Drive]]:
    """The start of ``scenario`` of each agent in ``names``, side by side, and the Cursor and
    Copilot drives."""

    def one(name: str) -> tuple[AgentRun, Path]:
        where = marks(world, scenario, name)
        agent = world.agents[name]
        return start(agent, binaries[agent.cli], calls(agent, where), world.hermes_home), where

    with ThreadPoolExecutor(len(names)) as pool:
        futures = {name: pool.submit(one, name) for name in names}
        found = [drive(world.hermes_home, *d) for d in drives()] if drive_too else []
        return {name: f.result() for name, f in futures.items()}, found


def model_saw(run: AgentRun) -> str:
    return json.dumps([r.body for r in run.requests if not r.refused])


def check_decisions(name: str, agent: Agent, run: AgentRun, where: Path, decider: str) -> None:
    seen = model_saw(run)
    why = f"{name}: {run.stdout[-2000:]}\n{run.stderr[-2000:]}"
    assert (where / "plain").exists(), f"the plain call did not run: {why}"
    for mark in ("shell", "plugin", "required"):
        assert not (where / mark).exists(), f"{name} ran the {mark}-guarded call"
    assert SHELL_MSG in seen, why
    assert "filesystem.rm-home" in seen, why
    assert f"{PLUGIN_MSG} (decided {decider})" in seen, why
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
    with serving(world.hermes_home, "--port", world.port, env={"ORC_DECIDER": "service"}):
        runs, found = run_all(world, binaries, "a", ["claude", "codex", "gemini"])
    check_drives(found, in_process=False)
    for name, (run, where) in runs.items():
        check_decisions(name, world.agents[name], run, where, "service")
        if name == "claude":  # the service answers and takes the token: nothing to warn of
            said = hook_responses(run.stdout, "SessionStart")
            assert len(said) == 1 and said[0]["outcome"] == "success", run.stdout[-3000:]
            assert "systemMessage" not in json.loads(said[0]["stdout"]), said
            assert WARNING not in run.stdout + run.stderr


#: What the SessionStart hook of an http install says when the service or the token is wrong.
WARNING = "hermes-hooks: Claude Code's hooks reach the hermes-hooks service over http"


def check_blocked_without_service(name: str, run: AgentRun, where: Path, home: Path) -> None:
    """Claude Code installed as by default (http), the service stopped: its SessionStart hook
    said so and the fix, and the first decision event (the prompt) was blocked, so nothing ran
    and the model was never asked."""
    output = run.stdout + run.stderr
    why = f"{name}: {output[-3000:]}"
    assert list(where.iterdir()) == [], why
    tool_turns = [r for r in run.requests if isinstance(r.body, dict) and r.body.get("tools")]
    assert tool_turns == [], f"{name} asked the model with the prompt: {why}"
    # the block, as Claude Code shows it
    assert "UserPromptSubmit operation blocked by hook" in run.stdout, why
    assert 'blocking because onFailure is \\"block\\"' in run.stdout, why
    assert "ECONNREFUSED" in run.stdout, why
    # the SessionStart hook's warning: its systemMessage (what Claude Code shows the person;
    # in a `-p` stream, the hook_response's stdout) and its stderr
    said = hook_responses(run.stdout, "SessionStart")
    assert len(said) == 1 and said[0]["outcome"] == "success", why
    message = json.loads(said[0]["stdout"])["systemMessage"]
    assert message.startswith(WARNING) and "does not answer" in message, message
    assert f"hermes hooks serve --home {home}" in message, message
    assert "Until then Claude Code blocks every decision event" in message, message
    assert message in said[0]["stderr"], said


def test_b_with_the_service_stopped_the_client_decides_the_same_in_process(
    world: World, binaries: dict[str, Path]
) -> None:
    """Codex, Gemini CLI and Claude Code installed with ``--via client`` fall back to the
    hooks in-process with the service's decisions; Claude Code installed as by default (its http
    hook type, which has no fallback) blocks its decision events instead, and says why."""
    # `serving` ended in test a: the URL file still names its port, where nothing listens now
    assert (world.hermes_home / "serve" / "url").exists()
    runs, found = run_all(world, binaries, "b", list(world.agents))
    check_drives(found, in_process=True)
    for name, (run, where) in runs.items():
        if name == "claude":
            check_blocked_without_service(name, run, where, world.hermes_home)
        else:
            check_decisions(name, world.agents[name], run, where, "in-process")


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
    runs, found = run_all(world, binaries, "c", list(world.agents))
    check_drives_blocked(found)
    for name, (run, where) in runs.items():
        why = f"{name}: {run.stdout[-3000:]}\n{run.stderr[-3000:]}"
        assert list(where.iterdir()) == [], why
        tool_turns = [r for r in run.requests if isinstance(r.body, dict) and r.body.get("tools")]
        assert tool_turns == [], f"{name} asked the model with the prompt: {why}"
        if name == "claude":  # its http hook: the prompt blocked because no service answers
            assert "UserPromptSubmit operation blocked by hook" in run.stdout, why
            assert "ECONNREFUSED" in run.stdout, why
        elif name != "codex":  # Codex shows no hook's reason in `codex exec --json`
            assert "fail closed" in run.stdout + run.stderr, why


# ---------------------------------------------------------------- a required guard named nowhere

NOWHERE = "nowhere-guard"


@pytest.fixture(scope="module")
def nowhere(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """A home whose config.yaml holds only ``plugins: {required: [nowhere-guard]}`` (a guard
    configured nowhere), each agent installed into it as by default."""
    root = tmp_path_factory.mktemp("nowhere")
    home = root / "hermes"
    home.mkdir()
    (home / "config.yaml").write_text(yaml.safe_dump({"plugins": {"required": [NOWHERE]}}))
    fix_port(home)
    agents = {}
    for name in ("claude", "codex", "gemini"):
        cli, tool, arg, rewrites, via = AGENTS[name]
        agents[name] = Agent(name, root / name, tool, arg, rewrites, cli, via)
        install_into(home, agents[name])
    yield World(home, agents, root / "marks")


def test_d_a_required_guard_configured_nowhere_blocks_the_first_tool_call(
    nowhere: World, binaries: dict[str, Path]
) -> None:
    """The service running: each agent's first harmless tool call is blocked, and the block
    names the guard and the fix (the model's recorded request: what the agent gives it)."""

    def harmless(agent: Agent, where: Path) -> list[ToolCall]:
        return [agent.call(f"touch {where}/harmless")]

    with serving(nowhere.hermes_home, "--port", nowhere.port):
        runs, _ = run_all(nowhere, binaries, "d", list(nowhere.agents), harmless, False)
    for name, (run, where) in runs.items():
        seen = model_saw(run)
        why = f"{name}: {run.stdout[-2000:]}\n{run.stderr[-2000:]}"
        assert not (where / "harmless").exists(), f"{name} ran the call: {why}"
        assert f"required guard '{NOWHERE}' is not running" in seen, why
        assert "remove it from plugins.required" in seen, why
