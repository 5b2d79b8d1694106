"""The redact_secrets built-in through hermes_hooks.load(): a corpus of real-shaped secrets is
all redacted, a corpus of look-alikes is left alone, on every event it covers."""

from __future__ import annotations

import json
import os
import stat

import pytest
from hook_servers import LEAKED_KEY, model, policy
from shell_helpers import write_config

import hermes_hooks

# Real shapes, made-up values.
SECRETS = {
    "aws access key id": "AKIAIOSFODNN7EXAMPLE",
    "aws secret": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "github classic": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "github fine-grained": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH",
    "openai": "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
    "anthropic": "sk-ant-api03-" + "Zy9xWv8uTs7rQp6oNm5lKj4iHg3fEd2cBa1",
    "slack bot": "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "slack webhook": "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "pem": "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq8\nAbCdEf==\n-----END RSA PRIVATE KEY-----",
    "openssh key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n-----END OPENSSH PRIVATE KEY-----",
    "url password": "postgres://admin:s3cr3tP4ss@db.internal:5432/prod",
    "authorization header": "Authorization: Bearer abcDEF123456ghiJKL789",
    "password assignment": "DB_PASSWORD=hunter2hunter2",
    "api key json": '{"api_key": "k3y-V4lu3-1234567"}',
}
# The part of each that must not survive.
SECRET_PART = {name: text for name, text in SECRETS.items()}
SECRET_PART.update(
    {
        "aws secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "pem": "MIIEpAIBAAKCAQEA7bq8",
        "openssh key": "b3BlbnNzaC1rZXktdjE=",
        "url password": "s3cr3tP4ss",
        "authorization header": "abcDEF123456ghiJKL789",
        "password assignment": "hunter2hunter2",
        "api key json": "k3y-V4lu3-1234567",
    }
)
# Look like secrets, are not: must come through unchanged.
LOOKALIKES = {
    "git sha": "commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "sha256": "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "uuid": "request id 123e4567-e89b-12d3-a456-426614174000",
    "base64 image": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "words": "the password policy asks for a secret handshake",
    "working directory": "PWD=/home/you/project",
    "skeleton": "sk-short is not a key",
    "url without password": "https://user@example.com/path",
}


@pytest.fixture
def hooks(home):
    return hermes_hooks.load(home, {"redact_secrets": True}, entry_points=False)


@pytest.mark.parametrize("name", list(SECRETS))
def test_real_shaped_secrets_are_redacted_from_tool_results(hooks, name):
    secret = SECRETS[name]
    out = hooks.transform_tool_result(tool_name="terminal", result=f"before {secret} after")
    assert "[REDACTED:" in out and out.startswith("before ") and out.endswith(" after")
    assert SECRET_PART[name] not in out, out


@pytest.mark.parametrize("name", list(LOOKALIKES))
def test_look_alikes_are_left_alone(hooks, name):
    text = LOOKALIKES[name]
    assert hooks.transform_tool_result(tool_name="terminal", result=text) == text


def test_tool_arguments_are_rewritten_before_the_tool_runs(hooks):
    d = hooks.pre_tool_call(
        tool_name="terminal", args={"command": f"curl -H 'Authorization: Bearer {'x' * 20}' api"}
    )
    assert d.action is None and "[REDACTED:authorization]" in d.args["command"]
    assert hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}).args is None


def test_messages_to_the_model_are_scrubbed(hooks):
    messages = [
        {"role": "user", "content": f"my key is {SECRETS['openai']}"},
        {"role": "assistant", "content": "ok"},
    ]
    out = hooks.transform_messages(messages=messages)
    assert SECRETS["openai"] not in str(out) and out[1] == messages[1]


def test_extra_patterns_from_config(home):
    hooks = hermes_hooks.load(
        home,
        {"redact_secrets": {"patterns": [{"name": "ticket", "pattern": r"TKT-\d{6}"}]}},
        entry_points=False,
    )
    assert hooks.transform_tool_result(tool_name="t", result="TKT-123456") == "[REDACTED:ticket]"


def test_a_failing_redaction_withholds_the_value(hooks, monkeypatch):
    source = hooks.records["builtin:redact_secrets"].hook_source

    def broken(text):
        raise RuntimeError("regex engine fell over")

    monkeypatch.setattr(source.redactor, "text", broken)
    out = hooks.transform_tool_result(tool_name="t", result=f"key {SECRETS['openai']}")
    assert SECRETS["openai"] not in out and "withheld" in out


# ------------------------------------------------ nothing that leaves the process carries a secret

SECRET = "sk-ant-api03-" + "Z" * 40
CALL = {"tool_name": "terminal", "args": {"command": f"curl -H 'x-api-key: {SECRET}' api"},
        "session_id": "s1"}  # fmt: skip


