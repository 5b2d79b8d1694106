"""``hermes hooks serve`` and ``hermes hooks client`` (docs/agents.md): each agent's payload,
as that agent sends it to a command hook, posted to a real service on 127.0.0.1; the reply is
what the agent reads. Every decision is checked twice: against the same home fired in-process,
and by feeding the reply back to hermes-hooks as the answer of a real command hook of that
agent's dialect (the readers of docs/dialects.md), which must read the same decision back.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hermes_hooks.builtin_plugins.shell_hooks import dialects
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from serve_helpers import client, free_port, make_home, request, serving

import hermes_hooks
from hermes_hooks import catalogue

CWD = "/work/project"


# ---------------------------------------------------------------------- the cases


def claude_payload(event: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """What Claude Code 2.1.330 sends (tests/oracle/fixtures/claude-code), for our cases."""
    out: dict[str, Any] = {
        "session_id": kwargs.get("session_id", "s-1"),
        "transcript_path": "/tmp/transcript.jsonl",
        "cwd": CWD,
        "permission_mode": "default",
        "hook_event_name": event,
    }
    if "tool_name" in kwargs:
        out["tool_name"] = "Bash"
        out["tool_input"] = kwargs["args"]
        if event != "PermissionRequest":
            out["tool_use_id"] = "toolu_1"
    if event == "PostToolUse":
        out["tool_response"] = {"stdout": kwargs["result"], "stderr": "", "interrupted": False}
    if event == "UserPromptSubmit":
        out["prompt"] = kwargs["user_message"]
    if event == "Stop":
        out.update(stop_hook_active=False, last_assistant_message=kwargs["final_response"])
    if event == "SessionStart":
        out["source"] = "startup"
    if event == "PreCompact":
        out.update(trigger="manual", custom_instructions="")
    if event == "PermissionRequest":
        out["permission_suggestions"] = []
    return out


def payload(agent: str, event: str, ours: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The JSON ``agent`` writes on a command hook's stdin for this occurrence."""
    if agent == "claude":
        return claude_payload(event, kwargs)
    info = catalogue.events()[ours]
    if agent == "hermes":
        out = {"hook_event_name": ours, "session_id": kwargs.get("session_id"), "cwd": CWD}
        if "tool_name" in kwargs:
            out.update(tool_name=kwargs["tool_name"], tool_input=kwargs["args"])
        extra = {k: v for k, v in kwargs.items() if k not in ("tool_name", "args", "session_id")}
        return {**out, "extra": extra}
    found = dialects.lookup(agent, event, [info])
    assert found is not None
    d = dialects.get(agent)
    assert d is not None
    return d.payload(info, kwargs, CWD, found[1])


def tool(mark: str) -> dict[str, Any]:
    return {
        "tool_name": "terminal",
        "args": {"command": f"{mark} x1"},
        "session_id": "s-1",
        "tool_call_id": "toolu_1",
        "turn_id": "u-1",
    }


PRE = {
    "claude": "PreToolUse",
    "codex": "PreToolUse",
    "gemini": "BeforeTool",
    "cursor": "preToolUse",
    "copilot": "preToolUse",
    "hermes": "pre_tool_call",
}
PROMPT = {
    "claude": "UserPromptSubmit",
    "codex": "UserPromptSubmit",
    "gemini": "BeforeAgent",
    "cursor": "beforeSubmitPrompt",
    "copilot": "userPromptSubmitted",
    "hermes": "user_prompt_submit",
}
CASES: list[tuple[str, str, str, str, dict[str, Any]]] = []
for _agent, _event in PRE.items():
    for _mark in ("BLOCK", "ASK", "ALLOW", "REWRITE", "CTX", "NOTHING"):
        CASES.append((_agent, _event, "pre_tool_call", _mark, tool(_mark)))
for _mark in ("BLOCK", "ASK", "REWRITE", "CTX"):
    CASES.append(("cursor", "beforeShellExecution", "pre_tool_call", _mark, tool(_mark)))
for _agent, _event in PROMPT.items():
    for _mark in ("BLOCK", "REWRITE", "CTX"):
        _kw = {"user_message": f"please {_mark} this", "session_id": "s-2"}
        CASES.append((_agent, _event, "user_prompt_submit", _mark, _kw))
for _agent, _event in {"claude": "Stop", "codex": "Stop", "gemini": "AfterAgent", "cursor": "stop",
                       "hermes": "pre_verify"}.items():  # fmt: skip
    _kw = {"session_id": "s-MORE", "final_response": "done, MORE later"}
    CASES.append((_agent, _event, "pre_verify", "CONTINUE", _kw))
