"""The Gemini CLI and Codex side of the comparison (oracle_compare.py holds the shared outcome and
the hermes-hooks host).

- :func:`dialect_kwargs`: our event and keyword arguments for a payload the real agent sent, read
  back through the agent's event as declared on our hookspecs (``dialects=``): each payload field
  is given to the host argument the field reads (found by asking the field), the tool's name and
  arguments renamed back to the host's (:class:`hermes_hooks.builtin_plugins.shell_hooks.dialects.Dialect`).
- :func:`agent_outcome`: what the real run did, from the requests the fake model got (Gemini's
  ``contents``/``systemInstruction``, Codex's ``input``/``instructions``) and the side-effect files.
- :func:`hermes_for`: hermes-hooks loaded with the case's own hook file through ``hooks_sources``,
  found where that agent keeps it under a user HOME of its own.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from hermes_hooks.builtin_plugins.shell_hooks import dialects
from oracle_compare import Names, Outcome, scan, tokens

import hermes_hooks
from hermes_hooks import catalogue

_PROBE = object()


@dataclass(frozen=True)
class Agent:
    """One agent the dialect corpora run: its dialect, its events for the host's roles, where
    the model's requests go and where its hook file lives (relative to HOME)."""

    name: str  # as in the summary line
    dialect: str  # hermes-hooks' dialect name (hooks_sources)
    names: Names
    request_path: str
    hook_file: str

    def wrap(self, hooks: dict[str, Any]) -> dict[str, Any]:
        if self.dialect == "gemini":
            return {"hooksConfig": {"enabled": True}, "hooks": hooks}
        return {"hooks": hooks}


GEMINI = Agent(
    "gemini-cli",
    "gemini",
    Names(
        start="SessionStart",
        prompt="BeforeAgent",
        pre="BeforeTool",
        permission=None,
        post="AfterTool",
        failure=None,
        stop="AfterAgent",
        post_where="tool_result",
        batch=None,
    ),  # fmt: skip
    ":streamGenerateContent",
    ".gemini/settings.json",
)
CODEX = Agent(
    "codex",
    "codex",
    Names(
        start="SessionStart",
        prompt="UserPromptSubmit",
        pre="PreToolUse",
        permission=None,
        post="PostToolUse",
        failure=None,
        stop="Stop",
        post_where="tool_result",
        batch=None,
    ),  # fmt: skip
    "/responses",
    ".codex/hooks.json",
)


def _reads(read: Any, arg: str) -> bool:
    try:
        return bool(read({arg: _PROBE}) is _PROBE)
    except Exception:
        return False


def dialect_kwargs(dialect: str, payload: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """Our event and keyword arguments for ``payload``, which ``dialect``'s agent sent."""
    found = dialects.lookup(dialect, str(payload.get("hook_event_name")),
                            catalogue.events().values())  # fmt: skip
    assert found is not None, f"{dialect}: no event of ours for {payload.get('hook_event_name')}"
    info, chosen = found
    d = dialects.get(dialect)
    assert d is not None
    out: dict[str, Any] = {}
    for key in ("session_id", "transcript_path"):
        if payload.get(key) and key in info.args:
            out[key] = payload[key]
    if chosen.tool:
        name_key, args_key = d.tool_keys
        agent_tool = payload.get(name_key)
        host = next((h for h, (a, _) in d.tools.items() if a == agent_tool), agent_tool)
        out["tool_name"] = host
        out["args"] = d.args_back(host, payload.get(args_key) or {})
    for key, read in chosen.fields.items():
        if key not in payload:
            continue
        arg = next((a for a in info.args if _reads(read, a)), None)
        if arg is not None:
            out[arg] = payload[key]
        elif key == "tool_response" and "result" in info.args:
            value = payload[key]
            if isinstance(value, Mapping) and "llmContent" in value:  # Gemini's
                value = value["llmContent"]
            out["result"] = value if isinstance(value, str) else json.dumps(value)
    return info.name, {k: v for k, v in out.items() if k in info.args}


def hermes_for(agent: Agent, case_dir: Path, hooks: dict[str, Any]) -> Any:
    """hermes-hooks loaded with ``hooks`` written where ``agent`` keeps them, under
    ``case_dir/hermes-user`` (the real run's HOME also holds the recording hooks); the caller
    has pointed ``HOME`` there and unset ``CODEX_HOME``."""
    user = case_dir / "hermes-user"
    path = user / agent.hook_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(agent.wrap(hooks), indent=2))
    home = case_dir / "hermes-home"
    home.mkdir(exist_ok=True)
    (home / "config.yaml").write_text(yaml.safe_dump({"hooks_sources": [agent.dialect]}))
    assert Path(os.path.expanduser("~")) == user, "point HOME at case_dir/hermes-user first"
    return hermes_hooks.load(home, accept_hooks=True, entry_points=False)


# ---------------------------------------------------------------------- the real agent


def _part(obj: Mapping[str, Any]) -> str | None:
    """A Gemini or OpenAI Responses request part: a tool's ``result``, the model's ``call``."""
    if "functionResponse" in obj or obj.get("type") == "function_call_output":
        return "result"
    if "functionCall" in obj or obj.get("type") == "function_call":
        return "call"
    return None


def main_bodies(agent: Agent, requests: list[Any]) -> list[dict[str, Any]]:
    """The agent's main-loop requests to the model (those offering tools)."""
    return [
        r.body
        for r in requests
        if agent.request_path in r.path and isinstance(r.body, dict) and r.body.get("tools")
    ]


def agent_outcome(
    agent: Agent,
    requests: list[Any],
    output: str,
    payloads_seen: list[dict[str, Any]],
    case_dir: Path,
    literals: tuple[str, ...],
) -> Outcome:
    """What the real Gemini CLI or Codex run did."""
    bodies = main_bodies(agent, requests)
    seen: set[tuple[str, str]] = set()
    for body in bodies:
        for key in ("contents", "systemInstruction", "input", "instructions"):
            scan(body.get(key), "context", literals, seen, _part)
    prompt_blocked = not bodies
    if prompt_blocked:
        seen.update(("prompt_result", t) for t in tokens(output, literals))
    ran = (case_dir / "ran").exists() or (case_dir / "ran2").exists()
    pre = next((p for p in payloads_seen if p.get("hook_event_name") == agent.names.pre), None)
    post = next((p for p in payloads_seen if p.get("hook_event_name") == agent.names.post), None)
    args = None
    if (
        ran
        and pre is not None
        and post is not None
        and post.get("tool_input") != pre.get("tool_input")
    ):
        args = dialect_kwargs(agent.dialect, post)[1].get("args")
    return Outcome.after(
        bodies, ran=ran, args=args, prompt_blocked=prompt_blocked, seen=frozenset(seen)
    )