def _load(home, config):
    write_config(home, config)
    return hermes_hooks.load(home, entry_points=False)


def test_http_and_prompt_hooks_never_receive_the_secret(home, monkeypatch):
    with policy() as service, model() as llm:
        monkeypatch.setenv("OPENAI_BASE_URL", llm.url + "/v1")
        judge = {"type": "prompt", "model": "j", "timeout": 5,
                 "prompt": "May it run {{ tool_input.command }}?"}  # fmt: skip
        http_hook = {"type": "http", "url": f"{service.url}/policy", "timeout": 5}
        hooks = _load(home, {
            "redact_secrets": True,
            "hooks": {"pre_tool_call": [http_hook, judge]},
            "allowed_http_hook_urls": [f"{service.url}/*", f"{llm.url}/*"],
        })  # fmt: skip
        decision = hooks.pre_tool_call(**CALL)
        assert decision.args is not None and SECRET not in json.dumps(decision.args)
        assert service.received and llm.received  # both were asked, every round
        for request in service.received + llm.received:
            sent = json.dumps(request["body"])
            assert SECRET not in sent and "Z" * 20 not in sent
            assert "[REDACTED:" in sent


def test_http_post_never_sends_the_secret(home):
    with policy() as service:
        hooks = _load(home, {
            "redact_secrets": True,
            "http_post": {"url": f"{service.url}/audit", "events": ["post_tool_call"]},
            "allowed_http_hook_urls": [f"{service.url}/*"],
        })  # fmt: skip
        hooks.post_tool_call(tool_name="terminal", args=CALL["args"], result=f"key={SECRET}",
                             status="ok")  # fmt: skip
        [request] = service.received
        sent = json.dumps(request["body"])
        assert SECRET not in sent and "[REDACTED:anthropic-key]" in sent


def test_trace_receipts_hold_no_secret_and_the_file_is_private(home, monkeypatch):
    with policy() as service:
        http_hook = {"type": "http", "url": f"{service.url}/policy", "timeout": 5}
        hooks = _load(home, {
            "redact_secrets": True,
            "trace_file": "trace.jsonl",
            "trace_payloads": True,
            "hooks": {"pre_tool_call": [http_hook]},
            "allowed_http_hook_urls": [f"{service.url}/*"],
        })  # fmt: skip
        previous = os.umask(0o000)  # a permissive umask: the file is still created 0600
        try:
            hooks.pre_tool_call(**CALL)
            hooks.post_tool_call(tool_name="terminal", args=CALL["args"],
                                 result=f"token {SECRET}", status="ok")  # fmt: skip
        finally:
            os.umask(previous)
    trace = home / "trace.jsonl"
    text = trace.read_text()
    receipts = [json.loads(line) for line in text.splitlines()]
    assert receipts and any("payload" in r for r in receipts)
    assert SECRET not in text and "Z" * 20 not in text
    assert "[REDACTED:" in text
    assert stat.S_IMODE(trace.stat().st_mode) == 0o600


def test_an_error_page_reaches_the_model_capped_and_redacted(home):
    with policy() as service:
        guard = {"type": "http", "url": f"{service.url}/leaky", "timeout": 5,
                 "fail_closed": True, "name": "guard"}  # fmt: skip
        hooks = _load(home, {
            "redact_secrets": True,
            "hooks": {"pre_tool_call": [guard]},
            "allowed_http_hook_urls": [f"{service.url}/*"],
        })  # fmt: skip
        decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert decision.action == "block" and "HTTP 500" in decision.message
    assert LEAKED_KEY not in decision.message and "Q" * 10 not in decision.message
    assert "[REDACTED:anthropic-key]" in decision.message
    assert len(decision.message) < 600  # the 5000 bytes after it are cut


def test_trace_receipts_redact_what_hooks_answer_and_raise(home):
    # A hook's own answer and its failure are written to the receipts too: both are redacted,
    # the answer before it is shortened (a secret across the cut is not left half there).
    class Leaky:
        @hermes_hooks.hookimpl
        def pre_tool_call(self):
            return {"action": "block", "message": "x" * 180 + f" saw {SECRET}"}

        @hermes_hooks.hookimpl
        def post_tool_call(self):
            raise RuntimeError(f"boom {SECRET}")

    hooks = _load(home, {"redact_secrets": True, "trace_file": "trace.jsonl"})
    hooks.register(Leaky(), "leaky")
    hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, session_id="s1")
    hooks.post_tool_call(tool_name="terminal", args={}, result="ok", status="ok")
    text = (home / "trace.jsonl").read_text()
    receipts = [json.loads(line) for line in text.splitlines()]
    mine = [r for r in receipts if r["hook"] == "leaky"]
    assert {r["outcome"] for r in mine} == {"answered", "failed"}
    assert "sk-ant-api03-Z" not in text and "[REDACTED:" in text