for _agent in ("claude", "codex", "hermes"):
    _event = "permission_request" if _agent == "hermes" else "PermissionRequest"
    for _mark in ("DENY", "ALLOW"):
        _kw = {"tool_name": "terminal", "args": {"command": f"{_mark} y"}}
        CASES.append((_agent, _event, "permission_request", _mark, _kw))
for _agent, _event in {"claude": "PostToolUse", "codex": "PostToolUse", "gemini": "AfterTool",
                       "cursor": "postToolUse", "copilot": "postToolUse",
                       "hermes": "post_tool_call"}.items():  # fmt: skip
    _kw = {**tool("ls"), "result": "CTX output", "status": "ok"}
    CASES.append((_agent, _event, "post_tool_call", "CTX", _kw))
for _agent, _event in {"claude": "SessionStart", "codex": "SessionStart", "gemini": "SessionStart",
                       "cursor": "sessionStart", "copilot": "sessionStart"}.items():  # fmt: skip
    CASES.append((_agent, _event, "on_session_start", "CTX", {"session_id": "s-4", "source": "startup"}))  # fmt: skip
CASES.append(("claude", "PreCompact", "pre_compress", "BLOCK", {"session_id": "s-5", "trigger": "manual"}))  # fmt: skip


def case_id(case: tuple[Any, ...]) -> str:
    return f"{case[0]}-{case[1]}-{case[3]}"


# ---------------------------------------------------------------------- what the agent can take


def degraded(agent: str, event: str, result: Any) -> Any:
    """What the agent reads back of ``result`` (the in-process decision): the same decision
    where it can carry it; never a more open one where it cannot (docs/agents.md)."""
    if dataclasses.is_dataclass(result):
        result = dataclasses.replace(result, source=None)
    name = type(result).__name__
    can_ask = agent in ("claude", "gemini", "cursor", "hermes")
    rewrites = (
        agent in ("claude", "gemini", "hermes") or event == "preToolUse" and agent == "cursor"
    )
    if name == "ToolDecision":
        if result.context and agent in ("gemini", "copilot", "cursor"):
            result = dataclasses.replace(result, context=None)
        if result.action == "approve" and not can_ask:
            msg = f"needs approval, which {agent} cannot ask from a hook: {result.message}"
            result = dataclasses.replace(result, action="block", message=msg, rule_key=None)
        if result.action == "allow" and agent in ("codex", "copilot", "gemini"):
            result = dataclasses.replace(result, action=None)
        if result.args is not None and not rewrites:
            result = dataclasses.replace(result, action="block", args=None)
    if name == "PromptDecision":
        if agent == "copilot":  # Copilot reads no answer of userPromptSubmitted
            return type(result)()
        if result.text is not None and agent != "claude" and agent != "hermes":
            result = dataclasses.replace(result, action="block", text=None, context=None)
        if result.context and agent == "cursor":
            result = dataclasses.replace(result, context=None)
    if isinstance(result, str) and agent == "copilot":
        return None
    return result


def same(agent: str, event: str, direct: Any, echoed: Any) -> None:
    expected = degraded(agent, event, direct)
    if dataclasses.is_dataclass(echoed):
        echoed = dataclasses.replace(echoed, source=None)
    if expected is not None and type(expected).__name__ == "ToolDecision" and expected.blocked:
        # a rewrite the agent cannot take: blocked, the message says what the hooks wanted
        if direct.args is not None and expected.args is None and direct.action != "block":
            assert echoed.action == "block" and "rewrote this call" in echoed.message
            return
    if type(expected).__name__ == "PromptDecision" and expected.action == "block":
        assert echoed.action == "block"
        if direct.text is not None and direct.action != "block":
            assert "rewrote this prompt" in echoed.message
        else:
            assert echoed.message == expected.message
        return
    if type(expected).__name__ == "ToolDecision":
        assert (echoed.action, echoed.message, echoed.args, echoed.context) == (
            expected.action,
            expected.message,
            expected.args,
            expected.context,
        )
        return
    if expected in (None, "") and echoed in (None, ""):
        return
    if type(expected).__name__ == "PermissionAnswer":
        assert (echoed.action, echoed.message) == (expected.action, expected.message)
        return
    assert echoed == expected


# ---------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Any:
    home = make_home(tmp_path_factory.mktemp("served"))
    with serving(home, "--body-timeout", "4") as service:
        yield service


