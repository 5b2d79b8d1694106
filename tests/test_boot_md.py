"""BOOT.md: run once per gateway start as a background agent task, through a fake host."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from pathlib import Path

import pytest
from hermes_hooks.builtin_plugins.boot_md import SILENT, BootMd, build_prompt, is_silent

import hermes_hooks

CHECKLIST = "Check that last night's backup finished; report only failures.\n"


class FakeHost:
    """Records what the plugin asks for; answers with a canned reply."""

    def __init__(self, reply: object = SILENT, delay: float = 0.0) -> None:
        self.reply = reply
        self.delay = delay
        self.prompts: list[str] = []
        self.kwargs: list[dict] = []
        self.delivered: list[tuple[str, dict]] = []
        self.threads: list[str] = []

    def run_background_task(self, prompt: str, **kwargs: object) -> object:
        self.threads.append(threading.current_thread().name)
        self.prompts.append(prompt)
        self.kwargs.append(kwargs)
        time.sleep(self.delay)
        return self.reply

    def deliver(self, text: str, **kwargs: object) -> None:
        self.delivered.append((text, kwargs))


class AsyncHost(FakeHost):
    async def run_background_task(self, prompt: str, **kwargs: object) -> object:  # type: ignore[override]
        self.prompts.append(prompt)
        await asyncio.sleep(0.01)
        return self.reply


def boot(
    home: Path, host: object | None, text: str = CHECKLIST, config: dict | None = None
) -> hermes_hooks.Hooks:
    if text is not None:
        (home / "BOOT.md").write_text(text)
    return hermes_hooks.load(home, config or {}, entry_points=False, host=host)


def plugin(hooks: hermes_hooks.Hooks) -> BootMd:
    return hooks.records["builtin:boot_md"].plugin


def start(hooks: hermes_hooks.Hooks) -> BootMd:
    hooks.emit_sync("gateway:startup", {"platforms": ["telegram"]})
    p = plugin(hooks)
    assert p.wait(5)
    return p


def test_silent_reply_delivers_nothing(home):
    host = FakeHost(reply="[SILENT]")
    start(boot(home, host))
    assert len(host.prompts) == 1
    assert CHECKLIST.strip() in host.prompts[0]
    assert SILENT in host.prompts[0]  # the prompt tells the agent how to stay quiet
    assert host.kwargs[0]["name"] == "boot-md"
    assert host.delivered == []


def test_a_report_is_delivered(home):
    host = FakeHost(reply="  Backup of /srv failed at 03:12.\n")
    start(boot(home, host))
    assert host.delivered == [("Backup of /srv failed at 03:12.", {"source": "boot-md"})]


def test_async_host_task_is_awaited(home):
    host = AsyncHost(reply="Disk 91% full")
    start(boot(home, host))
    assert host.delivered == [("Disk 91% full", {"source": "boot-md"})]


def test_startup_never_waits_for_the_task(home):
    host = FakeHost(reply="late report", delay=2.0)
    hooks = boot(home, host)
    began = time.monotonic()
    asyncio.run(hooks.emit("gateway:startup", {}))
    assert time.monotonic() - began < 1.5  # the host's task takes 2 s
    assert plugin(hooks).wait(5)
    assert host.delivered[0][0] == "late report"
    assert host.threads == ["hermes-boot-md"]


def test_runs_at_most_once_per_gateway_start(home):
    host = FakeHost()
    hooks = boot(home, host)
    start(hooks)
    start(hooks)
    assert len(host.prompts) == 1


def test_other_gateway_events_do_not_run_it(home):
    host = FakeHost()
    hooks = boot(home, host)
    hooks.emit_sync("agent:start", {})
    hooks.emit_sync("session:start", {})
    assert host.prompts == []


def test_host_without_the_capability_gets_one_clear_log_line(home, caplog):
    hooks = boot(home, host=object())
    hooks.emit_sync("gateway:startup", {})
    hooks.emit_sync("gateway:startup", {})
    lines = [r for r in caplog.records if "BOOT.md" in r.getMessage()]
    assert len(lines) == 1
    assert lines[0].levelno == logging.WARNING
    assert "run_background_task" in lines[0].getMessage()
    assert str(home / "BOOT.md") in lines[0].getMessage()


def test_no_host_at_all_gets_the_same_line(home, caplog):
    boot(home, host=None).emit_sync("gateway:startup", {})
    assert sum("run_background_task" in r.getMessage() for r in caplog.records) == 1


@pytest.mark.parametrize("text", ["", "   \n\n\t\n"])
def test_empty_boot_md_runs_nothing(home, text):
    host = FakeHost()
    start(boot(home, host, text=text))
    assert host.prompts == []


def test_no_boot_md_registers_nothing(home):
    hooks = hermes_hooks.load(home, {}, entry_points=False, host=FakeHost())
    assert "builtin:boot_md" not in hooks.records
    assert not hooks.has_hook("gateway_event")


def test_boot_md_false_in_config_turns_it_off(home):
    host = FakeHost()
    hooks = boot(home, host, config={"boot_md": False})
    hooks.emit_sync("gateway:startup", {})
    assert "builtin:boot_md" not in hooks.records
    assert host.prompts == []


def test_safe_mode_turns_it_off(home, monkeypatch):
    monkeypatch.setenv("HERMES_SAFE_MODE", "1")
    host = FakeHost()
    hooks = boot(home, host)
    hooks.emit_sync("gateway:startup", {})
    assert host.prompts == []


def test_a_failing_task_is_logged(home, caplog):
    class Broken(FakeHost):
        def run_background_task(self, prompt: str, **kwargs: object) -> object:
            raise RuntimeError("no model configured")

    host = Broken()
    start(boot(home, host))
    assert any("no model configured" in r.getMessage() for r in caplog.records)
    assert host.delivered == []


def test_report_without_deliver_goes_to_the_log(home, caplog):
    caplog.set_level(logging.INFO, logger="hermes_hooks")

    class NoDeliver:
        def run_background_task(self, prompt: str, **kwargs: object) -> str:
            return "3 certificates expire this week"

    start(boot(home, NoDeliver()))
    assert any("3 certificates expire this week" in r.getMessage() for r in caplog.records)


def test_set_host_after_load_is_used(home):
    hooks = boot(home, None)
    host = FakeHost(reply="hello")
    hooks.set_host(host)
    start(hooks)
    assert host.delivered[0][0] == "hello"


def test_listed_as_a_builtin_row(home):
    hooks = boot(home, FakeHost())
    rows = [r for r in hooks.rows() if r["name"] == "builtin:boot_md"]
    assert rows and rows[0]["matcher"] == "gateway:startup" and rows[0]["source"] == "builtin"
    assert all(r["name"] != "builtin:boot_md" for r in hooks.rows(include_builtin=False))


@pytest.mark.parametrize(
    ("reply", "silent"),
    [
        ("[SILENT]", True),
        ("  [SILENT]\n", True),
        ("Nothing to report.\n\n[SILENT]", True),
        ("[SILENT] all good", True),
        ("", True),
        (None, True),
        ("Backup failed", False),
        ("I considered staying [SILENT] but the disk is full", False),
    ],
)
def test_is_silent(reply, silent):
    assert is_silent(reply) is silent


def test_prompt_carries_the_checklist_verbatim():
    prompt = build_prompt("1. check backups\n2. check disk\n")
    assert "1. check backups\n2. check disk" in prompt
    assert "exactly [SILENT]" in prompt
