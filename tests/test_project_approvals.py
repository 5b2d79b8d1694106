"""Nothing no one approved decides an approval (issue 18, item 4).

A project's ``.claude/settings.json`` (read with ``hooks_sources: [claude]``) is written by
whoever wrote the repository: every hook in it, whatever its type, runs only once approved, and
an approval of a ``prompt`` hook pins its prompt, model and base_url. On ``permission_request``
a deny beats an allow whatever the order, so an allow of priority 100 never outranks a guard.

Through ``hermes_hooks.load()`` with real files in a tmp project, a real judge server on
127.0.0.1 (tests/hook_servers.py) and the CLI."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from dialect_helpers import Agents, agents_fixture  # noqa: F401  # the fixture
from hook_servers import Server, model

import hermes_hooks
from hermes_hooks.cli import hoist_global_options, hooks_group

RM = {"tool_name": "terminal", "args": {"command": "rm -rf build"}, "session_id": "s1"}
ASKED = {"tool_name": "terminal", "args": {"command": "rm -rf build"},
         "command": "rm -rf build", "description": "recursive delete",
         "pattern_key": "rm_recursive", "session_key": "s1", "surface": "cli"}  # fmt: skip
ALLOW = '{"decision": "allow", "reason": "looks fine"}'
JUDGE = {"type": "prompt", "model": "judge-1", "timeout": 5,
         "prompt": "May the agent run this? $ARGUMENTS"}  # fmt: skip


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    with model() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
        yield server


def project_judge(agents: Agents, event: str = "PreToolUse", **entry: Any) -> Path:
    """The project's .claude/settings.json with one prompt hook (no base_url: the judge is
    whatever OPENAI_BASE_URL names)."""
    group = {"matcher": "Bash", "hooks": [{**JUDGE, **entry}]}
    return agents.write_json(agents.project / ".claude" / "settings.json",
                             {"hooks": {event: [group]}})  # fmt: skip


def load(agents: Agents, **config: Any) -> hermes_hooks.Hooks:
    agents.home.mkdir(parents=True, exist_ok=True)
    data = {"hooks_sources": ["claude"], **config}
    (agents.home / "config.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return hermes_hooks.load(agents.home, entry_points=False)


def cli(agents: Agents, *args: str) -> tuple[int, str]:
    argv = hoist_global_options(["--home", str(agents.home), *args])
    result = CliRunner().invoke(hooks_group, argv)
    return result.exit_code, result.output


def rows(agents: Agents) -> list[dict[str, Any]]:
    code, out = cli(agents, "list", "--json")
    assert code == 0, out
    return [r for r in json.loads(out) if r["source"] == "shell"]


def test_an_unapproved_project_prompt_hook_decides_nothing(agents, llm, caplog):
    llm.script = [("reply", ALLOW)] * 4
    project_judge(agents)
    project_judge_pr = agents.project / ".claude" / "settings.local.json"
    agents.write_json(project_judge_pr, {"hooks": {"PermissionRequest": [
        {"matcher": "Bash", "hooks": [{**JUDGE, "priority": 100}]}]}})  # fmt: skip
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(agents)
        decision = hooks.pre_tool_call(**RM)
        answer = hooks.permission_request(**ASKED)
    # A judge on these events is fail_closed: unapproved, it blocks with the command that
    # approves it, as an unapproved fail_closed command hook does; its allow never counts.
    assert decision.action == "block" and "hermes hooks approve" in decision.message
    assert answer is not None and answer.action == "deny"
    assert "hermes hooks approve" in (answer.message or "")
    assert llm.received == []  # not even asked: the payload stays here
    # the start-up summary, then the hook's own report at its first firing (never repeated)
    said = [r.getMessage() for r in caplog.records if "not approved" in r.getMessage()]
    own = [m for m in said if "approve it: `hermes hooks approve 'prompt judge-1" in m]
    assert len(own) == 2 and len(said) <= 3, said  # one report per hook: each event's judge
    assert any("PreToolUse" in m for m in own) and any("PermissionRequest" in m for m in own)
    assert {r["status"] for r in rows(agents)} == {"unapproved"}


def test_an_approved_project_prompt_hook_answers(agents, llm):
    llm.script = [("reply", ALLOW)]
    project_judge(agents)
    load(agents)
    code, out = cli(agents, "approve", "--all")
    assert code == 0 and "approved pre_tool_call: prompt judge-1" in out, out
    [row] = rows(agents)
    assert row["status"] == "active"
    assert load(agents).pre_tool_call(**RM).action == "allow"
    assert len(llm.received) == 1


@pytest.mark.parametrize(
    "edit",
    [
        {"prompt": "Say allow. $ARGUMENTS"},
        {"model": "judge-2"},
        {"base_url": "http://127.0.0.1:9/v1"},
    ],
    ids=["prompt", "model", "base_url"],
)
def test_an_approved_project_prompt_hook_edited_is_changed(agents, llm, edit, caplog):
    project_judge(agents)
    load(agents)
    cli(agents, "approve", "--all")
    assert rows(agents)[0]["status"] == "active"
    allowed = ["http://127.0.0.1:9/*"] if "base_url" in edit else None
    project_judge(agents, **edit)
    config = {"allowed_http_hook_urls": allowed} if allowed else {}
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(agents, **config)
        decision = hooks.pre_tool_call(**RM)
    assert decision.action == "block" and "approve it again" in decision.message
    assert llm.received == []
    if allowed:  # the list command reads the same config
        (agents.home / "config.yaml").write_text(
            yaml.safe_dump({"hooks_sources": ["claude"], "allowed_http_hook_urls": allowed})
        )
    [row] = rows(agents)
    assert row["status"] == "changed", row
    assert "approve it again" in row["error"]
    assert "hermes hooks approve" in caplog.text


def test_doctor_fails_on_an_unapproved_project_prompt_hook(agents, llm):
    project_judge(agents)
    (agents.home).mkdir(parents=True, exist_ok=True)
    (agents.home / "config.yaml").write_text(yaml.safe_dump({"hooks_sources": ["claude"]}))
    code, out = cli(agents, "doctor")
    assert code == 1, out
    assert "unapproved" in out and "hermes hooks approve" in out
    payload = agents.home / "p.json"
    payload.write_text(json.dumps({"tool_name": "terminal", "args": {"command": "rm -rf /"}}))
    code, out = cli(agents, "test", "pre_tool_call", "--payload-file", str(payload), "--json")
    doc = json.loads(out)
    assert doc["hooks"][0]["status"] == "unapproved" and not doc["hooks"][0]["ran"]
    assert doc["result"]["action"] == "block"  # fail_closed, unapproved: never its allow
    assert llm.received == []


def test_an_unapproved_project_http_hook_is_not_sent_anything(agents, llm):
    agents.write_json(agents.project / ".claude" / "settings.json", {"hooks": {"PreToolUse": [
        {"hooks": [{"type": "http", "url": llm.url + "/hook"}]}]}})  # fmt: skip
    hooks = load(agents, allowed_http_hook_urls=[llm.url + "/*"])
    assert hooks.pre_tool_call(**RM).action is None
    assert llm.received == []
    [row] = rows(agents)
    assert row["status"] == "unapproved"


def test_a_user_config_prompt_hook_needs_no_approval(agents, llm):
    llm.script = [("reply", ALLOW)]
    hooks = load(agents, hooks={"pre_tool_call": [JUDGE]})
    assert hooks.pre_tool_call(**RM).action == "allow"


# ------------------------------------------------------------- a deny beats any allow


GUARD = """\
import json, sys
json.load(sys.stdin)
print(json.dumps({"action": "deny", "message": "the guard says no"}))
"""


CRASH = "import sys\nsys.stdout.write('Traceback: not JSON')\nsys.exit(1)\n"


def _guard(agents: Agents, body: str = GUARD) -> dict[str, Any]:
    script = agents.project / "guard.py"
    script.write_text(body)
    return {"command": f"python3 {script}", "fail_closed": True, "name": "guard"}


def test_a_crashing_fail_closed_guard_beats_a_priority_100_allow(agents, llm):
    llm.script = [("reply", ALLOW)] * 2
    project_judge(agents, "PermissionRequest", priority=100)
    hooks_config = {"permission_request": [_guard(agents, CRASH)]}
    load(agents, hooks=hooks_config)
    assert cli(agents, "approve", "--all")[0] == 0
    answer = load(agents, hooks=hooks_config).permission_request(**ASKED)
    assert answer is not None and answer.action == "deny" and answer.source == "guard", answer
    assert len(llm.received) == 1  # the judge did answer allow


def test_a_guard_deny_beats_an_approved_priority_100_allow(agents, llm):
    llm.script = [("reply", ALLOW)] * 2
    project_judge(agents, "PermissionRequest", priority=100)
    hooks_config = {"permission_request": [_guard(agents)]}
    load(agents, hooks=hooks_config)
    code, out = cli(agents, "approve", "--all")
    assert code == 0, out
    hooks = load(agents, hooks=hooks_config)
    order = [r["name"] for r in rows(agents)]
    assert order[0].startswith("prompt judge-1") and order[1] == "guard"  # the judge runs first
    answer = hooks.permission_request(**ASKED)
    assert answer is not None and answer.action == "deny", answer
    assert answer.message == "the guard says no" and answer.source == "guard"
    assert len(llm.received) == 1  # the judge did answer allow


def test_a_python_plugin_allow_does_not_end_permission_request(agents):
    plugin = agents.home / "plugins" / "eager"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: eager\npriority: 100\n")
    (plugin / "__init__.py").write_text(
        "def register(ctx):\n"
        "    ctx.register_hook('permission_request', lambda **kw: {'action': 'allow'})\n"
    )
    hooks_config = {"permission_request": [_guard(agents)]}
    load(agents, hooks=hooks_config)
    assert cli(agents, "approve", "--all")[0] == 0
    answer = load(agents, hooks=hooks_config).permission_request(**ASKED)
    assert answer is not None and answer.action == "deny" and answer.source == "guard"


def test_a_person_is_asked_about_a_project_prompt_hook(agents, llm):
    from shell_helpers import shell_plugin

    llm.script = [("reply", ALLOW)]
    project_judge(agents)
    hooks = load(agents)
    questions: list[str] = []
    shell_plugin(hooks).ask = lambda text: questions.append(text) or False
    assert hooks.pre_tool_call(**RM).action == "block"  # a "no": unapproved, fail_closed
    [question] = questions
    # where the payload would really go: no base_url, so OPENAI_BASE_URL's value
    assert "project's prompt hook" in question and f"{llm.url}/v1" in question
    assert str(agents.project / ".claude" / "settings.json") in question
    assert llm.received == []
    hooks = load(agents)
    shell_plugin(hooks).ask = lambda text: True
    assert hooks.pre_tool_call(**RM).action == "allow"
    assert [r["status"] for r in rows(agents)] == ["active"]


def test_a_project_file_named_in_hooks_settings_files_is_still_the_projects(agents, llm):
    llm.script = [("reply", ALLOW)]
    project_judge(agents)
    agents.home.mkdir(parents=True, exist_ok=True)
    listed = {
        "hooks_settings_files": [
            str(agents.project / ".claude" / ".." / ".claude" / "settings.json")
        ]
    }
    (agents.home / "config.yaml").write_text(yaml.safe_dump(listed))
    hooks = hermes_hooks.load(agents.home, entry_points=False)
    assert hooks.pre_tool_call(**RM).action == "block"  # unapproved, fail_closed: never allow
    assert llm.received == []
    assert [r["status"] for r in rows(agents)] == ["unapproved"]


def test_an_unapproved_project_prompt_hook_is_reported_once_on_stderr(agents, llm):
    import subprocess
    import sys

    project_judge(agents)
    agents.home.mkdir(parents=True, exist_ok=True)
    (agents.home / "config.yaml").write_text(yaml.safe_dump({"hooks_sources": ["claude"]}))
    code = (
        "import hermes_hooks\n"
        f"h = hermes_hooks.load({str(agents.home)!r}, entry_points=False)\n"
        "for _ in range(3):\n"
        "    d = h.pre_tool_call(tool_name='terminal', args={'command': 'rm -rf x'})\n"
        "print(d.action)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "block"
    # the start-up summary, then the hook's own report at its first firing, not at each one
    said = [line for line in done.stderr.splitlines() if "not approved" in line]
    own = [line for line in said if "approve it: `hermes hooks approve 'prompt judge-1" in line]
    assert len(own) == 1 and len(said) <= 2, done.stderr
    assert llm.received == []


def test_the_question_names_openais_address_when_nothing_else_is_set(agents, monkeypatch):
    # no base_url and no OPENAI_BASE_URL: the judge would be asked at OpenAI's own address, and
    # the person approving is told so (not an unset variable's name)
    from shell_helpers import shell_plugin

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    project_judge(agents)
    hooks = load(agents)
    questions: list[str] = []
    shell_plugin(hooks).ask = lambda text: questions.append(text) or False
    hooks.pre_tool_call(**RM)
    assert [q for q in questions if "sends the payload to: https://api.openai.com/v1" in q]
