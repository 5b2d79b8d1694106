"""The redact_secrets built-in through hermes_hooks.load(): a corpus of real-shaped secrets is
all redacted, a corpus of look-alikes is left alone, on every event it covers."""

from __future__ import annotations

import pytest

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