@pytest.fixture(scope="module")
def direct(served: Any) -> Any:
    hooks = hermes_hooks.load(served.home)
    yield hooks
    hooks.close()


class Echo:
    """Homes whose one command hook, in an agent's dialect, answers with a file's content:
    the reply of the service, read back by hermes-hooks' reader of that dialect."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.homes: dict[tuple[str, str], tuple[Any, Path]] = {}

    def read(self, agent: str, event: str, ours: str, reply: dict[str, Any], kwargs: Any) -> Any:
        key = (agent, event)
        if key not in self.homes:
            home = self.root / f"{agent}-{event}"
            home.mkdir()
            answer = home / "answer.json"
            protocol = {"claude": "claude-code"}.get(agent, agent)
            entry = {"command": f"cat {answer}", "protocol": protocol}
            (home / "config.yaml").write_text(yaml.safe_dump({"hooks": {event: [entry]}}))
            answer.write_text("{}")
            self.homes[key] = (hermes_hooks.load(home, accept_hooks=True), answer)
        hooks, answer = self.homes[key]
        answer.write_text(json.dumps(reply))
        return hooks.call(ours, **kwargs)


@pytest.fixture(scope="module")
def echo(tmp_path_factory: pytest.TempPathFactory) -> Any:
    e = Echo(tmp_path_factory.mktemp("echo"))
    yield e
    for hooks, _ in e.homes.values():
        hooks.close()


# ---------------------------------------------------------------------- round trips


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_each_agent_reads_back_the_decision_the_home_makes(case, served, direct, echo):
    """Posted as the agent sends it; the reply, given back as the answer of a command hook of
    that agent, is the decision the home makes in-process (or the documented closed form of
    it where the agent cannot carry it)."""
    agent, event, ours, _mark, kwargs = case
    status, reply = served.post(agent, event, payload(agent, event, ours, kwargs))
    assert status == 200, reply
    carried = dict(kwargs)
    if agent == "copilot":  # Copilot's payloads carry no session
        carried.pop("session_id", None)
    in_process = direct.call(ours, **carried)
    echoed = echo.read(agent, event, ours, reply, kwargs)
    same(agent, event, in_process, echoed)


@pytest.mark.parametrize("agent", list(PRE))
@pytest.mark.parametrize("mark", ["BLOCK", "ASK", "ALLOW", "REWRITE", "CTX"])
def test_the_client_prints_what_the_service_answers(agent, mark, served):
    event = PRE[agent]
    data = payload(agent, event, "pre_tool_call", tool(mark))
    status, reply = served.post(agent, event, data)
    done = client(agent, event, data, served.home)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == reply
    assert done.stderr == ""


def test_a_block_names_the_session_the_agent_sent(served):
    """The payload's session reached the hooks (the decider puts it in its message)."""
    for agent in ("claude", "codex", "gemini", "cursor"):
        status, reply = served.post(agent, PRE[agent], payload(agent, PRE[agent], "pre_tool_call", tool("BLOCK")))  # fmt: skip
        assert "in s-1" in json.dumps(reply), (agent, reply)


def test_the_http_reply_for_claude_is_its_hook_output(served):
    status, reply = served.post("claude", "PreToolUse", claude_payload("PreToolUse", tool("BLOCK")))
    assert status == 200
    assert reply == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "blocked BLOCK x1 in s-1",
        }
    }


def test_our_own_event_names_are_accepted_for_an_agent(served):
    data = payload("gemini", "BeforeTool", "pre_tool_call", tool("BLOCK"))
    status, reply = served.post("gemini", "pre_tool_call", data)
    assert status == 200
    assert reply["decision"] == "deny"


def test_a_newer_agent_field_is_ignored_not_refused(served):
    data = {**claude_payload("PreToolUse", tool("BLOCK")), "some_future_field": 1}
    status, reply = served.post("claude", "PreToolUse", data)
    assert status == 200
    assert reply["hookSpecificOutput"]["permissionDecision"] == "deny"


# ---------------------------------------------------------------------- refusals


def test_a_wrong_or_missing_token_is_401(served):
    data = claude_payload("PreToolUse", tool("BLOCK"))
    assert served.post("claude", "PreToolUse", data, token="nope")[0] == 401
    assert served.post("claude", "PreToolUse", data, token=served.token + "x")[0] == 401
    status, reply = request(served.url, "POST", "/v1/hooks/claude/PreToolUse", b"{}", {})
    assert status == 401 and "Bearer" in reply["error"]


