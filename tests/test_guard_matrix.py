"""The guard matrix (docs/security.md, "The guard matrix"): every way to declare a guard x every
fault x declared ``fail_closed`` or not. A guard never goes quiet: the call is blocked, or the
guard was not declared fail-closed and its problem is reported (a WARNING naming it, what the
terminal shows) and ``hermes hooks doctor`` exits 1 naming it.

The ways and faults are declared once in tests/guard_matrix.py; a cell whose fault has no
meaning for its way is skipped with the reason in its id's skip message. The standalone runtime
runs in-process with real files, processes and servers (``hermes_hooks.load()``, the
``hermes hooks doctor`` command); the Hermes Agent bridge runs a sample through the real
``hermes chat`` (slow).
"""

from __future__ import annotations

import importlib
import logging
import sys
from contextlib import ExitStack
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from guard_matrix import (
    FAULTS,
    GATEWAY_CONTEXT,
    GATEWAY_EVENT,
    PROBE,
    REASON,
    WAYS,
    Fault,
    Scene,
    Way,
    cells,
)

import hermes_hooks
from hermes_hooks.cli import hoist_global_options, hooks_group

#: Cells that fail today: (way, fault, fail_closed or None for both) -> the exact problem.
KNOWN: dict[tuple[str, str, bool | None], str] = {
    ("plugin-dir", "typo", True): (
        "a Hermes-style register_hook('pre_tool_cal') is kept as an unknown event (for newer "
        "hosts): the fail_closed plugin loads active with no hook on pre_tool_call, so nothing "
        "blocks (doctor reports the misspelt event, exit 1)"
    ),
    ("config-builtin", "typo", True): (
        "a type: builtin entry naming no built-in ('dangerous_pattern') is reported and "
        "skipped; under fail_closed_events it does not block, as an unreadable shell guard "
        "entry does"
    ),
    ("gateway-hook", "missing-script", True): (
        "a fail_closed gateway hook that fails to load (no handler.py) is listed failed and "
        "reported, but nothing stands in for it: command:* events run"
    ),
    ("gateway-hook", "unapproved", True): (
        "a gateway hook directory refused by the trust rule is never read, so its "
        "fail_closed: true is not known: command:* events run"
    ),
    ("gateway-hook", "typo", True): (
        "a HOOK.yaml with 'event:' for 'events:' fails to load and its fail_closed: true is "
        "not honoured: nothing stands in for it, command:* events run"
    ),
}


def _params() -> list[Any]:
    out = []
    for way, fault, fail_closed, why in cells():
        variant = "fail_closed" if fail_closed else "open"
        marks: list[Any] = []
        if why is not None:
            marks.append(pytest.mark.skip(reason=f"{way.name} x {fault.name}: {why}"))
        else:
            known = KNOWN.get((way.name, fault.name, fail_closed)) or KNOWN.get(
                (way.name, fault.name, None)
            )
            if known:
                marks.append(pytest.mark.xfail(strict=True, reason=known))
        out.append(
            pytest.param(
                way, fault, fail_closed, id=f"{way.name}-{fault.name}-{variant}", marks=marks
            )  # fmt: skip
        )
    return out


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for var in ("HERMES_HOME", "HERMES_SAFE_MODE", "HERMES_HOOKS_DISABLED", "HERMES_HOOKS_PLUGINS",
                "HERMES_ENABLE_PROJECT_PLUGINS", "HERMES_ACCEPT_HOOKS", "CODEX_HOME",
                "COPILOT_HOME", "OPENAI_BASE_URL", "OPENAI_API_KEY"):  # fmt: skip
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    (tmp_path / "project").mkdir()
    monkeypatch.chdir(tmp_path / "project")
    monkeypatch.delenv("PWD", raising=False)
    return tmp_path