def test_trace_lines_on_stderr_hold_no_secret(home, monkeypatch, capsys):
    # HERMES_HOOKS_TRACE=1 prints one line per hook run with its decision: redacted too.
    class Leaky:
        @hermes_hooks.hookimpl
        def pre_tool_call(self):
            return {"action": "block", "message": f"saw {SECRET}"}

    monkeypatch.setenv("HERMES_HOOKS_TRACE", "1")
    hooks = _load(home, {"redact_secrets": True})
    hooks.register(Leaky(), "leaky")
    hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, session_id="s1")
    err = capsys.readouterr().err
    assert "leaky" in err and "[REDACTED:" in err
    assert "sk-ant-api03-Z" not in err


def test_opentelemetry_spans_hold_no_secret(home, otel_spans):
    class Leaky:
        @hermes_hooks.hookimpl
        def pre_tool_call(self):
            return {"action": "block", "message": f"saw {SECRET}"}

    hooks = _load(home, {"redact_secrets": True, "otel": True})
    hooks.register(Leaky(), "leaky")
    hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, session_id="s1")
    spans = otel_spans.get_finished_spans()
    shown = json.dumps([dict(s.attributes or {}) for s in spans], default=str)
    assert "hermes_hooks hook leaky" in {s.name for s in spans}
    assert "[REDACTED:" in shown and "sk-ant-api03-Z" not in shown


class Echoes:
    """A plugin that repeats, in its own words, a secret it was shown."""

    @hermes_hooks.hookimpl
    def pre_tool_call(self, args):
        return {"action": "block", "message": f"refused: {args['command']}"}

    @hermes_hooks.hookimpl
    def pre_llm_call(self):
        return f"remember the key {SECRET}"

    @hermes_hooks.hookimpl
    def pre_gateway_dispatch(self):
        return {"action": "skip", "reason": f"held {SECRET}"}


@pytest.mark.parametrize("redacting", [True, False])
def test_what_hooks_say_to_the_model_is_redacted(home, redacting):
    # A block message, a reason and a context a hook writes reach the host (and the model);
    # with redact_secrets on, they do not carry what redaction removes.
    script = home / "say.sh"
    script.write_text("#!/bin/sh\ncat >/dev/null\n"
                      f"echo '{{\"decision\": \"block\", \"reason\": \"saw {SECRET}\"}}'\n")  # fmt: skip
    script.chmod(0o755)
    config = {"hooks": {"pre_tool_call": [{"command": str(script)}]}, "hooks_auto_accept": True}
    hooks = _load(home, {**config, "redact_secrets": True} if redacting else config)
    hooks.register(Echoes(), "echoes")
    decision = hooks.pre_tool_call(**CALL)
    context = hooks.call("pre_llm_call", session_id="s1", user_message="hi")
    dispatch = hooks.call("pre_gateway_dispatch", event={"text": "hi"})
    invoked = [a.message for a in hooks.invoke("pre_tool_call", **CALL) if a.message]
    said = [decision.message, context, dispatch.reason, *invoked]
    assert len(invoked) == 2  # the plugin's and the shell hook's, uncombined
    assert all(said), said
    if redacting:
        assert not [s for s in said if "sk-ant-api03-Z" in s], said
        assert all("[REDACTED:" in s for s in said), said
        assert decision.action == "block" and dispatch.action == "skip"
        assert SECRET in CALL["args"]["command"]  # what will run is not touched
    else:
        assert all(SECRET in s for s in said), said


def test_a_shell_hooks_receipt_is_redacted_before_it_is_cut(home):
    # the secret straddles the 200-character cut of a receipt's decision: redacted first, so
    # no half of it is left for the redactor not to recognise
    script = home / "long.sh"
    message = "y" * 180 + f" {SECRET}"
    script.write_text("#!/bin/sh\ncat >/dev/null\n"
                      f"echo '{{\"decision\": \"block\", \"reason\": \"{message}\"}}'\n")  # fmt: skip
    script.chmod(0o755)
    hooks = _load(home, {"redact_secrets": True, "trace_file": "trace.jsonl",
                         "hooks_auto_accept": True,
                         "hooks": {"pre_tool_call": [{"command": str(script)}]}})  # fmt: skip
    hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, session_id="s1")
    text = (home / "trace.jsonl").read_text()
    [receipt] = [json.loads(line) for line in text.splitlines() if "long.sh" in line]
    assert "sk-ant-a" not in json.dumps(receipt["decision"]) and "ZZZZ" not in text
