"""The ``http`` and ``prompt`` hook types, through ``hermes_hooks.load()`` with real config
files, against real servers on 127.0.0.1 (tests/hook_servers.py)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hermes_hooks.builtin_plugins.shell_hooks import web
from hook_servers import Server, misbehaving, policy
from shell_helpers import write_config, write_settings

import hermes_hooks
from hermes_hooks.cli import hoist_global_options, hooks_group

RM = {"tool_name": "terminal", "args": {"command": "rm -rf build"}}
LS = {"tool_name": "terminal", "args": {"command": "ls"}}


@pytest.fixture
def service() -> Iterator[Server]:
    with policy() as server:
        yield server


def load(home: Path, **config: object) -> hermes_hooks.Hooks:
    write_config(home, dict(config))
    return hermes_hooks.load(home, entry_points=False)


def cli(home: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(hooks_group, hoist_global_options(["--home", str(home), *args]))
    return result.exit_code, result.output


# ---------------------------------------------------------------------------------- http


def test_an_http_hook_shares_one_policy_service(home, service, monkeypatch, caplog):
    monkeypatch.setenv("POLICY_TOKEN", "s3cret")
    monkeypatch.setenv("OTHER_SECRET", "leak")
    entry = {"type": "http", "url": f"{service.url}/policy", "timeout": 5,
             "headers": {"Authorization": "Bearer $POLICY_TOKEN", "X-Other": "${OTHER_SECRET}"},
             "allowed_env_vars": ["POLICY_TOKEN"]}  # fmt: skip
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(home, hooks={"pre_tool_call": [entry]},
                     allowed_http_hook_urls=[f"{service.url}/*"])  # fmt: skip
    decision = hooks.pre_tool_call(**RM)
    assert decision.action == "block" and decision.message == "policy: no rm"
    assert hooks.pre_tool_call(**LS).action is None
    sent = service.received[0]
    assert sent["body"]["hook_event_name"] == "pre_tool_call"
    assert sent["body"]["tool_input"] == {"command": "rm -rf build"}
    assert sent["headers"]["Authorization"] == "Bearer s3cret"
    assert sent["headers"]["X-Other"] == ""  # not allowed: sent empty, and said so at load
    assert "names $OTHER_SECRET, which is not in the entry's allowed_env_vars" in caplog.text


def test_config_wide_allowed_env_vars_fill_headers(home, service, monkeypatch):
    monkeypatch.setenv("FLEET_TOKEN", "f1")
    entry = {"type": "http", "url": f"{service.url}/policy", "headers": {"X-Fleet": "$FLEET_TOKEN"}}
    hooks = load(home, hooks={"pre_tool_call": [entry]}, allowed_env_vars=["FLEET_TOKEN"],
                 allowed_http_hook_urls=[f"{service.url}/*"])  # fmt: skip
    hooks.pre_tool_call(**LS)
    assert service.received[0]["headers"]["X-Fleet"] == "f1"


def test_a_url_outside_the_allow_list_is_refused_loudly_and_blocks_when_fail_closed(
    home, service, caplog
):
    entries = [{"type": "http", "url": f"{service.url}/policy", "fail_closed": True}]
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(home, hooks={"pre_tool_call": entries},
                     allowed_http_hook_urls=["https://policy.example.com/*"])  # fmt: skip
    assert "http hook refused" in caplog.text and "allowed_http_hook_urls" in caplog.text
    decision = hooks.pre_tool_call(**LS)
    assert service.received == []  # nothing was sent
    assert decision.action == "block" and "allowed_http_hook_urls" in decision.message
    code, out = cli(home, "list", "--json")
    [row] = [r for r in json.loads(out) if r.get("type") == "http"]
    assert row["status"] == "refused" and "not in allowed_http_hook_urls" in row["error"]
    code, out = cli(home, "doctor")
    assert "not in allowed_http_hook_urls" in out


@pytest.mark.parametrize(
    ("pattern", "trick"),
    [
        ("http://*.corp.example/*", "{url}/.corp.example/x"),  # the host glob ran into the path
        ("http://corp.example:*/*", "http://corp.example:1@{hostport}/x"),  # user info
        ("http://corp.example*", "http://corp.example@{hostport}/"),
        ("http://*corp.example/*", "{url}/?corp.example/"),
    ],
)
def test_the_allow_list_matches_parsed_parts_never_the_raw_url(
    home, service, caplog, pattern, trick
):
    url = trick.format(url=service.url, hostport=service.url.removeprefix("http://"))
    entry = {"type": "http", "url": url, "fail_closed": True, "name": "guard"}
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(home, hooks={"pre_tool_call": [entry]}, allowed_http_hook_urls=[pattern])
        decision = hooks.pre_tool_call(**LS)
    assert "http hook refused" in caplog.text
    assert decision.action == "block" and "allowed_http_hook_urls" in decision.message
    assert service.received == []  # the payload went nowhere


def test_an_ipv6_literal_in_the_allow_list_is_a_host_and_port(home, caplog):
    allowed = ["http://[::1]:8080/*"]
    entries = [{"type": "http", "url": "http://[::1]:8080/hook", "name": "v6"},
               {"type": "http", "url": "http://[::1]:8081/hook", "name": "other-port"}]  # fmt: skip
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        load(home, hooks={"pre_tool_call": entries}, allowed_http_hook_urls=allowed)
    code, out = cli(home, "list", "--json")
    status = {r["name"]: r["status"] for r in json.loads(out) if r.get("type") == "http"}
    assert status == {"v6": "active", "other-port": "refused"}


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("https://a.corp.example/x", True),
        ("https://A.Corp.Example./x/y?q=1", True),  # case and a trailing dot: the same host
        ("https://corp.example/x", False),  # *. wants a subdomain
        ("http://a.corp.example/x", False),  # another scheme
        ("https://a.corp.example:8443/x", False),  # another port
        ("https://a.corp.example:443/x", True),  # the scheme's own port
        ("https://a.corp.example.evil/x", False),
        ("https://evil/.corp.example/x", False),
        ("https://a.corp.example@evil/x", False),
        ("https://user:pw@a.corp.example/x", False),  # no user info, ever: use headers
        ("https://a.corp.example/../x", False),  # dot segments
        ("https://a.corp.example%2f.evil/x", False),
    ],
)
def test_url_allowed_table(url, allowed):
    assert web.url_allowed(url, ["https://*.corp.example/*"]) is allowed


def test_url_allowed_patterns():
    assert web.url_allowed("https://h.example/hooks/pre", ["https://h.example/hooks/*"])
    assert not web.url_allowed("https://h.example/other", ["https://h.example/hooks/*"])
    assert web.url_allowed("https://h.example/", ["https://h.example"])  # no path: "/"
    assert web.url_allowed("http://127.0.0.1:9/x", ["http://127.0.0.1:*/*"])  # any port
    assert web.url_allowed("http://[::1]:8080/x", ["http://[::1]:8080/*"])
    assert not web.url_allowed("http://[::2]:8080/x", ["http://[::1]:8080/*"])
    assert web.url_allowed("https://x.example/y", ["*"])  # everything, as before
    assert not web.url_allowed("https://x.example/y", ["x.example/*", "https://u@x.example/*"])
    assert web.pattern_problem("x.example/*") is not None
    assert web.pattern_problem("https://u@x.example/*") is not None
    assert web.pattern_problem("https://*.x.example:*/a/*") is None


def test_a_failing_service_is_an_error_naming_the_status(home, service, caplog):
    down = {"type": "http", "url": f"{service.url}/down"}
    guard = {"type": "http", "url": f"{service.url}/down", "fail_closed": True, "name": "guard"}
    allowed = [f"{service.url}/*"]
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(home, hooks={"pre_tool_call": [down]}, allowed_http_hook_urls=allowed,
                     trace_file="trace.jsonl")  # fmt: skip
        assert hooks.pre_tool_call(**LS).action is None  # fail open
    assert "HTTP 503" in caplog.text and "maintenance" in caplog.text
    traced = [json.loads(line) for line in (home / "trace.jsonl").read_text().splitlines()]
    assert any(t.get("hook") == down["url"] and t.get("outcome") == "failed" for t in traced)
    hooks = load(home, hooks={"pre_tool_call": [guard]}, allowed_http_hook_urls=allowed)
    decision = hooks.pre_tool_call(**LS)
    assert decision.action == "block" and "HTTP 503" in decision.message


def test_a_slow_service_times_out_and_a_redirect_elsewhere_is_not_followed(home, service):
    slow = {"type": "http", "url": f"{service.url}/slow", "timeout": 0.5, "fail_closed": True}
    moved = {"type": "http", "url": f"{service.url}/redirect", "fail_closed": True}
    hooks = load(home, hooks={"pre_tool_call": [slow]}, allowed_http_hook_urls=[f"{service.url}/*"])
    decision = hooks.pre_tool_call(**LS)
    assert decision.action == "block" and "timed out after 0.5s" in decision.message
    hooks = load(
        home, hooks={"pre_tool_call": [moved]}, allowed_http_hook_urls=[f"{service.url}/*"]
    )
    decision = hooks.pre_tool_call(**LS)
    assert decision.action == "block" and "refused a redirect to another host" in decision.message


@pytest.mark.parametrize(
    "kind", ["bad-status", "incomplete-chunk", "line-too-long", "many-headers", "closed"]
)
def test_a_malformed_reply_costs_only_its_own_hook(home, service, kind, caplog):
    with misbehaving(kind) as broken:
        allowed = [f"{service.url}/*", f"{broken.url}/*"]
        entries = [{"type": "http", "url": f"{broken.url}/hook", "name": "broken"},
                   {"type": "http", "url": f"{service.url}/policy", "name": "fleet"}]  # fmt: skip
        with caplog.at_level(logging.WARNING, "hermes_hooks"):
            hooks = load(home, hooks={"pre_tool_call": entries}, allowed_http_hook_urls=allowed)
            decision = hooks.pre_tool_call(**RM)
        # the other hook's block still blocks; the broken one is a failure of its own
        assert decision.action == "block" and decision.message == "policy: no rm"
        assert len(broken.received) == 1 and "'broken'" in caplog.text
        guard = {**entries[0], "fail_closed": True}
        hooks = load(home, hooks={"pre_tool_call": [guard, entries[1]]},
                     allowed_http_hook_urls=allowed)  # fmt: skip
        decision = hooks.pre_tool_call(**LS)
        assert decision.action == "block" and "broken" in decision.message


def test_a_reply_shorter_than_its_content_length_is_a_failure(home, caplog):
    with misbehaving("short") as broken:
        guard = {"type": "http", "url": f"{broken.url}/hook", "name": "guard", "fail_closed": True}
        allowed = [f"{broken.url}/*"]
        with caplog.at_level(logging.WARNING, "hermes_hooks"):
            hooks = load(home, hooks={"pre_tool_call": [guard]}, allowed_http_hook_urls=allowed)
            decision = hooks.pre_tool_call(**LS)
        assert decision.action == "block" and "guard" in decision.message
        assert "2 of 50 bytes" in decision.message
        caplog.clear()
        with caplog.at_level(logging.WARNING, "hermes_hooks"):
            hooks = load(home, hooks={"pre_tool_call": [{**guard, "fail_closed": False}]},
                         allowed_http_hook_urls=allowed)  # fmt: skip
            assert hooks.pre_tool_call(**LS).action is None  # fails open, but not silently
        assert "2 of 50 bytes" in caplog.text


def test_timeout_bounds_the_whole_exchange_not_each_read(home):
    with misbehaving("drip") as slow:
        guard = {"type": "http", "url": f"{slow.url}/hook", "timeout": 1, "fail_closed": True}
        hooks = load(
            home, hooks={"pre_tool_call": [guard]}, allowed_http_hook_urls=[f"{slow.url}/*"]
        )
        started = time.monotonic()
        decision = hooks.pre_tool_call(**LS)
        took = time.monotonic() - started
    assert decision.action == "block" and "timed out after 1s" in decision.message
    assert took < 3, f"a 1 s limit held the call {took:.1f} s"


def test_settings_json_http_hooks_speak_claude_code(home, service, monkeypatch):
    monkeypatch.setenv("POLICY_TOKEN", "cc")
    group = {"matcher": "Bash", "hooks": [{"type": "http", "url": f"{service.url}/claude",
             "headers": {"X-Token": "$POLICY_TOKEN"}, "allowedEnvVars": ["POLICY_TOKEN"],
             "timeout": 5}]}  # fmt: skip
    write_settings(home / "settings.json", {"PreToolUse": [group]})
    hooks = load(home, allowed_http_hook_urls=[f"{service.url}/*"])
    decision = hooks.pre_tool_call(**RM)
    assert decision.action == "block" and decision.message == "fleet policy"
    body = service.received[0]["body"]
    assert body["hook_event_name"] == "PreToolUse" and body["tool_name"] == "Bash"
    assert service.received[0]["headers"]["X-Token"] == "cc"
    assert hooks.pre_tool_call(tool_name="read_file", args={"path": "x"}).action is None
    assert len(service.received) == 1  # the matcher kept read_file away


def test_hooks_list_and_test_show_and_fire_http_hooks(home, service):
    entry = {"type": "http", "url": f"{service.url}/policy", "name": "fleet-policy"}
    write_config(home, {"hooks": {"pre_tool_call": [entry]},
                        "allowed_http_hook_urls": [f"{service.url}/*"]})  # fmt: skip
    code, out = cli(home, "list", "--json")
    [row] = [r for r in json.loads(out) if r["name"] == "fleet-policy"]
    assert code == 0 and row["type"] == "http" and row["status"] == "active"
    payload = home / "p.json"
    payload.write_text(json.dumps({"tool_name": "terminal", "args": {"command": "rm -rf /"}}))
    code, out = cli(home, "test", "pre_tool_call", "--payload-file", str(payload), "--json")
    doc = json.loads(out)
    [hook] = doc["hooks"]
    assert code == 0 and hook["ran"] and hook["exit_code"] == 0
    assert doc["result"]["action"] == "block" and doc["result"]["message"] == "policy: no rm"


def test_malformed_entries_are_reported_with_file_and_entry(home, caplog):
    entries = [{"type": "htpp", "url": "http://127.0.0.1:9/"},
               {"type": "http", "headers": {"A": "b"}},
               {"type": "http", "url": "ftp://example.com/x"},
               {"type": "http", "url": "http://127.0.0.1:9/", "command": "true"},
               {"type": "prompt", "model": "m", "prompt": "{{ open('x') }}"}]  # fmt: skip
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        load(
            home, hooks={"pre_tool_call": entries}, allowed_http_hook_urls=["http://127.0.0.1:9/*"]
        )
    where = f"hooks.pre_tool_call[%d] in {home / 'config.yaml'}"
    assert f"{where % 0}: unknown hook type 'htpp' (did you mean 'http'?)" in caplog.text
    assert f"{where % 1}: an http hook needs a 'url'" in caplog.text
    assert (
        f"{where % 2}: url 'ftp://example.com/x' is not an http:// or https:// URL" in caplog.text
    )
    assert f"{where % 3}: unknown key 'command' for a hook of type 'http'" in caplog.text
    assert f"{where % 4}: prompt placeholder " in caplog.text


@pytest.mark.parametrize("url", ["http://[::1/x", "http://[zz]/x"])
@pytest.mark.parametrize("kind", ["http", "prompt"])
def test_an_unparsable_url_costs_only_its_own_entry(home, caplog, monkeypatch, url, kind):
    # urlsplit raises on a malformed [IPv6] host: the entry is reported and skipped; it must not
    # take the whole shell-hook source (and the guard beside it) down with it.
    entry = (
        {"type": "http", "url": url}
        if kind == "http"
        else {"type": "prompt", "model": "m", "prompt": "ok?", "base_url": url}
    )
    guard = {"command": 'echo \'{"decision": "block", "reason": "no"}\''}
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # the judge's fallback
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks = load(home, hooks={"pre_tool_call": [guard, entry]}, hooks_auto_accept=True,
                     allowed_http_hook_urls=["*"])  # fmt: skip
        decision = hooks.pre_tool_call(**LS)
    assert "failed to start" not in caplog.text
    assert url in caplog.text
    # the guard beside it still runs and blocks (the first block is the one shown)
    assert decision.action == "block" and decision.message == "no"


def test_command_hooks_alone_do_not_import_the_http_or_prompt_runners(tmp_path: Path) -> None:
    home = tmp_path / "lean-home"
    home.mkdir()
    (home / "config.yaml").write_text(
        "hooks_auto_accept: true\nhooks:\n  pre_tool_call:\n    - {command: 'true'}\n"
    )
    code = (
        "import sys, hermes_hooks; h = hermes_hooks.load(sys.argv[1], entry_points=False); "
        "h.pre_tool_call(tool_name='terminal', args={}); "
        "p = 'hermes_hooks.builtin_plugins.shell_hooks.'; "
        "print(sorted(m for m in ('remote', 'judge', 'template') if p + m in sys.modules), "
        "'http.client' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(home)], capture_output=True, text=True)
    assert out.stdout.strip() == "[] False", out.stderr