def _entry_points_on(scene: Scene, monkeypatch: pytest.MonkeyPatch) -> None:
    """Put the scene's distributions on sys.path with entry points on; the machine's own
    plugins stay out (disabled by name, never imported)."""
    machine = {
        ep.name
        for group in ("hermes_hooks", "hermes_agent.plugins")
        for ep in entry_points(group=group)
        if getattr(ep.dist, "name", None) != "hermes-hooks"
    }
    if machine:
        monkeypatch.setenv("HERMES_HOOKS_DISABLED", ",".join(sorted(machine)))
    monkeypatch.delenv("HERMES_HOOKS_DISABLE_AUTOLOAD", raising=False)
    for site, modules in scene.sites:
        monkeypatch.syspath_prepend(str(site))
        for module in modules:
            sys.modules.pop(module, None)
    importlib.invalidate_caches()


def fire(hooks: Any, scene: Scene) -> tuple[bool, str]:
    """Fire the probe: (blocked, the message)."""
    if scene.event == GATEWAY_EVENT:
        result = hooks.emit_sync(GATEWAY_EVENT, GATEWAY_CONTEXT)
        return result.decision == "deny", str(result.message or "")
    decision = hooks.pre_tool_call(**PROBE)
    return bool(decision.blocked), str(decision.message or "")


def doctor(scene: Scene) -> tuple[int, str]:
    result = CliRunner().invoke(hooks_group, hoist_global_options(["--home", str(scene.home),
                                                                   "doctor"]))  # fmt: skip
    return result.exit_code, result.output


def run_cell(
    way: Way, fault: Fault, fail_closed: bool, root: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    with ExitStack() as stack:
        scene = Scene(root, stack)
        way.write(scene, fault.name, fail_closed)
        scene.write_config()
        if scene.sites:
            _entry_points_on(scene, monkeypatch)
        eps = bool(scene.sites)
        if scene.after_approval:
            hermes_hooks.load(scene.home, accept_hooks=True, entry_points=eps).close()
            for change in scene.after_approval:
                change()
        with caplog.at_level(logging.WARNING, logger="hermes_hooks"):
            accept = scene.accept and not scene.after_approval  # an edit is not re-approved
            hooks = hermes_hooks.load(scene.home, accept_hooks=accept, entry_points=eps, ask=False)
            try:
                blocked, message = fire(hooks, scene)
            finally:
                hooks.close()
        named = [n for n in scene.names]
        if fault.name == "healthy":
            assert blocked and REASON in message, (blocked, message)
            return
        if fail_closed:
            assert blocked, f"a fail_closed guard let the call through: {message!r}"
            return
        if blocked:
            return
        reports = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert any(n in m for m in reports for n in named), (
            f"the guard went quiet: nothing reported names {named}; reports: {reports}"
        )
        code, out = doctor(scene)
        assert code == 1 and any(n in out for n in named), (
            f"doctor exited {code}, naming {named}: {[n in out for n in named]}\n{out}"
        )


@pytest.mark.parametrize(("way", "fault", "fail_closed"), _params())
def test_a_guard_never_goes_quiet(
    way: Way, fault: Fault, fail_closed: bool, isolated: Path,
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    run_cell(way, fault, fail_closed, isolated, monkeypatch, caplog)


def test_the_matrix_covers_every_way_and_fault() -> None:
    ways = {w.name for w in WAYS}
    assert {
        "python-plugin", "plugin-dir", "entry-point", "config-command", "config-http",
        "config-prompt", "config-worker", "config-builtin", "claude-settings", "codex-hooks",
        "gemini-settings", "cursor-hooks", "copilot-hooks", "gateway-hook", "plugins-required",
    } <= ways  # fmt: skip
    assert [f.name for f in FAULTS][1:] == [
        "crash", "exit-garbage", "timeout", "slow-drip", "malformed-reply", "missing-script",
        "edited", "unapproved", "typo", "refused-url",
    ]  # fmt: skip
    # every way runs its healthy control and at least half of the faults
    for way in WAYS:
        applicable = [f for f in FAULTS if way.skip(f.name) is None]
        assert applicable[0].name == "healthy" and len(applicable) >= len(FAULTS) // 2, way
