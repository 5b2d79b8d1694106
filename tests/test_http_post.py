"""The http_post built-in against a real HTTP server on 127.0.0.1 (tests/hook_servers.py)."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import pytest
from hermes_hooks.builtin_plugins.shell_hooks import web
from hook_servers import Server, misbehaving, policy

import hermes_hooks


@pytest.fixture
def server() -> Iterator[Server]:
    with policy() as service:
        yield service


def test_posts_each_firing_of_its_events(home, server, monkeypatch):
    monkeypatch.setenv("HOOK_TOKEN", "t0k3n")
    config = {
        "http_post": {"url": f"{server.url}/audit", "events": ["PostToolUse", "on_session_end"],
                      "headers": {"X-Token": "$HOOK_TOKEN"}},
        "allowed_http_hook_urls": [f"{server.url}/*"],
        "allowed_env_vars": ["HOOK_TOKEN"],
    }  # fmt: skip
    hooks = hermes_hooks.load(home, config, entry_points=False)
    hooks.post_tool_call(tool_name="terminal", args={"command": "ls"}, result="ok", status="ok")
    hooks.on_session_end(session_id="s1")
    received = server.received
    assert [r["body"]["event"] for r in received] == ["post_tool_call", "on_session_end"]
    assert received[0]["body"]["args"] == {"command": "ls"}
    assert received[0]["headers"]["X-Token"] == "t0k3n"


def test_a_url_outside_the_allow_list_is_refused(home, server, caplog):
    hooks = hermes_hooks.load(
        home, {"http_post": {"url": f"{server.url}/audit"}}, entry_points=False
    )
    hooks.post_tool_call(tool_name="t", result="ok")
    assert server.received == [] and "builtin:http_post" not in hooks.records
    assert any("not in allowed_http_hook_urls" in r.getMessage() for r in caplog.records)


def test_the_allow_list_matches_parsed_parts_never_the_raw_url(home, server, caplog):
    url = f"{server.url}/.corp.example/audit"
    config = {"http_post": {"url": url}, "allowed_http_hook_urls": ["http://*.corp.example/*"]}
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = hermes_hooks.load(home, config, entry_points=False)
        hooks.post_tool_call(tool_name="t", result="ok")
    assert server.received == [] and "builtin:http_post" not in hooks.records
    assert f"http_post: {url} is not in allowed_http_hook_urls" in caplog.text


def test_no_redirect_to_another_host_and_failures_never_block(home, server, caplog):
    config = {
        "http_post": {"url": f"{server.url}/redirect"},
        "allowed_http_hook_urls": [f"{server.url}/*"],
    }
    hooks = hermes_hooks.load(home, config, entry_points=False)
    assert hooks.post_tool_call(tool_name="t", result="ok") is None
    assert [r["path"] for r in server.received] == ["/redirect"]  # the redirect was not followed
    assert any("refused a redirect to another host" in r.getMessage() for r in caplog.records)


def test_an_error_status_is_logged_with_the_body_and_never_blocks(home, server, caplog):
    config = {"http_post": {"url": f"{server.url}/down"}, "allowed_http_hook_urls": [f"{server.url}/*"]}  # fmt: skip
    hooks = hermes_hooks.load(home, config, entry_points=False)
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        assert hooks.post_tool_call(tool_name="t", result="ok") is None
    assert f"HTTP 503 from {server.url}/down: maintenance" in caplog.text


def test_an_unknown_event_is_reported_and_left_out(home, server, caplog):
    config = {"http_post": {"url": f"{server.url}/audit", "events": ["PostToolUse", "on_sesion_end"]},
              "allowed_http_hook_urls": [f"{server.url}/*"]}  # fmt: skip
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = hermes_hooks.load(home, config, entry_points=False)
    assert "http_post: unknown event 'on_sesion_end' in config.yaml http_post.events" in caplog.text
    rows = [r["event"] for r in hooks.rows() if r["name"] == "builtin:http_post"]
    assert rows == ["post_tool_call"]


def test_config_wide_allowed_env_vars_is_read_as_the_http_hook_type_reads_it(
    home, server, monkeypatch
):
    monkeypatch.setenv("HOOK_TOKEN", "t0k3n")
    config = {"http_post": {"url": f"{server.url}/audit", "headers": {"X-Token": "${HOOK_TOKEN}"}},
              "allowed_http_hook_urls": [f"{server.url}/*"],
              "allowed_env_vars": "HOOK_TOKEN"}  # fmt: skip  # one name: a list of one
    hooks = hermes_hooks.load(home, config, entry_points=False)
    hooks.post_tool_call(tool_name="t", args={}, result="ok", status="ok")
    assert server.received[0]["headers"]["X-Token"] == "t0k3n"


def test_only_http_and_https_urls_are_posted_to(home, tmp_path, caplog):
    secret = tmp_path / "secret.txt"
    secret.write_text("local file\n")
    reply = web.post(secret.as_uri(), b"{}", timeout=2)  # urllib itself would read the file
    assert reply.body == b"" and reply.error == f"not an http:// or https:// URL: {secret.as_uri()}"
    config = {"http_post": {"url": secret.as_uri()}, "allowed_http_hook_urls": ["*"]}
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = hermes_hooks.load(home, config, entry_points=False)
    assert "builtin:http_post" not in hooks.records
    assert f"http_post: {secret.as_uri()} is not an http:// or https:// URL; off" in caplog.text


def test_timeout_bounds_the_whole_exchange(home, caplog):
    with misbehaving("drip") as slow:
        config = {"http_post": {"url": f"{slow.url}/audit", "timeout": 1},
                  "allowed_http_hook_urls": [f"{slow.url}/*"]}  # fmt: skip
        hooks = hermes_hooks.load(home, config, entry_points=False)
        started = time.monotonic()
        with caplog.at_level(logging.WARNING, "hermes_hooks"):
            assert hooks.post_tool_call(tool_name="t", result="ok") is None
        took = time.monotonic() - started
    assert "no answer within 1s" in caplog.text
    assert took < 3, f"a 1 s limit held the call {took:.1f} s"


@pytest.mark.parametrize("kind", ["bad-status", "incomplete-chunk", "short"])
def test_a_malformed_or_cut_reply_is_logged_and_never_blocks(home, caplog, kind):
    with misbehaving(kind) as broken:
        config = {"http_post": {"url": f"{broken.url}/audit", "timeout": 2},
                  "allowed_http_hook_urls": [f"{broken.url}/*"]}  # fmt: skip
        hooks = hermes_hooks.load(home, config, entry_points=False)
        with caplog.at_level(logging.WARNING, "hermes_hooks"):
            assert hooks.post_tool_call(tool_name="t", result="ok") is None
    assert f"http_post to {broken.url}/audit on post_tool_call failed" in caplog.text