def test_health_needs_no_token_and_says_nothing_secret(served):
    status, reply = request(served.url, "GET", "/v1/health", b"", {})
    assert status == 200 and reply == {"status": "ok", "service": "hermes-hooks"}
    assert served.token not in json.dumps(reply)


@pytest.mark.parametrize(
    "agent,event,body,status,words",
    [
        ("zed", "PreToolUse", b"{}", 404, "unknown agent 'zed'"),
        ("claude", "PreToolUze", b"{}", 404, "did you mean 'PreToolUse'"),
        ("copilot", "pre_verify", b"{}", 404, "copilot has no event"),
        ("claude", "PreToolUse", b"{not json", 400, "not JSON"),
        ("claude", "PreToolUse", b"[1, 2]", 400, "JSON object"),
        ("claude", "PreToolUse", b"\xff\xfe", 400, "not JSON"),
        ("claude", "PreToolUse", b'{"hook_event_name": "Stop"}', 400, "not pre_tool_call"),
        ("copilot", "preToolUse", b'{"toolName": "bash", "toolArgs": "{oops"}', 400, "toolArgs"),
    ],
)
def test_a_bad_request_gets_a_4xx_naming_the_problem(served, agent, event, body, status, words):
    got, reply = served.post(agent, event, body)
    assert got == status, reply
    assert words in reply["error"]
    assert "Traceback" not in reply["error"]


def test_an_oversized_body_is_413(served):
    big = json.dumps({"prompt": "x" * (1 << 20)}).encode()
    status, reply = served.post("claude", "UserPromptSubmit", big)
    assert status == 413 and "limit" in reply["error"]


def test_an_oversized_body_without_a_length_is_413(served):
    """Chunked: the limit is counted as the body arrives."""
    host, port = served.url[len("http://") :].rsplit(":", 1)
    chunk = b"x" * 65536
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(
            b"POST /v1/hooks/claude/UserPromptSubmit HTTP/1.1\r\nHost: x\r\n"
            + f"Authorization: Bearer {served.token}\r\n".encode()
            + b"Transfer-Encoding: chunked\r\n\r\n"
        )
        try:
            for _ in range(20):
                s.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
        except OSError:
            pass  # the service may close before all is sent
        reply = s.recv(65536)
    assert reply.startswith(b"HTTP/1.1 413")


def test_a_hung_client_gets_408_and_costs_no_other_request(served):
    """A client that sends its headers and half its body and stops: requests that come after it
    are answered while it still waits (no reply on its socket yet), and it gets a 408 once the
    body time limit (4 s here) has passed."""
    host, port = served.url[len("http://") :].rsplit(":", 1)
    hung = socket.create_connection((host, int(port)), timeout=10)
    hung.sendall(
        b"POST /v1/hooks/claude/PreToolUse HTTP/1.1\r\nHost: x\r\n"
        + f"Authorization: Bearer {served.token}\r\n".encode()
        + b"Content-Length: 100\r\n\r\n{"
    )
    try:
        data = claude_payload("PreToolUse", tool("BLOCK"))
        for _ in range(3):
            status, reply = served.post("claude", "PreToolUse", data, timeout=5)
            assert status == 200 and reply["hookSpecificOutput"]["permissionDecision"] == "deny"
        hung.setblocking(False)
        with pytest.raises(BlockingIOError):
            hung.recv(65536)  # the others did not wait for the hung one's time limit
        hung.settimeout(10)
        answer = hung.recv(65536)
    finally:
        hung.close()
    assert answer.startswith(b"HTTP/1.1 408"), answer
    assert b"did not arrive within 4 s" in answer


# ---------------------------------------------------------------------- token and files


def test_the_token_file_is_private_and_long(served):
    token_file = served.home / "serve" / "token"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(token_file.parent.stat().st_mode) == 0o700
    assert len(served.token) >= 43  # 32 random bytes, URL-safe base64


def test_a_token_file_others_can_read_is_refused(tmp_path):
    from click.testing import CliRunner

    from hermes_hooks.cli import hooks_group

    home = make_home(tmp_path / "home")
    token = home / "serve" / "token"
    token.parent.mkdir(mode=0o700)
    token.write_text("t" * 43)
    os.chmod(token, 0o644)
    result = CliRunner().invoke(hooks_group, ["--home", str(home), "serve", "--port", "0"])
    assert result.exit_code != 0
    assert "can be read or changed by others (mode 0644)" in result.output
    assert f"chmod 600 {token}" in result.output


# ---------------------------------------------------------------------- the client alone


def _dead_service(home: Path) -> None:
    """The home's URL points at a port nothing listens on (a stopped service)."""
    (home / "serve").mkdir(mode=0o700, exist_ok=True)
    (home / "serve" / "url").write_text(f"http://127.0.0.1:{free_port()}\n")


@pytest.mark.parametrize("agent", list(PRE))
@pytest.mark.parametrize("mark", ["BLOCK", "ASK", "REWRITE", "CTX"])
def test_the_fallback_gives_the_services_decisions(agent, mark, served, tmp_path):
    """The same home with its service stopped: the client runs the hooks in-process and
    prints exactly what the service printed."""
    home = make_home(tmp_path / "home")
    _dead_service(home)
    data = payload(agent, PRE[agent], "pre_tool_call", tool(mark))
    _, reply = served.post(agent, PRE[agent], data)
    done = client(agent, PRE[agent], data, home)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == reply
    assert "did not answer" in done.stderr and "ran in-process" in done.stderr


def test_stopping_the_service_changes_no_decision(tmp_path):
    home = make_home(tmp_path / "home")
    data = claude_payload("PreToolUse", tool("BLOCK"))
    with serving(home):
        before = client("claude", "PreToolUse", data, home)
    after = client("claude", "PreToolUse", data, home)
    assert before.returncode == after.returncode == 0
    assert json.loads(before.stdout) == json.loads(after.stdout)
    assert json.loads(after.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


BROKEN = "raise KeyboardInterrupt('the plugin will not load')\n"


@pytest.mark.parametrize(
    "agent,event,words",
    [
        ("claude", "PreToolUse", '"permissionDecision": "deny"'),
        ("codex", "PreToolUse", '"permissionDecision": "deny"'),
        ("gemini", "BeforeTool", '"decision": "deny"'),
        ("cursor", "beforeShellExecution", '"permission": "deny"'),
        ("copilot", "preToolUse", '"permissionDecision": "deny"'),
        ("claude", "UserPromptSubmit", '"decision": "block"'),
    ],
)
def test_with_neither_service_nor_home_a_decision_event_blocks(agent, event, words, tmp_path):
    home = make_home(tmp_path / "home", plugin=BROKEN)
    _dead_service(home)
    ours = catalogue.get(event) or catalogue.events()["pre_tool_call"]
    kwargs = tool("ls") if ours.tool_event else {"user_message": "hi", "session_id": "s"}
    done = client(agent, event, payload(agent, event, ours.name, kwargs), home)
    assert words in done.stdout
    assert done.returncode == (0 if agent == "copilot" else 2)
    assert "fail closed" in done.stderr and "did not answer" in done.stderr


@pytest.mark.parametrize(
    "event,body,words",
    [
        ("userPromptSubmitted", {"prompt": "BLOCK this"}, "a block"),
        ("userPromptSubmitted", {"prompt": "CTX please"}, "context"),
        ("sessionStart", {"source": "new"}, "context"),
    ],
)
def test_an_answer_copilot_reads_nothing_of_is_reported_not_dropped_silently(
    event, body, words, tmp_path
):
    home = make_home(tmp_path / "home")  # no service: the client's in-process log is stderr
    done = client("copilot", event, {"timestamp": 1704614600000, "cwd": CWD, **body}, home)
    assert done.returncode == 0 and json.loads(done.stdout) == {}
    assert f"copilot {event} reads no answer from a hook: {words}" in done.stderr
    assert "not delivered" in done.stderr


def test_with_neither_an_observe_event_does_not_block(tmp_path):
    home = make_home(tmp_path / "home", plugin=BROKEN)
    _dead_service(home)
    done = client("claude", "SessionEnd", claude_payload("SessionEnd", {}), home)
    assert done.returncode == 1 and done.stdout.strip() == "{}"
    assert "did not answer" in done.stderr


def test_an_unknown_event_through_the_client_blocks_loudly(served):
    done = client("claude", "PreToolUze", {}, served.home)
    assert done.returncode == 2
    assert "did you mean 'PreToolUse'" in done.stderr


def test_a_wrong_token_makes_the_client_fall_back(served, tmp_path):
    """A service that refuses our token did not answer: the hooks still run, in-process."""
    home = make_home(tmp_path / "home")
    (home / "serve").mkdir(mode=0o700)
    (home / "serve" / "url").write_text(served.url)
    (home / "serve" / "token").write_text("not-the-token")
    os.chmod(home / "serve" / "token", 0o600)
    data = claude_payload("PreToolUse", tool("BLOCK"))
    done = client("claude", "PreToolUse", data, home)
    assert done.returncode == 0
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


# ---------------------------------------------------------------------- receipts


def test_each_request_leaves_a_receipt_naming_the_agent_and_its_event(tmp_path):
    trace = tmp_path / "trace.jsonl"
    home = make_home(tmp_path / "home", {"trace_file": str(trace)})
    with serving(home) as service:
        data = payload("gemini", "BeforeTool", "pre_tool_call", tool("BLOCK"))
        assert service.post("gemini", "BeforeTool", data)[0] == 200
    receipts = [json.loads(line) for line in trace.read_text().splitlines()]
    ours = [r for r in receipts if r["event"] == "pre_tool_call"]
    assert ours and ours[0]["agent"] == "gemini" and ours[0]["agent_event"] == "BeforeTool"
    assert ours[0]["session_id"] == "s-1"


def test_per_session_state_is_kept_by_session_id_across_requests(tmp_path):
    """One warm load per worker: max_iterations counts a session's model calls over requests
    (posted as Hermes events), and another session is not affected."""
    home = make_home(tmp_path / "home", {"max_iterations": 2})
    with serving(home) as service:
        for _ in range(2):
            status, _ = service.post("hermes", "pre_api_request", {"session_id": "a"})
            assert status == 200
        data_a = claude_payload("PreToolUse", {**tool("ls"), "session_id": "a"})
        data_b = claude_payload("PreToolUse", {**tool("ls"), "session_id": "b"})
        _, reply_a = service.post("claude", "PreToolUse", data_a)
        _, reply_b = service.post("claude", "PreToolUse", data_b)
    assert reply_a["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "max_iterations" in reply_a["hookSpecificOutput"]["permissionDecisionReason"]
    assert reply_b == {}


def test_a_field_no_declaration_reads_is_reported_once(caplog):
    """Through the one handler (as the service and the client's fallback run it)."""
    from hermes_hooks import Hooks
    from hermes_hooks.serve.answering import handle

    body = json.dumps({"session_id": "s", "tool_name": "run_shell_command",
                       "tool_input": {"command": "ls"}, "brand_new": 1}).encode()  # fmt: skip
    with caplog.at_level("WARNING", logger="hermes_hooks"):
        for _ in range(3):
            assert handle(Hooks(), "gemini", "BeforeTool", body).status == 200
    said = [r.getMessage() for r in caplog.records if "brand_new" in r.getMessage()]
    assert said == ["serve: gemini/BeforeTool: key 'brand_new' is not one we read; ignored"]


_EVENTS = [
    (agent, name)
    for info in catalogue.events().values()
    for agent in ("claude", "codex", "gemini", "cursor", "copilot")
    for name in [c.name for c in (info.claude if agent == "claude" else info.dialect_events(agent))]
] + [("hermes", name) for name in catalogue.events()]
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
_KEYS = st.sampled_from(["session_id", "tool_name", "tool_input", "toolName", "toolArgs", "prompt",
                         "command", "tool_response", "hook_event_name", "conversation_id",
                         "toolResult", "source", "last_assistant_message", "error", "result_json",
                         "file_path", "edits", "status", "turn_id", "extra", "tool_calls"])  # fmt: skip


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    event=st.sampled_from(_EVENTS),
    body=st.dictionaries(_KEYS | st.text(max_size=6), _JSON, max_size=6),
)
@example(
    event=("claude", "PreToolUse"), body={"tool_name": {"a": 1}, "tool_input": {"command": "x"}}
)
@example(event=("hermes", "pre_llm_call"), body={"tool_name": {"a": 1}, "tool_input": {}})
@example(event=("cursor", "preToolUse"), body={"tool_name": "Shell", "tool_input": "ls"})
def test_any_json_object_gets_an_answer_or_a_4xx_never_an_exception(direct, event, body):
    from hermes_hooks.serve.answering import handle

    reply = handle(direct, event[0], event[1], json.dumps(body).encode())
    assert reply.status in (200, 400), reply
    json.dumps(reply.body)


def test_serve_without_uvicorn_says_what_to_install(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from hermes_hooks.cli import hooks_group

    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if the extra were not installed
    home = make_home(tmp_path / "home")
    result = CliRunner().invoke(hooks_group, ["--home", str(home), "serve", "--port", "0"])
    assert result.exit_code == 1
    assert "pip install 'hermes-hooks[serve]'" in result.output
    assert not (home / "serve" / "url").exists()


@pytest.mark.parametrize(
    "event,kwargs",
    [
        ("transform_tool_result", {"tool_name": "terminal", "args": {}, "result": "secret"}),
        ("transform_terminal_output", {"command": "ls", "output": "secret", "returncode": 0}),
        ("transform_llm_output", {"response_text": "secret", "session_id": "s"}),
    ],
)
def test_a_hermes_transform_reads_back_as_the_new_value(event, kwargs, tmp_path):
    """Hermes' own events through the service: a transform's new value comes back under the
    name of the argument it pipes, which a Hermes-protocol hook's reader takes."""
    from hermes_hooks import Hooks, hookimpl
    from hermes_hooks.serve.answering import handle

    info = catalogue.events()[event]

    class Upper:
        pass

    def transform(**kw):
        return str(kw[info.value]).upper()

    setattr(Upper, event, staticmethod(hookimpl(transform)))
    hooks = Hooks()
    hooks.register(Upper())
    reply = handle(hooks, "hermes", event, json.dumps(kwargs).encode())
    assert reply.status == 200 and reply.body == {info.value: "SECRET"}
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps(reply.body))
    (tmp_path / "config.yaml").write_text(
        yaml.safe_dump({"hooks": {event: [{"command": f"cat {answer}", "protocol": "hermes"}]}})
    )
    echo = hermes_hooks.load(tmp_path, accept_hooks=True)
    try:
        assert echo.call(event, **kwargs) == "SECRET"
    finally:
        echo.close()


@pytest.mark.parametrize("spacing", [(", ", ": "), (",", ":")])
def test_cursor_mcp_input_text_is_read_back_however_it_is_spaced(spacing, direct):
    """``beforeMCPExecution`` sends the tool's input as JSON text; Cursor's own spacing need not
    be ours."""
    from hermes_hooks.serve.answering import handle

    text = json.dumps({"command": "BLOCK mcp"}, separators=spacing)
    body = {"conversation_id": "s-9", "hook_event_name": "beforeMCPExecution",
            "tool_name": "mcp__shell__run", "tool_input": text}  # fmt: skip
    reply = handle(direct, "cursor", "beforeMCPExecution", json.dumps(body).encode())
    assert reply.status == 200, reply
    assert reply.body["permission"] == "deny" and "in s-9" in reply.body["agent_message"]


_FIXTURES = Path(__file__).resolve().parent / "oracle" / "fixtures"
_RECORDED = [
    (agent, path)
    for agent, folder in (("claude", "claude-code"), ("codex", "codex"), ("gemini", "gemini-cli"))
    for path in sorted((_FIXTURES / folder).glob("*.json"))
    if not path.stem.startswith("model-") and path.stem != "BeforeToolSelection"
]


@pytest.mark.parametrize("agent,path", _RECORDED, ids=lambda v: getattr(v, "stem", v))
def test_what_the_real_agents_sent_is_read_back_whole(agent, path):
    """The payloads the real CLIs sent their hooks (tests/oracle/fixtures): read back as our
    event's arguments, with the session and, for a tool event, the host's tool and its input."""
    from hermes_hooks.serve.answering import kwargs_of, target

    data = json.loads(path.read_text())
    t = target(agent, path.stem)
    kwargs = kwargs_of(t, data)
    assert (kwargs.get("session_id") or kwargs.get("parent_session_id")) == data["session_id"]
    if "tool_name" in data:
        assert kwargs["tool_name"] == "terminal"
        assert kwargs["args"]["command"] == data["tool_input"]["command"]
    if t.chosen is not None and t.chosen.when is not None:
        pick = (
            t.info.claude_event
            if agent == "claude"
            else (lambda kw: t.info.dialect_event(agent, kw))
        )
        assert pick(kwargs) is t.chosen  # hooks under this very event name fire


@pytest.mark.parametrize(
    "event,body,tool",
    [
        ("beforeShellExecution", {"command": "ls", "cwd": "/"}, "terminal"),
        ("beforeReadFile", {"file_path": "/etc/hosts", "content": ""}, "read_file"),
        ("afterShellExecution", {"command": "ls", "output": "x", "duration": 1}, "terminal"),
    ],
)
def test_a_cursor_event_for_one_tool_names_that_tool(event, body, tool):
    """Cursor's per-tool events carry no tool name: it is the one their declaration selects."""
    from hermes_hooks.serve.answering import kwargs_of, target

    t = target("cursor", event)
    kwargs = kwargs_of(t, {"conversation_id": "c", "hook_event_name": event, **body})
    assert kwargs["tool_name"] == tool
    assert t.info.dialect_event("cursor", kwargs) is t.chosen


@pytest.mark.parametrize(
    "script,argv",
    [("hooks_main", ["hermes-hooks", "client"]), ("main", ["hermes", "hooks", "client"])],
)
def test_the_client_imports_no_hook_system_when_the_service_answers(script, argv, served):
    """Through either console script: neither click nor the catalogue, the dispatcher or the
    answer types are imported before the service has answered, nor config.yaml's reader (its
    ``logging`` and ``dataclasses`` were a third of the client's start: docs/performance.md)."""
    code = (
        "import atexit, json, sys\n"
        "atexit.register(lambda: sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules))))\n"
        f"sys.argv = {argv!r} + ['claude', 'PreToolUse', '--home', {str(served.home)!r}]\n"
        f"from hermes_hooks.hermes.handover import {script}\n"
        f"{script}()\n"
    )
    data = json.dumps(claude_payload("PreToolUse", tool("BLOCK")))
    done = subprocess.run(
        [sys.executable, "-c", code], input=data, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    modules = set(json.loads(done.stderr.split("MODULES ", 1)[1]))
    heavy = {"click", "hermes_hooks.catalogue", "hermes_hooks.hooks", "hermes_hooks.answers",
             "hermes_hooks.serve.answering", "pluggy", "yaml", "uvicorn", "http.client",
             "hermes_hooks.config", "logging", "dataclasses"}  # fmt: skip
    assert modules & heavy == set()


def test_a_home_that_does_not_load_is_said_at_start_and_nothing_is_served(tmp_path):
    from click.testing import CliRunner

    from hermes_hooks.cli import hooks_group

    home = make_home(tmp_path / "home", plugin=BROKEN)
    result = CliRunner().invoke(hooks_group, ["--home", str(home), "serve", "--port", "0"])
    assert result.exit_code == 1
    assert f"cannot load the home {home}: KeyboardInterrupt: the plugin will not load" in (
        result.output
    )
    assert not (home / "serve" / "url").exists()  # clients fall back instead of waiting


# ---------------------------------------------------------------------- uvicorn's speedups


def test_the_serve_extra_brings_uvicorns_speedups():
    """httptools (its C HTTP parser) and uvloop (its event loop) are what uvicorn runs with
    when they are installed: a quarter of the service's CPU time per request."""
    from importlib.metadata import requires

    serve = [r for r in requires("hermes-hooks") or [] if 'extra == "serve"' in r]
    names = {r.split(";")[0].split(">")[0].strip() for r in serve}
    assert {"uvicorn", "httptools", "uvloop"} <= names


def _announced(home: Path, env: dict[str, str] | None = None) -> str:
    with serving(home, env=env) as service:
        assert (
            service.post("claude", "PreToolUse", claude_payload("PreToolUse", tool("ls")))[0] == 200
        )
        service.stop()
        assert service.proc.stderr is not None
        return service.proc.stderr.read().decode()


def test_the_service_says_it_runs_with_uvicorns_speedups(tmp_path):
    said = _announced(make_home(tmp_path / "home"))
    assert "with httptools and uvloop" in said and "without" not in said


def test_the_service_says_what_brings_the_speedups_it_runs_without(tmp_path):
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    for name in ("httptools", "uvloop"):
        (hidden / f"{name}.py").write_text("raise ImportError('not installed here')\n")
    said = _announced(make_home(tmp_path / "home"), {"PYTHONPATH": str(hidden)})
    assert "without httptools and uvloop; pip install 'hermes-hooks[serve]' brings" in said


def test_a_reply_names_no_server_software(served):
    """No ``server: uvicorn`` header (what serves is no caller's business); a reply is still
    dated, as HTTP/1.1 asks of a server with a clock."""
    import http.client

    host, port = served.url[len("http://") :].rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.request("POST", "/v1/hooks/claude/PreToolUse",
                     body=json.dumps(claude_payload("PreToolUse", tool("ls"))).encode(),
                     headers={"Authorization": f"Bearer {served.token}"})  # fmt: skip
        res = conn.getresponse()
        res.read()
    finally:
        conn.close()
    assert res.status == 200
    assert res.getheader("server") is None and res.getheader("date")
